// SPDX-License-Identifier: BSD-2-Clause
/*
 * Rule set diff: match by id through a hash of ids (16,384 rules each way
 * stay linear), compare canonical texts (so a term added to the model later
 * needs nothing here), and call "moved" only the rules outside a longest
 * increasing run of the kept rules' new positions: one rule inserted at the
 * top shifts every position but moves nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rules/diff.h"
#include "util/htab.h"

const char *fp_diff_kind__name(enum fp_diff_kind k)
{
	switch (k) {
	case FP_DIFF_ADDED: return "added";
	case FP_DIFF_REMOVED: return "removed";
	case FP_DIFF_CHANGED: return "changed";
	case FP_DIFF_MOVED: return "moved";
	}
	return "?";
}

/* The id as a fixed-size, zero-padded hash key. */
static void id_key(char key[FP_RULE_ID_MAX], const char *id)
{
	memset(key, 0, FP_RULE_ID_MAX);
	memcpy(key, id, strnlen(id, FP_RULE_ID_MAX - 1));
}

static int index_ids(const struct fp_ruleset *set, struct fp_htab *h)
{
	int ret = fp_htab__init(h, FP_RULE_ID_MAX, set->n);

	for (size_t i = 0; !ret && i < set->n; i++) {
		char key[FP_RULE_ID_MAX];

		id_key(key, set->rules[i].id);
		ret = fp_htab__add(h, key, (uint32_t)i);
		ret = ret < 0 ? ret : 0;
	}
	return ret;
}

static bool same_text(const struct fp_rule *a, const struct fp_rule *b)
{
	char ta[FP_RULE_TEXT], tb[FP_RULE_TEXT];

	fp_rule__format(a, ta, sizeof(ta));
	fp_rule__format(b, tb, sizeof(tb));
	return !strcmp(ta, tb);
}

/*
 * keep[i] = 1 for the kept rules (in new order, pos[i] their old position)
 * that lie on one longest increasing run of old positions; the others moved.
 * Patience sorting, O(n log n).
 */
static int mark_in_order(const size_t *pos, size_t n, bool *keep)
{
	size_t *tail = malloc((n + 1) * sizeof(*tail)), *prev = malloc((n + 1) * sizeof(*prev));
	size_t len = 0;

	if (!tail || !prev) {
		free(tail);
		free(prev);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		size_t lo = 0, hi = len;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (pos[tail[mid]] < pos[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		prev[i] = lo ? tail[lo - 1] : (size_t)-1;
		tail[lo] = i;
		if (lo == len)
			len++;
	}
	memset(keep, 0, n * sizeof(*keep));
	for (size_t i = len ? tail[len - 1] : (size_t)-1; i != (size_t)-1; i = prev[i])
		keep[i] = true;
	free(tail);
	free(prev);
	return 0;
}

static void add(struct fp_ruleset_diff *d, enum fp_diff_kind k, size_t from, size_t to,
		const struct fp_rule *o, const struct fp_rule *n)
{
	d->v[d->n++] = (struct fp_rule_change){ k, from, to, o, n };
}

int fp_ruleset__diff(const struct fp_ruleset *old_set, const struct fp_ruleset *new_set,
		     struct fp_ruleset_diff *d)
{
	struct fp_htab ids = { 0 };
	size_t *old_of = NULL, *pos = NULL, nk = 0;
	bool *seen = NULL, *keep = NULL;
	int ret;

	memset(d, 0, sizeof(*d));
	d->default_changed = old_set->default_action != new_set->default_action;
	d->v = calloc(old_set->n + new_set->n + 1, sizeof(*d->v));
	old_of = calloc(new_set->n + 1, sizeof(*old_of));
	pos = calloc(new_set->n + 1, sizeof(*pos));
	keep = calloc(new_set->n + 1, sizeof(*keep));
	seen = calloc(old_set->n + 1, sizeof(*seen));
	ret = d->v && old_of && pos && keep && seen ? index_ids(old_set, &ids) : -ENOMEM;
	if (ret)
		goto out;
	/* the kept rules, in new order, with their old positions */
	for (size_t i = 0; i < new_set->n; i++) {
		char key[FP_RULE_ID_MAX];
		uint32_t *o;

		id_key(key, new_set->rules[i].id);
		o = fp_htab__find(&ids, key);
		old_of[i] = o && !seen[*o] ? *o : (size_t)-1;
		if (o && !seen[*o]) {
			seen[*o] = true;
			pos[nk++] = *o;
		}
	}
	ret = mark_in_order(pos, nk, keep);
	if (ret)
		goto out;
	for (size_t i = 0, k = 0; i < new_set->n; i++) {
		const struct fp_rule *nr = &new_set->rules[i], *or;

		if (old_of[i] == (size_t)-1) {
			add(d, FP_DIFF_ADDED, 0, i + 1, NULL, nr);
			d->added++;
			continue;
		}
		or = &old_set->rules[old_of[i]];
		if (!same_text(or, nr)) {
			add(d, FP_DIFF_CHANGED, old_of[i] + 1, i + 1, or, nr);
			d->changed++;
		} else if (!keep[k]) {
			add(d, FP_DIFF_MOVED, old_of[i] + 1, i + 1, or, nr);
			d->moved++;
		} else {
			d->unchanged++;
		}
		k++;
	}
	for (size_t j = 0; j < old_set->n; j++) {
		if (!seen[j]) {
			add(d, FP_DIFF_REMOVED, j + 1, 0, &old_set->rules[j], NULL);
			d->removed++;
		}
	}
out:
	fp_htab__free(&ids);
	free(old_of);
	free(pos);
	free(keep);
	free(seen);
	if (ret)
		fp_ruleset_diff__free(d);
	return ret;
}

bool fp_ruleset_diff__empty(const struct fp_ruleset_diff *d)
{
	return !d->n && !d->default_changed;
}

void fp_ruleset_diff__free(struct fp_ruleset_diff *d)
{
	if (!d)
		return;
	free(d->v);
	memset(d, 0, sizeof(*d));
}
