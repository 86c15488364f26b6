// SPDX-License-Identifier: BSD-2-Clause
/*
 * The stage table: every stage the pipeline knows, in slot order. Adding a
 * stage means a folder src/<stage>/ that defines its struct fp_stage_ops
 * and one line below; nothing else in the pipeline names a stage.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pipeline/pipeline.h"

extern const struct fp_stage_ops fp_stage_dump;   /* src/dump/dump_stage.c */
extern const struct fp_stage_ops fp_stage_filter; /* src/filter/filter_stage.c */
extern const struct fp_stage_ops fp_stage_lb;     /* src/lb/lb_stage.c */
extern const struct fp_stage_ops fp_stage_decap;  /* src/decap/decap_stage.c */

#define TABLE_MAX FP_STAGE_CHAIN

static const struct fp_stage_ops *table[TABLE_MAX + 1] = {
	&fp_stage_dump,
	&fp_stage_filter,
	&fp_stage_lb,
	&fp_stage_decap,
};

const struct fp_stage_ops *const *fp_stage_table(void)
{
	return table;
}

const struct fp_stage_ops *fp_stage_by_name(const char *name)
{
	for (int i = 0; name && table[i]; i++)
		if (!strcmp(table[i]->name, name))
			return table[i];
	return NULL;
}

const struct fp_stage_ops *fp_stage_by_slot(unsigned slot)
{
	for (int i = 0; table[i]; i++)
		if (table[i]->slot == slot)
			return table[i];
	return NULL;
}

int fp_stage_table__add(const struct fp_stage_ops *ops)
{
	int n = 0;

	if (!ops || !ops->name || ops->slot >= FP_STAGE_CHAIN)
		return -EINVAL;
	if (fp_stage_by_slot(ops->slot) || fp_stage_by_name(ops->name))
		return -EEXIST;
	while (table[n])
		n++;
	if (n >= TABLE_MAX)
		return -ENOSPC;
	/* keep slot order: every walk of the table is the chain's order */
	while (n > 0 && table[n - 1]->slot > ops->slot) {
		table[n] = table[n - 1];
		n--;
	}
	table[n] = ops;
	return 0;
}

static bool name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n > 15)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '_'))
			return false;
	return true;
}

int fp_stage_table__check(char *err, size_t errlen)
{
	unsigned used = 0;

	for (int i = 0; table[i]; i++) {
		const struct fp_stage_ops *s = table[i];

		if (!name_ok(s->name)) {
			snprintf(err, errlen, "stage %d: bad name '%s' (1..15 of [a-z0-9_])", i,
				 s->name ? s->name : "");
			return -EINVAL;
		}
		if (s->slot >= FP_STAGE_CHAIN) {
			snprintf(err, errlen, "stage %s: slot %u is outside the chain (0..%d)",
				 s->name, s->slot, FP_STAGE_CHAIN - 1);
			return -EINVAL;
		}
		if (used & (1u << s->slot)) {
			snprintf(err, errlen, "stage %s: slot %u is used twice", s->name, s->slot);
			return -EINVAL;
		}
		used |= 1u << s->slot;
		if (i > 0 && table[i - 1]->slot > s->slot) {
			snprintf(err, errlen, "stage %s: out of slot order", s->name);
			return -EINVAL;
		}
		for (int j = 0; j < i; j++)
			if (!strcmp(table[j]->name, s->name)) {
				snprintf(err, errlen, "stage name %s is used twice", s->name);
				return -EINVAL;
			}
		if (!s->prog_pin || !s->meta_pin || (s->tap && !s->tap_pin)) {
			snprintf(err, errlen, "stage %s: its program, meta%s pins are not named",
				 s->name, s->tap ? " or tap" : "");
			return -EINVAL;
		}
	}
	return 0;
}
