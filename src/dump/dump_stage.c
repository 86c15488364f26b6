// SPDX-License-Identifier: BSD-2-Clause
/*
 * The dump as a stage of the pipeline (its entry in the stage table):
 * loaded with every pipeline, it owns the ring, the dump's config and
 * sample counters, the slot-0 marker (filled only while a `dump --match`
 * runs) and the tap every stage offers its decisions to.
 * Pins: ROOT/IFACE/dump/{fp_dump, fp_dump_tap, fp_ring, fp_smp_stats,
 * fp_dump_cfg, fp_smp_buf, fp_dump_meta}.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "pipeline/pipeline.h"
#include "dump/dump.h"
#include "dump.skel.h"

/* Loaded objects stay alive through their pins (or, in a test pipeline,
 * for the process): the skeleton is kept, never destroyed here. */
static int dump_stage_load(struct fp_pipeline *pl, char *err, size_t errlen)
{
	struct fp_dump_meta meta = { .abi_version = FP_DUMP_ABI };
	struct dump_bpf *skel = dump_bpf__open();
	struct timespec ts;
	__u32 zero = 0;
	int ret;

	if (!skel)
		return -errno;
	skel->rodata->record_last = fp_pipeline__is_test(pl);
	ret = fp_pipeline__reuse_maps(pl, skel->obj);
	if (!ret)
		ret = dump_bpf__load(skel);
	if (ret) {
		snprintf(err, errlen, "loading the dump stage failed: %s (FASTPATH_DEBUG=1 shows "
			 "the verifier log)", strerror(-ret));
		dump_bpf__destroy(skel);
		return ret;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	meta.loaded_ns = (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	bpf_map_update_elem(bpf_map__fd(skel->maps.fp_dump_meta), &zero, &meta, 0);
	{
		struct fp_stage_pin pins[] = {
			{ "fp_dump", bpf_program__fd(skel->progs.fp_dump) },
			{ "fp_dump_tap", bpf_program__fd(skel->progs.fp_dump_tap) },
			{ "fp_ring", bpf_map__fd(skel->maps.fp_ring) },
			{ "fp_smp_stats", bpf_map__fd(skel->maps.fp_smp_stats) },
			{ "fp_dump_cfg", bpf_map__fd(skel->maps.fp_dump_cfg) },
			{ "fp_smp_buf", bpf_map__fd(skel->maps.fp_smp_buf) },
			{ "fp_dump_meta", bpf_map__fd(skel->maps.fp_dump_meta) },
		};

		ret = fp_pipeline__add_stage(pl, &fp_stage_dump, pins[0].fd, pins[1].fd, -1, pins,
					     (int)(sizeof(pins) / sizeof(pins[0])), err, errlen);
	}
	if (!ret && fp_pipeline__is_test(pl))
		ret = fp_pipeline__keep(pl, "dump", skel, (void (*)(void *))dump_bpf__destroy);
	else
		dump_bpf__destroy(skel); /* pinned (or failed): the fds may go */
	return ret;
}

int fp_dump_stage__fds(struct fp_pipeline *pl, struct fp_dump_fds *d, char *err, size_t errlen)
{
	struct dump_bpf *skel = fp_pipeline__kept(pl, "dump");
	static const char *const names[] = { "fp_dump", "fp_ring", "fp_smp_stats",
					     "fp_dump_cfg" };
	int *fds[] = { &d->prog_fd, &d->ring_fd, &d->smp_fd, &d->cfg_fd };
	int ret = 0;

	for (size_t i = 0; i < 4; i++)
		*fds[i] = -1;
	if (skel) {
		d->prog_fd = dup(bpf_program__fd(skel->progs.fp_dump));
		d->ring_fd = dup(bpf_map__fd(skel->maps.fp_ring));
		d->smp_fd = dup(bpf_map__fd(skel->maps.fp_smp_stats));
		d->cfg_fd = dup(bpf_map__fd(skel->maps.fp_dump_cfg));
		return 0;
	}
	{
		/* never write a map of another layout: the meta's ABI first */
		int mfd;
		__u32 abi = 0;

		ret = fp_pipeline__stage_pin(pl, &fp_stage_dump, "fp_dump_meta", &mfd);
		if (!ret) {
			ret = fp_read_abi(mfd, &abi);
			close(mfd);
		}
		if (!ret && abi != FP_DUMP_ABI) {
			snprintf(err, errlen, "the dump stage on %s was loaded by another fastpath "
				 "version (dump ABI %u, this one reads %u): nothing changed; reload "
				 "the pipeline (`fastpath pipeline unload %s`, then load again)",
				 fp_pipeline__ifname(pl), abi, FP_DUMP_ABI, fp_pipeline__ifname(pl));
			return -EPROTO;
		}
	}
	for (size_t i = 0; i < 4 && !ret; i++)
		ret = fp_pipeline__stage_pin(pl, &fp_stage_dump, names[i], fds[i]);
	if (ret) {
		snprintf(err, errlen, "the dump stage's pins on %s are missing (%s): "
			 "`fastpath pipeline unload %s` and load again", fp_pipeline__ifname(pl),
			 strerror(-ret), fp_pipeline__ifname(pl));
		fp_dump_fds__close(d);
	}
	return ret;
}

void fp_dump_fds__close(struct fp_dump_fds *d)
{
	int *fds[] = { &d->prog_fd, &d->ring_fd, &d->smp_fd, &d->cfg_fd };

	for (size_t i = 0; i < 4; i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* The samples taken and lost, as "in" (offered and wanted) and "out" (in the ring). */
static int dump_stage_counters(const char *dir, struct fp_stage_counts *c)
{
	(void)dir;
	(void)c;
	return 0; /* the dump decides nothing: no packets in or out */
}

const struct fp_stage_ops fp_stage_dump = {
	.name = "dump",
	.slot = FP_STAGE_DUMP,
	.tap = true,
	.abi = FP_DUMP_ABI,
	.meta_pin = "fp_dump_meta",
	.prog_pin = "fp_dump",
	.tap_pin = "fp_dump_tap",
	.load_cmd = "fastpath pipeline load %s",
	.pipeline_loads = true,
	.load = dump_stage_load,
	.counters = dump_stage_counters,
};
