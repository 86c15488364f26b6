// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lb_restore: a prelude for timing the lb's whole way with
 * BPF_PROG_TEST_RUN's repeat (bench/lb_cost). A repeated test run works on
 * one buffer, and the lb moves the frame's head and writes an outer header
 * over the client's Ethernet header (and lowers its TTL): the second run
 * would see the encapsulated frame. This program puts the frame back as it
 * was given (the head where it was, the first `keep` bytes from `orig`),
 * then tail-calls fp_entry (next[0]). Its own cost is timed on a frame the
 * lb leaves alone (a head that did not move, the same copy).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define LB_RESTORE_MAX 64

__u8 orig[LB_RESTORE_MAX];  /* the frame's first bytes, as given */
__u32 orig_len;             /* the frame's length as given */
__u32 restores;             /* runs that found the head moved */

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} next SEC(".maps");

SEC("xdp")
int lb_restore(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	int moved = (int)(data_end - data) - (int)orig_len;

	if (moved) {
		if (moved < 0 || moved > 64 || bpf_xdp_adjust_head(ctx, moved))
			return XDP_ABORTED;
		restores++;
		data = (void *)(long)ctx->data;
		data_end = (void *)(long)ctx->data_end;
	}
	if (data + LB_RESTORE_MAX > data_end)
		return XDP_ABORTED;
	__builtin_memcpy(data, orig, LB_RESTORE_MAX);
	bpf_tail_call(ctx, &next, 0);
	return XDP_ABORTED;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
