// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The dump stage, at the head of the pipeline (Facebook's "debug and dump"
 * part): marks the packets a running `fastpath dump --match TERMS` selects,
 * before any other stage sees them; the filter stage samples marked packets
 * with the verdict they get. Without an active --match it only passes on.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "maps.h"
#include "match.h"
#include "parse.h"

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

char LICENSE[] SEC("license") = "Dual BSD/GPL";
