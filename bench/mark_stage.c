// SPDX-License-Identifier: BSD-2-Clause
/*
 * mark_stage: plugs the tests' mark stage (tests/stage/mark.bpf.c) into the
 * pinned pipeline of IFACE at SLOT, giving ACTION to every packet that
 * reaches it, and exits; its pins (ROOT/IFACE/markN/) keep it there until
 * the pipeline is unloaded. The lab's tail-called stage for
 * bench/filter_rate.sh: pass, a no-op stage that hands the packet on; drop,
 * a sink that ends the chain without the network stack's cost.
 *
 *   build/bench/mark_stage [--bpffs ROOT] IFACE SLOT pass|drop
 *
 * Prints the stage's counters instead with --count (packets in, summed over
 * the CPUs). Needs root (BPF).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "pipeline/pipeline.h"
#include "stage/mark.h"
#include "mark.skel.h"

static struct fp_stage_ops ops = {
	.prog_pin = "fp_mark",
	.meta_pin = "mark_cnt",   /* it has no meta; `show` reads nothing from it */
};

static int usage(void)
{
	fprintf(stderr, "usage: mark_stage [--bpffs ROOT] [--count] IFACE SLOT pass|drop\n");
	return 2;
}

/* Packets the stage at SLOT saw, from its pinned counters. */
static int count(struct fp_pipeline *pl)
{
	int ncpu = libbpf_num_possible_cpus(), fd;
	struct mark_counts *all = calloc((size_t)ncpu, sizeof(*all));
	unsigned long long in = 0;
	__u32 zero = 0;

	if (!all || fp_pipeline__stage_pin(pl, &ops, "mark_cnt", &fd) ||
	    bpf_map_lookup_elem(fd, &zero, all)) {
		fprintf(stderr, "mark_stage: no %s stage on %s\n", ops.name,
			fp_pipeline__ifname(pl));
		return 1;
	}
	for (int c = 0; c < ncpu; c++)
		in += all[c].in;
	printf("%llu\n", in);
	free(all);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "bpffs", required_argument, NULL, 'b' },
		{ "count", no_argument, NULL, 'c' },
		{ 0 },
	};
	const char *bpffs = NULL, *ifname;
	struct fp_pipeline *pl = NULL;
	struct mark_bpf *m = NULL;
	char err[256] = "", name[16];
	unsigned long slot;
	bool counting = false;
	__u32 action;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'b': bpffs = optarg; break;
		case 'c': counting = true; break;
		default: return usage();
		}
	}
	if (argc - optind != 3)
		return usage();
	ifname = argv[optind];
	slot = strtoul(argv[optind + 1], NULL, 10);
	if (!strcmp(argv[optind + 2], "pass"))
		action = XDP_PASS;
	else if (!strcmp(argv[optind + 2], "drop"))
		action = XDP_DROP;
	else
		return usage();
	/* the filter's and the dump's slots are taken by their stages */
	if (slot <= FP_STAGE_FILTER || slot >= FP_STAGE_CHAIN) {
		fprintf(stderr, "mark_stage: SLOT %s: %d..%d\n", argv[optind + 1],
			FP_STAGE_FILTER + 1, FP_STAGE_CHAIN - 1);
		return 2;
	}
	snprintf(name, sizeof(name), "mark%lu", slot);
	ops.name = name;
	ops.slot = (unsigned)slot;
	libbpf_set_print(NULL);
	if (fp_stage_table__add(&ops)) {
		fprintf(stderr, "mark_stage: slot %lu is a built-in stage's\n", slot);
		return 2;
	}
	if (fp_pipeline__open(ifname, bpffs, &pl, err, sizeof(err))) {
		fprintf(stderr, "mark_stage: %s\n", err);
		return 1;
	}
	if (counting) {
		ret = count(pl);
		goto out;
	}
	m = mark_bpf__open();
	if (!m) {
		fprintf(stderr, "mark_stage: opening the mark object: %s\n", strerror(errno));
		goto out;
	}
	m->rodata->slot = (__u32)slot;
	m->data->action = action;
	if (fp_pipeline__reuse_maps(pl, m->obj) || mark_bpf__load(m)) {
		fprintf(stderr, "mark_stage: loading the mark object failed: %s\n", strerror(errno));
		goto out;
	}
	{
		struct fp_stage_pin pins[] = {
			{ "fp_mark", bpf_program__fd(m->progs.fp_mark) },
			{ "mark_cnt", bpf_map__fd(m->maps.mark_cnt) },
		};

		if (fp_pipeline__add_stage(pl, &ops, pins[0].fd, -1, -1, pins, 2, err,
					   sizeof(err))) {
			fprintf(stderr, "mark_stage: %s\n", err);
			goto out;
		}
	}
	ret = 0;
out:
	mark_bpf__destroy(m);
	fp_pipeline__close(pl);
	return ret;
}
