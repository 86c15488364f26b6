// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The decap stage (slot FP_STAGE_DECAP, the last of the chain): the
 * backend side of the lb. A packet whose outer header says IP in IP
 * (IPv4 protocol 4 or 41, IPv6 next header 4 or 41) and whose outer
 * destination is one of this host's (decap_addrs) loses its outer header:
 * the L2 header (VLAN tags kept) moves up over it, the innermost
 * ethertype becomes the inner packet's, and the inner packet goes to the
 * stack (XDP_PASS after bpf_xdp_adjust_head: a stage that moves the head
 * ends the chain). Anything else goes on untouched. An outer fragment, or
 * an inner header cut short or of the wrong version, is dropped. ECN: an
 * outer CE mark is carried to the inner packet (RFC 6040, as the kernel's
 * tunnels do), or the packet dropped when the inner one is Not-ECT.
 * Every packet is counted once, by cause (enum fp_decap_counter).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include "pipeline.h"
#include "parse.h"
#include <fastpath/decap_abi.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_decap_meta);
} decap_meta SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FP_DECAP_MAX_ADDRS);
	__type(key, struct fp_decap_addr);
	__type(value, __u32);
} decap_addrs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FP_DECAP_C_MAX);
	__type(key, __u32);
	__type(value, struct fp_counter);
} decap_cnt SEC(".maps");

static __always_inline void count(__u32 cause, __u32 len)
{
	struct fp_counter *c = bpf_map_lookup_elem(&decap_cnt, &cause);

	if (c) {
		c->packets++;
		c->bytes += len;
	}
}

/* Whether the outer destination is one of this host's. */
static __always_inline int ours(const struct fp_pkt *pkt)
{
	struct fp_decap_addr k = { .family = pkt->l3 };

	__builtin_memcpy(k.addr, pkt->dst, 16);
	return bpf_map_lookup_elem(&decap_addrs, &k) != NULL;
}

/*
 * The inner header at off (within the outer datagram, which ends at
 * ip_end) is whole and of version `ver`: 1, else 0.
 */
static __always_inline int inner_ok(void *data, void *data_end, __u32 off, __u32 ip_end,
				    __u32 ver)
{
	__u32 ihl, tot;
	__u8 *ip;

	if (off > 128)
		return 0;
	if (ver == 6) {
		if (off + 40 > ip_end || !FP_IN_FRAME(data, data_end, off, 40))
			return 0;
		ip = data + off;
		return (ip[0] >> 4) == 6 && off + 40 + ((__u32)ip[4] << 8 | ip[5]) <= ip_end;
	}
	if (off + 20 > ip_end || !FP_IN_FRAME(data, data_end, off, 20))
		return 0;
	ip = data + off;
	ihl = (ip[0] & 0x0f) * 4;
	tot = (__u32)ip[2] << 8 | ip[3];
	return (ip[0] >> 4) == 4 && ihl >= 20 && tot >= ihl && off + tot <= ip_end;
}

/* The ECN field (RFC 3168: 0 Not-ECT, 1 and 2 ECT, 3 CE) of an IP header. */
static __always_inline __u32 ecn_of(const __u8 *ip, __u32 ver)
{
	return ver == 4 ? ip[1] & 3 : (ip[1] >> 4) & 3;
}

/*
 * RFC 6040 at the decapsulator: congestion marked on the outer header
 * (CE, by a router between the lb and here) is carried to an ECN-capable
 * inner packet; -1 when the inner one is Not-ECT (the RFC's drop: the
 * sender would never learn of the congestion), else 0.
 */
static __always_inline int carry_ce(void *data, void *data_end, __u32 off, __u32 outer_ecn,
				    __u32 ver)
{
	__u8 *ip;
	__u32 in_ecn;

	if (outer_ecn != 3)
		return 0;
	if (off > 128 || !FP_IN_FRAME(data, data_end, off, 20))
		return -1;
	ip = data + off;
	in_ecn = ecn_of(ip, ver);
	if (in_ecn == 0)
		return -1;
	if (in_ecn == 3)
		return 0;
	if (ver == 6) {
		ip[1] |= 0x30;
	} else {
		/* the header checksum over the changed word (RFC 1624 eqn. 3) */
		__u32 old = (__u32)ip[0] << 8 | ip[1], new = old | 3;
		__u32 sum = (~((__u32)ip[10] << 8 | ip[11]) & 0xffff) + (~old & 0xffff) + new;

		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		ip[1] |= 3;
		ip[10] = (~sum >> 8) & 0xff;
		ip[11] = ~sum & 0xff;
	}
	return 0;
}

/*
 * Strips hlen bytes of outer header after the L2 header of l2_len bytes
 * (14, 18 or 22: Ethernet and 0..2 tags) and writes the inner packet's
 * ethertype. 0, or -1 when the frame could not be moved.
 */
static __always_inline int strip(struct xdp_md *ctx, __u32 l2_len, __u32 hlen, __u16 type)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 l2[24];
	__u8 *p;

	/* everything of the L2 header but its last ethertype, kept aside */
	if (!FP_IN_FRAME(data, data_end, 0, 24))
		return -1;
	__builtin_memcpy(l2, data, 24);
	if (bpf_xdp_adjust_head(ctx, (int)hlen))
		return -1;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	if (!FP_IN_FRAME(data, data_end, 0, 22))
		return -1;
	p = data;
	if (l2_len == 14) {
		__builtin_memcpy(p, l2, 12);
		*(__u16 *)(p + 12) = __builtin_bswap16(type);
	} else if (l2_len == 18) {
		__builtin_memcpy(p, l2, 16);
		*(__u16 *)(p + 16) = __builtin_bswap16(type);
	} else {
		__builtin_memcpy(p, l2, 20);
		*(__u16 *)(p + 20) = __builtin_bswap16(type);
	}
	return 0;
}

SEC("xdp")
int fp_decap(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct fp_pkt *pkt = fp_pkt_get();
	__u32 cause, action = XDP_PASS, hlen, off, ver;
	__u8 *ip;

	if (!pkt)
		return XDP_PASS;
	if (!(pkt->have & FP_HAVE_PROTO) || (pkt->proto != 4 && pkt->proto != 41)) {
		cause = FP_DECAP_C_OTHER;
		goto end;
	}
	if (!ours(pkt)) {
		cause = FP_DECAP_C_NOT_OURS;
		goto end;
	}
	if (pkt->have & FP_HAVE_FRAG) {
		cause = FP_DECAP_C_FRAGMENT;
		action = XDP_DROP;
		goto end;
	}
	off = pkt->l3_off;
	if (off > 22 || !FP_IN_FRAME(data, data_end, off, 40)) {
		/* a whole IPv6 header or 20 bytes of IPv4 and 20 of inner */
		cause = FP_DECAP_C_MALFORMED;
		action = XDP_DROP;
		goto end;
	}
	ip = data + off;
	if (pkt->l3 == 4) {
		hlen = (ip[0] & 0x0f) * 4;
	} else {
		hlen = 40;
		if (ip[6] != pkt->proto) { /* reached through extension headers */
			cause = FP_DECAP_C_EXTHDR;
			goto end;
		}
	}
	ver = pkt->proto == 4 ? 4 : 6;
	if (!inner_ok(data, data_end, off + hlen, pkt->ip_end, ver)) {
		cause = FP_DECAP_C_MALFORMED;
		action = XDP_DROP;
		goto end;
	}
	if (carry_ce(data, data_end, off + hlen, ecn_of(ip, pkt->l3), ver)) {
		cause = FP_DECAP_C_ECN;
		action = XDP_DROP;
		goto end;
	}
	if (pkt->l3 == 4)
		cause = ver == 4 ? FP_DECAP_C_4IN4 : FP_DECAP_C_6IN4;
	else
		cause = ver == 4 ? FP_DECAP_C_4IN6 : FP_DECAP_C_6IN6;
	count(cause, pkt->pkt_len);
	if (strip(ctx, off, hlen, ver == 4 ? ETH_P_IP : ETH_P_IPV6))
		return XDP_ABORTED;
	/* the head moved: the parse no longer describes the frame, so the
	 * chain ends here (and no dump is offered a frame it would misread) */
	return XDP_PASS;
end:
	count(cause, pkt->pkt_len);
	pkt->verdict.reason = cause;
	pkt->verdict.ident = 0;
	pkt->verdict.serial = 0;
	return fp_stage_end(ctx, pkt, fp_ctl_get(), FP_STAGE_DECAP, action, 1);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
