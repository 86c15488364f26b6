/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * src/proxy/cookie.c and the challenge in policy_match.c: a cookie signed
 * for a client verifies for it only, until it expires; a tampered, truncated
 * or malformed one never does; the key file's checks; the cookie found in a
 * request's Cookie headers; and how `challenge` and `limit ... challenge`
 * decide with and without a valid cookie.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "proxy/cookie.h"
#include "proxy/policy.h"
#include "unit/diag_util.h"

static const uint64_t T0 = 1764900000; /* 2025-12-05 */

static void key_of(struct fp_px_cookie_key *k, const char *s)
{
	memset(k, 0, sizeof(*k));
	k->len = strlen(s);
	memcpy(k->k, s, k->len);
}

static void addr4(const char *s, uint8_t a[16])
{
	memset(a, 0, 16);
	assert_int_equal(inet_pton(AF_INET, s, a), 1);
}

static void test_sign_verify(void **state)
{
	struct fp_px_cookie_key k, k2;
	uint8_t a[16], b[16], a6[16];
	char v[FP_PX_COOKIE_VALUE_LEN + 1], t[FP_PX_COOKIE_VALUE_LEN + 1];

	key_of(&k, "0123456789abcdef-the-key");
	key_of(&k2, "0123456789abcdef-the-kez");
	addr4("192.0.2.1", a);
	addr4("192.0.2.2", b);
	assert_int_equal(inet_pton(AF_INET6, "2001:db8::1", a6), 1);
	fp_px_cookie__sign(&k, 4, a, T0, v);
	assert_int_equal(strlen(v), FP_PX_COOKIE_VALUE_LEN);
	assert_memory_equal(v, "0000000069323ca0.", 17); /* T0 in hex */
	/* valid: at once, within the lifetime, slightly ahead of the clock */
	assert_true(fp_px_cookie__verify(&k, 4, a, v, strlen(v), T0));
	assert_true(fp_px_cookie__verify(&k, 4, a, v, strlen(v), T0 + FP_PX_COOKIE_LIFETIME_S - 1));
	assert_true(fp_px_cookie__verify(&k, 4, a, v, strlen(v), T0 - 30));
	/* expired, or from too far in the future */
	assert_false(fp_px_cookie__verify(&k, 4, a, v, strlen(v), T0 + FP_PX_COOKIE_LIFETIME_S));
	assert_false(fp_px_cookie__verify(&k, 4, a, v, strlen(v), T0 - 3600));
	/* another client, another family, another key */
	assert_false(fp_px_cookie__verify(&k, 4, b, v, strlen(v), T0));
	assert_false(fp_px_cookie__verify(&k, 6, a, v, strlen(v), T0));
	assert_false(fp_px_cookie__verify(&k2, 4, a, v, strlen(v), T0));
	fp_px_cookie__sign(&k, 6, a6, T0, t);
	assert_true(fp_px_cookie__verify(&k, 6, a6, t, strlen(t), T0));
	assert_false(fp_px_cookie__verify(&k, 4, a6, t, strlen(t), T0));
	/* tampered: every single character changed is refused */
	for (size_t i = 0; i < FP_PX_COOKIE_VALUE_LEN; i++) {
		memcpy(t, v, sizeof(t));
		t[i] = t[i] == '0' ? '1' : '0';
		if (fp_px_cookie__verify(&k, 4, a, t, strlen(t), T0))
			fail_msg("changed at %zu: %s still verifies", i, t);
	}
	/* a later time with the old MAC (extending its life) */
	memcpy(t, v, sizeof(t));
	t[15] = 'f';
	assert_false(fp_px_cookie__verify(&k, 4, a, t, strlen(t), T0 + 20));
	/* bad format: truncated, longer, no dot, upper case hex, empty, no key */
	assert_false(fp_px_cookie__verify(&k, 4, a, v, strlen(v) - 1, T0));
	memcpy(t, v, sizeof(t));
	t[16] = '-';
	assert_false(fp_px_cookie__verify(&k, 4, a, t, strlen(t), T0));
	for (size_t i = 17; i < FP_PX_COOKIE_VALUE_LEN; i++)
		t[i] = (char)(v[i] >= 'a' ? v[i] - 32 : v[i]);
	t[16] = '.';
	assert_false(fp_px_cookie__verify(&k, 4, a, t, strlen(t), T0));
	assert_false(fp_px_cookie__verify(&k, 4, a, "", 0, T0));
	{
		char longer[FP_PX_COOKIE_VALUE_LEN + 2];

		memcpy(longer, v, FP_PX_COOKIE_VALUE_LEN);
		longer[FP_PX_COOKIE_VALUE_LEN] = '0';
		assert_false(fp_px_cookie__verify(&k, 4, a, longer, sizeof(longer) - 1, T0));
	}
	key_of(&k2, "");
	assert_false(fp_px_cookie__verify(&k2, 4, a, v, strlen(v), T0));
	(void)state;
}

static void test_key_file(void **state)
{
	char path[] = "/tmp/fp_cookie_keyXXXXXX", err[300];
	struct fp_px_cookie_key k;
	int fd = mkstemp(path);
	char big[FP_PX_KEY_MAX + 1];

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "short", 5), 5);
	assert_int_equal(fp_px_cookie__load_key(path, &k, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "at least 16"));
	assert_int_equal(write(fd, "-now-long-enough", 16), 16);
	assert_int_equal(fp_px_cookie__load_key(path, &k, err, sizeof(err)), 0);
	assert_int_equal(k.len, 21);
	memset(big, 'x', sizeof(big));
	assert_int_equal(pwrite(fd, big, sizeof(big), 0), (ssize_t)sizeof(big));
	assert_int_equal(fp_px_cookie__load_key(path, &k, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "longer than"));
	close(fd);
	unlink(path);
	assert_int_equal(fp_px_cookie__load_key(path, &k, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, path));
	(void)state;
}

static int parse(const char *head, struct fp_http_req *q)
{
	struct fp_http_limits lim;

	fp_http_limits__default(&lim);
	return fp_http__parse_head(head, strlen(head), &lim, q);
}

static void test_request(void **state)
{
	struct fp_px_cookie_key k;
	static struct fp_http_req q;
	uint8_t a[16];
	char v[FP_PX_COOKIE_VALUE_LEN + 1], head[512];

	key_of(&k, "0123456789abcdef-the-key");
	addr4("198.51.100.7", a);
	fp_px_cookie__sign(&k, 4, a, T0, v);
	snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nHost: a\r\nCookie: x=1; "
		 FP_PX_COOKIE_NAME "=%s; y=2\r\n\r\n", v);
	assert_true(parse(head, &q) > 0);
	assert_true(fp_px_cookie__request_ok(&k, 4, a, head, &q, T0 + 5));
	assert_false(fp_px_cookie__request_ok(&k, 4, a, head, &q, T0 + FP_PX_COOKIE_LIFETIME_S));
	/* in a second Cookie header, alone */
	snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nHost: a\r\ncookie: x=1\r\nCOOKIE: "
		 FP_PX_COOKIE_NAME "=%s\r\n\r\n", v);
	assert_true(parse(head, &q) > 0);
	assert_true(fp_px_cookie__request_ok(&k, 4, a, head, &q, T0));
	/* under another name, or in another header: not the cookie */
	snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nHost: a\r\nCookie: x" FP_PX_COOKIE_NAME
		 "=%s\r\nX-Cookie: " FP_PX_COOKIE_NAME "=%s\r\n\r\n", v, v);
	assert_true(parse(head, &q) > 0);
	assert_false(fp_px_cookie__request_ok(&k, 4, a, head, &q, T0));
	assert_true(parse("GET / HTTP/1.1\r\nHost: a\r\n\r\n", &q) > 0);
	assert_false(fp_px_cookie__request_ok(&k, 4, a, "GET / HTTP/1.1\r\nHost: a\r\n\r\n", &q,
					      T0));
	(void)state;
}

static bool always_over(void *ctx, size_t rule, const struct fp_px_view *v)
{
	(void)ctx, (void)rule, (void)v;
	return true;
}

static void test_decide(void **state)
{
	const char *text = "challenge-key k\nlimit 1/s challenge path /dock\n"
			   "challenge path /comms\ndeny path /comms\ndefault allow\n";
	struct fp_px_policy p;
	struct fp_diags d = { 0 };
	struct fp_px_verdict vd;
	static struct fp_http_req q;
	const char *dock = "GET /dock HTTP/1.1\r\nHost: a\r\n\r\n";
	const char *comms = "GET /comms HTTP/1.1\r\nHost: a\r\n\r\n";
	struct fp_px_view v = { .family = 4 };

	assert_int_equal(fp_px_policy__parse(text, strlen(text), &p, &d), 0);
	/* challenge rule: no cookie, the challenge; a cookie, on to the deny */
	assert_true(parse(comms, &q) > 0);
	v.buf = comms, v.req = &q, v.path = "/comms", v.path_len = 6;
	fp_px_policy__decide(&p, &v, NULL, NULL, &vd);
	assert_int_equal(vd.action, FP_PX_CHALLENGE);
	assert_int_equal(vd.rule, 1);
	v.cookie_ok = true;
	fp_px_policy__decide(&p, &v, NULL, NULL, &vd);
	assert_int_equal(vd.action, FP_PX_DENY);
	assert_int_equal(vd.rule, 2);
	/* limit ... challenge: within the rate on, past it the challenge
	 * unless the cookie is there */
	assert_true(parse(dock, &q) > 0);
	v.buf = dock, v.path = "/dock", v.path_len = 5, v.cookie_ok = false;
	fp_px_policy__decide(&p, &v, NULL, NULL, &vd);
	assert_int_equal(vd.action, FP_PX_ALLOW);
	assert_int_equal(vd.rule, -1);
	fp_px_policy__decide(&p, &v, always_over, NULL, &vd);
	assert_int_equal(vd.action, FP_PX_CHALLENGE);
	assert_int_equal(vd.rule, 0);
	v.cookie_ok = true;
	fp_px_policy__decide(&p, &v, always_over, NULL, &vd);
	assert_int_equal(vd.action, FP_PX_ALLOW);
	assert_int_equal(vd.rule, -1);
	fp_px_policy__free(&p);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sign_verify),
		cmocka_unit_test(test_key_file),
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_decide),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
