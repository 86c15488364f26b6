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
 *
 * With new_flows set (for an untagged IPv4 TCP / UDP frame, its header of
 * 20 bytes), each run gets a flow of its own: the run's number in the
 * source port (low 16 bits) and in the source address's last byte (the
 * next 8), the IPv4 header checksum made anew.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define LB_RESTORE_MAX 64

/* a frame's word, read and written in place (unaligned where the CPU allows) */
typedef __u64 __attribute__((__may_alias__)) restore_w64;

__u8 orig[LB_RESTORE_MAX] __attribute__((aligned(8)));  /* the frame's first bytes, as given */
__u32 orig_len;             /* the frame's length as given */
__u32 restores;             /* runs that found the head moved */
__u32 new_flows;            /* a new flow each run */
__u32 runs;

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
	/* as words: a memcpy into the frame (alignment 1) is a byte store
	 * each, and fp_entry's first wider reads would then stall on them */
#pragma unroll
	for (int i = 0; i < LB_RESTORE_MAX / 8; i++)
		((restore_w64 *)data)[i] = ((const __u64 *)orig)[i];
	if (new_flows) {
		__u8 *ip = data + 14, *p = data + 34;
		__u32 n = runs++, sum = 0;

		p[0] = n >> 8;
		p[1] = n;
		ip[15] = n >> 16;
		ip[10] = ip[11] = 0;
#pragma unroll
		for (int i = 0; i < 20; i += 2)
			sum += (__u32)ip[i] << 8 | ip[i + 1];
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		ip[10] = ~sum >> 8;
		ip[11] = ~sum;
	}
	bpf_tail_call(ctx, &next, 0);
	return XDP_ABORTED;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
