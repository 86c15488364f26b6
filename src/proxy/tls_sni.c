// SPDX-License-Identifier: BSD-2-Clause
/*
 * ClientHello server name (tls_sni.h). A reader walks the handshake bytes
 * across record boundaries (a hello may be split into several records);
 * every length is checked against what encloses it, so a field that runs
 * past its parent is malformed, and only the end of the received bytes
 * means "need more".
 */
#include "proxy/tls_sni.h"

#include <errno.h>
#include <string.h>

#define RECORD_HDR      5
#define RECORD_MAX      16384  /* RFC 8446 5.1: a plaintext record's length limit */
#define HS_CLIENT_HELLO 1
#define EXT_SERVER_NAME 0
#define NAME_HOST       0

enum { NEED = 1 };

struct reader {
	const uint8_t *b;
	size_t len;      /* bytes received */
	size_t pos;      /* the next raw byte */
	size_t rec_left; /* handshake bytes left in the current record */
	int err;         /* sticky: 0, NEED, -EBADMSG */
};

/* The next handshake byte, from this record or the next one. */
static unsigned get8(struct reader *r)
{
	if (r->err)
		return 0;
	while (!r->rec_left) {
		size_t n;

		if (r->pos + RECORD_HDR > r->len) {
			/* what arrived of the header must already look right */
			if (r->pos < r->len && r->b[r->pos] != FP_TLS_CONTENT_HANDSHAKE)
				r->err = -EBADMSG;
			else if (r->pos + 1 < r->len && r->b[r->pos + 1] != 3)
				r->err = -EBADMSG;
			else
				r->err = NEED;
			return 0;
		}
		n = (size_t)r->b[r->pos + 3] << 8 | r->b[r->pos + 4];
		if (r->b[r->pos] != FP_TLS_CONTENT_HANDSHAKE || r->b[r->pos + 1] != 3 || !n ||
		    n > RECORD_MAX) {
			r->err = -EBADMSG;
			return 0;
		}
		r->pos += RECORD_HDR;
		r->rec_left = n;
	}
	if (r->pos >= r->len) {
		r->err = NEED;
		return 0;
	}
	r->rec_left--;
	return r->b[r->pos++];
}

static unsigned get16(struct reader *r)
{
	unsigned hi = get8(r);

	return hi << 8 | get8(r);
}

/* n bytes on: a record's bytes in one step, a record header by get8 */
static void skip(struct reader *r, size_t n)
{
	while (n && !r->err) {
		size_t k = n < r->rec_left ? n : r->rec_left;

		if (k > r->len - r->pos)
			k = r->len - r->pos;
		if (!k) {
			get8(r); /* the next record's header, or the end of the bytes */
			n--;
			continue;
		}
		r->pos += k;
		r->rec_left -= k;
		n -= k;
	}
}

/* A DNS name as RFC 6066 wants it: letters, digits, '-', '_' and dots,
 * no empty label; anything else (a NUL, a space, a '*') is refused
 * rather than matched. */
static bool dns_name(const char *s, size_t n)
{
	if (!n || s[0] == '.' || strstr(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_' || c == '.'))
			return false;
	}
	return true;
}

/* The server_name extension's body (ext bytes): one host_name. */
static void server_name(struct reader *r, size_t ext, struct fp_tls_hello *out)
{
	size_t list, n;

	if (out->has_sni || ext < 2) {
		r->err = r->err ? r->err : -EBADMSG; /* twice, or no list */
		return;
	}
	list = get16(r);
	if (list + 2 != ext || list < 3) {
		r->err = r->err ? r->err : -EBADMSG;
		return;
	}
	while (list && !r->err) {
		unsigned type = get8(r);

		n = get16(r);
		if (r->err)
			return;
		if (n + 3 > list) {
			r->err = -EBADMSG;
			return;
		}
		list -= n + 3;
		if (type != NAME_HOST) {
			skip(r, n);
			continue;
		}
		if (out->has_sni || !n || n > FP_TLS_NAME_MAX) {
			r->err = -EBADMSG; /* RFC 6066: one name of a type, 1..255 bytes */
			return;
		}
		for (size_t i = 0; i < n; i++)
			out->sni[i] = (char)get8(r);
		if (r->err)
			return;
		out->sni[n] = 0;
		out->sni_len = n;
		if (!dns_name(out->sni, n)) {
			r->err = -EBADMSG;
			return;
		}
		out->has_sni = true;
	}
}

int fp_tls__client_hello(const void *buf, size_t len, struct fp_tls_hello *out)
{
	struct reader r = { .b = buf, .len = len };
	size_t msg, left, n;
	unsigned type;

	memset(out, 0, sizeof(*out));
	type = get8(&r);
	msg = (size_t)get8(&r) << 16;
	msg |= get16(&r);
	if (r.err)
		return r.err == NEED ? 0 : r.err;
	if (type != HS_CLIENT_HELLO)
		return -EBADMSG;
	if (msg > FP_TLS_HELLO_MAX)
		return -EMSGSIZE;
	/* legacy_version, random, session id, cipher suites, compression */
	out->version = (uint16_t)get16(&r);
	skip(&r, 32);
	n = get8(&r);
	if (n > 32 && !r.err)
		return -EBADMSG;
	skip(&r, n);
	left = 2 + 32 + 1 + n;
	n = get16(&r);
	if (!r.err && (n < 2 || n % 2))
		return -EBADMSG;
	skip(&r, n);
	left += 2 + n;
	n = get8(&r);
	if (!r.err && n < 1)
		return -EBADMSG;
	skip(&r, n);
	left += 1 + n;
	if (r.err)
		return r.err == NEED ? 0 : r.err;
	if (left > msg)
		return -EBADMSG;
	if (left < msg) {
		size_t exts;

		/* extensions: a 2-byte length that must fill the message exactly */
		if (msg - left < 2)
			return -EBADMSG;
		exts = get16(&r);
		if (r.err)
			return r.err == NEED ? 0 : r.err;
		if (exts + 2 != msg - left)
			return -EBADMSG;
		while (exts && !r.err) {
			unsigned et;
			size_t el;

			if (exts < 4)
				return -EBADMSG;
			et = get16(&r);
			el = get16(&r);
			if (r.err)
				break;
			if (el + 4 > exts)
				return -EBADMSG;
			exts -= el + 4;
			if (et == EXT_SERVER_NAME)
				server_name(&r, el, out);
			else
				skip(&r, el);
		}
		if (r.err)
			return r.err == NEED ? 0 : r.err;
	}
	out->bytes = r.pos;
	return 1;
}
