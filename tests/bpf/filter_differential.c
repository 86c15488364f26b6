// SPDX-License-Identifier: BSD-2-Clause
/*
 * Differential test: the real XDP pipeline (BPF_PROG_TEST_RUN) against the
 * plain-C reference matcher, on random rule sets and random frames (valid,
 * edge and malformed). Every frame must get the same deciding rule (or the
 * default) and the same verdict; a limit rule's packet the same bucket as
 * fp_ref__limit_key gives (the key the limiter recorded in test mode: any
 * stale byte in the parse would split or merge buckets), and no bucket for
 * other decisions; and the same from the attached program (parse and filter
 * in one) as from the generic entry and the stage slot. Limit verdicts are
 * held against a plain GCRA per bucket (ref_gcra) on the test clock, which
 * moves 1 us a frame: each frame spends its bucket twice (fused, staged).
 *
 * FP_DIFF_SETS / FP_DIFF_PACKETS scale it (default 120 sets x 1000 frames
 * = 120,000 frames). A mismatch prints the seed, the set and the frame.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/pkt.h"
#include "common/rand.h"
#include "filter/compile.h"
#include "filter/filter.h"
#include "rules/match_ref.h"

enum { XDP_DROP_ = 1, XDP_PASS_ = 2 };

static unsigned env_or(const char *name, unsigned def)
{
	const char *v = getenv(name);

	return v && *v ? (unsigned)strtoul(v, NULL, 10) : def;
}

static void dump_case(const struct fp_ruleset *set, const uint8_t *frame, size_t len)
{
	char text[FP_RULE_TEXT];

	fprintf(stderr, "rule set (default %s):\n", set->default_action == FP_ACT_DROP ? "drop" : "pass");
	for (size_t i = 0; i < set->n; i++) {
		fp_rule__format(&set->rules[i], text, sizeof(text));
		fprintf(stderr, "  [%zu] %s\n", i, text);
	}
	fprintf(stderr, "frame (%zu bytes):\n", len);
	pkt_hexdump(stderr, frame, len);
}

/* The limiter key the packet's deciding rule (want, -1: the default) must
 * have left in the last run's record: none but for a limit rule. */
static void want_lim_key(const struct fp_ruleset *set, long want, const uint8_t *frame,
			 size_t len, struct fp_flt_lim_key *k)
{
	char text[FP_RULE_TEXT];
	struct fp_ref_pkt pkt;

	memset(k, 0, sizeof(*k));
	if (want < 0 || set->rules[want].action != FP_ACT_LIMIT)
		return;
	fp_ref__parse(frame, len, &pkt);
	fp_ref__limit_key(&set->rules[want], &pkt, k);
	fp_rule__format(&set->rules[want], text, sizeof(text));
	k->ident = fp_rule_ident(text);
}

static void dump_keys(const struct fp_flt_lim_key *want, const struct fp_flt_lim_key *got)
{
	const struct fp_flt_lim_key *k[2] = { want, got };

	for (int i = 0; i < 2; i++) {
		fprintf(stderr, "%s key: ident %016llx by %u l3 %u proto %u sport %u dport %u\n  src ",
			i ? "xdp" : "reference", (unsigned long long)k[i]->ident, k[i]->by,
			k[i]->l3, k[i]->proto, k[i]->sport, k[i]->dport);
		for (int j = 0; j < 16; j++)
			fprintf(stderr, "%02x", k[i]->src[j]);
		fprintf(stderr, " dst ");
		for (int j = 0; j < 16; j++)
			fprintf(stderr, "%02x", k[i]->dst[j]);
		fprintf(stderr, "\n");
	}
}

/*
 * The reference limiter: GCRA per bucket (rule ident and key), as
 * fastpath-rules(7) defines `limit RATE burst B`: a packet conforms when the
 * bucket's theoretical arrival time is at most now + (B - 1) * T, T the time
 * per packet at the rate, and then moves it to max(it, now) + T; a new
 * bucket's first packet conforms. Buckets live as long as the filter (an
 * open-addressing table; the test's few thousand never fill it).
 */
#define REF_BUCKETS (1u << 17)
struct ref_bucket {
	struct fp_flt_lim_key key;
	uint64_t tat;
	bool used;
};
static struct ref_bucket *ref_buckets;

static bool ref_gcra(const struct fp_rule *rule, const struct fp_flt_lim_key *k, uint64_t now)
{
	uint64_t h = 0xcbf29ce484222325ULL, t, tau;
	const uint8_t *p = (const uint8_t *)k;
	struct ref_bucket *b;

	t = (uint64_t)rule->rate_period_s * 1000000000ull / rule->rate_count;
	if (!t)
		t = 1;
	tau = (uint64_t)((rule->burst ? rule->burst : 1) - 1) * t;
	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	for (uint32_t i = (uint32_t)h % REF_BUCKETS;; i = (i + 1) % REF_BUCKETS) {
		b = &ref_buckets[i];
		if (!b->used || !memcmp(&b->key, k, sizeof(*k)))
			break;
	}
	if (!b->used) {
		b->used = true;
		b->key = *k;
		b->tat = now + t;
		return true;
	}
	if (b->tat > now + tau)
		return false;
	b->tat = (b->tat > now ? b->tat : now) + t;
	return true;
}

static void test_random_sets(void **state)
{
	unsigned sets = env_or("FP_DIFF_SETS", 120), per = env_or("FP_DIFF_PACKETS", 1000);
	uint64_t seed = env_or("FP_DIFF_SEED", 1), checked = 0, matched = 0, undet = 0, ether = 0;
	uint64_t limited = 0, now = 1000000000000ull, lim_drops = 0;
	unsigned wide_sets = 0; /* sets with more tuples than the candidate mask has bits */
	unsigned too_big = 0;   /* sets over a generation's flat-table capacity (refused) */
	struct fp_filter *f;
	char err[512];

	if (geteuid() != 0) {
		skip();
		return;
	}
	assert_int_equal(fp_filter__open_test(&f, err, sizeof(err)), 0);
	ref_buckets = calloc(REF_BUCKETS, sizeof(*ref_buckets));
	assert_non_null(ref_buckets);
	for (unsigned s = 0; s < sets; s++) {
		struct fp_ruleset set;
		struct rng r;
		/* sizes from 1 to ~200 rules, mostly small so rules overlap packets */
		size_t n;

		rng_seed(&r, seed * 1000003 + s);
		n = 1 + rng_below(&r, s % 10 == 9 ? 200 : 24);
		assert_int_equal(random_ruleset(&r, n, &set), 0);
		{
			struct fp_flt_image img;
			int ret = fp_flt_image__build(&set, &img, err, sizeof(err));

			bool over = (ret == -E2BIG && strstr(err, "largest tables")) ||
				    (ret == 0 && (img.cfg.key_bits > FP_FLAT_BITS_DEFAULT ||
						  img.cfg.addr_bits > FP_FLAT_BITS_DEFAULT));

			if (over) {
				if (ret == 0)
					fp_flt_image__free(&img);
				/* over the default tables (a documented limit; load
				 * --table-bits raises it): apply refuses it, and the
				 * next set is checked against a live filter as usual */
				assert_int_not_equal(fp_filter__apply(f, &set, err, sizeof(err)), 0);
				too_big++;
				random_ruleset_free(&set);
				continue;
			}
			if (ret) {
				fprintf(stderr, "set %u: %s\n", s, err);
				fail();
			}
			wide_sets += img.cfg.n_tuples >= FP_CM_TUPLE_BITS;
			fp_flt_image__free(&img);
		}
		if (fp_filter__apply(f, &set, err, sizeof(err))) {
			fprintf(stderr, "apply failed for set %u: %s\n", s, err);
			dump_case(&set, NULL, 0);
			fail();
		}
		for (unsigned i = 0; i < per; i++) {
			uint8_t frame[PKT_MAX];
			struct rng pr;
			uint32_t verdict, rule, sv, srule;
			struct fp_flt_lim_key wk, fk, sk;
			size_t len;
			long want;

			rng_seed2(&pr, seed * 1000003 + s, i);
			len = random_packet(&pr, frame, sizeof(frame));
			if (len < 14)
				continue; /* BPF_PROG_TEST_RUN takes whole Ethernet headers */
			want = fp_ref__classify(&set, frame, len);
			now += 1000;
			fp_filter__set_test_clock(f, now);
			assert_int_equal(fp_filter__run(f, frame, len, &verdict, &rule), 0);
			fk = fp_filter__last(f)->lim;
			assert_int_equal(fp_filter__run_staged(f, frame, len, &sv, &srule), 0);
			sk = fp_filter__last(f)->lim;
			/* a limit rule's bucket is spent by both runs: verdicts
			 * below */
			if (srule != rule || (sv != verdict && (want < 0 ||
						set.rules[want].action != FP_ACT_LIMIT))) {
				fprintf(stderr, "STAGED set %u packet %u: fused verdict %u rule %d, "
					"entry + stage verdict %u rule %d\n", s, i, verdict,
					(int)rule, sv, (int)srule);
				dump_case(&set, frame, len);
				fail();
			}
			checked++;
			matched += want >= 0;
			undet += want >= 0 && (set.rules[want].terms & FP_T_UNDET);
			ether += want >= 0 && (set.rules[want].terms & FP_T_ETHER);
			if ((want < 0 && rule != FP_FLT_NO_RULE) || (want >= 0 && rule != (uint32_t)want)) {
				fprintf(stderr, "MISMATCH set %u packet %u (seed %llu): reference rule %ld, "
					"xdp rule %d\n", s, i, (unsigned long long)seed, want, (int)rule);
				dump_case(&set, frame, len);
				fail();
			}
			want_lim_key(&set, want, frame, len, &wk);
			if (memcmp(&wk, &fk, sizeof(wk)) || memcmp(&wk, &sk, sizeof(wk))) {
				fprintf(stderr, "LIMIT KEY set %u packet %u (seed %llu), rule %ld:\n",
					s, i, (unsigned long long)seed, want);
				dump_keys(&wk, memcmp(&wk, &fk, sizeof(wk)) ? &fk : &sk);
				dump_case(&set, frame, len);
				fail();
			}
			if (want >= 0 && set.rules[want].action == FP_ACT_LIMIT) {
				uint32_t e1 = ref_gcra(&set.rules[want], &wk, now) ? XDP_PASS_ : XDP_DROP_;
				uint32_t e2 = ref_gcra(&set.rules[want], &wk, now) ? XDP_PASS_ : XDP_DROP_;

				if (verdict != e1 || sv != e2) {
					fprintf(stderr, "LIMIT VERDICT set %u packet %u: want %u then %u, "
						"got %u then %u\n", s, i, e1, e2, verdict, sv);
					dump_case(&set, frame, len);
					fail();
				}
				limited++;
				lim_drops += (e1 == XDP_DROP_) + (e2 == XDP_DROP_);
			} else {
				enum fp_action a = want < 0 ? set.default_action : set.rules[want].action;
				uint32_t expect = a == FP_ACT_DROP ? XDP_DROP_ : XDP_PASS_;

				if (verdict != expect) {
					fprintf(stderr, "VERDICT set %u packet %u: want %u got %u\n", s, i,
						expect, verdict);
					dump_case(&set, frame, len);
					fail();
				}
			}
		}
		random_ruleset_free(&set);
	}
	fprintf(stderr, "differential: %llu frames agree (%llu decided by a rule, %llu by "
		"undetermined-transport, %llu by ether, %llu by a limit rule, its bucket and "
		"GCRA verdicts too, %llu runs over the rate); %u sets of %u or more tuples; "
		"%u sets over the flat-table capacity refused\n",
		(unsigned long long)checked, (unsigned long long)matched,
		(unsigned long long)undet, (unsigned long long)ether,
		(unsigned long long)limited, (unsigned long long)lim_drops, wide_sets,
		FP_CM_TUPLE_BITS, too_big);
	if (sets >= 20) /* the generators reach the terms */
		assert_true(undet > 0 && ether > 0);
	assert_true(too_big * 20 <= sets); /* the limit must not hide the test's sets */
	if (sets >= 20)
		assert_true(wide_sets > 0); /* the overflow path (tuples 63 and up) ran */
	assert_true(checked >= (uint64_t)(sets - too_big) * per * 9 / 10);
	assert_true(matched > checked / 10); /* the test is meaningless if nothing matches */
	if (sets >= 20) {
		assert_true(limited > matched / 50); /* and the buckets were compared */
		assert_true(lim_drops > 0);          /* and the limiter said no */
	}
	free(ref_buckets);
	fp_filter__close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_sets),
	};
	return cmocka_run_group_tests_name("filter_differential", tests, NULL, NULL);
}
