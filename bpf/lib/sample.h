/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Sampling: the first bytes of a packet, with its verdict and rule, into
 * fp_ring. A full ring is counted (fp_smp_stats.lost), never silent.
 */
#ifndef FP_BPF_SAMPLE_H
#define FP_BPF_SAMPLE_H

#include "maps.h"

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


/* Returns 1 when the sample reached the ring. */
static __always_inline int fp_sample(struct xdp_md *ctx, struct fp_pkt *pkt, __u32 snaplen,
				      __u32 verdict, __u32 rule, __u64 ident, __u32 why, __u16 serial)
{
	__u32 zero = 0, cap = pkt->pkt_len;
	struct fp_smp_stats *st = bpf_map_lookup_elem(&fp_smp_stats, &zero);
	struct fp_sample_buf *b = bpf_map_lookup_elem(&fp_smp_buf, &zero);

	if (!st || !b)
		return 0;
	st->sampled++;
	if (cap > snaplen)
		cap = snaplen;
	if (cap > FP_SNAPLEN_MAX)
		cap = FP_SNAPLEN_MAX;
	if (cap == 0 || bpf_xdp_load_bytes(ctx, 0, b->data, cap)) {
		st->lost++;
		return 0;
	}
	b->hdr.ts_ns = bpf_ktime_get_ns();
	b->hdr.ident = ident;
	b->hdr.ifindex = ctx->ingress_ifindex;
	b->hdr.rx_queue = ctx->rx_queue_index;
	b->hdr.pkt_len = pkt->pkt_len;
	b->hdr.cap_len = cap;
	b->hdr.rule = rule;
	b->hdr.verdict = verdict;
	b->hdr.why = why;
	b->hdr.serial = serial;
	if (bpf_ringbuf_output(&fp_ring, b, sizeof(b->hdr) + cap, 0)) {
		st->lost++;
		return 0;
	}
	return 1;
}

#endif
