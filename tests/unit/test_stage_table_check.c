/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fp_stage_table__check names a bad entry. Its own binary: the entry stays
 * in the table once added, and it needs the one free slot of the chain
 * (test_stage_table.c takes it for a good entry).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pipeline/pipeline.h"

static void test_check_names_a_bad_entry(void **state)
{
	struct fp_stage_ops bad = { .name = "Bad-Name", .abi = 1, .meta_pin = "m", .prog_pin = "p" };
	char err[256] = "";
	unsigned s = 0;

	while (s < FP_STAGE_CHAIN && fp_stage_by_slot(s))
		s++;
	assert_true(s < FP_STAGE_CHAIN);
	bad.slot = s;
	assert_int_equal(fp_stage_table__check(err, sizeof(err)), 0);
	/* added (the slot and name are free), but the check names it */
	assert_int_equal(fp_stage_table__add(&bad), 0);
	assert_int_equal(fp_stage_table__check(err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "Bad-Name"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_names_a_bad_entry),
	};

	return cmocka_run_group_tests_name("stage_table_check", tests, NULL, NULL);
}
