/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The reference matcher against hand-built frames: every term on v4 and v6,
 * VLAN and QinQ, fragments, and every malformed class of the semantics in
 * src/rules/match_ref.h with its defined result. DNS cases are in
 * test_match_ref_dns.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "rules/match_ref.h"
#include "common/pkt.h"
#include "unit/match_ref_util.h"

/* ---- L2 -------------------------------------------------------------------- */

TEST(test_short_frame)
{
	struct pkt b;

	v4_udp(&b, 0, 1000, 80);
	for (size_t n = 0; n < 14; n++) {
		pkt_truncate(&b, n);
		const struct fp_ref_pkt *p = parse(&b);

		assert_int_equal(p->l3, 0);
		assert_int_equal(p->n_vlan, 0);
		assert_false(holds(r_l3(4), &b));
		assert_false(holds(r_len(0, 65535), &b));
	}
	assert_true(holds(r_none(), &b)); /* a rule without terms matches anything */
}

TEST(test_vlan_single)
{
	struct pkt b;
	const struct fp_ref_pkt *p;

	pkt_init(&b);
	pkt_eth(&b, 0);
	pkt_vlan(&b, PKT_ETH_8021Q, 0xe000 | 100); /* PCP 7: VID is the low 12 bits */
	pkt_ipv4(&b, &V4);
	pkt_udp(&b, 1000, 80);
	assert_int_equal(pkt_finish(&b), 0);
	p = parse(&b);
	assert_int_equal(p->n_vlan, 1);
	assert_int_equal(p->vlan[0], 100);
	assert_int_equal(p->l3, 4);
	assert_int_equal(p->dport, 80);
	assert_true(holds(r_vlan(100), &b));
	assert_false(holds(r_vlan(101), &b));
	assert_false(holds(r_vlan(0), &b));

	v4_udp(&b, 0, 1000, 80); /* untagged: vlan never holds, not even vlan 0 */
	assert_false(holds(r_vlan(0), &b));
}

static void qinq(struct pkt *b, uint16_t tpid1, uint16_t tpid2, int ip)
{
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_vlan(b, tpid1, 10);
	pkt_vlan(b, tpid2, 20);
	if (ip == 6)
		pkt_ipv6(b, &V6);
	else
		pkt_ipv4(b, &V4);
	pkt_tcp(b, 1000, 443, PKT_SYN);
	assert_int_equal(pkt_finish(b), 0);
}

TEST(test_vlan_qinq)
{
	static const uint16_t tp[][2] = {
		{ PKT_ETH_8021AD, PKT_ETH_8021Q }, { PKT_ETH_8021Q, PKT_ETH_8021AD },
		{ PKT_ETH_8021Q, PKT_ETH_8021Q }, { PKT_ETH_8021AD, PKT_ETH_8021AD },
	};
	struct pkt b;

	for (size_t i = 0; i < 4; i++) {
		for (int ip = 4; ip <= 6; ip += 2) {
			const struct fp_ref_pkt *p;

			qinq(&b, tp[i][0], tp[i][1], ip);
			p = parse(&b);
			assert_int_equal(p->n_vlan, 2);
			assert_int_equal(p->vlan[0], 10);
			assert_int_equal(p->vlan[1], 20);
			assert_int_equal(p->l3, ip);
			assert_true(holds(r_vlan(10), &b));
			assert_true(holds(r_vlan(20), &b));
			assert_false(holds(r_vlan(30), &b));
			assert_true(holds(r_dport(443, 443), &b));
		}
	}
}

TEST(test_vlan_third_tag)
{
	struct pkt b;
	const struct fp_ref_pkt *p;

	pkt_init(&b);
	pkt_eth(&b, 0);
	pkt_vlan(&b, PKT_ETH_8021AD, 10);
	pkt_vlan(&b, PKT_ETH_8021Q, 20);
	pkt_vlan(&b, PKT_ETH_8021Q, 30);
	pkt_ipv4(&b, &V4);
	pkt_udp(&b, 1000, 80);
	assert_int_equal(pkt_finish(&b), 0);
	p = parse(&b);
	assert_int_equal(p->n_vlan, 2); /* tags 1 and 2 count */
	assert_int_equal(p->l3, 0);     /* no L3 */
	assert_true(holds(r_vlan(20), &b));
	assert_false(holds(r_vlan(30), &b));
	assert_false(holds(r_l3(4), &b));
	assert_false(holds(r_proto(17), &b));
}

TEST(test_vlan_cut_short)
{
	struct pkt b;
	const struct fp_ref_pkt *p;

	qinq(&b, PKT_ETH_8021AD, PKT_ETH_8021Q, 4);
	for (size_t n = 18; n < 22; n++) { /* second tag cut short */
		pkt_truncate(&b, n);
		p = parse(&b);
		assert_int_equal(p->n_vlan, 1);
		assert_int_equal(p->vlan[0], 10);
		assert_int_equal(p->l3, 0);
		assert_true(holds(r_vlan(10), &b));
	}
	pkt_truncate(&b, 17); /* first tag cut short */
	p = parse(&b);
	assert_int_equal(p->n_vlan, 0);
	assert_false(holds(r_vlan(10), &b));
}

TEST(test_other_ethertype)
{
	struct pkt b;
	uint8_t arp[28] = { 0 };

	pkt_init(&b);
	pkt_eth(&b, PKT_ETH_ARP);
	pkt_bytes(&b, arp, sizeof(arp));
	pkt_finish(&b);
	assert_int_equal(parse(&b)->l3, 0);
	assert_false(holds(r_l3(4), &b));
	assert_false(holds(r_ttl(0, 255), &b));
}

/* ---- IPv4 ------------------------------------------------------------------ */

TEST(test_ipv4_fields)
{
	struct pkt b;
	const struct fp_ref_pkt *p;
	const uint8_t src[4] = { 192, 0, 2, 1 }, dst[4] = { 198, 51, 100, 7 };

	v4_udp(&b, 0, 1234, 80);
	p = parse(&b);
	assert_int_equal(p->l3, 4);
	assert_true(p->proto_known);
	assert_int_equal(p->proto, 17);
	assert_int_equal(p->len, 28);
	assert_int_equal(p->ttl, 64);
	assert_memory_equal(p->src, src, 4);
	assert_memory_equal(p->dst, dst, 4);
	assert_false(p->frag);
	assert_true(p->has_ports);
	assert_int_equal(p->sport, 1234);
	assert_int_equal(p->dport, 80);
	assert_false(p->has_tcp_flags);

	assert_true(holds(r_l3(4), &b));
	assert_false(holds(r_l3(6), &b));
	assert_true(holds(r_proto(17), &b));
	assert_false(holds(r_proto(6), &b));
	assert_true(holds(r_len(28, 28), &b));
	assert_true(holds(r_len(0, 28), &b));
	assert_false(holds(r_len(29, 1500), &b));
	assert_true(holds(r_ttl(64, 64), &b));
	assert_false(holds(r_ttl(0, 63), &b));
	assert_false(holds(r_ttl(65, 255), &b));
	assert_true(holds(r_sport(1234, 1234), &b));
	assert_true(holds(r_dport(1, 80), &b));
	assert_false(holds(r_dport(81, 65535), &b));
	assert_false(holds(r_frag(), &b));
	assert_false(holds(r_flags(0, 0), &b)); /* flags need a TCP header */
}

TEST(test_ipv4_cidr)
{
	struct pkt b;

	v4_udp(&b, 0, 1234, 80); /* 192.0.2.1 -> 198.51.100.7 */
	assert_true(holds(r_src("192.0.2.1/32"), &b));
	assert_true(holds(r_src("192.0.2.0/24"), &b));
	assert_true(holds(r_src("192.0.2.0/31"), &b));
	assert_false(holds(r_src("192.0.2.2/31"), &b));
	assert_true(holds(r_src("192.0.0.0/22"), &b));
	assert_false(holds(r_src("192.0.4.0/22"), &b));
	assert_true(holds(r_src("0.0.0.0/0"), &b));
	assert_false(holds(r_src("::/0"), &b)); /* a v6 CIDR never matches v4 */
	assert_true(holds(r_dst("198.51.100.0/25"), &b));
	assert_false(holds(r_dst("198.51.100.128/25"), &b));
	assert_false(holds(r_dst("192.0.2.1/32"), &b));
}

TEST(test_ipv4_options)
{
	static const uint8_t opt[] = { 0x94, 0x04, 0, 0, 1, 1, 1, 0 }; /* router alert, nops */
	struct pkt b;
	struct pkt_ipv4_opts o = V4;
	const struct fp_ref_pkt *p;

	o.options = opt;
	o.options_len = sizeof(opt);
	pkt_init(&b);
	pkt_eth(&b, 0);
	pkt_ipv4(&b, &o);
	pkt_tcp(&b, 5555, 22, PKT_SYN);
	assert_int_equal(pkt_finish(&b), 0);
	p = parse(&b);
	assert_int_equal(p->l3, 4);
	assert_int_equal(p->len, 20 + 8 + 20);
	assert_int_equal(p->sport, 5555); /* read after the options */
	assert_int_equal(p->dport, 22);
	assert_true(holds(r_flags(FP_TCP_SYN | FP_TCP_ACK, FP_TCP_SYN), &b));

	/* options cut short: IHL*4 bytes are not in the frame -> no IPv4 at all */
	pkt_truncate(&b, 14 + 24);
	p = parse(&b);
	assert_int_equal(p->l3, 0);
	assert_false(holds(r_l3(4), &b));
	assert_false(holds(r_proto(6), &b));
}

TEST(test_ipv4_malformed)
{
	struct pkt b;

	for (uint8_t ihl = 0; ihl < 5; ihl++) { /* IHL < 5 */
		v4_udp(&b, 0, 1234, 53);
		pkt_set8(&b, b.l3, (uint8_t)(0x40 | ihl));
		assert_int_equal(parse(&b)->l3, 0);
		assert_false(holds(r_l3(4), &b));
		assert_false(holds(r_proto(17), &b));
		assert_false(holds(r_len(0, 65535), &b));
	}
	for (uint8_t v = 0; v < 16; v++) { /* version != 4 */
		if (v == 4)
			continue;
		v4_udp(&b, 0, 1234, 53);
		pkt_set8(&b, b.l3, (uint8_t)(v << 4 | 5));
		assert_int_equal(parse(&b)->l3, 0);
		assert_false(holds(r_ttl(0, 255), &b));
	}
	for (uint16_t tot = 0; tot < 20; tot++) { /* total length < header */
		v4_udp(&b, 0, 1234, 53);
		pkt_set16(&b, b.l3 + 2, tot);
		assert_int_equal(parse(&b)->l3, 0);
		assert_false(holds(r_l3(4), &b));
	}
	v4_udp(&b, 0, 1234, 53); /* fewer than 20 bytes of IPv4 */
	pkt_truncate(&b, 14 + 19);
	assert_int_equal(parse(&b)->l3, 0);
	v4_udp(&b, 0, 1234, 53); /* IHL beyond the frame */
	pkt_set8(&b, b.l3, 0x4f);
	pkt_set16(&b, b.l3 + 2, 60);
	assert_int_equal(parse(&b)->l3, 0);
}

/* Ethernet padding after a short total length is never read as a header. */
TEST(test_ipv4_total_length)
{
	struct pkt b;
	const struct fp_ref_pkt *p;

	v4_udp(&b, 0, 1234, 80);
	pkt_set16(&b, b.l3 + 2, 20); /* header only: the UDP bytes are padding */
	p = parse(&b);
	assert_int_equal(p->l3, 4);
	assert_int_equal(p->len, 20);
	assert_true(holds(r_proto(17), &b)); /* proto terms look at the number only */
	assert_false(p->has_ports);
	assert_false(holds(r_dport(80, 80), &b));

	v4_udp(&b, 0, 1234, 80);
	pkt_set16(&b, b.l3 + 2, 27); /* one byte of UDP missing */
	assert_false(parse(&b)->has_ports);

	pkt_init(&b); /* header-only datagram, then padding that looks like UDP */
	pkt_eth(&b, 0);
	pkt_ipv4(&b, &(struct pkt_ipv4_opts){ .src = "10.0.0.1", .dst = "10.0.0.2", .proto = 17 });
	pkt_finish(&b);
	pkt_pad(&b, 26, 0);
	pkt_set16(&b, 34 + 2, 53);
	p = parse(&b);
	assert_int_equal(p->len, 20);
	assert_false(p->has_ports);

	v4_udp(&b, 0, 1234, 80); /* total length beyond the frame: frame end bounds */
	pkt_set16(&b, b.l3 + 2, 1500);
	p = parse(&b);
	assert_int_equal(p->len, 1500);
	assert_true(p->has_ports);
	assert_true(holds(r_len(1500, 1500), &b));
}

static void v4_frag(struct pkt *b, uint16_t off, bool mf, bool df)
{
	struct pkt_ipv4_opts o = V4;

	o.frag_off = off;
	o.mf = mf;
	o.df = df;
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv4(b, &o);
	pkt_udp(b, 1234, 53);
	pkt_dns_query(b, "www.example.com", 1);
	assert_int_equal(pkt_finish(b), 0);
}

TEST(test_ipv4_fragments)
{
	struct pkt b;
	const struct fp_ref_pkt *p;

	v4_frag(&b, 0, true, false); /* first fragment: L4 and DNS are there */
	p = parse(&b);
	assert_true(p->frag);
	assert_true(p->has_ports);
	assert_true(p->has_dns);
	assert_true(holds(r_frag(), &b));
	assert_true(holds(r_dport(53, 53), &b));
	assert_true(holds(r_qname("www.example.com"), &b));

	for (int mf = 0; mf <= 1; mf++) { /* non-first: proto, no ports, no DNS */
		v4_frag(&b, 185, mf, false);
		p = parse(&b);
		assert_true(p->frag);
		assert_true(holds(r_frag(), &b));
		assert_true(holds(r_proto(17), &b));
		assert_false(p->has_ports);
		assert_false(holds(r_dport(53, 53), &b));
		assert_false(holds(r_qname("www.example.com"), &b));
		assert_false(holds(r_qtype(1), &b));
	}

	v4_frag(&b, 0, false, true); /* DF alone is no fragment */
	assert_false(parse(&b)->frag);
	assert_false(holds(r_frag(), &b));

	v4_frag(&b, 0, true, false); /* frag needs a valid L3 */
	pkt_set8(&b, b.l3, 0x44);
	assert_false(holds(r_frag(), &b));
}

/* ---- L4 --------------------------------------------------------------------- */

TEST(test_tcp)
{
	struct pkt b;
	const struct fp_ref_pkt *p;
	static const uint8_t mss[] = { 2, 4, 5, 0xb4, 1, 3, 3, 7 };

	for (int ip = 4; ip <= 6; ip += 2) {
		v_tcp(&b, ip, PKT_SYN);
		p = parse(&b);
		assert_true(p->has_tcp_flags);
		assert_int_equal(p->tcp_flags, PKT_SYN);
		assert_true(holds(r_proto(6), &b));
		assert_true(holds(r_flags(FP_TCP_SYN | FP_TCP_ACK, FP_TCP_SYN), &b)); /* syn,!ack */
		assert_true(holds(r_flags(FP_TCP_SYN, FP_TCP_SYN), &b));
		assert_false(holds(r_flags(FP_TCP_ACK, FP_TCP_ACK), &b));
		assert_true(holds(r_sport(40000, 40000), &b));
		assert_true(holds(r_dport(443, 443), &b));

		v_tcp(&b, ip, PKT_SYN | PKT_ACK);
		assert_false(holds(r_flags(FP_TCP_SYN | FP_TCP_ACK, FP_TCP_SYN), &b));
		assert_true(holds(r_flags(FP_TCP_SYN | FP_TCP_ACK, FP_TCP_SYN | FP_TCP_ACK), &b));
		assert_true(holds(r_flags(0xff, PKT_SYN | PKT_ACK), &b));
	}

	pkt_init(&b); /* options: data offset 7 */
	pkt_eth(&b, 0);
	pkt_ipv4(&b, &V4);
	pkt_tcp_ex(&b, &(struct pkt_tcp_opts){ .sport = 1, .dport = 2, .flags = PKT_RST,
					      .options = mss, .options_len = sizeof(mss) });
	pkt_finish(&b);
	p = parse(&b);
	assert_true(p->has_tcp_flags);
	assert_int_equal(p->tcp_flags, PKT_RST);
	pkt_truncate(&b, b.len - 1); /* options cut short: no TCP header */
	p = parse(&b);
	assert_false(p->has_ports);
	assert_false(p->has_tcp_flags);
	assert_true(holds(r_proto(6), &b));
}

TEST(test_tcp_malformed)
{
	struct pkt b;

	for (uint8_t doff = 0; doff < 5; doff++) { /* data offset < 5 */
		v_tcp(&b, 4, PKT_SYN);
		pkt_set8(&b, b.l4 + 12, (uint8_t)(doff << 4));
		assert_false(parse(&b)->has_ports);
		assert_false(holds(r_flags(0, 0), &b));
		assert_false(holds(r_dport(0, 65535), &b));
		assert_true(holds(r_proto(6), &b));
	}
	v_tcp(&b, 6, PKT_SYN); /* data offset beyond the datagram */
	pkt_set8(&b, b.l4 + 12, 6 << 4);
	pkt_pad(&b, 8, 0); /* padding does not complete it */
	assert_false(parse(&b)->has_tcp_flags);
	for (size_t cut = 1; cut < 20; cut++) { /* header cut short */
		v_tcp(&b, 4, PKT_SYN);
		pkt_truncate(&b, (size_t)b.l4 + cut);
		assert_false(parse(&b)->has_ports);
		assert_true(holds(r_proto(6), &b));
		assert_true(holds(r_l3(4), &b));
	}
}

TEST(test_udp_cut_short)
{
	struct pkt b;

	for (int ip = 4; ip <= 6; ip += 2) {
		if (ip == 4)
			v4_udp(&b, 0, 1, 2);
		else
			v6_udp(&b, 1, 2);
		pkt_truncate(&b, b.len - 1);
		assert_false(parse(&b)->has_ports);
		assert_true(holds(r_proto(17), &b));
		assert_false(holds(r_sport(1, 1), &b));
	}
}

TEST(test_icmp)
{
	struct pkt b;

	pkt_init(&b);
	pkt_eth(&b, 0);
	pkt_ipv4(&b, &V4);
	pkt_icmp(&b, 8, 0);
	pkt_finish(&b);
	assert_true(holds(r_proto(1), &b));
	assert_false(holds(r_proto(58), &b));
	assert_false(parse(&b)->has_ports);
	assert_false(holds(r_sport(0, 65535), &b)); /* other protocols: no ports */

	pkt_init(&b);
	pkt_eth(&b, 0);
	pkt_ipv6(&b, &V6);
	pkt_icmp6(&b, 128, 0);
	pkt_finish(&b);
	assert_true(holds(r_proto(58), &b));
	assert_true(holds(r_l3(6), &b));
	assert_false(holds(r_proto(1), &b));
	assert_false(holds(r_dport(0, 65535), &b));
}

/* ---- rule sets ------------------------------------------------------------------ */

TEST(test_classify_first_match)
{
	struct fp_rule rules[3] = { r_dport(22, 22), r_l3(4), r_proto(17) };
	struct fp_ruleset set = { .default_action = FP_ACT_PASS, .n = 3, .rules = rules };
	struct pkt b;

	v4_udp(&b, 0, 1, 22);
	assert_int_equal(fp_ref__classify(&set, b.buf, b.len), 0);
	v4_udp(&b, 0, 1, 23);
	assert_int_equal(fp_ref__classify(&set, b.buf, b.len), 1);
	v6_udp(&b, 1, 23);
	assert_int_equal(fp_ref__classify(&set, b.buf, b.len), 2);
	v_tcp(&b, 6, PKT_ACK);
	assert_int_equal(fp_ref__classify(&set, b.buf, b.len), -1);
	set.n = 0;
	assert_int_equal(fp_ref__classify(&set, b.buf, b.len), -1);

	/* all terms must hold (AND) */
	struct fp_rule both = r_l3(4);
	both.terms |= FP_T_DPORT;
	both.dport = r_dport(22, 22).dport;
	v4_udp(&b, 0, 1, 22);
	assert_true(holds(both, &b));
	v4_udp(&b, 0, 1, 23);
	assert_false(holds(both, &b));
}

TEST(test_portset_lists)
{
	struct fp_rule r = r_dport(10, 20);
	struct pkt b;

	r.dport.r[1] = (struct fp_range){ 53, 53 };
	r.dport.r[2] = (struct fp_range){ 1000, 2000 };
	r.dport.n = 3;
	for (unsigned port = 0; port < 3000; port += 7) {
		bool want = (port >= 10 && port <= 20) || port == 53 || (port >= 1000 && port <= 2000);

		v4_udp(&b, 0, 1, (uint16_t)port);
		assert_int_equal(holds(r, &b), want);
	}
	v4_udp(&b, 0, 1, 53);
	assert_true(holds(r, &b));
	v4_udp(&b, 0, 1, 2000);
	assert_true(holds(r, &b));
	v4_udp(&b, 0, 1, 2001);
	assert_false(holds(r, &b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_frame),
		cmocka_unit_test(test_vlan_single),
		cmocka_unit_test(test_vlan_qinq),
		cmocka_unit_test(test_vlan_third_tag),
		cmocka_unit_test(test_vlan_cut_short),
		cmocka_unit_test(test_other_ethertype),
		cmocka_unit_test(test_ipv4_fields),
		cmocka_unit_test(test_ipv4_cidr),
		cmocka_unit_test(test_ipv4_options),
		cmocka_unit_test(test_ipv4_malformed),
		cmocka_unit_test(test_ipv4_total_length),
		cmocka_unit_test(test_ipv4_fragments),
		cmocka_unit_test(test_tcp),
		cmocka_unit_test(test_tcp_malformed),
		cmocka_unit_test(test_udp_cut_short),
		cmocka_unit_test(test_icmp),
		cmocka_unit_test(test_classify_first_match),
		cmocka_unit_test(test_portset_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
