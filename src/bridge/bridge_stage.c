// SPDX-License-Identifier: BSD-2-Clause
/*
 * The bridge as a stage of the pipeline: its entry in the stage table,
 * its counters for `pipeline show`, `status` and the exporter, and what
 * its removal from a port does beyond its pins: the port leaves the
 * bridge's maps (port map, port info, host address, FDB entries behind
 * it), whether `bridge del` or `pipeline unload` removed it.
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

#include "bridge/bridge_internal.h"
#include "pipeline/pipeline.h"

/* What each counter means as a verdict (FP_BR_ST_MAX: not a verdict). */
static const __u8 stat_action[FP_BR_ST_MAX] = {
	[FP_BR_ST_IN] = FP_BR_ST_MAX,          [FP_BR_ST_FORWARD] = XDP_REDIRECT,
	[FP_BR_ST_FLOOD] = XDP_REDIRECT,       [FP_BR_ST_HOST] = XDP_PASS,
	[FP_BR_ST_NOT_MEMBER] = XDP_PASS,      [FP_BR_ST_NOT_ETH] = XDP_PASS,
	[FP_BR_ST_DROP_HAIRPIN] = XDP_DROP,    [FP_BR_ST_DROP_BAD_SRC] = XDP_DROP,
	[FP_BR_ST_DROP_NO_BRIDGE] = XDP_DROP,  [FP_BR_ST_LEARNED] = FP_BR_ST_MAX,
	[FP_BR_ST_MOVED] = FP_BR_ST_MAX,       [FP_BR_ST_AGED] = FP_BR_ST_MAX,
	[FP_BR_ST_DROP_VLAN] = XDP_DROP,
	/* dropped by the egress program: not a decision of this stage */
	[FP_BR_ST_DROP_VLAN_OUT] = FP_BR_ST_MAX,
	[FP_BR_ST_DROP_STORM] = XDP_DROP,
	[15 ... FP_BR_ST_MAX - 1] = FP_BR_ST_MAX,
};

static int bridge_counters(const char *dir, struct fp_stage_counts *c)
{
	int ncpu = libbpf_num_possible_cpus(), fd, ret = 0;
	char path[PATH_MAX + 16];
	struct fp_br_stats *v;
	__u32 zero = 0;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/fp_br_stats", dir);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	v = calloc(ncpu > 0 ? ncpu : 1, sizeof(*v));
	if (!v || ncpu <= 0)
		ret = -ENOMEM;
	else if (bpf_map_lookup_elem(fd, &zero, v))
		ret = -errno;
	for (int cpu = 0; !ret && cpu < ncpu; cpu++) {
		c->in += v[cpu].n[FP_BR_ST_IN];
		for (int i = 0; i < FP_BR_ST_MAX; i++)
			if (stat_action[i] < 5)
				c->out[stat_action[i]] += v[cpu].n[i];
	}
	c->have = ret == 0;
	free(v);
	close(fd);
	return ret;
}

/* Under the root lock, before the port's stage pins go: the port leaves
 * its bridge's maps. dir is ROOT/IFACE/bridge. */
static void bridge_unloading(const char *dir, struct fp_unload_report *r)
{
	char root[PATH_MAX], path[PATH_MAX + 16], *slash;
	struct fp_br_meta meta;
	struct fp_bridge *b;
	__u32 zero = 0, abi = 0;
	char err[256];
	int fd;

	(void)r;
	snprintf(path, sizeof(path), "%s/fp_br_meta", dir);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return;
	memset(&meta, 0, sizeof(meta));
	if (fp_read_abi(fd, &abi) || abi != FP_BRIDGE_ABI || bpf_map_lookup_elem(fd, &zero, &meta)) {
		close(fd);
		return;
	}
	close(fd);
	snprintf(root, sizeof(root), "%s", dir);
	for (int i = 0; i < 2; i++) { /* ROOT/IFACE/bridge -> ROOT */
		slash = strrchr(root, '/');
		if (!slash)
			return;
		*slash = 0;
	}
	meta.bridge[sizeof(meta.bridge) - 1] = 0;
	if (fp_bridge__open_root(root, meta.bridge, &b, err, sizeof(err)))
		return; /* the bridge is gone: nothing to leave */
	fp_bridge__forget_port(b, meta.ifindex);
	fp_bridge__close(b);
}

const struct fp_stage_ops fp_stage_bridge = {
	.name = "bridge",
	.slot = FP_STAGE_BRIDGE,
	.abi = FP_BRIDGE_ABI,
	.meta_pin = "fp_br_meta",
	.prog_pin = "fp_bridge",
	.load_cmd = "fastpath bridge add BRIDGE %s",
	.counters = bridge_counters,
	.unloading = bridge_unloading,
};
