/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the tests that run frames through a chain of mark stages share
 * (tests/bpf/pipeline_*.c): the pipeline's maps set as its user side sets
 * them, this CPU's parse read back, the marks checked. Include after
 * <cmocka.h>; every helper fails the running test on error.
 */
#ifndef FP_TESTS_STAGE_MARK_UTIL_H
#define FP_TESTS_STAGE_MARK_UTIL_H

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fastpath/abi.h>
#include "stage/mark.h"

/* Keeps the process on the CPU it runs on (BPF_PROG_TEST_RUN runs there,
 * so the per-CPU parse it leaves is that CPU's). The CPU, or -1. */
static inline int chain_pin_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t one;

	if (cpu < 0)
		return -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) ? -1 : cpu;
}

/* Hands a stage's object (before its load) the pipeline's maps of the
 * loaded entry object `entry`, as the pipeline's loader does: fp_stages,
 * fp_scratch and fp_ctl, those of them the stage has. 0 or -1. */
static inline int chain_share_maps(struct bpf_object *obj, const struct bpf_object *entry)
{
	static const char *const names[] = { "fp_stages", "fp_scratch", "fp_ctl" };

	for (unsigned i = 0; i < 3; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, names[i]);
		const struct bpf_map *from = bpf_object__find_map_by_name(entry, names[i]);

		if (m && (!from || bpf_map__reuse_fd(m, bpf_map__fd(from))))
			return -1;
	}
	return 0;
}

static inline void chain_fill(int stages_fd, unsigned slot, int prog_fd)
{
	__u32 k = slot;

	assert_int_equal(bpf_map_update_elem(stages_fd, &k, &prog_fd, 0), 0);
}

/* Empties a slot (an empty one too). */
static inline void chain_empty(int stages_fd, unsigned slot)
{
	__u32 k = slot;
	int rc = bpf_map_delete_elem(stages_fd, &k);

	assert_true(rc == 0 || errno == ENOENT);
}

static inline void chain_set_ctl(int ctl_fd, __u32 enabled, __u32 dump)
{
	struct fp_ctl c = { .enabled = enabled, .dump = dump };
	__u32 zero = 0;

	assert_int_equal(bpf_map_update_elem(ctl_fd, &zero, &c, 0), 0);
}

/* Runs a frame through prog_fd on this CPU; its XDP action. */
static inline __u32 chain_run(int prog_fd, int cpu, const void *frame, size_t len)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame, .data_size_in = len, .repeat = 1);

	assert_int_equal(bpf_prog_test_run_opts(prog_fd, &o), 0);
	assert_int_equal(sched_getcpu(), cpu);
	return o.retval;
}

/* CPU cpu's parse of the last packet. */
static inline void chain_scratch(int scratch_fd, int cpu, struct fp_pkt *out)
{
	struct fp_pkt *all = calloc(libbpf_num_possible_cpus(), sizeof(*all));
	__u32 zero = 0;

	assert_non_null(all);
	assert_int_equal(bpf_map_lookup_elem(scratch_fd, &zero, all), 0);
	*out = all[cpu];
	free(all);
}

/* A mark stage's counters, summed over the CPUs. */
static inline struct mark_counts mark_counts_sum(int cnt_fd)
{
	int ncpus = libbpf_num_possible_cpus();
	struct mark_counts *all = calloc(ncpus, sizeof(*all)), sum = { 0 };
	__u32 zero = 0;

	assert_non_null(all);
	assert_int_equal(bpf_map_lookup_elem(cnt_fd, &zero, all), 0);
	for (int c = 0; c < ncpus; c++) {
		sum.in += all[c].in;
		for (int a = 0; a < MARK_ACTIONS; a++)
			sum.out[a] += all[c].out[a];
	}
	free(all);
	return sum;
}

/* The packet was marked by exactly the slots of `want`, in ascending
 * order (first visit: 1). */
static inline void assert_marks(const struct fp_pkt *p, __u32 want)
{
	unsigned order = 0;

	if (p->facts != want)
		fail_msg("facts 0x%02x, want 0x%02x", p->facts, want);
	for (unsigned s = 0; s < FP_STAGE_CHAIN; s++) {
		if (!(want >> s & 1))
			continue;
		order++;
		if (p->fact[s] != MARK_FACT(s, order))
			fail_msg("slot %u: fact 0x%08x (slot %u, visit %u), want visit %u", s,
				 p->fact[s], MARK_FACT_SLOT(p->fact[s]), MARK_FACT_ORDER(p->fact[s]),
				 order);
	}
}

#endif
