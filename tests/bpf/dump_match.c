// SPDX-License-Identifier: BSD-2-Clause
/*
 * The dump stage's --match (one rule's terms evaluated directly in BPF)
 * against the reference matcher, on random rules and random frames; and
 * the sampling path: a selected packet reaches the ring with its verdict.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/bpf.h>

#include "common/pkt.h"
#include "common/rand.h"
#include "dump/dump.h"
#include "common/filter_fixture.h"
#include "filter/filter_internal.h"
#include "rules/match_ref.h"
#include "dump.skel.h"


/* The dump stage's object in the filter's test pipeline. */
static struct dump_bpf *dump_skel(struct fp_filter *f)
{
	return fp_pipeline__kept(fp_filter__pipeline(f), "dump");
}

static struct fp_filter *f;

static int setup(void **state)
{
	return filter_fixture_open(&f);
}

static int teardown(void **state)
{
	fp_filter__close(f);
	return 0;
}

static int count_cb(void *ctx, const struct fp_sample *s, const uint8_t *data,
		    const char *rule_id, uint64_t ts)
{
	(*(int *)ctx)++;
	return 0;
}

static void test_match_vs_reference(void **state)
{
	unsigned rules = 300, per = 300;
	uint64_t checked = 0, hits = 0;

	if (!f)
		skip();
	for (unsigned i = 0; i < rules; i++) {
		struct fp_dump_opts o = { .sample_n = 1 };
		struct fp_dump *d;
		struct fp_rule rule;
		struct rng r;
		char err[256];
		int n = 0, rule_hits = 0;

		rng_seed(&r, 7000 + i);
		random_rule(&r, i, &rule);
		o.match = &rule;
		assert_int_equal(fp_dump__start(fp_filter__pipeline(f), f, &o, count_cb, &n, &d, err, sizeof(err)), 0);
		for (unsigned p = 0; p < per; p++) {
			uint8_t frame[PKT_MAX];
			struct fp_ref_pkt ref;
			struct rng pr;
			uint32_t verdict, idx;
			size_t len;
			bool want;

			rng_seed2(&pr, 7000 + i, p);
			len = random_packet(&pr, frame, sizeof(frame));
			if (len < 14)
				continue;
			fp_ref__parse(frame, len, &ref);
			want = fp_ref__rule_matches(&rule, &ref);
			assert_int_equal(fp_filter__run(f, frame, len, &verdict, &idx), 0);
			if (dump_skel(f)->bss->last_match != want) {
				char text[FP_RULE_TEXT];

				fp_rule__format(&rule, text, sizeof(text));
				fprintf(stderr, "match %s: reference %d, dump stage %u\n", text, want,
					dump_skel(f)->bss->last_match);
				pkt_hexdump(stderr, frame, len);
				fail();
			}
			checked++;
			hits += want;
			rule_hits += want;
		}
		fp_dump__drain(d);
		fp_dump__stop(d);
		/* the ring got exactly the matching frames (sample 1/1) */
		if (n != rule_hits) {
			char text[FP_RULE_TEXT];

			fp_rule__format(&rule, text, sizeof(text));
			fail_msg("match %s: %d frames matched, the ring got %d", text, rule_hits, n);
		}
	}
	fprintf(stderr, "dump match: %llu frames agree, %llu matched\n",
		(unsigned long long)checked, (unsigned long long)hits);
	assert_true(hits > checked / 50);
}

static void test_sampled_frames_reach_ring(void **state)
{
	struct fp_ruleset set;
	struct fp_diags dg = { 0 };
	struct fp_dump_opts o = { .drops_only = true, .sample_n = 1 };
	struct fp_dump *d;
	char err[256];
	int n = 0;
	uint64_t sampled, lost;
	static const char rules[] = "drop udp dport 9 id nine\n";

	if (!f)
		skip();
	assert_int_equal(fp_ruleset__parse(rules, strlen(rules), &set, &dg), 0);
	assert_int_equal(fp_filter__apply(f, &set, err, sizeof(err)), 0);
	assert_int_equal(fp_dump__start(fp_filter__pipeline(f), f, &o, count_cb, &n, &d, err, sizeof(err)), 0);
	for (int i = 0; i < 100; i++) {
		struct pkt b;
		uint32_t v, idx;

		pkt_init(&b);
		pkt_eth(&b, 0);
		pkt_ipv4(&b, &(struct pkt_ipv4_opts){ .src = "192.0.2.1", .dst = "192.0.2.2", .ttl = 64 });
		pkt_udp(&b, 1000, i % 2 ? 9 : 10); /* half dropped */
		pkt_finish(&b);
		assert_int_equal(fp_filter__run(f, b.buf, b.len, &v, &idx), 0);
	}
	fp_dump__drain(d);
	fp_dump__counts(d, &sampled, &lost);
	fp_dump__stop(d);
	assert_int_equal(n, 50);
	assert_int_equal(sampled, 50);
	assert_int_equal(lost, 0);
	fp_ruleset__free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_vs_reference),
		cmocka_unit_test(test_sampled_frames_reach_ring),
	};
	return cmocka_run_group_tests_name("dump_match", tests, setup, teardown);
}
