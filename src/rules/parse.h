/* SPDX-License-Identifier: BSD-2-Clause */
/* Internal to src/rules/: the one-line rule parser behind fp_rule__parse. */
#ifndef FP_RULES_PARSE_H
#define FP_RULES_PARSE_H

#include <stddef.h>

#include "rule.h"

/*
 * Parses text[0..len) (one line, `#` comments allowed) into *rule, zeroing
 * it first. On error adds exactly one diagnostic and returns -EINVAL.
 * *id_col (may be NULL) gets the column of an explicit `id NAME`, else 0.
 */
int fp_rule__parse_line(const char *text, size_t len, unsigned line, struct fp_rule *rule,
			struct fp_diags *diags, unsigned *id_col);

#endif /* FP_RULES_PARSE_H */
