// SPDX-License-Identifier: BSD-2-Clause
/*
 * The policy parser (policy.h): a line is split into words (spaces and
 * tabs; '#' starting a word begins a comment), the first word names the
 * line's kind, the rest are terms. Every error is reported, each with the
 * line and the column of the word it is about; a line with an error adds
 * no rule, and a policy with any error is refused whole.
 */
#include "proxy/policy.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/values.h"

const char *const fp_px_method_names[] = {
	"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", NULL,
};

static const char *const keywords[] = {
	"default", "challenge-key", "allow", "deny", "challenge", "limit", NULL,
};

static const char *const terms[] = {
	"method", "path", "host", "header", "client", "sni", "status", "burst", "by",
	"challenge", NULL,
};

#define WORDS_MAX 64

struct word {
	const char *s;
	size_t n;
	unsigned col;
};

struct pctx {
	struct fp_diags *d;
	unsigned line;
	struct fp_px_rule *r;
	bool seen[16];     /* terms given (index into terms[]), for repeats */
	unsigned http_col; /* column of the first HTTP term, 0 if none */
	bool failed;
};

#define SHOWN(w) (int)((w)->n > 60 ? 60 : (w)->n), (w)->s

static void err(struct pctx *c, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void err(struct pctx *c, unsigned col, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fp_diags__add(c->d, c->line, col, "%s", msg);
	c->failed = true;
}

const char *fp_px_action__name(enum fp_px_action a)
{
	switch (a) {
	case FP_PX_ALLOW: return "allow";
	case FP_PX_DENY: return "deny";
	case FP_PX_CHALLENGE: return "challenge";
	case FP_PX_LIMIT: return "limit";
	}
	return "?";
}

uint32_t fp_px_method__bit(const char *s, size_t n)
{
	for (unsigned i = 0; fp_px_method_names[i]; i++)
		if (strlen(fp_px_method_names[i]) == n && !memcmp(fp_px_method_names[i], s, n))
			return 1u << i;
	return 0;
}

static bool word_is(const struct word *w, const char *s)
{
	return w->n == strlen(s) && !memcmp(w->s, s, w->n);
}

/* "GET,POST": every name a method in upper case (methods are case-sensitive). */
static bool is_method_list(const struct word *w)
{
	size_t i = 0;

	while (i < w->n) {
		size_t j = i;

		while (j < w->n && w->s[j] != ',')
			j++;
		if (!fp_px_method__bit(w->s + i, j - i))
			return false;
		i = j + 1;
	}
	return w->n > 0 && w->s[w->n - 1] != ',';
}

static void parse_methods(struct pctx *c, const struct word *w)
{
	size_t i = 0;

	while (i <= w->n) {
		size_t j = i;
		uint32_t bit;

		while (j < w->n && w->s[j] != ',')
			j++;
		bit = fp_px_method__bit(w->s + i, j - i);
		if (!bit) {
			const char *sug = fp_val__suggest(w->s + i, j - i, fp_px_method_names);

			err(c, w->col + (unsigned)i, "unknown method '%.*s'%s%s%s (methods: GET HEAD "
			    "POST PUT DELETE CONNECT OPTIONS TRACE PATCH, upper case)",
			    (int)(j - i > 40 ? 40 : j - i), w->s + i, sug ? "; did you mean '" : "",
			    sug ? sug : "", sug ? "'?" : "");
			return;
		}
		if (c->r->methods & bit) {
			err(c, w->col + (unsigned)i, "method '%.*s' listed twice", (int)(j - i),
			    w->s + i);
			return;
		}
		c->r->methods |= bit;
		i = j + 1;
	}
}

static void parse_path(struct pctx *c, const struct word *w)
{
	struct fp_px_rule *r = c->r;
	const char *star = memchr(w->s, '*', w->n);
	size_t n = w->n;
	long len;

	if (!n || w->s[0] != '/') {
		err(c, w->col, "path '%.*s' must start with '/'", SHOWN(w));
		return;
	}
	if (star && star != w->s + n - 1) {
		err(c, w->col + (unsigned)(star - w->s),
		    "'*' only at the end of a path (a prefix), in '%.*s'", SHOWN(w));
		return;
	}
	if (star) {
		r->path_prefix = true;
		n--;
	}
	if (n + 2 > sizeof(r->path)) {
		err(c, w->col, "path longer than %zu bytes", sizeof(r->path) - 2);
		return;
	}
	len = fp_http__normalise_path(w->s, n, r->path, sizeof(r->path));
	if (len < 0) {
		err(c, w->col, "path '%.*s' is one the proxy refuses in requests (a bad or "
		    "refused %%-encoding, or a character not allowed in a path)", SHOWN(w));
		return;
	}
	/* an exact path is matched without its trailing '/', as requests are */
	if (!r->path_prefix)
		len = (long)fp_http__match_len(r->path, (size_t)len);
	r->path[len] = 0;
	r->path_len = (uint32_t)len;
	r->has_path = true;
}

/* host/sni NAME: letters, digits, '-', '.', lower-cased; a trailing '.'
 * dropped; "*.SUFFIX" matches any name that ends in ".SUFFIX" */
static void parse_name(struct pctx *c, const struct word *w, const char *kw, char *out)
{
	size_t n = w->n, from = 0;

	if (n && w->s[n - 1] == '.')
		n--;
	if (!n || n >= FP_PX_NAME_MAX) {
		err(c, w->col, "%s name must be 1..%d characters", kw, FP_PX_NAME_MAX - 1);
		return;
	}
	if (w->s[0] == '*') {
		if (n < 3 || w->s[1] != '.' || w->s[2] == '.') {
			err(c, w->col, "a wildcard %s name is '*.SUFFIX' (a '*' label first, then "
			    "at least one label), not '%.*s'", kw, SHOWN(w));
			return;
		}
		out[0] = '*';
		out[1] = '.';
		from = 2;
	}
	for (size_t i = from; i < n; i++) {
		unsigned char ch = (unsigned char)w->s[i];

		if (!isalnum(ch) && ch != '-' && ch != '.' && ch != '_' &&
		    !(ch == ':' && !strcmp(kw, "host")) && !(ch == '[' || ch == ']')) {
			err(c, w->col + (unsigned)i, "character '%c' not allowed in a %s name",
			    isprint(ch) ? ch : '?', kw);
			return;
		}
		out[i] = (char)tolower(ch);
	}
	out[n] = 0;
}

static bool is_tchar(unsigned char ch)
{
	return isalnum(ch) || (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

static void parse_header(struct pctx *c, const struct word *w)
{
	struct fp_px_rule *r = c->r;
	const char *eq = memchr(w->s, '=', w->n);
	size_t nn = eq ? (size_t)(eq - w->s) : w->n;

	if (!nn || nn >= sizeof(r->header_name)) {
		err(c, w->col, "header name must be 1..%zu characters", sizeof(r->header_name) - 1);
		return;
	}
	for (size_t i = 0; i < nn; i++) {
		if (!is_tchar((unsigned char)w->s[i])) {
			err(c, w->col + (unsigned)i, "character not allowed in a header name");
			return;
		}
		r->header_name[i] = (char)tolower((unsigned char)w->s[i]);
	}
	r->header_name[nn] = 0;
	if (eq) {
		size_t vn = w->n - nn - 1;

		if (vn >= sizeof(r->header_value)) {
			err(c, w->col + (unsigned)nn + 1, "header value longer than %zu bytes",
			    sizeof(r->header_value) - 1);
			return;
		}
		memcpy(r->header_value, eq + 1, vn);
		r->header_value[vn] = 0;
		r->header_has_value = true;
	}
}

static void parse_status(struct pctx *c, const struct word *w)
{
	uint64_t v;

	if (c->r->action != FP_PX_DENY && c->r->action != FP_PX_LIMIT) {
		err(c, w->col, "'status' only with deny or limit");
		return;
	}
	if (fp_val__uint(w->s, w->n, 599, &v) || v < 400) {
		err(c, w->col, "status must be 400..599, got '%.*s'", SHOWN(w));
		return;
	}
	c->r->status = (uint16_t)v;
}

static bool limit_only(struct pctx *c, const struct word *kw)
{
	if (c->r->action == FP_PX_LIMIT)
		return true;
	err(c, kw->col, "'%.*s' only with limit", SHOWN(kw));
	return false;
}

/* One term (w[0]) and its value (w[1], may be past the end: n). Returns the
 * words used. */
static size_t parse_term(struct pctx *c, const struct word *w, size_t n)
{
	int t = -1;

	for (int i = 0; terms[i]; i++)
		if (word_is(w, terms[i]))
			t = i;
	if (t < 0) {
		if (is_method_list(w) || (w->n && isupper((unsigned char)w->s[0]))) {
			if (c->seen[0])
				err(c, w->col, "methods given twice");
			c->seen[0] = true;
			parse_methods(c, w);
			if (!c->http_col)
				c->http_col = w->col;
			return 1;
		}
		const char *sug = fp_val__suggest(w->s, w->n, terms);

		err(c, w->col, "unknown term '%.*s'%s%s%s", SHOWN(w), sug ? "; did you mean '" : "",
		    sug ? sug : "", sug ? "'?" : "");
		return n; /* what follows cannot be read reliably: skip the line */
	}
	if (c->seen[t]) {
		err(c, w->col, "'%s' given twice", terms[t]);
		return n > 1 && strcmp(terms[t], "challenge") ? 2 : 1;
	}
	c->seen[t] = true;
	if (!strcmp(terms[t], "challenge")) {
		if (limit_only(c, w))
			c->r->limit_challenge = true;
		return 1;
	}
	if (n < 2) {
		err(c, w->col + (unsigned)w->n, "'%s' needs a value", terms[t]);
		return 1;
	}
	const struct word *v = w + 1;

	switch (t) {
	case 0: parse_methods(c, v); break;
	case 1: parse_path(c, v); break;
	case 2: parse_name(c, v, "host", c->r->host); break;
	case 3: parse_header(c, v); break;
	case 4: {
		char e[FP_ERR_MAX];

		if (fp_val__cidr(v->s, v->n, "client", &c->r->client, e, sizeof(e)))
			err(c, v->col, "%s", e);
		c->r->has_client = true;
		break;
	}
	case 5: parse_name(c, v, "sni", c->r->sni); break;
	case 6: parse_status(c, v); break;
	case 7: {
		uint64_t b;

		if (!limit_only(c, w))
			break;
		if (fp_val__uint(v->s, v->n, UINT32_MAX, &b) || !b)
			err(c, v->col, "burst must be 1..4294967295, got '%.*s'", SHOWN(v));
		else
			c->r->burst = (uint32_t)b;
		break;
	}
	case 8:
		if (!limit_only(c, w))
			break;
		if (word_is(v, "client"))
			c->r->by = FP_PX_BY_CLIENT;
		else if (word_is(v, "all"))
			c->r->by = FP_PX_BY_ALL;
		else
			err(c, v->col, "expected client or all after 'by', got '%.*s'", SHOWN(v));
		break;
	}
	if (t <= 3 && !c->http_col)
		c->http_col = w->col;
	return 2;
}

static void parse_rule(struct pctx *c, const struct word *w, size_t n, enum fp_px_action a)
{
	struct fp_px_rule *r = c->r;
	size_t i = 1;

	memset(r, 0, sizeof(*r));
	r->line = c->line;
	r->action = a;
	r->status = a == FP_PX_DENY ? 403 : a == FP_PX_LIMIT ? 429 : 0;
	if (a == FP_PX_LIMIT) {
		char e[FP_ERR_MAX];

		if (n < 2) {
			err(c, w->col + (unsigned)w->n, "limit needs a rate (N/s or N/m)");
			return;
		}
		if (fp_val__rate(w[1].s, w[1].n, &r->rate_count, &r->rate_period_s, e, sizeof(e)))
			err(c, w[1].col, "%s", e);
		i = 2;
	}
	while (i < n)
		i += parse_term(c, &w[i], n - i);
	if (a == FP_PX_LIMIT && !r->burst)
		r->burst = r->rate_count;
	if (r->sni[0] && c->http_col)
		err(c, c->http_col, "an sni rule decides a TLS connection: no method, path, host "
		    "or header terms with it");
	else if (r->sni[0] && (a == FP_PX_CHALLENGE || r->limit_challenge))
		err(c, w->col, "an sni rule cannot challenge: a TLS connection the proxy does not "
		    "terminate cannot be redirected (deny or limit it)");
}

/* Splits a line into words; returns the count, or WORDS_MAX + 1 if too many. */
static size_t split(struct pctx *c, const char *s, size_t len, struct word *w)
{
	size_t i = 0, n = 0;

	while (i < len) {
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i >= len || s[i] == '#')
			break;
		size_t b = i;

		while (i < len && s[i] != ' ' && s[i] != '\t') {
			if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
				err(c, (unsigned)i + 1, "control character in the policy");
				return 0;
			}
			i++;
		}
		if (n == WORDS_MAX) {
			err(c, (unsigned)b + 1, "more than %d words on one line", WORDS_MAX);
			return 0;
		}
		w[n++] = (struct word){ s + b, i - b, (unsigned)b + 1 };
	}
	return n;
}

static int parse_line(struct pctx *c, struct fp_px_policy *pol, const char *s, size_t len,
		      size_t *cap)
{
	struct word w[WORDS_MAX];
	struct fp_px_rule rule;
	size_t n = split(c, s, len, w);
	int k = -1;

	if (!n)
		return 0;
	for (int i = 0; keywords[i]; i++)
		if (word_is(&w[0], keywords[i]))
			k = i;
	switch (k) {
	case 0: /* default */
		if (pol->default_line) {
			err(c, w[0].col, "second 'default' line (the first is on line %u)",
			    pol->default_line);
		} else if (n < 2) {
			err(c, w[0].col + 7, "expected allow or deny after 'default'");
		} else if (!word_is(&w[1], "allow") && !word_is(&w[1], "deny")) {
			err(c, w[1].col, "expected allow or deny after 'default', got '%.*s'",
			    SHOWN(&w[1]));
		} else if (n > 2) {
			err(c, w[2].col, "unexpected '%.*s' after 'default %.*s'", SHOWN(&w[2]),
			    SHOWN(&w[1]));
		} else {
			pol->default_action = word_is(&w[1], "allow") ? FP_PX_ALLOW : FP_PX_DENY;
			pol->default_line = c->line;
		}
		return 0;
	case 1: /* challenge-key FILE */
		if (n != 2 || w[1].n >= sizeof(pol->challenge_key))
			err(c, n < 2 ? w[0].col + 13 : w[n > 2 ? 2 : 1].col,
			    "expected one FILE (the challenge's HMAC key) after 'challenge-key'");
		else if (pol->challenge_key[0])
			err(c, w[0].col, "second 'challenge-key' line");
		else
			memcpy(pol->challenge_key, w[1].s, w[1].n);
		return 0;
	case -1: {
		const char *sug = fp_val__suggest(w[0].s, w[0].n, keywords);

		err(c, w[0].col, "unknown action '%.*s'%s%s%s (allow, deny, challenge, limit, "
		    "default, challenge-key)", SHOWN(&w[0]), sug ? "; did you mean '" : "",
		    sug ? sug : "", sug ? "'?" : "");
		return 0;
	}
	}
	c->r = &rule;
	c->failed = false;
	memset(c->seen, 0, sizeof(c->seen));
	c->http_col = 0;
	parse_rule(c, w, n, k == 2 ? FP_PX_ALLOW : k == 3 ? FP_PX_DENY
			      : k == 4 ? FP_PX_CHALLENGE : FP_PX_LIMIT);
	if (c->failed)
		return 0;
	if (pol->n == FP_PX_RULES_MAX) {
		err(c, 1, "more than %d rules", FP_PX_RULES_MAX);
		return 0;
	}
	if (pol->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct fp_px_rule *v = realloc(pol->rules, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		pol->rules = v;
		*cap = nc;
	}
	pol->rules[pol->n++] = rule;
	return 0;
}

int fp_px_policy__parse(const char *text, size_t len, struct fp_px_policy *pol,
			struct fp_diags *diags)
{
	struct pctx c = { .d = diags };
	size_t start = 0, cap = 0, errs = diags ? diags->n : 0;
	bool any_error = false;

	memset(pol, 0, sizeof(*pol));
	pol->default_action = FP_PX_ALLOW;
	while (start < len) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len, l = end - start;
		int e;

		c.line++;
		if (l && text[start + l - 1] == '\r')
			l--;
		e = parse_line(&c, pol, text + start, l, &cap);
		if (e) {
			fp_px_policy__free(pol);
			return e;
		}
		any_error |= c.failed;
		start = end + 1;
	}
	for (size_t i = 0; i < pol->n; i++) {
		struct fp_px_rule *r = &pol->rules[i];

		if ((r->action == FP_PX_CHALLENGE || r->limit_challenge) && !pol->challenge_key[0]) {
			c.line = r->line;
			err(&c, 1, "a challenge needs a 'challenge-key FILE' line (the HMAC key)");
			any_error = true;
		}
	}
	if (any_error || (diags && diags->n > errs)) {
		fp_px_policy__free(pol);
		return -EINVAL;
	}
	return 0;
}

void fp_px_policy__free(struct fp_px_policy *pol)
{
	if (!pol)
		return;
	free(pol->rules);
	memset(pol, 0, sizeof(*pol));
	pol->default_action = FP_PX_ALLOW;
}
