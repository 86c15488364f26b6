/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What changes between two rule sets, rule by rule, as an operator reads it:
 * rules added, removed, changed (same id, other text) and moved (same rule,
 * another place in the order of the rules both sets keep). Rules are matched
 * by id, the identity `filter add`, `del` and the counters use.
 * For `filter apply --dry-run`, the idempotent `apply` and the audit trail.
 */
#ifndef FP_RULES_DIFF_H
#define FP_RULES_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "rules/rule.h"

enum fp_diff_kind {
	FP_DIFF_ADDED,
	FP_DIFF_REMOVED,
	FP_DIFF_CHANGED,   /* same id, other terms, action or comment */
	FP_DIFF_MOVED,     /* the same rule, in another order against the others */
};

struct fp_rule_change {
	enum fp_diff_kind kind;
	size_t from, to;   /* 1-based positions in the old and the new set; 0: none */
	const struct fp_rule *old_rule, *new_rule; /* into the sets diffed; NULL: none */
};

struct fp_ruleset_diff {
	size_t n;                   /* changes, in the new set's order, removals last */
	struct fp_rule_change *v;
	size_t added, removed, changed, moved, unchanged;
	bool default_changed;       /* the default verdict differs */
};

/* 0, or -ENOMEM. A set whose ids repeat (never one that parsed) matches its
 * first rule of an id. Both sets must outlive d. */
int fp_ruleset__diff(const struct fp_ruleset *old_set, const struct fp_ruleset *new_set,
		     struct fp_ruleset_diff *d);
/* True when nothing differs: applying new_set would change nothing. */
bool fp_ruleset_diff__empty(const struct fp_ruleset_diff *d);
void fp_ruleset_diff__free(struct fp_ruleset_diff *d);
const char *fp_diff_kind__name(enum fp_diff_kind k);

#endif
