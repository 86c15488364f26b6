/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The first diagnostic of a parse as "LINE:COL: msg" for a test's failure
 * message, or "no diagnostic" when none was stored, so a failing test
 * explains itself instead of reading d->v[0] of an empty list.
 */
#ifndef FP_TEST_DIAG_UTIL_H
#define FP_TEST_DIAG_UTIL_H

#include <stdio.h>

#include "rules/rule.h"

static inline const char *diag_first(const struct fp_diags *d, char *buf, size_t len)
{
	if (!d->n || !d->v || !d->cap)
		snprintf(buf, len, "no diagnostic (%zu counted)", d->n);
	else
		snprintf(buf, len, "%u:%u: %s", d->v[0].line, d->v[0].col, d->v[0].msg);
	return buf;
}

#endif
