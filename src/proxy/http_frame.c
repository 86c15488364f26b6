// SPDX-License-Identifier: BSD-2-Clause
/*
 * The request framer (http.h): a request head parsed from scratch on each
 * call (heads are bounded by max_head, so a re-parse costs at most that),
 * chunked bodies framed incrementally, and a whole-stream framer for tests.
 */
#include "proxy/http.h"

#include <string.h>

void fp_http_limits__default(struct fp_http_limits *lim)
{
	lim->max_line = FP_HTTP_MAX_LINE_DEFAULT;
	lim->max_head = FP_HTTP_MAX_HEAD_DEFAULT;
	lim->max_headers = FP_HTTP_MAX_HEADERS_DEFAULT;
}

/* RFC 9110 5.6.2 tchar */
static bool is_tchar(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return c && strchr("!#$%&'*+-.^_`|~", c);
}

/* characters of an origin-form or absolute-form target (RFC 3986 pchar, '/', '?') */
static bool is_target_char(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return c && strchr("-._~!$&'()*+,;=:@/?%", c);
}

static bool is_ctl(unsigned char c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

bool fp_http__span_ieq(const char *buf, struct fp_http_span s, const char *name)
{
	size_t n = strlen(name);

	return s.len == n && !strncasecmp(buf + s.off, name, n);
}

static int refuse(struct fp_http_req *req, int status, const char *why, size_t off)
{
	req->why = why;
	req->err_off = (uint32_t)off;
	return -status;
}

/*
 * Finds the end of the line starting at p (the CR of its CRLF) within
 * buf[0..end). Returns 1 with *eol set, 0 if the line is not complete, or
 * -400 on a bare CR/LF or a control character (tab allowed if tab_ok).
 */
static int find_eol(const char *buf, size_t p, size_t end, size_t len, bool tab_ok,
		    size_t *eol, struct fp_http_req *req)
{
	for (size_t i = p; i < end; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == '\r') {
			if (i + 1 >= len)
				return 0;
			if (buf[i + 1] != '\n')
				return refuse(req, 400, "bare CR", i);
			*eol = i;
			return 1;
		}
		if (c == '\n')
			return refuse(req, 400, "bare LF (lines end with CRLF)", i);
		if ((c == '\t' && !tab_ok) || is_ctl(c))
			return refuse(req, 400, "control character", i);
	}
	return 0;
}

/* Target forms: origin-form "/path?query" and absolute-form
 * "http://authority/path?query" (RFC 9112 3.2); others are refused. */
static int parse_target(const char *buf, struct fp_http_req *req)
{
	struct fp_http_span t = req->target;
	uint32_t p = t.off, end = t.off + t.len, q;

	for (uint32_t i = p; i < end; i++)
		if (!is_target_char((unsigned char)buf[i]))
			return refuse(req, 400, "character not allowed in the request target", i);
	if (buf[p] != '/') {
		if (t.len < 7 || strncasecmp(buf + p, "http://", 7))
			return refuse(req, 400, "request target is neither /path nor http://host/path",
				      p);
		p += 7;
		req->host.off = p;
		while (p < end && buf[p] != '/' && buf[p] != '?')
			p++;
		req->host.len = p - req->host.off;
		if (!req->host.len)
			return refuse(req, 400, "absolute-form target without a host", p);
		if (memchr(buf + req->host.off, '@', req->host.len))
			return refuse(req, 400, "userinfo in the request target", req->host.off);
	}
	for (q = p; q < end && buf[q] != '?'; q++)
		;
	req->path.off = p;
	req->path.len = q - p;
	req->query.off = q < end ? q + 1 : end;
	req->query.len = q < end ? end - q - 1 : 0;
	return 0;
}

static int parse_request_line(const char *buf, size_t p, size_t eol, struct fp_http_req *req)
{
	size_t i = p;

	while (i < eol && is_tchar((unsigned char)buf[i]))
		i++;
	if (i == p || i >= eol || buf[i] != ' ')
		return refuse(req, 400, "malformed method", i);
	req->method.off = (uint32_t)p;
	req->method.len = (uint32_t)(i - p);
	p = ++i;
	while (i < eol && buf[i] != ' ')
		i++;
	if (i == p || i >= eol)
		return refuse(req, 400, "malformed request target", i);
	req->target.off = (uint32_t)p;
	req->target.len = (uint32_t)(i - p);
	p = ++i;
	if (eol - p != 8 || strncmp(buf + p, "HTTP/", 5) || buf[p + 6] != '.')
		return refuse(req, 400, "malformed HTTP version", p);
	if (buf[p + 5] < '0' || buf[p + 5] > '9' || buf[p + 7] < '0' || buf[p + 7] > '9')
		return refuse(req, 400, "malformed HTTP version", p);
	if (buf[p + 5] != '1' || buf[p + 7] > '1')
		return refuse(req, 505, "HTTP version not supported (1.0 and 1.1 only)", p);
	req->version_minor = (uint8_t)(buf[p + 7] - '0');
	return parse_target(buf, req);
}

/* Content-Length: 1*DIGIT, at most 18 digits (no overflow). */
static int parse_cl(const char *v, uint32_t n, uint64_t *out)
{
	uint64_t x = 0;

	if (!n || n > 18)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	*out = x;
	return 0;
}

/* Connection: a comma list of tokens; close and keep-alive matter. */
static void parse_connection(const char *v, uint32_t n, bool *close, bool *keep)
{
	uint32_t i = 0;

	while (i < n) {
		uint32_t s, e;

		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		s = i;
		while (i < n && v[i] != ',')
			i++;
		e = i;
		while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e - s == 5 && !strncasecmp(v + s, "close", 5))
			*close = true;
		else if (e - s == 10 && !strncasecmp(v + s, "keep-alive", 10))
			*keep = true;
	}
}

struct head_seen {
	bool cl, te, close, keep;
};

static int parse_header(const char *buf, size_t p, size_t eol, struct fp_http_req *req,
			struct head_seen *s)
{
	struct fp_http_header *h;
	size_t i = p, v, ve;

	while (i < eol && is_tchar((unsigned char)buf[i]))
		i++;
	if (i < eol && (buf[i] == ' ' || buf[i] == '\t'))
		return refuse(req, 400, "whitespace before a header's colon", i);
	if (i == p || i >= eol || buf[i] != ':')
		return refuse(req, 400, "malformed header name", i);
	for (v = i + 1; v < eol && (buf[v] == ' ' || buf[v] == '\t'); v++)
		;
	for (ve = eol; ve > v && (buf[ve - 1] == ' ' || buf[ve - 1] == '\t'); ve--)
		;
	h = &req->headers[req->n_headers++];
	h->name = (struct fp_http_span){ (uint32_t)p, (uint32_t)(i - p) };
	h->value = (struct fp_http_span){ (uint32_t)v, (uint32_t)(ve - v) };

	if (fp_http__span_ieq(buf, h->name, "content-length")) {
		uint64_t cl;

		if (parse_cl(buf + v, (uint32_t)(ve - v), &cl))
			return refuse(req, 400, "invalid Content-Length", v);
		if (s->cl && cl != req->content_length)
			return refuse(req, 400, "conflicting Content-Length headers", p);
		s->cl = true;
		req->content_length = cl;
	} else if (fp_http__span_ieq(buf, h->name, "transfer-encoding")) {
		if (s->te)
			return refuse(req, 400, "Transfer-Encoding repeated", p);
		if (!fp_http__span_ieq(buf, h->value, "chunked"))
			return refuse(req, 400, "Transfer-Encoding other than chunked", v);
		s->te = true;
	} else if (fp_http__span_ieq(buf, h->name, "host")) {
		if (req->has_host)
			return refuse(req, 400, "Host repeated", p);
		req->has_host = true;
		if (!req->host.len) /* an absolute-form target's authority wins */
			req->host = h->value;
	} else if (fp_http__span_ieq(buf, h->name, "connection")) {
		parse_connection(buf + v, (uint32_t)(ve - v), &s->close, &s->keep);
	}
	return 0;
}

static int finish_head(const char *buf, struct fp_http_req *req, const struct head_seen *s)
{
	if (s->cl && s->te)
		return refuse(req, 400, "both Content-Length and Transfer-Encoding", req->head_len);
	if (s->te && req->version_minor == 0)
		return refuse(req, 400, "Transfer-Encoding on HTTP/1.0", req->head_len);
	if (req->version_minor == 1 && !req->has_host)
		return refuse(req, 400, "no Host header", req->head_len);
	req->body = s->te ? FP_HTTP_BODY_CHUNKED
		: req->content_length ? FP_HTTP_BODY_LENGTH : FP_HTTP_BODY_NONE;
	req->keep_alive = req->version_minor == 1 ? !s->close : s->keep && !s->close;
	(void)buf;
	return (int)req->head_len;
}

int fp_http__parse_head(const char *buf, size_t len, const struct fp_http_limits *lim,
			struct fp_http_req *req)
{
	size_t max_head = lim->max_head, end = len < max_head ? len : max_head;
	size_t p = 0, eol = 0, line_end;
	struct head_seen s = { 0 };
	int r;

	memset(req, 0, offsetof(struct fp_http_req, headers));
	req->n_headers = 0;
	/* empty lines before the request line */
	while (p + 1 < end && buf[p] == '\r' && buf[p + 1] == '\n')
		p += 2;
	if (p < end && buf[p] == '\n')
		return refuse(req, 400, "bare LF (lines end with CRLF)", p);
	req->skipped = (uint32_t)p / 2;

	/* the request line: 414 as soon as it is longer than max_line */
	line_end = p + lim->max_line + 1 < end ? p + lim->max_line + 1 : end;
	r = find_eol(buf, p, line_end, len, false, &eol, req);
	if (r < 0)
		return r;
	if (!r) {
		if (line_end - p > lim->max_line)
			return refuse(req, 414, "request line too long", p);
		if (end == max_head)
			return refuse(req, 431, "request head too long", p);
		return 0;
	}
	r = parse_request_line(buf, p, eol, req);
	if (r < 0)
		return r;
	p = eol + 2;

	for (;;) {
		if (p >= end)
			return end == max_head ? refuse(req, 431, "request head too long", p) : 0;
		if (buf[p] == '\r') {
			if (p + 1 >= len)
				return p + 2 > max_head ? refuse(req, 431, "request head too long", p) : 0;
			if (buf[p + 1] != '\n')
				return refuse(req, 400, "bare CR", p);
			if (p + 2 > max_head)
				return refuse(req, 431, "request head too long", p);
			req->head_len = (uint32_t)(p + 2);
			return finish_head(buf, req, &s);
		}
		if (p < end && (buf[p] == ' ' || buf[p] == '\t'))
			return refuse(req, 400, "obsolete line folding", p);
		r = find_eol(buf, p, end, len, true, &eol, req);
		if (r < 0)
			return r;
		if (!r)
			return end == max_head ? refuse(req, 431, "request head too long", p) : 0;
		if (req->n_headers >= lim->max_headers || req->n_headers >= FP_HTTP_MAX_HEADERS_CAP)
			return refuse(req, 431, "too many header lines", p);
		r = parse_header(buf, p, eol, req, &s);
		if (r < 0)
			return r;
		p = eol + 2;
	}
}

/* ---- chunked bodies ---------------------------------------------------- */

void fp_http_chunked__init(struct fp_http_chunked *st, const struct fp_http_limits *lim)
{
	memset(st, 0, sizeof(*st));
	st->state = FP_CHUNKED_SIZE;
	st->max_line = lim->max_line;
	st->max_head = lim->max_head;
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void new_line(struct fp_http_chunked *st)
{
	st->line_len = 0;
	st->cr = false;
	st->in_ext = false;
}

/* one byte of a chunk-size line; 0, or -400 */
static int size_byte(struct fp_http_chunked *st, unsigned char c)
{
	int h = hexval(c);

	if (st->cr) {
		if (c != '\n' || !st->digits)
			return -400;
		if (st->size) {
			st->state = FP_CHUNKED_DATA;
			st->data_left = st->size;
		} else {
			st->state = FP_CHUNKED_TRAILER;
		}
		new_line(st);
		st->size = 0;
		st->digits = false;
		return 0;
	}
	if (++st->line_len > st->max_line)
		return -400;
	if (c == '\r') {
		st->cr = true;
	} else if (!st->in_ext && h >= 0) {
		if (st->size >> 56) /* past 2^60 bytes: refuse rather than overflow */
			return -400;
		st->size = st->size * 16 + (uint64_t)h;
		st->digits = true;
	} else if (c == ';' || c == ' ' || c == '\t') {
		if (!st->digits)
			return -400;
		st->in_ext = true;
	} else if (!st->in_ext || c == '\n' || is_ctl(c)) {
		return -400;
	}
	return 0;
}

/* one byte of the trailer section; in_ext = the line's colon was seen */
static int trailer_byte(struct fp_http_chunked *st, unsigned char c)
{
	if (st->cr) {
		if (c != '\n')
			return -400;
		if (!st->line_len) {
			st->state = FP_CHUNKED_DONE;
			return 0;
		}
		if (!st->in_ext)
			return -400;
		new_line(st);
		return 0;
	}
	if (c == '\r') {
		st->cr = true;
		return 0;
	}
	if (++st->trailer_len > st->max_head)
		return -431;
	if (c == '\n' || is_ctl(c) || (!st->line_len && (c == ' ' || c == '\t')))
		return -400;
	if (!st->in_ext && c == ':') {
		if (!st->line_len)
			return -400;
		st->in_ext = true;
	} else if (!st->in_ext && !is_tchar(c)) {
		return -400;
	}
	st->line_len++;
	return 0;
}

long fp_http_chunked__feed(struct fp_http_chunked *st, const char *buf, size_t len)
{
	size_t i = 0;
	int r = 0;

	while (i < len) {
		unsigned char c = (unsigned char)buf[i];

		switch (st->state) {
		case FP_CHUNKED_SIZE:
			r = size_byte(st, c);
			break;
		case FP_CHUNKED_DATA:
		case FP_CHUNKED_DONE:
			return (long)i;
		case FP_CHUNKED_DATA_CRLF:
			if (c != (st->crlf_seen ? '\n' : '\r'))
				return -400;
			if (st->crlf_seen++) {
				st->state = FP_CHUNKED_SIZE;
				new_line(st);
			}
			break;
		case FP_CHUNKED_TRAILER:
			r = trailer_byte(st, c);
			break;
		}
		if (r < 0)
			return r;
		i++;
	}
	return (long)i;
}

void fp_http_chunked__data(struct fp_http_chunked *st, uint64_t n)
{
	st->data_left -= n;
	if (!st->data_left) {
		st->state = FP_CHUNKED_DATA_CRLF;
		st->crlf_seen = 0;
	}
}

/* ---- a whole stream ---------------------------------------------------- */

/* The body of a request at buf[p..len): its length, 0 if incomplete
 * (*done false), or -status. */
static long body_len(const char *buf, size_t p, size_t len, const struct fp_http_req *req,
		     const struct fp_http_limits *lim, bool *done)
{
	struct fp_http_chunked st;
	size_t q = p;

	*done = false;
	if (req->body == FP_HTTP_BODY_NONE) {
		*done = true;
		return 0;
	}
	if (req->body == FP_HTTP_BODY_LENGTH) {
		if (len - p < req->content_length)
			return 0;
		*done = true;
		return (long)req->content_length;
	}
	fp_http_chunked__init(&st, lim);
	while (q < len) {
		long n = fp_http_chunked__feed(&st, buf + q, len - q);

		if (n < 0)
			return n;
		q += (size_t)n;
		if (st.state == FP_CHUNKED_DONE) {
			*done = true;
			return (long)(q - p);
		}
		if (st.state == FP_CHUNKED_DATA) {
			uint64_t take = st.data_left < len - q ? st.data_left : len - q;

			fp_http_chunked__data(&st, take);
			q += take;
		}
	}
	return 0;
}

long fp_http__frame_stream(const char *buf, size_t len, const struct fp_http_limits *lim,
			   fp_http_on_req on_req, void *ctx, size_t *bad_off)
{
	struct fp_http_req req;
	size_t off = 0;

	while (off < len) {
		int r = fp_http__parse_head(buf + off, len - off, lim, &req);
		bool done;
		long b;

		if (r < 0) {
			*bad_off = off;
			return r;
		}
		if (!r)
			return (long)off;
		b = body_len(buf, off + (size_t)r, len, &req, lim, &done);
		if (b < 0) {
			*bad_off = off;
			return b;
		}
		if (!done)
			return (long)off;
		if (on_req)
			on_req(ctx, &req, off, (size_t)r + (size_t)b);
		off += (size_t)r + (size_t)b;
		if (!req.keep_alive)
			break;
	}
	return (long)off;
}
