// SPDX-License-Identifier: BSD-2-Clause
/*
 * Keeping the pins and the attachment in agreement: the lock that makes a
 * load or an unload whole against another one, the check that the pinned
 * entry program is the one attached at the ifindex recorded at load, and
 * unload (by that ifindex and program id, so a renamed interface is found;
 * with --force also from incomplete pins or none).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "filter/filter_internal.h"

bool fp_errno_is_perm(int err)
{
	return err == -EACCES || err == -EPERM;
}

void fp_perm_msg(char *err, size_t errlen, const char *what, const char *root)
{
	snprintf(err, errlen, "permission denied %s: run as root (or grant CAP_BPF and "
		 "CAP_NET_ADMIN and access to %s)", what, root);
}

/*
 * The lock of one pin root: an flock on ROOT itself (a bpffs holds no
 * regular files to lock). Load and unload hold it from the check that the
 * pin directory is absent (or present) until everything is pinned and
 * attached (or detached and removed): milliseconds; the verifier's load
 * runs before it. Rule edits lock ROOT/IFACE instead.
 */
int fp_root_lock(const char *root, char *err, size_t errlen)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		int ret = -errno;

		if (fp_errno_is_perm(ret))
			fp_perm_msg(err, errlen, "opening the pin root", root);
		else
			snprintf(err, errlen, "cannot open the pin root %s: %s", root,
				 strerror(-ret));
		return ret;
	}
	if (flock(fd, LOCK_EX)) {
		int ret = -errno;

		close(fd);
		snprintf(err, errlen, "cannot lock the pin root %s: %s", root, strerror(-ret));
		return ret;
	}
	return fd;
}

__u32 fp_prog_id(int fd)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	return fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) ? info.id : 0;
}

int fp_prog_name(__u32 id, char *name, size_t len)
{
	struct bpf_prog_info info = { 0 };
	__u32 ilen = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id), ret = 0;

	name[0] = 0;
	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen))
		ret = -errno;
	else
		snprintf(name, len, "%s", info.name);
	close(fd);
	return ret;
}

bool fp_prog_is_ours(__u32 id)
{
	char name[BPF_OBJ_NAME_LEN];

	return id && !fp_prog_name(id, name, sizeof(name)) && !strncmp(name, "fp_entry", 8);
}

/* The program attached to ifindex in each mode (0: none). */
static void xdp_ids(unsigned ifindex, __u32 ids[3])
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	ids[0] = ids[1] = ids[2] = 0;
	if (!ifindex || bpf_xdp_query((int)ifindex, 0, &q))
		return;
	ids[0] = q.drv_prog_id;
	ids[1] = q.skb_prog_id;
	ids[2] = q.hw_prog_id;
}

bool fp_xdp_busy(unsigned ifindex)
{
	__u32 ids[3];

	xdp_ids(ifindex, ids);
	return ids[0] || ids[1] || ids[2];
}

static const __u32 mode_flag[3] = { XDP_FLAGS_DRV_MODE, XDP_FLAGS_SKB_MODE, XDP_FLAGS_HW_MODE };

void fp_xdp_hint(unsigned ifindex, const char *ifname, char *buf, size_t len)
{
	__u32 ids[3];
	char name[BPF_OBJ_NAME_LEN] = "";

	xdp_ids(ifindex, ids);
	for (int m = 0; m < 3; m++) {
		if (!ids[m])
			continue;
		fp_prog_name(ids[m], name, sizeof(name));
		if (!strncmp(name, "fp_entry", 8)) {
			snprintf(buf, len, "%s runs fastpath's program %s (id %u) already: its "
				 "pins are under another name or --bpffs (`fastpath status`), or "
				 "gone: then `fastpath filter unload %s --force` removes it",
				 ifname, name, ids[m], ifname);
			return;
		}
		/* `xdp off` removes only the native program on a driver with XDP */
		snprintf(buf, len, "%s already has an XDP program (id %u%s%s, %s); remove it "
			 "first (`ip link set dev %s %s off`)", ifname, ids[m], name[0] ? ", " : "",
			 name, m == 1 ? "generic" : m == 2 ? "offload" : "native", ifname,
			 m == 1 ? "xdpgeneric" : m == 2 ? "xdpoffload" : "xdpdrv");
		return;
	}
	snprintf(buf, len, "%s already has an XDP program", ifname);
}

int fp_filter__attachment(const struct fp_filter *f, struct fp_filter_attach *a)
{
	struct fp_meta meta = { 0 };
	__u32 zero = 0, ids[3];

	memset(a, 0, sizeof(*a));
	if (bpf_map_lookup_elem(f->meta_fd, &zero, &meta))
		return -errno;
	a->prog_id = fp_prog_id(f->entry_fd);
	a->ifindex = meta.ifindex;
	a->xdp_flags = meta.xdp_flags;
	if (!if_indextoname(meta.ifindex, a->ifname))
		a->ifname[0] = 0;
	xdp_ids(a->ifname[0] ? meta.ifindex : 0, ids);
	for (int m = 0; m < 3; m++)
		if (meta.xdp_flags & mode_flag[m])
			a->attached_id = ids[m];
	a->attached = a->prog_id && a->attached_id == a->prog_id;
	return 0;
}

/* Detaches prog id `id` from ifindex in mode m, only if it is still the one
 * attached there (XDP_FLAGS_REPLACE with its fd). */
static int detach_id(unsigned ifindex, int m, __u32 id)
{
	int fd = bpf_prog_get_fd_by_id(id), ret;

	if (fd < 0)
		return -errno;
	{
		LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = fd);

		ret = bpf_xdp_detach((int)ifindex, mode_flag[m], &opts);
	}
	close(fd);
	return ret;
}

/*
 * On ifindex: detaches our program (id `ours`; 0: any fp_entry* program,
 * --force without the entry pin) and notes another one that stays.
 */
static int detach_ours(unsigned ifindex, __u32 ours, struct fp_unload_report *r,
		       char *err, size_t errlen)
{
	__u32 ids[3];

	xdp_ids(ifindex, ids);
	for (int m = 0; m < 3; m++) {
		int ret;

		if (!ids[m])
			continue;
		if (ours ? ids[m] != ours : !fp_prog_is_ours(ids[m])) {
			r->other_id = ids[m];
			continue;
		}
		ret = detach_id(ifindex, m, ids[m]);
		if (ret) {
			snprintf(err, errlen, "detaching program %u from ifindex %u failed: %s",
				 ids[m], ifindex, strerror(-ret));
			return ret;
		}
		r->detached = true;
		r->ifindex = ifindex;
		r->prog_id = ids[m];
		r->xdp_flags = mode_flag[m];
		if (!if_indextoname(ifindex, r->ifname))
			r->ifname[0] = 0;
	}
	return 0;
}

/* Removes every pin of dir, each named in r, then dir. */
static int remove_pins(const char *dir, struct fp_unload_report *r, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' && (!e->d_name[1] || !strcmp(e->d_name, "..")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (unlink(path)) {
			ret = -errno;
			snprintf(err, errlen, "cannot remove %s: %s", path, strerror(-ret));
			continue;
		}
		if (r->n_pins < FP_UNLOAD_MAX_PINS)
			snprintf(r->pins[r->n_pins], sizeof(r->pins[0]), "%s", e->d_name);
		r->n_pins++;
	}
	closedir(d);
	if (!ret && rmdir(dir)) {
		ret = -errno;
		snprintf(err, errlen, "cannot remove %s: %s", dir, strerror(-ret));
	}
	return ret;
}

/* The pinned ifindex and entry program of dir (0 when unreadable); -EACCES
 * or -EPERM when the pins may not be read. */
static int read_pins(const char *dir, struct fp_meta *meta, __u32 *entry_id)
{
	char path[PATH_MAX];
	__u32 zero = 0;
	int fd, ret = 0;

	memset(meta, 0, sizeof(*meta));
	snprintf(path, sizeof(path), "%s/fp_meta", dir);
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		if (bpf_map_lookup_elem(fd, &zero, meta))
			memset(meta, 0, sizeof(*meta));
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/fp_entry", dir);
	fd = bpf_obj_get(path);
	if (fd < 0 && fp_errno_is_perm(-errno))
		ret = -errno;
	*entry_id = fp_prog_id(fd);
	if (fd >= 0)
		close(fd);
	return ret;
}

int fp_pins_of_ifindex(const char *root, unsigned ifindex, char *name, size_t len)
{
	char dir[PATH_MAX];
	struct fp_meta meta;
	struct dirent *e;
	__u32 id;
	DIR *d;

	if (!ifindex || !(d = opendir(root)))
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", root, e->d_name);
		read_pins(dir, &meta, &id);
		if (meta.ifindex == ifindex && id) {
			snprintf(name, len, "%s", e->d_name);
			closedir(d);
			return 1;
		}
	}
	closedir(d);
	return 0;
}

int fp_filter__unload(const char *ifname, const char *bpffs, bool force,
		      struct fp_unload_report *r, char *err, size_t errlen)
{
	const char *root = fp_bpffs_root(bpffs);
	unsigned byname = if_nametoindex(ifname);
	struct fp_unload_report local;
	struct fp_meta meta;
	char dir[PATH_MAX], other[NAME_MAX + 1];
	__u32 entry_id = 0;
	int lock, ret = 0;
	bool have_dir;

	if (!r)
		r = &local;
	memset(r, 0, sizeof(*r));
	if (snprintf(dir, sizeof(dir), "%s/%s", root, ifname) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	if (fp_share__is_dir(root, ifname, err, errlen))
		return -EINVAL;
	lock = fp_root_lock(root, err, errlen);
	if (lock == -ENOENT && force) {
		have_dir = false;
	} else if (lock < 0) {
		if (lock == -ENOENT)
			snprintf(err, errlen, "fastpath is not loaded on %s (no %s)", ifname, dir);
		return lock;
	} else {
		have_dir = access(dir, F_OK) == 0;
		if (!have_dir && fp_errno_is_perm(-errno)) {
			fp_perm_msg(err, errlen, "reading the pins", root);
			ret = -EACCES;
			goto out;
		}
	}
	memset(&meta, 0, sizeof(meta));
	if (have_dir && read_pins(dir, &meta, &entry_id)) {
		fp_perm_msg(err, errlen, "reading the pins", root);
		ret = -EACCES;
		goto out;
	}
	if (!have_dir && !force) {
		if (lock >= 0 && fp_pins_of_ifindex(root, byname, other, sizeof(other)))
			snprintf(err, errlen, "fastpath is not loaded under the name %s: its pins "
				 "are under %s/%s (the interface was renamed from %s); "
				 "`fastpath filter unload %s`", ifname, root, other, other, other);
		else
			snprintf(err, errlen, "fastpath is not loaded on %s (no %s)", ifname, dir);
		ret = -ENOENT;
		goto out;
	}
	if (have_dir && !entry_id && !force) {
		snprintf(err, errlen, "the pins in %s are incomplete or unreadable (no program "
			 "fp_entry): nothing changed; `fastpath filter unload %s --force` detaches "
			 "fastpath's program from %s and removes them", dir, ifname, ifname);
		ret = -ENOENT;
		goto out;
	}
	/* by the ifindex of the load, then (renamed, or --force without it) by name */
	if (meta.ifindex)
		ret = detach_ours(meta.ifindex, entry_id, r, err, errlen);
	if (!ret && !r->detached && byname && byname != meta.ifindex &&
	    (force || !meta.ifindex)) {
		r->other_id = 0;
		ret = detach_ours(byname, entry_id, r, err, errlen);
	}
	if (ret)
		goto out;
	if (have_dir)
		ret = remove_pins(dir, r, err, errlen);
	snprintf(r->share, sizeof(r->share), "%.*s", FP_SHARE_NAME_MAX, meta.share);
	/* the share's own pins go with its last member (--force: also a share
	 * whose members went without it) */
	if (!ret && lock >= 0)
		fp_share__gc(root, r->share_removed, sizeof(r->share_removed));
	if (!ret && !have_dir && !r->detached) {
		snprintf(err, errlen, "nothing of fastpath's on %s: no pins (%s) and no "
			 "fastpath program attached", ifname, dir);
		ret = -ENOENT;
	}
	if (!ret && r->other_id) {
		snprintf(err, errlen, "%s has an XDP program that is not fastpath's (id %u), "
			 "left attached; fastpath's pins are removed", ifname, r->other_id);
		ret = 1;
	}
out:
	if (lock >= 0)
		close(lock);
	return ret;
}

/* Removes every pin of a directory, then the directory: an interface's or a
 * share's, made under the root lock, so everything in it is ours (a stage
 * added later needs no list here). */
void fp_unpin_dir(const char *dir)
{
	char path[PATH_MAX + NAME_MAX + 2];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (d) {
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(dir);
}
