// SPDX-License-Identifier: BSD-2-Clause
/*
 * The rule parser (src/rules/): every term and option, defaults, comments;
 * the errors of terms that need a context (undetermined-transport, ether).
 * Every other error class is in test_rules_errors.c.
 */
#include "rules_parse_util.h"

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
		cmocka_unit_test(test_undetermined),
		cmocka_unit_test(test_ether),
		cmocka_unit_test(test_many_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
