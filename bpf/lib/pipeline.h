/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What every stage of the pipeline shares (include/fastpath/abi.h): the
 * stage slots, the parse scratch, the control word, and the two ways a
 * stage ends: on down the chain, or a final verdict. The user side (the
 * pipeline module, src/pipeline) creates these maps once with the entry
 * object and hands their fds to each stage's object before its load
 * (bpf_map__reuse_fd); a stage's own maps are its own.
 */
#ifndef FP_BPF_PIPELINE_H
#define FP_BPF_PIPELINE_H

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

/* struct fp_ctl: enabled slots, whether a dump runs. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct fp_ctl);
} fp_ctl SEC(".maps");

static __always_inline struct fp_pkt *fp_pkt_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&fp_scratch, &zero);
}

static __always_inline struct fp_ctl *fp_ctl_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&fp_ctl, &zero);
}

/*
 * Hands the packet to the first non-empty stage in slots [first, end);
 * returns when all of them are empty. A tail call does not return when it
 * succeeds.
 */
static __always_inline void fp_try_stages(struct xdp_md *ctx, int first, int end)
{
#pragma unroll
	for (__u32 slot = 0; slot < FP_STAGE_CHAIN; slot++) {
		if ((int)slot >= first && (int)slot < end)
			bpf_tail_call(ctx, &fp_stages, slot);
	}
}

/* The first non-empty stage after `from`; XDP_PASS when none is left. */
static __always_inline int fp_next_stage(struct xdp_md *ctx, int from)
{
	fp_try_stages(ctx, from + 1, FP_STAGE_CHAIN);
	return XDP_PASS;
}

/*
 * A stage's decision: XDP_PASS goes on down the chain, any other action
 * ends it. While a dump runs (ctl->dump) and `offer` is set (the stage's
 * own sampling rate allows it; the stage wrote pkt->verdict's reason,
 * ident and serial first), the decision is first offered to the dump's tap
 * (FP_SLOT_TAP), which samples it and then does the same; with no tap
 * there, the stage goes on itself. The stage writes nothing into the
 * packet or the parse after this.
 */
static __always_inline int fp_stage_end(struct xdp_md *ctx, struct fp_pkt *pkt,
					const struct fp_ctl *ctl, __u32 slot, __u32 action,
					int offer)
{
	if (offer && ctl && (ctl->dump & FP_CTL_DUMP_ACTIVE)) {
		pkt->verdict.slot = slot;
		pkt->verdict.action = action;
		bpf_tail_call(ctx, &fp_stages, FP_SLOT_TAP);
	}
	if (action != XDP_PASS)
		return action;
	return fp_next_stage(ctx, slot);
}

/*
 * The head of a stage fused with the entry (fp_entry_<stage>, attached in
 * place of fp_entry while this stage is the first one that has a fused
 * entry): after the parse, the earlier slots that are enabled run first
 * (a tail call that does not come back); returns 1 when the stage itself
 * is enabled and should run inline, 0 when it is disabled (then the
 * caller goes on with fp_next_stage(ctx, slot)).
 */
static __always_inline int fp_fused_head(struct xdp_md *ctx, const struct fp_ctl *ctl,
					 __u32 slot)
{
	if (!ctl)
		return 1;
	if (ctl->enabled & ((1u << slot) - 1))
		fp_try_stages(ctx, 0, slot);
	return (ctl->enabled >> slot) & 1;
}

#endif
