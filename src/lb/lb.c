// SPDX-License-Identifier: BSD-2-Clause
/*
 * Loading the lb stage onto an interface's pipeline (made first when there
 * is none, as the filter's load does; its unload then goes with the last
 * stage), opening it again, and the edit lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lb/lb_hc_user.h"
#include "lb/lb_internal.h"
#include "lb.skel.h"

const char *const fp_lb_map_names[LB_MAPS] = {
	"lb_meta", "lb_vips", "lb_tables", "lb_backends", "lb_conns", "lb_vip_stats",
	"lb_be_stats", "lb_counters", "lb_tx_ports", "lb_vip_index",
};

static struct fp_lb *lb_new(const char *ifname)
{
	struct fp_lb *lb = calloc(1, sizeof(*lb));

	if (!lb)
		return NULL;
	snprintf(lb->ifname, sizeof(lb->ifname), "%s", ifname);
	for (int i = 0; i < LB_MAPS; i++)
		lb->fd[i] = -1;
	lb->lock_fd = -1;
	return lb;
}

void fp_lb__close(struct fp_lb *lb)
{
	if (!lb)
		return;
	fp_lb__unlock(lb);
	for (int i = 0; i < LB_MAPS; i++)
		if (lb->fd[i] >= 0)
			close(lb->fd[i]);
	fp_pipeline__close(lb->pl);
	free(lb);
}

/* The meta of a load: the outer source ranges (options or defaults). */
static int make_meta(const struct fp_lb_load_opts *o, struct fp_lb_meta *m, char *err,
		     size_t errlen)
{
	__u8 a4[16], a6[16];
	struct timespec ts;
	int ret;

	memset(m, 0, sizeof(*m));
	m->abi_version = FP_LB_ABI;
	m->conns = o && o->conns ? o->conns : FP_LB_CONNS_DEFAULT;
	if (m->conns < FP_LB_CONNS_MIN || m->conns > FP_LB_CONNS_MAX) {
		snprintf(err, errlen, "--conns %u: give %u..%u connection-table entries", m->conns,
			 FP_LB_CONNS_MIN, FP_LB_CONNS_MAX);
		return -ERANGE;
	}
	/* FP_LB_WAYS times a power of two of buckets: rounded up */
	while (m->conns & (m->conns - 1))
		m->conns = (m->conns | (m->conns - 1)) + 1;
	ret = fp_lb_parse_prefix(o && o->src4 ? o->src4 : FP_LB_SRC4_DEFAULT, 4, a4,
				 &m->src4_len, err, errlen);
	if (!ret)
		ret = fp_lb_parse_prefix(o && o->src6 ? o->src6 : FP_LB_SRC6_DEFAULT, 6, a6,
					 &m->src6_len, err, errlen);
	if (ret)
		return ret;
	memcpy(&m->src4, a4, 4); /* network byte order */
	memcpy(m->src6, a6, 16);
	m->flags = FP_LB_META_SRC4 | FP_LB_META_SRC6;
	clock_gettime(CLOCK_REALTIME, &ts);
	m->loaded_ns = (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	return 0;
}

int fp_lb__load(const char *ifname, const struct fp_lb_load_opts *o, char *err, size_t errlen)
{
	const char *root = fp_bpffs_root(o ? o->bpffs : NULL);
	struct fp_pipeline_opts po = { .bpffs = o ? o->bpffs : NULL,
				       .skb_mode = o && o->skb_mode };
	struct fp_stage_pin pins[LB_MAPS + 1];
	struct fp_pipeline *pl = NULL;
	struct lb_bpf *skel = NULL;
	struct fp_lb_meta meta;
	char dir[PATH_MAX];
	bool created = false;
	__u32 zero = 0;
	int ret;

	ret = make_meta(o, &meta, err, errlen);
	if (ret)
		return ret;
	if (!if_nametoindex(ifname)) {
		snprintf(err, errlen, "no interface '%s' (see `ip link`)", ifname);
		return -ENODEV;
	}
	snprintf(dir, sizeof(dir), "%s/%s/%s", root, ifname, fp_stage_lb.name);
	if (access(dir, F_OK) == 0) {
		snprintf(err, errlen, "fastpath's lb is already loaded on %s (pins in %s); "
			 "`fastpath lb unload %s` first", ifname, dir, ifname);
		return -EEXIST;
	}
	ret = fp_pipeline__open_or_load(ifname, &po, &pl, &created, err, errlen);
	if (ret)
		return ret;
	skel = lb_bpf__open();
	if (!skel) {
		ret = -errno;
		snprintf(err, errlen, "opening the lb object failed: %s", strerror(-ret));
		goto out;
	}
	ret = bpf_map__set_max_entries(skel->maps.lb_conns, meta.conns / FP_LB_WAYS);
	if (!ret)
		ret = fp_pipeline__reuse_maps(pl, skel->obj);
	if (!ret)
		ret = lb_bpf__load(skel);
	if (ret) {
		snprintf(err, errlen, "loading the lb stage failed: %s (FASTPATH_DEBUG=1 shows "
			 "the verifier log)", strerror(-ret));
		goto out;
	}
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.lb_meta), &zero, &meta, 0)) {
		ret = -errno;
		snprintf(err, errlen, "writing lb_meta failed: %s", strerror(-ret));
		goto out;
	}
	pins[0] = (struct fp_stage_pin){ "fp_lb", bpf_program__fd(skel->progs.fp_lb) };
	for (int i = 0; i < LB_MAPS; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(skel->obj, fp_lb_map_names[i]);

		pins[i + 1] = (struct fp_stage_pin){ fp_lb_map_names[i], m ? bpf_map__fd(m) : -1 };
	}
	ret = fp_pipeline__lock(pl, err, errlen);
	if (!ret)
		ret = fp_pipeline__add_stage(pl, &fp_stage_lb, pins[0].fd, -1, -1, pins,
					     LB_MAPS + 1, err, errlen);
	fp_pipeline__unlock(pl);
out:
	lb_bpf__destroy(skel); /* pinned (or failed): the fds may go */
	fp_pipeline__close(pl);
	if (ret && created)
		fp_pipeline__unload_if_empty(ifname, po.bpffs);
	return ret;
}

int fp_lb__unload(const char *ifname, const char *bpffs, struct fp_unload_report *r,
		  char *err, size_t errlen)
{
	bool gone = false;
	char dir[PATH_MAX];
	int ret;

	/* a health checker's encapsulating tc program and probe routing */
	snprintf(dir, sizeof(dir), "%s/%s/%s", fp_bpffs_root(bpffs), ifname, fp_stage_lb.name);
	fp_lb_hc_down(ifname, dir);
	ret = fp_pipeline__remove_stage(ifname, bpffs, &fp_stage_lb, &gone, r, err, errlen);
	if (ret == -ENOENT) /* not "load it first", as the pipeline's message says */
		snprintf(err, errlen, "the lb is not loaded on %s: nothing to unload (`fastpath "
			 "status` shows what is loaded where)", ifname);
	return ret;
}

int fp_lb__open(const char *ifname, const char *bpffs, struct fp_lb **out, char *err,
		size_t errlen)
{
	struct fp_lb *lb = lb_new(ifname);
	__u32 abi = 0;
	int ret;

	if (!lb)
		return -ENOMEM;
	ret = fp_pipeline__open(ifname, bpffs, &lb->pl, err, errlen);
	if (ret == -ENOENT || (!ret && !fp_pipeline__has_stage(lb->pl, &fp_stage_lb))) {
		snprintf(err, errlen, "the lb is not loaded on %s; `fastpath lb load %s` first",
			 ifname, ifname);
		ret = -ENOENT;
	}
	if (ret)
		goto fail;
	fp_pipeline__stage_dir(lb->pl, &fp_stage_lb, lb->dir, sizeof(lb->dir));
	for (int i = 0; i < LB_MAPS && !ret; i++)
		ret = fp_pipeline__stage_pin(lb->pl, &fp_stage_lb, fp_lb_map_names[i], &lb->fd[i]);
	if (ret) {
		snprintf(err, errlen, "the lb's pins on %s are incomplete (%s); `fastpath lb "
			 "unload %s` and load again", ifname, strerror(-ret), ifname);
		/* not -ENOENT, which callers read as "no lb here" */
		if (ret == -ENOENT)
			ret = -EUCLEAN;
		goto fail;
	}
	ret = fp_read_abi(lb->fd[LB_META], &abi);
	if (!ret && abi != FP_LB_ABI) {
		snprintf(err, errlen, "the lb on %s was loaded by another fastpath version (lb "
			 "ABI %u, this one reads %u): nothing changed; `fastpath lb unload %s` and "
			 "load it again", ifname, abi, FP_LB_ABI, ifname);
		ret = -EPROTO;
	}
	if (ret)
		goto fail;
	*out = lb;
	return 0;
fail:
	fp_lb__close(lb);
	return ret;
}

int fp_lb__meta(const struct fp_lb *lb, struct fp_lb_meta *m)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(lb->fd[LB_META], &zero, m) ? -errno : 0;
}

int fp_lb__lock(struct fp_lb *lb, char *err, size_t errlen)
{
	int fd = open(lb->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || flock(fd, LOCK_EX)) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "cannot lock %s: %s", lb->dir, strerror(e));
		return -e;
	}
	lb->lock_fd = fd;
	return 0;
}

void fp_lb__unlock(struct fp_lb *lb)
{
	if (lb->lock_fd >= 0)
		close(lb->lock_fd);
	lb->lock_fd = -1;
}
