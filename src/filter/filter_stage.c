// SPDX-License-Identifier: BSD-2-Clause
/*
 * The filter as a stage of the pipeline: its entry in the stage table,
 * its counters for `pipeline show`, what its removal does beyond its pins
 * (a share left without members goes), and the filter's view of the
 * attachment.
 */
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "filter/filter_internal.h"

/* fp_flt_stats summed over CPUs: in = every decision, out by verdict. */
static int filter_counters(const char *dir, struct fp_stage_counts *c)
{
	static const __u8 verdict[FP_FLT_ST_MAX] = {
		[FP_FLT_ST_RULE_PASS] = XDP_PASS,    [FP_FLT_ST_RULE_DROP] = XDP_DROP,
		[FP_FLT_ST_LIMIT_PASS] = XDP_PASS,   [FP_FLT_ST_LIMIT_DROP] = XDP_DROP,
		[FP_FLT_ST_DEFAULT_PASS] = XDP_PASS, [FP_FLT_ST_DEFAULT_DROP] = XDP_DROP,
		[FP_FLT_ST_NO_RULES] = XDP_PASS,
	};
	int ncpu = libbpf_num_possible_cpus(), fd;
	char path[PATH_MAX + 16];
	struct fp_counter *v;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/fp_flt_stats", dir);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	v = calloc(ncpu > 0 ? ncpu : 1, sizeof(*v));
	for (__u32 s = 0; v && ncpu > 0 && s < FP_FLT_ST_MAX; s++) {
		if (bpf_map_lookup_elem(fd, &s, v))
			continue;
		for (int cpu = 0; cpu < ncpu; cpu++) {
			c->in += v[cpu].packets;
			c->out[verdict[s]] += v[cpu].packets;
		}
	}
	free(v);
	close(fd);
	c->have = true;
	return 0;
}

static void filter_unloading(const char *dir, struct fp_unload_report *r)
{
	char path[PATH_MAX + 16];
	struct fp_flt_meta meta;
	__u32 zero = 0, abi = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/fp_flt_meta", dir);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return;
	memset(&meta, 0, sizeof(meta));
	if (!fp_read_abi(fd, &abi) && abi == FP_FILTER_ABI && !bpf_map_lookup_elem(fd, &zero, &meta))
		snprintf(r->share, sizeof(r->share), "%.*s", FP_SHARE_NAME_MAX, meta.share);
	close(fd);
}

/* the share's own pins go with its last member (also a share whose
 * members went without it) */
static void filter_unloaded(const char *root, struct fp_unload_report *r)
{
	fp_share__gc(root, r->share_removed, sizeof(r->share_removed));
}

const struct fp_stage_ops fp_stage_filter = {
	.name = "filter",
	.slot = FP_STAGE_FILTER,
	.abi = FP_FILTER_ABI,
	.meta_pin = "fp_flt_meta",
	.prog_pin = "fp_filter",
	.fused_pin = "fp_entry_filter",
	.load_cmd = "fastpath filter load %s",
	.counters = filter_counters,
	.unloading = filter_unloading,
	.unloaded = filter_unloaded,
};

int fp_filter__entry_fd(const struct fp_filter *f)
{
	return fp_pipeline__attached_fd(f->pl);
}

int fp_filter__attachment(const struct fp_filter *f, struct fp_filter_attach *a)
{
	struct fp_pipeline_info info;
	int ret;

	memset(a, 0, sizeof(*a));
	ret = fp_pipeline__info(f->pl, &info);
	if (ret)
		return ret;
	a->ifindex = info.meta.ifindex;
	a->xdp_flags = info.meta.xdp_flags;
	snprintf(a->ifname, sizeof(a->ifname), "%s", info.ifname);
	a->attached_id = info.attached_id;
	/* ours: the plain entry or a stage's fused entry */
	a->prog_id = info.attached ? info.attached_id : info.entry_id;
	a->attached = info.attached;
	return 0;
}

int fp_filter__unload(const char *ifname, const char *bpffs, bool force,
		      struct fp_unload_report *r, char *err, size_t errlen)
{
	bool gone = false;
	int ret;

	if (force)
		return fp_pipeline__unload(ifname, bpffs, true, r, err, errlen);
	ret = fp_pipeline__remove_stage(ifname, bpffs, &fp_stage_filter, &gone, r, err, errlen);
	if (ret == 0 && gone && r && r->other_id) {
		snprintf(err, errlen, "%s has an XDP program that is not fastpath's (id %u), "
			 "left attached; fastpath's pins are removed", ifname, r->other_id);
		ret = 1;
	}
	return ret;
}

/* Removes every pin of a directory, then the directory: a share's, made
 * under the root lock, so everything in it is ours. */
void fp_unpin_dir(const char *dir)
{
	fp_unpin_tree(dir, NULL, NULL, 0);
}
