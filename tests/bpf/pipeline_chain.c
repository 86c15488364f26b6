// SPDX-License-Identifier: BSD-2-Clause
/*
 * The pipeline's chain on real frames (BPF_PROG_TEST_RUN through fp_entry):
 * the tests' mark stage (tests/stage/mark.bpf.c) loaded in slots 1, 2 and
 * 4 against the entry's maps, as a stage is loaded on a pipeline.
 * - a frame visits the filled slots in order (each mark says how many
 *   stages marked the packet before it); an empty slot is skipped;
 * - a final verdict (drop, tx) ends the chain: no later mark, that action;
 * - no stage at all: XDP_PASS;
 * - an IPv4 frame after an IPv6 one on the same CPU: no IPv6 byte left in
 *   the parse;
 * - with the dump's tap in FP_SLOT_TAP and a dump running, each stage's
 *   decision reaches fp_ring with its slot, verdict and reason; with
 *   fp_ctl.dump clear, nothing does.
 * The process stays on one CPU so that the per-CPU parse read back is the
 * one the run wrote.
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
#include "common/pkt.h"
#include "stage/mark_util.h"
#include "entry.skel.h"
#include "dump.skel.h"
#include "mark.skel.h"

#define N_MARKS 3
static const unsigned mark_slot[N_MARKS] = { 1, 2, 4 };

static struct entry_bpf *entry;
static struct dump_bpf *dump;
static struct mark_bpf *mark[N_MARKS];
static int cpu = -1;

/* ---- loading: the entry's maps handed to each stage's object ------------ */

static int setup(void **state)
{
	/* one CPU for the whole run: the parse read back is that CPU's */
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
	dump_bpf__destroy(dump);
	entry_bpf__destroy(entry);
	return 0;
}

/* ---- the pipeline's state, as the user side sets it ---------------------- */

static void fill(unsigned slot, int prog_fd)
{
	chain_fill(bpf_map__fd(entry->maps.fp_stages), slot, prog_fd);
}

static void empty(unsigned slot)
{
	chain_empty(bpf_map__fd(entry->maps.fp_stages), slot);
}

static void empty_all(void)
{
	for (unsigned s = 0; s < FP_STAGE_MAX; s++)
		empty(s);
}

static void set_ctl(__u32 enabled, __u32 dump_flags)
{
	chain_set_ctl(bpf_map__fd(entry->maps.fp_ctl), enabled, dump_flags);
}

static void set_dump(__u32 active, __u32 drops_only)
{
	struct fp_dump_cfg d = { .active = active, .sample_n = 1, .snaplen = 64,
				 .drops_only = drops_only };
	__u32 zero = 0;

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(dump->maps.fp_dump_cfg), &zero, &d, 0), 0);
}

/* Marks in slots 1, 2 and 4, all passing; nothing else; no dump. */
static int reset(void **state)
{
	empty_all();
	for (unsigned i = 0; i < N_MARKS; i++) {
		mark[i]->data->action = XDP_PASS;
		fill(mark_slot[i], bpf_program__fd(mark[i]->progs.fp_mark));
	}
	set_ctl(1u << 1 | 1u << 2 | 1u << 4, 0);
	set_dump(0, 0);
	return 0;
}

/* ---- running frames, reading back -------------------------------------- */

static void udp4(struct pkt *b, const char *src, const char *dst)
{
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = src, .dst = dst, .ttl = 64 });
	pkt_udp(b, 40000, 9);
	pkt_bytes(b, "payload of a test frame, long enough for a snaplen", 50);
	assert_int_equal(pkt_finish(b), 0);
}

static void udp6(struct pkt *b, const char *src, const char *dst)
{
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv6(b, &(struct pkt_ipv6_opts){ .src = src, .dst = dst, .hop_limit = 64 });
	pkt_udp(b, 40000, 9);
	assert_int_equal(pkt_finish(b), 0);
}

/* Runs the frame through the attached program, fp_entry; its XDP action. */
static __u32 run(const struct pkt *b)
{
	return chain_run(bpf_program__fd(entry->progs.fp_entry), cpu, b->buf, b->len);
}

/* This CPU's parse of the last packet. */
static void scratch(struct fp_pkt *out)
{
	chain_scratch(bpf_map__fd(entry->maps.fp_scratch), cpu, out);
}

static struct mark_counts counts(unsigned i)
{
	return mark_counts_sum(bpf_map__fd(mark[i]->maps.mark_cnt));
}

/* ---- the chain ---------------------------------------------------------- */

static void test_no_stage_passes(void **state)
{
	struct fp_pkt p;
	struct pkt b;

	empty_all();
	set_ctl(0, 0);
	udp4(&b, "192.0.2.1", "198.51.100.7");
	assert_int_equal(run(&b), XDP_PASS);
	scratch(&p);
	assert_int_equal(p.pkt_len, b.len); /* the entry parsed it ... */
	assert_true(p.have & FP_HAVE_PORTS);
	assert_int_equal(p.dport, 9);
	assert_int_equal(p.facts, 0);       /* ... and no stage saw it */
}

static void test_visits_in_order(void **state)
{
	struct mark_counts before[N_MARKS], after;
	struct fp_pkt p;
	struct pkt b;

	for (unsigned i = 0; i < N_MARKS; i++)
		before[i] = counts(i);
	udp4(&b, "192.0.2.1", "198.51.100.7");
	assert_int_equal(run(&b), XDP_PASS);
	scratch(&p);
	assert_marks(&p, 1u << 1 | 1u << 2 | 1u << 4);
	for (unsigned i = 0; i < N_MARKS; i++) {
		after = counts(i);
		assert_int_equal(after.in - before[i].in, 1);
		assert_int_equal(after.out[XDP_PASS] - before[i].out[XDP_PASS], 1);
	}
	/* the dump's slot-0 program with no dump running hands the packet on */
	fill(0, bpf_program__fd(dump->progs.fp_dump));
	assert_int_equal(run(&b), XDP_PASS);
	scratch(&p);
	assert_marks(&p, 1u << 1 | 1u << 2 | 1u << 4);
}

static void test_empty_slot_skipped(void **state)
{
	struct fp_pkt p;
	struct pkt b;

	empty(2);
	udp4(&b, "192.0.2.1", "198.51.100.7");
	assert_int_equal(run(&b), XDP_PASS);
	scratch(&p);
	assert_marks(&p, 1u << 1 | 1u << 4); /* 4 is the second visit */
	empty(1);
	assert_int_equal(run(&b), XDP_PASS);
	scratch(&p);
	assert_marks(&p, 1u << 4);
}

static void test_final_verdict_ends_chain(void **state)
{
	struct mark_counts d0 = counts(1), l0 = counts(2), d1, l1;
	struct fp_pkt p;
	struct pkt b;

	udp4(&b, "192.0.2.1", "198.51.100.7");
	mark[1]->data->action = XDP_DROP; /* slot 2 */
	assert_int_equal(run(&b), XDP_DROP);
	scratch(&p);
	assert_marks(&p, 1u << 1 | 1u << 2);
	d1 = counts(1);
	l1 = counts(2);
	assert_int_equal(d1.out[XDP_DROP] - d0.out[XDP_DROP], 1);
	assert_int_equal(d1.out[XDP_PASS] - d0.out[XDP_PASS], 0);
	assert_int_equal(l1.in - l0.in, 0); /* slot 4 never ran */

	mark[0]->data->action = XDP_TX; /* slot 1 */
	assert_int_equal(run(&b), XDP_TX);
	scratch(&p);
	assert_marks(&p, 1u << 1);
}

/* An IPv4 source takes 4 of the 16 address bytes: the other 12 must not
 * be the previous IPv6 packet's (a stage keyed on src would see them). */
static void test_ipv4_after_ipv6_clean(void **state)
{
	static const __u8 v4src[4] = { 192, 0, 2, 1 }, v4dst[4] = { 198, 51, 100, 7 };
	static const __u8 zero12[12];
	struct fp_pkt p;
	struct pkt b;

	udp6(&b, "2001:db8:1:2:3:4:5:6", "2001:db8:ffff:eeee:dddd:cccc:bbbb:aaaa");
	assert_int_equal(run(&b), XDP_PASS);
	scratch(&p);
	/* the IPv6 run did write all 16 bytes: there is something to leave behind */
	assert_int_equal(p.l3, 6);
	assert_memory_not_equal(p.src + 4, zero12, 12);
	assert_memory_not_equal(p.dst + 4, zero12, 12);
	assert_marks(&p, 1u << 1 | 1u << 2 | 1u << 4);

	udp4(&b, "192.0.2.1", "198.51.100.7");
	assert_int_equal(run(&b), XDP_PASS);
	scratch(&p);
	assert_int_equal(p.l3, 4);
	assert_memory_equal(p.src, v4src, 4);
	assert_memory_equal(p.dst, v4dst, 4);
	assert_memory_equal(p.src + 4, zero12, 12);
	assert_memory_equal(p.dst + 4, zero12, 12);
	assert_marks(&p, 1u << 1 | 1u << 2 | 1u << 4);
}

/* ---- the dump sees every stage's decision -------------------------------- */

#define MAX_SAMPLES 16
struct samples {
	int n;
	struct fp_sample s[MAX_SAMPLES];
	__u8 data[MAX_SAMPLES][64];
};

static int on_sample(void *ctx, void *data, size_t size)
{
	struct samples *got = ctx;
	const struct fp_sample *s = data;

	if (size < sizeof(*s) || got->n == MAX_SAMPLES)
		return 0;
	got->s[got->n] = *s;
	memcpy(got->data[got->n], (const __u8 *)data + sizeof(*s),
	       s->cap_len <= 64 && size >= sizeof(*s) + s->cap_len ? s->cap_len : 0);
	got->n++;
	return 0;
}

static void drain(struct ring_buffer *rb, struct samples *got)
{
	memset(got, 0, sizeof(*got));
	assert_true(ring_buffer__consume(rb) >= 0);
}

/* Sample i was stage `slot`'s decision `action` on frame b. */
static void assert_sample(const struct samples *got, int i, unsigned slot, unsigned action,
			  const struct pkt *b)
{
	const struct fp_sample *s = &got->s[i];
	size_t cap = b->len < 64 ? b->len : 64;

	assert_true(i < got->n);
	if (s->stage != slot || s->verdict != action)
		fail_msg("sample %d: stage %u verdict %u, want stage %u verdict %u", i, s->stage,
			 s->verdict, slot, action);
	assert_int_equal(s->rule, MARK_REASON(slot));
	assert_int_equal(s->pkt_len, b->len);
	assert_int_equal(s->cap_len, cap);
	assert_memory_equal(got->data[i], b->buf, cap);
}

static void test_dump_sees_stage_verdicts(void **state)
{
	struct ring_buffer *rb;
	struct samples got;
	struct fp_pkt p;
	struct pkt b;

	rb = ring_buffer__new(bpf_map__fd(dump->maps.fp_ring), on_sample, &got, NULL);
	assert_non_null(rb);
	drain(rb, &got); /* whatever an earlier case left */
	udp4(&b, "192.0.2.1", "198.51.100.7");
	fill(FP_SLOT_TAP, bpf_program__fd(dump->progs.fp_dump_tap));
	set_dump(1, 0);
	set_ctl(1u << 1 | 1u << 2 | 1u << 4, FP_CTL_DUMP_ACTIVE);

	/* every stage passes: three decisions, and the tap hands the packet on */
	assert_int_equal(run(&b), XDP_PASS);
	scratch(&p);
	assert_marks(&p, 1u << 1 | 1u << 2 | 1u << 4);
	drain(rb, &got);
	assert_int_equal(got.n, 3);
	assert_sample(&got, 0, 1, XDP_PASS, &b);
	assert_sample(&got, 1, 2, XDP_PASS, &b);
	assert_sample(&got, 2, 4, XDP_PASS, &b);

	/* slot 2 drops: its drop is sampled as stage 2's, and the tap drops */
	mark[1]->data->action = XDP_DROP;
	assert_int_equal(run(&b), XDP_DROP);
	scratch(&p);
	assert_marks(&p, 1u << 1 | 1u << 2);
	drain(rb, &got);
	assert_int_equal(got.n, 2);
	assert_sample(&got, 0, 1, XDP_PASS, &b);
	assert_sample(&got, 1, 2, XDP_DROP, &b);

	/* dump --drops-only: the drop alone */
	set_dump(1, 1);
	assert_int_equal(run(&b), XDP_DROP);
	drain(rb, &got);
	assert_int_equal(got.n, 1);
	assert_sample(&got, 0, 2, XDP_DROP, &b);

	/* no dump running (fp_ctl.dump clear): nothing offered, same verdicts */
	set_ctl(1u << 1 | 1u << 2 | 1u << 4, 0);
	assert_int_equal(run(&b), XDP_DROP);
	scratch(&p);
	assert_marks(&p, 1u << 1 | 1u << 2);
	drain(rb, &got);
	assert_int_equal(got.n, 0);

	/* a dump flagged but its tap gone: each stage goes on by itself */
	set_ctl(1u << 1 | 1u << 2 | 1u << 4, FP_CTL_DUMP_ACTIVE);
	mark[1]->data->action = XDP_PASS;
	empty(FP_SLOT_TAP);
	assert_int_equal(run(&b), XDP_PASS);
	scratch(&p);
	assert_marks(&p, 1u << 1 | 1u << 2 | 1u << 4);
	drain(rb, &got);
	assert_int_equal(got.n, 0);
	ring_buffer__free(rb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_no_stage_passes, reset),
		cmocka_unit_test_setup(test_visits_in_order, reset),
		cmocka_unit_test_setup(test_empty_slot_skipped, reset),
		cmocka_unit_test_setup(test_final_verdict_ends_chain, reset),
		cmocka_unit_test_setup(test_ipv4_after_ipv6_clean, reset),
		cmocka_unit_test_setup(test_dump_sees_stage_verdicts, reset),
	};

	return cmocka_run_group_tests_name("pipeline_chain", tests, setup, teardown);
}
