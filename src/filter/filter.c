// SPDX-License-Identifier: BSD-2-Clause
/*
 * Loading, pinning, opening and unloading the pipeline of one interface.
 * Layout under ROOT/IFACE (mode 0700 dirs, 0600 pins): the programs fp_entry
 * (the attached one: fp_entry_filter, parse and filter in one) and fp_filter
 * (the stage slot's), and every map by its name.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "filter/filter_internal.h"
#include "util/verbose.h"
#include "entry.skel.h"
#include "filter.skel.h"
#include "dump.skel.h"

const char *const fp_gen_map_names[GM_MAX] = {
	"fp_flt_gcfg", "fp_flt_cls", "fp_flt_keys", "fp_flt_addr",
	"fp_flt_qname", "fp_flt_rules", "fp_flt_cnt", "fp_flt_text",
	"fp_flt_cmask", "fp_flt_pre", "fp_flt_qnames", "fp_flt_cnt_base",
};

/* Entries of one generation in each rule map (the flat tables' from bits). */
static void set_gen_sizes(struct fp_filter *f, unsigned bits)
{
	static const __u32 fixed[GM_MAX] = {
		1, FP_CLS_ENTRIES, 0, 0, FP_QN_GEN_SLOTS, FP_MAX_RULES, FP_FLT_CNT_ENTRIES,
		FP_MAX_RULES, FP_CM_ENTRIES, FP_PRE_ENTRIES, FP_CM_QNAME_N, FP_FLT_CNT_ENTRIES,
	};

	memcpy(f->gen_n, fixed, sizeof(fixed));
	f->flat_bits = bits;
	f->gen_n[GM_KEYS] = f->gen_n[GM_ADDR] = 1u << bits;
}

const char *fp_bpffs_root(const char *opt)
{
	const char *env = getenv("FASTPATH_BPFFS");

	if (opt && *opt)
		return opt;
	return env && *env ? env : "/sys/fs/bpf/fastpath";
}

static int silent_print(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	return fp_verbose__libbpf_print(l, fmt, ap); /* -v, -vv */
}

static void quiet_libbpf(void)
{
	libbpf_set_print(silent_print);
}

static struct fp_filter *filter_new(void)
{
	struct fp_filter *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->entry_fd = f->filter_fd = f->generic_entry_fd = f->stages_fd = f->meta_fd = -1;
	f->state_fd = f->stats_fd = f->lim_fd = f->last_fd = -1;
	f->dump_fd = f->ring_fd = f->smp_fd = f->dcfg_fd = -1;
	for (int i = 0; i < GM_MAX; i++)
		f->gen_fd[i] = -1;
	return f;
}

void fp_filter__close(struct fp_filter *f)
{
	if (!f)
		return;
	if (f->filter_skel || f->entry_skel) {
		dump_bpf__destroy(f->dump_skel);
		filter_bpf__destroy(f->filter_skel);
		entry_bpf__destroy(f->entry_skel);
	} else {
		int fds[] = { f->entry_fd, f->filter_fd, f->stages_fd, f->meta_fd, f->state_fd,
			      f->stats_fd, f->lim_fd, f->last_fd, f->dump_fd, f->ring_fd,
			      f->smp_fd, f->dcfg_fd };

		for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
			if (fds[i] >= 0)
				close(fds[i]);
		for (int i = 0; i < GM_MAX; i++)
			if (f->gen_fd[i] >= 0)
				close(f->gen_fd[i]);
	}
	free(f);
}

int fp_filter__entry_fd(const struct fp_filter *f)
{
	return f->entry_fd;
}

/* The maps every stage shares (bpf/lib/maps.h) come from the entry object. */
static int reuse_shared(struct bpf_object *from, struct bpf_object *to)
{
	static const char *const shared[] = {
		"fp_stages", "fp_scratch", "fp_ring", "fp_smp_stats", "fp_dump_cfg",
	};

	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		struct bpf_map *a = bpf_object__find_map_by_name(from, shared[i]);
		struct bpf_map *b = bpf_object__find_map_by_name(to, shared[i]);
		int ret;

		if (!a || !b)
			return -ENOENT;
		ret = bpf_map__reuse_fd(b, bpf_map__fd(a));
		if (ret)
			return ret;
	}
	return 0;
}

/* A share's maps (fp_share_map_names' order) instead of the filter's own. */
static int reuse_share(struct bpf_object *obj, const int *fds)
{
	for (int i = 0; fds && i < FP_SHARE_MAPS; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, fp_share_map_names[i]);
		int ret;

		if (!m)
			return -ENOENT;
		ret = bpf_map__reuse_fd(m, fds[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* Loads the objects (shared maps reused; a share's rule maps too when
 * share_fds is not NULL), fills the filter's stage slot. */
static int load_objects(struct fp_filter *f, bool test_mode, unsigned bits,
			const int *share_fds, char *err, size_t errlen)
{
	__u32 slot = FP_STAGE_FILTER;
	int ret;

	quiet_libbpf();
	f->entry_skel = entry_bpf__open_and_load();
	if (!f->entry_skel) {
		ret = -errno;
		snprintf(err, errlen, "loading the entry program failed: %s (run as root; "
			 "FASTPATH_DEBUG=1 shows the verifier log)", strerror(-ret));
		return ret;
	}
	f->filter_skel = filter_bpf__open();
	if (!f->filter_skel) {
		ret = -errno;
		snprintf(err, errlen, "opening the filter object failed: %s", strerror(-ret));
		return ret;
	}
	f->filter_skel->rodata->record_last = test_mode;
	f->filter_skel->rodata->flat_bits = bits;
	set_gen_sizes(f, bits);
	ret = bpf_map__set_max_entries(f->filter_skel->maps.fp_flt_keys, 2u << bits);
	if (!ret)
		ret = bpf_map__set_max_entries(f->filter_skel->maps.fp_flt_addr, 2u << bits);
	if (!ret)
		ret = reuse_shared(f->entry_skel->obj, f->filter_skel->obj);
	if (!ret)
		ret = reuse_share(f->filter_skel->obj, share_fds);
	if (!ret)
		ret = filter_bpf__load(f->filter_skel);
	if (ret) {
		snprintf(err, errlen, "loading the filter stage failed: %s (FASTPATH_DEBUG=1 "
			 "shows the verifier log)", strerror(-ret));
		return ret;
	}
	f->dump_skel = dump_bpf__open();
	if (!f->dump_skel)
		return -errno;
	f->dump_skel->rodata->record_last = test_mode;
	ret = reuse_shared(f->entry_skel->obj, f->dump_skel->obj);
	if (!ret)
		ret = dump_bpf__load(f->dump_skel);
	if (ret) {
		snprintf(err, errlen, "loading the dump stage failed: %s", strerror(-ret));
		return ret;
	}
	f->entry_fd = bpf_program__fd(f->filter_skel->progs.fp_entry_filter);
	f->generic_entry_fd = bpf_program__fd(f->entry_skel->progs.fp_entry);
	f->filter_fd = bpf_program__fd(f->filter_skel->progs.fp_filter);
	f->stages_fd = bpf_map__fd(f->entry_skel->maps.fp_stages);
	f->meta_fd = bpf_map__fd(f->entry_skel->maps.fp_meta);
	f->state_fd = bpf_map__fd(f->filter_skel->maps.fp_flt_state);
	f->stats_fd = bpf_map__fd(f->filter_skel->maps.fp_flt_stats);
	f->lim_fd = bpf_map__fd(f->filter_skel->maps.fp_flt_lim);
	f->last_fd = bpf_map__fd(f->filter_skel->maps.fp_flt_last);
	f->dump_fd = bpf_program__fd(f->dump_skel->progs.fp_dump);
	f->ring_fd = bpf_map__fd(f->entry_skel->maps.fp_ring);
	f->smp_fd = bpf_map__fd(f->entry_skel->maps.fp_smp_stats);
	f->dcfg_fd = bpf_map__fd(f->entry_skel->maps.fp_dump_cfg);
	for (int i = 0; i < GM_MAX; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(f->filter_skel->obj,
								 fp_gen_map_names[i]);
		f->gen_fd[i] = m ? bpf_map__fd(m) : -1;
	}
	ret = bpf_map_update_elem(f->stages_fd, &slot, &f->filter_fd, 0);
	if (ret) {
		ret = -errno;
		snprintf(err, errlen, "filling the filter stage slot failed: %s", strerror(-ret));
	}
	return ret;
}

int fp_filter__open_test(struct fp_filter **out, char *err, size_t errlen)
{
	struct fp_filter *f = filter_new();
	int ret;

	if (!f)
		return -ENOMEM;
	ret = load_objects(f, true, FP_FLAT_BITS_DEFAULT, NULL, err, errlen);
	if (ret) {
		fp_filter__close(f);
		return ret;
	}
	*out = f;
	return 0;
}

static int pin_dir(const char *root, const char *ifname, char *dir, size_t len)
{
	if (snprintf(dir, len, "%s/%s", root, ifname) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* Creates path and its missing parents, only inside a bpffs: when the
 * deepest directory that exists is on another file system, creates
 * nothing and returns -ENOTSUP (a --bpffs typo must leave no directory). */
static int mkdirs(const char *path)
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

/* Every object we pin: name -> fd. */
static int pin_list(struct fp_filter *f, const char **names, int *fds)
{
	int n = 0;

	names[n] = "fp_entry", fds[n++] = f->entry_fd;
	names[n] = "fp_filter", fds[n++] = f->filter_fd;
	names[n] = "fp_stages", fds[n++] = f->stages_fd;
	names[n] = "fp_scratch", fds[n++] = bpf_map__fd(f->entry_skel->maps.fp_scratch);
	names[n] = "fp_meta", fds[n++] = f->meta_fd;
	names[n] = "fp_flt_state", fds[n++] = f->state_fd;
	names[n] = "fp_flt_stats", fds[n++] = f->stats_fd;
	names[n] = "fp_flt_lim", fds[n++] = f->lim_fd;
	names[n] = "fp_flt_last", fds[n++] = f->last_fd;
	names[n] = "fp_flt_qh", fds[n++] = bpf_map__fd(f->filter_skel->maps.fp_flt_qh);
	names[n] = "fp_smp_buf", fds[n++] = bpf_map__fd(f->filter_skel->maps.fp_smp_buf);
	names[n] = "fp_dump", fds[n++] = f->dump_fd;
	names[n] = "fp_ring", fds[n++] = f->ring_fd;
	names[n] = "fp_smp_stats", fds[n++] = f->smp_fd;
	names[n] = "fp_dump_cfg", fds[n++] = f->dcfg_fd;
	for (int i = 0; i < GM_MAX; i++)
		names[n] = fp_gen_map_names[i], fds[n++] = f->gen_fd[i];
	return n;
}

/* Under the root lock: the pin directory made, everything pinned, attached. */
static int pin_and_attach(struct fp_filter *f, const char *root, const char *dir,
			  const char *ifname, unsigned ifindex, __u32 flags, char *err,
			  size_t errlen)
{
	char path[PATH_MAX];
	const char *names[32];
	int fds[32], n, ret;

	if (access(dir, F_OK) == 0) { /* a load that ran at the same time won */
		snprintf(err, errlen, "fastpath is already loaded on %s (pins in %s); "
			 "`fastpath filter unload %s` first", ifname, dir, ifname);
		return -EEXIST;
	}
	if (mkdir(dir, 0700)) {
		ret = -errno;
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(-ret));
		return ret;
	}
	n = pin_list(f, names, fds);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (bpf_obj_pin(fds[i], path)) {
			ret = -errno;
			snprintf(err, errlen, "pinning %s failed: %s (is %s on a bpffs?)", path,
				 strerror(-ret), root);
			goto fail;
		}
		chmod(path, 0600);
	}
	ret = bpf_xdp_attach(ifindex, f->entry_fd, flags | XDP_FLAGS_UPDATE_IF_NOEXIST, NULL);
	if (ret == -EBUSY || ret == -EEXIST) {
		fp_xdp_hint(ifindex, ifname, err, errlen);
		goto fail;
	}
	if (ret) {
		snprintf(err, errlen, "attaching to %s failed: %s (try --mode skb)", ifname,
			 strerror(-ret));
		goto fail;
	}
	return 0;
fail:
	fp_unpin_dir(dir); /* made under the lock: only ours is in it */
	return ret;
}

/* This load's share maps in fp_share_map_names' order. */
static void share_fds_of(const struct fp_filter *f, int *fds)
{
	for (int i = 0; i < GM_MAX; i++)
		fds[i] = f->gen_fd[i];
	fds[FP_SHARE_STATE] = f->state_fd;
	fds[FP_SHARE_LIM] = f->lim_fd;
}

/* With --share: the pin root made and locked before the objects are
 * loaded (the share's maps must be known then, and two first loads of
 * one share must not both create it); *fds the share's maps, or all -1
 * when this load creates it. Sets *bits from the share's. */
static int share_prepare(const char *root, const struct fp_filter_load_opts *o, int *lock,
			 int *fds, unsigned *bits, char *err, size_t errlen)
{
	unsigned sbits;
	int ret = mkdirs(root);

	if (ret) {
		snprintf(err, errlen, "cannot create %s: %s (is a bpffs mounted at %s? "
			 "`mount -t bpf bpf /sys/fs/bpf`)", root, strerror(-ret), root);
		return ret;
	}
	*lock = fp_root_lock(root, err, errlen);
	if (*lock < 0)
		return *lock;
	/* a share's pins without a member (a crash between): not a share */
	if (!fp_share__members(root, o->share))
		fp_share__remove(root, o->share);
	ret = fp_share__open(root, o->share, fds, &sbits, err, errlen);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	if (o->table_bits && o->table_bits != sbits) {
		snprintf(err, errlen, "--table-bits %u: the share %s has tables of 2^%u slots "
			 "(its first member's); drop --table-bits or give %u", o->table_bits,
			 o->share, sbits, sbits);
		fp_share__close(fds);
		return -EINVAL;
	}
	*bits = sbits;
	return 0;
}

int fp_filter__load(const char *ifname, const struct fp_filter_load_opts *o,
		    struct fp_filter **out, char *err, size_t errlen)
{
	const char *root = fp_bpffs_root(o ? o->bpffs : NULL);
	const char *share = o && o->share ? o->share : NULL;
	unsigned ifindex = if_nametoindex(ifname);
	__u32 flags = (o && o->skb_mode) ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE, zero = 0;
	struct fp_meta meta = { .abi_version = FP_ABI_VERSION };
	unsigned bits = o && o->table_bits ? o->table_bits : FP_FLAT_BITS_DEFAULT;
	struct fp_filter *f = NULL;
	int sfds[FP_SHARE_MAPS];
	bool share_new = false;
	char dir[PATH_MAX];
	struct timespec ts;
	int ret, lock = -1;

	for (int i = 0; i < FP_SHARE_MAPS; i++)
		sfds[i] = -1;
	if (share && (ret = fp_share__check_name(share, err, errlen)))
		return ret;
	if (bits < FP_FLAT_MIN_BITS || bits > FP_FLAT_MAX_BITS) {
		snprintf(err, errlen, "--table-bits %u: give %d..%d", bits, FP_FLAT_MIN_BITS,
			 FP_FLAT_MAX_BITS);
		return -EINVAL;
	}
	if (!ifindex) {
		snprintf(err, errlen, "no interface '%s' (see `ip link`)", ifname);
		return -ENODEV;
	}
	ret = pin_dir(root, ifname, dir, sizeof(dir));
	if (ret)
		return ret;
	/* the cheap refusals first, before the verifier's second of work */
	if (fp_share__is_dir(root, ifname, err, errlen))
		return -EEXIST;
	if (access(dir, F_OK) == 0) {
		snprintf(err, errlen, "fastpath is already loaded on %s (pins in %s); "
			 "`fastpath filter unload %s` first", ifname, dir, ifname);
		return -EEXIST;
	}
	if (fp_errno_is_perm(-errno)) {
		fp_perm_msg(err, errlen, "reading the pins", root);
		return -EACCES;
	}
	if (fp_xdp_busy(ifindex)) {
		fp_xdp_hint(ifindex, ifname, err, errlen);
		return -EEXIST;
	}
	if (share) {
		ret = share_prepare(root, o, &lock, sfds, &bits, err, errlen);
		if (ret)
			goto fail;
		share_new = sfds[0] < 0;
	}
	f = filter_new();
	if (!f) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = load_objects(f, false, bits, share_new ? NULL : (share ? sfds : NULL), err, errlen);
	if (ret)
		goto fail;
	meta.flat_bits = bits;
	clock_gettime(CLOCK_REALTIME, &ts);
	meta.ifindex = ifindex;
	meta.xdp_flags = flags;
	meta.loaded_ns = (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	if (share)
		snprintf(meta.share, sizeof(meta.share), "%s", share);
	bpf_map_update_elem(f->meta_fd, &zero, &meta, 0);

	if (lock < 0) {
		ret = mkdirs(root);
		if (ret) {
			snprintf(err, errlen, "cannot create %s: %s (is a bpffs mounted at %s? "
				 "`mount -t bpf bpf /sys/fs/bpf`)", root, strerror(-ret), root);
			goto fail;
		}
		/* one load or unload of this root at a time, from the check that
		 * the pin directory is absent until the program is attached: two
		 * loads at once used to pin over each other and leave a program
		 * with no pins */
		lock = fp_root_lock(root, err, errlen);
		if (lock < 0) {
			ret = lock;
			goto fail;
		}
	}
	if (share_new) {
		int mine[FP_SHARE_MAPS];

		share_fds_of(f, mine);
		ret = fp_share__pin(mine, root, share, err, errlen);
		if (ret)
			goto fail;
	}
	ret = pin_and_attach(f, root, dir, ifname, ifindex, flags, err, errlen);
	if (ret && share_new)
		fp_share__remove(root, share);
	if (ret)
		goto fail;
	close(lock);
	fp_share__close(sfds);
	*out = f;
	return 0;
fail:
	if (lock >= 0)
		close(lock);
	fp_share__close(sfds);
	fp_filter__close(f);
	return ret;
}

static int get_pinned(const char *dir, const char *name, int *fd)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	*fd = bpf_obj_get(path);
	return *fd < 0 ? -errno : 0;
}

int fp_filter__open(const char *ifname, const char *bpffs, struct fp_filter **out,
		    char *err, size_t errlen)
{
	const char *root = fp_bpffs_root(bpffs);
	struct fp_filter *f;
	struct fp_meta meta;
	char dir[PATH_MAX];
	__u32 zero = 0;
	int ret;

	quiet_libbpf();
	ret = pin_dir(root, ifname, dir, sizeof(dir));
	if (ret)
		return ret;
	if (access(dir, F_OK)) {
		char other[NAME_MAX + 1];

		if (fp_errno_is_perm(-errno)) {
			fp_perm_msg(err, errlen, "reading the pins", root);
			return -EACCES;
		}
		if (fp_pins_of_ifindex(root, if_nametoindex(ifname), other, sizeof(other)))
			snprintf(err, errlen, "fastpath's pins for %s are under its name at load, "
				 "%s (%s/%s): use that name", ifname, other, root, other);
		else
			snprintf(err, errlen, "fastpath is not loaded on %s (no %s); "
				 "`fastpath filter load %s` first", ifname, dir, ifname);
		return -ENOENT;
	}
	f = filter_new();
	if (!f)
		return -ENOMEM;
	ret = get_pinned(dir, "fp_entry", &f->entry_fd);
	if (!ret) ret = get_pinned(dir, "fp_filter", &f->filter_fd);
	if (!ret) ret = get_pinned(dir, "fp_stages", &f->stages_fd);
	if (!ret) ret = get_pinned(dir, "fp_meta", &f->meta_fd);
	if (!ret) ret = get_pinned(dir, "fp_flt_state", &f->state_fd);
	if (!ret) ret = get_pinned(dir, "fp_flt_stats", &f->stats_fd);
	if (!ret) ret = get_pinned(dir, "fp_flt_lim", &f->lim_fd);
	if (!ret) ret = get_pinned(dir, "fp_flt_last", &f->last_fd);
	if (!ret) ret = get_pinned(dir, "fp_dump", &f->dump_fd);
	if (!ret) ret = get_pinned(dir, "fp_ring", &f->ring_fd);
	if (!ret) ret = get_pinned(dir, "fp_smp_stats", &f->smp_fd);
	if (!ret) ret = get_pinned(dir, "fp_dump_cfg", &f->dcfg_fd);
	for (int i = 0; i < GM_MAX && !ret; i++)
		ret = get_pinned(dir, fp_gen_map_names[i], &f->gen_fd[i]);
	if (fp_errno_is_perm(ret)) {
		fp_perm_msg(err, errlen, "reading the pins", root);
		goto fail;
	}
	if (ret) {
		snprintf(err, errlen, "the pins in %s are incomplete (%s); "
			 "`fastpath filter unload %s --force` and load again", dir,
			 strerror(-ret), ifname);
		goto fail;
	}
	if (bpf_map_lookup_elem(f->meta_fd, &zero, &meta) || meta.abi_version != FP_ABI_VERSION) {
		snprintf(err, errlen, "the pins in %s were made by another fastpath version "
			 "(ABI %u, this is %u); unload and load again", dir, meta.abi_version,
			 FP_ABI_VERSION);
		ret = -EPROTO;
		goto fail;
	}
	set_gen_sizes(f, meta.flat_bits);
	*out = f;
	return 0;
fail:
	fp_filter__close(f);
	return ret;
}
