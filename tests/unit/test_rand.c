/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The test generators themselves: the builder's lengths and checksums, the
 * PRNG's determinism, and that random packets and rules exercise every term
 * of the rule model both ways (holds / does not hold), so that differential
 * tests built on them mean something.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rules/match_ref.h"
#include "common/pkt.h"
#include "common/rand.h"
#include "unit/match_ref_util.h"

#define N_PKTS  20000
#define N_RULES 300

static uint32_t sum_bytes(const uint8_t *p, size_t n, uint32_t sum)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static uint16_t folded(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The L4 checksum over pseudo header + segment sums to 0xffff. */
static void assert_l4_csum(const struct pkt *b, uint8_t proto)
{
	const uint8_t *ip = b->buf + b->l3;
	size_t n = b->len - (size_t)b->l4;
	uint32_t sum = b->ip_ver == 4 ? sum_bytes(ip + 12, 8, 0) : sum_bytes(ip + 8, 32, 0);

	if (proto == 1)
		sum = 0;
	else
		sum += proto + (uint32_t)n;
	assert_int_equal(folded(sum_bytes(b->buf + b->l4, n, sum)), 0xffff);
}

TEST(test_builder_lengths_checksums)
{
	static const uint8_t opt[] = { 1, 1, 1 };
	struct pkt b;

	v4_udp(&b, 2, 1, 53);
	assert_int_equal(b.len, 14 + 8 + 20 + 8);
	assert_int_equal(b.buf[12] << 8 | b.buf[13], PKT_ETH_8021Q);
	assert_int_equal(b.buf[16] << 8 | b.buf[17], PKT_ETH_8021Q);
	assert_int_equal(b.buf[20] << 8 | b.buf[21], PKT_ETH_IPV4);
	assert_int_equal(b.buf[b.l3 + 9], 17);
	assert_int_equal(b.buf[b.l3 + 3], 28);
	assert_int_equal(b.buf[b.l4 + 5], 8);
	assert_int_equal(folded(sum_bytes(b.buf + b.l3, 20, 0)), 0xffff);
	assert_l4_csum(&b, 17);

	pkt_init(&b);
	pkt_eth(&b, 0);
	pkt_ipv4(&b, &(struct pkt_ipv4_opts){ .src = "10.0.0.1", .dst = "10.0.0.2",
					      .options = opt, .options_len = 3 });
	pkt_icmp(&b, 8, 0);
	pkt_bytes(&b, "ping", 5);
	assert_int_equal(pkt_finish(&b), 0);
	assert_int_equal(b.buf[b.l3] & 0x0f, 6);
	assert_int_equal(folded(sum_bytes(b.buf + b.l3, 24, 0)), 0xffff);
	assert_l4_csum(&b, 1);

	pkt_init(&b);
	pkt_eth(&b, 0);
	pkt_ipv6(&b, &V6);
	pkt_ipv6_ext(&b, PKT_IP6_HOP, 1);
	pkt_ipv6_frag(&b, 0, true, 9);
	pkt_tcp(&b, 1, 2, PKT_SYN);
	assert_int_equal(pkt_finish(&b), 0);
	assert_int_equal(b.buf[b.l3 + 6], PKT_IP6_HOP);
	assert_int_equal(b.buf[b.l3 + 40], PKT_IP6_FRAG);
	assert_int_equal(b.buf[b.l3 + 40 + 16], 6);
	assert_int_equal(b.buf[b.l3 + 4] << 8 | b.buf[b.l3 + 5], 16 + 8 + 20);
	assert_l4_csum(&b, 6);

	pkt_init(&b);
	pkt_eth(&b, 0);
	pkt_ipv6(&b, &V6);
	pkt_icmp6(&b, 128, 0);
	assert_int_equal(pkt_finish(&b), 0);
	assert_l4_csum(&b, 58);

	pkt_init(&b); /* overflow is reported, not written */
	pkt_eth(&b, 0);
	for (int i = 0; i < 100; i++)
		pkt_pad(&b, 64, 0xee);
	assert_true(b.err);
	assert_true(b.len <= PKT_MAX);
	assert_int_equal(pkt_finish(&b), -ENOSPC);
}

TEST(test_rng_deterministic)
{
	struct rng a, b;
	uint8_t fa[PKT_MAX], fb[PKT_MAX];

	rng_seed(&a, 7);
	rng_seed(&b, 7);
	for (int i = 0; i < 1000; i++)
		assert_true(rng_u64(&a) == rng_u64(&b));
	for (uint64_t i = 0; i < 200; i++) {
		size_t la, lb;

		rng_seed2(&a, 99, i);
		rng_seed2(&b, 99, i);
		la = random_packet(&a, fa, sizeof(fa));
		lb = random_packet(&b, fb, sizeof(fb));
		assert_int_equal(la, lb);
		assert_memory_equal(fa, fb, la);
	}
	rng_seed2(&a, 99, 1);
	rng_seed2(&b, 99, 2);
	assert_true(rng_u64(&a) != rng_u64(&b));
	for (int i = 0; i < 1000; i++)
		assert_true(rng_below(&a, 10) < 10);
}

static void assert_rule_consistent(const struct fp_rule *r)
{
	uint32_t t = r->terms;
	int fam = (t & FP_T_L3) ? r->l3 : 0;

	if (t & FP_T_SRC) {
		assert_true(!fam || r->src.family == fam);
		fam = r->src.family;
	}
	if (t & FP_T_DST)
		assert_true(!fam || r->dst.family == fam);
	if (t & FP_T_FLAGS) {
		assert_true((t & FP_T_PROTO) && r->proto == 6);
		assert_int_equal(r->flags_val & ~r->flags_mask, 0);
	}
	if (t & (FP_T_SPORT | FP_T_DPORT))
		assert_true(!(t & FP_T_PROTO) || r->proto == 6 || r->proto == 17);
	if (t & (FP_T_QNAME | FP_T_QTYPE)) {
		assert_true(!(t & FP_T_PROTO) || r->proto == 17);
		if (t & FP_T_DPORT) {
			bool has53 = false;

			for (unsigned i = 0; i < r->dport.n; i++)
				has53 |= r->dport.r[i].lo <= 53 && 53 <= r->dport.r[i].hi;
			assert_true(has53);
		}
	}
	if ((t & FP_T_PROTO) && (r->proto == 1 || r->proto == 58) && fam)
		assert_int_equal(r->proto, fam == 4 ? 1 : 58);
	assert_true(r->action <= FP_ACT_LIMIT);
	assert_true(r->id[0] == 'r');
}

/* Every term must both hold and fail on random packets, and rules must hit. */
TEST(test_random_coverage)
{
	struct fp_ruleset set;
	struct rng r;
	static struct fp_ref_pkt pkts[N_PKTS];
	static uint8_t frame[PKT_MAX];
	unsigned holds_n[16] = { 0 }, fails_n[16] = { 0 }, with_term[16] = { 0 };
	unsigned l3[7] = { 0 }, vlans[3] = { 0 }, frag = 0, ports = 0, tcp = 0, dns = 0;
	unsigned matched = 0, noproto = 0;

	rng_seed(&r, 2024);
	assert_int_equal(random_ruleset(&r, N_RULES, &set), 0);
	for (size_t i = 0; i < set.n; i++) {
		assert_rule_consistent(&set.rules[i]);
		for (unsigned bit = 0; bit < 13; bit++)
			with_term[bit] += !!(set.rules[i].terms & (1u << bit));
	}
	for (unsigned bit = 0; bit < 13; bit++)
		assert_true(with_term[bit] >= 5);

	for (uint64_t i = 0; i < N_PKTS; i++) {
		struct fp_ref_pkt *p = &pkts[i];
		size_t len;

		rng_seed2(&r, 2024, i);
		len = random_packet(&r, frame, sizeof(frame));
		fp_ref__parse(frame, len, p);
		l3[p->l3]++;
		vlans[p->n_vlan]++;
		frag += p->frag;
		ports += p->has_ports;
		tcp += p->has_tcp_flags;
		dns += p->has_dns;
		noproto += p->l3 == 6 && !p->proto_known;
		if (p->has_dns) {
			assert_true(p->qname_len >= 1);
			assert_int_equal(p->qname[p->qname_len - 1], 0);
		}
		for (size_t k = 0; k < set.n; k++) {
			if (set.rules[k].terms && fp_ref__rule_matches(&set.rules[k], p)) {
				matched++;
				break;
			}
		}
	}
	/* each term alone, over rules that have it */
	for (size_t k = 0; k < set.n; k++) {
		for (unsigned bit = 0; bit < 13; bit++) {
			struct fp_rule one = set.rules[k];

			if (!(one.terms & (1u << bit)))
				continue;
			one.terms = 1u << bit;
			for (size_t i = 0; i < N_PKTS; i += 10) {
				if (fp_ref__rule_matches(&one, &pkts[i]))
					holds_n[bit]++;
				else
					fails_n[bit]++;
			}
		}
	}
	for (unsigned bit = 0; bit < 13; bit++) {
		print_message("term bit %2u: %3u rules, holds %6u, fails %6u\n", bit,
			      with_term[bit], holds_n[bit], fails_n[bit]);
		assert_true(holds_n[bit] >= 20);
		assert_true(fails_n[bit] >= 20);
	}
	print_message("l3 none/4/6 %u/%u/%u, tags 0/1/2 %u/%u/%u, frag %u, ports %u, tcp %u, "
		      "dns %u, v6 no proto %u, matched by a rule with terms %u of %u\n",
		      l3[0], l3[4], l3[6], vlans[0], vlans[1], vlans[2], frag, ports, tcp, dns,
		      noproto, matched, N_PKTS);
	assert_true(l3[0] > N_PKTS / 50 && l3[4] > N_PKTS / 4 && l3[6] > N_PKTS / 4);
	assert_true(vlans[1] > N_PKTS / 20 && vlans[2] > N_PKTS / 20);
	assert_true(frag > N_PKTS / 50 && ports > N_PKTS / 3 && tcp > N_PKTS / 10);
	assert_true(dns > N_PKTS / 20 && noproto > N_PKTS / 500);
	assert_true(matched > N_PKTS / 5 && matched < N_PKTS - N_PKTS / 50);
	random_ruleset_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builder_lengths_checksums),
		cmocka_unit_test(test_rng_deterministic),
		cmocka_unit_test(test_random_coverage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
