// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The health checker's probes leave encapsulated (lb_hc.h): at the tc
 * egress of the lb's interface, a packet marked FP_LB_HC_MARK + i gets
 * the outer header to backend i in front (lb_hc_reals[i]: the lb stage's
 * encapsulations, IPv4 in IPv4, IPv6 in IPv6, IPv4 in IPv6), loses its
 * mark (so it is not taken again), and goes to the neighbour layer toward
 * the backend's route (bpf_redirect_neigh: the MACs of the real next hop,
 * an ARP / ND resolution when there is none yet). The client's datagram
 * is the probe's own, untouched: it was addressed to the VIP by the
 * socket. Unmarked packets go on unchanged: the only per-packet cost on
 * the interface's other traffic is one compare.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "lb/lb_hc.h"
#include "lb/lb_pkt.h"

#define HC_L2 14   /* tc egress: the Ethernet header, tags in the metadata */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_LB_MAX_BACKENDS);
	__type(key, __u32);
	__type(value, struct fp_lb_hc_real);
} lb_hc_reals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FP_LB_HC_C_MAX);
	__type(key, __u32);
	__type(value, __u64);
} lb_hc_counters SEC(".maps");

static __always_inline int count(__u32 c, int verdict)
{
	__u64 *n = bpf_map_lookup_elem(&lb_hc_counters, &c);

	if (n)
		*n += 1;
	return verdict;
}

SEC("tc")
int fp_lb_hc(struct __sk_buff *skb)
{
	__u32 mark = skb->mark, idx = mark & ~FP_LB_HC_MARK_MASK, len, inner;
	struct fp_lb_hc_real *r;
	__u8 ih[8], tos, next;
	__u16 type;

	if ((mark & FP_LB_HC_MARK_MASK) != FP_LB_HC_MARK)
		return TC_ACT_OK;
	r = bpf_map_lookup_elem(&lb_hc_reals, &idx);
	if (!r || (r->family != 4 && r->family != 6))
		return count(FP_LB_HC_C_UNSET, TC_ACT_SHOT);
	if (bpf_skb_load_bytes(skb, 12, &type, 2) || bpf_skb_load_bytes(skb, HC_L2, ih, 8))
		return count(FP_LB_HC_C_ERROR, TC_ACT_SHOT);
	/* the inner datagram's own length (not skb->len: no L2 padding counts) */
	if (type == bpf_htons(ETH_P_IP) && (ih[0] >> 4) == 4) {
		inner = 4;
		tos = ih[1];
		len = (__u32)ih[2] << 8 | ih[3];
	} else if (type == bpf_htons(ETH_P_IPV6) && (ih[0] >> 4) == 6) {
		inner = 6;
		tos = (ih[0] << 4) | (ih[1] >> 4);
		len = 40 + ((__u32)ih[4] << 8 | ih[5]);
	} else {
		return count(FP_LB_HC_C_ERROR, TC_ACT_SHOT);
	}
	next = inner == 4 ? 4 /* IPPROTO_IPIP */ : 41 /* IPPROTO_IPV6 */;
	skb->mark = 0;
	if (r->family == 4) {
		struct {
			__u8 vihl, tos;
			__u16 tot_len, id, frag;
			__u8 ttl, proto;
			__u16 check;
			__u32 src, dst;
		} h = {
			.vihl = 0x45, .tos = tos, .tot_len = bpf_htons(len + 20),
			.frag = bpf_htons(0x4000), /* DF: a probe is small (TCP_MAXSEG) */
			.ttl = LB_OUTER_TTL, .proto = next,
			.src = *(__u32 *)r->src, .dst = *(__u32 *)r->dst,
		};

		h.check = lb_ipv4_csum(&h);
		type = bpf_htons(ETH_P_IP);
		if (bpf_skb_adjust_room(skb, 20, BPF_ADJ_ROOM_MAC,
					BPF_F_ADJ_ROOM_FIXED_GSO | BPF_F_ADJ_ROOM_ENCAP_L3_IPV4) ||
		    bpf_skb_store_bytes(skb, HC_L2, &h, 20, 0))
			return count(FP_LB_HC_C_ERROR, TC_ACT_SHOT);
	} else {
		__u8 h[40] __attribute__((aligned(4)));

		*(__u32 *)h = bpf_htonl(6u << 28 | (__u32)tos << 20);
		*(__u16 *)(h + 4) = bpf_htons(len);
		h[6] = next;
		h[7] = LB_OUTER_TTL;
		__builtin_memcpy(h + 8, r->src, 16);
		__builtin_memcpy(h + 24, r->dst, 16);
		type = bpf_htons(ETH_P_IPV6);
		if (bpf_skb_adjust_room(skb, 40, BPF_ADJ_ROOM_MAC,
					BPF_F_ADJ_ROOM_FIXED_GSO | BPF_F_ADJ_ROOM_ENCAP_L3_IPV6) ||
		    bpf_skb_store_bytes(skb, HC_L2, h, 40, 0))
			return count(FP_LB_HC_C_ERROR, TC_ACT_SHOT);
	}
	/* IPv4 in IPv6: the frame's ethertype follows the outer header */
	if (bpf_skb_store_bytes(skb, 12, &type, 2, 0))
		return count(FP_LB_HC_C_ERROR, TC_ACT_SHOT);
	count(FP_LB_HC_C_ENCAP, 0);
	return bpf_redirect_neigh(r->ifindex, NULL, 0, 0);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
