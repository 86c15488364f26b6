/* SPDX-License-Identifier: BSD-2-Clause */
/* The PRNG and random rules: see rand.h. Random packets are in rand_pkt.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rand_pools.h"

/* ---- PRNG: xoshiro256** seeded with splitmix64 ------------------------------ */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

void rng_seed2(struct rng *r, uint64_t seed, uint64_t index)
{
	uint64_t x = seed ^ 0x5bd1e9955bd1e995ULL;

	rng_seed(r, splitmix64(&x) ^ (index * 0xd1b54a32d192ed03ULL));
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rng_u64(struct rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

uint32_t rng_u32(struct rng *r)
{
	return (uint32_t)(rng_u64(r) >> 32);
}

uint32_t rng_below(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(((uint64_t)rng_u32(r) * n) >> 32) : 0;
}

bool rng_pct(struct rng *r, unsigned pct)
{
	return rng_below(r, 100) < pct;
}

void rng_bytes(struct rng *r, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rng_u32(r);
}


/* ---- rules ---------------------------------------------------------------------- */

static void random_cidr(struct rng *r, int family, struct fp_cidr *c)
{
	static const uint8_t plen4[] = { 0, 8, 16, 24, 30, 31, 32, 32, 32 };
	static const uint8_t plen6[] = { 0, 16, 32, 48, 64, 112, 127, 128, 128, 128 };
	unsigned max = family == 4 ? 32 : 128;

	memset(c, 0, sizeof(*c));
	c->family = (uint8_t)family;
	addr_from_pool(r, family, c->addr);
	if (rng_pct(r, 80))
		c->plen = family == 4 ? PICK(r, plen4) : PICK(r, plen6);
	else
		c->plen = (uint8_t)rng_below(r, max + 1);
	for (unsigned bit = c->plen; bit < 128; bit++)
		c->addr[bit / 8] &= (uint8_t)~(0x80 >> (bit % 8));
}

static void random_range(struct rng *r, struct fp_range *rg, uint32_t max, uint32_t pool_v)
{
	unsigned u = rng_below(r, 100);

	if (u < 40) {
		rg->lo = rg->hi = pool_v;
	} else if (u < 80) {
		rg->lo = pool_v;
		rg->hi = pool_v + rng_below(r, max / 16 + 1);
		if (rg->hi > max)
			rg->hi = max;
	} else {
		uint32_t a = rng_below(r, max + 1), z = rng_below(r, max + 1);

		rg->lo = a < z ? a : z;
		rg->hi = a < z ? z : a;
	}
}

static void random_portset(struct rng *r, struct fp_portset *ps)
{
	ps->n = (uint8_t)(rng_pct(r, 70) ? 1 : 2 + rng_below(r, 4));
	for (unsigned i = 0; i < ps->n; i++)
		random_range(r, &ps->r[i], 65535, PICK(r, port_pool));
}

static bool portset_has(const struct fp_portset *ps, uint32_t port)
{
	for (unsigned i = 0; i < ps->n; i++)
		if (port >= ps->r[i].lo && port <= ps->r[i].hi)
			return true;
	return false;
}

static void random_qname(struct rng *r, struct fp_qname *q)
{
	const char *text;

	memset(q, 0, sizeof(*q));
	q->wildcard = rng_pct(r, 50);
	text = q->wildcard ? PICK(r, suffix_pool) : PICK(r, name_pool);
	q->wire_len = (uint8_t)pkt_dns_name(text, q->wire, sizeof(q->wire));
	for (unsigned i = 0; i < q->wire_len; i++)
		if (q->wire[i] >= 'A' && q->wire[i] <= 'Z')
			q->wire[i] = (uint8_t)(q->wire[i] + 'a' - 'A');
}

/* ether: with terms above layer 2, the IP type of the rule's family
 * (either when none is fixed); alone or with vlan, any type of the pool */
static void random_ether(struct rng *r, struct fp_rule *rule, int family)
{
	static const uint16_t pool[] = { 0x0806, 0x0800, 0x86dd, 0x88cc, 0x8847, 0xffff, 0x0600 };

	rule->terms |= FP_T_ETHER;
	if (rule->terms & ~(uint32_t)(FP_T_ETHER | FP_T_VLAN)) {
		if (!family)
			family = rule->terms & FP_T_UNDET ? 6 : rng_pct(r, 50) ? 4 : 6;
		rule->ether = family == 4 ? 0x0800 : 0x86dd;
	} else {
		rule->ether = PICK(r, pool);
	}
}

static void random_terms(struct rng *r, struct fp_rule *rule)
{
	static const uint8_t odd_protos[] = { 47, 50, 132, 0, 43, 44, 60, 59, 2 };
	int family = 0; /* family fixed by ip/ip6 or a CIDR */
	unsigned u;

	if (rng_pct(r, 4)) {
		/* undetermined-transport with the terms it goes with */
		rule->terms = FP_T_UNDET;
		if (rng_pct(r, 50)) {
			rule->terms |= FP_T_L3;
			rule->l3 = 6;
		}
		if (rng_pct(r, 25))
			rule->terms |= FP_T_FRAG;
		if (rng_pct(r, 10)) {
			rule->terms |= FP_T_SRC;
			random_cidr(r, 6, &rule->src);
		}
		if (rng_pct(r, 10)) {
			rule->terms |= FP_T_TTL;
			random_range(r, &rule->ttl, 255, PICK(r, ttl_pool));
		}
		if (rng_pct(r, 10))
			random_ether(r, rule, 6);
		return;
	}
	if (rng_pct(r, 5)) {
		/* a layer 2 rule: ether alone, or with vlan (pass ether arp) */
		if (rng_pct(r, 25)) {
			rule->terms |= FP_T_VLAN;
			rule->vlan = PICK(r, vlan_pool);
		}
		random_ether(r, rule, 0);
		return;
	}

	if (rng_pct(r, 35)) {
		family = rng_pct(r, 50) ? 4 : 6;
		rule->terms |= FP_T_L3;
		rule->l3 = (uint8_t)family;
	}
	if (rng_pct(r, 25)) {
		if (!family)
			family = rng_pct(r, 50) ? 4 : 6;
		rule->terms |= FP_T_SRC;
		random_cidr(r, family, &rule->src);
	}
	if (rng_pct(r, 20)) {
		if (!family)
			family = rng_pct(r, 50) ? 4 : 6;
		rule->terms |= FP_T_DST;
		random_cidr(r, family, &rule->dst);
	}

	u = rng_below(r, 100);
	if (u < 30) {
		rule->proto = 6;
	} else if (u < 60) {
		rule->proto = 17;
	} else if (u < 68) {
		rule->proto = family == 6 ? 58 : family == 4 ? 1 : rng_pct(r, 50) ? 1 : 58;
	} else if (u < 73) {
		rule->proto = PICK(r, odd_protos);
	}
	if (u < 73)
		rule->terms |= FP_T_PROTO;

	/* flags: on tcp, or alone (then implying tcp) */
	if ((rule->proto == 6 && rng_pct(r, 40)) || (u >= 73 && rng_pct(r, 8))) {
		rule->terms |= FP_T_FLAGS | FP_T_PROTO;
		rule->proto = 6;
		if (rng_pct(r, 50)) {
			static const uint8_t masks[] = { 0x02, 0x12, 0x10, 0x04, 0x01, 0x11, 0x3f };

			rule->flags_mask = PICK(r, masks);
		} else {
			rule->flags_mask = (uint8_t)(1 + rng_below(r, 255));
		}
		rule->flags_val = (uint8_t)(rng_u32(r) & rule->flags_mask);
		if (rule->flags_mask & FP_TCP_SYN && rng_pct(r, 60))
			rule->flags_val |= FP_TCP_SYN;
	}

	/* ports: tcp, udp, or no protocol term (either) */
	if (!(rule->terms & FP_T_PROTO) || rule->proto == 6 || rule->proto == 17) {
		if (rng_pct(r, 20)) {
			rule->terms |= FP_T_SPORT;
			random_portset(r, &rule->sport);
		}
		if (rng_pct(r, 35)) {
			rule->terms |= FP_T_DPORT;
			random_portset(r, &rule->dport);
		}
	}

	/* DNS: udp (or no protocol term) and a dport list, if any, holding 53 */
	if (!(rule->terms & FP_T_PROTO) || rule->proto == 17) {
		bool q = rng_pct(r, 18), t = rng_pct(r, 12);

		if ((q || t) && (rule->terms & FP_T_DPORT) && !portset_has(&rule->dport, 53)) {
			if (rule->dport.n < FP_PORTS_MAX)
				rule->dport.r[rule->dport.n++] = (struct fp_range){ 53, 53 };
		}
		if (q) {
			rule->terms |= FP_T_QNAME;
			random_qname(r, &rule->qname);
		}
		if (t) {
			rule->terms |= FP_T_QTYPE;
			rule->qtype = rng_pct(r, 90) ? PICK(r, qtype_pool) : (uint16_t)rng_u32(r);
		}
		if ((q || t) && rng_pct(r, 50)) {
			rule->terms |= FP_T_PROTO;
			rule->proto = 17;
		}
	}

	if (rng_pct(r, 12)) {
		rule->terms |= FP_T_LEN;
		random_range(r, &rule->len, 65535, rng_pct(r, 50) ? 40 + rng_below(r, 120) : 20);
	}
	if (rng_pct(r, 12)) {
		rule->terms |= FP_T_TTL;
		random_range(r, &rule->ttl, 255, PICK(r, ttl_pool));
	}
	if (rng_pct(r, 12)) {
		rule->terms |= FP_T_VLAN;
		rule->vlan = rng_pct(r, 85) ? PICK(r, vlan_pool) : (uint16_t)rng_below(r, 4096);
	}
	if (rng_pct(r, 8))
		rule->terms |= FP_T_FRAG;
	/* undetermined-transport: never with what needs an upper layer, nor IPv4 */
	if (!(rule->terms & (FP_T_PROTO | FP_T_SPORT | FP_T_DPORT | FP_T_FLAGS | FP_T_QNAME |
			     FP_T_QTYPE)) && family != 4 && rng_pct(r, 20))
		rule->terms |= FP_T_UNDET;
	if (rng_pct(r, 6))
		random_ether(r, rule, family);
}

void random_rule(struct rng *r, size_t index, struct fp_rule *rule)
{
	unsigned u = rng_below(r, 100);

	memset(rule, 0, sizeof(*rule));
	if (u < 45) {
		rule->action = FP_ACT_DROP;
	} else if (u < 80) {
		rule->action = FP_ACT_PASS;
	} else {
		rule->action = FP_ACT_LIMIT;
		rule->rate_count = 1 + rng_below(r, 10000);
		rule->rate_period_s = rng_pct(r, 80) ? 1 : 60;
		rule->burst = 1 + rng_below(r, 1000);
		rule->by = (enum fp_limit_by)rng_below(r, 4);
	}
	if (rng_pct(r, 5))
		rule->sample_n = 1 + rng_below(r, 1000);
	/* no rule without terms here: random_ruleset may end with one */
	do
		random_terms(r, rule);
	while (!rule->terms);
	snprintf(rule->id, sizeof(rule->id), "r%zu", index + 1);
	rule->line = (unsigned)(index + 1);
}

int random_ruleset(struct rng *r, size_t n, struct fp_ruleset *set)
{
	memset(set, 0, sizeof(*set));
	set->default_action = rng_pct(r, 50) ? FP_ACT_PASS : FP_ACT_DROP;
	set->rules = calloc(n ? n : 1, sizeof(*set->rules));
	if (!set->rules)
		return -ENOMEM;
	set->n = n;
	for (size_t i = 0; i < n; i++)
		random_rule(r, i, &set->rules[i]);
	if (n && rng_pct(r, 10))
		set->rules[n - 1].terms = 0; /* a catch-all, last so it hides nothing */
	return 0;
}

void random_ruleset_free(struct fp_ruleset *set)
{
	if (!set)
		return;
	free(set->rules);
	memset(set, 0, sizeof(*set));
}
