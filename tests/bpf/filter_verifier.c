// SPDX-License-Identifier: BSD-2-Clause
/*
 * The verifier's budget: a program is refused when checking it takes more
 * than 1,000,000 instructions, and the count moves with the kernel build
 * and with small changes in the code (an extra branch before the tuple
 * walk once took the staged filter from ~690,000 past the limit). Each
 * filter program must stay well inside it, so that growth shows up here as
 * a failed test instead of as a filter that does not load on another
 * machine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>
#include <bpf/bpf.h>

#include "common/filter_fixture.h"
#include "filter/filter_internal.h"

/* 80% of BPF_COMPLEXITY_LIMIT_INSNS */
#define HEADROOM_LIMIT 800000u

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

static unsigned verified_insns(int fd)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	assert_true(fd >= 0);
	assert_int_equal(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
	assert_true(info.verified_insns > 0); /* the kernel reports it (5.16+) */
	return info.verified_insns;
}

static void test_filter_programs_headroom(void **state)
{
	unsigned entry, staged;

	if (!filter)
		skip();
	entry = verified_insns(filter->fused_fd);
	staged = verified_insns(filter->filter_fd);
	fprintf(stderr, "# verified insns: fp_entry_filter %u, fp_filter %u (limit %u)\n", entry,
		staged, HEADROOM_LIMIT);
	assert_true(entry < HEADROOM_LIMIT);
	assert_true(staged < HEADROOM_LIMIT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_programs_headroom),
	};

	return cmocka_run_group_tests_name("filter_verifier", tests, setup, teardown);
}
