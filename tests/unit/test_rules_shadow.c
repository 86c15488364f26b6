// SPDX-License-Identifier: BSD-2-Clause
/*
 * Rules that can never match (src/rules/shadow.c): the covers relation on
 * written pairs, with the near misses that must not count; its soundness on
 * random rules and packets against the reference matcher; and the indexed
 * search against comparing every pair.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/rand.h"
#include "diag_util.h"
#include "rules/match_ref.h"
#include "rules/shadow.h"

static struct fp_rule rule(const char *text)
{
	struct fp_rule r;
	struct fp_diags d = { 0 };
	char b[512];

	if (fp_rule__parse(text, 1, &r, &d))
		fail_msg("'%s' does not parse: %s", text, diag_first(&d, b, sizeof(b)));
	fp_diags__free(&d);
	return r;
}

static const struct {
	const char *a, *b;
	bool covers;
} pairs[] = {
	/* a covers b */
	{ "drop udp dport 9", "drop ip6 udp dport 9", true },
	{ "drop udp dport 9", "drop udp dport 9", true },
	{ "drop", "drop tcp dport 80 src 192.0.2.0/24", true },
	{ "limit 1/s udp", "drop udp dport 53", true },
	{ "pass udp dport 1-100", "drop udp dport 5,7,90-100", true },
	{ "drop udp dport 1-50,51-100", "drop udp dport 40-60", true },
	{ "drop udp dport 60,1-59", "drop udp dport 1-60", true },
	{ "drop src 10.0.0.0/8", "drop tcp src 10.1.0.0/16", true },
	{ "drop src 0.0.0.0/0", "drop src 192.0.2.1", true },
	{ "drop dst 2001:db8::/32", "drop ip6 dst 2001:db8:1::/48 udp", true },
	{ "drop udp qname *.example.com", "drop udp qname a.b.example.com", true },
	{ "drop udp qname *.example.com", "drop udp qname *.x.example.com", true },
	{ "drop udp qname *.example.com", "drop udp qname *.example.com qtype A", true },
	{ "drop udp qname example.com", "drop udp qname EXAMPLE.com. dport 53", true },
	{ "drop udp qname *.", "drop udp qname example.com", true },
	{ "drop tcp flags syn", "drop tcp flags syn,!ack", true },
	{ "drop tcp flags syn,!ack", "drop tcp flags syn,!ack,!rst dport 80", true },
	{ "drop len 100-200", "drop udp len 150-160", true },
	{ "drop ttl 0-3", "drop ttl 1", true },
	{ "drop vlan 5", "drop vlan 5 udp", true },
	{ "drop frag", "drop ip frag", true },
	{ "drop ip6 undetermined-transport", "drop ip6 undetermined-transport src 2001:db8::/32", true },
	{ "drop ether arp", "drop ether arp vlan 7", true },
	{ "drop ip", "drop ether ip ip", true },
	{ "drop udp qtype A", "drop udp qname x.com qtype A", true },
	/* near misses: b has packets a does not match */
	{ "drop ip6 udp dport 9", "drop udp dport 9", false },
	{ "drop udp dport 1-100", "drop udp dport 100-101", false },
	{ "drop udp dport 1-50,52-100", "drop udp dport 40-60", false },
	{ "drop udp dport 9", "drop udp sport 9", false },
	{ "drop udp dport 9", "drop tcp dport 9", false },
	{ "drop src 10.0.0.0/8", "drop src 11.0.0.0/16", false },
	{ "drop src 10.1.0.0/16", "drop src 10.0.0.0/8", false },
	{ "drop src 10.0.0.0/8", "drop dst 10.0.0.0/8", false },
	{ "drop src 0.0.0.0/0", "drop src ::/0", false },
	{ "drop src 10.128.0.0/9", "drop src 10.0.0.0/16", false },
	{ "drop udp qname *.example.com", "drop udp qname example.com", false },
	{ "drop udp qname *.example.com", "drop udp qname www.notexample.com", false },
	{ "drop udp qname *.example.com", "drop udp qname *.notexample.com", false },
	{ "drop udp qname a.example.com", "drop udp qname *.example.com", false },
	{ "drop udp qname *.a.example.com", "drop udp qname *.example.com", false },
	{ "drop udp qname *.", "drop udp qname .", false },
	{ "drop tcp flags syn", "drop tcp flags ack", false },
	{ "drop tcp flags syn,!ack", "drop tcp flags syn", false },
	{ "drop tcp flags !ack", "drop tcp flags syn", false },
	{ "drop udp qtype A", "drop udp qtype AAAA", false },
	{ "drop ttl 0-3", "drop ttl 2-4", false },
	{ "drop len 100-200", "drop len 99-150", false },
	{ "drop vlan 5", "drop vlan 6", false },
	{ "drop frag", "drop udp", false },
	{ "drop ip6 undetermined-transport", "drop ip6", false },
	{ "drop ether arp", "drop ether lldp", false },
	{ "drop ether ip", "drop ip", false },
	{ "drop ip", "drop ip6", false },
	{ "drop udp", "drop", false },
};

static void test_covers_pairs(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct fp_rule a = rule(pairs[i].a), b = rule(pairs[i].b);

		if (fp_rule__covers(&a, &b) != pairs[i].covers)
			fail_msg("'%s' covers '%s': %d, want %d", pairs[i].a, pairs[i].b,
				 !pairs[i].covers, pairs[i].covers);
	}
}

/* Whenever covers(a, b), every random packet b matches, a matches too. */
static void test_covers_sound_on_packets(void **state)
{
	struct rng r;
	size_t n = 600, covering = 0, checked = 0;
	struct fp_rule *rs = calloc(n, sizeof(*rs));
	struct fp_ref_pkt *pk = calloc(3000, sizeof(*pk));

	(void)state;
	assert_non_null(rs);
	assert_non_null(pk);
	rng_seed(&r, 4242);
	for (size_t i = 0; i < n; i++)
		random_rule(&r, i, &rs[i]);
	for (size_t p = 0; p < 3000; p++) {
		uint8_t frame[2048];
		size_t len = random_packet(&r, frame, sizeof(frame));

		fp_ref__parse(frame, len, &pk[p]);
	}
	for (size_t a = 0; a < n; a++) {
		for (size_t b = 0; b < n; b++) {
			if (a == b || !fp_rule__covers(&rs[a], &rs[b]))
				continue;
			covering++;
			for (size_t p = 0; p < 3000; p++) {
				if (!fp_ref__rule_matches(&rs[b], &pk[p]))
					continue;
				checked++;
				if (!fp_ref__rule_matches(&rs[a], &pk[p]))
					fail_msg("rule %zu covers rule %zu, yet packet %zu matches only %zu",
						 a, b, p, b);
			}
		}
	}
	fprintf(stderr, "covers: %zu covering pairs of %zu rules, %zu packets checked\n",
		covering, n, checked);
	assert_true(covering >= 50);
	assert_true(checked >= 100);
	free(rs);
	free(pk);
}

struct found {
	size_t *by;       /* by[b] = a + 1, 0 if not reported */
	size_t n;
};

static void on_found(void *ctx, size_t b, size_t a)
{
	struct found *f = ctx;

	assert_true(a < b);
	assert_int_equal(f->by[b], 0);
	f->by[b] = a + 1;
	f->n++;
}

/* The indexed search reports exactly the rules some earlier rule covers. */
static void test_search_equals_pairwise(void **state)
{
	struct rng r;
	size_t total = 0;

	(void)state;
	rng_seed(&r, 77);
	for (int round = 0; round < 20; round++) {
		struct fp_ruleset set;
		struct found f;
		size_t stopped;

		assert_int_equal(random_ruleset(&r, 50 + rng_below(&r, 600), &set), 0);
		f.by = calloc(set.n, sizeof(*f.by));
		f.n = 0;
		assert_int_equal(fp_ruleset__shadowed(&set, on_found, &f, &stopped), 0);
		assert_int_equal(stopped, set.n);
		for (size_t b = 0; b < set.n; b++) {
			bool want = false;

			for (size_t a = 0; a < b && !want; a++)
				want = fp_rule__covers(&set.rules[a], &set.rules[b]);
			if (want != (f.by[b] != 0))
				fail_msg("round %d rule %zu: pairwise %d, search %d", round, b, want,
					 f.by[b] != 0);
			if (f.by[b])
				assert_true(fp_rule__covers(&set.rules[f.by[b] - 1], &set.rules[b]));
		}
		total += f.n;
		free(f.by);
		random_ruleset_free(&set);
	}
	fprintf(stderr, "search: %zu shadowed rules found, as pairwise\n", total);
	assert_true(total > 20);
}

/* 16,384 one-port rules, each shadowed by a rule 8,000 before it: found. */
static void test_search_large(void **state)
{
	struct fp_ruleset set = { .n = FP_MAX_RULES };
	struct found f = { 0 };
	size_t stopped;
	char text[128];

	(void)state;
	set.rules = calloc(set.n, sizeof(*set.rules));
	f.by = calloc(set.n, sizeof(*f.by));
	assert_non_null(set.rules);
	for (size_t i = 0; i < set.n; i++) {
		if (i < 8192)
			snprintf(text, sizeof(text), "drop udp dport %zu", i + 1);
		else
			snprintf(text, sizeof(text), "drop ip6 udp dport %zu len 0-%zu", i - 8192 + 1,
				 i);
		set.rules[i] = rule(text);
	}
	assert_int_equal(fp_ruleset__shadowed(&set, on_found, &f, &stopped), 0);
	assert_int_equal(f.n, 8192);
	assert_int_equal(f.by[8192], 1);
	assert_int_equal(f.by[FP_MAX_RULES - 1], 8192);
	free(set.rules);
	free(f.by);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_covers_pairs),
		cmocka_unit_test(test_covers_sound_on_packets),
		cmocka_unit_test(test_search_equals_pairwise),
		cmocka_unit_test(test_search_large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
