// SPDX-License-Identifier: BSD-2-Clause
/*
 * The rule parser (src/rules/): every term and option, defaults, comments,
 * and every error class with its exact LINE:COL.
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

/* Parses one rule that must be valid. */
static struct fp_rule one(const char *text)
{
	struct fp_rule r;
	struct fp_diags d = { 0 };
	char b[512];
	int err = fp_rule__parse(text, 7, &r, &d);

	if (err)
		fail_msg("'%s' failed: %s", text, diag_first(&d, b, sizeof(b)));
	assert_int_equal(d.n, 0);
	fp_diags__free(&d);
	return r;
}

/* A rule file whose only error is at line:col with msg containing want. */
static void file_err_n(const char *text, size_t len, unsigned line, unsigned col,
		       const char *want)
{
	struct fp_ruleset set;
	struct fp_diags d = { 0 };
	char b[512];
	int err = fp_ruleset__parse(text, len, &set, &d);

	if (err != -EINVAL)
		fail_msg("'%s': want error %u:%u '%s', got %d", text, line, col, want, err);
	assert_int_equal(set.n, 0);
	assert_null(set.rules);
	if (d.n != 1 || !d.v || d.v[0].line != line || d.v[0].col != col || !strstr(d.v[0].msg, want))
		fail_msg("'%s': want 1 error %u:%u '%s', got %zu, the first %s", text, line, col,
			 want, d.n, diag_first(&d, b, sizeof(b)));
	fp_diags__free(&d);
}

static void file_err(const char *text, unsigned line, unsigned col, const char *want)
{
	file_err_n(text, strlen(text), line, col, want);
}

/* A one-line rule with its only error at col, message containing want. */
static void rule_err(const char *text, unsigned col, const char *want)
{
	struct fp_rule r;
	struct fp_diags d = { 0 };
	char b[512];
	int err = fp_rule__parse(text, 1, &r, &d);

	if (err != -EINVAL)
		fail_msg("'%s': want error 1:%u '%s', got %d", text, col, want, err);
	if (d.n != 1 || !d.v || d.v[0].col != col || d.v[0].line != 1 || !strstr(d.v[0].msg, want))
		fail_msg("'%s': want 1:%u '%s', got %zu, the first %s", text, col, want, d.n,
			 diag_first(&d, b, sizeof(b)));
	fp_diags__free(&d);
	/* the same through the file parser (where empty and `default` lines are fine) */
	if (text[0] && strncmp(text, "default", 7))
		file_err(text, 1, col, want);
}

static void test_actions(void **state)
{
	struct fp_rule r = one("drop");

	assert_int_equal(r.action, FP_ACT_DROP);
	assert_int_equal(r.terms, 0);
	assert_string_equal(r.id, "7");
	assert_int_equal(r.line, 7);
	assert_int_equal(r.burst, 0);
	r = one("pass");
	assert_int_equal(r.action, FP_ACT_PASS);
	r = one("limit 1000/s");
	assert_int_equal(r.action, FP_ACT_LIMIT);
	assert_int_equal(r.rate_count, 1000);
	assert_int_equal(r.rate_period_s, 1);
	assert_int_equal(r.burst, 100);
	assert_int_equal(r.by, FP_BY_ALL);
	r = one("limit 1/s");
	assert_int_equal(r.burst, 1);
	r = one("limit 1001/s");
	assert_int_equal(r.burst, 101); /* ceil */
	r = one("limit 60/m");
	assert_int_equal(r.rate_count, 60);
	assert_int_equal(r.rate_period_s, 60);
	assert_int_equal(r.burst, 1);
	r = one("limit 6000/m");
	assert_int_equal(r.burst, 10);
	r = one("limit 6001/m");
	assert_int_equal(r.burst, 11);
	r = one("limit 4294967295/s");
	assert_int_equal(r.burst, 429496730);
	(void)state;
}

static void test_l3_proto(void **state)
{
	struct fp_rule r = one("drop ip");

	assert_int_equal(r.terms, FP_T_L3);
	assert_int_equal(r.l3, 4);
	r = one("drop ip6");
	assert_int_equal(r.l3, 6);
	static const struct { const char *t; uint8_t p; } protos[] = {
		{ "drop tcp", 6 }, { "drop udp", 17 }, { "drop icmp", 1 }, { "drop icmp6", 58 },
		{ "drop proto 0", 0 }, { "drop proto 255", 255 }, { "drop proto 47", 47 },
	};
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		r = one(protos[i].t);
		assert_int_equal(r.terms, FP_T_PROTO);
		assert_int_equal(r.proto, protos[i].p);
	}
	r = one("drop flags syn");
	assert_int_equal(r.terms, FP_T_PROTO | FP_T_FLAGS);
	assert_int_equal(r.proto, 6);
	r = one("drop flags syn tcp");
	assert_int_equal(r.proto, 6);
	r = one("drop tcp flags syn");
	assert_int_equal(r.terms, FP_T_PROTO | FP_T_FLAGS);
	(void)state;
}

static void test_cidr(void **state)
{
	struct fp_rule r = one("drop src 192.0.2.0/24 dst 10.0.0.1");

	assert_int_equal(r.terms, FP_T_SRC | FP_T_DST);
	assert_int_equal(r.src.family, 4);
	assert_int_equal(r.src.plen, 24);
	assert_memory_equal(r.src.addr, ((uint8_t[16]){ 192, 0, 2, 0 }), 16);
	assert_int_equal(r.dst.plen, 32);
	assert_memory_equal(r.dst.addr, ((uint8_t[16]){ 10, 0, 0, 1 }), 16);
	r = one("drop ip6 src 2001:db8::/32 dst ::1");
	assert_int_equal(r.src.family, 6);
	assert_int_equal(r.src.plen, 32);
	assert_memory_equal(r.src.addr, ((uint8_t[16]){ 0x20, 0x01, 0x0d, 0xb8 }), 16);
	assert_int_equal(r.dst.plen, 128);
	assert_int_equal(r.dst.addr[15], 1);
	r = one("drop src 0.0.0.0/0");
	assert_int_equal(r.src.plen, 0);
	r = one("drop ip src 10.0.0.0/8");
	assert_int_equal(r.terms, FP_T_L3 | FP_T_SRC);
	r = one("drop dst ::/0 ip6");
	assert_int_equal(r.dst.plen, 0);
	(void)state;
}

static void test_ports(void **state)
{
	struct fp_rule r = one("drop udp dport 53");

	assert_int_equal(r.terms, FP_T_PROTO | FP_T_DPORT);
	assert_int_equal(r.dport.n, 1);
	assert_int_equal(r.dport.r[0].lo, 53);
	assert_int_equal(r.dport.r[0].hi, 53);
	r = one("drop sport 0-1023,8080,65535");
	assert_int_equal(r.terms, FP_T_SPORT);
	assert_int_equal(r.sport.n, 3);
	assert_int_equal(r.sport.r[0].lo, 0);
	assert_int_equal(r.sport.r[0].hi, 1023);
	assert_int_equal(r.sport.r[1].lo, 8080);
	assert_int_equal(r.sport.r[2].hi, 65535);
	r = one("drop tcp sport 5-5");
	assert_int_equal(r.sport.r[0].lo, 5);
	/* exactly FP_PORTS_MAX items */
	char buf[512] = "drop dport 1";
	for (int i = 2; i <= FP_PORTS_MAX; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ",%d", i);
	r = one(buf);
	assert_int_equal(r.dport.n, FP_PORTS_MAX);
	assert_int_equal(r.dport.r[FP_PORTS_MAX - 1].lo, FP_PORTS_MAX);
	strcat(buf, ",99");
	rule_err(buf, 12, "too many port ranges after 'dport' (at most 32)");
	(void)state;
}

static void test_flags(void **state)
{
	struct fp_rule r = one("drop flags syn,!ack");

	assert_int_equal(r.flags_mask, FP_TCP_SYN | FP_TCP_ACK);
	assert_int_equal(r.flags_val, FP_TCP_SYN);
	r = one("drop flags fin,syn,rst,psh,ack,urg,ece,cwr");
	assert_int_equal(r.flags_mask, 0xff);
	assert_int_equal(r.flags_val, 0xff);
	r = one("drop flags !fin,!syn,!rst,!psh,!ack,!urg,!ece,!cwr");
	assert_int_equal(r.flags_mask, 0xff);
	assert_int_equal(r.flags_val, 0);
	r = one("drop flags !rst");
	assert_int_equal(r.flags_mask, FP_TCP_RST);
	assert_int_equal(r.flags_val, 0);
	(void)state;
}

static void test_len_ttl_vlan_frag(void **state)
{
	struct fp_rule r = one("drop len 0-65535 ttl 64 vlan 4095 frag");

	assert_int_equal(r.terms, FP_T_LEN | FP_T_TTL | FP_T_VLAN | FP_T_FRAG);
	assert_int_equal(r.len.lo, 0);
	assert_int_equal(r.len.hi, 65535);
	assert_int_equal(r.ttl.lo, 64);
	assert_int_equal(r.ttl.hi, 64);
	assert_int_equal(r.vlan, 4095);
	r = one("drop ttl 0-255 vlan 0 len 1500");
	assert_int_equal(r.ttl.hi, 255);
	assert_int_equal(r.vlan, 0);
	assert_int_equal(r.len.lo, 1500);
	(void)state;
}

static void test_qname(void **state)
{
	struct fp_rule r = one("drop qname *.Example.COM.");
	static const uint8_t ex[] = "\x07" "example" "\x03" "com";

	assert_int_equal(r.terms, FP_T_QNAME);
	assert_true(r.qname.wildcard);
	assert_int_equal(r.qname.wire_len, sizeof(ex)); /* root byte included */
	assert_memory_equal(r.qname.wire, ex, sizeof(ex));
	r = one("drop udp qname www.example.com");
	assert_false(r.qname.wildcard);
	assert_int_equal(r.qname.wire_len, 17);
	assert_int_equal(r.qname.wire[0], 3);
	r = one("drop qname *.");
	assert_true(r.qname.wildcard);
	assert_int_equal(r.qname.wire_len, 1);
	assert_int_equal(r.qname.wire[0], 0);
	r = one("drop qname .");
	assert_false(r.qname.wildcard);
	assert_int_equal(r.qname.wire_len, 1);
	r = one("drop qname a_b-c!$%&'()+,/:;<=>?@[\\]^`{|}~.x");
	assert_int_equal(r.qname.wire[0], 31);
	/* longest exact name: 255 bytes on the wire */
	char name[300];
	strcpy(name, "drop qname ");
	for (int i = 0; i < 4; i++)
		strcat(name, i < 3 ? "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa."
			: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	r = one(name); /* 3 * 64 + 62 + 1 = 255 */
	assert_int_equal(r.qname.wire_len, 255);
	strcat(name, "a");
	rule_err(name, 12, "longer than 255 bytes");
	(void)state;
}

static void test_qtype(void **state)
{
	static const struct { const char *n; uint16_t t; } types[] = {
		{ "A", 1 }, { "NS", 2 }, { "CNAME", 5 }, { "SOA", 6 }, { "PTR", 12 }, { "MX", 15 },
		{ "TXT", 16 }, { "AAAA", 28 }, { "SRV", 33 }, { "ANY", 255 }, { "any", 255 },
		{ "aaaa", 28 }, { "Txt", 16 }, { "0", 0 }, { "65535", 65535 }, { "99", 99 },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		snprintf(buf, sizeof(buf), "drop udp qtype %s", types[i].n);
		struct fp_rule r = one(buf);
		assert_int_equal(r.terms, FP_T_PROTO | FP_T_QTYPE);
		assert_int_equal(r.qtype, types[i].t);
	}
	assert_string_equal(fp_qtype__name(28), "AAAA");
	assert_null(fp_qtype__name(99));
	(void)state;
}

static void test_options(void **state)
{
	struct fp_rule r = one("limit 10/s burst 50 by src id syn-flood.1:x_Y \"my \\\"rule\\\" \\\\ #1\" sample 1/100");

	assert_int_equal(r.burst, 50);
	assert_int_equal(r.by, FP_BY_SRC);
	assert_string_equal(r.id, "syn-flood.1:x_Y");
	assert_string_equal(r.comment, "my \"rule\" \\ #1");
	assert_int_equal(r.sample_n, 100);
	r = one("limit 10/s by dst");
	assert_int_equal(r.by, FP_BY_DST);
	r = one("limit 10/s tcp by flow dport 80");
	assert_int_equal(r.by, FP_BY_FLOW);
	assert_int_equal(r.terms, FP_T_PROTO | FP_T_DPORT);
	r = one("drop sample 1/1 \"\"");
	assert_int_equal(r.sample_n, 1);
	assert_string_equal(r.comment, "");
	/* options anywhere after the action */
	r = one("drop id x udp \"c\" dport 53");
	assert_string_equal(r.id, "x");
	assert_string_equal(r.comment, "c");
	assert_int_equal(r.terms, FP_T_PROTO | FP_T_DPORT);
	/* 63-character id, 127-byte comment */
	char buf[400];
	snprintf(buf, sizeof(buf), "drop id %.63s \"%.127s\"",
		 "iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii",
		 "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
		 "cccccccccccccccccccccccccccccccccccccccccccccccccccccc");
	r = one(buf);
	assert_int_equal(strlen(r.id), 63);
	assert_int_equal(strlen(r.comment), 127);
	(void)state;
}

static void test_file(void **state)
{
	static const char text[] =
		"# a rule file\n"
		"\n"
		"   \t\n"
		"default drop   # comment after default\n"
		"drop udp dport 53 qname *.example.com \"water torture # not a comment\" # real\n"
		"limit 1000/s tcp flags syn,!ack by src\r\n"
		"pass src 192.0.2.0/24 id office";
	struct fp_ruleset set;
	struct fp_diags d = { 0 };

	assert_int_equal(fp_ruleset__parse(text, strlen(text), &set, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(set.default_action, FP_ACT_DROP);
	assert_int_equal(set.n, 3);
	assert_string_equal(set.rules[0].id, "5");
	assert_int_equal(set.rules[0].line, 5);
	assert_string_equal(set.rules[0].comment, "water torture # not a comment");
	assert_string_equal(set.rules[1].id, "6");
	assert_int_equal(set.rules[1].by, FP_BY_SRC);
	assert_int_equal(set.rules[1].burst, 100);
	assert_string_equal(set.rules[2].id, "office");
	fp_ruleset__free(&set);
	assert_null(set.rules);
	fp_ruleset__free(NULL);

	/* empty input, default pass */
	assert_int_equal(fp_ruleset__parse("", 0, &set, &d), 0);
	assert_int_equal(set.n, 0);
	assert_int_equal(set.default_action, FP_ACT_PASS);
	assert_int_equal(fp_ruleset__parse("default pass\n# x\n", 17, &set, &d), 0);
	assert_int_equal(set.default_action, FP_ACT_PASS);
	fp_ruleset__free(&set);
	fp_diags__free(&d);
	fp_diags__free(NULL);
	(void)state;
}

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

/* undetermined-transport: alone, with ip6 and IPv6 terms; never with what
 * needs an upper layer, nor on IPv4 */
static void test_undetermined(void **state)
{
	struct fp_rule r = one("drop ip6 undetermined-transport");

	assert_int_equal(r.terms, FP_T_L3 | FP_T_UNDET);
	assert_int_equal(r.l3, 6);
	r = one("drop undetermined-transport frag src 2001:db8::/32 vlan 3 len 100-200");
	assert_int_equal(r.terms, FP_T_UNDET | FP_T_FRAG | FP_T_SRC | FP_T_VLAN | FP_T_LEN);
	rule_err("drop undetermined-transport undetermined-transport", 29,
		 "term 'undetermined-transport' given twice");
	rule_err("drop udp undetermined-transport", 10,
		 "'undetermined-transport' conflicts with 'udp': a packet whose upper layer");
	rule_err("drop undetermined-transport dport 9", 6,
		 "'undetermined-transport' conflicts with 'dport'");
	rule_err("drop flags syn undetermined-transport", 16,
		 "'undetermined-transport' conflicts with 'flags'");
	rule_err("drop undetermined-transport qtype A", 6,
		 "'undetermined-transport' conflicts with 'qtype'");
	rule_err("drop undetermined-transport proto 0", 6,
		 "'undetermined-transport' conflicts with 'proto'");
	rule_err("drop ip undetermined-transport", 9,
		 "'undetermined-transport' never holds with 'ip': a valid IPv4 header");
	rule_err("drop undetermined-transport dst 192.0.2.1", 6,
		 "'undetermined-transport' never holds with an IPv4 address");
	rule_err("drop undetermined", 6, "unknown term 'undetermined'");
	(void)state;
}

/* ether TYPE: names, hex and decimal numbers; IP terms need ip or ip6 */
static void test_ether(void **state)
{
	struct fp_rule r = one("pass ether arp");

	assert_int_equal(r.terms, FP_T_ETHER);
	assert_int_equal(r.ether, 0x0806);
	assert_int_equal(one("pass ether 0x88CC").ether, 0x88cc);
	assert_int_equal(one("pass ether 34525 ip6 udp").ether, 0x86dd);
	assert_int_equal(one("pass ether lldp vlan 7").ether, 0x88cc);
	assert_int_equal(one("drop ether 0x0600").ether, 0x0600);
	assert_int_equal(one("drop ether 0xffff").ether, 0xffff);
	r = one("drop ether ip src 10.0.0.0/8 tcp dport 22");
	assert_int_equal(r.ether, 0x0800);
	assert_int_equal(one("drop ether ip6 undetermined-transport").terms,
			 FP_T_ETHER | FP_T_UNDET);
	rule_err("pass ether", 11, "expected an ethertype after 'ether', got end of line");
	rule_err("pass ether arpp", 12, "unknown ethertype 'arpp' after 'ether'; did you mean 'arp'?");
	rule_err("pass ether foo", 12, "expected arp, eapol, ip, ip6, lldp, mpls");
	rule_err("pass ether 0x5ff", 12, "ethertype 0x5ff is below 0x0600 (an 802.3 length");
	rule_err("pass ether 0x10000", 12, "ethertype 0x10000 out of range 0x0600..0xffff");
	rule_err("pass ether 0x8g00", 12, "expected an ethertype 0x0600..0xffff");
	rule_err("pass ether 0x8100", 12, "is a VLAN tag: 'ether' is the type after the tags");
	rule_err("pass ether 34984", 12, "is a VLAN tag");
	rule_err("pass ether arp ether arp", 16, "term 'ether' given twice");
	rule_err("drop ether arp udp", 12, "'ether arp' conflicts with the IP terms of the rule");
	rule_err("drop ttl 1 ether 0x1234", 18, "'ether 0x1234' conflicts with the IP terms");
	rule_err("drop ether ip ip6", 12, "'ether ip' conflicts with the IPv6 terms of the rule");
	rule_err("drop src ::1 ether ip", 20, "'ether ip' conflicts with the IPv6 terms");
	rule_err("drop ether ip undetermined-transport", 12, "'ether ip' conflicts with the IPv6");
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

static void test_many_rules(void **state)
{
	static char text[10000 * 48];
	size_t n = 0;
	struct fp_ruleset set;
	struct fp_diags d = { 0 };

	for (int i = 0; i < 10000; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "drop udp src 10.%d.%d.0/24 dport %d\n",
				      i / 256, i % 256, i % 65536);
	assert_int_equal(fp_ruleset__parse(text, n, &set, &d), 0);
	assert_int_equal(set.n, 10000);
	assert_string_equal(set.rules[9999].id, "10000");
	assert_int_equal(set.rules[9999].src.addr[1], 39);
	fp_ruleset__free(&set);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_l3_proto),
		cmocka_unit_test(test_cidr),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_len_ttl_vlan_frag),
		cmocka_unit_test(test_qname),
		cmocka_unit_test(test_qtype),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_errors_terms),
		cmocka_unit_test(test_errors_conflicts),
		cmocka_unit_test(test_undetermined),
		cmocka_unit_test(test_ether),
		cmocka_unit_test(test_errors_options),
		cmocka_unit_test(test_errors_file),
		cmocka_unit_test(test_errors_all_reported),
		cmocka_unit_test(test_many_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
