// fuzz-sources: src/proxy/http_frame.c
// SPDX-License-Identifier: BSD-2-Clause
/*
 * Request framer fuzz target: arbitrary bytes as a client's stream. The
 * requests framed must be contiguous and inside the input; the head parser
 * must give the same answer on any prefix that it gives on the whole input
 * once it has answered (an answer never changes as more bytes arrive); a
 * chunked body fed in two pieces must frame like the whole.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/http.h"

struct seen {
	size_t next;
	size_t size;
};

static void on_req(void *ctx, const struct fp_http_req *req, size_t off, size_t total)
{
	struct seen *s = ctx;

	assert(off == s->next);
	assert(total >= req->head_len && off + total <= s->size);
	assert(req->path.off + req->path.len <= req->head_len);
	assert(req->host.off + req->host.len <= req->head_len);
	for (uint32_t i = 0; i < req->n_headers; i++)
		assert(req->headers[i].value.off + req->headers[i].value.len <= req->head_len);
	s->next = off + total;
}

static long chunked(const uint8_t *d, size_t size, size_t split, struct fp_http_limits *lim)
{
	struct fp_http_chunked st;
	size_t p = 0;

	fp_http_chunked__init(&st, lim);
	while (p < size) {
		size_t end = p < split ? split : size;
		long n = fp_http_chunked__feed(&st, (const char *)d + p, end - p);

		if (n < 0)
			return n;
		p += (size_t)n;
		if (st.state == FP_CHUNKED_DONE)
			return (long)p;
		if (st.state == FP_CHUNKED_DATA && p < size) {
			size_t take = st.data_left < size - p ? st.data_left : size - p;

			if (p < split && take > split - p)
				take = split - p;
			fp_http_chunked__data(&st, take);
			p += take;
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fp_http_limits lim = { .max_line = 512, .max_head = 2048, .max_headers = 16 };
	static struct fp_http_req a, b;
	struct seen s = { 0, size };
	size_t bad = 0;
	long r = fp_http__frame_stream((const char *)data, size, &lim, on_req, &s, &bad);
	int full, part;

	if (r >= 0)
		assert((size_t)r == s.next && (size_t)r <= size);
	else
		assert(r == -400 || r == -414 || r == -431 || r == -505), assert(bad == s.next);

	full = fp_http__parse_head((const char *)data, size, &lim, &a);
	assert(full <= (int)size && (full >= 0 || a.why));
	for (size_t k = 0; k < size; k += 1 + size / 16) {
		part = fp_http__parse_head((const char *)data, k, &lim, &b);
		if (part != 0)
			assert(part == full);
	}
	assert(chunked(data, size, size / 2, &lim) == chunked(data, size, size, &lim));
	return 0;
}
