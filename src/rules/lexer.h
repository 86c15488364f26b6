/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The rule lexer: splits one line of rule text into words and quoted
 * strings. `#` outside quotes ends the line. Internal to src/rules/.
 */
#ifndef FP_RULES_LEXER_H
#define FP_RULES_LEXER_H

#include <stddef.h>

#include "rule.h"

enum fp_tok_kind {
	FP_TOK_END,    /* end of line (or a `#` comment) */
	FP_TOK_WORD,   /* a run of bytes up to blank, `#`, `"` */
	FP_TOK_STRING, /* "quoted", with \" and \\ escapes; value in str */
	FP_TOK_BAD,    /* a lexical error; message in err */
};

struct fp_tok {
	enum fp_tok_kind kind;
	const char *s;                  /* raw text (quotes included for STRING) */
	size_t len;
	unsigned col;                   /* 1-based byte column of s[0] */
	char str[FP_RULE_COMMENT_MAX];  /* STRING: the unescaped value */
	char err[128];                  /* BAD: what is wrong */
};

struct fp_lexer {
	const char *s;
	size_t len;
	size_t pos;
	size_t last_end; /* offset just past the last token returned */
};

void fp_lexer__init(struct fp_lexer *lx, const char *s, size_t len);

/* Reads the next token. END repeats once reached; its col is one past the
 * last token (where a missing argument would go). */
void fp_lexer__next(struct fp_lexer *lx, struct fp_tok *t);

/* Writes s[0..len) for a message: quoted text of at most ~40 bytes,
 * unprintable bytes as '?', "..." when cut. */
const char *fp_tok__show(const char *s, size_t len, char *buf, size_t size);

#endif /* FP_RULES_LEXER_H */
