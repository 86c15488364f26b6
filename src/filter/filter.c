// SPDX-License-Identifier: BSD-2-Clause
/*
 * Loading the filter stage onto an interface's pipeline (made first when
 * there is none) and opening it again. Its pins, under ROOT/IFACE/filter
 * (mode 0700 dir, 0600 pins): the programs fp_filter (the slot's) and
 * fp_entry_filter (its fused entry: parse and filter in one, attached in
 * place of fp_entry), and every map by its name.
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
#include "dump/dump.h"
#include "filter.skel.h"

const char *const fp_gen_map_names[GM_MAX] = {
	"fp_flt_gcfg", "fp_flt_cls", "fp_flt_keys", "fp_flt_addr",
	"fp_flt_qname", "fp_flt_rules", "fp_flt_cnt", "fp_flt_text",
	"fp_flt_cmask", "fp_flt_pre", "fp_flt_qnames", "fp_flt_cnt_base",
	"fp_flt_abloom",
};

/* Entries of one generation in each rule map (the flat tables' from bits). */
static void set_gen_sizes(struct fp_filter *f, unsigned bits)
{
	static const __u32 fixed[GM_MAX] = {
		1, FP_CLS_ENTRIES, 0, 0, FP_QN_GEN_SLOTS, FP_MAX_RULES, FP_FLT_CNT_ENTRIES,
		FP_MAX_RULES, FP_CM_ENTRIES, FP_PRE_ENTRIES, FP_CM_QNAME_N, FP_FLT_CNT_ENTRIES,
		FP_ABLOOM_WORDS,
	};

	memcpy(f->gen_n, fixed, sizeof(fixed));
	f->flat_bits = bits;
	f->gen_n[GM_KEYS] = f->gen_n[GM_ADDR] = 1u << bits;
}

static struct fp_filter *filter_new(void)
{
	struct fp_filter *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->fused_fd = f->filter_fd = f->fmeta_fd = f->state_fd = f->stats_fd = -1;
	f->lim_fd = f->last_fd = f->smp_fd = -1;
	for (int i = 0; i < GM_MAX; i++)
		f->gen_fd[i] = -1;
	return f;
}

void fp_filter__close(struct fp_filter *f)
{
	if (!f)
		return;
	if (f->smp_fd >= 0)
		close(f->smp_fd);
	if (f->filter_skel) {
		filter_bpf__destroy(f->filter_skel);
	} else {
		int fds[] = { f->fused_fd, f->filter_fd, f->fmeta_fd, f->state_fd, f->stats_fd,
			      f->lim_fd, f->last_fd };

		for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
			if (fds[i] >= 0)
				close(fds[i]);
		for (int i = 0; i < GM_MAX; i++)
			if (f->gen_fd[i] >= 0)
				close(f->gen_fd[i]);
	}
	fp_pipeline__close(f->pl);
	free(f);
}

struct fp_pipeline *fp_filter__pipeline(const struct fp_filter *f)
{
	return f->pl;
}

/* The dump stage's sample counters, for the view (-1: no dump stage). */
static void open_smp(struct fp_filter *f)
{
	struct fp_dump_fds d;
	char err[256];

	if (fp_dump_stage__fds(f->pl, &d, err, sizeof(err)))
		return;
	f->smp_fd = d.smp_fd;
	d.smp_fd = -1;
	fp_dump_fds__close(&d);
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

/* Loads the filter object against pl's maps (a share's rule maps too when
 * share_fds is not NULL) and notes its fds. */
static int load_object(struct fp_filter *f, bool test_mode, unsigned bits,
		       const int *share_fds, char *err, size_t errlen)
{
	int ret;

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
		ret = fp_pipeline__reuse_maps(f->pl, f->filter_skel->obj);
	if (!ret)
		ret = reuse_share(f->filter_skel->obj, share_fds);
	if (!ret)
		ret = filter_bpf__load(f->filter_skel);
	if (ret) {
		snprintf(err, errlen, "loading the filter stage failed: %s (FASTPATH_DEBUG=1 "
			 "shows the verifier log)", strerror(-ret));
		return ret;
	}
	f->fused_fd = bpf_program__fd(f->filter_skel->progs.fp_entry_filter);
	f->filter_fd = bpf_program__fd(f->filter_skel->progs.fp_filter);
	f->fmeta_fd = bpf_map__fd(f->filter_skel->maps.fp_flt_meta);
	f->state_fd = bpf_map__fd(f->filter_skel->maps.fp_flt_state);
	f->stats_fd = bpf_map__fd(f->filter_skel->maps.fp_flt_stats);
	f->lim_fd = bpf_map__fd(f->filter_skel->maps.fp_flt_lim);
	f->last_fd = bpf_map__fd(f->filter_skel->maps.fp_flt_last);
	for (int i = 0; i < GM_MAX; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(f->filter_skel->obj,
								 fp_gen_map_names[i]);
		f->gen_fd[i] = m ? bpf_map__fd(m) : -1;
	}
	return 0;
}

/* Every pin of the filter's directory: name -> fd. */
static int pin_list(struct fp_filter *f, struct fp_stage_pin *p)
{
	int n = 0;

	p[n++] = (struct fp_stage_pin){ "fp_filter", f->filter_fd };
	p[n++] = (struct fp_stage_pin){ "fp_entry_filter", f->fused_fd };
	p[n++] = (struct fp_stage_pin){ "fp_flt_meta", f->fmeta_fd };
	p[n++] = (struct fp_stage_pin){ "fp_flt_state", f->state_fd };
	p[n++] = (struct fp_stage_pin){ "fp_flt_stats", f->stats_fd };
	p[n++] = (struct fp_stage_pin){ "fp_flt_lim", f->lim_fd };
	p[n++] = (struct fp_stage_pin){ "fp_flt_last", f->last_fd };
	for (int i = 0; i < GM_MAX; i++)
		p[n++] = (struct fp_stage_pin){ fp_gen_map_names[i], f->gen_fd[i] };
	return n;
}

static void write_meta(struct fp_filter *f, unsigned bits, const char *share)
{
	struct fp_flt_meta meta = { .abi_version = FP_FILTER_ABI, .flat_bits = bits };
	struct timespec ts;
	__u32 zero = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	meta.loaded_ns = (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	if (share)
		snprintf(meta.share, sizeof(meta.share), "%s", share);
	bpf_map_update_elem(f->fmeta_fd, &zero, &meta, 0);
}

int fp_filter__open_test(struct fp_filter **out, char *err, size_t errlen)
{
	struct fp_filter *f = filter_new();
	struct fp_stage_pin pins[32];
	int ret;

	if (!f)
		return -ENOMEM;
	ret = fp_pipeline__open_test(&f->pl, err, errlen);
	if (!ret)
		ret = load_object(f, true, FP_FLAT_BITS_DEFAULT, NULL, err, errlen);
	if (!ret) {
		write_meta(f, FP_FLAT_BITS_DEFAULT, NULL);
		ret = fp_pipeline__add_stage(f->pl, &fp_stage_filter, f->filter_fd, -1,
					     f->fused_fd, pins, pin_list(f, pins), err, errlen);
	}
	if (ret) {
		fp_filter__close(f);
		return ret;
	}
	open_smp(f);
	*out = f;
	return 0;
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
static int share_prepare(struct fp_pipeline *pl, const char *root,
			 const struct fp_filter_load_opts *o, int *fds, unsigned *bits, char *err,
			 size_t errlen)
{
	unsigned sbits;
	int ret = fp_mkdirs(root);

	if (ret) {
		snprintf(err, errlen, "cannot create %s: %s (is a bpffs mounted at %s? "
			 "`mount -t bpf bpf /sys/fs/bpf`)", root, strerror(-ret), root);
		return ret;
	}
	ret = fp_pipeline__lock(pl, err, errlen);
	if (ret)
		return ret;
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
	struct fp_pipeline_opts po = { .bpffs = o ? o->bpffs : NULL,
				       .skb_mode = o && o->skb_mode };
	unsigned bits = o && o->table_bits ? o->table_bits : FP_FLAT_BITS_DEFAULT;
	struct fp_stage_pin pins[32];
	struct fp_filter *f = NULL;
	int sfds[FP_SHARE_MAPS];
	bool share_new = false, created = false;
	char dir[PATH_MAX];
	int ret;

	for (int i = 0; i < FP_SHARE_MAPS; i++)
		sfds[i] = -1;
	if (share && (ret = fp_share__check_name(share, err, errlen)))
		return ret;
	if (bits < FP_FLAT_MIN_BITS || bits > FP_FLAT_MAX_BITS) {
		snprintf(err, errlen, "--table-bits %u: give %d..%d", bits, FP_FLAT_MIN_BITS,
			 FP_FLAT_MAX_BITS);
		return -EINVAL;
	}
	if (!if_nametoindex(ifname)) {
		snprintf(err, errlen, "no interface '%s' (see `ip link`)", ifname);
		return -ENODEV;
	}
	if (fp_share__is_dir(root, ifname, err, errlen))
		return -EEXIST;
	/* the cheap refusal first, before the verifier's second of work */
	snprintf(dir, sizeof(dir), "%s/%s/%s", root, ifname, fp_stage_filter.name);
	if (access(dir, F_OK) == 0) {
		snprintf(err, errlen, "fastpath's filter is already loaded on %s (pins in %s); "
			 "`fastpath filter unload %s` first", ifname, dir, ifname);
		return -EEXIST;
	}
	f = filter_new();
	if (!f)
		return -ENOMEM;
	ret = fp_pipeline__open_or_load(ifname, &po, &f->pl, &created, err, errlen);
	if (ret)
		goto fail;
	if (share) {
		ret = share_prepare(f->pl, root, o, sfds, &bits, err, errlen);
		if (ret)
			goto fail;
		share_new = sfds[0] < 0;
	}
	ret = load_object(f, false, bits, share_new ? NULL : (share ? sfds : NULL), err, errlen);
	if (ret)
		goto fail;
	write_meta(f, bits, share);
	/* one load or unload of this root at a time, from the check that the
	 * stage's directory is absent until its entry is attached */
	ret = fp_pipeline__lock(f->pl, err, errlen); /* held already with --share */
	if (ret)
		goto fail;
	if (share_new) {
		int mine[FP_SHARE_MAPS];

		share_fds_of(f, mine);
		ret = fp_share__pin(mine, root, share, err, errlen);
		if (ret)
			goto fail;
	}
	ret = fp_pipeline__add_stage(f->pl, &fp_stage_filter, f->filter_fd, -1, f->fused_fd,
				     pins, pin_list(f, pins), err, errlen);
	if (ret && share_new)
		fp_share__remove(root, share);
	if (ret)
		goto fail;
	fp_pipeline__unlock(f->pl);
	fp_share__close(sfds);
	open_smp(f);
	*out = f;
	return 0;
fail:
	if (f && f->pl)
		fp_pipeline__unlock(f->pl);
	fp_share__close(sfds);
	fp_filter__close(f);
	/* the pipeline this load made goes with it, unless another load's
	 * stage is on it by now */
	if (created)
		fp_pipeline__unload_if_empty(ifname, po.bpffs);
	return ret;
}

int fp_filter__open(const char *ifname, const char *bpffs, struct fp_filter **out,
		    char *err, size_t errlen)
{
	const struct fp_stage_ops *s = &fp_stage_filter;
	struct fp_filter *f;
	struct fp_flt_meta meta;
	__u32 zero = 0, abi = 0;
	int ret;

	f = filter_new();
	if (!f)
		return -ENOMEM;
	ret = fp_pipeline__open(ifname, bpffs, &f->pl, err, errlen);
	if (ret)
		goto fail;
	if (!fp_pipeline__has_stage(f->pl, s)) {
		snprintf(err, errlen, "the filter is not loaded on %s (its pipeline is: `fastpath "
			 "pipeline show %s`); `fastpath filter load %s` first", ifname, ifname,
			 ifname);
		ret = -ENOENT;
		goto fail;
	}
	ret = fp_pipeline__stage_pin(f->pl, s, "fp_flt_meta", &f->fmeta_fd);
	if (!ret && !(ret = fp_read_abi(f->fmeta_fd, &abi)) && abi != FP_FILTER_ABI) {
		snprintf(err, errlen, "the filter on %s was loaded by another fastpath version "
			 "(filter ABI %u, this one reads %u): nothing changed; reload it with "
			 "`fastpath filter save %s FILE && fastpath filter unload %s && fastpath "
			 "filter apply --load %s FILE`", ifname, abi, FP_FILTER_ABI, ifname, ifname,
			 ifname);
		ret = -EPROTO;
		goto fail;
	}
	if (!ret) ret = fp_pipeline__stage_pin(f->pl, s, "fp_filter", &f->filter_fd);
	if (!ret) ret = fp_pipeline__stage_pin(f->pl, s, "fp_entry_filter", &f->fused_fd);
	if (!ret) ret = fp_pipeline__stage_pin(f->pl, s, "fp_flt_state", &f->state_fd);
	if (!ret) ret = fp_pipeline__stage_pin(f->pl, s, "fp_flt_stats", &f->stats_fd);
	if (!ret) ret = fp_pipeline__stage_pin(f->pl, s, "fp_flt_lim", &f->lim_fd);
	if (!ret) ret = fp_pipeline__stage_pin(f->pl, s, "fp_flt_last", &f->last_fd);
	for (int i = 0; i < GM_MAX && !ret; i++)
		ret = fp_pipeline__stage_pin(f->pl, s, fp_gen_map_names[i], &f->gen_fd[i]);
	if (fp_errno_is_perm(ret)) {
		fp_perm_msg(err, errlen, "reading the pins", fp_pipeline__root(f->pl));
		goto fail;
	}
	if (ret) {
		snprintf(err, errlen, "the filter's pins on %s are incomplete (%s); "
			 "`fastpath filter unload %s` (or `fastpath pipeline unload %s --force`) "
			 "and load again", ifname, strerror(-ret), ifname, ifname);
		goto fail;
	}
	if (bpf_map_lookup_elem(f->fmeta_fd, &zero, &meta)) {
		ret = -errno;
		goto fail;
	}
	set_gen_sizes(f, meta.flat_bits);
	open_smp(f);
	*out = f;
	return 0;
fail:
	fp_filter__close(f);
	return ret;
}
