// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The dump stage. Two programs:
 *  - fp_dump, slot 0, at the head of the chain (Facebook's "debug and
 *    dump" part): marks the packets a running `fastpath dump --match TERMS`
 *    selects, before any other stage sees them. Only a dump with --match
 *    fills the slot.
 *  - fp_dump_tap, slot FP_SLOT_TAP, outside the chain: every stage offers
 *    its decision here while a dump runs (fp_stage_end); the tap samples
 *    the ones the dump asked for (marked, drops only, one rule, 1 in N)
 *    into fp_ring with the stage's name, verdict and reason, then carries
 *    out the decision: the action, or on down the chain after the stage.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "pipeline.h"
#include "match.h"
#include "parse.h"
#include "dump_sample.h"

/* Set by tests before load: record the last match decision. */
const volatile __u32 record_last = 0;
__u32 last_match = 0;

SEC("xdp")
int fp_dump(struct xdp_md *ctx)
{
	struct fp_pkt *pkt = fp_pkt_get();
	__u32 zero = 0;
	struct fp_dump_cfg *d = bpf_map_lookup_elem(&fp_dump_cfg, &zero);

	if (pkt && d && d->active && d->use_match) {
		if (d->match.terms & (FP_T_QNAME | FP_T_QTYPE))
			fp_parse_dns(ctx, pkt);
		pkt->dump_mark = fp_match_holds(pkt, &d->match);
		if (record_last)
			last_match = pkt->dump_mark;
	}
	return fp_next_stage(ctx, FP_STAGE_DUMP);
}

/* Whether the running dump wants decision v of this packet. */
static __always_inline int wanted(const struct fp_dump_cfg *d, const struct fp_pkt *pkt,
				  const struct fp_verdict *v)
{
	if (!d->active)
		return 0;
	if (d->use_match && !pkt->dump_mark)
		return 0;
	if (d->drops_only && v->action != XDP_DROP)
		return 0;
	if (d->rule_ident && d->rule_ident != v->ident)
		return 0;
	if (d->stages && !((d->stages >> (v->slot & 31)) & 1))
		return 0;
	return 1;
}

SEC("xdp")
int fp_dump_tap(struct xdp_md *ctx)
{
	struct fp_pkt *pkt = fp_pkt_get();
	struct fp_verdict v;
	struct fp_dump_cfg *d;
	struct fp_smp_stats *st;
	__u32 zero = 0;

	if (!pkt)
		return XDP_PASS;
	v = pkt->verdict;
	d = bpf_map_lookup_elem(&fp_dump_cfg, &zero);
	if (d && wanted(d, pkt, &v)) {
		st = bpf_map_lookup_elem(&fp_smp_stats, &zero);
		if (d->sample_n <= 1 || (st && fp_sample_due(&st->skip, d->sample_n)))
			fp_sample(ctx, pkt, &v, d->snaplen,
				  d->use_match ? FP_SMP_MATCH : d->sample_n ? FP_SMP_DUMP : FP_SMP_RULE);
	}
	if (v.action != XDP_PASS)
		return v.action;
	/* the stage's slot, bounded for the verifier: never FP_SLOT_TAP itself */
	return fp_next_stage(ctx, v.slot < FP_STAGE_CHAIN ? v.slot : FP_STAGE_CHAIN);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
