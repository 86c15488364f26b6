/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The dump stage's maps and its sampling: the first bytes of a packet,
 * with the deciding stage, its verdict and reason, into fp_ring. A full
 * ring is counted (fp_smp_stats.lost), never silent. Only the dump's
 * object holds these maps; other stages reach them through the tap
 * (bpf/lib/pipeline.h, fp_stage_end).
 */
#ifndef FP_DUMP_SAMPLE_H
#define FP_DUMP_SAMPLE_H

#include "pipeline.h"
#include <fastpath/dump_abi.h>

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

/* The dump stage's ABI, for the pipeline's check (user-written). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_dump_meta);
} fp_dump_meta SEC(".maps");

struct fp_sample_buf {
	struct fp_sample hdr;
	__u8 data[FP_SNAPLEN_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_sample_buf);
} fp_smp_buf SEC(".maps");

/*
 * 1 in n at random, at the cost of a decrement per packet: after each
 * sample, the number of packets to skip is drawn uniformly from 0..2n-2
 * (mean n-1), as sFlow agents do, so the random draw is per sample.
 */
static __always_inline int fp_sample_due(__u64 *skip, __u32 n)
{
	if (n <= 1)
		return 1;
	if (*skip) {
		(*skip)--;
		return 0;
	}
	*skip = bpf_get_prandom_u32() % (2 * n - 1);
	return 1;
}

/* Returns 1 when the sample of decision v reached the ring. */
static __always_inline int fp_sample(struct xdp_md *ctx, const struct fp_pkt *pkt,
				      const struct fp_verdict *v, __u32 snaplen, __u32 why)
{
	__u32 zero = 0, len, cap;
	struct fp_smp_stats *st = bpf_map_lookup_elem(&fp_smp_stats, &zero);
	struct fp_sample_buf *b = bpf_map_lookup_elem(&fp_smp_buf, &zero);

	if (!st || !b)
		return 0;
	st->sampled++;
	/* the frame as it is now: a stage that rewrote it (lb) shows what it sends */
	len = bpf_xdp_get_buff_len(ctx);
	cap = len;
	if (cap > snaplen)
		cap = snaplen;
	if (cap > FP_SNAPLEN_MAX)
		cap = FP_SNAPLEN_MAX;
	if (cap == 0 || bpf_xdp_load_bytes(ctx, 0, b->data, cap)) {
		st->lost++;
		return 0;
	}
	b->hdr.ts_ns = bpf_ktime_get_ns();
	b->hdr.ident = v->ident;
	b->hdr.ifindex = ctx->ingress_ifindex;
	b->hdr.rx_queue = ctx->rx_queue_index;
	b->hdr.pkt_len = len;
	b->hdr.cap_len = cap;
	b->hdr.rule = v->reason;
	b->hdr.verdict = v->action;
	b->hdr.why = why;
	b->hdr.serial = v->serial;
	b->hdr.stage = v->slot;
	if (bpf_ringbuf_output(&fp_ring, b, sizeof(b->hdr) + cap, 0)) {
		st->lost++;
		return 0;
	}
	return 1;
}

#endif
