// SPDX-License-Identifier: BSD-2-Clause
/*
 * Canonical rule text (fp_rule__format): exact output for known rules,
 * snprintf semantics, and the round trip parse(format(r)) == r on hand
 * written and on thousands of randomly built rules.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "diag_util.h"
#include "rules/rule.h"

static struct fp_rule parse_ok(const char *text, unsigned line)
{
	struct fp_rule r;
	struct fp_diags d = { 0 };
	char b[512];

	if (fp_rule__parse(text, line, &r, &d))
		fail_msg("'%s': %s", text, diag_first(&d, b, sizeof(b)));
	fp_diags__free(&d);
	return r;
}

/* format(parse(text)) == want, and parse(want) equals the first parse. */
static void canon(const char *text, const char *want)
{
	struct fp_rule r = parse_ok(text, 3), back;
	char buf[2048];
	int n = fp_rule__format(&r, buf, sizeof(buf));

	assert_int_equal(n, strlen(want));
	assert_string_equal(buf, want);
	back = parse_ok(buf, 99);
	assert_int_equal(back.line, 99);
	assert_true(fp_rule__equal(&r, &back));
}

static void test_canonical(void **state)
{
	canon("drop udp dport 53 qname *.Example.com \"water torture\"",
	      "drop udp dport 53 qname *.example.com id 3 \"water torture\"");
	canon("limit 1000/s tcp flags syn,!ack by src",
	      "limit 1000/s burst 100 by src tcp flags syn,!ack id 3");
	canon("limit 1000/s flags !ack,syn by src \"syn flood\"",
	      "limit 1000/s burst 100 by src tcp flags syn,!ack id 3 \"syn flood\"");
	canon("pass src 192.0.2.0/24 id office", "pass src 192.0.2.0/24 id office");
	canon("pass src 192.0.2.7/32", "pass src 192.0.2.7 id 3");
	canon("drop dst 2001:DB8:0:0::/64 src ::1/128 ip6",
	      "drop ip6 src ::1 dst 2001:db8::/64 id 3");
	canon("limit 90/m by flow", "limit 90/m burst 1 by flow id 3");
	canon("limit 7/s burst 3 by dst", "limit 7/s burst 3 by dst id 3");
	canon("drop proto 6", "drop tcp id 3");
	canon("drop proto 17", "drop udp id 3");
	canon("drop proto 1", "drop icmp id 3");
	canon("drop proto 58", "drop icmp6 id 3");
	canon("drop proto 47", "drop proto 47 id 3");
	canon("drop frag vlan 7 ttl 1-2 len 0065 ip", "drop ip len 65 ttl 1-2 vlan 7 frag id 3");
	canon("drop sport 1,2-3 dport 5-5", "drop sport 1,2-3 dport 5 id 3");
	canon("pass ether 2054", "pass ether arp id 3");
	canon("pass vlan 5 ether 0X88B5", "pass ether 0x88b5 vlan 5 id 3");
	canon("drop udp ether ip6 dport 53", "drop ether ip6 udp dport 53 id 3");
	canon("drop undetermined-transport frag ip6 id v6-undetermined \"ext chain\"",
	      "drop ip6 frag undetermined-transport id v6-undetermined \"ext chain\"");
	canon("drop qname www.example.com. qtype aaaa", "drop qname www.example.com qtype AAAA id 3");
	canon("drop qname . qtype 64", "drop qname . qtype 64 id 3");
	canon("drop qname *. qtype 255", "drop qname *. qtype ANY id 3");
	canon("drop sample 1/10 \"a\\\"b\\\\c # d\"", "drop sample 1/10 id 3 \"a\\\"b\\\\c # d\"");
	canon("drop \"\"", "drop id 3");
	(void)state;
}

static void test_snprintf(void **state)
{
	struct fp_rule r = parse_ok("drop udp dport 53 id dns", 1);
	const char *want = "drop udp dport 53 id dns";
	char buf[64];

	assert_int_equal(fp_rule__format(&r, NULL, 0), strlen(want));
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(fp_rule__format(&r, buf, 5), strlen(want));
	assert_string_equal(buf, "drop");
	assert_int_equal(fp_rule__format(&r, buf, 1), strlen(want));
	assert_string_equal(buf, "");
	assert_int_equal(fp_rule__format(&r, buf, strlen(want) + 1), strlen(want));
	assert_string_equal(buf, want);
	(void)state;
}

static void test_names(void **state)
{
	assert_string_equal(fp_action__name(FP_ACT_PASS), "pass");
	assert_string_equal(fp_action__name(FP_ACT_DROP), "drop");
	assert_string_equal(fp_action__name(FP_ACT_LIMIT), "limit");
	assert_string_equal(fp_limit_by__name(FP_BY_ALL), "all");
	assert_string_equal(fp_limit_by__name(FP_BY_FLOW), "flow");
	(void)state;
}

/* ---- random rules ------------------------------------------------------ */

static uint64_t seed = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return n ? (uint32_t)(seed % n) : 0;
}

static void add(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

static void add_range(char *buf, size_t size, uint32_t max)
{
	uint32_t a = rnd(max + 1), b = rnd(max + 1);

	if (rnd(2))
		add(buf, size, "%u", a);
	else
		add(buf, size, "%u-%u", a < b ? a : b, a < b ? b : a);
}

static void add_label(char *buf, size_t size)
{
	static const char ok[] = "abcXYZ019-_!$%&'()+,/:;<=>?@[\\]^`{|}~";
	unsigned n = 1 + rnd(rnd(4) ? 8 : 63);

	for (unsigned i = 0; i < n; i++)
		add(buf, size, "%c", ok[rnd(sizeof(ok) - 1)]);
}

/* A random rule, valid by construction. */
static void random_rule(char *buf, size_t size)
{
	int proto = -1, fam = rnd(3) == 0 ? 6 : 4;

	buf[0] = '\0';
	switch (rnd(3)) {
	case 0: add(buf, size, "drop"); break;
	case 1: add(buf, size, "pass"); break;
	case 2:
		add(buf, size, "limit %u/%s", 1 + rnd(rnd(2) ? 100 : 4000000000u), rnd(2) ? "s" : "m");
		if (rnd(2))
			add(buf, size, " burst %u", 1 + rnd(100000));
		if (rnd(2))
			add(buf, size, " by %s", (const char *[]){ "src", "dst", "flow" }[rnd(3)]);
		break;
	}
	if (rnd(3) == 0)
		add(buf, size, fam == 4 ? " ip" : " ip6");
	switch (rnd(6)) {
	case 0: proto = 6; add(buf, size, " tcp"); break;
	case 1: proto = 17; add(buf, size, " udp"); break;
	case 2: proto = (int)rnd(256); add(buf, size, " proto %d", proto); break;
	}
	for (int k = 0; k < 2; k++) {
		if (rnd(3))
			continue;
		unsigned plen = fam == 4 ? rnd(33) : rnd(129);
		if (fam == 4)
			add(buf, size, " %s %u.0.0.0/%u", k ? "dst" : "src", plen >= 8 ? rnd(256) : 0, plen);
		else
			add(buf, size, " %s %s/%u", k ? "dst" : "src", plen >= 32 ? "2001:db8::" : "::", plen);
	}
	if (proto == -1 || proto == 6 || proto == 17) {
		for (int k = 0; k < 2; k++) {
			if (rnd(3))
				continue;
			add(buf, size, k ? " dport " : " sport ");
			unsigned n = 1 + rnd(rnd(4) ? 3 : FP_PORTS_MAX);
			for (unsigned i = 0; i < n; i++) {
				if (i)
					add(buf, size, ",");
				add_range(buf, size, 65535);
			}
		}
	}
	if ((proto == -1 || proto == 6) && rnd(3) == 0) {
		static const char *const fl[] = { "fin", "syn", "rst", "psh", "ack", "urg", "ece", "cwr" };
		unsigned mask = 1 + rnd(255);
		const char *sep = " flags ";
		for (unsigned b = 0; b < 8; b++) {
			if (!(mask & (1u << b)))
				continue;
			add(buf, size, "%s%s%s", sep, rnd(2) ? "!" : "", fl[b]);
			sep = ",";
		}
		proto = 6;
	}
	if (rnd(4) == 0) {
		add(buf, size, " len ");
		add_range(buf, size, 65535);
	}
	if (rnd(4) == 0) {
		add(buf, size, " ttl ");
		add_range(buf, size, 255);
	}
	if (rnd(4) == 0)
		add(buf, size, " vlan %u", rnd(4096));
	if (rnd(4) == 0)
		add(buf, size, " frag");
	if (proto == -1 || proto == 17) {
		if (rnd(3) == 0) {
			add(buf, size, " qname %s", rnd(2) ? "*." : "");
			unsigned n = rnd(4);
			for (unsigned i = 0; i < n; i++) {
				if (i)
					add(buf, size, ".");
				add_label(buf, size);
			}
			if (!n && !strstr(buf, "*."))
				add(buf, size, ".");
			else if (rnd(3) == 0 && n)
				add(buf, size, ".");
		}
		if (rnd(3) == 0) {
			static const char *const qt[] = { "A", "aaaa", "Any", "TXT", "mx", "ns",
							 "cname", "soa", "ptr", "srv" };
			if (rnd(2))
				add(buf, size, " qtype %s", qt[rnd(10)]);
			else
				add(buf, size, " qtype %u", rnd(65536));
		}
	}
	if (rnd(4) == 0)
		add(buf, size, " sample 1/%u", 1 + rnd(1000));
	if (rnd(2))
		add(buf, size, " id r%u.x-y_z:%u", rnd(1000), rnd(1000));
	if (rnd(2)) {
		static const char *const cm[] = { "syn flood", "a \\\"quoted\\\" one", "back\\\\slash",
						 "# hash", "", "tab\there", "utf-8 \xc3\xa9" };
		add(buf, size, " \"%s\"", cm[rnd(7)]);
	}
}

static void test_round_trip_random(void **state)
{
	char text[4096], out[4096], again[4096];

	for (int i = 0; i < 20000; i++) {
		struct fp_rule r, back;
		struct fp_diags d = { 0 };
		char b[512];

		random_rule(text, sizeof(text));
		if (fp_rule__parse(text, (unsigned)i + 1, &r, &d))
			fail_msg("random rule '%s' does not parse: %s", text, diag_first(&d, b, sizeof(b)));
		int n = fp_rule__format(&r, out, sizeof(out));
		assert_true(n > 0 && (size_t)n < sizeof(out));
		if (fp_rule__parse(out, 1, &back, &d))
			fail_msg("canonical '%s' (from '%s') does not parse: %s", out, text,
				 diag_first(&d, b, sizeof(b)));
		if (!fp_rule__equal(&r, &back))
			fail_msg("round trip of '%s' via '%s' differs", text, out);
		fp_rule__format(&back, again, sizeof(again));
		assert_string_equal(out, again);
		fp_diags__free(&d);
	}
	(void)state;
}

/* Every canonical rule of a file, joined into a new file, gives the same set. */
static void test_round_trip_file(void **state)
{
	static char text[200 * 4096], out[200 * 4096];
	struct fp_ruleset a, b;
	struct fp_diags d = { 0 };
	char db[512];
	size_t n = 0, m = 0;

	text[0] = '\0';
	n = (size_t)snprintf(text, sizeof(text), "default drop\n");
	for (int i = 0; i < 200; i++) {
		random_rule(text + n, sizeof(text) - n);
		char *id = strstr(text + n, " id r");
		if (id) /* keep ids unique in the file */
			memcpy(id, " id x", 5), text[n + strlen(text + n)] = '\0';
		n += strlen(text + n);
		n += (size_t)snprintf(text + n, sizeof(text) - n, " # rule %d\n", i);
	}
	if (fp_ruleset__parse(text, n, &a, &d))
		fail_msg("%s", diag_first(&d, db, sizeof(db)));
	assert_int_equal(a.n, 200);
	for (size_t i = 0; i < a.n; i++) {
		m += (size_t)fp_rule__format(&a.rules[i], out + m, sizeof(out) - m);
		out[m++] = '\n';
	}
	assert_int_equal(fp_ruleset__parse(out, m, &b, &d), 0);
	assert_int_equal(b.n, a.n);
	for (size_t i = 0; i < a.n; i++)
		assert_true(fp_rule__equal(&a.rules[i], &b.rules[i]));
	assert_int_equal(b.default_action, FP_ACT_PASS); /* format writes rules only */
	fp_ruleset__free(&a);
	fp_ruleset__free(&b);
	fp_diags__free(&d);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_canonical),
		cmocka_unit_test(test_snprintf),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_round_trip_random),
		cmocka_unit_test(test_round_trip_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
