/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ICMP both ways:
 * - in: an error about a VIP flow's reply (a router on the way back to the
 *   client quotes the backend's packet, from VIP:port, and sends the error
 *   to the VIP) is turned back into the client -> VIP flow, so it reaches
 *   the backend that holds the connection;
 * - out: a packet that would be too big once encapsulated is answered,
 *   from the VIP, with ICMP "fragmentation needed" / ICMPv6 "packet too
 *   big" carrying the MTU left for the client (path MTU - outer header),
 *   so the client lowers its MSS or path MTU; a packet whose TTL runs out
 *   here, with "time exceeded", as a router answers.
 */
#ifndef FP_LB_ICMP_H
#define FP_LB_ICMP_H

#include "lb_pkt.h"
#include "lb_flow.h"
#include "lb_encap.h"

#define LB_ICMP4_QUOTE 64   /* bytes of the client's datagram an answer quotes */
#define LB_ICMP6_QUOTE 128
#define LB_ICMP_OFF_MAX 128 /* a bound for the verifier on the quote's offset */

static __always_inline int lb_icmp4_error(__u8 type)
{
	return type == 3 /* destination unreachable */ || type == 11 /* time exceeded */;
}

static __always_inline int lb_icmp6_error(__u8 type)
{
	return type == 1 /* destination unreachable */ || type == 2 /* packet too big */ ||
	       type == 3 /* time exceeded */;
}

/*
 * An ICMP / ICMPv6 error addressed to a VIP whose quoted packet is a VIP
 * flow's reply (from VIP:port, TCP or UDP): fills s with the VIP and the
 * client -> VIP flow and returns LB_GO. Anything else is not the lb's:
 * FP_LB_C_NOT_VIP. The quote's IPv6 header must be followed by the ports
 * directly (what a reply of ours carries).
 */
static __always_inline __u32 lb_icmp_flow(struct xdp_md *ctx, const struct fp_pkt *pkt,
					  struct lb_state *s)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	__u32 off = pkt->l3_off, qoff, poff;
	__u8 addr[16] = {}, client[16] = {}, *ip, *q, qproto;
	__u16 qsport, qdport;

	if (pkt->have & FP_HAVE_FRAG)
		return FP_LB_C_NOT_VIP;
	if (off > LB_L2_MAX || !LB_IN_FRAME(data, data_end, off, 40))
		return FP_LB_C_NOT_VIP;
	ip = data + off;
	LB_OPAQUE(ip);
	if (pkt->l3 == 4) {
		qoff = off + (ip[0] & 0x0f) * 4;        /* the ICMP header */
		if (qoff + 8 > LB_ICMP_OFF_MAX || !LB_IN_FRAME(data, data_end, qoff, 8) ||
		    !lb_icmp4_error(((__u8 *)data)[qoff]))
			return FP_LB_C_NOT_VIP;
		qoff += 8;                              /* the quoted IPv4 header */
		if (!LB_IN_FRAME(data, data_end, qoff, 20))
			return FP_LB_C_NOT_VIP;
		q = data + qoff;
		if ((q[0] >> 4) != 4 || (q[0] & 0x0f) < 5)
			return FP_LB_C_NOT_VIP;
		qproto = q[9];
		poff = qoff + (q[0] & 0x0f) * 4;
		*(lb_w32 *)addr = *(lb_w32 *)(q + 12);    /* the VIP */
		*(lb_w32 *)client = *(lb_w32 *)(q + 16);
	} else {
		if (ip[6] != LB_IPPROTO_ICMPV6)
			return FP_LB_C_NOT_VIP;         /* extension headers: not ours */
		qoff = off + 40;
		if (!LB_IN_FRAME(data, data_end, qoff, 8) ||
		    !lb_icmp6_error(((__u8 *)data)[qoff]))
			return FP_LB_C_NOT_VIP;
		qoff += 8;
		if (!LB_IN_FRAME(data, data_end, qoff, 40))
			return FP_LB_C_NOT_VIP;
		q = data + qoff;
		if ((q[0] >> 4) != 6)
			return FP_LB_C_NOT_VIP;
		qproto = q[6];
		poff = qoff + 40;
		lb_copy16(addr, q + 8);
		lb_copy16(client, q + 24);
	}
	if ((qproto != IPPROTO_TCP && qproto != IPPROTO_UDP) || poff > LB_ICMP_OFF_MAX + 60 ||
	    !LB_IN_FRAME(data, data_end, poff, 4))
		return FP_LB_C_NOT_VIP;
	qsport = lb_rd16(data + poff);
	qdport = lb_rd16(data + poff + 2);
	/* sent to the VIP about a packet from it */
	if (!lb_eq16(addr, pkt->dst) || !lb_find_vip(s, addr, pkt->l3, qproto, qsport))
		return FP_LB_C_NOT_VIP;
	s->icmp = 1;
	lb_set_flow(s, client, addr, qdport, qsport, qproto, pkt->l3);
	return LB_GO;
}

/* The client's datagram's DF bit (IPv4); IPv6 is never fragmented on the way. */
static __always_inline int lb_client_df(struct xdp_md *ctx, const struct fp_pkt *pkt)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	__u32 off = pkt->l3_off;
	__u8 *ip = data + (off & 0x1f);

	LB_OPAQUE(ip);
	if (pkt->l3 != 4)
		return 1;
	if (off > LB_L2_MAX || (void *)(ip + 20) > data_end)
		return 0;
	return (ip[6] & 0x40) != 0;
}

/* The ones'-complement sum of the 32-bit words from p to the frame's end
 * (at most LB_ICMP_WORDS of them), added to seed; the frame ends on a
 * word of p. Unrolled: each word's bound is a constant for the verifier. */
#define LB_ICMP_WORDS ((8 + LB_ICMP6_QUOTE) / 4)

static __always_inline __u32 lb_sum_words(const __u8 *p, const void *data_end, __u32 seed)
{
	__u64 sum = seed;

#pragma unroll
	for (int i = 0; i < LB_ICMP_WORDS; i++) {
		if ((const void *)(p + 4 * i + 4) > data_end)
			break;
		sum += *(const lb_w32 *)(p + 4 * i);
	}
	sum = (sum & 0xffffffff) + (sum >> 32);
	return (__u32)((sum & 0xffffffff) + (sum >> 32));
}

/*
 * Answers a client's packet, in place, with an ICMP error from the VIP:
 * Ethernet back to where it came from (addresses swapped, tags kept) + IP
 * from the VIP to the client + ICMP (type and code of the packet's
 * family, `word` the four bytes after the checksum) + the client's
 * datagram, up to LB_ICMP4_QUOTE / LB_ICMP6_QUOTE bytes, sent back with
 * XDP_TX. A shorter datagram is quoted whole but for its last 1-3 bytes
 * past a multiple of four (the header and the first 8 bytes after it,
 * all a client needs, are always there): the frame is only cut, never
 * grown, for the kernel may have no room after a small packet. Returns
 * 0; 1 when this CPU's answers are over their limit (lb_icmp_budget),
 * -1 when the frame cannot be reshaped: nothing is sent then, and the
 * caller drops the packet.
 */
static __always_inline int lb_icmp_answer(struct xdp_md *ctx, const struct fp_pkt *pkt,
					  const struct lb_l2 *l2, __u8 type, __u8 code, __u32 word)
{
	__u32 quote = pkt->l3 == 4 ? LB_ICMP4_QUOTE : LB_ICMP6_QUOTE;
	__u32 hdrs = pkt->l3 == 4 ? 20 + 8 : 40 + 8;
	__u8 back[12] __attribute__((aligned(8)));
	void *data, *data_end;
	__u8 *ip, *icmp;
	__u32 sum, zero = 0;
	struct lb_icmp_budget *b = bpf_map_lookup_elem(&lb_icmp_budget, &zero);
	__u64 window = bpf_ktime_get_coarse_ns() >> 30;
	int l3;

	if (!b)
		return -1;
	if (b->window != window) {
		b->window = window;
		b->sent = 0;
	}
	if (b->sent >= LB_ICMP_PER_WINDOW)
		return 1;
	b->sent++;
	if (pkt->len < quote)
		quote = pkt->len & ~3u;
	if (bpf_xdp_adjust_tail(ctx, (int)(pkt->l3_off + quote) - (int)pkt->pkt_len) ||
	    bpf_xdp_adjust_head(ctx, -(int)hdrs))
		return -1;
	__builtin_memcpy(back, l2->mac + 6, 6);  /* to where it came from */
	__builtin_memcpy(back + 6, l2->mac, 6);
	l3 = lb_put_l2(ctx, l2, back, pkt->l3 == 4 ? LB_ETH_P_IP : LB_ETH_P_IPV6);
	if (l3 < 0 || l3 > LB_L2_MAX)
		return -1;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	ip = data + l3;
	if (pkt->l3 == 4) {
		if (ip + 20 + 8 > (__u8 *)data_end)
			return -1;
		icmp = ip + 20;
		ip[0] = 0x45;
		ip[1] = 0;
		*(lb_w16 *)(ip + 2) = bpf_htons(20 + 8 + quote);
		*(lb_w32 *)(ip + 4) = 0;                 /* id, flags, offset */
		ip[8] = LB_OUTER_TTL;
		ip[9] = IPPROTO_ICMP;
		*(lb_w16 *)(ip + 10) = 0;
		*(lb_w32 *)(ip + 12) = *(const lb_w32 *)pkt->dst; /* from the VIP */
		*(lb_w32 *)(ip + 16) = *(const lb_w32 *)pkt->src;
		*(lb_w16 *)(ip + 10) = lb_ipv4_csum(ip);
		icmp[0] = type;
		icmp[1] = code;
		*(lb_w16 *)(icmp + 2) = 0;
		*(lb_w32 *)(icmp + 4) = bpf_htonl(word);
		sum = lb_sum_words(icmp, data_end, 0);
	} else {
		struct {
			__u8 src[16], dst[16];
			__u32 len, next;
		} ph;

		if (ip + 40 + 8 > (__u8 *)data_end)
			return -1;
		icmp = ip + 40;
		*(lb_w32 *)ip = bpf_htonl(6u << 28);
		*(lb_w16 *)(ip + 4) = bpf_htons(8 + quote);
		ip[6] = LB_IPPROTO_ICMPV6;
		ip[7] = LB_OUTER_TTL;
		lb_copy16(ip + 8, pkt->dst);            /* from the VIP */
		lb_copy16(ip + 24, pkt->src);
		icmp[0] = type;
		icmp[1] = code;
		*(lb_w16 *)(icmp + 2) = 0;
		*(lb_w32 *)(icmp + 4) = bpf_htonl(word);
		lb_copy16(ph.src, pkt->dst);
		lb_copy16(ph.dst, pkt->src);
		ph.len = bpf_htonl(8 + quote);
		ph.next = bpf_htonl(LB_IPPROTO_ICMPV6);
		sum = bpf_csum_diff(NULL, 0, (void *)&ph, sizeof(ph), 0);
		sum = lb_sum_words(icmp, data_end, sum);
	}
	*(lb_w16 *)(icmp + 2) = lb_csum_fold(sum);
	return 0;
}

/*
 * A packet that would be too big for the path to the backend once
 * encapsulated: answered with ICMP "fragmentation needed" / ICMPv6
 * "packet too big" carrying mtu, the MTU left for the client. An IPv4
 * packet without DF would be fragmented by a router; fragments to a VIP
 * are dropped, so it is dropped here (counted as too big, no answer), as
 * is one past the answers' limit.
 * Returns FP_LB_C_TOO_BIG (s->action: XDP_TX or XDP_DROP) or FP_LB_C_ERROR.
 */
static __always_inline __u32 lb_too_big(struct xdp_md *ctx, const struct fp_pkt *pkt,
					struct lb_state *s, const struct lb_l2 *l2, __u32 mtu)
{
	s->action = XDP_DROP;
	if (s->icmp || !lb_client_df(ctx, pkt))
		return FP_LB_C_TOO_BIG; /* never an ICMP error about an ICMP error */
	switch (lb_icmp_answer(ctx, pkt, l2, pkt->l3 == 4 ? 3 : 2, pkt->l3 == 4 ? 4 : 0, mtu)) {
	case 0:
		s->action = XDP_TX;
		return FP_LB_C_TOO_BIG;
	case 1:
		return FP_LB_C_TOO_BIG; /* over the limit: unanswered */
	default:
		return FP_LB_C_ERROR;
	}
}

/*
 * A packet whose TTL / hop limit runs out here (1 or 0 as it came: the lb
 * takes one off, as a router does): answered, as a router answers, with
 * ICMP "time exceeded in transit" / ICMPv6 "hop limit exceeded", from the
 * VIP (as the too-big answer is), so traceroute to a VIP shows this hop.
 * Not for an ICMP error about a flow (never an error about an error), nor
 * past the answers' limit (lb_icmp_budget).
 * Returns FP_LB_C_TTL_EXPIRED (s->action XDP_TX, or XDP_DROP unanswered).
 */
static __always_inline __u32 lb_time_exceeded(struct xdp_md *ctx, const struct fp_pkt *pkt,
					      struct lb_state *s, const struct lb_l2 *l2)
{
	s->action = XDP_DROP;
	if (!s->icmp && !lb_icmp_answer(ctx, pkt, l2, pkt->l3 == 4 ? 11 : 3, 0, 0))
		s->action = XDP_TX;
	return FP_LB_C_TTL_EXPIRED;
}

#endif
