// SPDX-License-Identifier: BSD-2-Clause
/*
 * bridge_redirect_attach IN OUT [read]: attaches to IN, in native mode, an XDP
 * program that redirects every frame to OUT through a one-entry DEVMAP
 * (bpf_redirect_map, the kernel's path the bridge's known unicast takes:
 * dev_map_enqueue, the bulk queue, ndo_xdp_xmit), with no parsing, lookup
 * or counter, and exits; the attachment stays until
 * `ip link set dev IN xdp off`. The floor of bench/bridge_rate.sh (target
 * redir): what any XDP switch pays in that lab before its own work.
 * With `read` it first loads the frame's first byte (target redirmac): the
 * first touch of a frame another CPU wrote, which any switch pays to read
 * a destination MAC, and the bare redirect does not.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/if_link.h>

int main(int argc, char **argv)
{
	__u32 key = 0, out;
	int map, fd, in, read;

	read = argc == 4 && !strcmp(argv[3], "read");
	if (argc != 3 && !read) {
		fprintf(stderr, "usage: bridge_redirect_attach IN OUT [read]\n");
		return 2;
	}
	in = (int)if_nametoindex(argv[1]);
	out = if_nametoindex(argv[2]);
	if (!in || !out) {
		fprintf(stderr, "bridge_redirect_attach: %s: no such interface\n", in ? argv[2] : argv[1]);
		return 1;
	}
	map = bpf_map_create(BPF_MAP_TYPE_DEVMAP, "bench_redir", sizeof(key), sizeof(out), 1, NULL);
	if (map < 0 || bpf_map_update_elem(map, &key, &out, BPF_ANY)) {
		fprintf(stderr, "bridge_redirect_attach: devmap: %s\n", strerror(errno));
		return 1;
	}
	/* [read: r2 = data; r3 = data_end; if data + 6 > data_end return XDP_PASS;
	 *  r0 = first byte] r1 = &devmap; r2 = 0; r3 = XDP_PASS (if the slot were
	 * empty); call redirect_map; exit */
	struct bpf_insn insns[] = {
		{ .code = BPF_LDX | BPF_W | BPF_MEM, .dst_reg = BPF_REG_2, .src_reg = BPF_REG_1, .off = 0 },
		{ .code = BPF_LDX | BPF_W | BPF_MEM, .dst_reg = BPF_REG_3, .src_reg = BPF_REG_1, .off = 4 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_4, .src_reg = BPF_REG_2 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_4, .imm = 6 },
		{ .code = BPF_JMP | BPF_JGT | BPF_X, .dst_reg = BPF_REG_4, .src_reg = BPF_REG_3, .off = 7 },
		{ .code = BPF_LDX | BPF_B | BPF_MEM, .dst_reg = BPF_REG_0, .src_reg = BPF_REG_2, .off = 0 },
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_1, .src_reg = BPF_PSEUDO_MAP_FD, .imm = map },
		{ 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_redirect_map },
		{ .code = BPF_JMP | BPF_EXIT },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int skip = read ? 0 : 6, n = (int)(sizeof(insns) / sizeof(insns[0])) - skip - (read ? 0 : 2);

	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "bench_redir", "GPL", insns + skip, (size_t)n, NULL);
	if (fd < 0 || bpf_xdp_attach(in, fd, XDP_FLAGS_DRV_MODE, NULL)) {
		fprintf(stderr, "bridge_redirect_attach: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	close(map);
	return 0;
}
