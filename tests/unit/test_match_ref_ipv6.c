/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The reference matcher on IPv6: fields, CIDRs, extension header chains,
 * fragments and every malformed class of src/rules/match_ref.h.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "rules/match_ref.h"
#include "common/pkt.h"
#include "unit/match_ref_util.h"

TEST(test_ipv6_fields)
{
	struct pkt b;
	const struct fp_ref_pkt *p;
	uint8_t src[16], dst[16];

	inet_pton(AF_INET6, "2001:db8::1", src);
	inet_pton(AF_INET6, "2001:db8:1::5", dst);
	v6_udp(&b, 1234, 80);
	p = parse(&b);
	assert_int_equal(p->l3, 6);
	assert_true(p->proto_known);
	assert_int_equal(p->proto, 17);
	assert_int_equal(p->len, 48); /* payload length + 40 */
	assert_int_equal(p->ttl, 64); /* hop limit */
	assert_memory_equal(p->src, src, 16);
	assert_memory_equal(p->dst, dst, 16);
	assert_false(p->frag);
	assert_true(p->has_ports);

	assert_true(holds(r_l3(6), &b));
	assert_false(holds(r_l3(4), &b));
	assert_true(holds(r_proto(17), &b));
	assert_true(holds(r_len(48, 48), &b));
	assert_false(holds(r_len(8, 8), &b));
	assert_true(holds(r_ttl(64, 64), &b));
	assert_false(holds(r_ttl(65, 255), &b));
	assert_true(holds(r_sport(1234, 1234), &b));
	assert_true(holds(r_dport(80, 80), &b));
	assert_false(holds(r_frag(), &b));
}

TEST(test_ipv6_cidr)
{
	struct pkt b;

	v6_udp(&b, 1234, 80); /* 2001:db8::1 -> 2001:db8:1::5 */
	assert_true(holds(r_src("2001:db8::1/128"), &b));
	assert_false(holds(r_src("2001:db8::2/128"), &b));
	assert_true(holds(r_src("2001:db8::/32"), &b));
	assert_true(holds(r_src("2001:db8::/127"), &b));
	assert_true(holds(r_src("::/0"), &b));
	assert_false(holds(r_src("0.0.0.0/0"), &b)); /* a v4 CIDR never matches v6 */
	assert_true(holds(r_dst("2001:db8:1::/48"), &b));
	assert_true(holds(r_dst("2001:db8::/47"), &b));
	assert_false(holds(r_dst("2001:db8:2::/47"), &b));
	assert_false(holds(r_dst("2001:db8::/48"), &b));
	assert_true(holds(r_dst("2001:db8:1::4/126"), &b));
	assert_true(holds(r_dst("2001:db8:1::4/127"), &b));
	assert_false(holds(r_dst("2001:db8:1::6/127"), &b));
}

TEST(test_ipv6_malformed)
{
	struct pkt b;

	for (uint8_t v = 0; v < 16; v++) { /* version != 6 */
		if (v == 6)
			continue;
		v6_udp(&b, 1, 2);
		pkt_set8(&b, b.l3, (uint8_t)(v << 4));
		assert_int_equal(parse(&b)->l3, 0);
		assert_false(holds(r_l3(6), &b));
		assert_false(holds(r_proto(17), &b));
	}
	v6_udp(&b, 1, 2); /* fewer than 40 bytes */
	pkt_truncate(&b, 14 + 39);
	assert_int_equal(parse(&b)->l3, 0);
	assert_false(holds(r_l3(6), &b));

	v6_udp(&b, 1, 2); /* payload length 0: UDP is padding */
	pkt_set16(&b, b.l3 + 4, 0);
	assert_int_equal(parse(&b)->l3, 6);
	assert_int_equal(parse(&b)->len, 40);
	assert_true(holds(r_proto(17), &b));
	assert_false(parse(&b)->has_ports);
	pkt_set16(&b, b.l3 + 4, 7);
	assert_false(parse(&b)->has_ports);

	v6_udp(&b, 1, 2); /* payload length beyond the frame: frame end bounds */
	pkt_set16(&b, b.l3 + 4, 1000);
	assert_true(parse(&b)->has_ports);
	assert_true(holds(r_len(1040, 1040), &b));
}

/* IPv6 + n extension headers of the given kinds (cycled) + UDP 1 -> 53. */
static void v6_ext(struct pkt *b, unsigned n, const uint8_t *kinds, size_t nk)
{
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv6(b, &V6);
	for (unsigned i = 0; i < n; i++) {
		if (kinds[i % nk] == PKT_IP6_FRAG)
			pkt_ipv6_frag(b, 0, false, i);
		else
			pkt_ipv6_ext(b, kinds[i % nk], (uint8_t)(i % 3));
	}
	pkt_udp(b, 1, 53);
	pkt_dns_query(b, "www.example.com", 28);
	assert_int_equal(pkt_finish(b), 0);
}

TEST(test_ipv6_ext_chain)
{
	static const uint8_t kinds[] = { PKT_IP6_HOP, PKT_IP6_ROUTE, PKT_IP6_DEST, PKT_IP6_FRAG };
	struct pkt b;
	const struct fp_ref_pkt *p;

	for (unsigned n = 0; n <= 8; n++) { /* up to 8: the walk reaches UDP */
		v6_ext(&b, n, kinds, 4);
		p = parse(&b);
		assert_true(p->proto_known);
		assert_int_equal(p->proto, 17);
		assert_true(p->has_ports);
		assert_true(p->has_dns);
		assert_false(p->frag); /* fragment headers with offset 0, M 0 */
		assert_true(holds(r_proto(17), &b));
		assert_true(holds(r_qtype(28), &b));
	}
	for (unsigned n = 9; n <= 12; n++) { /* more than 8: upper layer unknown */
		v6_ext(&b, n, kinds, 4);
		p = parse(&b);
		assert_int_equal(p->l3, 6);
		assert_false(p->proto_known);
		assert_false(p->has_ports);
		assert_true(holds(r_l3(6), &b));
		assert_false(holds(r_proto(17), &b));
		assert_false(holds(r_dport(53, 53), &b));
		assert_false(holds(r_qname("www.example.com"), &b));
		assert_true(holds(r_len(0, 65535), &b));
	}
	/* proto terms see the next header after the chain, never an ext header */
	v6_ext(&b, 2, kinds, 4);
	assert_false(holds(r_proto(0), &b));
	assert_false(holds(r_proto(43), &b));
}

TEST(test_ipv6_ext_truncated)
{
	static const uint8_t hop[] = { PKT_IP6_HOP };
	struct pkt b;
	size_t ext = 14 + 40;

	v6_ext(&b, 1, hop, 1); /* hop-by-hop of 8 bytes */
	for (size_t cut = ext; cut < ext + 8; cut++) {
		v6_ext(&b, 1, hop, 1);
		pkt_truncate(&b, cut);
		assert_int_equal(parse(&b)->l3, 6);
		assert_false(parse(&b)->proto_known);
		assert_false(holds(r_proto(17), &b));
	}
	v6_ext(&b, 1, hop, 1); /* hdrlen beyond the datagram */
	pkt_set8(&b, ext + 1, 200);
	assert_false(parse(&b)->proto_known);

	v6_ext(&b, 1, hop, 1); /* whole in the frame, but past the payload length */
	pkt_set16(&b, b.l3 + 4, 4);
	assert_false(parse(&b)->proto_known);
	assert_false(holds(r_proto(17), &b));

	v6_ext(&b, 0, hop, 1); /* next header says hop-by-hop, nothing follows */
	pkt_truncate(&b, ext);
	pkt_set8(&b, b.l3 + 6, PKT_IP6_HOP);
	pkt_set16(&b, b.l3 + 4, 0);
	assert_false(parse(&b)->proto_known);

	pkt_init(&b); /* no next header (59): a known proto, no L4 */
	pkt_eth(&b, 0);
	pkt_ipv6(&b, &V6);
	pkt_finish(&b);
	assert_true(holds(r_proto(59), &b));
	assert_false(parse(&b)->has_ports);
}

static void v6_frag(struct pkt *b, uint16_t off, bool more)
{
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv6(b, &V6);
	pkt_ipv6_ext(b, PKT_IP6_HOP, 0);
	pkt_ipv6_frag(b, off, more, 77);
	pkt_udp(b, 1, 53);
	pkt_dns_query(b, "a.example.com", 1);
	assert_int_equal(pkt_finish(b), 0);
}

TEST(test_ipv6_fragments)
{
	struct pkt b;
	const struct fp_ref_pkt *p;

	v6_frag(&b, 0, true); /* first fragment: the walk goes on */
	p = parse(&b);
	assert_true(p->frag);
	assert_true(p->has_ports);
	assert_true(p->has_dns);
	assert_true(holds(r_frag(), &b));
	assert_true(holds(r_qname("*.example.com"), &b));

	for (int m = 0; m <= 1; m++) { /* non-first: proto from the frag header */
		v6_frag(&b, 100, m);
		p = parse(&b);
		assert_true(p->frag);
		assert_true(p->proto_known);
		assert_int_equal(p->proto, 17);
		assert_false(p->has_ports);
		assert_false(p->has_dns);
		assert_true(holds(r_proto(17), &b));
		assert_false(holds(r_dport(53, 53), &b));
		assert_false(holds(r_qname("*.example.com"), &b));
	}

	v6_frag(&b, 0, false); /* atomic fragment (offset 0, M 0): not frag */
	p = parse(&b);
	assert_false(p->frag);
	assert_true(p->has_ports);

	v6_frag(&b, 0, true); /* fragment header cut short */
	pkt_truncate(&b, 14 + 40 + 8 + 7);
	p = parse(&b);
	assert_false(p->frag);
	assert_false(p->proto_known);
	assert_true(holds(r_l3(6), &b));
	assert_false(holds(r_frag(), &b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv6_fields),
		cmocka_unit_test(test_ipv6_cidr),
		cmocka_unit_test(test_ipv6_malformed),
		cmocka_unit_test(test_ipv6_ext_chain),
		cmocka_unit_test(test_ipv6_ext_truncated),
		cmocka_unit_test(test_ipv6_fragments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
