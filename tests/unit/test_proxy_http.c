/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * src/proxy/http_frame.c, the request framer: a table of heads with the
 * status each must get (or its parts), the smuggling refusals one by one,
 * the limits (414 / 431) before the head is complete, chunked bodies fed
 * whole and one byte at a time, and pipelined streams framed into their
 * requests (where one ends and the next begins).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proxy/http.h"

static struct fp_http_limits lim;

static int setup(void **state)
{
	fp_http_limits__default(&lim);
	(void)state;
	return 0;
}

#define H11 " HTTP/1.1\r\nHost: a\r\n"

/* want: > 0 the head's length (-1: the whole input), 0 incomplete, < 0 -status */
static const struct head_case {
	const char *name, *in;
	int want;
} heads[] = {
	{ "simple GET", "GET /dock HTTP/1.1\r\nHost: a\r\n\r\n", -1 },
	{ "HTTP/1.0 without Host", "GET / HTTP/1.0\r\n\r\n", -1 },
	{ "empty lines before", "\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", -1 },
	{ "absolute-form", "GET http://a.example/dock?x=1 HTTP/1.1\r\nHost: b\r\n\r\n", -1 },
	{ "OWS around value", "GET /" H11 "X:  v \t\r\n\r\n", -1 },
	{ "obs-text in value", "GET /" H11 "X: caf\xc3\xa9\r\n\r\n", -1 },
	{ "tab in value", "GET /" H11 "X: a\tb\r\n\r\n", -1 },
	{ "same CL twice", "POST /" H11 "Content-Length: 3\r\ncontent-length: 3\r\n\r\n", -1 },
	{ "TE chunked any case", "POST /" H11 "Transfer-Encoding: Chunked\r\n\r\n", -1 },
	{ "empty value", "GET /" H11 "X:\r\n\r\n", -1 },
	{ "incomplete line", "GET /dock HTTP/1.1\r\nHo", 0 },
	{ "incomplete at CR", "GET /dock HTTP/1.1\r", 0 },
	{ "incomplete no empty line", "GET /" H11, 0 },
	{ "incomplete final CR", "GET /" H11 "\r", 0 },
	/* smuggling */
	{ "CL and TE", "POST /" H11 "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", -400 },
	{ "TE and CL", "POST /" H11 "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", -400 },
	{ "conflicting CL", "POST /" H11 "Content-Length: 5\r\nContent-Length: 6\r\n\r\n", -400 },
	{ "CL list", "POST /" H11 "Content-Length: 5, 5\r\n\r\n", -400 },
	{ "CL sign", "POST /" H11 "Content-Length: +5\r\n\r\n", -400 },
	{ "CL hex", "POST /" H11 "Content-Length: 0x5\r\n\r\n", -400 },
	{ "CL empty", "POST /" H11 "Content-Length:\r\n\r\n", -400 },
	{ "CL overflow", "POST /" H11 "Content-Length: 99999999999999999999\r\n\r\n", -400 },
	{ "TE gzip", "POST /" H11 "Transfer-Encoding: gzip\r\n\r\n", -400 },
	{ "TE gzip, chunked", "POST /" H11 "Transfer-Encoding: gzip, chunked\r\n\r\n", -400 },
	{ "TE chunked twice", "POST /" H11 "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", -400 },
	{ "TE identity", "POST /" H11 "Transfer-Encoding: identity\r\n\r\n", -400 },
	{ "TE on 1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", -400 },
	{ "TE with space in name", "POST /" H11 "Transfer-Encoding : chunked\r\n\r\n", -400 },
	{ "obs-fold", "GET /" H11 "X: a\r\n b\r\n\r\n", -400 },
	{ "obs-fold tab", "GET /" H11 "X: a\r\n\tb\r\n\r\n", -400 },
	{ "first header folded", "GET / HTTP/1.1\r\n Host: a\r\n\r\n", -400 },
	{ "bare CR in value", "GET /" H11 "X: a\rb\r\n\r\n", -400 },
	{ "bare LF in value", "GET /" H11 "X: a\nb\r\n\r\n", -400 },
	{ "bare LF line end", "GET / HTTP/1.1\nHost: a\n\n", -400 },
	{ "bare LF empty line", "GET /" H11 "\n", -400 },
	{ "bare CR empty line", "GET /" H11 "\rX", -400 },
	{ "NUL in value", "GET /" H11 "X: a\0b\r\n\r\n", -400 },
	{ "DEL in value", "GET /" H11 "X: a\x7f\r\n\r\n", -400 },
	{ "ESC in value", "GET /" H11 "X: \x1b[1m\r\n\r\n", -400 },
	{ "control in request line", "GET /a\x01 HTTP/1.1\r\nHost: a\r\n\r\n", -400 },
	{ "tab in request line", "GET\t/ HTTP/1.1\r\nHost: a\r\n\r\n", -400 },
	{ "bare CR in request line", "GET /\r HTTP/1.1\r\n", -400 },
	{ "bare LF before request", "\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", -400 },
	{ "no Host on 1.1", "GET / HTTP/1.1\r\n\r\n", -400 },
	{ "two Hosts", "GET /" H11 "Host: b\r\n\r\n", -400 },
	{ "space before colon", "GET /" H11 "X : a\r\n\r\n", -400 },
	{ "no colon", "GET /" H11 "Xa\r\n\r\n", -400 },
	{ "empty name", "GET /" H11 ": a\r\n\r\n", -400 },
	{ "non-token name", "GET /" H11 "X(: a\r\n\r\n", -400 },
	{ "obs-text in name", "GET /" H11 "X\xc3: a\r\n\r\n", -400 },
	{ "two spaces", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", -400 },
	{ "no version", "GET /\r\nHost: a\r\n\r\n", -400 },
	{ "lower-case version", "GET / http/1.1\r\nHost: a\r\n\r\n", -400 },
	{ "trailing space", "GET / HTTP/1.1 \r\nHost: a\r\n\r\n", -400 },
	{ "HTTP/2.0", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", -505 },
	{ "HTTP/1.2", "GET / HTTP/1.2\r\nHost: a\r\n\r\n", -505 },
	{ "empty method", " / HTTP/1.1\r\nHost: a\r\n\r\n", -400 },
	{ "relative target", "GET dock HTTP/1.1\r\nHost: a\r\n\r\n", -400 },
	{ "asterisk-form", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", -400 },
	{ "authority-form", "CONNECT a:443 HTTP/1.1\r\nHost: a\r\n\r\n", -400 },
	{ "https absolute", "GET https://a/ HTTP/1.1\r\nHost: a\r\n\r\n", -400 },
	{ "userinfo", "GET http://u@a/ HTTP/1.1\r\nHost: a\r\n\r\n", -400 },
	{ "fragment in target", "GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n", -400 },
	{ "backslash in target", "GET /a\\b HTTP/1.1\r\nHost: a\r\n\r\n", -400 },
	{ "quote in target", "GET /a\"b HTTP/1.1\r\nHost: a\r\n\r\n", -400 },
	{ "non-ASCII in target", "GET /caf\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n", -400 },
	/* errors in complete lines come before the head is complete */
	{ "early error", "GET /" H11 "X: a\r\n b\r\n", -400 },
	{ "early bad request line", "GET / HTTP/9.9\r\n", -505 },
};

static void test_heads(void **state)
{
	struct fp_http_req *req = malloc(sizeof(*req));

	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		const struct head_case *c = &heads[i];
		size_t len = strlen(c->in);
		int want = c->want == -1 ? (int)len : c->want, r;

		if (!strcmp(c->name, "NUL in value"))
			len = sizeof("GET /" H11 "X: a\0b\r\n\r\n") - 1, want = -400;
		r = fp_http__parse_head(c->in, len, &lim, req);
		if (r != want)
			fail_msg("%s: want %d, got %d (%s)", c->name, want, r, r < 0 ? req->why : "");
		if (r < 0 && (!req->why || req->err_off > len))
			fail_msg("%s: an error without why or with offset %u", c->name, req->err_off);
	}
	free(req);
	(void)state;
}

static void span_is(const char *buf, struct fp_http_span s, const char *want)
{
	if (s.len != strlen(want) || memcmp(buf + s.off, want, s.len))
		fail_msg("span '%.*s', want '%s'", (int)s.len, buf + s.off, want);
}

static void test_parts(void **state)
{
	struct fp_http_req *req = malloc(sizeof(*req));
	const char *in = "\r\nPOST http://Deathstar.example:8080/dock/../x?a=1&b HTTP/1.1\r\n"
			 "Host: other\r\nConnection: keep-alive, Close\r\n"
			 "Content-Length: 12\r\nX-Y:  z  \r\n\r\nbody";
	int r = fp_http__parse_head(in, strlen(in), &lim, req);

	assert_int_equal(r, (int)(strlen(in) - 4));
	assert_int_equal(req->skipped, 1);
	span_is(in, req->method, "POST");
	span_is(in, req->target, "http://Deathstar.example:8080/dock/../x?a=1&b");
	span_is(in, req->path, "/dock/../x");
	span_is(in, req->query, "a=1&b");
	span_is(in, req->host, "Deathstar.example:8080"); /* the absolute form's wins */
	assert_int_equal(req->version_minor, 1);
	assert_false(req->keep_alive);
	assert_int_equal(req->body, FP_HTTP_BODY_LENGTH);
	assert_int_equal(req->content_length, 12);
	assert_int_equal(req->n_headers, 4);
	span_is(in, req->headers[3].name, "X-Y");
	span_is(in, req->headers[3].value, "z");

	in = "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n";
	assert_int_equal(fp_http__parse_head(in, strlen(in), &lim, req), (int)strlen(in));
	assert_true(req->keep_alive);
	assert_int_equal(req->body, FP_HTTP_BODY_NONE);
	in = "GET / HTTP/1.0\r\n\r\n";
	fp_http__parse_head(in, strlen(in), &lim, req);
	assert_false(req->keep_alive);
	in = "GET /?q HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n";
	fp_http__parse_head(in, strlen(in), &lim, req);
	assert_true(req->keep_alive);
	assert_int_equal(req->body, FP_HTTP_BODY_NONE);
	span_is(in, req->path, "/");
	span_is(in, req->query, "q");
	in = "GET http://h HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n";
	fp_http__parse_head(in, strlen(in), &lim, req);
	assert_int_equal(req->path.len, 0);
	assert_int_equal(req->body, FP_HTTP_BODY_CHUNKED);
	free(req);
	(void)state;
}

/* 414 and 431 as soon as the limit is passed, complete or not */
static void test_limits(void **state)
{
	struct fp_http_limits l = { .max_line = 64, .max_head = 256, .max_headers = 4 };
	struct fp_http_req *req = malloc(sizeof(*req));
	char buf[1024];
	int n;

	/* a request line of exactly 64 bytes is fine, 65 is 414 (complete or not) */
	n = snprintf(buf, sizeof(buf), "GET /%0*d HTTP/1.1\r\nHost: a\r\n\r\n", 64 - 14, 0);
	assert_int_equal(fp_http__parse_head(buf, (size_t)n, &l, req), n);
	n = snprintf(buf, sizeof(buf), "GET /%0*d HTTP/1.1\r\nHost: a\r\n\r\n", 65 - 14, 0);
	assert_int_equal(fp_http__parse_head(buf, (size_t)n, &l, req), -414);
	memset(buf, 'a', 70);
	memcpy(buf, "GET /", 5);
	assert_int_equal(fp_http__parse_head(buf, 64, &l, req), 0);
	assert_int_equal(fp_http__parse_head(buf, 65, &l, req), -414);
	/* headers: 4 lines fine, 5 is 431 */
	n = snprintf(buf, sizeof(buf), "GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n");
	assert_int_equal(fp_http__parse_head(buf, (size_t)n, &l, req), n);
	n = snprintf(buf, sizeof(buf), "GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n");
	assert_int_equal(fp_http__parse_head(buf, (size_t)n, &l, req), -431);
	/* the head: 256 bytes fine, 257 is 431, also while incomplete */
	n = snprintf(buf, sizeof(buf), "GET / HTTP/1.1\r\nHost: a\r\nX: %0*d\r\n\r\n",
		     256 - 32, 0);
	assert_int_equal(n, 256);
	assert_int_equal(fp_http__parse_head(buf, (size_t)n, &l, req), n);
	n = snprintf(buf, sizeof(buf), "GET / HTTP/1.1\r\nHost: a\r\nX: %0*d\r\n\r\n",
		     257 - 32, 0);
	assert_int_equal(fp_http__parse_head(buf, (size_t)n, &l, req), -431);
	assert_int_equal(fp_http__parse_head(buf, 255, &l, req), 0);
	assert_int_equal(fp_http__parse_head(buf, 256, &l, req), -431);
	/* empty lines before the request count toward the head */
	memset(buf, 0, sizeof(buf));
	for (int i = 0; i < 300; i += 2)
		memcpy(buf + i, "\r\n", 2);
	assert_int_equal(fp_http__parse_head(buf, 300, &l, req), -431);
	free(req);
	(void)state;
}

/* Feeds a chunked body in pieces of `step` bytes, passing data; returns
 * the bytes until DONE, 0 if never done, or the error. */
static long chunked_len(const char *in, size_t len, size_t step, char *data, size_t *dlen)
{
	struct fp_http_chunked st;
	size_t p = 0;

	*dlen = 0;
	fp_http_chunked__init(&st, &lim);
	while (p < len) {
		size_t avail = len - p < step ? len - p : step;
		long n = fp_http_chunked__feed(&st, in + p, avail);

		if (n < 0)
			return n;
		p += (size_t)n;
		if (st.state == FP_CHUNKED_DONE)
			return (long)p;
		if (st.state == FP_CHUNKED_DATA && p < len) {
			size_t take = st.data_left < len - p ? st.data_left : len - p;

			take = take < step ? take : step;
			memcpy(data + *dlen, in + p, take);
			*dlen += take;
			fp_http_chunked__data(&st, take);
			p += take;
		}
	}
	return 0;
}

static const struct chunk_case {
	const char *name, *in, *data;
	long want; /* -1: the whole input */
} chunks[] = {
	{ "one chunk", "5\r\nhello\r\n0\r\n\r\n", "hello", -1 },
	{ "two chunks", "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n", "abcde", -1 },
	{ "hex sizes", "A\r\n0123456789\r\na\r\n0123456789\r\n0\r\n\r\n",
	  "01234567890123456789", -1 },
	{ "extension", "3;name=v\r\nabc\r\n0;x\r\n\r\n", "abc", -1 },
	{ "trailers", "1\r\na\r\n0\r\nX-T: 1\r\nY: 2\r\n\r\n", "a", -1 },
	{ "data with CRLF inside", "4\r\n\r\n\r\n\r\n0\r\n\r\n", "\r\n\r\n", -1 },
	{ "leading zeros", "003\r\nabc\r\n000\r\n\r\n", "abc", -1 },
	{ "then the next request", "0\r\n\r\nGET / HTTP/1.1\r\n", "", 5 },
	{ "incomplete", "5\r\nhel", "hel", 0 },
	{ "incomplete trailer", "0\r\nX: 1\r\n", "", 0 },
	{ "no size", "\r\nabc\r\n0\r\n\r\n", "", -400 },
	{ "bad hex", "g\r\n", "", -400 },
	{ "size with sign", "+3\r\nabc\r\n0\r\n\r\n", "", -400 },
	{ "bare LF after size", "3\nabc\r\n0\r\n\r\n", "", -400 },
	{ "bare CR after size", "3\rabc\r\n0\r\n\r\n", "", -400 },
	{ "data not followed by CRLF", "3\r\nabcd\r\n0\r\n\r\n", "abc", -400 },
	{ "LF only after data", "3\r\nabc\n0\r\n\r\n", "abc", -400 },
	{ "size overflow", "fffffffffffffffff\r\n", "", -400 },
	{ "control in extension", "3;a\x01\r\nabc\r\n0\r\n\r\n", "", -400 },
	{ "trailer obs-fold", "0\r\nX: 1\r\n 2\r\n\r\n", "", -400 },
	{ "trailer without colon", "0\r\nX\r\n\r\n", "", -400 },
	{ "trailer bare LF", "0\r\nX: 1\n\r\n", "", -400 },
	{ "trailer control", "0\r\nX: \x01\r\n\r\n", "", -400 },
	{ "extension before digits", ";a\r\n", "", -400 },
};

static void test_chunked(void **state)
{
	char data[256];
	size_t dlen;

	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		const struct chunk_case *c = &chunks[i];
		size_t len = strlen(c->in);
		long want = c->want == -1 ? (long)len : c->want;

		/* whole, then one byte at a time: the same answer */
		for (size_t step = len ? len : 1; step >= 1; step = step == 1 ? 0 : 1) {
			long r = chunked_len(c->in, len, step, data, &dlen);

			if (r != want)
				fail_msg("%s (step %zu): want %ld, got %ld", c->name, step, want, r);
			if (want > 0 && (dlen != strlen(c->data) || memcmp(data, c->data, dlen)))
				fail_msg("%s (step %zu): data '%.*s', want '%s'", c->name, step,
					 (int)dlen, data, c->data);
		}
	}
	(void)state;
}

struct framed {
	size_t n, off[8], total[8];
};

static void on_req(void *ctx, const struct fp_http_req *req, size_t off, size_t total)
{
	struct framed *f = ctx;

	(void)req;
	if (f->n < 8) {
		f->off[f->n] = off;
		f->total[f->n] = total;
	}
	f->n++;
}

static void test_pipelined(void **state)
{
	/* a body that looks like a request is not framed as one */
	const char *a = "POST /dock HTTP/1.1\r\nHost: a\r\nContent-Length: 39\r\n\r\n"
			"GET /exhaust-port HTTP/1.1\r\nHost: a\r\n\r\n";
	const char *b = "POST /dock HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
			"27\r\nGET /exhaust-port HTTP/1.1\r\nHost: a\r\n\r\n\r\n0\r\n\r\n";
	const char *g = "GET /exhaust-port HTTP/1.1\r\nHost: a\r\n\r\n";
	char buf[1024];
	struct framed f = { 0 };
	size_t bad = 0, la = strlen(a), lb = strlen(b), lg = strlen(g);
	long r;

	r = fp_http__frame_stream(a, la, &lim, on_req, &f, &bad);
	assert_int_equal(r, (long)la);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.total[0], la);

	r = fp_http__frame_stream(b, lb, &lim, on_req, &(struct framed){ 0 }, &bad);
	assert_int_equal(r, (long)lb);

	/* three requests back to back: allowed, chunked, then the exhaust port */
	snprintf(buf, sizeof(buf), "%s%s%s", a, b, g);
	memset(&f, 0, sizeof(f));
	r = fp_http__frame_stream(buf, strlen(buf), &lim, on_req, &f, &bad);
	assert_int_equal(r, (long)strlen(buf));
	assert_int_equal(f.n, 3);
	assert_int_equal(f.off[1], la);
	assert_int_equal(f.off[2], la + lb);
	assert_int_equal(f.total[2], lg);

	/* an incomplete last one: the offset where it starts */
	memset(&f, 0, sizeof(f));
	r = fp_http__frame_stream(buf, strlen(buf) - 3, &lim, on_req, &f, &bad);
	assert_int_equal(r, (long)(la + lb));
	assert_int_equal(f.n, 2);

	/* a bad second request: -400 at its offset, the first still framed */
	snprintf(buf, sizeof(buf), "%sPOST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n"
		 "Transfer-Encoding: chunked\r\n\r\n", g);
	memset(&f, 0, sizeof(f));
	r = fp_http__frame_stream(buf, strlen(buf), &lim, on_req, &f, &bad);
	assert_int_equal(r, -400);
	assert_int_equal(bad, lg);
	assert_int_equal(f.n, 1);

	/* Connection: close ends the framing */
	snprintf(buf, sizeof(buf), "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n%s", g);
	memset(&f, 0, sizeof(f));
	r = fp_http__frame_stream(buf, strlen(buf), &lim, on_req, &f, &bad);
	assert_int_equal(f.n, 1);
	assert_int_equal(r, (long)(strlen(buf) - lg));
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heads),
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_chunked),
		cmocka_unit_test(test_pipelined),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
