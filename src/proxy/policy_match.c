// SPDX-License-Identifier: BSD-2-Clause
/*
 * Matching a request (or a TLS connection) against the policy (policy.h):
 * the rules in order, first match wins; a limit rule within its rate lets
 * the search go on.
 */
#include "proxy/policy.h"

#include <string.h>
#include <strings.h>

/* Host value without its port and trailing dot: "Example.COM.:8080" -> "Example.COM" */
static size_t host_len(const char *h, size_t n)
{
	size_t i = n;

	if (n && h[0] == '[') { /* [v6]:port */
		const char *e = memchr(h, ']', n);

		if (e)
			n = (size_t)(e - h) + 1;
	} else {
		while (i > 0 && h[i - 1] >= '0' && h[i - 1] <= '9')
			i--;
		if (i > 0 && i < n && h[i - 1] == ':')
			n = i - 1;
		else if (i > 0 && i == n && h[i - 1] == ':')
			n = i - 1;
	}
	if (n > 1 && h[n - 1] == '.')
		n--;
	return n;
}

/* want is lower case: "name" exactly, or "*.suffix": a name with at least
 * one more label in front of ".suffix" */
static bool name_eq(const char *want, const char *s, size_t n)
{
	size_t wn = strlen(want);

	if (want[0] == '*') {
		wn--; /* ".suffix" */
		return n > wn && s[n - wn - 1] != '.' && !strncasecmp(want + 1, s + n - wn, wn);
	}
	return wn == n && !strncasecmp(want, s, n);
}

static bool cidr_match(const struct fp_cidr *c, const struct fp_px_view *v)
{
	unsigned full = c->plen / 8, rest = c->plen % 8;

	if (c->family != v->family)
		return false;
	if (memcmp(c->addr, v->addr, full))
		return false;
	return !rest || !((c->addr[full] ^ v->addr[full]) & (uint8_t)(0xff << (8 - rest)));
}

static bool header_match(const struct fp_px_rule *r, const struct fp_px_view *v)
{
	const struct fp_http_req *q = v->req;

	for (uint32_t i = 0; i < q->n_headers; i++) {
		const struct fp_http_header *h = &q->headers[i];

		if (!fp_http__span_ieq(v->buf, h->name, r->header_name))
			continue;
		if (!r->header_has_value)
			return true;
		if (h->value.len == strlen(r->header_value) &&
		    !memcmp(v->buf + h->value.off, r->header_value, h->value.len))
			return true;
	}
	return false;
}

bool fp_px_rule__match(const struct fp_px_rule *r, const struct fp_px_view *v)
{
	bool http_terms = r->methods || r->has_path || r->host[0] || r->header_name[0];

	if (r->has_client && !cidr_match(&r->client, v))
		return false;
	if (v->tls) {
		if (http_terms)
			return false;
		return !r->sni[0] || (v->sni && name_eq(r->sni, v->sni, host_len(v->sni, v->sni_len)));
	}
	if (r->sni[0])
		return false;
	if (r->methods) {
		const struct fp_http_span m = v->req->method;

		if (!(fp_px_method__bit(v->buf + m.off, m.len) & r->methods))
			return false;
	}
	if (r->has_path) {
		if (r->path_prefix) {
			if (v->path_len < r->path_len || memcmp(v->path, r->path, r->path_len))
				return false;
		} else {
			size_t n = fp_http__match_len(v->path, v->path_len);

			if (n != r->path_len || memcmp(v->path, r->path, n))
				return false;
		}
	}
	if (r->host[0]) {
		const char *h = v->buf + v->req->host.off;

		if (!name_eq(r->host, h, host_len(h, v->req->host.len)))
			return false;
	}
	if (r->header_name[0] && !header_match(r, v))
		return false;
	return true;
}

void fp_px_policy__decide(const struct fp_px_policy *pol, const struct fp_px_view *v,
			  fp_px_over_fn over, void *ctx, struct fp_px_verdict *out)
{
	for (size_t i = 0; i < pol->n; i++) {
		const struct fp_px_rule *r = &pol->rules[i];

		if (!fp_px_rule__match(r, v))
			continue;
		if (r->action == FP_PX_LIMIT) {
			if (!over || !over(ctx, i, v))
				continue;
			if (r->limit_challenge && v->cookie_ok)
				continue; /* past the rate, but it proved it keeps cookies */
			out->action = r->limit_challenge ? FP_PX_CHALLENGE : FP_PX_DENY;
			out->status = r->status;
		} else if (r->action == FP_PX_CHALLENGE && v->cookie_ok) {
			continue;
		} else {
			out->action = r->action;
			out->status = r->status;
		}
		out->rule = (long)i;
		return;
	}
	out->action = pol->default_action;
	out->status = pol->default_action == FP_PX_DENY ? 403 : 0;
	out->rule = -1;
}
