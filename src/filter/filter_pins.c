// SPDX-License-Identifier: BSD-2-Clause
/*
 * Whether an open filter still is the one pinned on its interface: a
 * process that keeps one open (stats --watch) sees an unload and a new load
 * under it, where its own descriptors keep the old, detached maps alive.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "filter/filter_internal.h"

static int map_id(int fd, __u32 *id)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*id = info.id;
	return 0;
}

int fp_filter__pins_current(const struct fp_filter *f, const char *ifname, const char *bpffs)
{
	char path[PATH_MAX];
	__u32 ours = 0, pinned = 0;
	int fd, ret;

	if (snprintf(path, sizeof(path), "%s/%s/filter/fp_flt_meta", fp_bpffs_root(bpffs), ifname) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	ret = map_id(f->fmeta_fd, &ours);
	if (!ret)
		ret = map_id(fd, &pinned);
	close(fd);
	if (ret)
		return ret;
	return ours == pinned;
}
