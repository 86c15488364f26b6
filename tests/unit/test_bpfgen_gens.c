// SPDX-License-Identifier: BSD-2-Clause
/*
 * Every bpfgen generator and pattern form, with the expected bytecode.
 *
 * Where none of the fixed reference bugs applies, the expected line is what
 * Cloudflare's bpfgen prints for the same arguments, derived by hand from
 * its generators (gen_dns.py, gen_dns_validate.py, gen_suffix.py) and its
 * assembler (bpf_asm: `jneq #k, L` = jeq jt 0 jf L; `jlt` = jge with jf;
 * `jgt #k, L` = jgt jt L; output "N,c jt jf k,...," with a trailing comma).
 * Those lines are marked REF. Where we differ on purpose, the comment gives
 * the reference's line and why.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "unit/bpfgen_util.h"
#include "bpfgen/bpfgen_internal.h"

struct bc_case {
	const char *name;
	struct fp_bpfgen_opts o;
	const char *const *words;
	const char *want;
};

static const struct bc_case cases[] = {
	/* REF. x = 4*IHL + 20; "\x07example\x03com\x00" in 4+4+4+1 byte loads. */
	{ "exact name", { 0 }, BG_WORDS("dns", "example.com"),
	  "14,177 0 0 0,0 0 0 20,12 0 0 0,7 0 0 0,64 0 0 0,21 0 7 124090465,64 0 0 4,"
	  "21 0 5 1836084325,64 0 0 8,21 0 3 56848237,80 0 0 12,21 0 1 0,6 0 0 65535,6 0 0 0," },
	/* REF: leading/trailing dots and whitespace are ignored. */
	{ "dots ignored", { 0 }, BG_WORDS("dns", " .example.com. "),
	  "14,177 0 0 0,0 0 0 20,12 0 0 0,7 0 0 0,64 0 0 0,21 0 7 124090465,64 0 0 4,"
	  "21 0 5 1836084325,64 0 0 8,21 0 3 56848237,80 0 0 12,21 0 1 0,6 0 0 65535,6 0 0 0," },
	/* Reference: 18,177 0 0 0,0 0 0 20,12 0 0 0,7 0 0 0,80 0 0 0,12 0 0 0,4 0 0 1,...
	 * (no bound on the skipped label: length 0 or a 0xc0 pointer was skipped
	 * as a label). Here: jlt #1 (53 0 13 1) and jgt #63 (37 12 0 63). */
	{ "star", { 0 }, BG_WORDS("dns", "*.example.com"),
	  "20,177 0 0 0,0 0 0 20,12 0 0 0,7 0 0 0,80 0 0 0,53 0 13 1,37 12 0 63,12 0 0 0,"
	  "4 0 0 1,7 0 0 0,64 0 0 0,21 0 7 124090465,64 0 0 4,21 0 5 1836084325,64 0 0 8,"
	  "21 0 3 56848237,80 0 0 12,21 0 1 0,6 0 0 65535,6 0 0 0," },
	/* Reference: jlt #4 only (255 is no bound); here the max is clamped to 63. */
	{ "star range", { 0 }, BG_WORDS("dns", "*{4-255}.example.com"),
	  "20,177 0 0 0,0 0 0 20,12 0 0 0,7 0 0 0,80 0 0 0,53 0 13 4,37 12 0 63,12 0 0 0,"
	  "4 0 0 1,7 0 0 0,64 0 0 0,21 0 7 124090465,64 0 0 4,21 0 5 1836084325,64 0 0 8,"
	  "21 0 3 56848237,80 0 0 12,21 0 1 0,6 0 0 65535,6 0 0 0," },
	/* REF: min == max: one jneq #3 (21 0 8 3). */
	{ "star exact length", { 0 }, BG_WORDS("dns", "*{3-3}.a.b"),
	  "15,177 0 0 0,0 0 0 20,12 0 0 0,7 0 0 0,80 0 0 0,21 0 8 3,12 0 0 0,4 0 0 1,7 0 0 0,"
	  "64 0 0 0,21 0 3 23134562,80 0 0 4,21 0 1 0,6 0 0 65535,6 0 0 0," },
	/* REF: '?' is mask 0xff: or #0xff000000, compare 0xff026d65 ("?\x02me"). */
	{ "any byte", { 0 }, BG_WORDS("dns", "fin?.me"),
	  "13,177 0 0 0,0 0 0 20,12 0 0 0,7 0 0 0,64 0 0 0,21 0 6 73820526,64 0 0 4,"
	  "68 0 0 4278190080,21 0 3 4278349157,80 0 0 8,21 0 1 0,6 0 0 65535,6 0 0 0," },
	/* Reference: or #0x00202020 on "\x04ex_": '_' | 0x20 = 0x7f, so DEL
	 * matched '_'. Here only letters get 0x20: or #0x00202000. */
	{ "ignorecase letters only", { 0 }, BG_WORDS("dns", "-i", "Ex_1.com"),
	  "15,177 0 0 0,0 0 0 20,12 0 0 0,7 0 0 0,64 0 0 0,68 0 0 2105344,21 0 7 73758815,"
	  "64 0 0 4,68 0 0 8224,21 0 4 822305647,72 0 0 8,68 0 0 8192,21 0 1 27904,"
	  "6 0 0 65535,6 0 0 0," },
	/* REF: "example." then anything: only "\x07example" is compared. */
	{ "dot free suffix", { 0 }, BG_WORDS("dns", "example.**"),
	  "10,177 0 0 0,0 0 0 20,12 0 0 0,7 0 0 0,64 0 0 0,21 0 3 124090465,64 0 0 4,"
	  "21 0 1 1836084325,6 0 0 65535,6 0 0 0," },
	/* Reference: the length byte only masked (0xff), so "exa.ple..." (length
	 * 3) matched too. Here: ldb [x+0]; jlt #7; jgt #63 first. */
	{ "free suffix", { 0 }, BG_WORDS("dns", "example**"),
	  "14,177 0 0 0,0 0 0 20,12 0 0 0,7 0 0 0,80 0 0 0,53 0 7 7,37 6 0 63,64 0 0 0,"
	  "68 0 0 4278190080,21 0 3 4284840033,64 0 0 4,21 0 1 1836084325,6 0 0 65535,6 0 0 0," },
	/* REF bytes: %41 = 'A', %2e = '.' inside the label: "\x02A.\x03com\x00". */
	{ "percent encoding", { 0 }, BG_WORDS("dns", "%41%2e.com"),
	  "10,177 0 0 0,0 0 0 20,12 0 0 0,7 0 0 0,64 0 0 0,21 0 3 37826051,64 0 0 4,"
	  "21 0 1 1668246784,6 0 0 65535,6 0 0 0," },
	/* REF: two patterns: st M[0] (2 0 0 0), ldx M[0] (97 0 0 0) before the second. */
	{ "two patterns", { 0 }, BG_WORDS("dns", "a.com", "b.com"),
	  "21,177 0 0 0,0 0 0 20,12 0 0 0,7 0 0 0,2 0 0 0,64 0 0 0,21 0 5 23135075,72 0 0 4,"
	  "21 0 3 28525,80 0 0 6,21 0 1 0,6 0 0 65535,97 0 0 0,64 0 0 0,21 0 5 23200611,"
	  "72 0 0 4,21 0 3 28525,80 0 0 6,21 0 1 0,6 0 0 65535,6 0 0 0," },
	/* REF: -6: ld #60 (40 IPv6 + 8 UDP + 12 DNS). */
	{ "inet6", { .inet6 = true }, BG_WORDS("dns", "a.com"),
	  "10,0 0 0 60,7 0 0 0,64 0 0 0,21 0 5 23135075,72 0 0 4,21 0 3 28525,80 0 0 6,"
	  "21 0 1 0,6 0 0 65535,6 0 0 0," },
	/* REF: -o 14: ldx 4*([14]&0xf), ld #34. */
	{ "offset", { .l3_off = 14 }, BG_WORDS("dns", "a.com"),
	  "12,177 0 0 14,0 0 0 34,12 0 0 0,7 0 0 0,64 0 0 0,21 0 5 23135075,72 0 0 4,"
	  "21 0 3 28525,80 0 0 6,21 0 1 0,6 0 0 65535,6 0 0 0," },
	/* REF: -n swaps the returns. */
	{ "negate", { .negate = true }, BG_WORDS("dns", "a.com"),
	  "12,177 0 0 0,0 0 0 20,12 0 0 0,7 0 0 0,64 0 0 0,21 0 5 23135075,72 0 0 4,"
	  "21 0 3 28525,80 0 0 6,21 0 1 0,6 0 0 0,6 0 0 65535," },
	/* Reference (strict): 20,0 0 0 0,177 0 0 0,12 0 0 0,7 0 0 0,72 0 0 4,53 0 12 29,
	 * ... Here the real length is checked first (128 0 0 0 ld #len, 28 sub x,
	 * 53 0 15 29), so a cut-short header matches as malformed. Mask 0xff8f. */
	{ "dns_validate strict", { 0 }, BG_WORDS("dns_validate", "--strict"),
	  "23,0 0 0 0,177 0 0 0,12 0 0 0,7 0 0 0,128 0 0 0,28 0 0 0,53 0 15 29,72 0 0 4,"
	  "53 0 13 29,135 0 0 0,4 0 0 8,7 0 0 0,72 0 0 2,84 0 0 65423,21 0 7 0,72 0 0 4,"
	  "21 0 5 1,64 0 0 6,21 0 3 0,72 0 0 10,37 1 0 1,6 0 0 0,6 0 0 65535," },
	/* Reference non-strict mask 0xfc8f (bit 9, TC, cleared); here 0xfe0f
	 * (bits 7 RA and 8 RD cleared, as its help text says). */
	{ "dns_validate inet6", { .inet6 = true }, BG_WORDS("dns_validate"),
	  "21,0 0 0 40,7 0 0 0,128 0 0 0,28 0 0 0,53 0 15 29,72 0 0 4,53 0 13 29,135 0 0 0,"
	  "4 0 0 8,7 0 0 0,72 0 0 2,84 0 0 65039,21 0 7 0,72 0 0 4,21 0 5 1,64 0 0 6,21 0 3 0,"
	  "72 0 0 10,37 1 0 1,6 0 0 0,6 0 0 65535," },
	/* REF: ld #len; sub #3; tax; ldh [x+0] == 0x0102; ldb [x+2] == 3. */
	{ "suffix", { 0 }, BG_WORDS("suffix", "010203"),
	  "9,128 0 0 0,20 0 0 3,7 0 0 0,72 0 0 0,21 0 3 258,80 0 0 2,21 0 1 3,6 0 0 65535,6 0 0 0," },
	/* REF: the same bytes split over arguments. */
	{ "suffix split", { 0 }, BG_WORDS("suffix", "01", "02", "03"),
	  "9,128 0 0 0,20 0 0 3,7 0 0 0,72 0 0 0,21 0 3 258,80 0 0 2,21 0 1 3,6 0 0 65535,6 0 0 0," },
	/* REF: trailing xx bytes count in the length (sub #9) but are not compared. */
	{ "suffix trailing x", { 0 }, BG_WORDS("suffix", "0102030405060708xx"),
	  "9,128 0 0 0,20 0 0 9,7 0 0 0,64 0 0 0,21 0 3 16909060,64 0 0 4,21 0 1 84281096,"
	  "6 0 0 65535,6 0 0 0," },
	/* Not in the reference (it crashed): an x inside, masked with and #0xff0f. */
	{ "suffix inner x", { 0 }, BG_WORDS("suffix", "01x203"),
	  "10,128 0 0 0,20 0 0 3,7 0 0 0,72 0 0 0,84 0 0 65295,21 0 3 258,80 0 0 2,21 0 1 3,"
	  "6 0 0 65535,6 0 0 0," },
};

static void test_bytecode(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = bg_text(&cases[i].o, false, cases[i].words);

		if (!got || strcmp(got, cases[i].want))
			fail_msg("%s:\n got  %s\n want %s", cases[i].name, got ? got : "(error)",
				 cases[i].want);
		free(got);
	}
}

/* The assembly keeps the reference's layout: labels, "; Match:" comments. */
static void test_assembly_dns(void **state)
{
	char *s = bg_text(&(struct fp_bpfgen_opts){ 0 }, true, BG_WORDS("dns", "*.example.com"));
	static const char want[] =
		"    ldx 4*([0]&0xf)\n"
		"    ; l3_off(0) + 8 of udp + 12 of dns\n"
		"    ld #20\n"
		"    add x\n"
		"    tax\n"
		"    ; a = x = M[0] = offset of first dns query byte\n"
		"    ; st M[0]\n"
		"\n"
		"lb_0:\n"
		"    ; ldx M[0]\n"
		"    ; Match: *\n"
		"    ldb [x + 0]\n"
		"    jlt #1, lb_1\n"
		"    jgt #63, lb_1\n"
		"    add x\n"
		"    add #1\n"
		"    tax\n"
		"    ; Match: 076578616d706c6503636f6d00 '\\x07example\\x03com\\x00'  "
		"mask=00000000000000000000000000\n"
		"    ld [x + 0]\n"
		"    jneq #0x07657861, lb_1\n"
		"    ld [x + 4]\n"
		"    jneq #0x6d706c65, lb_1\n"
		"    ld [x + 8]\n"
		"    jneq #0x03636f6d, lb_1\n"
		"    ldb [x + 12]\n"
		"    jneq #0x00, lb_1\n"
		"    ret #65535\n"
		"\n"
		"lb_1:\n"
		"    ret #0\n";

	(void)state;
	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

static void test_assembly_suffix_validate(void **state)
{
	char *s = bg_text(&(struct fp_bpfgen_opts){ 0 }, true, BG_WORDS("suffix", "01 02 03"));

	(void)state;
	assert_non_null(strstr(s, "    ld #len\n    sub #3\n    tax\n"));
	assert_non_null(strstr(s, "     ; matching 010203\n    ldh [x + 0]\n    jneq #0x0102, nomatch\n"));
	assert_non_null(strstr(s, "nomatch:\n    ret #0\n"));
	free(s);
	s = bg_text(&(struct fp_bpfgen_opts){ 0 }, true, BG_WORDS("dns_validate"));
	assert_non_null(strstr(s, "    ldh [x + 2]        ; opcode = 0, rdcode = 0 etc\n    and #0xfe0f\n"));
	assert_non_null(strstr(s, "    jgt #0x1, match\n    ret #0\n\nmatch:\n    ret #65535\n"));
	free(s);
}

/* tcpdump: libpcap's program for the link type of the offset. */
static void test_tcpdump(void **state)
{
	char *s;

	(void)state;
	/* raw IPv4 (LINKTYPE_IPV4): the protocol byte is at offset 9 */
	s = bg_text(&(struct fp_bpfgen_opts){ 0 }, false, BG_WORDS("tcpdump", "ip", "proto", "17"));
	assert_non_null(s);
	assert_non_null(strstr(s, "48 0 0 9,21 0 1 17,6 0 0 65536,6 0 0 0,"));
	free(s);
	/* Ethernet: ethertype at 12, protocol at 23 */
	s = bg_text(&(struct fp_bpfgen_opts){ .l3_off = 14 }, false,
		    BG_WORDS("tcpdump", "ip proto 17"));
	assert_string_equal(s, "6,40 0 0 12,21 0 3 2048,48 0 0 23,21 0 1 17,6 0 0 65536,6 0 0 0,");
	free(s);
	/* -n compiles "not (EXPR)": the returns swap */
	s = bg_text(&(struct fp_bpfgen_opts){ .l3_off = 14, .negate = true }, false,
		    BG_WORDS("tcpdump", "ip proto 17"));
	assert_string_equal(s, "6,40 0 0 12,21 0 3 2048,48 0 0 23,21 0 1 17,6 0 0 0,6 0 0 65536,");
	free(s);
	/* -o 18: "vlan and (EXPR)"; -o 16: SLL protocol at 14 */
	s = bg_text(&(struct fp_bpfgen_opts){ .l3_off = 18 }, true, BG_WORDS("tcpdump", "udp"));
	assert_non_null(strstr(s, "; vlan and (udp)\n"));
	free(s);
	s = bg_text(&(struct fp_bpfgen_opts){ .l3_off = 16 }, false, BG_WORDS("tcpdump", "ip"));
	assert_string_equal(s, "4,40 0 0 14,21 0 1 2048,6 0 0 65536,6 0 0 0,");
	free(s);
	/* the assembly labels every instruction as the reference does */
	s = bg_text(&(struct fp_bpfgen_opts){ .l3_off = 14 }, true, BG_WORDS("tcpdump", "ip"));
	assert_string_equal(s, "; ipver=4\n; ip\n\nl000:\n    ldh [12]\nl001:\n"
			       "    jeq #0x800, l002, l003\nl002:\n    ret #0x10000\nl003:\n"
			       "    ret #0x0\n");
	free(s);
}

/* p0f: the signature's tests as a tcpdump expression (p0f.py's wording). */
static void test_p0f(void **state)
{
	char *expr, *doc, msg[256];

	(void)state;
	assert_int_equal(fp_p0f__to_expr("4:64:0:*:mss*10,6:mss,sok,ts,nop,ws:df,id+:0", &expr,
					 &doc, msg, sizeof(msg)), 0);
	assert_string_equal(expr,
		"ip and (ip[8] <= 64) and (ip[8] > 29) and ((ip[0] & 0xf) == 5) and "
		"(tcp[14:2] == (tcp[22:2] * 10)) and (tcp[39:1] == 6) and ((tcp[12] >> 4) == 10) and "
		"(tcp[20] == 2) and (tcp[24] == 4) and (tcp[26] == 8) and (tcp[36] == 1) and "
		"(tcp[37] == 3) and ((ip[6] & 0x40) != 0) and ((ip[6] & 0x80) == 0) and "
		"((ip[2:2] - ((ip[0] & 0xf) * 4) - ((tcp[12] >> 4) * 4)) == 0)");
	assert_non_null(strstr(doc, "ip: ip version\n(ip[8] <= 64): ttl <= 64\n"));
	free(expr);
	free(doc);
	/* IPv6, random ttl, eol+3 padding checked over exactly 3 bytes (2 + 1) */
	assert_int_equal(fp_p0f__to_expr("6:64-:*:1460:65535,0:mss,eol+3:flow:+", &expr, &doc,
					 msg, sizeof(msg)), 0);
	assert_string_equal(expr,
		"ip6 and (ip6[(40 + 22):2] == 1460) and (ip6[(40 + 14):2] == 65535) and "
		"((ip6[40 + 12] >> 4) == 7) and (ip6[40 + 20] == 2) and (ip6[40 + 24] == 0) and "
		"(ip6[(40 + 25):2] == 0) and (ip6[(40 + 27):1] == 0) and ((ip6[2:2]) != 0) and "
		"(((ip6[4:2]) - ((ip6[40 + 12] >> 4) * 4)) != 0)");
	free(expr);
	free(doc);
	/* the whole generator compiles it */
	expr = bg_text(&(struct fp_bpfgen_opts){ .l3_off = 14 }, false,
		       BG_WORDS("p0f", "4:128:0:*:%8192,*:mss,nop,nop,sok:0+:*"));
	assert_non_null(expr);
	free(expr);
}

struct err_case {
	const char *const *words;
	const char *msg; /* a part of the message */
};

static const struct err_case usage_errors[] = {
	{ BG_WORDS("nosuch"), "unknown generator" },
	{ BG_WORDS("dns"), "no PATTERN" },
	{ BG_WORDS("dns", ""), "empty pattern" },           /* reference: IndexError */
	{ BG_WORDS("dns", "   "), "empty pattern" },
	{ BG_WORDS("dns", "a..b"), "empty label" },
	{ BG_WORDS("dns", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com"),
	  "at most 63" },
	{ BG_WORDS("dns", "*{0-0}.a"), "allows no label length" },
	{ BG_WORDS("dns", "*{64-100}.a"), "allows no label length" },
	{ BG_WORDS("dns", "*{5-3}.a"), "allows no label length" },
	{ BG_WORDS("dns", "-x", "a.com"), "unrecognized option" },
	{ BG_WORDS("dns", "--ignorecase=1", "a.com"), "takes no value" },
	{ BG_WORDS("dns_validate", "extra"), "unexpected argument" },
	{ BG_WORDS("suffix"), "no HEX" },                    /* reference: exit 255 */
	{ BG_WORDS("suffix", "012"), "odd number" },         /* reference: AssertionError */
	{ BG_WORDS("suffix", "01zz"), "not a hex digit" },   /* reference: TypeError */
	{ BG_WORDS("tcpdump"), "no EXPR" },
	{ BG_WORDS("tcpdump", "udp", "and", "and"), "cannot compile" },
	{ BG_WORDS("p0f"), "exactly one" },
	{ BG_WORDS("p0f", "4:64:0"), "has 3 fields" },
	{ BG_WORDS("p0f", "5:64:0:*:*,*:::*"), "must be 4 or 6" },
	{ BG_WORDS("p0f", "4:64:0:1460:*,*:::*"), "no 'mss'" }, /* reference: ValueError */
	{ BG_WORDS("p0f", "4:64:0:*:*,*::bogus:*"), "unknown quirk" },
	{ BG_WORDS("p0f", "4:64:0:*:*,*:mss,foo::*"), "unknown TCP option" },
};

static void test_usage_errors(void **state)
{
	struct fp_bpfgen_out out;
	struct fp_bpfgen_err err;
	char name[300], *words[3];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(usage_errors) / sizeof(usage_errors[0]); i++) {
		int r = bg_run(&(struct fp_bpfgen_opts){ 0 }, &out, &err, usage_errors[i].words);

		if (r != -EINVAL || err.kind != FP_BPFGEN_USAGE ||
		    !strstr(err.msg, usage_errors[i].msg))
			fail_msg("case %zu (%s): r=%d kind=%d msg '%s', want '%s'", i,
				 usage_errors[i].words[0], r, err.kind, err.msg, usage_errors[i].msg);
	}
	/* a label over 255 bytes (the reference crashed in chr()) */
	memset(name, 'a', 299);
	name[299] = 0;
	words[0] = "dns";
	words[1] = name;
	words[2] = NULL;
	assert_int_equal(bg_run(&(struct fp_bpfgen_opts){ 0 }, &out, &err,
				(const char *const *)words), -EINVAL);
	/* a name over 255 bytes on the wire: 5 labels of 55 (281 bytes) */
	for (i = 0; i < 5; i++) {
		memset(name + 56 * i, 'b', 55);
		name[56 * i + 55] = i < 4 ? '.' : 0;
	}
	assert_int_equal(bg_run(&(struct fp_bpfgen_opts){ 0 }, &out, &err,
				(const char *const *)words), -EINVAL);
	assert_non_null(strstr(err.msg, "255"));
	/* tcpdump with an offset that has no link type */
	assert_int_equal(bg_run(&(struct fp_bpfgen_opts){ .l3_off = 15 }, &out, &err,
				BG_WORDS("tcpdump", "ip")), -EINVAL);
	assert_non_null(strstr(err.msg, "offset 15"));
}

static void test_help(void **state)
{
	static const char *const gens[] = { "dns", "dns_validate", "suffix", "tcpdump", "p0f" };
	struct fp_bpfgen_out out;
	struct fp_bpfgen_err err;
	size_t i;

	(void)state;
	for (i = 0; i < 5; i++) {
		assert_int_equal(bg_run(&(struct fp_bpfgen_opts){ 0 }, &out, &err,
					BG_WORDS(gens[i], "--help")), -EINVAL);
		assert_int_equal(err.kind, FP_BPFGEN_HELP);
		assert_non_null(err.help);
		assert_non_null(strstr(err.help, "usage: fastpath bpfgen"));
	}
	/* argparse style: -h anywhere, --ign as a prefix of --ignorecase */
	assert_int_equal(bg_run(&(struct fp_bpfgen_opts){ 0 }, &out, &err,
				BG_WORDS("dns", "a.com", "-h")), -EINVAL);
	assert_int_equal(err.kind, FP_BPFGEN_HELP);
	assert_int_equal(bg_run(&(struct fp_bpfgen_opts){ 0 }, &out, &err,
				BG_WORDS("dns", "--ign", "A.com")), 0);
	fp_bpfgen_out__free(&out);
	/* after "--" an option-looking word is a pattern (here: a bad one) */
	assert_int_equal(bg_run(&(struct fp_bpfgen_opts){ 0 }, &out, &err,
				BG_WORDS("dns", "--", "-i")), 0);
	fp_bpfgen_out__free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytecode),
		cmocka_unit_test(test_assembly_dns),
		cmocka_unit_test(test_assembly_suffix_validate),
		cmocka_unit_test(test_tcpdump),
		cmocka_unit_test(test_p0f),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_help),
	};

	return cmocka_run_group_tests_name("bpfgen_gens", tests, NULL, NULL);
}
