// SPDX-License-Identifier: BSD-2-Clause
/*
 * One rule set for several interfaces (`filter load IFACE --share NAME`):
 * the rule maps (both generations, the counters and their bases), the
 * state with the live generation's index (one apply flips every member at
 * once) and the limiter's buckets (a `limit` holds across the members) are
 * pinned once more under ROOT/shared/NAME by the share's first load; a
 * later load hands those maps to its filter object instead of creating its
 * own. Each member keeps its own entry maps and stage counters
 * (fp_flt_stats), and pins the shared maps in ROOT/IFACE too, so everything
 * that opens an interface finds them where it always did. The share's pins
 * go with its last member's unload (or any unload that finds the share
 * without members); that gc takes only the filter's own directories, as
 * ROOT/shared also holds other stages' shared pins (a bridge's). All of it
 * under the pin root's lock.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "filter/filter_internal.h"

const char *const fp_share_map_names[FP_SHARE_MAPS] = {
	"fp_flt_gcfg", "fp_flt_cls", "fp_flt_keys", "fp_flt_addr",
	"fp_flt_qname", "fp_flt_rules", "fp_flt_cnt", "fp_flt_text",
	"fp_flt_cmask", "fp_flt_pre", "fp_flt_qnames", "fp_flt_cnt_base",
	"fp_flt_abloom", "fp_flt_state", "fp_flt_lim",
};

int fp_share__check_name(const char *name, char *err, size_t errlen)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-')) {
			snprintf(err, errlen, "--share '%s': a share's name takes letters, digits, "
				 "'_' and '-' only (not '%c' at %zu)", name, c, i + 1);
			return -EINVAL;
		}
	}
	if (n < 1 || n > FP_SHARE_NAME_MAX) {
		snprintf(err, errlen, "--share '%s': a share's name is 1 to %d characters",
			 name, FP_SHARE_NAME_MAX);
		return -EINVAL;
	}
	return 0;
}

int fp_share__dir(const char *root, const char *name, char *dir, size_t len)
{
	if (snprintf(dir, len, "%s/%s/%s", root, FP_SHARE_DIR, name) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

void fp_share__close(int *fds)
{
	for (int i = 0; i < FP_SHARE_MAPS; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

int fp_share__open(const char *root, const char *name, int *fds, unsigned *bits, char *err,
		   size_t errlen)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	char dir[PATH_MAX], path[PATH_MAX + 32];
	int ret = fp_share__dir(root, name, dir, sizeof(dir));

	for (int i = 0; i < FP_SHARE_MAPS; i++)
		fds[i] = -1;
	if (ret)
		return ret;
	if (access(dir, F_OK))
		return -errno;
	for (int i = 0; i < FP_SHARE_MAPS; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, fp_share_map_names[i]);
		fds[i] = bpf_obj_get(path);
		if (fds[i] < 0) {
			ret = -errno;
			snprintf(err, errlen, "the share %s is incomplete (%s: %s); unload its "
				 "members, or `fastpath filter unload IFACE --force` of a member",
				 name, path, strerror(-ret));
			fp_share__close(fds);
			return ret == -ENOENT ? -EIO : ret;
		}
	}
	/* fp_flt_keys holds two generations of 2^bits slots */
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fds[GM_KEYS], &info, &len)) {
		ret = -errno;
		fp_share__close(fds);
		return ret;
	}
	*bits = 0;
	while ((2u << *bits) < info.max_entries)
		(*bits)++;
	return 0;
}

int fp_share__pin(const int *fds, const char *root, const char *name, char *err, size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], top[PATH_MAX];
	struct stat sb;
	int ret;

	snprintf(top, sizeof(top), "%s/%s", root, FP_SHARE_DIR);
	snprintf(path, sizeof(path), "%s/fp_meta", top);
	if (access(path, F_OK) == 0) {
		snprintf(err, errlen, "%s holds the pins of an interface named %s: shares "
			 "cannot be kept in this pin root", top, FP_SHARE_DIR);
		return -EEXIST;
	}
	if (mkdir(top, 0700) && errno != EEXIST) {
		ret = -errno;
		snprintf(err, errlen, "cannot create %s: %s", top, strerror(-ret));
		return ret;
	}
	ret = fp_share__dir(root, name, dir, sizeof(dir));
	if (ret)
		return ret;
	if (stat(dir, &sb) == 0)
		fp_unpin_dir(dir); /* without a member (checked under the lock): stale */
	if (mkdir(dir, 0700)) {
		ret = -errno;
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(-ret));
		return ret;
	}
	for (int i = 0; i < FP_SHARE_MAPS; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, fp_share_map_names[i]);
		if (bpf_obj_pin(fds[i], path)) {
			ret = -errno;
			snprintf(err, errlen, "pinning %s failed: %s", path, strerror(-ret));
			fp_unpin_dir(dir);
			return ret;
		}
		chmod(path, 0600);
	}
	return 0;
}

void fp_share__remove(const char *root, const char *name)
{
	char dir[PATH_MAX];

	if (fp_share__dir(root, name, dir, sizeof(dir)))
		return;
	fp_unpin_dir(dir);
	snprintf(dir, sizeof(dir), "%s/%s", root, FP_SHARE_DIR);
	rmdir(dir); /* only when empty */
}

/* The share named in ROOT/entry/filter/fp_flt_meta ("" when none or
 * unreadable). */
static void share_of(const char *root, const char *entry, char *name)
{
	char path[PATH_MAX];
	struct fp_flt_meta meta;
	__u32 zero = 0, abi = 0;
	int fd;

	name[0] = 0;
	snprintf(path, sizeof(path), "%s/%s/filter/fp_flt_meta", root, entry);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return;
	memset(&meta, 0, sizeof(meta));
	if (!fp_read_abi(fd, &abi) && abi == FP_FILTER_ABI && !bpf_map_lookup_elem(fd, &zero, &meta))
		snprintf(name, FP_SHARE_NAME_MAX + 1, "%.*s", FP_SHARE_NAME_MAX, meta.share);
	close(fd);
}

int fp_share__members(const char *root, const char *name)
{
	char share[FP_SHARE_NAME_MAX + 1];
	struct dirent *e;
	DIR *d = opendir(root);
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, FP_SHARE_DIR))
			continue;
		share_of(root, e->d_name, share);
		n += share[0] && !strcmp(share, name);
	}
	closedir(d);
	return n;
}

/* Whether ROOT/shared/NAME is a filter share's: a name a share can have and
 * at least one of the share's pins in it. ROOT/shared also holds other
 * stages' shared pins (a bridge's, whose names have a ':' no share name
 * has); the gc must never take those. */
static bool is_filter_share(const char *top, const char *name)
{
	char path[PATH_MAX + 64], err[128];

	if (fp_share__check_name(name, err, sizeof(err)))
		return false;
	for (int i = 0; i < FP_SHARE_MAPS; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", top, name, fp_share_map_names[i]);
		if (access(path, F_OK) == 0)
			return true;
	}
	return false;
}

int fp_share__gc(const char *root, char *removed, size_t len)
{
	char top[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int n = 0;

	if (removed && len)
		removed[0] = 0;
	snprintf(top, sizeof(top), "%s/%s", root, FP_SHARE_DIR);
	d = opendir(top);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !is_filter_share(top, e->d_name) ||
		    fp_share__members(root, e->d_name))
			continue;
		fp_share__remove(root, e->d_name);
		if (removed && len && !removed[0])
			snprintf(removed, len, "%s", e->d_name);
		n++;
	}
	closedir(d);
	rmdir(top); /* only when empty */
	return n;
}

int fp_filter__meta(const struct fp_filter *f, struct fp_filter_meta *meta)
{
	struct fp_flt_meta fm;
	struct fp_meta pm;
	__u32 zero = 0;

	memset(meta, 0, sizeof(*meta));
	if (bpf_map_lookup_elem(f->fmeta_fd, &zero, &fm))
		return -errno;
	if (fp_pipeline__meta(f->pl, &pm))
		memset(&pm, 0, sizeof(pm));
	meta->abi_version = fm.abi_version;
	meta->ifindex = pm.ifindex;
	meta->xdp_flags = pm.xdp_flags;
	meta->flat_bits = fm.flat_bits;
	meta->loaded_ns = fm.loaded_ns;
	snprintf(meta->share, sizeof(meta->share), "%.*s", (int)sizeof(fm.share) - 1, fm.share);
	return 0;
}

bool fp_share__is_dir(const char *root, const char *ifname, char *err, size_t errlen)
{
	char path[PATH_MAX];

	if (strcmp(ifname, FP_SHARE_DIR))
		return false;
	snprintf(path, sizeof(path), "%s/%s", root, FP_SHARE_DIR);
	if (access(path, F_OK))
		return false;
	snprintf(path, sizeof(path), "%s/%s/fp_meta", root, FP_SHARE_DIR);
	if (access(path, F_OK) == 0)
		return false;
	snprintf(err, errlen, "%s/%s holds the pins of the shares (load --share), not of an "
		 "interface: an interface named %s needs another pin root (--bpffs)", root,
		 FP_SHARE_DIR, FP_SHARE_DIR);
	return true;
}
