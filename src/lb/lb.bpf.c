// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The lb stage (slot 2): a packet addressed to a VIP goes to a backend,
 * chosen by the VIP's Maglev table unless the connection table already
 * holds its flow, encapsulated (IPIP / IPv6) and sent with XDP_TX or
 * XDP_REDIRECT; anything else goes on down the chain untouched. The maps
 * and their layouts are include/fastpath/lb_abi.h's.
 *
 * (This first version declares every map and passes every packet: the
 * user half is built against it while the forwarding is written.)
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "pipeline.h"
#include <fastpath/lb_abi.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_lb_meta);
} lb_meta SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FP_LB_MAX_VIPS);
	__type(key, struct fp_lb_vip_key);
	__type(value, struct fp_lb_vip);
} lb_vips SEC(".maps");

/* The template of a VIP's Maglev table; each VIP's has its own size. */
struct lb_table {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_INNER_MAP);
	__type(key, __u32);
	__type(value, __u32);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, FP_LB_MAX_VIPS);
	__type(key, __u32);
	__array(values, struct lb_table);
} lb_tables SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_LB_MAX_BACKENDS);
	__type(key, __u32);
	__type(value, struct fp_lb_backend);
} lb_backends SEC(".maps");

/* max_entries: fp_lb_meta.conns, set by the user half before load */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FP_LB_CONNS_DEFAULT);
	__uint(map_flags, BPF_F_NO_COMMON_LRU);
	__type(key, struct fp_lb_flow);
	__type(value, struct fp_lb_conn);
} lb_conns SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FP_LB_MAX_VIPS);
	__type(key, __u32);
	__type(value, struct fp_lb_stats);
} lb_vip_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FP_LB_MAX_BACKENDS);
	__type(key, __u32);
	__type(value, struct fp_lb_stats);
} lb_be_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FP_LB_C_MAX);
	__type(key, __u32);
	__type(value, __u64);
} lb_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} lb_tx_ports SEC(".maps");

SEC("xdp")
int fp_lb(struct xdp_md *ctx)
{
	struct fp_pkt *pkt = fp_pkt_get();
	__u32 key = FP_LB_C_NOT_VIP;
	__u64 *c;

	if (!pkt)
		return XDP_ABORTED;
	c = bpf_map_lookup_elem(&lb_counters, &key);
	if (c)
		(*c)++;
	pkt->verdict.reason = FP_LB_C_NOT_VIP;
	pkt->verdict.ident = 0;
	pkt->verdict.serial = 0;
	return fp_stage_end(ctx, pkt, fp_ctl_get(), FP_STAGE_LB, XDP_PASS, 0);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
