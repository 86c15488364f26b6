// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * For tests: an XDP program for the far end of a veth that counts the
 * frames it gets, keeps the first 64 bytes of the last one and drops it
 * (tests/bpf/bridge_vlan.c reads what a redirect delivered, tags and
 * all, without the stack's VLAN offload in between). Being an XDP
 * program, it also gives the veth NAPI, so redirected frames arrive.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct tap_rec {
	__u64 frames;
	__u32 len;
	__u32 pad;
	__u8 head[64];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tap_rec);
} tap SEC(".maps");

SEC("xdp")
int fp_frame_tap(struct xdp_md *ctx)
{
	struct tap_rec *r;
	__u32 zero = 0;

	r = bpf_map_lookup_elem(&tap, &zero);
	if (!r)
		return XDP_DROP;
	__sync_fetch_and_add(&r->frames, 1);
	r->len = ctx->data_end - ctx->data;
	bpf_xdp_load_bytes(ctx, 0, r->head, sizeof(r->head));
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
