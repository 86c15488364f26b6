// SPDX-License-Identifier: BSD-2-Clause
/*
 * The decap stage as a stage of the pipeline: its entry in the stage
 * table, how its object is loaded onto a pipeline (with a list of
 * addresses; none for a test pipeline, whose tests fill decap_addrs
 * themselves), and its counters for `pipeline show`, `status`, `stats`
 * and the exporter.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "decap/decap.h"
#include "decap/decap_internal.h"
#include "decap.skel.h"

int fp_decap__read_counters(int cnt_fd, struct fp_counter *cnt)
{
	int ncpu = libbpf_num_possible_cpus();
	struct fp_counter *v;
	int ret = 0;

	memset(cnt, 0, sizeof(*cnt) * FP_DECAP_C_MAX);
	if (ncpu <= 0)
		return -EINVAL;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (__u32 c = 0; c < FP_DECAP_C_MAX && !ret; c++) {
		if (bpf_map_lookup_elem(cnt_fd, &c, v)) {
			ret = -errno;
			break;
		}
		for (int cpu = 0; cpu < ncpu; cpu++) {
			cnt[c].packets += v[cpu].packets;
			cnt[c].bytes += v[cpu].bytes;
		}
	}
	free(v);
	return ret;
}

/* decap_cnt: in = every packet the stage saw, out by the action taken. */
static int decap_counters(const char *dir, struct fp_stage_counts *c)
{
	struct fp_counter cnt[FP_DECAP_C_MAX];
	char path[PATH_MAX + 16];
	int fd, ret;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/decap_cnt", dir);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	ret = fp_decap__read_counters(fd, cnt);
	close(fd);
	if (ret)
		return ret;
	for (unsigned k = 0; k < FP_DECAP_C_MAX; k++) {
		c->in += cnt[k].packets;
		c->out[fp_decap_counter__action(k)] += cnt[k].packets;
	}
	c->have = true;
	return 0;
}

static void destroy_skel(void *p)
{
	decap_bpf__destroy(p);
}

int decap_load_object(struct fp_pipeline *pl, __u32 ifindex, const struct fp_decap_addr *addrs,
		      const __u32 *src, unsigned n, char *err, size_t errlen)
{
	struct fp_decap_meta meta = { .abi_version = FP_DECAP_ABI, .ifindex = ifindex };
	struct decap_bpf *skel = decap_bpf__open();
	struct timespec ts;
	__u32 zero = 0;
	int ret;

	if (!skel) {
		ret = -errno;
		snprintf(err, errlen, "opening the decap stage's object failed: %s", strerror(-ret));
		return ret;
	}
	ret = fp_pipeline__reuse_maps(pl, skel->obj);
	if (!ret)
		ret = decap_bpf__load(skel);
	if (ret) {
		snprintf(err, errlen, "loading the decap stage failed: %s (FASTPATH_DEBUG=1 shows "
			 "the verifier log)", strerror(-ret));
		goto out;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	meta.loaded_ns = (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.decap_meta), &zero, &meta, 0)) {
		ret = -errno;
		snprintf(err, errlen, "writing the decap stage's meta failed: %s", strerror(-ret));
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.decap_addrs), &addrs[i], &src[i],
					BPF_ANY)) {
			char a[64];

			ret = -errno;
			snprintf(err, errlen, "adding %s to the decap stage's addresses failed: %s",
				 fp_decap_addr__str(&addrs[i], a, sizeof(a)), strerror(-ret));
			goto out;
		}
	}
	{
		struct fp_stage_pin pins[] = {
			{ "fp_decap", bpf_program__fd(skel->progs.fp_decap) },
			{ "decap_meta", bpf_map__fd(skel->maps.decap_meta) },
			{ "decap_addrs", bpf_map__fd(skel->maps.decap_addrs) },
			{ "decap_cnt", bpf_map__fd(skel->maps.decap_cnt) },
		};

		ret = fp_pipeline__add_stage(pl, &fp_stage_decap, pins[0].fd, -1, -1, pins,
					     (int)(sizeof(pins) / sizeof(pins[0])), err, errlen);
	}
	/* pinned, the object lives on in the kernel; a test pipeline keeps it */
	if (!ret && fp_pipeline__is_test(pl))
		return fp_pipeline__keep(pl, "decap", skel, destroy_skel);
out:
	decap_bpf__destroy(skel);
	return ret;
}

/* A test pipeline's decap: no address (the tests add theirs). */
static int decap_stage_load(struct fp_pipeline *pl, char *err, size_t errlen)
{
	return decap_load_object(pl, 0, NULL, NULL, 0, err, errlen);
}

const struct fp_stage_ops fp_stage_decap = {
	.name = "decap",
	.slot = FP_STAGE_DECAP,
	.abi = FP_DECAP_ABI,
	.meta_pin = "decap_meta",
	.prog_pin = "fp_decap",
	.load_cmd = "fastpath decap load %s",
	.load = decap_stage_load,
	.counters = decap_counters,
};
