/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The CLI's output layer: every verb emits each field once, and this layer
 * prints it as aligned text or as JSON (-j, -p), over jansson.
 *
 * A document is a list of rows or one object. Calls build it; the closing
 * call prints it:
 *
 *	out_list_begin("rules");            out_obj_begin();
 *	for each rule {                     out_str("file", name);
 *		out_row_begin();            out_u64("rules", n);
 *		out_u64("index", i);        out_list_begin("errors");
 *		out_str("id", r->id);       ...rows...
 *		out_row_end();              out_list_end();
 *	}                                   out_obj_end();
 *	out_list_end();
 *
 * Text: a list is a table (header of upper-case keys, numbers right-aligned,
 * null as "-"); an object is "key: value" lines, then each list field as a
 * table. JSON: a list at top level is an array, inside an object a field.
 *
 * Streaming verbs print one object a line (JSON Lines) with
 * out_line_begin() ... out_line_end(); in text mode a line of columns,
 * with a header before the first.
 *
 * Errors: out_err() prints "fastpath: MSG" on stderr, or in JSON mode
 * {"error": "MSG"} on stdout (dropping any half-built document). The caller
 * still returns a non-zero exit code. Messages follow
 * "<what>: <why>; <what to do>".
 *
 * Not thread-safe (one CLI process, one document at a time).
 */
#ifndef FP_CLI_OUT_H
#define FP_CLI_OUT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum out_mode {
	OUT_TEXT = 0,
	OUT_JSON,        /* compact, one document a line */
	OUT_JSON_PRETTY, /* indented */
};

/* Where and how to print. f NULL = stdout; err NULL = stderr. */
void out_init(enum out_mode mode, FILE *f, FILE *err);
/* Debug messages (out_dbg) of level <= verbose are printed. */
void out_set_verbose(int verbose);
bool out_is_json(void);
/* Drops a half-built document (no output). */
void out_reset(void);

/* A list of rows (top level, or a field of the open object). */
void out_list_begin(const char *name);
void out_list_end(void);
void out_row_begin(void);
void out_row_end(void);

/* One object (top level, or a row-like element inside a list). */
void out_obj_begin(void);
void out_obj_end(void);

/* Fields of the open row or object. A NULL string is null ("-"). */
void out_str(const char *key, const char *val);
void out_strf(const char *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void out_u64(const char *key, uint64_t v);
void out_i64(const char *key, int64_t v);
void out_double(const char *key, double v); /* text: 2 decimals */
void out_bool(const char *key, bool v);     /* text: yes / no */
void out_null(const char *key);

/* JSON Lines: one object per line, flushed at once. */
void out_line_begin(void);
void out_line_end(void);

/* Messages, all to the error stream except out_err in JSON mode. */
void out_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void out_verr(const char *fmt, va_list ap);
void out_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void out_dbg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Free everything (at exit; leak checkers). */
void out_fini(void);

#endif /* FP_CLI_OUT_H */
