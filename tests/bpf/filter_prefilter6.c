// SPDX-License-Identifier: BSD-2-Clause
/*
 * The IPv6 /32 and /48 prefilter (include/fastpath/filter_abi.h,
 * fp_flt_pre.w48) on the real pipeline (BPF_PROG_TEST_RUN): a /16 whose
 * long prefixes lie in one /32 names it and a bitmap of its /48s, and the
 * stage probes the lengths over 32 only where the /48's bit is set. The
 * verdicts must agree with the reference matcher, and the stage must read
 * the bitmap: with a /48's bit cleared in the live map, a packet of that
 * /48 is no longer dropped by its /48 rule (a stage that ignored the
 * bitmap and probed every /48 would still drop it).
 */
#include <errno.h>
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
#include "common/filter_fixture.h"
#include "filter/filter_internal.h"
#include "rules/match_ref.h"

enum { XDP_DROP_ = 1, XDP_PASS_ = 2 };

static struct fp_filter *filter;

static int setup(void **state)
{
	return filter_fixture_open(&filter);
}

static int teardown(void **state)
{
	fp_filter__close(filter);
	return 0;
}

/* Rules 0..4 of the set (the /33 covers 2001:db8:8000::/33). */
static const char RULES[] = "drop src 2001:db8:1::/48\n"
			    "drop src 2001:db8:8000::/33\n"
			    "drop src 2001:db8:5:6::/64\n"
			    "pass src 2001:db8:7::1\n"
			    "drop src 2001:d00::/24\n"
			    "default pass\n";

static void apply_text(const char *text, struct fp_ruleset *set)
{
	struct fp_diags d = { 0 };
	char err[512];

	assert_int_equal(fp_ruleset__parse(text, strlen(text), set, &d), 0);
	if (fp_filter__apply(filter, set, err, sizeof(err))) {
		fprintf(stderr, "apply: %s\n", err);
		fail();
	}
}

/* The deciding rule of a UDP packet from src (FP_FLT_NO_RULE: none),
 * checked against the reference matcher. */
static uint32_t run_from(const struct fp_ruleset *set, const char *src)
{
	struct pkt b;
	uint32_t verdict, rule;
	long want;

	pkt_init(&b);
	pkt_eth(&b, 0);
	pkt_ipv6(&b, &(struct pkt_ipv6_opts){ .src = src, .dst = "2001:db8:ffff::2", .hop_limit = 64 });
	pkt_udp(&b, 1000, 2000);
	pkt_finish(&b);
	assert_int_equal(fp_filter__run(filter, b.buf, b.len, &verdict, &rule), 0);
	want = fp_ref__classify(set, b.buf, b.len);
	if ((want < 0 && rule != FP_FLT_NO_RULE) || (want >= 0 && rule != (uint32_t)want))
		fail_msg("%s: reference rule %ld, xdp rule %d", src, want, (int)rule);
	assert_int_equal(verdict, rule == FP_FLT_NO_RULE || rule == 3 ? XDP_PASS_ : XDP_DROP_);
	return rule;
}

static void test_verdicts(void **state)
{
	struct fp_ruleset set;

	if (!filter)
		skip();
	apply_text(RULES, &set);
	assert_int_equal(run_from(&set, "2001:db8:1::9"), 0);       /* bit set: probed */
	assert_int_equal(run_from(&set, "2001:db8:1:ffff::1"), 0);
	assert_int_equal(run_from(&set, "2001:db8:8123::1"), 1);    /* the /33's range */
	assert_int_equal(run_from(&set, "2001:db8:ffff::1"), 1);
	assert_int_equal(run_from(&set, "2001:db8:5:6::1"), 2);     /* /64 in its /48 */
	assert_int_equal(run_from(&set, "2001:db8:5:7::1"), 4);     /* its /48, not the /64 */
	assert_int_equal(run_from(&set, "2001:db8:7::1"), 3);
	assert_int_equal(run_from(&set, "2001:db8:2::1"), 4);       /* bit clear: the /24 */
	assert_int_equal(run_from(&set, "2001:db9:1::1"), 4);       /* another /32: the /24 */
	assert_int_equal(run_from(&set, "2001:100:1::1"), FP_FLT_NO_RULE);
	assert_int_equal(run_from(&set, "2002:db8:1::1"), FP_FLT_NO_RULE);
	fp_ruleset__free(&set);
}

/* The live generation's /48 bitmap element of block 0 holding /48 v. */
static void b48_elem(uint32_t v, __u32 *key)
{
	struct fp_flt_state st;

	assert_int_equal(fp_filter__state(filter, &st), 0);
	*key = st.gen * filter->gen_n[GM_PRE] + FP_PRE_B48 + (v >> 8);
}

static void test_bitmap_is_read(void **state)
{
	struct fp_ruleset set;
	struct fp_flt_pre_bits e;
	__u32 key;

	if (!filter)
		skip();
	apply_text("drop src 2001:db8:1::/48\ndefault pass\n", &set);
	assert_int_equal(run_from(&set, "2001:db8:1::9"), 0);
	b48_elem(1, &key);
	assert_int_equal(bpf_map_lookup_elem(filter->gen_fd[GM_PRE], &key, &e), 0);
	assert_int_equal(e.w[0], 1ull << 1); /* the compiler set /48 1's bit alone */
	e.w[0] = 0;
	assert_int_equal(bpf_map_update_elem(filter->gen_fd[GM_PRE], &key, &e, 0), 0);
	{
		struct pkt b;
		uint32_t verdict, rule;

		pkt_init(&b);
		pkt_eth(&b, 0);
		pkt_ipv6(&b, &(struct pkt_ipv6_opts){ .src = "2001:db8:1::9", .dst = "2001:db8:ffff::2",
						      .hop_limit = 64 });
		pkt_udp(&b, 1000, 2000);
		pkt_finish(&b);
		assert_int_equal(fp_filter__run(filter, b.buf, b.len, &verdict, &rule), 0);
		assert_int_equal(rule, FP_FLT_NO_RULE); /* the cleared bit skipped the probe */
		assert_int_equal(verdict, XDP_PASS_);
	}
	fp_ruleset__free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_bitmap_is_read),
	};
	return cmocka_run_group_tests_name("filter_prefilter6", tests, setup, teardown);
}
