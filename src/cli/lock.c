// SPDX-License-Identifier: BSD-2-Clause
/* The per-interface lock of the CLI's verbs: see cli_lock_iface in cli.h. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cli/cli.h"
#include "filter/filter.h"

/* A member of a share locks the share: an edit changes every member. */
static void lock_path(const struct cli *cli, const char *ifname, char *dir, size_t len)
{
	const char *root = fp_bpffs_root(cli->bpffs);
	struct fp_flt_meta meta;
	__u32 zero = 0;
	int fd;

	snprintf(dir, len, "%s/%s/filter/fp_flt_meta", root, ifname);
	memset(&meta, 0, sizeof(meta));
	fd = bpf_obj_get(dir);
	if (fd >= 0) {
		if (bpf_map_lookup_elem(fd, &zero, &meta))
			meta.share[0] = 0;
		close(fd);
	}
	if (meta.abi_version == FP_FILTER_ABI && meta.share[0])
		snprintf(dir, len, "%s/shared/%.*s", root, FP_SHARE_NAME_MAX, meta.share);
	else
		snprintf(dir, len, "%s/%s", root, ifname);
}

int cli_lock_iface(const struct cli *cli, const char *ifname)
{
	char dir[PATH_MAX];
	int fd;

	lock_path(cli, ifname, dir, sizeof(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_EX)) {
		close(fd);
		fd = -1;
	}
	return fd;
}
