// SPDX-License-Identifier: BSD-2-Clause
/* The configuration files' line reader (conf_line.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/conf_line.h"

void fp_conf_open(struct fp_conf_reader *r, const char *name, const char *text, size_t len,
		  char *err, size_t errlen)
{
	*r = (struct fp_conf_reader){ .name = name, .text = text, .len = len, .err = err,
				      .errlen = errlen };
}

int fp_conf_fail(const struct fp_conf_reader *r, unsigned col, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->err, r->errlen, "%s:%u:%u: %s", r->name, r->line, col, msg);
	return -EINVAL;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The words of one line (n bytes at s, no newline). */
static int split(const struct fp_conf_reader *r, const char *s, size_t n,
		 struct fp_conf_word *w)
{
	int nw = 0;

	for (size_t i = 0; i < n;) {
		size_t j;

		if (is_space(s[i])) {
			i++;
			continue;
		}
		if (s[i] == '#')
			break;
		for (j = i; j < n && !is_space(s[j]); j++)
			if ((unsigned char)s[j] < 0x20 || s[j] == 0x7f)
				return fp_conf_fail(r, (unsigned)j + 1, "a control character (0x%02x)",
						    (unsigned char)s[j]);
		if (nw == FP_CONF_WORDS)
			return fp_conf_fail(r, (unsigned)i + 1, "more than %d words on a line",
					    FP_CONF_WORDS);
		if (j - i >= FP_CONF_WORD)
			return fp_conf_fail(r, (unsigned)i + 1, "a word of %zu bytes (at most %d)",
					    j - i, FP_CONF_WORD - 1);
		memcpy(w[nw].s, s + i, j - i);
		w[nw].s[j - i] = 0;
		w[nw].col = (unsigned)i + 1;
		nw++;
		i = j;
	}
	return nw;
}

int fp_conf_next(struct fp_conf_reader *r, struct fp_conf_word w[FP_CONF_WORDS])
{
	while (r->at < r->len) {
		const char *s = r->text + r->at, *nl = memchr(s, '\n', r->len - r->at);
		size_t n = nl ? (size_t)(nl - s) : r->len - r->at;
		int nw;

		r->line++;
		r->at += n + 1;
		nw = split(r, s, n, w);
		if (nw)
			return nw;
	}
	return 0;
}

const struct fp_conf_word *fp_conf_value(const struct fp_conf_reader *r,
					 const struct fp_conf_word *w, int nw, int *i)
{
	if (*i + 1 >= nw) {
		fp_conf_fail(r, w[*i].col, "%s needs a value", w[*i].s);
		return NULL;
	}
	return &w[++*i];
}

int fp_conf_number(const struct fp_conf_reader *r, const struct fp_conf_word *w, const char *opt,
		   uint64_t lo, uint64_t hi, uint32_t *v)
{
	uint64_t x = 0;

	for (const char *p = w->s; *p; p++) {
		if (*p < '0' || *p > '9' || x > hi)
			break;
		x = x * 10 + (unsigned)(*p - '0');
		if (!p[1] && x >= lo && x <= hi && w->s[0]) {
			*v = (uint32_t)x;
			return 0;
		}
	}
	return fp_conf_fail(r, w->col, "%s '%s': give a number %llu..%llu", opt, w->s,
			    (unsigned long long)lo, (unsigned long long)hi);
}
