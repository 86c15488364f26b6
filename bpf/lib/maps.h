/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Maps every stage shares: the stage slots and the parse scratch. The user
 * side creates them once (entry object) and hands their fds to each stage
 * object before load (bpf_map__reuse_fd). */
#ifndef FP_BPF_MAPS_H
#define FP_BPF_MAPS_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <fastpath/abi.h>

/* Tail-call slots, one per stage (enum fp_stage); an empty slot is skipped. */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, FP_STAGE_MAX);
	__type(key, __u32);
	__type(value, __u32);
} fp_stages SEC(".maps");

/* The one parse of the current packet (per CPU: XDP runs to completion). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_pkt);
} fp_scratch SEC(".maps");

/* Sampled packets for `fastpath dump` (struct fp_sample + bytes). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, FP_RING_BYTES);
} fp_ring SEC(".maps");

/* Samples tried and lost to a full ring, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_smp_stats);
} fp_smp_stats SEC(".maps");

/* What a running `fastpath dump` asks for. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_dump_cfg);
} fp_dump_cfg SEC(".maps");

static __always_inline struct fp_pkt *fp_pkt_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&fp_scratch, &zero);
}

/*
 * Hands the packet to the first non-empty stage in slots [first, end);
 * returns when all of them are empty. A tail call does not return when it
 * succeeds.
 */
static __always_inline void fp_try_stages(struct xdp_md *ctx, int first, int end)
{
#pragma unroll
	for (__u32 slot = 0; slot < FP_STAGE_MAX; slot++) {
		if ((int)slot >= first && (int)slot < end)
			bpf_tail_call(ctx, &fp_stages, slot);
	}
}

/* The first non-empty stage after `from`; XDP_PASS when none is left. */
static __always_inline int fp_next_stage(struct xdp_md *ctx, int from)
{
	fp_try_stages(ctx, from + 1, FP_STAGE_MAX);
	return XDP_PASS;
}

#endif
