/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared by the test_match_ref*.c cases: base frames and one-term rules.
 * Header-only (static), included by cmocka test files after <cmocka.h>.
 */
#ifndef FP_TESTS_MATCH_REF_UTIL_H
#define FP_TESTS_MATCH_REF_UTIL_H

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/match_ref.h"
#include "common/pkt.h"

/* A cmocka test function: TEST(test_x) { ... } */
#define TEST(name) static void name(void **state __attribute__((unused)))

static const struct pkt_ipv4_opts V4 = {
	.src = "192.0.2.1", .dst = "198.51.100.7", .ttl = 64,
};
static const struct pkt_ipv6_opts V6 = {
	.src = "2001:db8::1", .dst = "2001:db8:1::5", .hop_limit = 64,
};

/* Ethernet, ntags 802.1Q tags (VIDs 10, 20, ...), IPv4 (V4), UDP. */
static inline void v4_udp(struct pkt *b, int ntags, uint16_t sport, uint16_t dport)
{
	pkt_init(b);
	pkt_eth(b, 0);
	for (int i = 0; i < ntags; i++)
		pkt_vlan(b, PKT_ETH_8021Q, (uint16_t)(10 * (i + 1)));
	pkt_ipv4(b, &V4);
	pkt_udp(b, sport, dport);
	assert_int_equal(pkt_finish(b), 0);
}

static inline void v6_udp(struct pkt *b, uint16_t sport, uint16_t dport)
{
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv6(b, &V6);
	pkt_udp(b, sport, dport);
	assert_int_equal(pkt_finish(b), 0);
}

/* TCP 40000 -> 443 over IPv4 (ip 4) or IPv6 (ip 6). */
static inline void v_tcp(struct pkt *b, int ip, uint8_t flags)
{
	pkt_init(b);
	pkt_eth(b, 0);
	if (ip == 6)
		pkt_ipv6(b, &V6);
	else
		pkt_ipv4(b, &V4);
	pkt_tcp(b, 40000, 443, flags);
	assert_int_equal(pkt_finish(b), 0);
}

static inline const struct fp_ref_pkt *parse(const struct pkt *b)
{
	static struct fp_ref_pkt p;

	fp_ref__parse(b->buf, b->len, &p);
	return &p;
}

static inline bool holds(struct fp_rule r, const struct pkt *b)
{
	return fp_ref__rule_matches(&r, parse(b));
}

/* ---- one-term rules ---------------------------------------------------------- */

static inline struct fp_rule r_none(void)
{
	struct fp_rule r;

	memset(&r, 0, sizeof(r));
	r.action = FP_ACT_DROP;
	return r;
}

static inline struct fp_rule r_l3(uint8_t l3)
{
	struct fp_rule r = r_none();

	r.terms = FP_T_L3;
	r.l3 = l3;
	return r;
}

static inline struct fp_rule r_proto(uint8_t proto)
{
	struct fp_rule r = r_none();

	r.terms = FP_T_PROTO;
	r.proto = proto;
	return r;
}

/* "192.0.2.0/24" or "2001:db8::/32" */
static inline struct fp_cidr cidr(const char *text)
{
	struct fp_cidr c;
	char addr[64];
	const char *slash = strchr(text, '/');

	memset(&c, 0, sizeof(c));
	snprintf(addr, sizeof(addr), "%.*s", (int)(slash - text), text);
	c.family = strchr(addr, ':') ? 6 : 4;
	c.plen = (uint8_t)atoi(slash + 1);
	assert_int_equal(inet_pton(c.family == 4 ? AF_INET : AF_INET6, addr, c.addr), 1);
	return c;
}

static inline struct fp_rule r_src(const char *text)
{
	struct fp_rule r = r_none();

	r.terms = FP_T_SRC;
	r.src = cidr(text);
	return r;
}

static inline struct fp_rule r_dst(const char *text)
{
	struct fp_rule r = r_none();

	r.terms = FP_T_DST;
	r.dst = cidr(text);
	return r;
}

static inline struct fp_rule r_sport(uint32_t lo, uint32_t hi)
{
	struct fp_rule r = r_none();

	r.terms = FP_T_SPORT;
	r.sport.n = 1;
	r.sport.r[0] = (struct fp_range){ lo, hi };
	return r;
}

static inline struct fp_rule r_dport(uint32_t lo, uint32_t hi)
{
	struct fp_rule r = r_none();

	r.terms = FP_T_DPORT;
	r.dport.n = 1;
	r.dport.r[0] = (struct fp_range){ lo, hi };
	return r;
}

static inline struct fp_rule r_flags(uint8_t mask, uint8_t val)
{
	struct fp_rule r = r_none();

	r.terms = FP_T_FLAGS;
	r.flags_mask = mask;
	r.flags_val = val;
	return r;
}

static inline struct fp_rule r_len(uint32_t lo, uint32_t hi)
{
	struct fp_rule r = r_none();

	r.terms = FP_T_LEN;
	r.len = (struct fp_range){ lo, hi };
	return r;
}

static inline struct fp_rule r_ttl(uint32_t lo, uint32_t hi)
{
	struct fp_rule r = r_none();

	r.terms = FP_T_TTL;
	r.ttl = (struct fp_range){ lo, hi };
	return r;
}

static inline struct fp_rule r_vlan(uint16_t vid)
{
	struct fp_rule r = r_none();

	r.terms = FP_T_VLAN;
	r.vlan = vid;
	return r;
}

static inline struct fp_rule r_frag(void)
{
	struct fp_rule r = r_none();

	r.terms = FP_T_FRAG;
	return r;
}

/* "www.example.com" (exact), "*.example.com", "*." (any name but the root);
 * the pattern must already be lowercase, as the parser stores it. */
static inline struct fp_rule r_qname(const char *pattern)
{
	struct fp_rule r = r_none();
	bool wild = pattern[0] == '*' && pattern[1] == '.';

	r.terms = FP_T_QNAME;
	r.qname.wildcard = wild;
	r.qname.wire_len = (uint8_t)pkt_dns_name(wild ? pattern + 2 : pattern, r.qname.wire,
						 sizeof(r.qname.wire));
	assert_true(r.qname.wire_len > 0);
	return r;
}

static inline struct fp_rule r_qtype(uint16_t qtype)
{
	struct fp_rule r = r_none();

	r.terms = FP_T_QTYPE;
	r.qtype = qtype;
	return r;
}

#endif /* FP_TESTS_MATCH_REF_UTIL_H */
