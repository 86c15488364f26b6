// SPDX-License-Identifier: BSD-2-Clause
/*
 * A whole rule file: one rule per line, `default pass|drop`, comments and
 * blank lines; every error of the file is reported (the first of each line),
 * duplicate rule ids included.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <fastpath/terms.h>

#include "lexer.h"
#include "parse.h"
#include "values.h"

/* Open-addressing set of rule ids: slot = index into set->rules + 1. */
struct idtab {
	uint32_t *slot;
	size_t cap;     /* power of two */
	size_t n;
};

static uint32_t hash_id(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* Index of the rule with this id, or -1; inserts idx when absent.
 * -2 on allocation failure. */
static long idtab_put(struct idtab *t, const struct fp_rule *rules, size_t idx)
{
	const char *id = rules[idx].id;

	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		uint32_t *s = calloc(cap, sizeof(*s));

		if (!s)
			return -2;
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->slot[i])
				continue;
			size_t j = hash_id(rules[t->slot[i] - 1].id) & (cap - 1);
			while (s[j])
				j = (j + 1) & (cap - 1);
			s[j] = t->slot[i];
		}
		free(t->slot);
		t->slot = s;
		t->cap = cap;
	}
	size_t j = hash_id(id) & (t->cap - 1);
	for (; t->slot[j]; j = (j + 1) & (t->cap - 1))
		if (!strcmp(rules[t->slot[j] - 1].id, id))
			return (long)t->slot[j] - 1;
	t->slot[j] = (uint32_t)idx + 1;
	t->n++;
	return -1;
}

struct file {
	struct fp_ruleset *set;
	struct fp_diags *d;
	size_t cap;
	size_t errors;
	unsigned default_line;
	struct idtab ids;
};

static void parse_default(struct file *f, struct fp_lexer *lx, const struct fp_tok *kw,
			  unsigned line)
{
	struct fp_tok t;
	char b[48];

	if (f->default_line) {
		fp_diags__add(f->d, line, kw->col, "second 'default' line (the first is on line %u)",
			      f->default_line);
		goto err;
	}
	fp_lexer__next(lx, &t);
	if (t.kind == FP_TOK_BAD) {
		fp_diags__add(f->d, line, t.col, "%s", t.err);
		goto err;
	}
	int drop = t.kind == FP_TOK_WORD && t.len == 4 && !memcmp(t.s, "drop", 4);
	int pass = t.kind == FP_TOK_WORD && t.len == 4 && !memcmp(t.s, "pass", 4);
	if (!drop && !pass) {
		if (t.kind == FP_TOK_END)
			fp_diags__add(f->d, line, t.col,
				      "expected pass or drop after 'default', got end of line");
		else
			fp_diags__add(f->d, line, t.col, "expected pass or drop after 'default', got '%s'",
				      fp_tok__show(t.s, t.len, b, sizeof(b)));
		goto err;
	}
	fp_lexer__next(lx, &t);
	if (t.kind != FP_TOK_END) {
		if (t.kind == FP_TOK_BAD)
			fp_diags__add(f->d, line, t.col, "%s", t.err);
		else
			fp_diags__add(f->d, line, t.col, "unexpected '%s' after 'default %s'",
				      fp_tok__show(t.s, t.len, b, sizeof(b)), drop ? "drop" : "pass");
		goto err;
	}
	f->set->default_action = drop ? FP_ACT_DROP : FP_ACT_PASS;
	f->default_line = line;
	return;
err:
	f->errors++;
}

/* 0, or -ENOMEM. */
static int parse_rule(struct file *f, const char *s, size_t len, unsigned line)
{
	struct fp_ruleset *set = f->set;
	unsigned id_col;

	if (set->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16;
		struct fp_rule *v = realloc(set->rules, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		set->rules = v;
		f->cap = cap;
	}
	struct fp_rule *r = &set->rules[set->n];
	if (fp_rule__parse_line(s, len, line, r, f->d, &id_col)) {
		f->errors++;
		return 0;
	}
	long prev = idtab_put(&f->ids, set->rules, set->n);
	if (prev == -2)
		return -ENOMEM;
	if (prev >= 0) {
		if (id_col)
			fp_diags__add(f->d, line, id_col, "duplicate rule id '%s' (first used on line %u)",
				      r->id, set->rules[prev].line);
		else
			fp_diags__add(f->d, line, 1, "rule id '%s' (this line's number) is already "
				      "used on line %u; give this rule an 'id'",
				      r->id, set->rules[prev].line);
		f->errors++;
		return 0;
	}
	set->n++;
	return 0;
}

int fp_ruleset__parse(const char *text, size_t len, struct fp_ruleset *set,
		      struct fp_diags *diags)
{
	struct file f = { .set = set, .d = diags };
	size_t pos = 0;
	unsigned line = 0, rule_lines = 0;
	int err = 0;

	memset(set, 0, sizeof(*set));
	set->default_action = FP_ACT_PASS;
	while (pos < len) {
		const char *s = text + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		struct fp_lexer lx;
		struct fp_tok t;

		line++;
		pos += n + (nl ? 1 : 0);
		fp_lexer__init(&lx, s, n);
		fp_lexer__next(&lx, &t);
		if (t.kind == FP_TOK_END)
			continue;
		if (t.kind == FP_TOK_WORD && t.len == 7 && !memcmp(t.s, "default", 7)) {
			parse_default(&f, &lx, &t, line);
			continue;
		}
		if (++rule_lines > FP_MAX_RULES) {
			/* no back end takes more: stop before a huge file costs a
			 * rule's memory (1 KB) per line */
			fp_diags__add(diags, line, 1, "rule %u: a rule set holds at most %u rules",
				      FP_MAX_RULES + 1, FP_MAX_RULES);
			f.errors++;
			break;
		}
		err = parse_rule(&f, s, n, line);
		if (err)
			break;
	}
	free(f.ids.slot);
	if (!err && f.errors)
		err = -EINVAL;
	if (err)
		fp_ruleset__free(set);
	return err;
}

void fp_ruleset__free(struct fp_ruleset *set)
{
	if (!set)
		return;
	free(set->rules);
	memset(set, 0, sizeof(*set));
}
