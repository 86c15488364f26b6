/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Seeded, deterministic random packets and rule sets for differential tests
 * (a back end against the reference matcher, src/rules/match_ref.h).
 *
 * Packets and rules draw addresses, ports, VLAN ids, TTLs, lengths, DNS
 * names and qtypes from the same small pools, so that random rules hit
 * random packets often. Packets are a mix of valid, edge and malformed
 * frames (see random_packet). The same seed gives the same sequence on
 * every machine (xoshiro256** seeded by splitmix64; no libc rand()).
 *
 *   struct rng r;
 *   struct fp_ruleset set;
 *   rng_seed(&r, 42);
 *   random_ruleset(&r, 100, &set);
 *   for (i = 0; i < 100000; i++) {
 *           uint8_t frame[PKT_MAX];
 *           struct rng pr;
 *           rng_seed2(&pr, 42, i);                 // packet i alone reproducible
 *           size_t len = random_packet(&pr, frame, sizeof(frame));
 *           ... compare back end with fp_ref__classify(&set, frame, len) ...
 *   }
 *   random_ruleset_free(&set);
 */
#ifndef FP_TESTS_RAND_H
#define FP_TESTS_RAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules/rule.h"

struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
/* Seeds from (seed, index): packet `index` of a run can be rebuilt alone. */
void rng_seed2(struct rng *r, uint64_t seed, uint64_t index);
uint64_t rng_u64(struct rng *r);
uint32_t rng_u32(struct rng *r);
/* Uniform in [0, n); n == 0 gives 0. */
uint32_t rng_below(struct rng *r, uint32_t n);
/* True with probability pct/100. */
bool rng_pct(struct rng *r, unsigned pct);
void rng_bytes(struct rng *r, uint8_t *p, size_t n);

/*
 * Writes one random Ethernet frame into buf (cap >= 2048 recommended) and
 * returns its length (0..cap). The mix, roughly:
 *   - L2: 2% shorter than 14 bytes; 0, 1, 2 or 3 VLAN tags (0x8100/0x88a8,
 *     in any order), tags sometimes cut short;
 *   - L3: IPv4 (options, first and non-first fragments), IPv6 (0..10
 *     extension headers of hop-by-hop, routing, fragment, dstopts, more
 *     than 8 in about 2% of IPv6 frames, and sometimes one whose length
 *     byte runs past the datagram), or another ethertype;
 *   - L4: TCP (common flag combinations, options), UDP, DNS queries to port
 *     53 (pool names, random subdomains of them, random case), ICMP,
 *     ICMPv6, other protocols;
 *   - malformed: bad version, IHL < 5 or beyond the frame, total length
 *     shorter than the headers, TCP data offset < 5 or too large, DNS
 *     responses, QDCOUNT 0, compression pointers, labels of 64, names over
 *     255 bytes, qtype cut short, truncation at a random byte, Ethernet
 *     padding (random bytes) after the IP datagram.
 */
size_t random_packet(struct rng *r, uint8_t *buf, size_t cap);

/*
 * Fills *rule with a random, consistent rule (never tcp+udp, flags only on
 * tcp, ports only on tcp/udp, CIDRs of one family agreeing with ip/ip6,
 * qname/qtype only with udp and a dport list holding 53, ...): every term
 * of rule model v1 appears across rules. `index` names it: id "rN", line
 * index + 1. Never a rule without terms.
 */
void random_rule(struct rng *r, size_t index, struct fp_rule *rule);

/* n random rules (malloc'd) and a random default action; in 10% of sets the
 * last rule has no terms (matches everything). 0 or -ENOMEM. The larger n,
 * the rarer the default decides (about 25% of packets at n = 300, few at
 * n = 1000): test several sizes. */
int random_ruleset(struct rng *r, size_t n, struct fp_ruleset *set);
/* Frees set->rules (the same as fp_ruleset__free, without the parser). */
void random_ruleset_free(struct fp_ruleset *set);

#endif /* FP_TESTS_RAND_H */
