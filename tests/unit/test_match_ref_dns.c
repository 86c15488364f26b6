/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The reference matcher's DNS semantics (src/rules/match_ref.h, "DNS"):
 * qname and qtype on v4 and v6, case, wildcards, and every class of
 * question that is not readable.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "rules/match_ref.h"
#include "common/pkt.h"
#include "unit/match_ref_util.h"

/* Ethernet / IPv4 or IPv6 / UDP 40000 -> 53 / the DNS message of o. */
static void dns(struct pkt *b, int ip, const struct pkt_dns_opts *o)
{
	pkt_init(b);
	pkt_eth(b, 0);
	if (ip == 6)
		pkt_ipv6(b, &V6);
	else
		pkt_ipv4(b, &V4);
	pkt_udp(b, 40000, 53);
	pkt_dns(b, o);
	assert_int_equal(pkt_finish(b), 0);
}

static void query(struct pkt *b, int ip, const char *name, uint16_t qtype)
{
	dns(b, ip, &(struct pkt_dns_opts){ .name = name, .qtype = qtype, .flags = 0x0100 });
}

/* A name of exactly `wire_len` bytes on the wire (labels of up to 63 bytes). */
static size_t name_of_len(char *out, size_t wire_len)
{
	size_t text = 0, left = wire_len - 1; /* bytes before the root */

	while (left) {
		size_t lab = left - 1 > 63 ? 63 : left - 1;

		if (left - 1 - lab == 1)
			lab--; /* never leave a remainder of one byte (a label needs 2) */
		memset(out + text, 'a', lab);
		text += lab;
		out[text++] = '.';
		left -= lab + 1;
	}
	out[text ? text - 1 : 0] = 0;
	return text;
}

TEST(test_qname_exact)
{
	struct pkt b;

	for (int ip = 4; ip <= 6; ip += 2) {
		const struct fp_ref_pkt *p;
		static const uint8_t wire[] = "\3www\7example\3com";

		query(&b, ip, "www.example.com", 1);
		p = parse(&b);
		assert_true(p->has_dns);
		assert_int_equal(p->qname_len, 17);
		assert_memory_equal(p->qname, wire, 17);
		assert_int_equal(p->qtype, 1);
		assert_true(holds(r_qname("www.example.com"), &b));
		assert_false(holds(r_qname("example.com"), &b));
		assert_false(holds(r_qname("www.example.co"), &b));
		assert_false(holds(r_qname("ww.example.com"), &b));
		assert_true(holds(r_qtype(1), &b));
		assert_false(holds(r_qtype(28), &b));

		query(&b, ip, "www.example.com.", 255); /* trailing dot: same name */
		assert_true(holds(r_qname("www.example.com"), &b));
		assert_true(holds(r_qtype(255), &b));
	}
}

TEST(test_qname_case)
{
	struct pkt b;
	const struct fp_ref_pkt *p;

	query(&b, 4, "WwW.EXAMPLE.Com", 28); /* uppercase name, lowercase pattern */
	p = parse(&b);
	assert_memory_equal(p->qname, "\3www\7example\3com", 17); /* lowered */
	assert_true(holds(r_qname("www.example.com"), &b));
	assert_true(holds(r_qname("*.example.com"), &b));

	/* only A-Z are folded: other bytes stay as they are */
	query(&b, 6, "a@[`{.example.com", 1);
	assert_memory_equal(parse(&b)->qname, "\5a@[`{", 6);
}

TEST(test_qname_wildcard)
{
	static const uint8_t tricky[] = "\x0d" "a\x07" "example\x03" "com";
	struct pkt b;

	query(&b, 4, "www.example.com", 1);
	assert_true(holds(r_qname("*.example.com"), &b));
	assert_true(holds(r_qname("*.com"), &b));
	assert_true(holds(r_qname("*."), &b)); /* root suffix: any name but the root */
	assert_false(holds(r_qname("*.www.example.com"), &b)); /* S itself does not match */
	assert_false(holds(r_qname("*.ample.com"), &b));
	assert_false(holds(r_qname("*.example.org"), &b));

	query(&b, 6, "a.b.example.com", 1); /* more than one label below S */
	assert_true(holds(r_qname("*.example.com"), &b));
	assert_true(holds(r_qname("*.b.example.com"), &b));

	query(&b, 4, "example.com", 1);
	assert_false(holds(r_qname("*.example.com"), &b));
	assert_true(holds(r_qname("*.com"), &b));

	query(&b, 4, "badexample.com", 1); /* not at a label boundary */
	assert_false(holds(r_qname("*.example.com"), &b));

	/* one label "a\7example\3com": its last 13 bytes equal the wire of
	 * example.com, but no label boundary lies there */
	dns(&b, 4, &(struct pkt_dns_opts){ .wire = tricky, .wire_len = sizeof(tricky), .qtype = 1 });
	assert_true(parse(&b)->has_dns);
	assert_false(holds(r_qname("*.example.com"), &b));
	assert_true(holds(r_qname("*."), &b));
}

TEST(test_qname_root)
{
	struct pkt b;

	query(&b, 4, "", 2); /* the root name: one zero byte */
	assert_true(parse(&b)->has_dns);
	assert_int_equal(parse(&b)->qname_len, 1);
	assert_true(holds(r_qname("."), &b));
	assert_false(holds(r_qname("*."), &b));
	assert_false(holds(r_qname("*.com"), &b));
	assert_true(holds(r_qtype(2), &b));
}

TEST(test_dns_header)
{
	struct pkt b;

	dns(&b, 4, &(struct pkt_dns_opts){ .name = "example.com", .qtype = 1, .flags = 0x8180 });
	assert_false(parse(&b)->has_dns); /* QR = 1: a response */
	assert_false(holds(r_qtype(1), &b));
	assert_false(holds(r_qname("example.com"), &b));

	dns(&b, 6, &(struct pkt_dns_opts){ .name = "example.com", .qtype = 1, .no_question = true });
	assert_false(parse(&b)->has_dns); /* QDCOUNT = 0 */

	dns(&b, 4, &(struct pkt_dns_opts){ .name = "example.com", .qtype = 1, .qdcount = 3 });
	assert_true(parse(&b)->has_dns); /* the first of several */

	/* opcode and the other flag bits are not checked */
	dns(&b, 4, &(struct pkt_dns_opts){ .name = "example.com", .qtype = 1, .flags = 0x7fff });
	assert_true(parse(&b)->has_dns);

	query(&b, 4, "example.com", 1); /* header cut short */
	for (size_t cut = 0; cut < 12 + 13 + 4; cut++) {
		pkt_truncate(&b, (size_t)b.l7 + cut);
		assert_false(parse(&b)->has_dns);
		assert_true(parse(&b)->has_ports);
	}
}

TEST(test_dns_not_a_question)
{
	static const uint8_t ptr[] = "\3www\xc0\x0c";
	static const uint8_t ptr0[] = "\xc0\x0c";
	struct pkt b;
	uint8_t w[80];
	char name[300];

	dns(&b, 4, &(struct pkt_dns_opts){ .wire = ptr, .wire_len = 6, .qtype = 1 });
	assert_false(parse(&b)->has_dns); /* compression pointer */
	assert_false(holds(r_qtype(1), &b));
	dns(&b, 6, &(struct pkt_dns_opts){ .wire = ptr0, .wire_len = 2, .qtype = 1 });
	assert_false(parse(&b)->has_dns);

	for (unsigned lab = 63; lab <= 65; lab++) { /* label 63 fine, 64 (0x40) not */
		memset(w, 'a', sizeof(w));
		w[0] = (uint8_t)lab;
		w[1 + lab] = 0;
		dns(&b, 4, &(struct pkt_dns_opts){ .wire = w, .wire_len = lab + 2, .qtype = 1 });
		assert_int_equal(parse(&b)->has_dns, lab == 63);
	}
	memset(name, 'a', 64); /* the text form writes a 64-byte label too */
	strcpy(name + 64, ".com");
	query(&b, 4, name, 1);
	assert_false(parse(&b)->has_dns);
}

TEST(test_dns_name_length)
{
	struct pkt b;
	char name[300];

	for (size_t len = 250; len <= 258; len++) {
		const struct fp_ref_pkt *p;

		name_of_len(name, len);
		query(&b, 6, name, 16);
		assert_int_equal((size_t)(b.len - (size_t)b.l7 - 12 - 4), len);
		p = parse(&b);
		assert_int_equal(p->has_dns, len <= 255); /* 255 wire bytes at most */
		if (len <= 255) {
			assert_int_equal(p->qname_len, len);
			assert_int_equal(p->qname[len - 1], 0);
			assert_true(holds(r_qtype(16), &b));
		}
	}
}

TEST(test_dns_qtype_cut)
{
	struct pkt b;

	dns(&b, 4, &(struct pkt_dns_opts){ .name = "example.com", .qtype = 1, .no_qtype = true });
	assert_false(parse(&b)->has_dns); /* no qtype at all */
	for (size_t cut = 1; cut <= 4; cut++) { /* qtype / qclass cut short */
		query(&b, 6, "example.com", 1);
		pkt_truncate(&b, b.len - cut);
		assert_false(parse(&b)->has_dns);
		assert_false(holds(r_qname("example.com"), &b));
	}
	query(&b, 4, "example.com", 1); /* cut inside the name */
	pkt_truncate(&b, (size_t)b.l7 + 12 + 5);
	assert_false(parse(&b)->has_dns);
}

/* The DNS payload ends at the IP datagram's end, not at the frame's. */
TEST(test_dns_bounded_by_ip)
{
	struct pkt b;

	for (int ip = 4; ip <= 6; ip += 2) {
		query(&b, ip, "example.com", 1);
		if (ip == 4)
			pkt_set16(&b, b.l3 + 2, (uint16_t)(b.len - b.l3 - 2)); /* qclass outside */
		else
			pkt_set16(&b, b.l3 + 4, (uint16_t)(b.len - b.l3 - 40 - 2));
		assert_true(parse(&b)->has_ports);
		assert_false(parse(&b)->has_dns);
	}
	/* a whole query plus padding is still read */
	query(&b, 4, "example.com", 1);
	pkt_pad(&b, 20, 0xff);
	assert_true(holds(r_qname("example.com"), &b));
}

TEST(test_dns_needs_udp_53)
{
	struct pkt b;

	pkt_init(&b); /* TCP to port 53 */
	pkt_eth(&b, 0);
	pkt_ipv4(&b, &V4);
	pkt_tcp(&b, 40000, 53, PKT_ACK | PKT_PSH);
	pkt_dns_query(&b, "example.com", 1);
	pkt_finish(&b);
	assert_false(parse(&b)->has_dns);

	pkt_init(&b); /* UDP from port 53 (a query shape, to another port) */
	pkt_eth(&b, 0);
	pkt_ipv6(&b, &V6);
	pkt_udp(&b, 53, 40000);
	pkt_dns_query(&b, "example.com", 1);
	pkt_finish(&b);
	assert_false(parse(&b)->has_dns);
	assert_false(holds(r_qtype(1), &b));

	pkt_init(&b); /* in QinQ: found */
	pkt_eth(&b, 0);
	pkt_vlan(&b, PKT_ETH_8021AD, 1);
	pkt_vlan(&b, PKT_ETH_8021Q, 2);
	pkt_ipv4(&b, &V4);
	pkt_udp(&b, 1, 53);
	pkt_dns_query(&b, "Example.COM", 65);
	pkt_finish(&b);
	assert_true(holds(r_qname("example.com"), &b));
	assert_true(holds(r_qtype(65), &b));
}

TEST(test_dns_question_direct)
{
	uint8_t msg[64] = { 0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
			    1, 'A', 0, 0, 28, 0, 1 };
	uint8_t name[FP_DNS_NAME_MAX];
	uint8_t nlen = 0;
	uint16_t qtype = 0;

	assert_int_equal(fp_dns__question(msg, 19, name, &nlen, &qtype), 0);
	assert_int_equal(nlen, 3);
	assert_memory_equal(name, "\1a", 3);
	assert_int_equal(qtype, 28);
	for (size_t len = 0; len < 19; len++)
		assert_int_equal(fp_dns__question(msg, len, name, &nlen, &qtype), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qname_exact),
		cmocka_unit_test(test_qname_case),
		cmocka_unit_test(test_qname_wildcard),
		cmocka_unit_test(test_qname_root),
		cmocka_unit_test(test_dns_header),
		cmocka_unit_test(test_dns_not_a_question),
		cmocka_unit_test(test_dns_name_length),
		cmocka_unit_test(test_dns_qtype_cut),
		cmocka_unit_test(test_dns_bounded_by_ip),
		cmocka_unit_test(test_dns_needs_udp_53),
		cmocka_unit_test(test_dns_question_direct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
