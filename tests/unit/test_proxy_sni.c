/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * src/proxy/tls_sni.c: the ClientHello reader against a table of hellos
 * built here (with and without a server name, split across records), a
 * real one from `openssl s_client -servername`, every prefix of each
 * (need more, never an answer that changes), and the malformed ones:
 * truncated, oversize, garbage, lengths that do not add up, two names.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proxy/tls_sni.h"

/* openssl 3.0 s_client -connect ... -servername Death-Star.example */
static const uint8_t openssl_hello[] = {
	0x16, 0x03, 0x01, 0x01, 0x3f, 0x01, 0x00, 0x01, 0x3b, 0x03, 0x03, 0xdb,
	0x9a, 0xd9, 0x40, 0x7b, 0xd7, 0x63, 0x78, 0xb0, 0xc2, 0xdd, 0x22, 0x04,
	0x85, 0x2b, 0xe0, 0x0f, 0x10, 0x33, 0xf1, 0x30, 0x41, 0x36, 0x00, 0x01,
	0x9b, 0xa1, 0xff, 0x08, 0x93, 0xfb, 0x38, 0x20, 0xa3, 0x49, 0xa6, 0x57,
	0xe3, 0x13, 0xb3, 0x72, 0x9c, 0x83, 0x80, 0xf6, 0x58, 0x8d, 0x1b, 0xdd,
	0x9d, 0xd4, 0x25, 0xd1, 0x3f, 0x17, 0x04, 0x9f, 0xe4, 0x84, 0xd5, 0xdb,
	0x7c, 0x53, 0xbc, 0x62, 0x00, 0x3e, 0x13, 0x02, 0x13, 0x03, 0x13, 0x01,
	0xc0, 0x2c, 0xc0, 0x30, 0x00, 0x9f, 0xcc, 0xa9, 0xcc, 0xa8, 0xcc, 0xaa,
	0xc0, 0x2b, 0xc0, 0x2f, 0x00, 0x9e, 0xc0, 0x24, 0xc0, 0x28, 0x00, 0x6b,
	0xc0, 0x23, 0xc0, 0x27, 0x00, 0x67, 0xc0, 0x0a, 0xc0, 0x14, 0x00, 0x39,
	0xc0, 0x09, 0xc0, 0x13, 0x00, 0x33, 0x00, 0x9d, 0x00, 0x9c, 0x00, 0x3d,
	0x00, 0x3c, 0x00, 0x35, 0x00, 0x2f, 0x00, 0xff, 0x01, 0x00, 0x00, 0xb4,
	0x00, 0x00, 0x00, 0x17, 0x00, 0x15, 0x00, 0x00, 0x12, 0x44, 0x65, 0x61,
	0x74, 0x68, 0x2d, 0x53, 0x74, 0x61, 0x72, 0x2e, 0x65, 0x78, 0x61, 0x6d,
	0x70, 0x6c, 0x65, 0x00, 0x0b, 0x00, 0x04, 0x03, 0x00, 0x01, 0x02, 0x00,
	0x0a, 0x00, 0x16, 0x00, 0x14, 0x00, 0x1d, 0x00, 0x17, 0x00, 0x1e, 0x00,
	0x19, 0x00, 0x18, 0x01, 0x00, 0x01, 0x01, 0x01, 0x02, 0x01, 0x03, 0x01,
	0x04, 0x00, 0x23, 0x00, 0x00, 0x00, 0x16, 0x00, 0x00, 0x00, 0x17, 0x00,
	0x00, 0x00, 0x0d, 0x00, 0x2a, 0x00, 0x28, 0x04, 0x03, 0x05, 0x03, 0x06,
	0x03, 0x08, 0x07, 0x08, 0x08, 0x08, 0x09, 0x08, 0x0a, 0x08, 0x0b, 0x08,
	0x04, 0x08, 0x05, 0x08, 0x06, 0x04, 0x01, 0x05, 0x01, 0x06, 0x01, 0x03,
	0x03, 0x03, 0x01, 0x03, 0x02, 0x04, 0x02, 0x05, 0x02, 0x06, 0x02, 0x00,
	0x2b, 0x00, 0x09, 0x08, 0x03, 0x04, 0x03, 0x03, 0x03, 0x02, 0x03, 0x01,
	0x00, 0x2d, 0x00, 0x02, 0x01, 0x01, 0x00, 0x33, 0x00, 0x26, 0x00, 0x24,
	0x00, 0x1d, 0x00, 0x20, 0xd6, 0x79, 0x7a, 0x70, 0xc6, 0x8d, 0x55, 0xe8,
	0x2e, 0x28, 0x79, 0x93, 0x06, 0x59, 0x30, 0x1b, 0x55, 0xd1, 0xdb, 0x7d,
	0x32, 0x6e, 0x50, 0xb3, 0xda, 0xb7, 0x7d, 0x85, 0xa9, 0x2f, 0x89, 0x6a,
};

/* a 63-byte label: four make the longest name (255 bytes) */
#define L63 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

struct buf {
	uint8_t b[40000];
	size_t n;
};

static void put8(struct buf *b, unsigned v) { b->b[b->n++] = (uint8_t)v; }
static void put16(struct buf *b, unsigned v) { put8(b, v >> 8); put8(b, v); }
static void put(struct buf *b, const void *p, size_t n) { memcpy(b->b + b->n, p, n); b->n += n; }

/* How to build a hello (every field right unless a case says otherwise). */
struct spec {
	const char *sni;        /* NULL: no server_name extension */
	const char *sni2;       /* a second host_name in the list */
	bool two_sni_exts;
	bool no_exts;           /* no extensions block at all (TLS 1.2 allows it) */
	size_t pad_ext;         /* bytes of a padding extension (21) before the name */
	size_t record;          /* records of at most this many bytes (0: one record) */
	unsigned session_id;    /* its length (33 is malformed) */
	unsigned suites;        /* bytes of cipher suites (odd is malformed) */
	int ext_len_delta;      /* added to the extensions' length */
	int msg_len_delta;      /* added to the handshake message's length */
	unsigned hs_type;       /* 0: client_hello (1) */
};

static void ext_sni(struct buf *b, const char *a, const char *c)
{
	size_t la = strlen(a), lc = c ? strlen(c) : 0;
	size_t list = 3 + la + (c ? 3 + lc : 0);

	put16(b, 0);
	put16(b, (unsigned)list + 2);
	put16(b, (unsigned)list);
	put8(b, 0);
	put16(b, (unsigned)la);
	put(b, a, la);
	if (c) {
		put8(b, 0);
		put16(b, (unsigned)lc);
		put(b, c, lc);
	}
}

static size_t build(const struct spec *s, uint8_t *out)
{
	static struct buf body, ext, msg;
	size_t n = 0, rec = s->record ? s->record : 16384;

	body.n = ext.n = msg.n = 0;
	put16(&body, 0x0303);
	for (int i = 0; i < 32; i++)
		put8(&body, (unsigned)i);
	put8(&body, s->session_id);
	for (unsigned i = 0; i < s->session_id; i++)
		put8(&body, 0xaa);
	put16(&body, s->suites ? s->suites : 4);
	for (unsigned i = 0; i < (s->suites ? s->suites : 4); i++)
		put8(&body, 0x13);
	put8(&body, 1);
	put8(&body, 0);
	if (!s->no_exts) {
		put16(&ext, 43); /* supported_versions: TLS 1.3 */
		put16(&ext, 3);
		put8(&ext, 2);
		put16(&ext, 0x0304);
		if (s->pad_ext) {
			put16(&ext, 21);
			put16(&ext, (unsigned)s->pad_ext);
			for (size_t i = 0; i < s->pad_ext; i++)
				put8(&ext, 0);
		}
		if (s->sni)
			ext_sni(&ext, s->sni, s->sni2);
		if (s->two_sni_exts)
			ext_sni(&ext, "second.example", NULL);
		put16(&body, (unsigned)((int)ext.n + s->ext_len_delta));
		put(&body, ext.b, ext.n);
	}
	put8(&msg, s->hs_type ? s->hs_type : 1);
	put8(&msg, (unsigned)((int)body.n + s->msg_len_delta) >> 16);
	put16(&msg, (unsigned)((int)body.n + s->msg_len_delta) & 0xffff);
	put(&msg, body.b, body.n);
	for (size_t off = 0; off < msg.n; off += rec) {
		size_t k = msg.n - off < rec ? msg.n - off : rec;

		out[n++] = 0x16;
		out[n++] = 3;
		out[n++] = 1;
		out[n++] = (uint8_t)(k >> 8);
		out[n++] = (uint8_t)k;
		memcpy(out + n, msg.b + off, k);
		n += k;
	}
	return n;
}

/* Every prefix answers "need more" (or the final error earlier), the whole
 * answers want; an answer once given never changes. */
static void check_prefixes(const char *name, const uint8_t *b, size_t n, int want,
			   const char *sni)
{
	struct fp_tls_hello h;
	int first = 0;

	for (size_t i = 0; i <= n; i++) {
		int r = fp_tls__client_hello(b, i, &h);

		if (first && r != first)
			fail_msg("%s: answer %d at %zu bytes after %d", name, r, i, first);
		if (r == 1 && i != n)
			fail_msg("%s: complete at %zu of %zu bytes", name, i, n);
		if (r)
			first = r;
	}
	if (first != want)
		fail_msg("%s: got %d, want %d", name, first, want);
	if (want == 1) {
		assert_int_equal(h.has_sni, sni != NULL);
		if (sni)
			assert_string_equal(h.sni, sni);
		assert_int_equal(h.sni_len, sni ? strlen(sni) : 0);
		assert_int_equal(h.bytes, n);
	}
}

static void test_table(void **state)
{
	static const struct {
		const char *name;
		struct spec s;
		int want;
		const char *sni;
	} cases[] = {
		{ "sni", { .sni = "deathstar.example" }, 1, "deathstar.example" },
		{ "sni kept as sent", { .sni = "Dock.DeathStar.example." }, 1, "Dock.DeathStar.example." },
		{ "no sni", { .sni = NULL }, 1, NULL },
		{ "no extensions", { .no_exts = true }, 1, NULL },
		{ "session id", { .sni = "a.example", .session_id = 32 }, 1, "a.example" },
		{ "padding first", { .sni = "a.example", .pad_ext = 512 }, 1, "a.example" },
		{ "records of 7 bytes", { .sni = "split.example", .record = 7 }, 1, "split.example" },
		{ "records of 1 byte", { .sni = "one.example", .record = 1 }, 1, "one.example" },
		{ "longest name", { .sni = L63 "." L63 "." L63 "." L63 }, 1, L63 "." L63 "." L63 "." L63 },
		/* malformed */
		{ "name too long", { .sni = L63 "." L63 "." L63 "." L63 "b" }, -EBADMSG, NULL },
		{ "two names", { .sni = "a.example", .sni2 = "b.example" }, -EBADMSG, NULL },
		{ "two sni extensions", { .sni = "a.example", .two_sni_exts = true }, -EBADMSG, NULL },
		{ "empty name", { .sni = "" }, -EBADMSG, NULL },
		{ "space in name", { .sni = "a .example" }, -EBADMSG, NULL },
		{ "star in name", { .sni = "*.example" }, -EBADMSG, NULL },
		{ "empty label", { .sni = "a..example" }, -EBADMSG, NULL },
		{ "session id 33", { .sni = "a.example", .session_id = 33 }, -EBADMSG, NULL },
		{ "odd cipher suites", { .sni = "a.example", .suites = 3 }, -EBADMSG, NULL },
		{ "extensions too long", { .sni = "a.example", .ext_len_delta = 1 }, -EBADMSG, NULL },
		{ "extensions too short", { .sni = "a.example", .ext_len_delta = -1 }, -EBADMSG, NULL },
		{ "message shorter than its fields", { .sni = "a.example", .msg_len_delta = -3 },
		  -EBADMSG, NULL },
		{ "a server hello", { .sni = "a.example", .hs_type = 2 }, -EBADMSG, NULL },
		{ "oversize (padding)", { .sni = "a.example", .pad_ext = FP_TLS_HELLO_MAX }, -EMSGSIZE,
		  NULL },
	};
	static uint8_t b[40000];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = build(&cases[i].s, b);

		check_prefixes(cases[i].name, b, n, cases[i].want, cases[i].sni);
	}
}

static void test_openssl(void **state)
{
	check_prefixes("openssl s_client", openssl_hello, sizeof(openssl_hello), 1,
		       "Death-Star.example");
}

/* A hello cut short and followed by something else; raw garbage. */
static void test_garbage(void **state)
{
	static const struct {
		const char *name;
		const char *b;
		size_t n;
		int want;
	} cases[] = {
		{ "http", "GET / HTTP/1.1\r\n", 16, -EBADMSG },
		{ "alert record", "\x15\x03\x01\x00\x02\x02\x28", 7, -EBADMSG },
		{ "ssl 2 version", "\x16\x02\x00\x00\x05", 5, -EBADMSG },
		{ "empty record", "\x16\x03\x01\x00\x00", 5, -EBADMSG },
		{ "record over 2^14", "\x16\x03\x01\x40\x01\x01", 6, -EBADMSG },
		{ "huge message", "\x16\x03\x01\x00\x04\x01\xff\xff\xff", 9, -EMSGSIZE },
		{ "application data", "\x17\x03\x03\x00\x10", 5, -EBADMSG },
		{ "bad second record", "\x16\x03\x01\x00\x04\x01\x00\x00\x30\x17\x03\x03\x00\x01", 14,
		  -EBADMSG },
		{ "first byte only", "\x16", 1, 0 },
		{ "nothing", "", 0, 0 },
	};
	struct fp_tls_hello h;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = fp_tls__client_hello(cases[i].b, cases[i].n, &h);

		if (r != cases[i].want)
			fail_msg("%s: got %d, want %d", cases[i].name, r, cases[i].want);
	}
	/* the real hello truncated in its record, then an application record */
	uint8_t t[sizeof(openssl_hello) + 5];

	memcpy(t, openssl_hello, 5);
	t[3] = 0;
	t[4] = 100; /* the record ends in the middle of the hello ... */
	memcpy(t + 5, openssl_hello + 5, 100);
	memcpy(t + 105, "\x17\x03\x03\x00\x05", 5); /* ... and the next is not a handshake */
	assert_int_equal(fp_tls__client_hello(t, 110, &h), -EBADMSG);
	assert_int_equal(fp_tls__client_hello(t, 105, &h), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_openssl),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
