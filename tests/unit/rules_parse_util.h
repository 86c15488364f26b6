/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Checks shared by the rule parser's tests: a rule that must parse, and a
 * rule or a rule file whose only error is at LINE:COL with a given message.
 */
#ifndef FP_TEST_RULES_PARSE_UTIL_H
#define FP_TEST_RULES_PARSE_UTIL_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "diag_util.h"
#include "rules/rule.h"

/* Parses one rule that must be valid. */
static inline struct fp_rule one(const char *text)
{
	struct fp_rule r;
	struct fp_diags d = { 0 };
	char b[512];
	int err = fp_rule__parse(text, 7, &r, &d);

	if (err)
		fail_msg("'%s' failed: %s", text, diag_first(&d, b, sizeof(b)));
	assert_int_equal(d.n, 0);
	fp_diags__free(&d);
	return r;
}

/* A rule file whose only error is at line:col with msg containing want. */
static inline void file_err_n(const char *text, size_t len, unsigned line, unsigned col,
		       const char *want)
{
	struct fp_ruleset set;
	struct fp_diags d = { 0 };
	char b[512];
	int err = fp_ruleset__parse(text, len, &set, &d);

	if (err != -EINVAL)
		fail_msg("'%s': want error %u:%u '%s', got %d", text, line, col, want, err);
	assert_int_equal(set.n, 0);
	assert_null(set.rules);
	if (d.n != 1 || !d.v || d.v[0].line != line || d.v[0].col != col || !strstr(d.v[0].msg, want))
		fail_msg("'%s': want 1 error %u:%u '%s', got %zu, the first %s", text, line, col,
			 want, d.n, diag_first(&d, b, sizeof(b)));
	fp_diags__free(&d);
}

static inline void file_err(const char *text, unsigned line, unsigned col, const char *want)
{
	file_err_n(text, strlen(text), line, col, want);
}

/* A one-line rule with its only error at col, message containing want. */
static inline void rule_err(const char *text, unsigned col, const char *want)
{
	struct fp_rule r;
	struct fp_diags d = { 0 };
	char b[512];
	int err = fp_rule__parse(text, 1, &r, &d);

	if (err != -EINVAL)
		fail_msg("'%s': want error 1:%u '%s', got %d", text, col, want, err);
	if (d.n != 1 || !d.v || d.v[0].col != col || d.v[0].line != 1 || !strstr(d.v[0].msg, want))
		fail_msg("'%s': want 1:%u '%s', got %zu, the first %s", text, col, want, d.n,
			 diag_first(&d, b, sizeof(b)));
	fp_diags__free(&d);
	/* the same through the file parser (where empty and `default` lines are fine) */
	if (text[0] && strncmp(text, "default", 7))
		file_err(text, 1, col, want);
}

#endif
