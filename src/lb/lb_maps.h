/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The lb stage's maps, with the names and layouts of
 * include/fastpath/lb_abi.h (its header comment says what each holds).
 * The user half (src/lb/lb.c) pins them under ROOT/IFACE/lb/.
 */
#ifndef FP_LB_MAPS_H
#define FP_LB_MAPS_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
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

#endif
