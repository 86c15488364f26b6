/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Encapsulation for direct server return: the client's IP datagram, its
 * TTL / hop limit lowered as a router lowers it, inside an outer header to
 * the backend: IPv4 in IPv4 (protocol 4), IPv6 in IPv6 (next header 41),
 * IPv4 in IPv6 (next header 4). The backend decapsulates it (the kernel's
 * ipip / ip6tnl in external mode, or `fastpath decap`) and answers the
 * client from the VIP. The Ethernet header and its VLAN tags stay in
 * front; the outer IP header goes between them and the client's datagram.
 */
#ifndef FP_LB_ENCAP_H
#define FP_LB_ENCAP_H

#include "lb_pkt.h"
#include "lb_maps.h"

/* The frame's Ethernet header and tags, saved before the head moves. */
struct lb_l2 {
	__u8  mac[12];  /* destination, then source, as the frame came */
	__u32 tag[2];   /* TPID and TCI of each tag, as on the wire */
	__u32 n_vlan;   /* 0..2 */
} __attribute__((aligned(8))); /* mac read as a u64 and a u32 (lb_put_l2) */

/* Header bytes move as words: a byte-wise copy or store into the frame
 * (what clang makes of a memcpy to an unaligned pointer) is one
 * instruction a byte. */
static __always_inline int lb_save_l2(struct xdp_md *ctx, struct lb_l2 *l2, __u32 n_vlan)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;

	if (!LB_IN_FRAME(data, data_end, 0, LB_L2_MAX) || n_vlan > 2)
		return -1;
	*(__u64 *)l2->mac = *(lb_w64 *)data;
	*(__u32 *)(l2->mac + 8) = *(lb_w32 *)(data + 8);
	l2->tag[0] = *(lb_w32 *)(data + 12);
	l2->tag[1] = *(lb_w32 *)(data + 16);
	l2->n_vlan = n_vlan;
	return 0;
}

/* Writes the Ethernet header (macs: the destination and source, 12 bytes
 * 8-aligned; then the saved tags and `type`) at the frame's start.
 * Returns its length (the L3 offset), or -1. */
static __always_inline int lb_put_l2(struct xdp_md *ctx, const struct lb_l2 *l2,
				     const __u8 *macs, __u16 type)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data;

	if (!LB_IN_FRAME(data, data_end, 0, LB_L2_MAX))
		return -1;
	*(lb_w64 *)p = *(const __u64 *)macs;
	*(lb_w32 *)(p + 8) = *(const __u32 *)(macs + 8);
	if (l2->n_vlan == 0) {
		*(lb_w16 *)(p + 12) = bpf_htons(type);
		return 14;
	}
	*(lb_w32 *)(p + 12) = l2->tag[0];
	if (l2->n_vlan == 1) {
		*(lb_w16 *)(p + 16) = bpf_htons(type);
		return 18;
	}
	*(lb_w32 *)(p + 16) = l2->tag[1];
	*(lb_w16 *)(p + 20) = bpf_htons(type);
	return 22;
}

/*
 * The outer source (Katran's trick): the configured prefix with its host
 * bits (at most the low 32) from the flow hash, so that a backend's RSS,
 * which hashes the outer header, spreads the flows over its queues.
 * Returns LB_GO, or FP_LB_C_ERROR when the family has no source set.
 */
static __always_inline __u32 lb_host_bits(__u32 base_be, __u32 host, __u32 hash)
{
	__u32 mask = host >= 32 ? 0 : 0xffffffffu << host;

	return bpf_htonl((bpf_ntohl(base_be) & mask) | (hash & ~mask));
}

static __always_inline __u32 lb_outer_src(const struct fp_lb_meta *m, __u8 family, __u32 hash,
					  __u8 *out)
{
	__u32 len;

	if (family == 4) {
		if (!(m->flags & FP_LB_META_SRC4))
			return FP_LB_C_ERROR;
		len = m->src4_len < 16 ? 16 : m->src4_len > 32 ? 32 : m->src4_len;
		*(lb_w32 *)out = lb_host_bits(m->src4, 32 - len, hash);
		return LB_GO;
	}
	if (!(m->flags & FP_LB_META_SRC6))
		return FP_LB_C_ERROR;
	len = m->src6_len < 96 ? 96 : m->src6_len > 128 ? 128 : m->src6_len;
	lb_copy16(out, m->src6);
	*(lb_w32 *)(out + 12) = lb_host_bits(*(const lb_w32 *)(m->src6 + 12), 128 - len, hash);
	return LB_GO;
}

/* What the encapsulation takes from the client's header before it moves. */
struct lb_inner {
	__u8 tos;  /* IPv4 TOS / IPv6 traffic class: copied outward (ECN, DSCP) */
	__u8 df;   /* IPv4 don't-fragment: copied to an IPv4 outer header */
};

/*
 * Lowers the client's TTL / hop limit by one, as a router does (IPv4: the
 * header checksum updated incrementally; the L4 checksum does not cover
 * it), and reads what the outer header copies. The caller checked that
 * the TTL is above 1. Returns 0, or -1 when the header is not there.
 */
static __always_inline int lb_inner_hop(struct xdp_md *ctx, const struct fp_pkt *pkt,
					struct lb_inner *in)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	__u32 off = pkt->l3_off;
	__u8 *ip;

	if (off > LB_L2_MAX)
		return -1;
	ip = data + off;
	LB_OPAQUE(ip);
	if ((void *)(ip + 20) > data_end)
		return -1;
	if (pkt->l3 == 4) {
		/* the TTL, the high byte of its word, one less: the checksum
		 * one more there (RFC 1624, as the kernel's ip_decrease_ttl) */
		__u32 check = *(lb_w16 *)(ip + 10);

		check += bpf_htons(0x0100);
		*(lb_w16 *)(ip + 10) = check + (check >= 0xffff);
		ip[8]--;
		in->tos = ip[1];
		in->df = (ip[6] & 0x40) != 0;
	} else {
		if ((void *)(ip + 40) > data_end)
			return -1;
		ip[7]--;
		in->tos = (ip[0] << 4) | (ip[1] >> 4);
		in->df = 1;
	}
	return 0;
}

/* Outer IPv4: DF copied from the client's header (RFC 2003), TTL 64, no
 * options, a valid checksum. Built in five words, summed as words (a
 * ones'-complement sum is the same over 32-bit words, folded), stored as
 * words. */
static __always_inline int lb_put_outer4(void *ip, void *data_end, const struct lb_state *s,
					 const __u8 *osrc, const struct lb_inner *in, __u32 len)
{
	union {
		struct {
			__u8 vihl, tos;
			__u16 tot_len, id, frag;
			__u8 ttl, proto;
			__u16 check;
			__u32 src, dst;
		} h;
		__u32 w[5];
	} u = { .h = {
		.vihl = 0x45, .tos = in->tos, .tot_len = bpf_htons(len), .id = 0,
		.frag = in->df ? bpf_htons(0x4000) : 0, .ttl = LB_OUTER_TTL,
		.proto = IPPROTO_IPIP, .check = 0,
		.src = *(const lb_w32 *)osrc, .dst = *(const lb_w32 *)s->be.addr,
	} };
	__u64 sum = (__u64)u.w[0] + u.w[1] + u.w[2] + u.w[3] + u.w[4];

	if (ip + 20 > data_end)
		return -1;
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	u.h.check = lb_csum_fold((__u32)sum);
	((lb_w32 *)ip)[0] = u.w[0];
	((lb_w32 *)ip)[1] = u.w[1];
	((lb_w32 *)ip)[2] = u.w[2];
	((lb_w32 *)ip)[3] = u.w[3];
	((lb_w32 *)ip)[4] = u.w[4];
	return 0;
}

/* Outer IPv6: the client's traffic class, the flow hash as flow label
 * (ECMP and RSS on IPv6 hash it), hop limit 64. */
static __always_inline int lb_put_outer6(void *ip, void *data_end, const struct lb_state *s,
					 const __u8 *osrc, const struct lb_inner *in, __u32 len,
					 __u8 next)
{
	__u8 *p = ip;

	if (ip + 40 > data_end)
		return -1;
	*(lb_w32 *)p = bpf_htonl(6u << 28 | (__u32)in->tos << 20 | (s->hash & 0xfffff));
	*(lb_w16 *)(p + 4) = bpf_htons(len);
	p[6] = next;
	p[7] = LB_OUTER_TTL;
	lb_copy16(p + 8, osrc);
	lb_copy16(p + 24, s->be.addr);
	return 0;
}

/*
 * Encapsulates the client's datagram (pkt's parse, still valid: nothing
 * moved yet) for s->be, with the Ethernet header's addresses `macs` (as
 * lb_put_l2 takes them) and the saved tags in front. Ethernet padding after the datagram is cut first.
 * Returns LB_GO or FP_LB_C_ERROR.
 */
static __always_inline __u32 lb_encap(struct xdp_md *ctx, const struct fp_pkt *pkt,
				      const struct lb_state *s, const struct lb_l2 *l2,
				      const __u8 *macs, const __u8 *osrc)
{
	__u32 len = pkt->len, outer = s->be.family == 4 ? 20 : 40;
	struct lb_inner in;
	void *data, *data_end;
	int l3;

	if (lb_inner_hop(ctx, pkt, &in))
		return FP_LB_C_ERROR;
	if (pkt->ip_end < pkt->pkt_len &&
	    bpf_xdp_adjust_tail(ctx, (int)pkt->ip_end - (int)pkt->pkt_len))
		return FP_LB_C_ERROR;
	if (bpf_xdp_adjust_head(ctx, -(int)outer))
		return FP_LB_C_ERROR;
	l3 = lb_put_l2(ctx, l2, macs, outer == 20 ? LB_ETH_P_IP : LB_ETH_P_IPV6);
	if (l3 < 0 || l3 > LB_L2_MAX)
		return FP_LB_C_ERROR;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	if (outer == 20)
		return lb_put_outer4(data + l3, data_end, s, osrc, &in, len + 20) ? FP_LB_C_ERROR
										   : LB_GO;
	return lb_put_outer6(data + l3, data_end, s, osrc, &in, len,
			     pkt->l3 == 4 ? IPPROTO_IPIP : IPPROTO_IPV6) ? FP_LB_C_ERROR : LB_GO;
}

/* The route to the backend for a packet of tot_len bytes (the outer one:
 * the kernel checks it against the path MTU). A BPF_FIB_LKUP_RET_* code. */
static __always_inline int lb_fib(struct xdp_md *ctx, struct bpf_fib_lookup *fib,
				  const struct lb_state *s, const __u8 *osrc, __u32 tot_len,
				  __u8 inner_l3)
{
	__builtin_memset(fib, 0, sizeof(*fib));
	fib->ifindex = ctx->ingress_ifindex;
	fib->tot_len = tot_len;
	if (s->be.family == 4) {
		fib->family = LB_AF_INET;
		fib->l4_protocol = IPPROTO_IPIP;
		fib->ipv4_src = *(const lb_w32 *)osrc;
		fib->ipv4_dst = *(const lb_w32 *)s->be.addr;
	} else {
		fib->family = LB_AF_INET6;
		fib->l4_protocol = inner_l3 == 4 ? IPPROTO_IPIP : IPPROTO_IPV6;
		lb_copy16(fib->ipv6_src, osrc);
		lb_copy16(fib->ipv6_dst, s->be.addr);
	}
	return bpf_fib_lookup(ctx, fib, sizeof(*fib), 0);
}

/*
 * lb_fib through the next-hop cache (lb_maps.h, lb_hops): a fresh entry
 * for this backend address and ingress port that passed a packet at least
 * this long answers BPF_FIB_LKUP_RET_SUCCESS with fib->ifindex set and
 * *macs pointing at its addresses (the rest of *fib unset); otherwise the
 * lookup, whose success is kept: a new entry when the old one is stale or
 * another's, a longer ok_len (not a new stamp) when it is only a longer
 * packet's. On success *macs is the next hop's destination and source
 * MAC (12 bytes, 8-aligned: the entry's, or buf's without an entry).
 */
static __always_inline int lb_next_hop(struct xdp_md *ctx, struct bpf_fib_lookup *fib,
				       const struct lb_state *s, const __u8 *osrc,
				       __u32 tot_len, __u8 inner_l3, __u8 *buf,
				       const __u8 **macs)
{
	__u32 i = s->be_index;
	struct lb_hop *h = bpf_map_lookup_elem(&lb_hops, &i);
	__u64 tick = bpf_jiffies64(), now = 0;
	int same = 0, rc;

	if (h && h->iif == ctx->ingress_ifindex && h->family == s->be.family &&
	    lb_eq16(h->addr, s->be.addr)) {
		/* The coarse clock moves only with the tick: within the tick
		 * in which the entry was last found fresh it still is, and
		 * the clock (a helper call) is read once a tick, not once a
		 * packet (bpf_jiffies64 is one load, inlined). */
		if (h->fresh_jiffies == tick) {
			same = 1;
		} else {
			now = bpf_ktime_get_coarse_ns();
			if (now - h->stamp_ns < LB_HOP_TTL_NS) {
				same = 1;
				h->fresh_jiffies = tick;
			}
		}
	}
	if (same && tot_len <= h->ok_len) {
		*macs = h->mac;
		fib->ifindex = h->ifindex;
		return BPF_FIB_LKUP_RET_SUCCESS;
	}
	rc = lb_fib(ctx, fib, s, osrc, tot_len, inner_l3);
	if (rc != BPF_FIB_LKUP_RET_SUCCESS)
		return rc;
	if (!h) {
		__builtin_memcpy(buf, fib->dmac, 6);
		__builtin_memcpy(buf + 6, fib->smac, 6);
		*macs = buf;
		return rc;
	}
	if (!same) {
		lb_copy16(h->addr, s->be.addr);
		h->iif = ctx->ingress_ifindex;
		h->family = s->be.family;
		h->stamp_ns = now ? now : bpf_ktime_get_coarse_ns();
		h->fresh_jiffies = tick;
	}
	/* when same, a longer packet than before (else the cache had answered) */
	h->ok_len = tot_len;
	__builtin_memcpy(h->mac, fib->dmac, 6);
	__builtin_memcpy(h->mac + 6, fib->smac, 6);
	h->ifindex = fib->ifindex;
	*macs = h->mac;
	return rc;
}

#endif
