// SPDX-License-Identifier: BSD-2-Clause
/*
 * A stage's fused entry (fp_entry_filter: the parse and the filter in one
 * program, attached in place of fp_entry) in the chain, on real frames:
 * the filter (no rule set: it passes and counts FP_FLT_ST_NO_RULES) runs
 * inline once, then the later slots (mark stages in 2 and 4) in order;
 * an enabled earlier slot (a mark in 0) runs first and the filter then
 * runs from its slot, still once; an earlier slot filled but not enabled
 * is not run; a disabled filter is skipped; a later drop ends the chain;
 * and a running dump sees the fused filter's decision as stage 1's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <fastpath/abi.h>
#include <fastpath/dump_abi.h>
#include <fastpath/filter_abi.h>
#include "common/pkt.h"
#include "stage/mark_util.h"
#include "entry.skel.h"
#include "dump.skel.h"
#include "filter.skel.h"
#include "mark.skel.h"

#define N_MARKS 3
static const unsigned mark_slot[N_MARKS] = { 0, 2, 4 };
#define M0 (1u << 0)
#define M2 (1u << 2)
#define M4 (1u << 4)
#define FILTER (1u << FP_STAGE_FILTER)

static struct entry_bpf *entry;
static struct dump_bpf *dump;
static struct filter_bpf *filter;
static struct mark_bpf *mark[N_MARKS];
static int cpu = -1;

static int setup(void **state)
{
	cpu = chain_pin_cpu();
	if (cpu < 0) {
		fprintf(stderr, "cannot pin to one CPU\n");
		return -1;
	}
	entry = entry_bpf__open_and_load();
	if (!entry)
		return -1;
	dump = dump_bpf__open();
	if (!dump || chain_share_maps(dump->obj, entry->obj) || dump_bpf__load(dump))
		return -1;
	filter = filter_bpf__open();
	if (!filter || chain_share_maps(filter->obj, entry->obj) || filter_bpf__load(filter)) {
		fprintf(stderr, "the filter does not load (filter_verifier says why)\n");
		return -1;
	}
	for (unsigned i = 0; i < N_MARKS; i++) {
		mark[i] = mark_bpf__open();
		if (!mark[i])
			return -1;
		mark[i]->rodata->slot = mark_slot[i];
		if (chain_share_maps(mark[i]->obj, entry->obj) || mark_bpf__load(mark[i]))
			return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	for (unsigned i = 0; i < N_MARKS; i++)
		mark_bpf__destroy(mark[i]);
	filter_bpf__destroy(filter);
	dump_bpf__destroy(dump);
	entry_bpf__destroy(entry);
	return 0;
}

static int stages_fd(void)
{
	return bpf_map__fd(entry->maps.fp_stages);
}

static void set_dump(__u32 active)
{
	struct fp_dump_cfg d = { .active = active, .sample_n = 1, .snaplen = 64 };
	__u32 zero = 0;

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(dump->maps.fp_dump_cfg), &zero, &d, 0), 0);
}

/* As the pipeline leaves it with the filter's fused entry attached: the
 * filter in slot 1, marks in 2 and 4 (all passing), slot 0 filled with a
 * mark but not enabled, no dump. */
static int reset(void **state)
{
	for (unsigned s = 0; s < FP_STAGE_MAX; s++)
		chain_empty(stages_fd(), s);
	chain_fill(stages_fd(), FP_STAGE_FILTER, bpf_program__fd(filter->progs.fp_filter));
	for (unsigned i = 0; i < N_MARKS; i++) {
		mark[i]->data->action = XDP_PASS;
		chain_fill(stages_fd(), mark_slot[i], bpf_program__fd(mark[i]->progs.fp_mark));
	}
	chain_set_ctl(bpf_map__fd(entry->maps.fp_ctl), FILTER | M2 | M4, 0);
	set_dump(0);
	return 0;
}

static __u32 run_fused(const struct pkt *b)
{
	return chain_run(bpf_program__fd(filter->progs.fp_entry_filter), cpu, b->buf, b->len);
}

static void frame(struct pkt *b)
{
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "192.0.2.1", .dst = "198.51.100.7", .ttl = 64 });
	pkt_udp(b, 40000, 53);
	assert_int_equal(pkt_finish(b), 0);
}

/* Packets the filter decided without a rule set, over all CPUs. */
static __u64 filter_runs(void)
{
	int ncpus = libbpf_num_possible_cpus();
	struct fp_counter *all = calloc(ncpus, sizeof(*all));
	__u32 k = FP_FLT_ST_NO_RULES;
	__u64 n = 0;

	assert_non_null(all);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(filter->maps.fp_flt_stats), &k, all), 0);
	for (int c = 0; c < ncpus; c++)
		n += all[c].packets;
	free(all);
	return n;
}

/* Runs b through the fused entry: its action, the marks, and that the
 * filter decided the packet `filtered` times. */
static void expect(const struct pkt *b, __u32 action, __u32 marks, unsigned filtered)
{
	__u64 before = filter_runs();
	struct fp_pkt p;

	assert_int_equal(run_fused(b), action);
	chain_scratch(bpf_map__fd(entry->maps.fp_scratch), cpu, &p);
	assert_int_equal(p.pkt_len, b->len); /* the fused entry parsed it */
	assert_marks(&p, marks);
	assert_int_equal(filter_runs() - before, filtered);
}

static void test_filter_inline_then_later_slots(void **state)
{
	struct pkt b;

	frame(&b);
	expect(&b, XDP_PASS, M2 | M4, 1);
}

static void test_enabled_earlier_slot_first(void **state)
{
	struct pkt b;

	frame(&b);
	chain_set_ctl(bpf_map__fd(entry->maps.fp_ctl), M0 | FILTER | M2 | M4, 0);
	expect(&b, XDP_PASS, M0 | M2 | M4, 1); /* the filter from slot 1, once */
}

static void test_disabled_filter_skipped(void **state)
{
	struct pkt b;

	frame(&b);
	chain_set_ctl(bpf_map__fd(entry->maps.fp_ctl), M2 | M4, 0);
	expect(&b, XDP_PASS, M2 | M4, 0);
	/* with an enabled earlier slot too: the chain goes 0, 2, 4 */
	chain_set_ctl(bpf_map__fd(entry->maps.fp_ctl), M0 | M2 | M4, 0);
	chain_empty(stages_fd(), FP_STAGE_FILTER); /* as disable leaves it */
	expect(&b, XDP_PASS, M0 | M2 | M4, 0);
}

static void test_later_drop_ends_chain(void **state)
{
	struct pkt b;

	frame(&b);
	mark[1]->data->action = XDP_DROP; /* slot 2 */
	expect(&b, XDP_DROP, M2, 1);
}

struct samples {
	int n;
	struct fp_sample s[8];
};

static int on_sample(void *ctx, void *data, size_t size)
{
	struct samples *got = ctx;

	if (size >= sizeof(struct fp_sample) && got->n < 8)
		memcpy(&got->s[got->n++], data, sizeof(struct fp_sample));
	return 0;
}

static void test_dump_sees_fused_filter(void **state)
{
	struct samples got = { 0 };
	struct ring_buffer *rb;
	struct pkt b;

	rb = ring_buffer__new(bpf_map__fd(dump->maps.fp_ring), on_sample, &got, NULL);
	assert_non_null(rb);
	assert_true(ring_buffer__consume(rb) >= 0);
	memset(&got, 0, sizeof(got));
	frame(&b);
	chain_fill(stages_fd(), FP_SLOT_TAP, bpf_program__fd(dump->progs.fp_dump_tap));
	set_dump(1);
	chain_set_ctl(bpf_map__fd(entry->maps.fp_ctl), FILTER | M2 | M4, FP_CTL_DUMP_ACTIVE);
	expect(&b, XDP_PASS, M2 | M4, 1);
	assert_true(ring_buffer__consume(rb) >= 0);
	assert_int_equal(got.n, 3);
	assert_int_equal(got.s[0].stage, FP_STAGE_FILTER);
	assert_int_equal(got.s[0].verdict, XDP_PASS);
	assert_int_equal(got.s[0].rule, FP_NO_REASON);
	assert_int_equal(got.s[1].stage, 2);
	assert_int_equal(got.s[2].stage, 4);
	ring_buffer__free(rb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_filter_inline_then_later_slots, reset),
		cmocka_unit_test_setup(test_enabled_earlier_slot_first, reset),
		cmocka_unit_test_setup(test_disabled_filter_skipped, reset),
		cmocka_unit_test_setup(test_later_drop_ends_chain, reset),
		cmocka_unit_test_setup(test_dump_sees_fused_filter, reset),
	};

	return cmocka_run_group_tests_name("pipeline_fused", tests, setup, teardown);
}
