// SPDX-License-Identifier: BSD-2-Clause
/*
 * `bpfgen rule`: expected assembly and bytecode of small rules, verdicts
 * on crafted DNS and IPv6 packets (each checked against the reference
 * matcher too), every usage error, and the kernel loading the programs
 * through SO_ATTACH_FILTER (the largest ones included).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <linux/filter.h>
#include <pcap/pcap.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/pkt.h"
#include "rules/match_ref.h"
#include "unit/bpfgen_util.h"

static struct fp_cbpf gen_rule(unsigned off, const char *text)
{
	struct fp_bpfgen_opts o = { .l3_off = off };
	struct fp_bpfgen_out out;
	struct fp_bpfgen_err err;
	struct fp_rule rule;
	struct fp_cbpf p;
	size_t bad;

	if (fp_bpfgen__rule_parse(text, &rule, &err) || fp_bpfgen__rule(&o, &rule, &out, &err))
		fail_msg("'%s': %s", text, err.msg);
	assert_int_equal(fp_cbpf__check(&out.prog, &bad), 0);
	assert_true(bpf_validate((const struct bpf_insn *)out.prog.insns, (int)out.prog.len));
	p = out.prog;
	out.prog.insns = NULL;
	fp_bpfgen_out__free(&out);
	return p;
}

/* ---- expected output ------------------------------------------------------- */

static const char vlan_asm[] =
	"     ; fastpath rule terms of: drop vlan 7 id 1\n"
	"     ; offset 14 (Ethernet frame)\n"
	"     ; vlan 7: tag 1 or tag 2\n"
	"    ld #len\n"
	"    jlt #18, nomatch_3\n"
	"    ldh [12]\n"
	"    jeq #0x8100, tag1_0\n"
	"    jeq #0x88a8, tag1_0, nomatch_3\n"
	"tag1_0:\n"
	"    ldh [14]\n"
	"    and #0xfff\n"
	"    jeq #7, vlan_ok_2\n"
	"    ldh [16]\n"
	"    jeq #0x8100, tag2_1\n"
	"    jeq #0x88a8, tag2_1, nomatch_3\n"
	"tag2_1:\n"
	"    ld #len\n"
	"    jlt #22, nomatch_3\n"
	"    ldh [18]\n"
	"    and #0xfff\n"
	"    jeq #7, vlan_ok_2, nomatch_3\n"
	"vlan_ok_2:\n"
	"    ja match_4\n"
	"\n"
	"match_4:\n"
	"match:\n"
	"    ret #65535\n"
	"nomatch_3:\n"
	"nomatch:\n"
	"    ret #0\n";

static const char ttl_asm_tail[] =
	"    ldx M[0]\n"
	"     ; ttl\n"
	"    ldb [x + 8]\n"
	"    jneq #64, nomatch_1\n"
	"    ja match_2\n"
	"\n"
	"match_2:\n"
	"match:\n"
	"    ret #65535\n"
	"nomatch_1:\n"
	"nomatch:\n"
	"    ret #0\n";

static const char ttl_bytecode[] =
	"36,128 0 0 0,21 33 0 0,1 0 0 0,48 0 0 0,116 0 0 4,21 1 0 4,5 0 0 28,135 0 0 0,"
	"2 0 0 0,128 0 0 0,28 0 0 0,53 0 23 20,80 0 0 0,116 0 0 4,21 0 20 4,80 0 0 0,"
	"84 0 0 15,100 0 0 2,53 0 16 20,2 0 0 5,12 0 0 0,2 0 0 2,7 0 0 0,128 0 0 0,"
	"61 0 10 0,97 0 0 0,72 0 0 2,2 0 0 4,97 0 0 5,61 0 5 0,97 0 0 0,80 0 0 8,"
	"21 0 2 64,5 0 0 0,6 0 0 65535,6 0 0 0,";

static void test_expected_output(void **state)
{
	struct fp_bpfgen_opts o14 = { .l3_off = 14 }, o0 = { 0 };
	char *s;

	(void)state;
	s = bg_text(&o14, true, BG_WORDS("rule", "vlan", "7"));
	assert_non_null(s);
	assert_string_equal(s, vlan_asm);
	free(s);

	s = bg_text(&o0, true, BG_WORDS("rule", "ip ttl 64"));
	assert_non_null(s);
	assert_true(strlen(s) > strlen(ttl_asm_tail));
	assert_string_equal(s + strlen(s) - strlen(ttl_asm_tail), ttl_asm_tail);
	free(s);

	s = bg_text(&o0, false, BG_WORDS("rule", "ip", "ttl", "64"));
	assert_non_null(s);
	assert_string_equal(s, ttl_bytecode);
	free(s);

	/* no terms: always; contradictory terms: never */
	s = bg_text(&o0, false, BG_WORDS("rule", "pass"));
	assert_string_equal(s, "3,5 0 0 0,6 0 0 65535,6 0 0 0,");
	free(s);
	{ /* the parser refuses these; a rule built in code gets `ret #0` */
		struct fp_rule r = { .terms = FP_T_SRC | FP_T_DST, .src = { .family = 4 },
				     .dst = { .family = 6 } };
		struct fp_bpfgen_out out;
		struct fp_bpfgen_err err;

		assert_int_equal(fp_bpfgen__rule(&o0, &r, &out, &err), 0);
		assert_int_equal(out.prog.len, 3);
		assert_int_equal(out.prog.insns[0].k, 1); /* ja nomatch */
		fp_bpfgen_out__free(&out);
	}
	/* -n swaps the returns */
	s = bg_text(&(struct fp_bpfgen_opts){ .negate = true }, false, BG_WORDS("rule", "drop"));
	assert_string_equal(s, "3,5 0 0 0,6 0 0 0,6 0 0 65535,");
	free(s);
}

/* ---- usage errors ------------------------------------------------------------ */

static void expect_usage(const struct fp_bpfgen_opts *o, const char *const *words,
			 const char *needle)
{
	struct fp_bpfgen_out out;
	struct fp_bpfgen_err err;

	assert_int_equal(bg_run(o, &out, &err, words), -EINVAL);
	assert_int_equal(err.kind, FP_BPFGEN_USAGE);
	if (!strstr(err.msg, needle))
		fail_msg("'%s' lacks '%s'", err.msg, needle);
}

static void test_usage_errors(void **state)
{
	struct fp_bpfgen_opts o0 = { 0 };
	struct fp_bpfgen_out out;
	struct fp_bpfgen_err err;

	(void)state;
	expect_usage(&o0, BG_WORDS("rule", "vlan 5"), "term 'vlan 5' needs the Ethernet header");
	expect_usage(&o0, BG_WORDS("rule", "ether arp"), "term 'ether' needs the Ethernet header");
	expect_usage(&o0, BG_WORDS("rule", "ip undetermined-transport"),
		     "'undetermined-transport' never holds with 'ip'");
	expect_usage(&(struct fp_bpfgen_opts){ .l3_off = 18 }, BG_WORDS("rule", "ip"),
		     "offset 18: use -o 0");
	expect_usage(&(struct fp_bpfgen_opts){ .inet6 = true }, BG_WORDS("rule", "ip6"),
		     "-6 does not apply");
	expect_usage(&o0, BG_WORDS("rule"), "no RULE TERMS given");
	expect_usage(&o0, BG_WORDS("rule", "udp dport 5x3"), "column 11:");
	expect_usage(&o0, BG_WORDS("rule", "tcpp"), "column 1: unknown term 'tcpp'");
	expect_usage(&o0, BG_WORDS("rule", "default drop"), "column 1:");
	expect_usage(&o0, BG_WORDS("rule", "--bogus"), "unrecognized option");
	assert_int_equal(bg_run(&o0, &out, &err, BG_WORDS("rule", "--help")), -EINVAL);
	assert_int_equal(err.kind, FP_BPFGEN_HELP);
	assert_non_null(strstr(err.help, "RULE TERMS"));
}

/* ---- verdicts on crafted packets --------------------------------------------- */

struct vcase {
	const char *rule;
	const uint8_t *wire;  /* the question's name, or NULL: name */
	size_t wire_len;
	const char *name;
	bool v6;
	unsigned want;        /* 1 match, 0 not */
	const char *why;
};

#define W(s) (const uint8_t *)(s), sizeof(s) - 1

static const struct vcase vcases[] = {
	{ "qname *.a", W("\x03x\x01" "a\x00"), NULL, false, 0,
	  "the bytes end in \\x01a\\x00 but the name is one label 'x\\x01a'" },
	{ "qname *.a", W("\x01x\x01" "a\x00"), NULL, false, 1, "x.a" },
	{ "qname *.a", W("\x01" "a\x00"), NULL, false, 0, "a. itself is not below a." },
	{ "qname *.example.com", NULL, 0, "WWW.Example.COM", true, 1, "case-insensitive" },
	{ "qname *.example.com", NULL, 0, "a.b.c.example.com", false, 1, "several labels" },
	{ "qname *.example.com", NULL, 0, "xexample.com", false, 0, "not at a boundary" },
	{ "qname example.com", NULL, 0, "EXAMPLE.com", false, 1, "exact, folded" },
	{ "qname example.com", NULL, 0, "example.com.x", false, 0, "exact: longer" },
	{ "qname ex-1.com", NULL, 0, "EX-1.COM", false, 1, "'-' and digits compare as is" },
	{ "qname ex-1.com", NULL, 0, "EX\r1.COM", false, 0, "'\\r' is not '-' | 0x20" },
	{ "qname *.", NULL, 0, "x", false, 1, "*.: any name below the root" },
	{ "qname *.", W("\x00"), NULL, false, 0, "*.: not the root" },
	{ "qname *.com", W("\x01x\xc0\x0c"), NULL, false, 0, "compression pointer" },
	{ "qname *.example.com", NULL, 0,
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.example.com", false, 0,
	  "a label of 64 bytes: no question" },
	{ "qtype 28", NULL, 0,
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.example.com", false, 1,
	  "a label of 63 bytes" },
	{ "qtype 28", NULL, 0, "a.b", true, 1, "qtype after a walk" },
	{ "qname a.b qtype 28", NULL, 0, "a.b", false, 1, "qtype after an exact name" },
	{ "qname a.b qtype 1", NULL, 0, "a.b", false, 0, "another qtype" },
};

static void build_dns(struct pkt *b, const struct vcase *c)
{
	pkt_init(b);
	pkt_eth(b, 0);
	if (c->v6)
		pkt_ipv6(b, &(struct pkt_ipv6_opts){ .src = "2001:db8::1", .dst = "2001:db8::2",
						     .hop_limit = 64 });
	else
		pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "192.0.2.1", .dst = "192.0.2.2",
						     .ttl = 64 });
	pkt_udp(b, 40000, 53);
	pkt_dns(b, &(struct pkt_dns_opts){ .name = c->name, .wire = c->wire,
					   .wire_len = c->wire_len, .qtype = 28 });
	assert_int_equal(pkt_finish(b), 0);
}

static unsigned verdict(const struct fp_cbpf *p, const uint8_t *f, size_t len)
{
	return bpf_filter((const struct bpf_insn *)p->insns, f, (unsigned)len, (unsigned)len) != 0;
}

static void test_dns_verdicts(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(vcases) / sizeof(vcases[0]); i++) {
		const struct vcase *c = &vcases[i];
		struct fp_cbpf p14 = gen_rule(14, c->rule), p0 = gen_rule(0, c->rule);
		struct fp_bpfgen_err err;
		struct fp_ref_pkt ref;
		struct fp_rule rule;
		struct pkt b;

		build_dns(&b, c);
		assert_int_equal(fp_bpfgen__rule_parse(c->rule, &rule, &err), 0);
		fp_ref__parse(b.buf, b.len, &ref);
		if (fp_ref__rule_matches(&rule, &ref) != c->want)
			fail_msg("case %zu (%s): the reference disagrees with the table", i, c->why);
		if (verdict(&p14, b.buf, b.len) != c->want)
			fail_msg("case %zu (%s, -o 14): want %u", i, c->why, c->want);
		if (verdict(&p0, b.buf + 14, b.len - 14) != c->want)
			fail_msg("case %zu (%s, -o 0): want %u", i, c->why, c->want);
		fp_cbpf__free(&p14);
		fp_cbpf__free(&p0);
	}
}

/* IPv6 extension headers: 8 then the protocol; 9: unknown; fragments. */
static void test_ipv6_ext(void **state)
{
	struct fp_cbpf udp = gen_rule(14, "udp"), frag = gen_rule(14, "frag"),
		       fudp = gen_rule(14, "udp frag"), und = gen_rule(14, "undetermined-transport"),
		       fund = gen_rule(14, "frag undetermined-transport"),
		       und0 = gen_rule(0, "ip6 undetermined-transport");
	unsigned n;

	(void)state;
	for (n = 0; n <= 10; n++) {
		struct fp_ref_pkt ref;
		struct pkt b;
		unsigned k;

		pkt_init(&b);
		pkt_eth(&b, 0);
		pkt_ipv6(&b, &(struct pkt_ipv6_opts){ .src = "::1", .dst = "::2" });
		for (k = 0; k < n; k++) {
			if (k == 3)
				pkt_ipv6_frag(&b, 0, true, 7); /* M set, offset 0: frag, walk on */
			else
				pkt_ipv6_ext(&b, k % 2 ? PKT_IP6_DEST : PKT_IP6_ROUTE, (uint8_t)(k % 3));
		}
		pkt_udp(&b, 1, 2);
		assert_int_equal(pkt_finish(&b), 0);
		fp_ref__parse(b.buf, b.len, &ref);
		assert_int_equal(verdict(&udp, b.buf, b.len), n <= 8);
		assert_int_equal(ref.proto_known && ref.proto == 17, n <= 8);
		assert_int_equal(verdict(&frag, b.buf, b.len), n > 3);
		assert_int_equal(verdict(&fudp, b.buf, b.len), n > 3 && n <= 8);
		assert_int_equal(verdict(&und, b.buf, b.len), n > 8);
		assert_int_equal(verdict(&fund, b.buf, b.len), n > 8);
		assert_int_equal(verdict(&und0, b.buf + 14, b.len - 14), n > 8);
		/* cut inside the last header: the walk stops, frag stays */
		pkt_truncate(&b, b.len - 9);
		fp_ref__parse(b.buf, b.len, &ref);
		assert_int_equal(verdict(&frag, b.buf, b.len), ref.frag);
		assert_int_equal(verdict(&udp, b.buf, b.len),
				 ref.proto_known && ref.proto == 17);
		assert_int_equal(verdict(&und, b.buf, b.len), ref.l3 && !ref.proto_known);
		assert_int_equal(verdict(&fund, b.buf, b.len), ref.l3 && !ref.proto_known && ref.frag);
	}
	fp_cbpf__free(&und);
	fp_cbpf__free(&fund);
	fp_cbpf__free(&und0);
	fp_cbpf__free(&udp);
	fp_cbpf__free(&frag);
	fp_cbpf__free(&fudp);
}

/* ---- the kernel ---------------------------------------------------------------- */

static void test_kernel_load(void **state)
{
	static const struct { unsigned off; const char *rule; } cases[] = {
		{ 0, "udp dport 53 qname *.example.com qtype 1" },
		{ 14, "udp dport 53 qname *.example.com vlan 10" },
		{ 14, "qname *.a" },
		{ 0, "qtype 28" },
		{ 0, "ip6 frag tcp flags syn,!ack sport 1-1023,8080 dport 80,443" },
		{ 14, "src 10.0.0.0/8 dst 10.1.2.3 len 40-1500 ttl 1-64 icmp" },
		{ 0, "ip ttl 64" },
		{ 0, "drop" },
	};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	size_t i, max = 0;

	(void)state;
	if (fd < 0)
		skip();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fp_cbpf p;
		struct sock_fprog prog;

		p = gen_rule(cases[i].off, cases[i].rule);
		prog.len = (unsigned short)p.len;
		prog.filter = (struct sock_filter *)p.insns;
		if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)))
			fail_msg("'%s' (%zu insns): SO_ATTACH_FILTER: %s", cases[i].rule, p.len,
				 strerror(errno));
		if (p.len > max)
			max = p.len;
		fp_cbpf__free(&p);
	}
	assert_true(max > 2000 && max <= FP_CBPF_MAXINSNS);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expected_output),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_dns_verdicts),
		cmocka_unit_test(test_ipv6_ext),
		cmocka_unit_test(test_kernel_load),
	};

	return cmocka_run_group_tests_name("bpfgen_rule", tests, NULL, NULL);
}
