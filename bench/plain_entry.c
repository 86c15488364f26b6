// SPDX-License-Identifier: BSD-2-Clause
/*
 * plain_entry ROOT IFACE: attaches the pinned plain entry of IFACE's
 * pipeline (ROOT/IFACE/fp_entry) in place of the program attached there
 * now (a stage's fused entry), by an atomic replace in native mode, and
 * exits. The filter then runs from its slot, behind a tail call: the lab's
 * measure of what fusing saves (bench/filter_rate.sh target fp10k_plain).
 * The pipeline's own commands put the fused entry back on the next change.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

int main(int argc, char **argv)
{
	char path[512];
	__u32 old_id = 0;
	int ifindex, fd, old_fd;

	if (argc != 3) {
		fprintf(stderr, "usage: plain_entry ROOT IFACE\n");
		return 2;
	}
	ifindex = (int)if_nametoindex(argv[2]);
	if (!ifindex) {
		fprintf(stderr, "plain_entry: %s: no such interface\n", argv[2]);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s/fp_entry", argv[1], argv[2]);
	fd = bpf_obj_get(path);
	if (fd < 0) {
		fprintf(stderr, "plain_entry: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (bpf_xdp_query_id(ifindex, XDP_FLAGS_DRV_MODE, &old_id) || !old_id) {
		fprintf(stderr, "plain_entry: %s: nothing attached in native mode\n", argv[2]);
		return 1;
	}
	old_fd = bpf_prog_get_fd_by_id(old_id);
	{
		LIBBPF_OPTS(bpf_xdp_attach_opts, o, .old_prog_fd = old_fd);

		if (old_fd < 0 ||
		    bpf_xdp_attach(ifindex, fd, XDP_FLAGS_DRV_MODE | XDP_FLAGS_REPLACE, &o)) {
			fprintf(stderr, "plain_entry: replacing program %u on %s: %s\n", old_id,
				argv[2], strerror(errno));
			return 1;
		}
	}
	close(old_fd);
	close(fd);
	return 0;
}
