// SPDX-License-Identifier: BSD-2-Clause
/*
 * An interface's pipeline: the entry object (fp_entry and the maps every
 * stage shares), loaded and pinned under ROOT/IFACE, attached, opened
 * again by later CLI runs after an ABI check, or made for test runs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "pipeline/pipeline_internal.h"
#include "util/verbose.h"
#include "entry.skel.h"

const char *fp_bpffs_root(const char *opt)
{
	const char *env = getenv("FASTPATH_BPFFS");

	if (opt && *opt)
		return opt;
	return env && *env ? env : "/sys/fs/bpf/fastpath";
}

static int quiet_print(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	return fp_verbose__libbpf_print(l, fmt, ap); /* -v, -vv */
}

static struct fp_pipeline *pl_new(const char *root, const char *ifname)
{
	struct fp_pipeline *pl = calloc(1, sizeof(*pl));

	if (!pl)
		return NULL;
	libbpf_set_print(quiet_print);
	pl->entry_fd = pl->stages_fd = pl->scratch_fd = pl->ctl_fd = pl->meta_fd = -1;
	pl->lock_fd = pl->attached_fd = -1;
	for (int i = 0; i < FP_STAGE_MAX; i++)
		pl->slot_fd[i] = pl->fused_fd[i] = -1;
	snprintf(pl->root, sizeof(pl->root), "%s", root ? root : "");
	snprintf(pl->ifname, sizeof(pl->ifname), "%s", ifname ? ifname : "");
	if (root && ifname)
		snprintf(pl->dir, sizeof(pl->dir), "%s/%s", root, ifname);
	return pl;
}

void fp_pipeline__close(struct fp_pipeline *pl)
{
	if (!pl)
		return;
	if (pl->ctl)
		munmap(pl->ctl, sizeof(struct fp_ctl));
	if (pl->lock_fd >= 0)
		close(pl->lock_fd);
	for (int i = FP_STAGE_MAX - 1; i >= 0; i--) /* the stages before the entry */
		if (pl->kept[i].obj)
			pl->kept[i].destroy(pl->kept[i].obj);
	if (pl->skel) {
		entry_bpf__destroy(pl->skel);
	} else {
		int fds[] = { pl->entry_fd, pl->stages_fd, pl->scratch_fd, pl->ctl_fd, pl->meta_fd };

		for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
			if (fds[i] >= 0)
				close(fds[i]);
	}
	free(pl);
}

static int map_ctl(struct fp_pipeline *pl)
{
	void *p = mmap(NULL, sizeof(struct fp_ctl), PROT_READ | PROT_WRITE, MAP_SHARED,
		       pl->ctl_fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	pl->ctl = p;
	return 0;
}

static int load_entry(struct fp_pipeline *pl, char *err, size_t errlen)
{
	int ret;

	pl->skel = entry_bpf__open_and_load();
	if (!pl->skel) {
		ret = -errno;
		snprintf(err, errlen, "loading the entry program failed: %s (run as root; "
			 "FASTPATH_DEBUG=1 shows the verifier log)", strerror(-ret));
		return ret;
	}
	pl->entry_fd = bpf_program__fd(pl->skel->progs.fp_entry);
	pl->stages_fd = bpf_map__fd(pl->skel->maps.fp_stages);
	pl->scratch_fd = bpf_map__fd(pl->skel->maps.fp_scratch);
	pl->ctl_fd = bpf_map__fd(pl->skel->maps.fp_ctl);
	pl->meta_fd = bpf_map__fd(pl->skel->maps.fp_meta);
	pl->attached_fd = pl->entry_fd;
	return map_ctl(pl);
}

/* The pipeline_loads stages (the dump), into a loaded entry. */
static int load_default_stages(struct fp_pipeline *pl, char *err, size_t errlen)
{
	const struct fp_stage_ops *const *t = fp_stage_table();

	for (int i = 0; t[i]; i++) {
		int ret;

		if (!t[i]->pipeline_loads || !t[i]->load)
			continue;
		ret = t[i]->load(pl, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

int fp_pipeline__open_test(struct fp_pipeline **out, char *err, size_t errlen)
{
	struct fp_pipeline *pl = pl_new(NULL, NULL);
	int ret;

	if (!pl)
		return -ENOMEM;
	pl->test = true;
	ret = load_entry(pl, err, errlen);
	if (!ret)
		ret = load_default_stages(pl, err, errlen);
	if (ret) {
		fp_pipeline__close(pl);
		return ret;
	}
	*out = pl;
	return 0;
}

static const char *const own_pins[] = { "fp_entry", "fp_stages", "fp_scratch", "fp_ctl",
					"fp_meta" };

static int pin_own(struct fp_pipeline *pl, char *err, size_t errlen)
{
	int fds[] = { pl->entry_fd, pl->stages_fd, pl->scratch_fd, pl->ctl_fd, pl->meta_fd };
	char path[PATH_MAX + 16];

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", pl->dir, own_pins[i]);
		if (bpf_obj_pin(fds[i], path)) {
			int ret = -errno;

			snprintf(err, errlen, "pinning %s failed: %s (is %s on a bpffs?)", path,
				 strerror(-ret), pl->root);
			return ret;
		}
		chmod(path, 0600);
	}
	return 0;
}

int fp_pipeline__lock(struct fp_pipeline *pl, char *err, size_t errlen)
{
	int fd;

	if (pl->test || pl->lock_fd >= 0)
		return 0;
	fd = fp_root_lock(pl->root, err, errlen);
	if (fd < 0)
		return fd;
	pl->lock_fd = fd;
	return 0;
}

void fp_pipeline__unlock(struct fp_pipeline *pl)
{
	if (pl && pl->lock_fd >= 0) {
		close(pl->lock_fd);
		pl->lock_fd = -1;
	}
}

static int load_locked(struct fp_pipeline *pl, unsigned ifindex, const struct fp_pipeline_opts *o,
		       char *err, size_t errlen)
{
	__u32 flags = o && o->skb_mode ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE, zero = 0;
	struct fp_meta meta = { .abi_version = FP_ABI_VERSION, .attached_slot = FP_STAGE_MAX };
	struct timespec ts;
	int ret;

	if (access(pl->dir, F_OK) == 0) { /* a load that ran at the same time won */
		snprintf(err, errlen, "a pipeline is loaded on %s already (pins in %s); "
			 "`fastpath pipeline show %s`", pl->ifname, pl->dir, pl->ifname);
		return -EEXIST;
	}
	if (fp_xdp_busy(ifindex)) {
		fp_xdp_hint(ifindex, pl->ifname, err, errlen);
		return -EEXIST;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	meta.ifindex = ifindex;
	meta.xdp_flags = flags;
	meta.flags = o && o->auto_load ? FP_META_AUTO : 0;
	meta.loaded_ns = (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	if (bpf_map_update_elem(pl->meta_fd, &zero, &meta, 0))
		return -errno;
	if (mkdir(pl->dir, 0700)) {
		ret = -errno;
		snprintf(err, errlen, "cannot create %s: %s", pl->dir, strerror(-ret));
		return ret;
	}
	ret = pin_own(pl, err, errlen);
	/* the default stages pin into the directory made here, under this lock */
	if (!ret)
		ret = load_default_stages(pl, err, errlen);
	if (!ret) {
		ret = bpf_xdp_attach(ifindex, pl->entry_fd, flags | XDP_FLAGS_UPDATE_IF_NOEXIST,
				     NULL);
		if (ret == -EBUSY || ret == -EEXIST)
			fp_xdp_hint(ifindex, pl->ifname, err, errlen);
		else if (ret)
			snprintf(err, errlen, "attaching to %s failed: %s (try --mode skb)",
				 pl->ifname, strerror(-ret));
	}
	if (ret)
		fp_unpin_tree(pl->dir, NULL, NULL, 0); /* made under the lock: only ours */
	return ret;
}

int fp_pipeline__load(const char *ifname, const struct fp_pipeline_opts *o,
		      struct fp_pipeline **out, char *err, size_t errlen)
{
	const char *root = fp_bpffs_root(o ? o->bpffs : NULL);
	unsigned ifindex = if_nametoindex(ifname);
	struct fp_pipeline *pl;
	int ret;

	if (!ifindex) {
		snprintf(err, errlen, "no interface '%s' (see `ip link`)", ifname);
		return -ENODEV;
	}
	if (!strcmp(ifname, "shared")) {
		snprintf(err, errlen, "an interface named 'shared' cannot have a pipeline: "
			 "%s/shared holds the maps interfaces share", root);
		return -EINVAL;
	}
	pl = pl_new(root, ifname);
	if (!pl)
		return -ENOMEM;
	if (strlen(pl->dir) + 1 >= sizeof(pl->dir) - NAME_MAX) {
		fp_pipeline__close(pl);
		return -ENAMETOOLONG;
	}
	/* the cheap refusals first, before the verifier's work */
	if (access(pl->dir, F_OK) == 0) {
		snprintf(err, errlen, "a pipeline is loaded on %s already (pins in %s); "
			 "`fastpath pipeline show %s`", ifname, pl->dir, ifname);
		fp_pipeline__close(pl);
		return -EEXIST;
	}
	if (fp_errno_is_perm(-errno)) {
		fp_perm_msg(err, errlen, "reading the pins", root);
		fp_pipeline__close(pl);
		return -EACCES;
	}
	if (fp_xdp_busy(ifindex)) {
		fp_xdp_hint(ifindex, ifname, err, errlen);
		fp_pipeline__close(pl);
		return -EEXIST;
	}
	ret = load_entry(pl, err, errlen);
	if (!ret) {
		ret = fp_mkdirs(root);
		if (ret)
			snprintf(err, errlen, "cannot create %s: %s (is a bpffs mounted at %s? "
				 "`mount -t bpf bpf /sys/fs/bpf`)", root, strerror(-ret), root);
	}
	if (!ret)
		ret = fp_pipeline__lock(pl, err, errlen);
	if (!ret)
		ret = load_locked(pl, ifindex, o, err, errlen);
	fp_pipeline__unlock(pl);
	if (ret) {
		fp_pipeline__close(pl);
		return ret;
	}
	*out = pl;
	return 0;
}

static int get_pinned(const char *dir, const char *name, int *fd)
{
	char path[PATH_MAX + NAME_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	*fd = bpf_obj_get(path);
	return *fd < 0 ? -errno : 0;
}

int fp_read_abi(int map_fd, __u32 *abi)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info), zero = 0;
	__u8 buf[1024];

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		return -errno;
	if (info.value_size < 4 || info.value_size > sizeof(buf) || info.max_entries < 1)
		return -EPROTO;
	if (bpf_map_lookup_elem(map_fd, &zero, buf))
		return -errno;
	memcpy(abi, buf, 4);
	return 0;
}

int fp_pipeline__open(const char *ifname, const char *bpffs, struct fp_pipeline **out,
		      char *err, size_t errlen)
{
	const char *root = fp_bpffs_root(bpffs);
	struct fp_pipeline *pl;
	__u32 abi = 0;
	int ret;

	if (!strcmp(ifname, "shared")) {
		snprintf(err, errlen, "%s/shared holds the pins of the shares (maps that "
			 "interfaces share, `filter load --share`), not of an interface", root);
		return -EINVAL;
	}
	pl = pl_new(root, ifname);
	if (!pl)
		return -ENOMEM;
	if (access(pl->dir, F_OK)) {
		char other[NAME_MAX + 1];

		ret = -errno;
		if (fp_errno_is_perm(ret)) {
			fp_perm_msg(err, errlen, "reading the pins", root);
		} else if (fp_pins_of_ifindex(root, if_nametoindex(ifname), other, sizeof(other))) {
			snprintf(err, errlen, "fastpath is not loaded under the name %s: its pins "
				 "are under %s/%s (the interface was renamed from %s): use that "
				 "name", ifname, root, other, other);
			ret = -ENOENT;
		} else {
			snprintf(err, errlen, "fastpath is not loaded on %s (no %s); "
				 "`fastpath pipeline load %s` or a stage's load (`fastpath "
				 "filter load %s`) first", ifname, pl->dir, ifname, ifname);
			ret = -ENOENT;
		}
		fp_pipeline__close(pl);
		return ret;
	}
	ret = get_pinned(pl->dir, "fp_meta", &pl->meta_fd);
	if (!ret && (ret = fp_read_abi(pl->meta_fd, &abi)) == 0 && abi != FP_ABI_VERSION) {
		snprintf(err, errlen, "the pipeline on %s was loaded by another fastpath version "
			 "(ABI %u, this one reads %u): nothing changed; reload it with "
			 "`fastpath pipeline unload %s --force && fastpath filter load %s` "
			 "(rules: `fastpath filter save` first, or `filter apply --load`)",
			 ifname, abi, FP_ABI_VERSION, ifname, ifname);
		fp_pipeline__close(pl);
		return -EPROTO;
	}
	if (!ret) ret = get_pinned(pl->dir, "fp_entry", &pl->entry_fd);
	if (!ret) ret = get_pinned(pl->dir, "fp_stages", &pl->stages_fd);
	if (!ret) ret = get_pinned(pl->dir, "fp_scratch", &pl->scratch_fd);
	if (!ret) ret = get_pinned(pl->dir, "fp_ctl", &pl->ctl_fd);
	if (!ret) ret = map_ctl(pl);
	if (fp_errno_is_perm(ret)) {
		fp_perm_msg(err, errlen, "reading the pins", root);
	} else if (ret) {
		snprintf(err, errlen, "the pins in %s are incomplete (%s); "
			 "`fastpath pipeline unload %s --force` and load again", pl->dir,
			 strerror(-ret), ifname);
	}
	if (ret) {
		fp_pipeline__close(pl);
		return ret;
	}
	*out = pl;
	return 0;
}

int fp_pipeline__open_or_load(const char *ifname, const struct fp_pipeline_opts *o,
			      struct fp_pipeline **out, bool *created, char *err, size_t errlen)
{
	struct fp_pipeline_opts a = o ? *o : (struct fp_pipeline_opts){ 0 };
	const char *root = fp_bpffs_root(a.bpffs);
	char dir[PATH_MAX];
	int ret;

	*created = false;
	snprintf(dir, sizeof(dir), "%s/%s", root, ifname);
	if (access(dir, F_OK) == 0)
		return fp_pipeline__open(ifname, a.bpffs, out, err, errlen);
	a.auto_load = true;
	ret = fp_pipeline__load(ifname, &a, out, err, errlen);
	if (ret == -EEXIST && access(dir, F_OK) == 0) /* another load won: use it */
		return fp_pipeline__open(ifname, a.bpffs, out, err, errlen);
	*created = ret == 0;
	return ret;
}

const char *fp_pipeline__ifname(const struct fp_pipeline *pl) { return pl->ifname; }
const char *fp_pipeline__root(const struct fp_pipeline *pl) { return pl->root; }
bool fp_pipeline__is_test(const struct fp_pipeline *pl) { return pl->test; }
int fp_pipeline__stages_fd(const struct fp_pipeline *pl) { return pl->stages_fd; }
int fp_pipeline__ctl_fd(const struct fp_pipeline *pl) { return pl->ctl_fd; }
int fp_pipeline__entry_fd(const struct fp_pipeline *pl) { return pl->entry_fd; }

int fp_pipeline__meta(const struct fp_pipeline *pl, struct fp_meta *meta)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(pl->meta_fd, &zero, meta) ? -errno : 0;
}

int fp_pipeline__stage_dir(const struct fp_pipeline *pl, const struct fp_stage_ops *s,
			   char *dir, size_t len)
{
	if (pl->test) {
		if (len)
			dir[0] = 0;
		return -ENOENT;
	}
	if (snprintf(dir, len, "%s/%s", pl->dir, s->name) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int fp_pipeline__reuse_maps(const struct fp_pipeline *pl, struct bpf_object *obj)
{
	static const char *const names[] = { "fp_stages", "fp_scratch", "fp_ctl" };
	int fds[] = { pl->stages_fd, pl->scratch_fd, pl->ctl_fd };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, names[i]);
		int ret;

		if (!m)
			continue;
		ret = bpf_map__reuse_fd(m, fds[i]);
		if (ret)
			return ret;
	}
	return 0;
}

int fp_pipeline__list(const char *root, char (*names)[64], int max)
{
	struct dirent *e;
	char path[PATH_MAX + NAME_MAX + 16];
	int n = 0;
	DIR *d = opendir(root);

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "shared"))
			continue;
		snprintf(path, sizeof(path), "%s/%s/fp_meta", root, e->d_name);
		if (access(path, F_OK))
			continue;
		if (n < max)
			snprintf(names[n], 64, "%s", e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

int fp_pipeline__keep(struct fp_pipeline *pl, const char *name, void *obj,
		      void (*destroy)(void *))
{
	for (int i = 0; i < FP_STAGE_MAX; i++) {
		if (pl->kept[i].obj)
			continue;
		pl->kept[i].name = name;
		pl->kept[i].obj = obj;
		pl->kept[i].destroy = destroy;
		return 0;
	}
	return -ENOSPC;
}

void *fp_pipeline__kept(const struct fp_pipeline *pl, const char *name)
{
	for (int i = 0; i < FP_STAGE_MAX; i++)
		if (pl->kept[i].obj && !strcmp(pl->kept[i].name, name))
			return pl->kept[i].obj;
	return NULL;
}
