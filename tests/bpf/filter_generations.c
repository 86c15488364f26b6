// SPDX-License-Identifier: BSD-2-Clause
/*
 * The two generations of the rule maps (each map holds both, side by side;
 * `apply` rewrites the spare one and flips): what a generation left behind
 * must never decide for the next set written over it. Runs the real
 * pipeline through BPF_PROG_TEST_RUN.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

static void rule_packets(uint32_t idx, uint64_t *pk, uint64_t *dflt)
{
	struct fp_filter_view v;

	assert_int_equal(fp_filter__view(filter, &v), 0);
	assert_true(v.has_rules);
	assert_true(idx < v.n_rules);
	*pk = v.rules[idx].total.packets;
	*dflt = v.dflt.packets;
	fp_filter_view__free(&v);
}

/* Each generation counts from zero, also the second time a half is used. */
static void test_counters_restart(void **state)
{
	const char *set = "drop udp dport 7 id seven\ndefault pass\n";
	struct pkt hit, miss;
	uint64_t pk, dflt;

	if (!filter)
		skip();
	udp_from(&hit, "192.0.2.1", 7);
	udp_from(&miss, "192.0.2.1", 8);
	for (int round = 0; round < 3; round++) {
		apply_text(set);
		rule_packets(0, &pk, &dflt);
		assert_int_equal(pk, 0);
		assert_int_equal(dflt, 0);
		for (int i = 0; i < 5 + round; i++)
			assert_int_equal(rule_of(&hit, NULL), 0);
		assert_int_equal(rule_of(&miss, NULL), FP_FLT_NO_RULE);
		rule_packets(0, &pk, &dflt);
		assert_int_equal(pk, 5 + round);
		assert_int_equal(dflt, 1);
	}
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
		cmocka_unit_test(test_counters_restart),
		cmocka_unit_test(test_qname_generations),
		cmocka_unit_test(test_dns_parsed_only_when_needed),
		cmocka_unit_test(test_table_bits_refusal),
	};

	return cmocka_run_group_tests_name("filter_generations", tests, setup, teardown);
}
