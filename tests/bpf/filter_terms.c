// SPDX-License-Identifier: BSD-2-Clause
/*
 * The terms that close ways around the filter, each row with its own small
 * rule set: undetermined-transport (an IPv6 extension chain the parser
 * gives up on) and how fragments and protocols behave on such packets;
 * ether TYPE, which lets a `default drop` set pass ARP.
 * Each row runs the real pipeline (BPF_PROG_TEST_RUN, the attached program
 * and the entry + stage slot) and the reference matcher; both must give the
 * row's rule and verdict. FP_CASE=name runs one row.
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

enum { XDP_DROP_ = 1, XDP_PASS_ = 2 };

/* `drop udp dport 9999` alone: what an operator had before the term */
static const char PORT_ONLY[] = "drop udp dport 9999 id port\n";
/* ... and with the rule that closes the bypass */
static const char WITH_UNDET[] =
	"drop udp dport 9999 id port\n"
	"drop ip6 undetermined-transport id v6-undetermined\n";
/* frag and protocol terms on undetermined packets */
static const char FRAG_UNDET[] =
	"drop frag undetermined-transport id frag-undet\n"
	"drop udp frag id udp-frag\n"
	"pass undetermined-transport id undet\n"
	"drop ip6 id ip6\n";

/* default drop: without a rule for it ARP is dropped and IPv4 dies with it */
static const char DROP_PING[] =
	"pass icmp id ping\n"
	"default drop\n";
static const char DROP_PING_ARP[] =
	"pass ether arp id arp\n"
	"pass icmp id ping\n"
	"default drop\n";
/* ether ip holds on a broken IPv4 header, where ip does not */
static const char ETHER_IP[] =
	"drop ip id ip\n"
	"drop ether ip id ether-ip\n"
	"pass ether 0x88cc vlan 100 id lldp-vlan\n"
	"drop ether 0x88cc id lldp\n";

struct row {
	const char *name;
	const char *rules;
	void (*build)(struct pkt *b);
	const char *rule; /* expected deciding rule id, NULL = default */
	int verdict;      /* XDP_DROP_ or XDP_PASS_ */
};

#define V6() pkt_ipv6(b, &(struct pkt_ipv6_opts){ .src = "2001:db8:1::1", .dst = "2001:db8:2::2", \
				.hop_limit = 64 })

static void dest_opts(struct pkt *b, int n)
{
	for (int i = 0; i < n; i++)
		pkt_ipv6_ext(b, PKT_IP6_DEST, 0);
}

static void v6_9dest_udp(struct pkt *b) { pkt_eth(b, 0); V6(); dest_opts(b, 9); pkt_udp(b, 1, 9999); }
static void v6_8dest_udp(struct pkt *b) { pkt_eth(b, 0); V6(); dest_opts(b, 8); pkt_udp(b, 1, 9999); }
/* a hop-by-hop header whose length byte says 32 bytes, with 8 in the datagram */
static void v6_ext_cut(struct pkt *b) { pkt_eth(b, 0); V6(); pkt_ipv6_ext(b, PKT_IP6_HOP, 0); pkt_finish(b); pkt_set8(b, b->l3 + 41, 3); }
/* a routing header cut by the frame's end */
static void v6_ext_truncated(struct pkt *b) { pkt_eth(b, 0); V6(); pkt_ipv6_ext(b, PKT_IP6_ROUTE, 2); pkt_udp(b, 1, 9999); pkt_finish(b); pkt_truncate(b, b->l3 + 40 + 12); }
/* a later fragment: its header names UDP, so the protocol is known */
static void v6_later_frag(struct pkt *b) { pkt_eth(b, 0); V6(); pkt_ipv6_frag(b, 10, false, 1); pkt_next(b, 17); pkt_bytes(b, "\x00\x07\x27\x0f\x00\x10\x00\x00", 8); }
/* a first fragment (M set) and then too many headers: frag and undetermined */
static void v6_first_frag_9(struct pkt *b) { pkt_eth(b, 0); V6(); pkt_ipv6_frag(b, 0, true, 1); dest_opts(b, 8); pkt_udp(b, 1, 9999); }
/* the fragment header as the 9th: the walk stops before it, no frag */
static void v6_frag_as_9th(struct pkt *b) { pkt_eth(b, 0); V6(); dest_opts(b, 8); pkt_ipv6_frag(b, 10, true, 1); pkt_next(b, 17); pkt_bytes(b, "\x00\x07\x27\x0f\x00\x10\x00\x00", 8); }
static void v6_no_next(struct pkt *b) { pkt_eth(b, 0); V6(); dest_opts(b, 2); }
static void v4_udp(struct pkt *b) { pkt_eth(b, 0); pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "192.0.2.1", .dst = "198.51.100.1", .ttl = 64 }); pkt_udp(b, 1, 9999); }

static void arp_req(struct pkt *b) { pkt_eth(b, PKT_ETH_ARP); pkt_bytes(b, "\0\1\x08\0\6\4\0\1\2\0\0\0\0\1\xc0\0\2\1\0\0\0\0\0\0\xc0\0\2\2", 28); }
static void arp_vlan(struct pkt *b) { pkt_eth(b, 0); pkt_vlan(b, PKT_ETH_8021Q, 100); pkt_next(b, PKT_ETH_ARP); pkt_bytes(b, "\0\1\x08\0\6\4\0\1", 8); }
static void ping4(struct pkt *b) { pkt_eth(b, 0); pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "192.0.2.1", .dst = "198.51.100.1", .ttl = 64 }); pkt_icmp(b, 8, 0); }
static void v4_bad_ihl(struct pkt *b) { pkt_eth(b, 0); pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "192.0.2.1", .dst = "198.51.100.1", .ttl = 64, .ihl = 4 }); pkt_udp(b, 1, 2); }
static void lldp(struct pkt *b) { pkt_eth(b, 0x88cc); pkt_bytes(b, "\x02\x07\x04\0\0\0\0\0\1", 9); }
static void lldp_vlan(struct pkt *b) { pkt_eth(b, 0); pkt_vlan(b, PKT_ETH_8021AD, 100); pkt_vlan(b, PKT_ETH_8021Q, 5); pkt_next(b, 0x88cc); pkt_bytes(b, "\x02\x07\x04\0", 4); }
static void three_tags_lldp(struct pkt *b) { pkt_eth(b, 0); pkt_vlan(b, PKT_ETH_8021AD, 100); pkt_vlan(b, PKT_ETH_8021Q, 5); pkt_vlan(b, PKT_ETH_8021Q, 6); pkt_next(b, 0x88cc); pkt_bytes(b, "\x02\x07\x04\0", 4); }

static const struct row rows[] = {
	{ "9 dest-opts then udp 9999 pass a port rule", PORT_ONLY, v6_9dest_udp, NULL, XDP_PASS_ },
	{ "9 dest-opts then udp 9999: undetermined", WITH_UNDET, v6_9dest_udp, "v6-undetermined", XDP_DROP_ },
	{ "8 dest-opts then udp 9999: the port rule", WITH_UNDET, v6_8dest_udp, "port", XDP_DROP_ },
	{ "extension header longer than the datagram", WITH_UNDET, v6_ext_cut, "v6-undetermined", XDP_DROP_ },
	{ "extension header cut by the frame", WITH_UNDET, v6_ext_truncated, "v6-undetermined", XDP_DROP_ },
	{ "later fragment is not undetermined", WITH_UNDET, v6_later_frag, NULL, XDP_PASS_ },
	{ "no next header (59) is a protocol", WITH_UNDET, v6_no_next, NULL, XDP_PASS_ },
	{ "ipv4 is never undetermined", WITH_UNDET, v4_udp, "port", XDP_DROP_ },
	{ "first fragment, then too many: frag holds", FRAG_UNDET, v6_first_frag_9, "frag-undet", XDP_DROP_ },
	{ "later fragment: protocol and frag, not undetermined", FRAG_UNDET, v6_later_frag, "udp-frag", XDP_DROP_ },
	{ "fragment header past the 8th: no frag", FRAG_UNDET, v6_frag_as_9th, "undet", XDP_PASS_ },
	{ "default drop drops ARP", DROP_PING, arp_req, NULL, XDP_DROP_ },
	{ "default drop: pass ether arp passes ARP", DROP_PING_ARP, arp_req, "arp", XDP_PASS_ },
	{ "pass ether arp: ARP after a VLAN tag", DROP_PING_ARP, arp_vlan, "arp", XDP_PASS_ },
	{ "pass ether arp: ping still by its rule", DROP_PING_ARP, ping4, "ping", XDP_PASS_ },
	{ "ether ip holds on a broken IPv4 header", ETHER_IP, v4_bad_ihl, "ether-ip", XDP_DROP_ },
	{ "ip first on a valid one", ETHER_IP, ping4, "ip", XDP_DROP_ },
	{ "ether lldp", ETHER_IP, lldp, "lldp", XDP_DROP_ },
	{ "ether lldp with vlan: either tag", ETHER_IP, lldp_vlan, "lldp-vlan", XDP_PASS_ },
	{ "a third tag: no ethertype", ETHER_IP, three_tags_lldp, NULL, XDP_PASS_ },
};

static struct fp_filter *filter;

static int setup(void **state)
{
	char err[512];

	if (geteuid() != 0)
		return 0;
	if (fp_filter__open_test(&filter, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	fp_filter__close(filter);
	return 0;
}

static const char *id_of(const struct fp_ruleset *set, long idx)
{
	return idx >= 0 && (size_t)idx < set->n ? set->rules[idx].id : NULL;
}

static int same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void run_row(void **state)
{
	const struct row *r = *state;
	struct fp_ruleset set;
	struct fp_diags d = { 0 };
	uint32_t verdict, rule, sv, srule;
	const char *got_ref, *got_xdp, *got_staged;
	char err[512];
	struct pkt b;

	if (!filter)
		skip();
	if (fp_ruleset__parse(r->rules, strlen(r->rules), &set, &d))
		fail_msg("%s: rules: %s", r->name, d.n && d.cap ? d.v[0].msg : "?");
	if (fp_filter__apply(filter, &set, err, sizeof(err)))
		fail_msg("%s: apply: %s", r->name, err);
	pkt_init(&b);
	r->build(&b);
	if (!b.finished)
		assert_int_equal(pkt_finish(&b), 0);
	assert_int_equal(fp_filter__run(filter, b.buf, b.len, &verdict, &rule), 0);
	assert_int_equal(fp_filter__run_staged(filter, b.buf, b.len, &sv, &srule), 0);
	got_xdp = rule == FP_FLT_NO_RULE ? NULL : id_of(&set, rule);
	got_staged = srule == FP_FLT_NO_RULE ? NULL : id_of(&set, srule);
	got_ref = id_of(&set, fp_ref__classify(&set, b.buf, b.len));
	if (!same(got_xdp, r->rule) || !same(got_staged, r->rule) || !same(got_ref, r->rule) ||
	    verdict != (uint32_t)r->verdict || sv != (uint32_t)r->verdict) {
		fprintf(stderr, "%s: want %s (verdict %d), xdp %s (%u), staged %s (%u), "
			"reference %s\n", r->name, r->rule ?: "(default)", r->verdict,
			got_xdp ?: "(default)", verdict, got_staged ?: "(default)", sv,
			got_ref ?: "(default)");
		pkt_hexdump(stderr, b.buf, b.len);
		fp_ruleset__free(&set);
		fail();
	}
	fp_ruleset__free(&set);
}

int main(void)
{
	return FILTER_FIXTURE_RUN_ROWS("filter_terms", rows, run_row, setup, teardown);
}
