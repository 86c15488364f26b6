// SPDX-License-Identifier: BSD-2-Clause
/*
 * The dns generator's pattern language (bpfgen.h: fp_dns_pattern__parse),
 * compatible with Cloudflare's bpfgen and stricter where it was wrong:
 *
 *   example.com        exactly that name (leading and trailing dots ignored)
 *   .                  the root name (a root-zone query: the name is one 0 byte)
 *   *.example.com      one label of 1..63 bytes, then example.com
 *   *{4-255}.x.com     one label of 4..63 bytes (bounds clamped to 1..63)
 *   fin?.me            '?' matches any one byte
 *   example.**         "example" then any suffix (example.com, example.co.uk)
 *   example**          a first label starting with "example", then anything
 *   %2e, %3f, ...      percent-encoded bytes inside a label
 *
 * A '*' is a wildcard only when it is the whole label ("a*.b" is literal).
 * Refused (the reference accepted them and generated code that could never
 * match a real name, or crashed): an empty pattern, an empty label ("a..b"),
 * a label over 63 bytes, a name over 255 bytes on the wire, a star range
 * that leaves no length in 1..63.
 */
#include "bpfgen/bpfgen.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DNS_MAX_LABEL 63
#define DNS_MAX_NAME 255

static int perr(char *err, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int perr(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool py_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Percent-decoding as urllib.unquote: "%XX" with two hex digits is a byte,
 * anything else stays as written. Returns the decoded length. */
static size_t unquote(const char *s, size_t n, unsigned char *out)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			out[o++] = (unsigned char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else {
			out[o++] = (unsigned char)s[i];
		}
	}
	return o;
}

/* "*" or "*{MIN-MAX}" (decimal digits): 1 and the bounds, else 0. */
static int parse_star(const char *s, size_t n, bool *ranged, unsigned *mi, unsigned *ma)
{
	size_t i = 2;
	unsigned long v[2] = { 0, 0 };
	int k;

	*ranged = false;
	if (n == 1 && s[0] == '*')
		return 1;
	if (n < 6 || s[0] != '*' || s[1] != '{' || s[n - 1] != '}')
		return 0;
	for (k = 0; k < 2; k++) {
		size_t start = i;

		while (i < n - 1 && isdigit((unsigned char)s[i])) {
			if (v[k] < 100000)
				v[k] = v[k] * 10 + (unsigned long)(s[i] - '0');
			i++;
		}
		if (i == start)
			return 0;
		if (k == 0 && (i >= n - 1 || s[i++] != '-'))
			return 0;
	}
	if (i != n - 1)
		return 0;
	*ranged = true;
	*mi = (unsigned)v[0];
	*ma = (unsigned)v[1];
	return 1;
}

static struct fp_dns_step *add_step(struct fp_dns_pattern *p)
{
	struct fp_dns_step *v = realloc(p->steps, (p->nsteps + 1) * sizeof(*v));

	if (!v)
		return NULL;
	p->steps = v;
	memset(&v[p->nsteps], 0, sizeof(*v));
	v[p->nsteps].freelen = -1;
	return &v[p->nsteps++];
}

/* Appends one byte to a literal step. */
static void put(struct fp_dns_step *st, unsigned char raw, unsigned char val, unsigned char mask)
{
	st->raw[st->n] = raw;
	st->mask[st->n] = mask;
	st->val[st->n] = (unsigned char)(val | mask);
	st->n++;
}

static int add_literal(struct fp_dns_pattern *p, const unsigned char *lab, size_t len,
		       bool freelen, bool icase, char *err, size_t errlen)
{
	struct fp_dns_step *st = p->nsteps ? &p->steps[p->nsteps - 1] : NULL;
	size_t i;

	if (!st || st->star)
		st = add_step(p);
	if (!st)
		return -ENOMEM;
	if (st->n + 1 + len > DNS_MAX_NAME)
		return perr(err, errlen, "name longer than %d bytes on the wire", DNS_MAX_NAME);
	if (freelen) {
		st->freelen = (int)st->n;
		st->freemin = (unsigned)len;
		put(st, (unsigned char)len, (unsigned char)len, 0xff);
	} else {
		put(st, (unsigned char)len, (unsigned char)len, 0);
	}
	for (i = 0; i < len; i++) {
		unsigned char c = lab[i];

		if (c == '?')
			put(st, c, c, 0xff);
		else if (icase && isalpha(c))
			put(st, c, c, 0x20);
		else
			put(st, c, c, 0);
	}
	return 0;
}

static int add_star(struct fp_dns_pattern *p, bool ranged, unsigned mi, unsigned ma,
		    char *err, size_t errlen)
{
	struct fp_dns_step *st;
	unsigned lo = ranged ? mi : 1, hi = ranged ? ma : DNS_MAX_LABEL;

	if (lo < 1)
		lo = 1;
	if (hi > DNS_MAX_LABEL)
		hi = DNS_MAX_LABEL;
	if (lo > hi)
		return perr(err, errlen, "'*{%u-%u}' allows no label length (labels are 1 to 63 bytes)",
			    mi, ma);
	st = add_step(p);
	if (!st)
		return -ENOMEM;
	st->star = true;
	st->ranged = ranged;
	st->umin = mi;
	st->umax = ma;
	st->min = lo;
	st->max = hi;
	return 0;
}

int fp_dns_pattern__parse(const char *text, bool icase, struct fp_dns_pattern *p,
			  char *err, size_t errlen)
{
	size_t b = 0, e = strlen(text), start, wire = 0, i;
	bool free_suffix, exact = false, dotted;
	unsigned char lab[1024];
	int r = 0;

	memset(p, 0, sizeof(*p));
	while (b < e && py_space(text[b]))
		b++;
	while (e > b && py_space(text[e - 1]))
		e--;
	dotted = b < e && text[b] == '.';
	while (b < e && text[b] == '.')
		b++;
	free_suffix = e - b >= 2 && text[e - 1] == '*' && text[e - 2] == '*';
	if (free_suffix) {
		e -= 2;
		exact = e > b && text[e - 1] == '.';
	}
	while (e > b && text[e - 1] == '.')
		e--;
	if (e == b && !free_suffix && !dotted)
		return perr(err, errlen, "empty pattern '%s'", text);
	if (e == b && !free_suffix) { /* only dots: the root name, its one 0 byte */
		r = add_literal(p, (const unsigned char *)"", 0, false, icase, err, errlen);
		if (r)
			goto fail;
		return 0;
	}
	if (e - b > sizeof(lab) - 1)
		return perr(err, errlen, "name longer than %d bytes on the wire", DNS_MAX_NAME);

	/* Labels of [b, e), then the root label unless a free suffix follows. */
	for (start = b;; start = i + 1) {
		bool last, ranged;
		unsigned mi = 0, ma = 0;
		size_t n;

		for (i = start; i < e && text[i] != '.'; i++)
			;
		last = i >= e;
		if (i == start && !(last && free_suffix)) {
			r = perr(err, errlen, "empty label in '%s'", text);
			goto fail;
		}
		if (parse_star(text + start, i - start, &ranged, &mi, &ma)) {
			r = add_star(p, ranged, mi, ma, err, errlen);
			if (!r)
				wire += 1 + p->steps[p->nsteps - 1].min;
		} else {
			n = unquote(text + start, i - start, lab);
			if (n > DNS_MAX_LABEL) {
				r = perr(err, errlen, "label '%.*s' is %zu bytes; at most %d",
					 (int)(i - start), text + start, n, DNS_MAX_LABEL);
				goto fail;
			}
			r = add_literal(p, lab, n, last && free_suffix && !exact, icase, err, errlen);
			wire += 1 + n;
		}
		if (r)
			goto fail;
		if (last)
			break;
	}
	if (!free_suffix)
		r = add_literal(p, lab, 0, false, icase, err, errlen), wire += 1;
	else
		wire += 1; /* the shortest completion: the root label */
	if (r)
		goto fail;
	if (wire > DNS_MAX_NAME) {
		r = perr(err, errlen, "'%s' is at least %zu bytes on the wire; names are at most %d",
			 text, wire, DNS_MAX_NAME);
		goto fail;
	}
	return 0;
fail:
	if (r == -ENOMEM)
		perr(err, errlen, "out of memory");
	fp_dns_pattern__free(p);
	return r;
}

void fp_dns_pattern__free(struct fp_dns_pattern *p)
{
	free(p->steps);
	p->steps = NULL;
	p->nsteps = 0;
}
