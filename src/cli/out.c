// SPDX-License-Identifier: BSD-2-Clause
/*
 * The output layer (see out.h): calls build a jansson tree; the call that
 * closes the top-level list or object renders it once, as JSON or as text.
 * Building a tree in both modes keeps one code path for the fields, and lets
 * text tables size their columns from every row.
 */
#include "cli/out.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define OUT_DEPTH 16
#define OUT_LINE_COLS 32

static struct {
	enum out_mode mode;
	FILE *f, *err;
	int verbose;
	json_t *stack[OUT_DEPTH];
	int depth;
	bool streaming;                 /* the open object is a JSON Lines line */
	int line_ncols;                 /* text streaming: header printed, widths */
	int line_w[OUT_LINE_COLS];
} o;

static FILE *out_f(void) { return o.f ? o.f : stdout; }
static FILE *err_f(void) { return o.err ? o.err : stderr; }

void out_init(enum out_mode mode, FILE *f, FILE *err)
{
	out_reset();
	o.mode = mode;
	o.f = f;
	o.err = err;
	o.line_ncols = 0;
}

void out_set_verbose(int verbose) { o.verbose = verbose; }
bool out_is_json(void) { return o.mode != OUT_TEXT; }

void out_reset(void)
{
	if (o.depth > 0)
		json_decref(o.stack[0]);
	o.depth = 0;
	o.streaming = false;
}

void out_fini(void) { out_reset(); }

/* ---- values ------------------------------------------------------------ */

/* json_string() refuses invalid UTF-8: keep the text, replace bad bytes. */
static json_t *str_value(const char *s)
{
	json_t *v;
	char *copy;
	size_t i;

	if (!s)
		return json_null();
	v = json_string(s);
	if (v)
		return v;
	copy = strdup(s);
	if (!copy)
		return json_null();
	for (i = 0; copy[i]; i++)
		if ((unsigned char)copy[i] >= 0x80)
			copy[i] = '?';
	v = json_string(copy);
	free(copy);
	return v ? v : json_null();
}

static json_t *top(void) { return o.depth > 0 ? o.stack[o.depth - 1] : NULL; }

static void set_field(const char *key, json_t *v)
{
	json_t *t = top();

	if (!v)
		return;
	if (!t || !json_is_object(t) || !key) {
		json_decref(v); /* misuse: a field outside a row or object */
		return;
	}
	json_object_set_new(t, key, v);
}

void out_str(const char *key, const char *val) { set_field(key, str_value(val)); }

void out_strf(const char *key, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	out_str(key, s);
	free(s);
}

void out_u64(const char *key, uint64_t v)
{
	set_field(key, v <= INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v));
}

void out_i64(const char *key, int64_t v) { set_field(key, json_integer(v)); }
void out_double(const char *key, double v) { set_field(key, json_real(v)); }
void out_bool(const char *key, bool v) { set_field(key, json_boolean(v)); }
void out_null(const char *key) { set_field(key, json_null()); }

/* ---- text rendering ---------------------------------------------------- */

/* A scalar as text, into buf. */
static const char *text_of(json_t *v, char *buf, size_t size)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		return json_string_value(v);
	case JSON_INTEGER:
		snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return buf;
	case JSON_REAL:
		snprintf(buf, size, "%.2f", json_real_value(v));
		return buf;
	case JSON_TRUE:
		return "yes";
	case JSON_FALSE:
		return "no";
	case JSON_NULL:
		return "-";
	default: {
		char *s = json_dumps(v, JSON_COMPACT);

		snprintf(buf, size, "%s", s ? s : "?");
		free(s);
		return buf;
	}
	}
}

static void upper_key(FILE *f, const char *key, int width, bool right)
{
	char buf[64];
	size_t i;

	for (i = 0; key[i] && i < sizeof(buf) - 1; i++)
		buf[i] = (char)toupper((unsigned char)key[i]);
	buf[i] = 0;
	fprintf(f, right ? "%*s" : "%-*s", width, buf);
}

/* An array of objects as an aligned table: columns in first-seen order. */
static void render_table(FILE *f, json_t *arr)
{
	const char *keys[OUT_LINE_COLS];
	int w[OUT_LINE_COLS];
	bool num[OUT_LINE_COLS];
	int ncols = 0, c;
	size_t i;
	json_t *row, *v;
	const char *key;
	char buf[512];

	json_array_foreach(arr, i, row) {
		if (!json_is_object(row)) {
			fprintf(f, "%s\n", text_of(row, buf, sizeof(buf)));
			continue;
		}
		json_object_foreach(row, key, v) {
			for (c = 0; c < ncols && strcmp(keys[c], key); c++)
				;
			if (c == ncols) {
				if (ncols == OUT_LINE_COLS)
					continue;
				keys[ncols] = key;
				w[ncols] = (int)strlen(key);
				num[ncols] = true;
				ncols++;
			}
			int len = (int)strlen(text_of(v, buf, sizeof(buf)));
			if (len > w[c])
				w[c] = len;
			if (!json_is_number(v) && !json_is_null(v))
				num[c] = false;
		}
	}
	if (!ncols)
		return;
	for (c = 0; c < ncols; c++) {
		bool last = c == ncols - 1;
		upper_key(f, keys[c], last && !num[c] ? 0 : w[c], num[c]);
		fputs(last ? "\n" : "  ", f);
	}
	json_array_foreach(arr, i, row) {
		if (!json_is_object(row))
			continue;
		for (c = 0; c < ncols; c++) {
			bool last = c == ncols - 1;
			v = json_object_get(row, keys[c]);
			const char *s = v ? text_of(v, buf, sizeof(buf)) : "-";
			fprintf(f, num[c] ? "%*s" : "%-*s", last && !num[c] ? 0 : w[c], s);
			fputs(last ? "\n" : "  ", f);
		}
	}
}

/* An object: "key: value" lines, then each list field as a table. */
static void render_object(FILE *f, json_t *obj)
{
	const char *key;
	json_t *v;
	int w = 0;
	bool any = false;
	char buf[512];

	json_object_foreach(obj, key, v)
		if (!json_is_array(v) && (int)strlen(key) > w)
			w = (int)strlen(key);
	json_object_foreach(obj, key, v) {
		if (json_is_array(v))
			continue;
		fprintf(f, "%s:%*s %s\n", key, w - (int)strlen(key), "",
			text_of(v, buf, sizeof(buf)));
		any = true;
	}
	json_object_foreach(obj, key, v) {
		if (!json_is_array(v) || json_array_size(v) == 0)
			continue;
		if (any)
			fputc('\n', f);
		render_table(f, v);
		any = true;
	}
}

static void render(json_t *v)
{
	FILE *f = out_f();

	if (o.mode == OUT_TEXT) {
		if (json_is_array(v))
			render_table(f, v);
		else
			render_object(f, v);
	} else {
		size_t flags = JSON_REAL_PRECISION(12) |
			       (o.mode == OUT_JSON_PRETTY ? JSON_INDENT(2) : JSON_COMPACT);
		json_dumpf(v, f, flags);
		fputc('\n', f);
	}
	fflush(f);
}

/* ---- containers -------------------------------------------------------- */

static void push(json_t *v, const char *key)
{
	json_t *t = top();

	if (!v)
		return;
	if (o.depth == OUT_DEPTH) {
		json_decref(v);
		return;
	}
	if (t && json_is_array(t))
		json_array_append_new(t, v);
	else if (t && json_is_object(t) && key)
		json_object_set_new(t, key, v);
	else if (t) {
		json_decref(v); /* misuse: an unnamed container inside an object */
		return;
	}
	o.stack[o.depth++] = v;
}

static void pop(void)
{
	if (o.depth == 0)
		return;
	if (--o.depth == 0) {
		json_t *v = o.stack[0];

		render(v);
		json_decref(v);
	}
}

void out_list_begin(const char *name)
{
	push(json_array(), name ? name : "list");
}

void out_list_end(void) { pop(); }
void out_row_begin(void) { push(json_object(), NULL); }
void out_row_end(void) { pop(); }
void out_obj_begin(void) { push(json_object(), NULL); }
void out_obj_end(void) { pop(); }

/* ---- JSON Lines ------------------------------------------------------- */

void out_line_begin(void)
{
	out_reset();
	o.stack[o.depth++] = json_object();
	o.streaming = true;
}

static void line_text(FILE *f, json_t *obj)
{
	const char *key;
	json_t *v;
	char buf[512];
	int c = 0, n = 0;

	if (!o.line_ncols) {
		json_object_foreach(obj, key, v) {
			if (n == OUT_LINE_COLS)
				break;
			int len = (int)strlen(text_of(v, buf, sizeof(buf)));
			int kl = (int)strlen(key);
			o.line_w[n] = len > kl ? len : kl;
			if (o.line_w[n] < 6)
				o.line_w[n] = 6;
			n++;
		}
		o.line_ncols = n;
		json_object_foreach(obj, key, v) {
			if (c == o.line_ncols)
				break;
			upper_key(f, key, c == o.line_ncols - 1 ? 0 : o.line_w[c], false);
			fputs(c == o.line_ncols - 1 ? "\n" : "  ", f);
			c++;
		}
		c = 0;
	}
	json_object_foreach(obj, key, v) {
		bool last = c >= o.line_ncols - 1;
		int w = c < o.line_ncols ? o.line_w[c] : 0;

		fprintf(f, "%-*s", last ? 0 : w, text_of(v, buf, sizeof(buf)));
		fputs(last ? "\n" : "  ", f);
		if (last)
			break;
		c++;
	}
}

void out_line_end(void)
{
	FILE *f = out_f();
	json_t *v;

	if (!o.streaming || o.depth != 1) {
		out_reset();
		return;
	}
	v = o.stack[0];
	o.depth = 0;
	o.streaming = false;
	if (o.mode == OUT_TEXT)
		line_text(f, v);
	else {
		json_dumpf(v, f, JSON_COMPACT | JSON_REAL_PRECISION(12));
		fputc('\n', f);
	}
	json_decref(v);
	fflush(f);
}

/* ---- messages ---------------------------------------------------------- */

void out_verr(const char *fmt, va_list ap)
{
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	if (o.mode == OUT_TEXT) {
		fprintf(err_f(), "fastpath: %s\n", msg ? msg : fmt);
		fflush(err_f());
	} else {
		json_t *e = json_object();

		out_reset();
		json_object_set_new(e, "error", str_value(msg ? msg : fmt));
		o.stack[o.depth++] = e;
		pop();
	}
	free(msg);
}

void out_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out_verr(fmt, ap);
	va_end(ap);
}

void out_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("fastpath: warning: ", err_f());
	va_start(ap, fmt);
	vfprintf(err_f(), fmt, ap);
	va_end(ap);
	fputc('\n', err_f());
	fflush(err_f());
}

void out_dbg(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > o.verbose)
		return;
	fputs("fastpath: ", err_f());
	va_start(ap, fmt);
	vfprintf(err_f(), fmt, ap);
	va_end(ap);
	fputc('\n', err_f());
}
