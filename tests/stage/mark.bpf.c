// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A stage for tests: the smallest program that plugs into the pipeline.
 * It marks the packet in its own word of the parse (fp_pkt.fact[slot],
 * with its bit in facts: the contract for handing a fact to later
 * stages), counts packets in and out by verdict, and ends with the
 * verdict it is given (pass: on down the chain), offering it to a
 * running dump. One object, loaded once per slot: `slot` is set before
 * load, `action` any time (it lives in .data).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "pipeline.h"
#include "mark.h"

const volatile __u32 slot = FP_STAGE_CHAIN; /* set before load; unset: refuses packets */
__u32 action = XDP_PASS;                     /* the verdict it gives */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mark_counts);
} mark_cnt SEC(".maps");

/* struct mark_meta, written by the user half after load */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mark_meta);
} mark_meta SEC(".maps");

SEC("xdp")
int fp_mark(struct xdp_md *ctx)
{
	struct fp_pkt *pkt = fp_pkt_get();
	struct mark_counts *c;
	__u32 zero = 0, a = action, facts;

	if (slot >= FP_STAGE_CHAIN || !pkt)
		return XDP_ABORTED;
	c = bpf_map_lookup_elem(&mark_cnt, &zero);
	if (c)
		c->in++;
	facts = pkt->facts;
	pkt->fact[slot] = MARK_FACT(slot, __builtin_popcount(facts) + 1);
	pkt->facts = facts | (1u << slot);
	if (a >= MARK_ACTIONS)
		a = XDP_ABORTED;
	if (c)
		c->out[a]++;
	pkt->verdict.reason = MARK_REASON(slot);
	pkt->verdict.ident = 0;
	pkt->verdict.serial = 0;
	return fp_stage_end(ctx, pkt, fp_ctl_get(), slot, a, 1);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
