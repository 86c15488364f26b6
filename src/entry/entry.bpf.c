// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The XDP entry of the fastpath pipeline: parse the packet once into the
 * per-CPU scratch, then hand it to the first stage slot that is filled
 * (dump, filter, lb, steer, bridge). With no stage, the packet passes.
 * The pipeline attaches this program unless a stage's fused entry (the
 * parse and that stage in one program) can take its place.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "pipeline.h"
#include "parse.h"

/* What is loaded here, for `status` and the CLI's ABI check (user-written). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_meta);
} fp_meta SEC(".maps");

SEC("xdp")
int fp_entry(struct xdp_md *ctx)
{
	struct fp_pkt *pkt = fp_pkt_get();

	if (!pkt)
		return XDP_PASS;
	fp_parse(ctx, pkt);
	return fp_next_stage(ctx, -1);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
