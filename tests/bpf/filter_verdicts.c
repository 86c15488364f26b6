// SPDX-License-Identifier: BSD-2-Clause
#pragma GCC diagnostic ignored "-Woverride-init" /* V4()/V6() defaults, then overrides */
/*
 * The filter's verdicts on hand-built frames: each term on IPv4 and IPv6,
 * VLAN and QinQ, fragments, and every malformed class of the rule model
 * (src/rules/match_ref.h) with its defined result. Each row runs the real
 * pipeline through BPF_PROG_TEST_RUN and the reference matcher, and both
 * must give the row's expected rule. FP_CASE=name runs one row; a failing
 * row's frame is hexdumped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/filter_fixture.h"
#include "common/pkt.h"
#include "filter/filter.h"
#include "rules/match_ref.h"

/* One rule set for every row: ids say which term decided. Order matters:
 * the specific rules come before the broad ones. */
static const char RULES[] =
	"drop qname *.example.com qtype A id dns-a\n"
	"drop qname *.example.com id dns-wild\n"
	"pass qname www.example.org id dns-exact\n"
	"drop qname ab id dns-8\n"
	"drop qname *. qtype TXT id dns-any-txt\n"
	"drop tcp flags syn,!ack dport 80 id syn80\n"
	"pass tcp dport 80 id web\n"
	"drop udp dport 9000-9010,9999 id udp-range\n"
	"drop sport 7 id sport7\n"
	"drop src 203.0.113.0/24 id src4\n"
	"pass src 203.0.113.7 dst 198.51.100.1 id never-first\n"
	"drop dst 2001:db8:bad::/48 id dst6\n"
	"drop ip6 src 2001:db8::1 id src6\n"
	"drop vlan 100 id vlan100\n"
	"drop frag udp id frag-udp\n"
	"drop frag id frag\n"
	"drop ttl 1 id ttl1\n"
	"drop len 0-100 ip6 udp id len6\n"
	"drop len 1400-1500 ip id len4\n"
	"drop proto 47 id gre\n"
	"drop icmp6 id icmp6\n"
	"pass icmp id icmp\n"
	"drop ip6 id ip6\n"
	"default pass\n";

struct row {
	const char *name;
	void (*build)(struct pkt *b);
	const char *rule; /* expected deciding rule id, NULL = default */
};

#define V4(...) pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "192.0.2.1", .dst = "198.51.100.1", \
				.ttl = 64, __VA_ARGS__ })
#define V6(...) pkt_ipv6(b, &(struct pkt_ipv6_opts){ .src = "2001:db8:1::1", .dst = "2001:db8:2::2", \
				.hop_limit = 64, __VA_ARGS__ })

/* DNS */
static void dns4_a(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_udp(b, 1000, 53); pkt_dns_query(b, "x.Example.COM", 1); }
static void dns6_aaaa(struct pkt *b) { pkt_eth(b, 0); V6(); pkt_udp(b, 1000, 53); pkt_dns_query(b, "a.b.example.com.", 28); }
static void dns_suffix_itself(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_udp(b, 1000, 53); pkt_dns_query(b, "example.com", 1); }
static void dns_exact(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_udp(b, 1000, 53); pkt_dns_query(b, "WWW.example.org", 1); }
static void dns_exact_sub(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_udp(b, 1000, 53); pkt_dns_query(b, "a.www.example.org", 1); }
static void dns_root_txt(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_udp(b, 1000, 53); pkt_dns_query(b, "foo.net", 16); }
static void dns_response(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_udp(b, 1000, 53); pkt_dns(b, &(struct pkt_dns_opts){ .name = "x.example.com", .qtype = 1, .flags = 0x8180 }); }
static void dns_noq(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_udp(b, 1000, 53); pkt_dns(b, &(struct pkt_dns_opts){ .name = "x.example.com", .qtype = 1, .no_question = true }); }
static void dns_ptr(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_udp(b, 1000, 53); pkt_dns(b, &(struct pkt_dns_opts){ .wire = (const uint8_t *)"\x01x\xc0\x0c", .wire_len = 4, .qtype = 16 }); }
static void dns_label64(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_udp(b, 1000, 53);
	pkt_dns(b, &(struct pkt_dns_opts){ .name = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.example.com", .qtype = 1 }); }
static void dns_no_qtype(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_udp(b, 1000, 53); pkt_dns(b, &(struct pkt_dns_opts){ .name = "x.example.com", .no_qtype = true }); }
/* name and qtype/qclass in 8 bytes: the parse's copy is one word */
static void dns_8(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_udp(b, 1000, 53); pkt_dns_query(b, "AB", 1); }
static void dns_to_5353(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_udp(b, 1000, 5353); pkt_dns_query(b, "x.example.com", 1); }
static void dns_long(struct pkt *b)
{
	char name[400] = "";

	for (int i = 0; i < 26; i++)
		strcat(name, "abcdefghi.");
	strcat(name, "example.com"); /* 26*10 + 13 > 255 on the wire */
	pkt_eth(b, 0); V4(); pkt_udp(b, 1000, 53); pkt_dns_query(b, name, 1);
}
/* TCP flags and ports */
static void syn80_v4(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_tcp(b, 1234, 80, PKT_SYN); }
static void syn80_v6(struct pkt *b) { pkt_eth(b, 0); V6(); pkt_tcp(b, 1234, 80, PKT_SYN); }
static void synack80(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_tcp(b, 1234, 80, PKT_SYN | PKT_ACK); }
static void tcp_doff4(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_tcp_ex(b, &(struct pkt_tcp_opts){ .sport = 1, .dport = 80, .flags = PKT_SYN, .doff = 4 }); }
static void tcp_cut(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_tcp(b, 1234, 80, PKT_SYN); pkt_finish(b); pkt_truncate(b, b->l4 + 19); }
static void udp_range(struct pkt *b) { pkt_eth(b, 0); V6(); pkt_udp(b, 1, 9005); }
static void udp_list(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_udp(b, 1, 9999); }
static void udp_outside(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_udp(b, 1, 9011); }
static void sport7_tcp(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_tcp(b, 7, 22, PKT_ACK); }
/* addresses */
static void src4_in(struct pkt *b) { pkt_eth(b, 0); pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "203.0.113.7", .dst = "198.51.100.1", .ttl = 64 }); pkt_udp(b, 1, 2); }
static void dst6_in(struct pkt *b) { pkt_eth(b, 0); V6(.dst = "2001:db8:bad:1::9"); pkt_udp(b, 1, 2); }
static void src6_exact(struct pkt *b) { pkt_eth(b, 0); V6(.src = "2001:db8::1"); pkt_tcp(b, 5, 6, PKT_ACK); }
static void v4mapped_not_v4(struct pkt *b) { pkt_eth(b, 0); V6(.src = "::ffff:203.0.113.7"); pkt_icmp6(b, 128, 0); }
/* VLAN */
static void vlan_outer(struct pkt *b) { pkt_eth(b, 0); pkt_vlan(b, PKT_ETH_8021Q, 100); V4(); pkt_udp(b, 1, 2); }
static void qinq_inner(struct pkt *b) { pkt_eth(b, 0); pkt_vlan(b, PKT_ETH_8021AD, 7); pkt_vlan(b, PKT_ETH_8021Q, 100); V4(); pkt_udp(b, 1, 2); }
static void qinq_other(struct pkt *b) { pkt_eth(b, 0); pkt_vlan(b, PKT_ETH_8021AD, 7); pkt_vlan(b, PKT_ETH_8021Q, 8); V4(); pkt_tcp(b, 1234, 80, PKT_SYN); }
static void three_tags(struct pkt *b) { pkt_eth(b, 0); pkt_vlan(b, PKT_ETH_8021AD, 7); pkt_vlan(b, PKT_ETH_8021Q, 8); pkt_vlan(b, PKT_ETH_8021Q, 9); V4(); pkt_tcp(b, 1234, 80, PKT_SYN); }
/* fragments */
static void frag_first_udp(struct pkt *b) { pkt_eth(b, 0); V4(.mf = true); pkt_udp(b, 1, 9005); }
static void frag_later_udp(struct pkt *b) { pkt_eth(b, 0); V4(.frag_off = 100, .proto = 17); pkt_bytes(b, "\x00\x07\x23\x2d\x00\x10\x00\x00", 8); }
static void frag_later_tcp(struct pkt *b) { pkt_eth(b, 0); V4(.frag_off = 100, .proto = 6); pkt_bytes(b, "\x00\x07\x00\x50\x00\x10\x00\x00\x00\x00\x00\x00\x50\x02\x00\x00\x00\x00\x00\x00", 20); }
static void frag6_later(struct pkt *b) { pkt_eth(b, 0); V6(); pkt_ipv6_frag(b, 10, false, 1); pkt_next(b, 17); pkt_bytes(b, "\x00\x07\x00\x35\x00\x10\x00\x00", 8); }
static void frag6_atomic(struct pkt *b) { pkt_eth(b, 0); V6(); pkt_ipv6_frag(b, 0, false, 1); pkt_tcp(b, 1234, 80, PKT_SYN); }
/* IPv6 extension headers */
static void v6_ext_ok(struct pkt *b) { pkt_eth(b, 0); V6(); pkt_ipv6_ext(b, PKT_IP6_HOP, 0); pkt_ipv6_ext(b, PKT_IP6_ROUTE, 1); pkt_ipv6_ext(b, PKT_IP6_DEST, 0); pkt_tcp(b, 1, 80, PKT_SYN); }
static void v6_ext_9(struct pkt *b) { pkt_eth(b, 0); V6(); for (int i = 0; i < 9; i++) pkt_ipv6_ext(b, PKT_IP6_DEST, 0); pkt_tcp(b, 1, 80, PKT_SYN); }
static void v6_ext_cut(struct pkt *b) { pkt_eth(b, 0); V6(); pkt_ipv6_ext(b, PKT_IP6_HOP, 3); pkt_tcp(b, 1, 80, PKT_SYN); pkt_finish(b); pkt_truncate(b, b->l3 + 40 + 20); }
/* IPv4 header damage */
static void ihl4(struct pkt *b) { pkt_eth(b, 0); V4(.ihl = 4, .ttl = 1); pkt_udp(b, 1, 9005); }
static void totlen_short(struct pkt *b) { pkt_eth(b, 0); V4(.tot_len = 19, .ttl = 1); pkt_udp(b, 1, 9005); }
static void opts_cut(struct pkt *b) { static const uint8_t o[8] = { 1, 1, 1, 1, 1, 1, 1, 0 }; pkt_eth(b, 0); V4(.options = o, .options_len = 8, .ttl = 1); pkt_finish(b); pkt_truncate(b, b->l3 + 24); }
static void opts_ok(struct pkt *b) { static const uint8_t o[8] = { 1, 1, 1, 1, 1, 1, 1, 0 }; pkt_eth(b, 0); V4(.options = o, .options_len = 8); pkt_udp(b, 1, 9005); }
static void bad_version(struct pkt *b) { pkt_eth(b, 0); V4(.version = 5, .ttl = 1); pkt_udp(b, 1, 9005); }
static void padding_not_ports(struct pkt *b) { pkt_eth(b, 0); V4(.proto = 17, .ttl = 9); pkt_finish(b); pkt_pad(b, 8, 0); pkt_set16(b, b->l3 + 20 + 2, 9005); }
static void ttl1_v6(struct pkt *b) { pkt_eth(b, 0); V6(.hop_limit = 1); pkt_udp(b, 1, 2); }
static void len6_small(struct pkt *b) { pkt_eth(b, 0); V6(); pkt_udp(b, 1, 2); }
/* payload length 65500: len is 65540, past every range (no 16-bit wrap to 4) */
static void len6_wrap(struct pkt *b) { pkt_eth(b, 0); V6(.plen = 65500); pkt_udp(b, 1, 2); }
static void len4(struct pkt *b) { uint8_t pay[1400] = { 0 }; pkt_eth(b, 0); V4(); pkt_udp(b, 1, 2); pkt_bytes(b, pay, sizeof(pay)); }
static void gre(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_next(b, 47); pkt_bytes(b, "\0\0\x08\0", 4); }
static void icmp4(struct pkt *b) { pkt_eth(b, 0); V4(); pkt_icmp(b, 8, 0); }
static void arp(struct pkt *b) { pkt_eth(b, PKT_ETH_ARP); pkt_bytes(b, "\0\1\x08\0\6\4\0\1", 8); }

static const struct row rows[] = {
	{ "dns v4 wildcard+qtype, mixed case", dns4_a, "dns-a" },
	{ "dns v6 wildcard, trailing dot", dns6_aaaa, "dns-wild" },
	{ "dns wildcard does not match its suffix", dns_suffix_itself, NULL },
	{ "dns exact name (case-insensitive)", dns_exact, "dns-exact" },
	{ "dns exact name does not match below it", dns_exact_sub, NULL },
	{ "dns *. with qtype TXT", dns_root_txt, "dns-any-txt" },
	{ "dns response (QR=1) has no question", dns_response, NULL },
	{ "dns QDCOUNT 0", dns_noq, NULL },
	{ "dns compression pointer", dns_ptr, NULL },
	{ "dns label of 64 bytes", dns_label64, NULL },
	{ "dns name over 255 bytes", dns_long, NULL },
	{ "dns qtype cut short", dns_no_qtype, NULL },
	{ "dns to another port", dns_to_5353, NULL },
	{ "dns name and qtype in 8 bytes", dns_8, "dns-8" },
	{ "tcp syn,!ack v4", syn80_v4, "syn80" },
	{ "tcp syn,!ack v6", syn80_v6, "syn80" },
	{ "tcp syn+ack goes to the next rule", synack80, "web" },
	{ "tcp data offset < 5: no ports, no flags", tcp_doff4, NULL },
	{ "tcp header cut short", tcp_cut, NULL },
	{ "udp port range v6", udp_range, "udp-range" },
	{ "udp port list", udp_list, "udp-range" },
	{ "udp port outside", udp_outside, NULL },
	{ "sport on tcp", sport7_tcp, "sport7" },
	{ "src v4 prefix (first match wins)", src4_in, "src4" },
	{ "dst v6 prefix", dst6_in, "dst6" },
	{ "src v6 exact", src6_exact, "src6" },
	{ "v4-mapped v6 is not v4", v4mapped_not_v4, "icmp6" },
	{ "vlan single tag", vlan_outer, "vlan100" },
	{ "qinq inner tag", qinq_inner, "vlan100" },
	{ "qinq other tags", qinq_other, "syn80" },
	{ "three tags: no L3", three_tags, NULL },
	{ "first fragment has ports", frag_first_udp, "udp-range" },
	{ "later v4 fragment: proto, no ports", frag_later_udp, "frag-udp" },
	{ "later v4 fragment tcp: no flags", frag_later_tcp, "frag" },
	{ "later v6 fragment", frag6_later, "frag-udp" },
	{ "atomic v6 fragment is not a fragment", frag6_atomic, "syn80" },
	{ "v6 hop/route/dest then tcp", v6_ext_ok, "syn80" },
	{ "v6 nine extension headers: no upper layer", v6_ext_9, "ip6" },
	{ "v6 extension header cut short", v6_ext_cut, "ip6" },
	{ "ipv4 ihl 4: no ipv4", ihl4, NULL },
	{ "ipv4 total length < header: no ipv4", totlen_short, NULL },
	{ "ipv4 options cut short: no ipv4", opts_cut, NULL },
	{ "ipv4 options", opts_ok, "udp-range" },
	{ "ipv4 version 5: no ipv4", bad_version, NULL },
	{ "padding after total length is not a header", padding_not_ports, NULL },
	{ "ttl on v6 hop limit", ttl1_v6, "ttl1" },
	{ "len range v4", len4, "len4" },
	{ "len range v6", len6_small, "len6" },
	{ "v6 len past 65535 does not wrap", len6_wrap, "ip6" },
	{ "proto number", gre, "gre" },
	{ "icmp", icmp4, "icmp" },
	{ "arp: nothing holds", arp, NULL },
};

static struct fp_filter *filter;
static struct fp_ruleset set;

static int setup(void **state)
{
	struct fp_diags d = { 0 };
	char err[512];

	if (fp_ruleset__parse(RULES, strlen(RULES), &set, &d)) {
		for (size_t i = 0; i < d.n && i < d.cap; i++)
			fprintf(stderr, "RULES:%u:%u: %s\n", d.v[i].line, d.v[i].col, d.v[i].msg);
		return -1;
	}
	if (geteuid() != 0)
		return 0;
	if (fp_filter__open_test(&filter, err, sizeof(err)) ||
	    fp_filter__apply(filter, &set, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	fp_filter__close(filter);
	fp_ruleset__free(&set);
	return 0;
}

static const char *id_of(long idx)
{
	return idx >= 0 && (size_t)idx < set.n ? set.rules[idx].id : NULL;
}

static void run_row(void **state)
{
	const struct row *r = *state;
	struct pkt b;
	uint32_t verdict, rule;
	const char *got_ref, *got_xdp;
	int ok;

	if (!filter)
		skip();
	pkt_init(&b);
	r->build(&b);
	if (!b.finished)
		assert_int_equal(pkt_finish(&b), 0);
	/* no padding to 60 bytes: rows that cut frames short must stay short */
	assert_int_equal(fp_filter__run(filter, b.buf, b.len, &verdict, &rule), 0);
	got_xdp = rule == FP_FLT_NO_RULE ? NULL : id_of(rule);
	got_ref = id_of(fp_ref__classify(&set, b.buf, b.len));
	ok = (got_xdp == r->rule || (got_xdp && r->rule && !strcmp(got_xdp, r->rule))) &&
	     (got_ref == r->rule || (got_ref && r->rule && !strcmp(got_ref, r->rule)));
	if (!ok) {
		fprintf(stderr, "%s: want %s, xdp %s, reference %s\n", r->name,
			r->rule ?: "(default)", got_xdp ?: "(default)", got_ref ?: "(default)");
		pkt_hexdump(stderr, b.buf, b.len);
		fail();
	}
	{
		long idx = fp_ref__classify(&set, b.buf, b.len);
		enum fp_action a = idx < 0 ? set.default_action : set.rules[idx].action;

		assert_int_equal(verdict, a == FP_ACT_DROP ? 1 : 2);
	}
}

int main(void)
{
	return FILTER_FIXTURE_RUN_ROWS("filter_verdicts", rows, run_row, setup, teardown);
}
