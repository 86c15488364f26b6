/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Rules that can never match: a rule is shadowed when an earlier rule
 * matches every packet it matches (first match wins, whatever the earlier
 * rule's action: a limit rule decides every packet it matches too).
 */
#ifndef FP_RULES_SHADOW_H
#define FP_RULES_SHADOW_H

#include <stdbool.h>
#include <stddef.h>

#include "rules/rule.h"

/*
 * True when every packet b matches, a matches too: each term of a is one of
 * b's terms, and at least as wide (ranges and port lists contain b's, a
 * prefix contains b's, *.s covers b's name or wildcard below s, equal
 * values otherwise). Sound, not complete: a term it does not know makes it
 * false, as does a cover only several rules together give.
 */
bool fp_rule__covers(const struct fp_rule *a, const struct fp_rule *b);

/* Work limit of fp_ruleset__shadowed (index probes and rule comparisons). */
#define FP_SHADOW_WORK_MAX 8000000u

/*
 * Calls fn(ctx, b, a) for every rule b that an earlier rule a covers (a is
 * one such rule). Rules are indexed by shape and by the value of one field
 * (a prefix, a name, a single port), so a set of 16,384 rules costs a few
 * probes a rule, not a comparison with every earlier rule; rules only a
 * wide term can cover (port ranges, len, ttl) are compared one by one.
 * Returns 0 when every rule was looked at, 1 when the work limit stopped
 * the search before rule *stopped (whose later rules were not checked),
 * or -ENOMEM.
 */
int fp_ruleset__shadowed(const struct fp_ruleset *set,
			 void (*fn)(void *ctx, size_t b, size_t a), void *ctx, size_t *stopped);

#endif
