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

/* The template of lb_vip_index's inner array. Not BPF_F_INNER_MAP: every
 * inner array has the same size, so the verifier inlines its lookups.
 * (value_size, not a BTF type: clang-14 gives the struct only as a
 * forward declaration here.) */
struct lb_vip_array {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_LB_VIP_ENTRIES);
	__type(key, __u32);
	__uint(value_size, sizeof(struct fp_lb_vip_slot));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct lb_vip_array);
} lb_vip_index SEC(".maps");

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

/* max_entries: fp_lb_meta.conns / FP_LB_WAYS, set by the user half before
 * load; mmapable so that its values start on a page (a bucket is four
 * cache lines, its ways' metadata the first) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_LB_CONNS_DEFAULT / FP_LB_WAYS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct fp_lb_bucket);
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

/*
 * The next hop to each backend entry, as bpf_fib_lookup last found it on
 * this CPU: a packet to a backend looked up less than LB_HOP_TTL_NS ago
 * (coarse clock) for the same address and ingress port, no longer than
 * one the lookup passed then, takes it from here instead of the lookup
 * (~35 ns a packet in the lab). A route or neighbour change therefore
 * shows within LB_HOP_TTL_NS (and a tick). The clock is read once a tick
 * per entry and CPU, not once a packet (fresh_jiffies: the coarse clock
 * only moves with the tick). BPF-only and not pinned: a cache, lost with
 * the program. Only successes are kept (no route, no neighbour and too
 * big ask the kernel each time).
 */
#define LB_HOP_TTL_NS 1000000000ull

struct lb_hop {
	__u8  mac[12];         /* destination, then source MAC (lb_put_l2's) */
	__u32 ifindex;         /* egress */
	__u8  addr[16];        /* the backend address it was looked up for */
	__u32 iif;             /* ingress it was looked up from */
	__u32 ok_len;          /* the largest outer tot_len the lookups passed */
	__u8  family;
	__u8  pad[7];
	__u64 stamp_ns;        /* bpf_ktime_get_coarse_ns of the first lookup */
	__u64 fresh_jiffies;   /* the tick in which stamp_ns was last found fresh */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FP_LB_MAX_BACKENDS);
	__type(key, __u32);
	__type(value, struct lb_hop);
} lb_hops SEC(".maps");

/*
 * The ICMP answers (too big, time exceeded) this CPU sent in the current
 * window of 2^30 ns (coarse clock): at most LB_ICMP_PER_WINDOW, as a
 * router limits the ICMP errors it makes (Linux: icmp_msgs_per_sec, 1000).
 * An answer is larger than a short packet it answers (its own IP and ICMP
 * headers come in front of the quote), so unlimited the lb would reflect
 * a spoofed flood, amplified, onto its victim. Past the limit a
 * packet is dropped unanswered (and counted as before). BPF-only, not
 * pinned.
 */
#define LB_ICMP_PER_WINDOW 1000

struct lb_icmp_budget {
	__u64 window;          /* bpf_ktime_get_coarse_ns() >> 30 */
	__u32 sent;            /* answers in that window */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lb_icmp_budget);
} lb_icmp_budget SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} lb_tx_ports SEC(".maps");

#endif
