// SPDX-License-Identifier: BSD-2-Clause
/*
 * xdp_drop_attach IFACE: attaches a bare XDP_DROP program (two instructions)
 * to IFACE in native mode and exits; the attachment stays until
 * `ip link set dev IFACE xdp off`. The floor of bench/filter_rate.sh.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/if_link.h>

int main(int argc, char **argv)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_DROP },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd, ifindex;

	if (argc != 2) {
		fprintf(stderr, "usage: xdp_drop_attach IFACE\n");
		return 2;
	}
	ifindex = (int)if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, "xdp_drop_attach: %s: no such interface\n", argv[1]);
		return 1;
	}
	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "bench_drop", "GPL", insns, 2, NULL);
	if (fd < 0 || bpf_xdp_attach(ifindex, fd, XDP_FLAGS_DRV_MODE, NULL)) {
		fprintf(stderr, "xdp_drop_attach: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
