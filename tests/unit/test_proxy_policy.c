/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * src/proxy/policy_parse.c and policy_match.c: the article's policy parsed
 * and decided on requests (the exhaust port in every encoded form, methods,
 * hosts, headers, clients, sni, limits), and every error class with its
 * LINE:COL, all errors of a file reported, and nothing kept on an error.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "proxy/policy.h"
#include "unit/diag_util.h"

static const char *death_star =
	"# the article's policy\n"
	"default deny\n"
	"allow GET,POST path /dock*\n"
	"allow path /comms\n"
	"deny path /exhaust-port* status 403\n"
	"limit 100/s by client path /comms\n";

static struct fp_px_policy parse_ok(const char *text)
{
	struct fp_px_policy p;
	struct fp_diags d = { 0 };
	char b[256];
	int r = fp_px_policy__parse(text, strlen(text), &p, &d);

	if (r)
		fail_msg("'%s': %d %s", text, r, diag_first(&d, b, sizeof(b)));
	fp_diags__free(&d);
	return p;
}

static void test_parse(void **state)
{
	struct fp_px_policy p = parse_ok(death_star);

	assert_int_equal(p.default_action, FP_PX_DENY);
	assert_int_equal(p.default_line, 2);
	assert_int_equal(p.n, 4);
	assert_int_equal(p.rules[0].action, FP_PX_ALLOW);
	assert_int_equal(p.rules[0].line, 3);
	assert_int_equal(p.rules[0].methods, fp_px_method__bit("GET", 3) | fp_px_method__bit("POST", 4));
	assert_true(p.rules[0].path_prefix);
	assert_string_equal(p.rules[0].path, "/dock");
	assert_false(p.rules[1].path_prefix);
	assert_int_equal(p.rules[2].status, 403);
	assert_int_equal(p.rules[3].action, FP_PX_LIMIT);
	assert_int_equal(p.rules[3].rate_count, 100);
	assert_int_equal(p.rules[3].rate_period_s, 1);
	assert_int_equal(p.rules[3].burst, 100);
	assert_int_equal(p.rules[3].by, FP_PX_BY_CLIENT);
	assert_int_equal(p.rules[3].status, 429);
	fp_px_policy__free(&p);

	p = parse_ok("challenge-key /etc/key\r\n"
		     "deny method DELETE host Death.Star. header X-Rebel=yes client 10.0.0.0/8 status 451\n"
		     "limit 10/m burst 5 by all challenge path /comms/\n"
		     "challenge header cookie\n"
		     "allow sni deathstar.example client ::1\n"
		     "deny path /%65xhaust-port/   # comment\n"
		     "   \t\n# only a comment\n");
	assert_string_equal(p.challenge_key, "/etc/key");
	assert_int_equal(p.default_action, FP_PX_ALLOW);
	assert_int_equal(p.n, 5);
	assert_string_equal(p.rules[0].host, "death.star");
	assert_string_equal(p.rules[0].header_name, "x-rebel");
	assert_string_equal(p.rules[0].header_value, "yes");
	assert_int_equal(p.rules[0].status, 451);
	assert_int_equal(p.rules[0].client.plen, 8);
	assert_int_equal(p.rules[1].rate_period_s, 60);
	assert_int_equal(p.rules[1].burst, 5);
	assert_int_equal(p.rules[1].by, FP_PX_BY_ALL);
	assert_true(p.rules[1].limit_challenge);
	assert_string_equal(p.rules[1].path, "/comms"); /* exact: matched without its '/' */
	assert_false(p.rules[2].header_has_value);
	assert_string_equal(p.rules[3].sni, "deathstar.example");
	assert_int_equal(p.rules[3].client.family, 6);
	assert_string_equal(p.rules[4].path, "/exhaust-port");
	assert_int_equal(p.rules[4].line, 6);
	fp_px_policy__free(&p);
	(void)state;
}

/* one request through the policy: the status (0 = allowed) and the rule */
static int decide(const struct fp_px_policy *p, const char *head, const char *client,
		  long *rule, fp_px_over_fn over)
{
	struct fp_http_limits lim;
	struct fp_http_req *req = malloc(sizeof(*req));
	struct fp_px_view v = { 0 };
	struct fp_px_verdict out;
	char path[1024];
	long n;
	int r;

	fp_http_limits__default(&lim);
	r = fp_http__parse_head(head, strlen(head), &lim, req);
	if (r <= 0)
		fail_msg("'%s': head %d", head, r);
	n = fp_http__normalise_path(head + req->path.off, req->path.len, path, sizeof(path));
	if (n < 0) {
		free(req);
		return 400;
	}
	v.buf = head;
	v.req = req;
	v.path = path;
	v.path_len = (size_t)n;
	v.family = strchr(client, ':') ? 6 : 4;
	inet_pton(v.family == 6 ? AF_INET6 : AF_INET, client, v.addr);
	fp_px_policy__decide(p, &v, over, NULL, &out);
	free(req);
	*rule = out.rule;
	return out.action == FP_PX_ALLOW ? 0 : out.action == FP_PX_CHALLENGE ? 1 : out.status;
}

static bool always_over(void *ctx, size_t rule, const struct fp_px_view *v)
{
	(void)ctx, (void)rule, (void)v;
	return true;
}

static void test_decide(void **state)
{
	struct fp_px_policy p = parse_ok(death_star);
	static const struct {
		const char *method, *target;
		int status;
		long rule;
	} cases[] = {
		{ "GET", "/dock", 0, 0 },
		{ "POST", "/dock/bay/7", 0, 0 },
		{ "PUT", "/dock", 403, 2 - 2 - 1 }, /* PUT: not rule 0; default deny */
		{ "GET", "/comms", 0, 1 },
		{ "DELETE", "/comms/", 0, 1 },
		{ "GET", "/comms/x", 403, -1 },
		{ "GET", "/exhaust-port", 403, 2 },
		{ "GET", "/dock/../exhaust-port", 403, 2 },
		{ "GET", "/%65xhaust-port", 403, 2 },
		{ "GET", "//exhaust-port", 403, 2 },
		{ "GET", "/exhaust-port/", 403, 2 },
		{ "GET", "/exhaust-port/vent", 403, 2 },
		{ "GET", "/dock/%2e%2e/exhaust-port", 403, 2 },
		{ "GET", "/dock%2F..%2Fexhaust-port", 400, -1 },
		{ "GET", "http://deathstar/dock/../exhaust-port?x", 403, 2 },
		{ "GET", "/", 403, -1 },
	};
	char head[512];
	long rule;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int st;

		snprintf(head, sizeof(head), "%s %s HTTP/1.1\r\nHost: deathstar\r\n\r\n",
			 cases[i].method, cases[i].target);
		st = decide(&p, head, "192.0.2.1", &rule, NULL);
		if (st != cases[i].status || (st != 400 && rule != cases[i].rule))
			fail_msg("%s %s: want %d by rule %ld, got %d by rule %ld", cases[i].method,
				 cases[i].target, cases[i].status, cases[i].rule, st, rule);
	}
	/* a limit past its rate: 429 from the limit rule (it comes last here:
	 * /comms is allowed first) */
	fp_px_policy__free(&p);
	p = parse_ok("challenge-key k\nlimit 1/s path /comms\nlimit 1/s challenge path /dock\nallow\n");
	assert_int_equal(decide(&p, "GET /comms HTTP/1.1\r\nHost: a\r\n\r\n", "1.2.3.4", &rule,
				always_over), 429);
	assert_int_equal(rule, 0);
	assert_int_equal(decide(&p, "GET /comms HTTP/1.1\r\nHost: a\r\n\r\n", "1.2.3.4", &rule,
				NULL), 0); /* within the rate: on to the next rules */
	assert_int_equal(rule, 2);
	assert_int_equal(decide(&p, "GET /dock HTTP/1.1\r\nHost: a\r\n\r\n", "1.2.3.4", &rule,
				always_over), 1);
	fp_px_policy__free(&p);
	p = parse_ok("challenge-key k\nlimit 1/s challenge path /dock\n");
	fp_px_policy__free(&p);

	/* host (port, case, trailing dot), header, client, sni */
	p = parse_ok("deny host death.star\ndeny header X-Rebel=yes status 451\n"
		     "deny header X-Spy\ndeny client 10.0.0.0/8\ndeny client 2001:db8::/32\n"
		     "allow sni deathstar.example\ndefault allow\n");
	assert_int_equal(decide(&p, "GET / HTTP/1.1\r\nHost: Death.Star.:8080\r\n\r\n", "1.1.1.1",
				&rule, NULL), 403);
	assert_int_equal(rule, 0);
	assert_int_equal(decide(&p, "GET / HTTP/1.1\r\nHost: death.starx\r\n\r\n", "1.1.1.1",
				&rule, NULL), 0);
	assert_int_equal(decide(&p, "GET / HTTP/1.1\r\nHost: a\r\nx-rebel: yes\r\n\r\n", "1.1.1.1",
				&rule, NULL), 451);
	assert_int_equal(decide(&p, "GET / HTTP/1.1\r\nHost: a\r\nX-Rebel: Yes\r\n\r\n", "1.1.1.1",
				&rule, NULL), 0);
	assert_int_equal(decide(&p, "GET / HTTP/1.1\r\nHost: a\r\nX-SPY: 1\r\n\r\n", "1.1.1.1",
				&rule, NULL), 403);
	assert_int_equal(rule, 2);
	assert_int_equal(decide(&p, "GET / HTTP/1.1\r\nHost: a\r\n\r\n", "10.200.0.1", &rule, NULL),
			 403);
	assert_int_equal(rule, 3);
	assert_int_equal(decide(&p, "GET / HTTP/1.1\r\nHost: a\r\n\r\n", "11.0.0.1", &rule, NULL), 0);
	assert_int_equal(decide(&p, "GET / HTTP/1.1\r\nHost: a\r\n\r\n", "2001:db8::5", &rule, NULL),
			 403);
	assert_int_equal(rule, 4);
	assert_int_equal(rule, 4);
	/* a TLS connection: only the sni and client rules can match */
	struct fp_px_view v = { .tls = true, .sni = "DeathStar.example", .sni_len = 17, .family = 4 };
	struct fp_px_verdict out;

	fp_px_policy__decide(&p, &v, NULL, NULL, &out);
	assert_int_equal(out.rule, 5);
	v.addr[0] = 10;
	fp_px_policy__decide(&p, &v, NULL, NULL, &out);
	assert_int_equal(out.rule, 3);
	fp_px_policy__free(&p);

	/* wildcard names: *.suffix is any name under suffix, never suffix itself */
	p = parse_ok("deny sni *.Empire.example\nallow sni empire.example\n"
		     "deny host *.empire.example\ndefault allow\n");
	static const struct {
		const char *name;
		long rule;
	} snis[] = {
		{ "tie.empire.example", 0 }, { "A.B.EMPIRE.example.", 0 }, { "empire.example", 1 },
		{ "xempire.example", -1 }, { ".empire.example", -1 }, { "empire.example.org", -1 },
	};

	for (size_t i = 0; i < sizeof(snis) / sizeof(snis[0]); i++) {
		v = (struct fp_px_view){ .tls = true, .sni = snis[i].name,
					 .sni_len = strlen(snis[i].name), .family = 4 };
		fp_px_policy__decide(&p, &v, NULL, NULL, &out);
		if (out.rule != snis[i].rule)
			fail_msg("sni %s: rule %ld, want %ld", snis[i].name, out.rule, snis[i].rule);
	}
	v = (struct fp_px_view){ .tls = true, .family = 4 }; /* a hello without a name */
	fp_px_policy__decide(&p, &v, NULL, NULL, &out);
	assert_int_equal(out.rule, -1);
	assert_int_equal(decide(&p, "GET / HTTP/1.1\r\nHost: Tie.Empire.Example:80\r\n\r\n",
				"1.1.1.1", &rule, NULL), 403);
	assert_int_equal(rule, 2);
	assert_int_equal(decide(&p, "GET / HTTP/1.1\r\nHost: empire.example\r\n\r\n", "1.1.1.1",
				&rule, NULL), 0);
	fp_px_policy__free(&p);
	(void)state;
}

/* Each error class, alone on its line, with its column. */
static const struct {
	const char *text, *want;
	unsigned line, col;
} errors[] = {
	{ "alow path /a", "unknown action 'alow'; did you mean 'allow'?", 1, 1 },
	{ "default\n", "expected allow or deny after 'default'", 1, 8 },
	{ "default pass", "expected allow or deny after 'default', got 'pass'", 1, 9 },
	{ "default deny now", "unexpected 'now'", 1, 14 },
	{ "default deny\ndefault allow", "second 'default' line (the first is on line 1)", 2, 1 },
	{ "allow pth /a", "unknown term 'pth'; did you mean 'path'?", 1, 7 },
	{ "allow path", "'path' needs a value", 1, 11 },
	{ "allow path dock", "path 'dock' must start with '/'", 1, 12 },
	{ "allow path /do*ck", "'*' only at the end of a path", 1, 15 },
	{ "allow path /a%2Fb", "refuses in requests", 1, 12 },
	{ "allow path /a path /b", "'path' given twice", 1, 15 },
	{ "allow GET,PUST path /a", "unknown method 'PUST'; did you mean 'POST'?", 1, 11 },
	{ "allow Get path /a", "unknown method 'Get'", 1, 7 },
	{ "allow GET,GET", "method 'GET' listed twice", 1, 11 },
	{ "allow GET method POST", "'method' given twice", 1, 11 },
	{ "allow method", "'method' needs a value", 1, 13 },
	{ "allow host a/b", "character '/' not allowed in a host name", 1, 13 },
	{ "allow header X(=1", "character not allowed in a header name", 1, 15 },
	{ "allow header =1", "header name must be 1..63 characters", 1, 14 },
	{ "allow client 10.0.0.1/8", "has host bits set; did you mean 10.0.0.0/8?", 1, 14 },
	{ "allow client 10.0.0.0/33", "too long for IPv4", 1, 14 },
	{ "allow client deathstar", "expected an IPv4 or IPv6 address", 1, 14 },
	{ "deny status 200", "status must be 400..599, got '200'", 1, 13 },
	{ "deny status x", "status must be 400..599", 1, 13 },
	{ "allow status 403", "'status' only with deny or limit", 1, 14 },
	{ "allow burst 3", "'burst' only with limit", 1, 7 },
	{ "deny by client", "'by' only with limit", 1, 6 },
	{ "allow challenge", "'challenge' only with limit", 1, 7 },
	{ "limit", "limit needs a rate", 1, 6 },
	{ "limit 0/s", "", 1, 7 },
	{ "limit 10/h", "", 1, 7 },
	{ "limit 10/s burst 0", "burst must be 1..4294967295", 1, 18 },
	{ "limit 10/s by src", "expected client or all after 'by', got 'src'", 1, 15 },
	{ "allow sni a.example path /a", "an sni rule decides a TLS connection", 1, 21 },
	{ "allow sni a.example\tmethod GET", "an sni rule decides a TLS connection", 1, 21 },
	{ "challenge-key k\nchallenge sni a.example", "an sni rule cannot challenge", 2, 1 },
	{ "challenge-key k\nlimit 1/s challenge sni a", "an sni rule cannot challenge", 2, 1 },
	{ "allow sni *", "a wildcard sni name is '*.SUFFIX'", 1, 11 },
	{ "allow host *example", "a wildcard host name is '*.SUFFIX'", 1, 12 },
	{ "allow sni a.*.example", "character '*' not allowed in a sni name", 1, 13 },
	{ "challenge path /a", "a challenge needs a 'challenge-key FILE' line", 1, 1 },
	{ "limit 1/s challenge", "a challenge needs a 'challenge-key FILE' line", 1, 1 },
	{ "challenge-key", "expected one FILE", 1, 14 },
	{ "challenge-key a b", "expected one FILE", 1, 17 },
	{ "challenge-key a\nchallenge-key b", "second 'challenge-key' line", 2, 1 },
	{ "allow path /a\x01", "control character in the policy", 1, 14 },
	{ "allow\n\n  deny path x", "path 'x' must start with '/'", 3, 13 },
};

static void test_errors(void **state)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		struct fp_px_policy p;
		struct fp_diags d = { 0 };
		char b[256];
		int r = fp_px_policy__parse(errors[i].text, strlen(errors[i].text), &p, &d);

		if (r != -EINVAL || d.n != 1 || d.v[0].line != errors[i].line ||
		    d.v[0].col != errors[i].col || !strstr(d.v[0].msg, errors[i].want))
			fail_msg("'%s': want %u:%u '%s', got %d, %zu errors, first %s", errors[i].text,
				 errors[i].line, errors[i].col, errors[i].want, r, d.n,
				 diag_first(&d, b, sizeof(b)));
		assert_int_equal(p.n, 0);
		assert_null(p.rules);
		fp_diags__free(&d);
	}
	(void)state;
}

static void test_all_errors(void **state)
{
	const char *text = "allow path /ok\nalow\nallow path x\nallow path /fine\ndeny status 1\n";
	struct fp_px_policy p;
	struct fp_diags d = { 0 };

	assert_int_equal(fp_px_policy__parse(text, strlen(text), &p, &d), -EINVAL);
	assert_int_equal(d.n, 3);
	assert_int_equal(d.v[0].line, 2);
	assert_int_equal(d.v[1].line, 3);
	assert_int_equal(d.v[2].line, 5);
	assert_null(p.rules);
	fp_diags__free(&d);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_all_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
