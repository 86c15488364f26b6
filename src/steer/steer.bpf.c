// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The steer stage (slot FP_STAGE_STEER): the packets of an RX queue that a
 * running capture's terms match go to that queue's AF_XDP socket; the rest
 * go on down the chain. The terms are one rule's, evaluated by the same
 * code as the dump's --match (bpf/lib/match.h). bpf_redirect_map's
 * fallback action is XDP_PASS: a queue whose socket is gone (a capture
 * killed with -9: the kernel removes a closed socket from the XSKMAP)
 * passes its packets on at once, counted as no_socket, never lost.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <fastpath/steer_abi.h>
#include "pipeline.h"
#include "match.h"
#include "parse.h"

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, FP_STEER_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} fp_steer_xsk SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_STEER_QUEUES);
	__type(key, __u32);
	__type(value, struct fp_steer_cfg);
} fp_steer_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FP_STEER_QUEUES);
	__type(key, __u32);
	__type(value, struct fp_steer_counts);
} fp_steer_cnt SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_steer_meta);
} fp_steer_meta SEC(".maps");

/* reasons in fp_verdict.reason, for the dump */
enum { STEER_UNMATCHED = 0, STEER_REDIRECTED = 1, STEER_NO_SOCKET = 2 };

SEC("xdp")
int fp_steer(struct xdp_md *ctx)
{
	struct fp_pkt *pkt = fp_pkt_get();
	__u32 q = ctx->rx_queue_index, action = XDP_PASS, reason = STEER_UNMATCHED;
	struct fp_steer_counts *cnt;
	struct fp_steer_cfg *cfg;

	if (!pkt)
		return fp_next_stage(ctx, FP_STAGE_STEER);
	cfg = bpf_map_lookup_elem(&fp_steer_cfg, &q);
	cnt = bpf_map_lookup_elem(&fp_steer_cnt, &q);
	if (!cfg || !cnt) /* a queue past FP_STEER_QUEUES */
		return fp_next_stage(ctx, FP_STAGE_STEER);
	if (cfg->active) {
		if (cfg->match.terms & (FP_T_QNAME | FP_T_QTYPE))
			fp_parse_dns(ctx, pkt);
		if (fp_match_holds(pkt, &cfg->match)) {
			action = bpf_redirect_map(&fp_steer_xsk, q, XDP_PASS);
			reason = action == XDP_REDIRECT ? STEER_REDIRECTED : STEER_NO_SOCKET;
		}
	}
	if (reason == STEER_REDIRECTED)
		cnt->redirected++;
	else if (reason == STEER_NO_SOCKET)
		cnt->no_socket++;
	else
		cnt->unmatched++;
	pkt->verdict.reason = reason;
	pkt->verdict.ident = q;
	pkt->verdict.serial = 0;
	return fp_stage_end(ctx, pkt, fp_ctl_get(), FP_STAGE_STEER, action, 1);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
