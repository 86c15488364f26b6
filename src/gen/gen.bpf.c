// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The traffic generator's XDP program, run by BPF_PROG_TEST_RUN with
 * BPF_F_TEST_XDP_LIVE_FRAMES: every run returns XDP_TX (the frame leaves
 * through the ingress interface) unless the pacer or the quota holds it
 * back (XDP_DROP: the kernel recycles the page cheaply).
 *
 * Pacing is per CPU, in trains: when `next` has come, a train of `train`
 * frames leaves back to back and `next` moves one train interval on. A
 * sender that fell behind (its CPU taken by another task, a slow batch)
 * keeps its credit and catches up at twice the rate (not back to back,
 * which would overflow a receiver's ring); only one more than `maxlag`
 * behind skips ahead. All times are ns << FP_GEN_SHIFT so that high rates keep a
 * fraction of a nanosecond of interval.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "gen/gen.h"

/* Set by user space before load (offsets are from the start of the frame). */
const volatile __u32 rand_src = 0;       /* rewrite the IPv4 source */
const volatile __u32 rand_base = 0;      /* prefix, host order */
const volatile __u32 rand_hostmask = 0;  /* bits below the prefix, host order */
const volatile __u32 ip_off = 14;        /* IPv4 header */
const volatile __u32 l4_csum_off = 0;    /* TCP/UDP checksum field, 0 = none */
const volatile __u32 l4_udp = 0;         /* the L4 checksum is UDP's (0 = none) */
const volatile __u32 rand_label = 0;     /* rewrite the first DNS label */
const volatile __u32 label_off = 0;      /* its first byte (after the length) */
const volatile __u32 label_len = 0;      /* 1..FP_GEN_LABEL_MAX */
const volatile __u32 rand_sport = 0;     /* rewrite the TCP/UDP source port */
const volatile __u32 l4_off = 0;         /* the TCP/UDP header */
/* The template's first head_len bytes (a multiple of 8): written back over
 * every frame before it leaves. A live frame's page is recycled with what
 * the receiver left in it, and a receiver that forwards (the stack, an lb,
 * a bridge) rewrites MACs, TTL and checksums or encapsulates in place:
 * without this the next frames from that page would leave modified. */
const volatile __u32 head_len = 0;
const volatile __u64 head[FP_GEN_HEAD / 8] = {};

/* Counters and pacer state, one per CPU (user space sums and seeds them). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_gen_cpu);
} fp_gen_cpu SEC(".maps");

/* RFC 1624: checksum after one 16-bit word changes from `from` to `to`
 * (words as they lie in memory; one's complement sums ignore byte order). */
static __always_inline __u16 csum_replace2(__u16 check, __u16 from, __u16 to)
{
	__u32 sum = (__u16)~check + (__u16)~from + (__u32)to;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

static __always_inline void rewrite_src(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u16 *check = data + ip_off + 10;
	__u16 *saddr = data + ip_off + 12;     /* two words: saddr[0], saddr[1] */
	__u32 addr = bpf_htonl(rand_base | (bpf_get_prandom_u32() & rand_hostmask));
	__u16 w0 = (__u16)addr, w1 = (__u16)(addr >> 16); /* memory order (LE host) */
	__u16 old0, old1;

	if ((void *)(saddr + 2) > end)
		return;
	old0 = saddr[0];
	old1 = saddr[1];
	*check = csum_replace2(csum_replace2(*check, old0, w0), old1, w1);
	if (l4_csum_off) {
		__u16 *l4 = data + l4_csum_off;

		if ((void *)(l4 + 1) <= end && !(l4_udp && *l4 == 0)) {
			__u16 v = csum_replace2(csum_replace2(*l4, old0, w0), old1, w1);

			*l4 = (l4_udp && v == 0) ? 0xffff : v;
		}
	}
	saddr[0] = w0;
	saddr[1] = w1;
}

/* A random source port (the L4 checksum fixed: it covers the port). */
static __always_inline void rewrite_sport(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u16 *sport = data + l4_off, w = (__u16)bpf_get_prandom_u32(), old;

	if ((void *)(sport + 1) > end)
		return;
	old = *sport;
	if (l4_csum_off) {
		__u16 *l4 = data + l4_csum_off;

		if ((void *)(l4 + 1) <= end && !(l4_udp && *l4 == 0)) {
			__u16 v = csum_replace2(*l4, old, w);

			*l4 = (l4_udp && v == 0) ? 0xffff : v;
		}
	}
	*sport = w;
}

static __always_inline void restore_head(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;

	for (__u32 i = 0; i < FP_GEN_HEAD / 8; i++) {
		__u64 *w = data + i * 8;

		if (i * 8 >= head_len || (void *)(w + 1) > end)
			break;
		*w = head[i];
	}
}

/* Random [a-z0-9] over the first label (the UDP checksum was zeroed). */
static __always_inline void rewrite_label(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u32 r = 0;

	for (__u32 i = 0; i < FP_GEN_LABEL_MAX; i++) {
		__u8 *b = data + label_off + i;
		__u32 v;

		if (i >= label_len || (void *)(b + 1) > end)
			break;
		if (!(i & 3))
			r = bpf_get_prandom_u32();
		v = (r & 0xff) % 36;
		r >>= 8;
		*b = v < 26 ? 'a' + v : '0' + (v - 26);
	}
}

SEC("xdp")
int fp_gen(struct xdp_md *ctx)
{
	__u32 zero = 0;
	struct fp_gen_cpu *c = bpf_map_lookup_elem(&fp_gen_cpu, &zero);

	if (!c)
		return XDP_DROP;
	if (c->quota && c->sent >= c->quota)
		return XDP_DROP;
	if (c->interval && c->left) {
		c->left--;
	} else if (c->interval) {
		__u64 now = bpf_ktime_get_ns() << FP_GEN_SHIFT;

		if (now < c->next || now < c->gate) {
			c->paced++;
			return XDP_DROP;
		}
		if (c->next + c->maxlag < now)
			c->next = now;                        /* too far behind: skip ahead */
		c->next += c->interval;                       /* the schedule */
		c->gate = now + c->interval / 2;           /* behind it: twice the rate */
		c->left = c->train - 1;
	}
	restore_head(ctx);
	if (rand_src)
		rewrite_src(ctx);
	if (rand_sport)
		rewrite_sport(ctx);
	if (rand_label)
		rewrite_label(ctx);
	if (!c->sent)
		c->first_ns = bpf_ktime_get_ns();
	c->sent++;
	return XDP_TX;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
