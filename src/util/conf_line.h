/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The line reader of the configuration files (lb_conf.c, bridge_conf.c):
 * a file as lines of words, each word with its column, '#' at a word's
 * start a comment to the end of the line, and errors as NAME:LINE:COL.
 * No maps, no allocation.
 */
#ifndef FP_UTIL_CONF_LINE_H
#define FP_UTIL_CONF_LINE_H

#include <stddef.h>
#include <stdint.h>

#define FP_CONF_WORDS 16
#define FP_CONF_WORD 128

struct fp_conf_word {
	char s[FP_CONF_WORD];
	unsigned col;
};

struct fp_conf_reader {
	const char *name;      /* the file's name, for the messages */
	const char *text;
	size_t len, at;
	unsigned line;         /* of the words last read */
	char *err;
	size_t errlen;
};

void fp_conf_open(struct fp_conf_reader *r, const char *name, const char *text, size_t len,
		  char *err, size_t errlen);
/* The next line with words: their count (1..FP_CONF_WORDS), 0 at the end,
 * or -EINVAL (a control character, too many or too long words). */
int fp_conf_next(struct fp_conf_reader *r, struct fp_conf_word w[FP_CONF_WORDS]);
/* err = "NAME:LINE:COL: message"; returns -EINVAL. */
int fp_conf_fail(const struct fp_conf_reader *r, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* w[*i + 1], the value of the option w[*i] (*i advanced), or NULL (err set). */
const struct fp_conf_word *fp_conf_value(const struct fp_conf_reader *r,
					 const struct fp_conf_word *w, int nw, int *i);
/* A decimal number lo..hi, digits only; -EINVAL (err names opt) otherwise. */
int fp_conf_number(const struct fp_conf_reader *r, const struct fp_conf_word *w, const char *opt,
		   uint64_t lo, uint64_t hi, uint32_t *v);

#endif
