/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * src/proxy/http_path.c, the path normaliser: remove_dot_segments against
 * RFC 3986 section 5.2.4's own examples and the merged paths of its 5.4
 * reference resolution examples, then the normaliser on a table: the
 * exhaust port in every encoded form, percent-encodings kept or decoded,
 * refused encodings, slashes, case, and the match form's trailing slash.
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

static const struct { const char *in, *out; } dots[] = {
	/* RFC 3986 5.2.4, the two worked examples */
	{ "/a/b/c/./../../g", "/a/g" },
	{ "mid/content=5/../6", "mid/6" },
	/* 5.4.1 normal examples, base path /b/c/d;p merged with the reference */
	{ "/b/c/g", "/b/c/g" },
	{ "/b/c/./g", "/b/c/g" },
	{ "/b/c/g/", "/b/c/g/" },
	{ "/b/c/.", "/b/c/" },
	{ "/b/c/./", "/b/c/" },
	{ "/b/c/..", "/b/" },
	{ "/b/c/../", "/b/" },
	{ "/b/c/../g", "/b/g" },
	{ "/b/c/../..", "/" },
	{ "/b/c/../../", "/" },
	{ "/b/c/../../g", "/g" },
	/* 5.4.2 abnormal examples */
	{ "/b/c/../../../g", "/g" },
	{ "/b/c/../../../../g", "/g" },
	{ "/./g", "/g" },
	{ "/../g", "/g" },
	{ "/b/c/g.", "/b/c/g." },
	{ "/b/c/.g", "/b/c/.g" },
	{ "/b/c/g..", "/b/c/g.." },
	{ "/b/c/..g", "/b/c/..g" },
	{ "/b/c/./../g", "/b/g" },
	{ "/b/c/./g/.", "/b/c/g/" },
	{ "/b/c/g/./h", "/b/c/g/h" },
	{ "/b/c/g/../h", "/b/c/h" },
	{ "/b/c/g;x=1/./y", "/b/c/g;x=1/y" },
	{ "/b/c/g;x=1/../y", "/b/c/y" },
	/* rules A and D on relative inputs */
	{ "../a", "a" },
	{ "./a", "a" },
	{ ".", "" },
	{ "..", "" },
	{ "/", "/" },
	{ "", "" },
};

static void test_remove_dot_segments(void **state)
{
	char buf[256];

	for (size_t i = 0; i < sizeof(dots) / sizeof(dots[0]); i++) {
		size_t n = strlen(dots[i].in);

		memcpy(buf, dots[i].in, n);
		n = fp_http__remove_dot_segments(buf, n);
		if (n != strlen(dots[i].out) || memcmp(buf, dots[i].out, n))
			fail_msg("'%s': want '%s', got '%.*s'", dots[i].in, dots[i].out, (int)n, buf);
	}
	(void)state;
}

/* out NULL: refused (-400) */
static const struct { const char *in, *out; } paths[] = {
	/* the exhaust port, every way the issue names and more */
	{ "/exhaust-port", "/exhaust-port" },
	{ "/dock/../exhaust-port", "/exhaust-port" },
	{ "/%65xhaust-port", "/exhaust-port" },
	{ "//exhaust-port", "/exhaust-port" },
	{ "/exhaust-port/", "/exhaust-port/" },
	{ "/dock/%2e%2e/exhaust-port", "/exhaust-port" },
	{ "/dock/%2E%2E/exhaust-port", "/exhaust-port" },
	{ "/dock/.%2e/exhaust-port", "/exhaust-port" },
	{ "/./exhaust-port", "/exhaust-port" },
	{ "/exhaust%2Dport", "/exhaust-port" },
	{ "/%65%78%68%61%75%73%74%2d%70%6f%72%74", "/exhaust-port" },
	{ "///dock//..//exhaust-port//", "/exhaust-port/" },
	{ "/../../exhaust-port", "/exhaust-port" },
	{ "/dock/./../comms/../exhaust-port/.", "/exhaust-port/" },
	/* percent-encodings that stay, in upper case */
	{ "/a%20b", "/a%20b" },
	{ "/a%3fb", "/a%3Fb" },
	{ "/caf%c3%a9", "/caf%C3%A9" },
	{ "/a%25", "/a%25" },
	{ "/%41%7a%30%5f%7e", "/Az0_~" },
	/* refused: encoded / and \, NUL and controls, broken encodings, raw bytes */
	{ "/dock%2F..%2Fexhaust-port", NULL },
	{ "/dock%2f..%2fexhaust-port", NULL },
	{ "/dock%5C..%5Cexhaust-port", NULL },
	{ "/a%00", NULL },
	{ "/a%0a", NULL },
	{ "/a%7F", NULL },
	{ "/a%", NULL },
	{ "/a%4", NULL },
	{ "/a%g1", NULL },
	{ "/a b", NULL },
	{ "/a\\b", NULL },
	{ "/a#b", NULL },
	{ "/a?b", NULL },
	{ "/caf\xc3\xa9", NULL },
	/* case: the path is case-sensitive */
	{ "/Exhaust-Port", "/Exhaust-Port" },
	/* empty (absolute-form without a path) and the root */
	{ "", "/" },
	{ "/", "/" },
	{ "//", "/" },
	{ "/..", "/" },
	{ "/dock/", "/dock/" },
	{ "/dock/.", "/dock/" },
};

static void test_normalise(void **state)
{
	char out[256];

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		size_t n = strlen(paths[i].in);
		long r = fp_http__normalise_path(paths[i].in, n, out, n + 2);

		if (!paths[i].out) {
			if (r != -400)
				fail_msg("'%s': want refused, got %ld '%s'", paths[i].in, r,
					 r >= 0 ? out : "");
			continue;
		}
		if (r < 0 || (size_t)r != strlen(paths[i].out) || strcmp(out, paths[i].out))
			fail_msg("'%s': want '%s', got %ld '%s'", paths[i].in, paths[i].out, r,
				 r >= 0 ? out : "");
		/* normalising again changes nothing */
		char again[256];

		if (fp_http__normalise_path(out, (size_t)r, again, sizeof(again)) != r ||
		    strcmp(again, out))
			fail_msg("'%s': not idempotent: '%s' then '%s'", paths[i].in, out, again);
	}
	/* an output buffer that is too small is refused, not overrun */
	assert_int_equal(fp_http__normalise_path("/abc", 4, out, 5), -400);
	(void)state;
}

static void test_match_len(void **state)
{
	assert_int_equal(fp_http__match_len("/exhaust-port/", 14), 13);
	assert_int_equal(fp_http__match_len("/exhaust-port", 13), 13);
	assert_int_equal(fp_http__match_len("/", 1), 1);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_remove_dot_segments),
		cmocka_unit_test(test_normalise),
		cmocka_unit_test(test_match_len),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
