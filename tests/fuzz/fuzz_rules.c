// fuzz-sources: src/rules/lexer.c src/rules/values.c src/rules/parse.c src/rules/ruleset.c src/rules/format.c
// SPDX-License-Identifier: BSD-2-Clause
/*
 * Rule parser fuzz target: parse arbitrary bytes as a rule file; when they
 * parse, every rule must format to text that parses back to an equal rule,
 * and formatting that rule again must give the same text. On errors, every
 * stored diagnostic must have a line and column inside the input.
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rule.h"

static unsigned count_lines(const uint8_t *data, size_t size)
{
	unsigned n = 1;

	for (size_t i = 0; i < size; i++)
		n += data[i] == '\n';
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fp_ruleset set;
	struct fp_diags diags = { 0 };
	char buf[4096], buf2[4096];
	int err = fp_ruleset__parse((const char *)data, size, &set, &diags);

	if (err) {
		assert(err == -EINVAL || err == -ENOMEM);
		assert(set.n == 0 && set.rules == NULL);
		if (err == -EINVAL)
			assert(diags.n > 0);
		for (size_t i = 0; i < diags.n && i < diags.cap; i++) {
			assert(diags.v[i].line >= 1 && diags.v[i].line <= count_lines(data, size));
			assert(diags.v[i].col >= 1 && diags.v[i].col <= size + 1);
			assert(memchr(diags.v[i].msg, '\0', sizeof(diags.v[i].msg)));
		}
		fp_diags__free(&diags);
		return 0;
	}
	assert(diags.n == 0);
	for (size_t i = 0; i < set.n; i++) {
		struct fp_rule back;
		struct fp_diags d2 = { 0 };
		int n = fp_rule__format(&set.rules[i], buf, sizeof(buf));

		assert(n > 0 && (size_t)n < sizeof(buf));
		assert(strlen(buf) == (size_t)n);
		assert(fp_rule__format(&set.rules[i], NULL, 0) == n);
		if (fp_rule__parse(buf, set.rules[i].line, &back, &d2)) {
			fprintf(stderr, "canonical text does not parse: %s\n  %s\n", buf,
				d2.n ? d2.v[0].msg : "");
			abort();
		}
		if (!fp_rule__equal(&back, &set.rules[i])) {
			fprintf(stderr, "round trip differs: %s\n", buf);
			abort();
		}
		fp_rule__format(&back, buf2, sizeof(buf2));
		assert(!strcmp(buf, buf2));
		fp_diags__free(&d2);
	}
	fp_ruleset__free(&set);
	fp_diags__free(&diags);
	return 0;
}
