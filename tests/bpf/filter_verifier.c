// SPDX-License-Identifier: BSD-2-Clause
/*
 * The verifier's budget: a program is refused when checking it takes more
 * than 1,000,000 instructions, and the count moves with the kernel build
 * and with small changes in the code (an extra branch before the tuple
 * walk once took the staged filter from ~690,000 past the limit). Every
 * program fastpath loads must stay well inside it, so that growth shows up
 * here as a failed test instead of as a stage that does not load on
 * another machine.
 *
 * Each object is loaded from its skeleton as the pipeline loads it (the
 * entry's fp_stages, fp_scratch and fp_ctl handed to the stages), in its
 * largest configuration (test mode; the generator with every rewrite on),
 * and every program of it is measured: a program added to an object is
 * covered without a change here. The tests' mark stage is measured too:
 * it is the model a new stage starts from. The lb stage has no loop but
 * many paths (three encapsulations, ICMP both ways): it is watched too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <fastpath/abi.h>
#include "gen/gen.h"
#include "entry.skel.h"
#include "dump.skel.h"
#include "dump_exit.skel.h"
#include "filter.skel.h"
#include "gen.skel.h"
#include "mark.skel.h"
#include "lb.skel.h"

/* 80% of BPF_COMPLEXITY_LIMIT_INSNS */
#ifndef HEADROOM_LIMIT /* -DHEADROOM_LIMIT=N to see the check fail */
#define HEADROOM_LIMIT 800000u
#endif

static struct entry_bpf *entry;
static struct dump_bpf *dump;
static struct dump_exit_bpf *dump_exit;
static struct filter_bpf *filter;
static struct gen_bpf *gen;
static struct mark_bpf *mark;
static struct lb_bpf *lb;

/* The programs that must be there (a rename or a lost SEC shows here). */
static const char *const expected[] = {
	"fp_entry", "fp_dump", "fp_dump_tap", "fp_dump_exit", "fp_filter", "fp_entry_filter",
	"fp_gen", "fp_mark", "fp_lb",
};
#define N_EXPECTED (sizeof(expected) / sizeof(expected[0]))

/* Hands the maps of `from` that obj declares too (by name) to obj. */
static int reuse_maps(struct bpf_object *from, struct bpf_object *obj)
{
	struct bpf_map *m, *src;

	if (!from)
		return 0;
	bpf_object__for_each_map(m, obj) {
		src = bpf_object__find_map_by_name(from, bpf_map__name(m));
		if (src && bpf_map__fd(src) >= 0 && bpf_map__reuse_fd(m, bpf_map__fd(src)))
			return -1;
	}
	return 0;
}

/* Objects the verifier refused (libbpf printed its log above): the test
 * fails naming them, after measuring the others. */
static char refused[256];

/* Opens skel, runs the configuration `set`, hands it the entry's maps and
 * loads it; a refused object is destroyed, left NULL and named. */
#define LOAD(skel, name, set)                                                           \
	do {                                                                            \
		skel = name##_bpf__open();                                              \
		if (skel) {                                                             \
			set;                                                            \
			if (reuse_maps(entry ? entry->obj : NULL, skel->obj) ||         \
			    reuse_maps(dump ? dump->obj : NULL, skel->obj) ||           \
			    name##_bpf__load(skel)) {                                   \
				name##_bpf__destroy(skel);                              \
				skel = NULL;                                            \
			}                                                               \
		}                                                                       \
		if (!skel)                                                              \
			snprintf(refused + strlen(refused), sizeof(refused) - strlen(refused), \
				 " %s", #name);                                         \
	} while (0)

static int setup(void **state)
{
	if (geteuid() != 0)
		return 0;
	LOAD(entry, entry, (void)0);
	LOAD(dump, dump, dump->rodata->record_last = 1);
	/* the dump's exit watch, on the pipeline's fp_ctl and the dump's config */
	LOAD(dump_exit, dump_exit, (void)0);
	LOAD(filter, filter, filter->rodata->record_last = 1);
	LOAD(mark, mark, mark->rodata->slot = 5);
	/* the lb with a small connection table (its size changes no program) */
	LOAD(lb, lb, bpf_map__set_max_entries(lb->maps.lb_conns, 1024));
	/* the generator with both rewrites on: an IPv4 UDP DNS template */
	LOAD(gen, gen, ({
		gen->rodata->rand_src = 1;
		gen->rodata->rand_hostmask = 0xff;
		gen->rodata->l4_csum_off = 14 + 20 + 6;
		gen->rodata->l4_udp = 1;
		gen->rodata->rand_label = 1;
		gen->rodata->label_off = 14 + 20 + 8 + 12 + 1;
		gen->rodata->label_len = FP_GEN_LABEL_MAX;
	}));
	return 0;
}

static int teardown(void **state)
{
	lb_bpf__destroy(lb);
	gen_bpf__destroy(gen);
	dump_exit_bpf__destroy(dump_exit);
	mark_bpf__destroy(mark);
	filter_bpf__destroy(filter);
	dump_bpf__destroy(dump);
	entry_bpf__destroy(entry);
	return 0;
}

static unsigned verified_insns(int fd)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	assert_true(fd >= 0);
	assert_int_equal(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
	assert_true(info.verified_insns > 0); /* the kernel reports it (5.16+) */
	return info.verified_insns;
}

static void test_every_program_headroom(void **state)
{
	struct bpf_object *objs[] = { entry ? entry->obj : NULL, dump ? dump->obj : NULL,
				      dump_exit ? dump_exit->obj : NULL,
				      filter ? filter->obj : NULL, gen ? gen->obj : NULL,
				      mark ? mark->obj : NULL, lb ? lb->obj : NULL };
	unsigned seen = 0, over = 0, n = 0;
	struct bpf_program *p;

	if (geteuid() != 0)
		skip();
	for (unsigned o = 0; o < sizeof(objs) / sizeof(objs[0]); o++) {
		if (!objs[o])
			continue;
		bpf_object__for_each_program(p, objs[o]) {
			unsigned insns = verified_insns(bpf_program__fd(p));
			const char *name = bpf_program__name(p);

			fprintf(stderr, "# verified insns: %-16s %7u (limit %u)%s\n", name, insns,
				HEADROOM_LIMIT, insns < HEADROOM_LIMIT ? "" : "  OVER");
			over += insns >= HEADROOM_LIMIT;
			n++;
			for (unsigned i = 0; i < N_EXPECTED; i++)
				if (!strcmp(name, expected[i]))
					seen |= 1u << i;
		}
	}
	if (refused[0])
		fprintf(stderr, "# the verifier refused:%s (its log is above)\n", refused);
	for (unsigned i = 0; i < N_EXPECTED; i++)
		if (!(seen >> i & 1))
			fprintf(stderr, "# program %s not found in any object\n", expected[i]);
	if (over)
		fprintf(stderr, "# %u of %u programs past the verifier's headroom (%u insns)\n", over,
			n, HEADROOM_LIMIT);
	assert_false(refused[0]);
	assert_int_equal(seen, (1u << N_EXPECTED) - 1);
	assert_int_equal(over, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_program_headroom),
	};

	return cmocka_run_group_tests_name("filter_verifier", tests, setup, teardown);
}
