/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * HTTP/1.1 request framing for fastpath proxy: where a request's head ends,
 * how long its body is, and where the next pipelined request begins. The
 * proxy never parses bodies as requests and never parses responses.
 *
 * The framer is strict on purpose (request smuggling, RFC 9112 section 11.2):
 * anything two parsers could read two ways is refused, never repaired.
 *   400  both Content-Length and Transfer-Encoding; Content-Length not all
 *        digits, repeated with another value, or a list; Transfer-Encoding
 *        other than exactly "chunked" (once), or on HTTP/1.0; obs-fold (a
 *        header line starting with SP/HTAB); a control character (0x00-0x1f
 *        but HTAB in a value, 0x7f), a bare CR or a bare LF anywhere in the
 *        head; whitespace before a header's colon; a malformed request line
 *        or target; no Host, or more than one, on HTTP/1.1; a bad chunk-size
 *        line.
 *   414  the request line is longer than limits.max_line.
 *   431  the head is longer than limits.max_head, or has more than
 *        limits.max_headers header lines.
 *   505  a version other than HTTP/1.0 or HTTP/1.1.
 * Empty lines (CRLF) before a request line are skipped, as RFC 9112 2.2 asks.
 */
#ifndef FP_PROXY_HTTP_H
#define FP_PROXY_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FP_HTTP_MAX_LINE_DEFAULT    8192
#define FP_HTTP_MAX_HEAD_DEFAULT    16384
#define FP_HTTP_MAX_HEADERS_DEFAULT 100
#define FP_HTTP_MAX_HEADERS_CAP     128  /* room in struct fp_http_req */

struct fp_http_limits {
	uint32_t max_line;    /* request line, CRLF excluded: past it 414 */
	uint32_t max_head;    /* whole head with the empty line: past it 431 */
	uint32_t max_headers; /* header lines (<= FP_HTTP_MAX_HEADERS_CAP): past it 431 */
};

/* A span of the buffer given to fp_http__parse_head(). */
struct fp_http_span {
	uint32_t off, len;
};

struct fp_http_header {
	struct fp_http_span name, value; /* value without surrounding OWS */
};

enum fp_http_body {
	FP_HTTP_BODY_NONE,    /* no body (Content-Length absent or 0) */
	FP_HTTP_BODY_LENGTH,  /* exactly content_length bytes */
	FP_HTTP_BODY_CHUNKED, /* chunked: fp_http_chunked frames it */
};

struct fp_http_req {
	uint32_t skipped;              /* empty lines skipped before the request line */
	uint32_t head_len;             /* bytes from the buffer's start to the body */
	struct fp_http_span method, target, path, query; /* path/query: parts of target */
	uint8_t version_minor;         /* HTTP/1.<minor>: 0 or 1 */
	bool keep_alive;               /* the connection may carry another request */
	bool has_host;
	struct fp_http_span host;      /* the Host value (may hold a port) */
	enum fp_http_body body;
	uint64_t content_length;
	uint32_t n_headers;
	struct fp_http_header headers[FP_HTTP_MAX_HEADERS_CAP];
	const char *why;               /* on an error: what was wrong (static text) */
	uint32_t err_off;              /* on an error: the offending byte's offset */
};

/* Fills lim with the defaults. */
void fp_http_limits__default(struct fp_http_limits *lim);

/*
 * Parses the request head at the start of buf[0..len). Returns:
 *   > 0  the head is complete: req filled, req->head_len == the return;
 *   0    the head is not complete yet and nothing seen so far is wrong
 *        (read more; when the buffer already holds max_head bytes the
 *        function has returned -431 instead);
 *   < 0  -status (-400, -414, -431, -505): refuse with that status;
 *        req->why says why.
 * Errors in the complete lines are reported before the head is complete,
 * so a client cannot hold a bad request open.
 */
int fp_http__parse_head(const char *buf, size_t len, const struct fp_http_limits *lim,
			struct fp_http_req *req);

/* Case-insensitive compare of a span of buf with a NUL-terminated name. */
bool fp_http__span_ieq(const char *buf, struct fp_http_span s, const char *name);

/*
 * Chunked body framing (RFC 9112 section 7.1). Feed it the bytes after the
 * head; it consumes chunk-size lines, the CRLF after each chunk's data and
 * the trailer section itself, and hands chunk data back to the caller (the
 * proxy splices it without looking at it). Chunk extensions are allowed
 * and ignored; trailer lines follow the header rules (no obs-fold, no
 * control characters).
 */
enum fp_chunked_state {
	FP_CHUNKED_SIZE,      /* reading a chunk-size line */
	FP_CHUNKED_DATA,      /* st->data_left bytes of data follow */
	FP_CHUNKED_DATA_CRLF, /* the CRLF after a chunk's data */
	FP_CHUNKED_TRAILER,   /* trailer lines up to an empty line */
	FP_CHUNKED_DONE,      /* the body is complete */
};

struct fp_http_chunked {
	enum fp_chunked_state state;
	uint64_t data_left;   /* FP_CHUNKED_DATA: data bytes still to pass */
	uint32_t line_len;    /* bytes of the current control line seen so far */
	uint32_t trailer_len; /* bytes of trailers so far (bounded by max_head) */
	uint8_t crlf_seen;    /* FP_CHUNKED_DATA_CRLF: 0 or 1 (the CR) */
	bool cr;              /* the current line's last byte was CR */
	bool in_ext;          /* past the size's digits (extension or BWS) */
	bool digits;          /* at least one hex digit in the size */
	uint64_t size;        /* the size being read */
	uint32_t max_line;    /* a size line or a trailer line past this: 400 */
	uint32_t max_head;    /* the trailer section past this: 431 */
};

void fp_http_chunked__init(struct fp_http_chunked *st, const struct fp_http_limits *lim);

/*
 * Consumes control bytes (size lines, CRLFs, trailers) from buf[0..len).
 * Stops at the first data byte (state FP_CHUNKED_DATA: the caller passes
 * min(data_left, what it has) bytes and reports them with
 * fp_http_chunked__data()), at the end of the body (FP_CHUNKED_DONE), or at
 * the end of buf. Returns the bytes consumed (>= 0), or -400 / -431.
 * Control bytes may arrive split anywhere: the state carries over.
 */
long fp_http_chunked__feed(struct fp_http_chunked *st, const char *buf, size_t len);

/* n bytes of chunk data were passed (n <= data_left). */
void fp_http_chunked__data(struct fp_http_chunked *st, uint64_t n);

/*
 * Frames a whole buffer as a stream of pipelined requests, as the proxy
 * does (heads parsed, bodies skipped unparsed): calls on_req(ctx, req, off,
 * total) for each complete request (off = its first byte, total = head and
 * body). Returns the offset where the first incomplete request starts (len
 * when every byte was framed), or -status on the first bad request (which
 * is not reported to on_req; *bad_off is its offset). For tests and fuzzing.
 */
typedef void (*fp_http_on_req)(void *ctx, const struct fp_http_req *req, size_t off,
			       size_t total);
long fp_http__frame_stream(const char *buf, size_t len, const struct fp_http_limits *lim,
			   fp_http_on_req on_req, void *ctx, size_t *bad_off);

/*
 * Path normalisation, before any policy match (see fp_http__normalise_path
 * in http_path.c and fastpath-proxy(8), PATHS):
 *  1. percent-encodings of unreserved characters (ALPHA DIGIT - . _ ~) are
 *     decoded; every other percent-encoding stays, its hex in upper case;
 *     %2F, %5C (/ and \), %00-%1F and %7F are refused (400): a backend that
 *     decodes them would see another path than the one decided on;
 *  2. runs of '/' become one '/';
 *  3. '.' and '..' segments are removed (RFC 3986 section 5.2.4);
 *  4. an empty result is "/".
 * The path stays case-sensitive (RFC 3986 6.2.2.1: only the scheme, host
 * and percent-encoding hex are case-insensitive). A trailing '/' is kept in
 * the result (it is what the backend gets: "/dock/" is a directory there);
 * policy matching ignores it (fp_http__match_len).
 * Returns the normalised length (<= in_len, so out needs in_len + 1 bytes;
 * "" gives "/"), or -400 on a refused input. out is NUL-terminated.
 */
long fp_http__normalise_path(const char *in, size_t in_len, char *out, size_t out_size);

/*
 * RFC 3986 section 5.2.4 remove_dot_segments, in place on buf[0..len)
 * (works on relative paths too). Returns the new length.
 */
size_t fp_http__remove_dot_segments(char *buf, size_t len);

/* The length of a normalised path for matching: without a trailing '/'
 * unless the path is "/". */
size_t fp_http__match_len(const char *path, size_t len);

#endif /* FP_PROXY_HTTP_H */
