// SPDX-License-Identifier: BSD-2-Clause
/*
 * `bpfgen rule` against the reference matcher: random rule sets, each rule
 * lowered to classic BPF (offset 14 and offset 0) and run with libpcap's
 * bpf_filter() on 100,000 random frames per run (tests/common/rand.h);
 * fp_ref__rule_matches() on the same frame must agree on every packet.
 *
 * Offset 0 is what xt_bpf sees: the packet from its IP header. Only frames
 * whose L2 is a plain Ethernet header with ethertype IPv4 or IPv6 and
 * whose version nibble agrees with it go there (the kernel's IP input
 * drops the rest before netfilter), and rules with vlan or ether (refused
 * there) are skipped.
 * Every fourth rule is also lowered with -n and must say the opposite.
 *
 * A mismatch prints the seed, the packet index, the rule and a hexdump;
 * `fastpath bpfgen -s -o N rule 'RULE'` shows the program.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfgen/bpfgen.h"
#include "common/rand.h"
#include "rules/match_ref.h"

#define PACKETS   100000
#define RULES     40
#define FRAME_MAX 2048

struct lowered {
	bool skip;
	struct fp_cbpf prog, neg;
};

static void hexdump(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%02x%s", p[i], i % 16 == 15 || i + 1 == n ? "\n" : " ");
}

static struct fp_cbpf lower(const struct fp_rule *rule, unsigned off, bool negate)
{
	struct fp_bpfgen_opts o = { .l3_off = off, .negate = negate };
	struct fp_bpfgen_out out;
	struct fp_bpfgen_err err;
	struct fp_cbpf p;
	char text[1024];
	size_t bad;

	if (fp_bpfgen__rule(&o, rule, &out, &err)) {
		fp_rule__format(rule, text, sizeof(text));
		fail_msg("lowering '%s' at offset %u: %s", text, off, err.msg);
	}
	if (fp_cbpf__check(&out.prog, &bad) ||
	    !bpf_validate((const struct bpf_insn *)out.prog.insns, (int)out.prog.len)) {
		fp_rule__format(rule, text, sizeof(text));
		fail_msg("'%s' at offset %u: the program fails the checks", text, off);
	}
	p = out.prog;
	out.prog.insns = NULL;
	fp_bpfgen_out__free(&out);
	return p;
}

/* Offset 0 sees frames whose L2 is plain IPv4/IPv6 with a matching version. */
static bool xt_bpf_sees(const uint8_t *f, size_t len)
{
	uint16_t type;

	if (len < 14)
		return false;
	type = (uint16_t)(f[12] << 8 | f[13]);
	if (type != 0x0800 && type != 0x86dd)
		return false;
	return len == 14 || (f[14] >> 4) == (type == 0x0800 ? 4 : 6);
}

static unsigned run(const struct fp_cbpf *p, const uint8_t *f, size_t len)
{
	return bpf_filter((const struct bpf_insn *)p->insns, f, (unsigned)len, (unsigned)len);
}

static void mismatch(uint64_t seed, size_t i, const struct fp_rule *rule, unsigned off,
		     bool negate, bool want, const uint8_t *f, size_t len,
		     const struct fp_cbpf *prog)
{
	char text[1024];

	fp_rule__format(rule, text, sizeof(text));
	fprintf(stderr, "seed %llu packet %zu, offset %u%s: the reference says %s for\n  %s\n"
		"frame (%zu bytes; offset 0 gets it from byte 14):\n",
		(unsigned long long)seed, i, off, negate ? " with -n" : "",
		want ? "match" : "no match", text, len);
	hexdump(f, len);
	fprintf(stderr, "program: ");
	fp_cbpf__print(prog, stderr);
	fail_msg("bpfgen rule disagrees with the reference matcher");
}

/* Matches of undetermined-transport rules over a test's runs: the
 * generators must reach the term (a seed's set may have no such rule). */
static unsigned long undet_total;

static void diff_run(uint64_t seed, unsigned off)
{
	struct lowered *lw = calloc(RULES, sizeof(*lw));
	struct fp_ruleset set;
	struct rng r;
	size_t i, k, fed = 0;
	unsigned long hits = 0, dns_hits = 0, undet_hits = 0;

	assert_non_null(lw);
	rng_seed(&r, seed);
	assert_int_equal(random_ruleset(&r, RULES, &set), 0);
	for (k = 0; k < set.n; k++) {
		lw[k].skip = off == 0 && (set.rules[k].terms & (FP_T_VLAN | FP_T_ETHER));
		if (lw[k].skip)
			continue;
		lw[k].prog = lower(&set.rules[k], off, false);
		if (k % 4 == 0)
			lw[k].neg = lower(&set.rules[k], off, true);
	}
	for (i = 0; fed < PACKETS; i++) {
		uint8_t frame[FRAME_MAX];
		struct fp_ref_pkt pkt;
		struct rng pr;
		size_t len;
		const uint8_t *f;
		size_t flen;

		rng_seed2(&pr, seed, i);
		len = random_packet(&pr, frame, sizeof(frame));
		if (off == 0 && !xt_bpf_sees(frame, len))
			continue;
		fed++;
		fp_ref__parse(frame, len, &pkt);
		f = off == 0 ? frame + 14 : frame; /* xt_bpf: from the IP header */
		flen = off == 0 ? len - 14 : len;
		for (k = 0; k < set.n; k++) {
			bool want, got;

			if (lw[k].skip)
				continue;
			want = fp_ref__rule_matches(&set.rules[k], &pkt);
			got = run(&lw[k].prog, f, flen) != 0;
			hits += want;
			dns_hits += want && (set.rules[k].terms & FP_T_QNAME);
			undet_hits += want && (set.rules[k].terms & FP_T_UNDET);
			if (want != got)
				mismatch(seed, i, &set.rules[k], off, false, want, frame, len,
					 &lw[k].prog);
			if (lw[k].neg.insns && (run(&lw[k].neg, f, flen) != 0) == want)
				mismatch(seed, i, &set.rules[k], off, true, want, frame, len,
					 &lw[k].neg);
		}
	}
	printf("# offset %u seed %llu: %zu packets fed, %lu rule matches (%lu by qname rules, "
	       "%lu by undetermined-transport rules)\n",
	       off, (unsigned long long)seed, fed, hits, dns_hits, undet_hits);
	assert_true(hits > 0);
	undet_total += undet_hits;
	for (k = 0; k < set.n; k++) {
		fp_cbpf__free(&lw[k].prog);
		fp_cbpf__free(&lw[k].neg);
	}
	free(lw);
	random_ruleset_free(&set);
}

static uint64_t base_seed(void)
{
	const char *s = getenv("FP_TEST_SEED");

	return s ? strtoull(s, NULL, 0) : 20240601;
}

static void test_diff_eth(void **state)
{
	(void)state;
	undet_total = 0;
	diff_run(base_seed(), 14);
	diff_run(base_seed() + 1, 14);
	assert_true(undet_total > 0);
}

static void test_diff_xt_bpf(void **state)
{
	(void)state;
	undet_total = 0;
	diff_run(base_seed() + 2, 0);
	diff_run(base_seed() + 3, 0);
	assert_true(undet_total > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_eth),
		cmocka_unit_test(test_diff_xt_bpf),
	};

	return cmocka_run_group_tests_name("bpfgen_rule_diff", tests, NULL, NULL);
}
