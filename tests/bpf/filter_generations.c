// SPDX-License-Identifier: BSD-2-Clause
/*
 * The two generations of the rule maps (each map holds both, side by side;
 * `apply` rewrites the spare one and flips): what a generation left behind
 * must never decide for the next set written over it. Runs the real
 * pipeline through BPF_PROG_TEST_RUN.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <cmocka.h>
#include <bpf/bpf.h>

#include "common/pkt.h"
#include "common/port_grid.h"
#include "common/filter_fixture.h"
#include "filter/filter_internal.h"
#include "filter.skel.h"

static struct fp_filter *filter;

static int setup(void **state)
{
	return filter_fixture_open(&filter);
}

static int teardown(void **state)
{
	fp_filter__close(filter);
	return 0;
}

static void apply_text(const char *text)
{
	struct fp_ruleset set;
	struct fp_diags d = { 0 };
	char err[512];

	assert_int_equal(fp_ruleset__parse(text, strlen(text), &set, &d), 0);
	if (fp_filter__apply(filter, &set, err, sizeof(err))) {
		fprintf(stderr, "apply: %s\n", err);
		fail();
	}
	fp_ruleset__free(&set);
}

/* `drop src 10.X.Y.0/24` for n prefixes, then `tail`: big flat tables. */
static char *big_set(unsigned n, const char *tail)
{
	size_t cap = n * 64 + strlen(tail) + 1, len = 0;
	char *t = malloc(cap);

	assert_non_null(t);
	for (unsigned i = 0; i < n; i++)
		len += snprintf(t + len, cap - len, "drop udp src 10.%u.%u.0/24 dport %u id big%u\n",
				i / 256, i % 256, 1000 + i % 97, i);
	snprintf(t + len, cap - len, "%s", tail);
	return t;
}

static void udp_from(struct pkt *b, const char *src, uint16_t dport)
{
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = src, .dst = "198.51.100.1", .ttl = 64 });
	pkt_udp(b, 4000, dport);
	assert_int_equal(pkt_finish(b), 0);
}

static void dns_query(struct pkt *b, const char *name)
{
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "192.0.2.1", .dst = "198.51.100.1", .ttl = 64 });
	pkt_udp(b, 4000, 53);
	pkt_dns_query(b, name, 1);
	assert_int_equal(pkt_finish(b), 0);
}

/* The rule index that decided (FP_FLT_NO_RULE: the default). */
static uint32_t rule_of(struct pkt *b, uint32_t *verdict)
{
	uint32_t v, rule;

	assert_int_equal(fp_filter__run(filter, b->buf, b->len, &v, &rule), 0);
	if (verdict)
		*verdict = v;
	return rule;
}

/* A big set, a small one over the other half, the big one again, then the
 * small one over the half the big set had filled: the small set's packets
 * never see the big set's entries left in the unused part of the tables. */
static void test_stale_entries_unreachable(void **state)
{
	char *big = big_set(3000, "default pass\n");
	struct pkt b;
	uint32_t v;

	if (!filter)
		skip();
	for (int round = 0; round < 2; round++) {
		apply_text(big);
		udp_from(&b, "10.5.7.9", 1000 + (5 * 256 + 7) % 97);
		assert_int_equal(rule_of(&b, &v), 5 * 256 + 7);
		assert_int_equal(v, 1 /* XDP_DROP */);
		apply_text("drop udp dport 9 id small\ndefault pass\n");
		assert_int_equal(rule_of(&b, &v), FP_FLT_NO_RULE);
		assert_int_equal(v, 2 /* XDP_PASS */);
		udp_from(&b, "10.5.7.9", 9);
		assert_int_equal(rule_of(&b, NULL), 0);
	}
	free(big);
}

/* Packets of the rule with id `id` (-1: not in the set) and of the default. */
static int64_t packets_of(const char *id, uint64_t *dflt)
{
	char want[64];
	struct fp_filter_view v;
	int64_t pk = -1;

	snprintf(want, sizeof(want), " id %s", id);
	assert_int_equal(fp_filter__view(filter, &v), 0);
	assert_true(v.has_rules);
	for (size_t i = 0; i < v.n_rules; i++) {
		const char *at = strstr(v.rules[i].text, want);

		if (at && (!at[strlen(want)] || at[strlen(want)] == ' '))
			pk = (int64_t)v.rules[i].total.packets;
	}
	if (dflt)
		*dflt = v.dflt.packets;
	fp_filter_view__free(&v);
	return pk;
}

static void hit(struct pkt *b, int n, uint32_t rule)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(rule_of(b, NULL), rule);
}

/*
 * A rule an apply keeps (same id and text) keeps its counters, also when a
 * rule inserted above moves it, and the default's when its verdict stays;
 * a changed rule and a changed default start from 0. Counts stay exact over
 * applies that reuse both halves (the spare half's counters are zeroed).
 */
static void test_counters_kept(void **state)
{
	const char *set = "drop udp dport 7 id seven\ndefault pass\n";
	struct pkt p7, p8, p9;
	uint64_t dflt;

	if (!filter)
		skip();
	udp_from(&p7, "192.0.2.1", 7);
	udp_from(&p8, "192.0.2.1", 8);
	udp_from(&p9, "192.0.2.1", 9);
	apply_text("drop udp dport 7 id seven\ndefault drop\n"); /* whatever ran before */
	apply_text(set); /* the default changed: from 0 */
	assert_int_equal(packets_of("seven", &dflt), 0);
	assert_int_equal(dflt, 0);
	hit(&p7, 5, 0);
	hit(&p8, 1, FP_FLT_NO_RULE);
	for (int round = 0; round < 3; round++) { /* the same set again: nothing lost */
		apply_text(set);
		assert_int_equal(packets_of("seven", &dflt), 5 + round);
		assert_int_equal(dflt, 1);
		hit(&p7, 1, 0);
	}
	/* a rule added above: seven moves to index 1 and keeps its 8 */
	apply_text("drop udp dport 9 id nine\ndrop udp dport 7 id seven\ndefault pass\n");
	assert_int_equal(packets_of("seven", &dflt), 8);
	assert_int_equal(packets_of("nine", NULL), 0);
	assert_int_equal(dflt, 1);
	hit(&p7, 2, 1);
	hit(&p9, 3, 0);
	/* nine deleted, seven back at index 0 */
	apply_text(set);
	assert_int_equal(packets_of("seven", NULL), 10);
	assert_int_equal(packets_of("nine", NULL), -1);
	/* nine again: a new rule, from 0 */
	apply_text("drop udp dport 9 id nine\ndrop udp dport 7 id seven\ndefault pass\n");
	assert_int_equal(packets_of("nine", NULL), 0);
	/* seven changed (same id, other text): from 0; nine kept */
	hit(&p9, 4, 0);
	apply_text("drop udp dport 9 id nine\ndrop udp dport 7-8 id seven\ndefault pass\n");
	assert_int_equal(packets_of("seven", &dflt), 0);
	assert_int_equal(packets_of("nine", NULL), 4);
	assert_int_equal(dflt, 1);
	/* the default changed: from 0 */
	apply_text("drop udp dport 9 id nine\ndrop udp dport 7-8 id seven\ndefault drop\n");
	assert_int_equal(packets_of("nine", &dflt), 4);
	assert_int_equal(dflt, 0);
}

/* The base entry of rule idx in generation gen, mapped for writing. */
static struct fp_rule_cnt_base *base_entry(uint32_t gen, uint32_t idx, void **map, size_t *len)
{
	*len = 2 * (size_t)FP_FLT_CNT_ENTRIES * sizeof(struct fp_rule_cnt_base);
	*map = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED,
		    filter->gen_fd[GM_CNT_BASE], 0);
	assert_true(*map != MAP_FAILED);
	return (struct fp_rule_cnt_base *)*map + gen * FP_FLT_CNT_ENTRIES + idx;
}

/*
 * Between an apply's flip and its fold (or after an apply killed there) a
 * kept rule's base is pending: readers add the old generation's counts,
 * which still move, so its total never dips; the next apply folds it
 * before it zeroes the old generation's counters.
 */
static void test_counters_pending(void **state)
{
	const char *set = "drop udp dport 7 id seven\ndefault pass\n";
	struct fp_rule_cnt_base *b;
	struct fp_filter_view v;
	struct pkt p7;
	size_t len;
	void *map;
	uint32_t gen;

	if (!filter)
		skip();
	udp_from(&p7, "192.0.2.1", 7);
	apply_text("pass udp dport 7 id seven\n");
	apply_text(set);
	hit(&p7, 3, 0); /* 3 in this generation's live counters */
	apply_text(set);
	assert_int_equal(fp_filter__view(filter, &v), 0);
	gen = v.state.gen & 1;
	fp_filter_view__free(&v);
	b = base_entry(gen, 0, &map, &len);
	assert_int_equal(b->pending, 0); /* the apply folded it */
	assert_int_equal(b->carried.packets, 3);
	/* undo the fold: the state right after the flip */
	memset(&b->carried, 0, sizeof(b->carried));
	b->prior.packets = 0;
	b->pending = 1;
	assert_int_equal(packets_of("seven", NULL), 3); /* the old generation's 3 */
	hit(&p7, 2, 0);
	assert_int_equal(packets_of("seven", NULL), 5);
	munmap(map, len);
	apply_text(set); /* folds the pending base first, then carries it */
	assert_int_equal(packets_of("seven", NULL), 5);
	hit(&p7, 1, 0);
	apply_text(set);
	assert_int_equal(packets_of("seven", NULL), 6);
}

/* Threads of test_counters_monotonic: packets for rule `seven`, and a
 * reader of its total that notes any reading lower than the one before. */
struct mono {
	int stop;
	uint64_t sent;        /* packets run (each decided by seven) */
	uint64_t readings, dips, last;
	int errors;
};

static void *mono_traffic(void *arg)
{
	struct mono *m = arg;
	struct pkt p7;
	uint32_t v, rule;

	udp_from(&p7, "192.0.2.1", 7);
	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
		if (fp_filter__run(filter, p7.buf, p7.len, &v, &rule) || v != 1 /* XDP_DROP */)
			m->errors++;
		else
			__atomic_add_fetch(&m->sent, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *mono_reader(void *arg)
{
	struct mono *m = arg;

	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
		struct fp_filter_view v;
		int64_t pk = -1;

		if (fp_filter__view(filter, &v)) {
			m->errors++;
			continue;
		}
		for (size_t i = 0; i < v.n_rules; i++)
			if (strstr(v.rules[i].text, " id seven"))
				pk = (int64_t)v.rules[i].total.packets;
		fp_filter_view__free(&v);
		if (pk < 0) {
			m->errors++;
			continue;
		}
		if ((uint64_t)pk < m->last)
			m->dips++;
		m->last = (uint64_t)pk;
		m->readings++;
	}
	return NULL;
}

/*
 * Packets run and a reader reads while sets that keep rule seven (at
 * index 0 or 1) are applied over and over: no reading is ever lower than
 * the one before (the old generation's counts, which still move after the
 * flip, are added until they are folded), and at the end seven counted
 * every packet, none lost in a generation that went away.
 */
static void test_counters_monotonic(void **state)
{
	static const char *const sets[] = {
		"drop udp dport 7 id seven\ndefault pass\n",
		"drop udp dport 9 id nine\ndrop udp dport 7 id seven\ndefault pass\n",
		"drop udp dport 7 id seven\ndrop udp dport 9 id nine\ndefault pass\n",
	};
	struct mono m = { 0 };
	pthread_t traffic, reader;
	int64_t before;

	if (!filter)
		skip();
	apply_text("pass udp dport 7 id seven\n"); /* another seven: from 0 */
	apply_text(sets[0]);
	assert_int_equal(packets_of("seven", NULL), 0);
	assert_int_equal(pthread_create(&traffic, NULL, mono_traffic, &m), 0);
	assert_int_equal(pthread_create(&reader, NULL, mono_reader, &m), 0);
	for (int i = 0; i < 30; i++)
		apply_text(sets[i % 3]);
	__atomic_store_n(&m.stop, 1, __ATOMIC_RELEASE);
	pthread_join(traffic, NULL);
	pthread_join(reader, NULL);
	before = packets_of("seven", NULL);
	printf("# %llu packets, %llu readings during 30 applies\n", (unsigned long long)m.sent,
	       (unsigned long long)m.readings);
	assert_int_equal(m.errors, 0);
	assert_int_equal(m.dips, 0);
	assert_true(m.sent > 0 && m.readings > 0);
	assert_int_equal(before, (int64_t)m.sent);
	apply_text(sets[1]); /* and folded into the next generation's base */
	assert_int_equal(packets_of("seven", NULL), (int64_t)m.sent);
}

/* Sets of more and more DNS names over the same two halves: each set's
 * names match, an earlier set's never do (a name left in the unused part
 * of the table, or in the names by class, is never reached). */
static void test_qname_generations(void **state)
{
	char text[4096];
	struct pkt b;

	if (!filter)
		skip();
	for (unsigned round = 0; round < 6; round++) {
		size_t len = 0;
		unsigned n = round % 2 ? 3 : 60 + round; /* big, small, big...: stale slots */
		char name[64];

		for (unsigned i = 0; i < n; i++)
			len += snprintf(text + len, sizeof(text) - len,
					"drop qname *.r%u-%u.example id q%u\n", round, i, i);
		apply_text(text);
		for (unsigned i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "x.r%u-%u.example", round, i);
			dns_query(&b, name);
			assert_int_equal(rule_of(&b, NULL), i);
		}
		for (unsigned r = 0; r < round; r++) { /* no earlier set's name matches */
			snprintf(name, sizeof(name), "x.r%u-%u.example", r, 1u);
			dns_query(&b, name);
			assert_int_equal(rule_of(&b, NULL), FP_FLT_NO_RULE);
		}
	}
}

/* The `have` bits the pipeline's parse left for the packet just run on
 * CPU 0 (the caller runs there): the per-CPU scratch, read back. */
static uint16_t scratch_have_cpu0(void)
{
	int ncpu = libbpf_num_possible_cpus(), fd = bpf_map__fd(filter->filter_skel->maps.fp_scratch);
	size_t sz = (sizeof(struct fp_pkt) + 7) / 8 * 8;
	uint8_t *all = calloc(ncpu, sz);
	uint32_t zero = 0;
	uint16_t have;

	assert_non_null(all);
	assert_int_equal(bpf_map_lookup_elem(fd, &zero, all), 0);
	have = ((struct fp_pkt *)all)->have;
	free(all);
	return have;
}

/* The DNS question is parsed only for a set with qname or qtype terms (it
 * costs a DNS packet about 55 ns), and a set flipped in after one without
 * them still sees it. */
static void test_dns_parsed_only_when_needed(void **state)
{
	cpu_set_t one, was;
	struct pkt b;

	if (!filter)
		skip();
	assert_int_equal(sched_getaffinity(0, sizeof(was), &was), 0);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	dns_query(&b, "www.example.com");

	apply_text("drop udp dport 9999\npass udp dport 53 id dns\n");
	assert_int_equal(rule_of(&b, NULL), 1);
	assert_int_equal(scratch_have_cpu0() & (FP_HAVE_DNS_PARSED | FP_HAVE_DNS), 0);

	apply_text("drop qtype AAAA\ndrop udp dport 53 qname www.example.com id www\n");
	assert_int_equal(rule_of(&b, NULL), 1);
	assert_int_equal(scratch_have_cpu0() & (FP_HAVE_DNS_PARSED | FP_HAVE_DNS),
			 FP_HAVE_DNS_PARSED | FP_HAVE_DNS);

	apply_text("drop qtype A\n");
	assert_int_equal(rule_of(&b, NULL), 0);
	apply_text("pass udp\n");
	assert_int_equal(rule_of(&b, NULL), 0);
	assert_int_equal(scratch_have_cpu0() & FP_HAVE_DNS_PARSED, 0);
	assert_int_equal(sched_setaffinity(0, sizeof(was), &was), 0);
}

/* A set whose tables need more slots than the filter was loaded with is
 * refused with the --table-bits to use, and the live set stays. */
static void test_table_bits_refusal(void **state)
{
	size_t len;
	char *text = port_grid_rules(250, &len), err[512]; /* 125,000 keys */
	struct fp_ruleset set;
	struct fp_diags d = { 0 };
	struct pkt b;

	if (!filter)
		skip();
	assert_non_null(text);
	apply_text("drop udp dport 7 id seven\n");
	assert_int_equal(fp_ruleset__parse(text, len, &set, &d), 0);
	assert_int_equal(fp_filter__apply(filter, &set, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "load with --table-bits 19"));
	fp_ruleset__free(&set);
	free(text);
	udp_from(&b, "192.0.2.1", 7);
	assert_int_equal(rule_of(&b, NULL), 0); /* the set before is still live */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stale_entries_unreachable),
		cmocka_unit_test(test_counters_kept),
		cmocka_unit_test(test_counters_pending),
		cmocka_unit_test(test_counters_monotonic),
		cmocka_unit_test(test_qname_generations),
		cmocka_unit_test(test_dns_parsed_only_when_needed),
		cmocka_unit_test(test_table_bits_refusal),
	};

	return cmocka_run_group_tests_name("filter_generations", tests, setup, teardown);
}
