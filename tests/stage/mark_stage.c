// SPDX-License-Identifier: BSD-2-Clause
/*
 * The user half of the tests' mark stage (mark.bpf.c): its entry in the
 * stage table and how it loads. This is all a stage needs to plug into the
 * pipeline (docs/architecture.md, "Adding a stage"): load its object
 * against the pipeline's maps, hand its programs and pins to
 * fp_pipeline__add_stage, and say where `pipeline show` finds its ABI and
 * counters. Pins: ROOT/IFACE/mark/{fp_mark, mark_cnt, mark_meta}.
 *
 * The product has no mark stage: build/tests/fastpath-test is the CLI
 * linked with this file, whose constructor adds the stage to the table
 * (a product stage is one line in src/pipeline/stage_table.c instead).
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

#include "pipeline/pipeline.h"
#include "stage/mark.h"
#include "mark.skel.h"

extern const struct fp_stage_ops fp_stage_mark;

static int mark_load(struct fp_pipeline *pl, char *err, size_t errlen)
{
	struct mark_meta meta = { .abi_version = MARK_ABI, .slot = MARK_SLOT };
	struct mark_bpf *skel = mark_bpf__open();
	__u32 zero = 0;
	int ret;

	if (!skel)
		return -errno;
	skel->rodata->slot = MARK_SLOT; /* before load: the verifier sees a constant */
	skel->data->action = XDP_PASS;  /* on down the chain */
	ret = fp_pipeline__reuse_maps(pl, skel->obj);
	if (!ret)
		ret = mark_bpf__load(skel);
	if (!ret && bpf_map_update_elem(bpf_map__fd(skel->maps.mark_meta), &zero, &meta, 0))
		ret = -errno;
	if (ret) {
		snprintf(err, errlen, "loading the mark stage failed: %s", strerror(-ret));
		mark_bpf__destroy(skel);
		return ret;
	}
	{
		struct fp_stage_pin pins[] = {
			{ "fp_mark", bpf_program__fd(skel->progs.fp_mark) },
			{ "mark_cnt", bpf_map__fd(skel->maps.mark_cnt) },
			{ "mark_meta", bpf_map__fd(skel->maps.mark_meta) },
		};

		ret = fp_pipeline__add_stage(pl, &fp_stage_mark, pins[0].fd, -1, -1, pins,
					     (int)(sizeof(pins) / sizeof(pins[0])), err, errlen);
	}
	/* pinned, the object lives on in the kernel; a test pipeline keeps it */
	if (!ret && fp_pipeline__is_test(pl))
		return fp_pipeline__keep(pl, "mark", skel, (void (*)(void *))mark_bpf__destroy);
	mark_bpf__destroy(skel);
	return ret;
}

/* mark_cnt summed over the CPUs. */
static int mark_counters(const char *dir, struct fp_stage_counts *c)
{
	int ncpu = libbpf_num_possible_cpus(), fd;
	char path[PATH_MAX + 16];
	struct mark_counts *v;
	__u32 zero = 0;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	if (ncpu <= 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/mark_cnt", dir);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		ret = -ENOMEM;
	else if (bpf_map_lookup_elem(fd, &zero, v))
		ret = -errno;
	for (int cpu = 0; !ret && cpu < ncpu; cpu++) {
		c->in += v[cpu].in;
		for (int a = 0; a < MARK_ACTIONS; a++)
			c->out[a] += v[cpu].out[a];
	}
	c->have = ret == 0;
	free(v);
	close(fd);
	return ret;
}

const struct fp_stage_ops fp_stage_mark = {
	.name = "mark",
	.slot = MARK_SLOT,
	.abi = MARK_ABI,
	.meta_pin = "mark_meta",
	.prog_pin = "fp_mark",
	.load_cmd = "fastpath-test pipeline load %s",
	.pipeline_loads = true, /* `pipeline load` loads it with the dump */
	.load = mark_load,
	.counters = mark_counters,
};

__attribute__((constructor)) static void mark_register(void)
{
	int ret = fp_stage_table__add(&fp_stage_mark);

	if (ret) {
		fprintf(stderr, "fastpath-test: cannot add the mark stage: %s\n", strerror(-ret));
		exit(1);
	}
}
