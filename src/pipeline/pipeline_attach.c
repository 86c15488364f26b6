// SPDX-License-Identifier: BSD-2-Clause
/*
 * Keeping the pins and the attachment in agreement: the lock that makes a
 * load or an unload whole against another one, what runs on an interface,
 * the refusal that names another program, and unload (by the ifindex and
 * program id pinned at load, so a renamed interface is found; with --force
 * also from incomplete pins or none).
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
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "pipeline/pipeline_internal.h"

const __u32 fp_xdp_mode_flag[3] = { XDP_FLAGS_DRV_MODE, XDP_FLAGS_SKB_MODE, XDP_FLAGS_HW_MODE };

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
 * regular files to lock). Every change of what is loaded or attached
 * (pipeline load and unload, a stage's add and removal, enable and
 * disable) holds it from its check of the pins until everything is pinned
 * and attached (or detached and removed): milliseconds; the verifier's
 * load runs before it. Rule edits lock ROOT/IFACE instead.
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

/* Creates path and its missing parents, only inside a bpffs: when the
 * deepest directory that exists is on another file system, creates
 * nothing and returns -ENOTSUP (a --bpffs typo must leave no directory). */
int fp_mkdirs(const char *path)
{
	char tmp[PATH_MAX], *slash;
	struct statfs sfs = { 0 };

	snprintf(tmp, sizeof(tmp), "%s", path);
	while (statfs(tmp, &sfs) && errno == ENOENT && (slash = strrchr(tmp, '/')))
		*(slash == tmp ? slash + 1 : slash) = 0;
	if (sfs.f_type != BPF_FS_MAGIC)
		return -ENOTSUP;
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0700) && errno != EEXIST)
		return -errno;
	return 0;
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

/* fp_entry and every stage's fused entry fp_entry_<stage>. */
bool fp_prog_is_ours(__u32 id)
{
	char name[BPF_OBJ_NAME_LEN];

	return id && !fp_prog_name(id, name, sizeof(name)) && !strncmp(name, "fp_entry", 8);
}

/* The program attached to ifindex in each mode (0: none). */
void fp_xdp_ids(unsigned ifindex, __u32 ids[3])
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

	fp_xdp_ids(ifindex, ids);
	return ids[0] || ids[1] || ids[2];
}

void fp_xdp_hint(unsigned ifindex, const char *ifname, char *buf, size_t len)
{
	__u32 ids[3];
	char name[BPF_OBJ_NAME_LEN] = "";

	fp_xdp_ids(ifindex, ids);
	for (int m = 0; m < 3; m++) {
		if (!ids[m])
			continue;
		fp_prog_name(ids[m], name, sizeof(name));
		if (!strncmp(name, "fp_entry", 8)) {
			snprintf(buf, len, "%s runs fastpath's program %s (id %u) already: its "
				 "pins are under another name or --bpffs (`fastpath status`), or "
				 "gone: then `fastpath pipeline unload %s --force` removes it",
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

/* The pinned ifindex and entry program ids of dir (0 when unreadable):
 * ours[0] the plain entry, then every stage's fused entry; -EACCES or
 * -EPERM when the pins may not be read. */
static int read_pins(const char *dir, struct fp_meta *meta, __u32 *ours, int max)
{
	const struct fp_stage_ops *const *t = fp_stage_table();
	char path[PATH_MAX];
	__u32 zero = 0;
	int fd, ret = 0, n = 0;
	__u8 buf[256];

	memset(meta, 0, sizeof(*meta));
	memset(ours, 0, sizeof(*ours) * max);
	snprintf(path, sizeof(path), "%s/fp_meta", dir);
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		__u32 abi = 0;

		/* an older pin's value may be larger: read its ABI word first */
		if (!fp_read_abi(fd, &abi) && abi == FP_ABI_VERSION &&
		    !bpf_map_lookup_elem(fd, &zero, buf))
			memcpy(meta, buf, sizeof(*meta));
		else
			meta->abi_version = abi;
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/fp_entry", dir);
	fd = bpf_obj_get(path);
	if (fd < 0 && fp_errno_is_perm(-errno))
		ret = -errno;
	ours[n++] = fp_prog_id(fd);
	if (fd >= 0)
		close(fd);
	for (int i = 0; t[i] && n < max; i++) {
		if (!t[i]->fused_pin)
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", dir, t[i]->name, t[i]->fused_pin);
		fd = bpf_obj_get(path);
		ours[n++] = fp_prog_id(fd);
		if (fd >= 0)
			close(fd);
	}
	/* a pipeline of ABI 24 and before: the attached program was fp_entry */
	return ret;
}

int fp_pins_of_ifindex(const char *root, unsigned ifindex, char *name, size_t len)
{
	char dir[PATH_MAX];
	struct fp_meta meta;
	struct dirent *e;
	__u32 ids[FP_STAGE_MAX + 1];
	DIR *d;

	if (!ifindex || !(d = opendir(root)))
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", root, e->d_name);
		read_pins(dir, &meta, ids, FP_STAGE_MAX + 1);
		if (meta.ifindex == ifindex && ids[0]) {
			snprintf(name, len, "%s", e->d_name);
			closedir(d);
			return 1;
		}
	}
	closedir(d);
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

		ret = bpf_xdp_detach((int)ifindex, fp_xdp_mode_flag[m], &opts);
	}
	close(fd);
	return ret;
}

static bool id_in(__u32 id, const __u32 *ids, int n)
{
	for (int i = 0; i < n; i++)
		if (ids[i] && ids[i] == id)
			return true;
	return false;
}

/*
 * On ifindex: detaches our program (one of ours[n]; none known: any
 * fp_entry* program, --force without the pins) and notes another one
 * that stays.
 */
static int detach_ours(unsigned ifindex, const __u32 *ours, int n, struct fp_unload_report *r,
		       char *err, size_t errlen)
{
	bool known = false;
	__u32 ids[3];

	for (int i = 0; i < n; i++)
		known |= ours[i] != 0;
	fp_xdp_ids(ifindex, ids);
	for (int m = 0; m < 3; m++) {
		int ret;

		if (!ids[m])
			continue;
		if (known ? !id_in(ids[m], ours, n) : !fp_prog_is_ours(ids[m])) {
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
		r->xdp_flags = fp_xdp_mode_flag[m];
		if (!if_indextoname(ifindex, r->ifname))
			r->ifname[0] = 0;
	}
	return 0;
}

static void note_pin(struct fp_unload_report *r, const char *sub, const char *name)
{
	if (!r)
		return;
	if (r->n_pins < FP_UNLOAD_MAX_PINS)
		snprintf(r->pins[r->n_pins], sizeof(r->pins[0]), "%s%s%.40s", sub,
			 sub[0] ? "/" : "", name);
	r->n_pins++;
}

static int unpin_level(const char *dir, const char *sub, struct fp_unload_report *r,
		       char *err, size_t errlen)
{
	char path[PATH_MAX + NAME_MAX + 2];
	struct dirent *e;
	struct stat sb;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' && (!e->d_name[1] || !strcmp(e->d_name, "..")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!lstat(path, &sb) && S_ISDIR(sb.st_mode)) {
			/* a stage's directory: one level only */
			int r2 = sub[0] ? -EISDIR : unpin_level(path, e->d_name, r, err, errlen);

			if (r2 && !ret)
				ret = r2;
			continue;
		}
		if (unlink(path)) {
			ret = -errno;
			snprintf(err, errlen, "cannot remove %s: %s", path, strerror(-ret));
			continue;
		}
		note_pin(r, sub, e->d_name);
	}
	closedir(d);
	if (!ret && rmdir(dir)) {
		ret = -errno;
		snprintf(err, errlen, "cannot remove %s: %s", dir, strerror(-ret));
	}
	return ret;
}

int fp_unpin_tree(const char *dir, struct fp_unload_report *r, char *err, size_t errlen)
{
	char dummy[8];

	return unpin_level(dir, "", r, err ? err : dummy, err ? errlen : sizeof(dummy));
}

int fp_pipeline__unload(const char *ifname, const char *bpffs, bool force,
			struct fp_unload_report *r, char *err, size_t errlen)
{
	return fp_pipeline__unload_held(ifname, bpffs, force, -1, r, err, errlen);
}

int fp_pipeline__unload_held(const char *ifname, const char *bpffs, bool force, int held,
			     struct fp_unload_report *r, char *err, size_t errlen)
{
	const struct fp_stage_ops *const *t = fp_stage_table();
	const char *root = fp_bpffs_root(bpffs);
	unsigned byname = if_nametoindex(ifname);
	struct fp_unload_report local;
	struct fp_meta meta;
	char dir[PATH_MAX], other[NAME_MAX + 1];
	__u32 ours[FP_STAGE_MAX + 1];
	int lock, ret = 0;
	bool have_dir;

	if (!r)
		r = &local;
	memset(r, 0, sizeof(*r));
	memset(ours, 0, sizeof(ours));
	if (snprintf(dir, sizeof(dir), "%s/%s", root, ifname) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	if (!strcmp(ifname, "shared")) {
		snprintf(err, errlen, "%s/shared holds the pins of the shares (maps that "
			 "interfaces share, `filter load --share`), not of an interface", root);
		return -EINVAL;
	}
	lock = held >= 0 ? held : fp_root_lock(root, err, errlen);
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
	if (have_dir && read_pins(dir, &meta, ours, FP_STAGE_MAX + 1)) {
		fp_perm_msg(err, errlen, "reading the pins", root);
		ret = -EACCES;
		goto out;
	}
	if (!have_dir && !force) {
		if (lock >= 0 && fp_pins_of_ifindex(root, byname, other, sizeof(other)))
			snprintf(err, errlen, "fastpath is not loaded under the name %s: its pins "
				 "are under %s/%s (the interface was renamed from %s); "
				 "`fastpath pipeline unload %s`", ifname, root, other, other, other);
		else
			snprintf(err, errlen, "fastpath is not loaded on %s (no %s)", ifname, dir);
		ret = -ENOENT;
		goto out;
	}
	if (have_dir && !ours[0] && !force) {
		snprintf(err, errlen, "the pins in %s are incomplete or unreadable (no program "
			 "fp_entry): nothing changed; `fastpath pipeline unload %s --force` "
			 "detaches fastpath's program from %s and removes them", dir, ifname, ifname);
		ret = -ENOENT;
		goto out;
	}
	/* by the ifindex of the load, then (renamed, or --force without it) by name */
	if (meta.ifindex)
		ret = detach_ours(meta.ifindex, ours, FP_STAGE_MAX + 1, r, err, errlen);
	if (!ret && !r->detached && byname && byname != meta.ifindex &&
	    (force || !meta.ifindex)) {
		r->other_id = 0;
		ret = detach_ours(byname, ours, FP_STAGE_MAX + 1, r, err, errlen);
	}
	if (ret)
		goto out;
	for (int i = 0; have_dir && t[i]; i++) {
		char sdir[PATH_MAX + NAME_MAX];

		snprintf(sdir, sizeof(sdir), "%s/%s", dir, t[i]->name);
		if (t[i]->unloading && access(sdir, F_OK) == 0)
			t[i]->unloading(sdir, r);
	}
	if (have_dir)
		ret = fp_unpin_tree(dir, r, err, errlen);
	/* what the stages keep beyond their directories (a filter's share) */
	for (int i = 0; !ret && lock >= 0 && t[i]; i++)
		if (t[i]->unloaded)
			t[i]->unloaded(root, r);
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
	if (lock >= 0 && lock != held)
		close(lock);
	return ret;
}
