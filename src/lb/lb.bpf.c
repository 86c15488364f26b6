// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The lb stage (slot 2): a TCP or UDP packet addressed to a VIP goes to a
 * backend, the one the connection table holds for its flow or else the
 * one the VIP's Maglev table picks; it is encapsulated for direct server
 * return and leaves with XDP_TX (the route to the backend leaves by the
 * ingress port) or XDP_REDIRECT (lb_tx_ports). Anything else goes on down
 * the chain untouched. The maps and their layouts: include/fastpath/
 * lb_abi.h. By concern, as Katran splits its balancer:
 *   lb_maps.h   the maps          lb_flow.h   VIP, flow, backend, stats
 *   lb_encap.h  outer headers     lb_icmp.h   ICMP errors in, too-big out
 *
 * Each decision is offered to a running dump with reason = the
 * fp_lb_counter it is counted under, ident = VIP index << 32 | backend
 * index (FP_LB_NO_BACKEND where there is none), serial = the VIP's serial.
 * Per VIP and per backend, packets and bytes (the client's datagram) count
 * what was sent on to the backend; hits, misses and new flows count the
 * connection table's answers.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "pipeline.h"
#include "lb_pkt.h"
#include "lb_maps.h"
#include "lb_flow.h"
#include "lb_encap.h"
#include "lb_icmp.h"

/*
 * The destination port of a TCP / UDP packet whose header the parser
 * found cut short (no FP_HAVE_PORTS, not a fragment), so that a broken
 * packet to a VIP of one port is known as the VIP's (and dropped) rather
 * than passed on. 0 when the port itself is not there.
 */
static __always_inline __u16 lb_raw_dport(struct xdp_md *ctx, const struct fp_pkt *pkt)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	__u32 off = pkt->l3_off, l4;
	__u8 *ip;

	if (off > LB_L2_MAX || !LB_IN_FRAME(data, data_end, off, 20))
		return 0;
	ip = data + off;
	LB_OPAQUE(ip);
	if (pkt->l3 == 4)
		l4 = off + (ip[0] & 0x0f) * 4;
	else if (LB_IN_FRAME(data, data_end, off, 40) && ip[6] == pkt->proto)
		l4 = off + 40;
	else
		return 0;
	if (l4 > 128 || l4 + 4 > pkt->ip_end || !LB_IN_FRAME(data, data_end, l4, 4))
		return 0;
	return lb_rd16(data + l4 + 2);
}

/* Is it for a VIP, and whole? Fills s->vip and s->flow; LB_GO or the
 * counter of its end (NOT_VIP passes, the others drop). */
static __always_inline __u32 lb_classify(struct xdp_md *ctx, const struct fp_pkt *pkt,
					 struct lb_state *s)
{
	__u16 have = pkt->have, dport = 0;
	__u8 proto = pkt->proto;

	if (!(have & FP_HAVE_L3) || !(have & FP_HAVE_PROTO) || (pkt->l3 != 4 && pkt->l3 != 6))
		return FP_LB_C_NOT_VIP;
	if (proto == (pkt->l3 == 4 ? IPPROTO_ICMP : LB_IPPROTO_ICMPV6))
		return lb_icmp_flow(ctx, pkt, s);
	if (proto != IPPROTO_TCP && proto != IPPROTO_UDP)
		return FP_LB_C_NOT_VIP;
	if (have & FP_HAVE_PORTS)
		dport = pkt->dport;
	else if (!(have & FP_HAVE_FRAG))
		dport = lb_raw_dport(ctx, pkt);
	/* a later fragment has no port: only a port-any VIP knows it as its own */
	if (!lb_find_vip(s, pkt->dst, pkt->l3, proto, dport))
		return FP_LB_C_NOT_VIP;
	if (have & FP_HAVE_FRAG)
		return FP_LB_C_FRAGMENT;
	if (!(have & FP_HAVE_PORTS) || pkt->l3_off + pkt->len > pkt->pkt_len)
		return FP_LB_C_MALFORMED;
	lb_set_flow(s, pkt->src, pkt->dst, pkt->sport, pkt->dport, proto, pkt->l3);
	s->syn = proto == IPPROTO_TCP && (have & FP_HAVE_TCP) &&
		 (pkt->tcp_flags & (LB_TCP_SYN | LB_TCP_ACK)) == LB_TCP_SYN;
	return LB_GO;
}

/*
 * The route to the backend, then out: encapsulated and sent (XDP_TX when
 * the route leaves by the ingress port, else XDP_REDIRECT through
 * lb_tx_ports), answered as too big, or passed to the stack to resolve
 * the next hop. The lookup comes first: nothing in the frame changes
 * before the way out is known.
 */
static __always_inline __u32 lb_forward(struct xdp_md *ctx, const struct fp_pkt *pkt,
					struct lb_state *s)
{
	const struct fp_lb_meta *meta = s->meta;
	struct bpf_fib_lookup fib;
	struct lb_l2 l2;
	__u8 macbuf[12] __attribute__((aligned(8)));
	const __u8 *macs = macbuf;
	__u8 osrc[16] = {};
	__u32 outer = s->be.family == 4 ? 20 : 40, rc;

	s->action = XDP_DROP;
	if (!meta || (s->be.family != 4 && s->be.family != 6) ||
	    (s->be.family == 4 && pkt->l3 == 6) /* no IPv6 in IPv4 */)
		return FP_LB_C_ERROR;
	rc = lb_outer_src(meta, s->be.family, s->hash, osrc);
	if (rc != LB_GO)
		return rc;
	if (lb_save_l2(ctx, &l2, pkt->n_vlan))
		return FP_LB_C_ERROR;
	if (pkt->ttl <= 1)
		return lb_time_exceeded(ctx, pkt, s, &l2);

	switch (lb_next_hop(ctx, &fib, s, osrc, pkt->len + outer, pkt->l3, macbuf, &macs)) {
	case BPF_FIB_LKUP_RET_SUCCESS:
		rc = lb_encap(ctx, pkt, s, &l2, macs, osrc);
		if (rc != LB_GO)
			return rc;
		lb_count_sent(s, pkt->len);
		if (fib.ifindex == ctx->ingress_ifindex) {
			s->action = XDP_TX;
			return s->icmp ? FP_LB_C_ICMP_FLOW : FP_LB_C_FORWARD_TX;
		}
		s->action = bpf_redirect_map(&lb_tx_ports, fib.ifindex, XDP_DROP);
		if (s->action != XDP_REDIRECT) {
			s->action = XDP_DROP;
			return FP_LB_C_NO_PORT;
		}
		return s->icmp ? FP_LB_C_ICMP_FLOW : FP_LB_C_FORWARD_REDIRECT;
	case BPF_FIB_LKUP_RET_FRAG_NEEDED:
		return lb_too_big(ctx, pkt, s, &l2, fib.mtu_result - outer);
	case BPF_FIB_LKUP_RET_NO_NEIGH:
		/* Encapsulated, addressed to this host's MAC as it came, and
		 * handed to the stack: the stack resolves the next hop's
		 * neighbour and forwards the packet (when forwarding is on),
		 * and the flow's next packets find the entry here. */
		rc = lb_encap(ctx, pkt, s, &l2, l2.mac, osrc);
		if (rc != LB_GO)
			return rc;
		lb_count_sent(s, pkt->len);
		s->action = XDP_PASS;
		return FP_LB_C_NO_NEIGH;
	default:
		return FP_LB_C_FIB_FAIL;
	}
}

SEC("xdp")
int fp_lb(struct xdp_md *ctx)
{
	struct fp_pkt *pkt = fp_pkt_get();
	struct lb_state s = { .vip_index = FP_LB_NO_BACKEND, .be_index = FP_LB_NO_BACKEND,
			      .action = XDP_DROP };
	__u32 reason, zero = 0;
	__u64 *count;

	if (!pkt)
		return XDP_ABORTED;
	reason = lb_classify(ctx, pkt, &s);
	if (reason == LB_GO) {
		s.meta = bpf_map_lookup_elem(&lb_meta, &zero);
		reason = lb_pick_backend(&s);
	}
	if (reason == LB_GO)
		reason = lb_forward(ctx, pkt, &s);
	else if (reason == FP_LB_C_NOT_VIP)
		s.action = XDP_PASS;

	count = bpf_map_lookup_elem(&lb_counters, &reason);
	if (count)
		(*count)++;
	if (reason == FP_LB_C_NO_NEIGH)
		/* The frame is no longer the one parsed: it ends the chain
		 * (abi.h, fp_pkt), and the stack takes it. The dump's tap
		 * would hand a passed packet on down the chain, so it is not
		 * offered one. */
		return XDP_PASS;
	pkt->verdict.reason = reason;
	pkt->verdict.ident = (__u64)s.vip_index << 32 | s.be_index;
	pkt->verdict.serial = s.vip_index == FP_LB_NO_BACKEND ? 0 : (__u16)s.vip.serial;
	return fp_stage_end(ctx, pkt, fp_ctl_get(), FP_STAGE_LB, s.action, 1);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
