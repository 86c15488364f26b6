// SPDX-License-Identifier: BSD-2-Clause
/* The rule lexer (see lexer.h). */
#include <stdio.h>
#include <string.h>

#include "lexer.h"

#define SHOW_MAX 40

static int is_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Bytes that may not appear outside quotes at all. */
static int is_ctl(unsigned char c)
{
	return (c < 0x20 && !is_blank(c)) || c == 0x7f;
}

static int ends_word(unsigned char c)
{
	return is_blank(c) || is_ctl(c) || c == '#' || c == '"';
}

void fp_lexer__init(struct fp_lexer *lx, const char *s, size_t len)
{
	lx->s = s;
	lx->len = len;
	lx->pos = 0;
	lx->last_end = 0;
}

static void set_bad(struct fp_tok *t, const char *msg)
{
	t->kind = FP_TOK_BAD;
	snprintf(t->err, sizeof(t->err), "%s", msg);
}

/* Reads "..." starting at the opening quote at lx->pos. */
static void lex_string(struct fp_lexer *lx, struct fp_tok *t)
{
	size_t i = lx->pos + 1, n = 0;
	const char *bad = NULL;
	char msg[128];

	for (;;) {
		if (i >= lx->len) {
			lx->pos = i;
			t->len = i - (size_t)(t->s - lx->s);
			set_bad(t, "unterminated comment string: missing closing '\"'");
			return;
		}
		unsigned char c = (unsigned char)lx->s[i];
		if (c == '"')
			break;
		if (c == '\\') {
			unsigned char e = i + 1 < lx->len ? (unsigned char)lx->s[i + 1] : 0;
			if (e != '"' && e != '\\') {
				if (!bad) {
					if (e > 0x20 && e < 0x7f)
						snprintf(msg, sizeof(msg), "unknown escape '\\%c' in comment; "
							 "only \\\" and \\\\ are allowed", e);
					else
						snprintf(msg, sizeof(msg), "unknown escape in comment; "
							 "only \\\" and \\\\ are allowed");
					bad = msg;
				}
				i += 1;
				continue;
			}
			c = e;
			i += 2;
		} else if (c < 0x20 ? c != '\t' : c == 0x7f) {
			if (!bad) {
				snprintf(msg, sizeof(msg), "control byte 0x%02x in comment", c);
				bad = msg;
			}
			i += 1;
			continue;
		} else {
			i += 1;
		}
		if (n + 1 < sizeof(t->str))
			t->str[n] = (char)c;
		n++;
	}
	i++; /* closing quote */
	lx->pos = i;
	t->len = i - (size_t)(t->s - lx->s);
	if (!bad && n + 1 > sizeof(t->str)) {
		snprintf(msg, sizeof(msg), "comment is %zu bytes long; at most %d are allowed",
			 n, FP_RULE_COMMENT_MAX - 1);
		bad = msg;
	}
	if (bad) {
		set_bad(t, bad);
		return;
	}
	t->str[n] = '\0';
	t->kind = FP_TOK_STRING;
}

void fp_lexer__next(struct fp_lexer *lx, struct fp_tok *t)
{
	t->err[0] = '\0';
	t->str[0] = '\0';
	while (lx->pos < lx->len && is_blank((unsigned char)lx->s[lx->pos]))
		lx->pos++;
	if (lx->pos >= lx->len || lx->s[lx->pos] == '#') {
		lx->pos = lx->len; /* a comment runs to the end of the line */
		t->kind = FP_TOK_END;
		t->s = lx->s + lx->last_end;
		t->len = 0;
		t->col = (unsigned)lx->last_end + 1;
		return;
	}
	t->s = lx->s + lx->pos;
	t->col = (unsigned)lx->pos + 1;
	unsigned char c = (unsigned char)lx->s[lx->pos];
	if (c == '"') {
		lex_string(lx, t);
	} else if (is_ctl(c)) {
		char msg[64];
		snprintf(msg, sizeof(msg), "unexpected %s byte 0x%02x",
			 c == '\n' ? "newline" : "control", c);
		set_bad(t, msg);
		lx->pos++;
		t->len = 1;
	} else {
		size_t i = lx->pos;
		while (i < lx->len && !ends_word((unsigned char)lx->s[i]))
			i++;
		t->kind = FP_TOK_WORD;
		t->len = i - lx->pos;
		lx->pos = i;
	}
	lx->last_end = lx->pos;
}

const char *fp_tok__show(const char *s, size_t len, char *buf, size_t size)
{
	size_t n = 0, i;

	if (!size)
		return buf;
	for (i = 0; i < len && i < SHOW_MAX && n + 1 < size; i++) {
		unsigned char c = (unsigned char)s[i];
		buf[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (i < len && n + 4 < size) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}
