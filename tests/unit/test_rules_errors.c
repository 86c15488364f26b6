// SPDX-License-Identifier: BSD-2-Clause
/*
 * The rule parser's errors (src/rules/): every error class with its exact
 * LINE:COL, in one rule and in a file, and every error of a file reported.
 * Valid terms and options are in test_rules_parser.c.
 */
#include "rules_parse_util.h"

static void test_errors_terms(void **state)
{
	rule_err("drop udp dport x", 16, "expected a port or range after 'dport', got 'x'");
	rule_err("drop udp dport", 15, "expected a port or range after 'dport', got end of line");
	rule_err("drop udp dport # c", 15, "got end of line");
	rule_err("drop dport \"53\"", 12, "expected a port or range after 'dport', got \"\"53\"\"");
	rule_err("drop dport 70000", 12, "port '70000' after 'dport' out of range 0..65535");
	rule_err("drop dport 80-20", 12, "range 80-20 after 'dport' is reversed; did you mean 20-80?");
	rule_err("drop dport 1,,2", 12, "empty item in port list '1,,2'");
	rule_err("drop dport 1,", 12, "empty item");
	rule_err("drop sport 1-", 12, "expected a port or range after 'sport'");
	rule_err("drop tcp dprt 80", 10, "unknown term 'dprt'; did you mean 'dport'?");
	rule_err("drop ipv6", 6, "unknown term 'ipv6'; did you mean 'ip6'?");
	rule_err("drop zzzzzz", 6, "unknown term 'zzzzzz'");
	rule_err("dorp udp", 1, "unknown action 'dorp'; did you mean 'drop'?");
	rule_err("block udp", 1, "unknown action 'block': expected drop, pass or limit");
	rule_err("", 1, "empty rule");
	rule_err("\"c\"", 1, "a rule starts with drop, pass or limit");
	rule_err("limit", 6, "expected a rate N/s or N/m after 'limit', got end of line");
	rule_err("limit 10/h", 7, "expected a rate N/s or N/m after 'limit', got '10/h'");
	rule_err("limit 0/s", 7, "must be at least 1");
	rule_err("limit 4294967296/s", 7, "too large");
	rule_err("drop proto 256", 12, "protocol 256 out of range 0..255");
	rule_err("drop proto tcp", 12, "expected a protocol number 0..255 after 'proto', got 'tcp'");
	rule_err("drop src 10.1.2.3/8", 10, "10.1.2.3/8 has host bits set; did you mean 10.0.0.0/8?");
	rule_err("drop dst 2001:db8::1/32", 10, "has host bits set; did you mean 2001:db8::/32?");
	rule_err("drop src 10.0.0.0/33", 10, "too long for IPv4 (at most 32)");
	rule_err("drop src ::/129", 10, "too long for IPv6 (at most 128)");
	rule_err("drop src 10.0.0.0/", 10, "expected a prefix length");
	rule_err("drop src 10.0.0", 10, "expected an IPv4 or IPv6 address or prefix after 'src', got '10.0.0'");
	rule_err("drop dst example.com", 10, "expected an IPv4 or IPv6 address or prefix after 'dst'");
	rule_err("drop flags syn,bogus", 12, "unknown TCP flag 'bogus'");
	rule_err("drop flags synn", 12, "unknown TCP flag 'synn'; did you mean 'syn'?");
	rule_err("drop flags syn,!syn", 12, "flag 'syn' given twice");
	rule_err("drop flags syn,", 12, "empty item in flag list");
	rule_err("drop len 65536", 10, "out of range 0..65535");
	rule_err("drop ttl 256", 10, "out of range 0..255");
	rule_err("drop ttl 9-1", 10, "reversed; did you mean 1-9?");
	rule_err("drop ttl x", 10, "expected a number or range after 'ttl', got 'x'");
	rule_err("drop vlan 4096", 11, "VLAN id 4096 out of range 0..4095");
	rule_err("drop vlan -1", 11, "expected a VLAN id 0..4095 after 'vlan', got '-1'");
	rule_err("drop qname *", 12, "a bare '*' is not a qname pattern; write '*.'");
	rule_err("drop qname *example.com", 12, "'*' must be the whole first label");
	rule_err("drop qname a.*.com", 12, "'*' is only allowed as the whole first label");
	rule_err("drop qname a..com", 12, "empty label in qname 'a..com'");
	rule_err("drop qname .com", 12, "empty label");
	rule_err("drop qname *..", 12, "empty label");
	rule_err("drop qname a,b\x01", 15, "unexpected control byte 0x01");
	rule_err("drop qname \xc3\xa9t\xc3\xa9.fr", 12, "byte 0xc3 not allowed in qname");
	rule_err("drop qname aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com", 12,
		 "is 64 bytes long; at most 63");
	rule_err("drop qtype AAA", 12, "unknown DNS type 'AAA' after 'qtype'; did you mean 'AAAA'?");
	rule_err("drop qtype HINFOX", 12, "unknown DNS type 'HINFOX' after 'qtype'; expected A, AAAA");
	rule_err("drop qtype 65536", 12, "out of range 0..65535");
	(void)state;
}

static void test_errors_conflicts(void **state)
{
	rule_err("drop dport 1 dport 2", 14, "term 'dport' given twice");
	rule_err("drop tcp tcp", 10, "term 'tcp' given twice");
	rule_err("drop frag frag", 11, "term 'frag' given twice");
	rule_err("drop tcp udp", 10, "'udp' conflicts with 'tcp': a rule has one protocol");
	rule_err("drop proto 6 proto 17", 14, "term 'proto' given twice");
	rule_err("drop tcp proto 6", 10, "protocol given twice");
	rule_err("drop icmp proto 1", 11, "protocol given twice");
	rule_err("drop flags syn udp", 16, "'udp' conflicts with 'flags (implies tcp)'");
	rule_err("drop udp flags syn", 10, "'flags' needs tcp, but the rule says 'udp'");
	rule_err("drop icmp6 flags syn", 12, "'flags' needs tcp, but the rule says 'icmp6'");
	rule_err("drop icmp dport 5", 11, "'dport' needs tcp or udp, but the rule says 'icmp'");
	rule_err("drop sport 5 proto 47", 14, "'proto' conflicts with 'sport': ports need tcp or udp");
	rule_err("drop tcp qname a.com", 10, "'qname' needs udp (DNS), but the rule says 'tcp'");
	rule_err("drop qtype A tcp", 14, "'tcp' conflicts with 'qtype': DNS terms need udp");
	rule_err("drop flags syn qtype A", 16, "'qtype' needs udp (DNS), but the rule says 'flags (implies tcp)'");
	rule_err("drop qname x.com flags syn", 18, "'flags' conflicts with 'qname': DNS terms need udp");
	rule_err("drop ip ip6", 9, "'ip6' conflicts with 'ip'");
	rule_err("drop ip ip", 9, "term 'ip' given twice");
	rule_err("drop ip src 2001:db8::1", 13, "'src' is IPv6 but the rule says 'ip'");
	rule_err("drop ip6 dst 10.0.0.1", 14, "'dst' is IPv4 but the rule says 'ip6'");
	rule_err("drop src ::1 ip", 14, "'ip' is IPv4 but 'src' is IPv6");
	rule_err("drop src 10.0.0.0/8 dst ::1", 25, "'dst' is IPv6 but 'src' is IPv4");
	rule_err("drop dst ::1 src 1.2.3.4", 18, "'src' is IPv4 but 'dst' is IPv6");
	(void)state;
}

static void test_errors_options(void **state)
{
	rule_err("pass burst 5", 6, "'burst' only applies to 'limit' rules, not 'pass'");
	rule_err("drop by src", 6, "'by' only applies to 'limit' rules, not 'drop'");
	rule_err("limit 1/s burst 0", 17, "expected a packet count 1..4294967295 after 'burst', got '0'");
	rule_err("limit 1/s burst", 16, "got end of line");
	rule_err("limit 1/s burst 1 burst 2", 19, "option 'burst' given twice");
	rule_err("limit 1/s by port", 14, "expected src, dst or flow after 'by', got 'port'");
	rule_err("limit 1/s by src by dst", 18, "option 'by' given twice");
	rule_err("drop id x id y", 11, "option 'id' given twice");
	rule_err("drop id a/b", 9, "bad rule id 'a/b'");
	/* outputs spell the default verdict's row "default" and a missing value "-" */
	rule_err("drop id default", 9, "rule id 'default' is reserved");
	rule_err("drop udp id - dport 9", 13, "rule id '-' is reserved");
	assert_string_equal(one("drop id default-2").id, "default-2");
	assert_string_equal(one("drop id --").id, "--");
	assert_string_equal(one("drop id Default").id, "Default");
	rule_err("drop id", 8, "expected a rule id after 'id', got end of line");
	rule_err("drop id iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii", 9,
		 "bad rule id");
	rule_err("drop sample 0/3", 13, "expected 1/N");
	rule_err("drop sample 1/0", 13, "expected 1/N");
	rule_err("drop sample 1/x", 13, "expected 1/N");
	rule_err("drop sample 1/2 sample 1/3", 17, "option 'sample' given twice");
	rule_err("drop \"a\" \"b\"", 10, "a rule has one comment");
	rule_err("drop \"unterminated", 6, "unterminated comment string");
	rule_err("drop \"bad \\n escape\"", 6, "unknown escape '\\n' in comment");
	rule_err("drop \"tab\x01\"", 6, "control byte 0x01 in comment");
	char buf[200];
	snprintf(buf, sizeof(buf), "drop \"%0128d\"", 0);
	rule_err(buf, 6, "comment is 128 bytes long; at most 127");
	rule_err("default drop", 1, "'default' sets the verdict of a rule file");
	(void)state;
}

static void test_errors_file(void **state)
{
	file_err("default", 1, 8, "expected pass or drop after 'default', got end of line");
	file_err("default reject", 1, 9, "expected pass or drop after 'default', got 'reject'");
	file_err("default drop now", 1, 14, "unexpected 'now' after 'default drop'");
	file_err("default drop\ndefault drop", 2, 1, "second 'default' line (the first is on line 1)");
	file_err("drop id a\npass id a", 2, 9, "duplicate rule id 'a' (first used on line 1)");
	file_err("drop id 2\ndrop", 2, 1, "rule id '2' (this line's number) is already used on line 1");
	file_err("drop\n\n\n  pass dport\n", 4, 13, "got end of line");
	file_err_n("drop\x00", 5, 1, 5, "unexpected control byte 0x00");
	file_err_n("drop\n\x00", 6, 2, 1, "unexpected control byte 0x00");
	(void)state;
}

static void test_errors_all_reported(void **state)
{
	static const char text[] =
		"drop udp dport x\n"            /* 1:16 */
		"pass src 10.0.0.0/8\n"         /* ok */
		"# comment\n"
		"limit 5/s tcp udp\n"           /* 4:15 */
		"drop \"a # b\" dprt 1\n"       /* 5:14 */
		"default drop\n"
		"default pass\n"                /* 7:1 */
		"drop id 2\n"                   /* 8:9 dup of line 2's id */
		"  drop ip ip6 ip6\n";          /* 9:11, the first error of the line only */
	static const struct { unsigned line, col; const char *msg; } want[] = {
		{ 1, 16, "expected a port or range after 'dport', got 'x'" },
		{ 4, 15, "'udp' conflicts with 'tcp'" },
		{ 5, 14, "unknown term 'dprt'; did you mean 'dport'?" },
		{ 7, 1, "second 'default' line" },
		{ 8, 9, "duplicate rule id '2' (first used on line 2)" },
		{ 9, 11, "'ip6' conflicts with 'ip'" },
	};
	struct fp_ruleset set;
	struct fp_diags d = { 0 };

	assert_int_equal(fp_ruleset__parse(text, sizeof(text) - 1, &set, &d), -EINVAL);
	assert_int_equal(set.n, 0);
	assert_null(set.rules);
	assert_int_equal(d.n, sizeof(want) / sizeof(want[0]));
	assert_true(d.cap >= d.n);
	for (size_t i = 0; i < d.n; i++) {
		assert_int_equal(d.v[i].line, want[i].line);
		assert_int_equal(d.v[i].col, want[i].col);
		assert_non_null(strstr(d.v[i].msg, want[i].msg));
	}
	fp_diags__free(&d);
	assert_int_equal(d.n, 0);
	assert_null(d.v);

	/* many errors: all counted and stored */
	char big[64 * 1000];
	size_t n = 0;
	for (int i = 0; i < 1000; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "drop bogus\n");
	assert_int_equal(fp_ruleset__parse(big, n, &set, &d), -EINVAL);
	assert_int_equal(d.n, 1000);
	assert_true(d.cap >= 1000);
	assert_int_equal(d.v[999].line, 1000);
	assert_int_equal(d.v[999].col, 6);
	fp_diags__free(&d);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors_terms),
		cmocka_unit_test(test_errors_conflicts),
		cmocka_unit_test(test_errors_options),
		cmocka_unit_test(test_errors_file),
		cmocka_unit_test(test_errors_all_reported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
