// SPDX-License-Identifier: BSD-2-Clause
/*
 * The lb as a stage of the pipeline (its entry in the stage table): slot 2,
 * after dump and filter. Its pins, under ROOT/IFACE/lb (mode 0700 dir, 0600
 * pins): the program fp_lb and every map by its name (lb_abi.h). Its
 * counters for `pipeline show`, `status` and the exporter come from
 * lb_counters: every packet the stage saw counts once there by cause.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lb/lb_internal.h"

/* How a packet of each cause left the stage. */
static const __u8 cause_action[FP_LB_C_MAX] = {
	[FP_LB_C_FORWARD_TX] = XDP_TX,       [FP_LB_C_FORWARD_REDIRECT] = XDP_REDIRECT,
	[FP_LB_C_NOT_VIP] = XDP_PASS,        [FP_LB_C_FRAGMENT] = XDP_DROP,
	[FP_LB_C_MALFORMED] = XDP_DROP,      [FP_LB_C_NO_BACKEND] = XDP_DROP,
	[FP_LB_C_TOO_BIG] = XDP_TX,          [FP_LB_C_ICMP_FLOW] = XDP_TX,
	[FP_LB_C_TTL_EXPIRED] = XDP_TX,      [FP_LB_C_FIB_FAIL] = XDP_DROP,
	[FP_LB_C_NO_NEIGH] = XDP_PASS,       [FP_LB_C_NO_PORT] = XDP_DROP,
	[FP_LB_C_ERROR] = XDP_DROP,
};

int fp_lb_sum_counters(int fd, __u64 c[FP_LB_C_MAX])
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *v;

	memset(c, 0, FP_LB_C_MAX * sizeof(c[0]));
	if (ncpu <= 0)
		return -EINVAL;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (__u32 k = 0; k < FP_LB_C_MAX; k++) {
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		for (int cpu = 0; cpu < ncpu; cpu++)
			c[k] += v[cpu];
	}
	free(v);
	return 0;
}

static int lb_counters(const char *dir, struct fp_stage_counts *sc)
{
	char path[PATH_MAX + 16];
	__u64 c[FP_LB_C_MAX];
	int fd, ret;

	memset(sc, 0, sizeof(*sc));
	snprintf(path, sizeof(path), "%s/lb_counters", dir);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	ret = fp_lb_sum_counters(fd, c);
	close(fd);
	if (ret)
		return ret;
	for (unsigned k = 0; k < FP_LB_C_MAX; k++) {
		sc->in += c[k];
		sc->out[cause_action[k]] += c[k];
	}
	sc->have = true;
	return 0;
}

const struct fp_stage_ops fp_stage_lb = {
	.name = "lb",
	.slot = FP_STAGE_LB,
	.abi = FP_LB_ABI,
	.meta_pin = "lb_meta",
	.prog_pin = "fp_lb",
	.load_cmd = "fastpath lb load %s",
	.counters = lb_counters,
};
