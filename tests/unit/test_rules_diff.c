// SPDX-License-Identifier: BSD-2-Clause
/*
 * Rule set diff (fp_ruleset__diff): added, removed, changed and moved by id;
 * an insertion at the top moves nothing; a swap moves one rule; the default
 * verdict; identical sets are empty; 16,384 rules each way (16,384 rules reversed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rules/diff.h"

static struct fp_ruleset parse_set(const char *text)
{
	struct fp_ruleset s;
	struct fp_diags d = { 0 };

	if (fp_ruleset__parse(text, strlen(text), &s, &d))
		fail_msg("%u:%u: %s", d.n ? d.v[0].line : 0, d.n ? d.v[0].col : 0,
			 d.n ? d.v[0].msg : "no diagnostic");
	fp_diags__free(&d);
	return s;
}

/* The changes as "kind id from>to" lines, for one readable comparison. */
static void expect(const char *old_text, const char *new_text, const char *want, bool dflt)
{
	struct fp_ruleset a = parse_set(old_text), b = parse_set(new_text);
	struct fp_ruleset_diff d;
	char got[1024] = "";

	assert_int_equal(fp_ruleset__diff(&a, &b, &d), 0);
	for (size_t i = 0; i < d.n; i++) {
		const struct fp_rule_change *c = &d.v[i];
		const struct fp_rule *r = c->new_rule ? c->new_rule : c->old_rule;

		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s %s %zu>%zu\n",
			 fp_diff_kind__name(c->kind), r->id, c->from, c->to);
	}
	assert_string_equal(got, want);
	assert_int_equal(d.default_changed, dflt);
	assert_int_equal(fp_ruleset_diff__empty(&d), !*want && !dflt);
	assert_int_equal(d.added + d.removed + d.changed + d.moved, d.n);
	fp_ruleset_diff__free(&d);
	fp_ruleset__free(&a);
	fp_ruleset__free(&b);
}

#define ABC "drop udp dport 1 id a\ndrop udp dport 2 id b\ndrop udp dport 3 id c\n"

static void test_same(void **state)
{
	expect(ABC, ABC, "", false);
	/* line numbers and spacing are not part of a rule */
	expect(ABC, "\n\ndrop  udp dport 1 id a\ndrop udp dport 2 id b\ndrop udp dport 3 id c\n", "",
	       false);
	expect(ABC, ABC "default drop\n", "", true);
	(void)state;
}

static void test_added_removed_changed(void **state)
{
	expect(ABC, "drop tcp id top\n" ABC, "added top 0>1\n", false);
	expect(ABC, "drop udp dport 1 id a\ndrop udp dport 3 id c\n", "removed b 2>0\n", false);
	expect(ABC, "drop udp dport 1 id a\npass udp dport 2 id b\ndrop udp dport 3 id c\n",
	       "changed b 2>2\n", false);
	expect(ABC, "drop udp dport 1 id a\ndrop udp dport 2 id b \"now with a comment\"\n"
		    "drop udp dport 3 id c\n", "changed b 2>2\n", false);
	/* default ids are line numbers: a rule inserted above renumbers the rest */
	expect("drop udp\ndrop tcp\n", "drop icmp\ndrop udp\ndrop tcp\n",
	       "changed 1 1>1\nchanged 2 2>2\nadded 3 0>3\n", false);
	(void)state;
}

static void test_moved(void **state)
{
	expect(ABC, "drop udp dport 3 id c\ndrop udp dport 1 id a\ndrop udp dport 2 id b\n",
	       "moved c 3>1\n", false);
	expect(ABC, "drop udp dport 2 id b\ndrop udp dport 1 id a\ndrop udp dport 3 id c\n",
	       "moved b 2>1\n", false);
	/* reversed: all but one moved */
	expect(ABC, "drop udp dport 3 id c\ndrop udp dport 2 id b\ndrop udp dport 1 id a\n",
	       "moved c 3>1\nmoved b 2>2\n", false);
	(void)state;
}

/* 16,384 rules against the same reversed (an O(n log n) diff; a quadratic
 * one would show in the test's run time, which is not asserted here). */
static void test_large(void **state)
{
	size_t n = FP_MAX_RULES, cap = n * 48, m = 0, k = 0;
	char *a = malloc(cap), *b = malloc(cap);
	struct fp_ruleset sa, sb;
	struct fp_ruleset_diff d;

	assert_non_null(a);
	assert_non_null(b);
	for (size_t i = 0; i < n; i++) {
		m += snprintf(a + m, cap - m, "drop udp dport %zu id r%zu\n", i % 65536, i);
		k += snprintf(b + k, cap - k, "drop udp dport %zu id r%zu\n", (n - 1 - i) % 65536,
			      n - 1 - i);
	}
	sa = parse_set(a);
	sb = parse_set(b);
	assert_int_equal(fp_ruleset__diff(&sa, &sb, &d), 0);
	assert_int_equal(d.moved, n - 1);
	assert_int_equal(d.unchanged, 1);
	fp_ruleset_diff__free(&d);
	fp_ruleset__free(&sa);
	fp_ruleset__free(&sb);
	free(a);
	free(b);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_added_removed_changed),
		cmocka_unit_test(test_moved),
		cmocka_unit_test(test_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
