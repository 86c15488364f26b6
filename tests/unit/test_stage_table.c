/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The pipeline's stage table (src/pipeline/stage_table.c): the built-in
 * stages use each slot once, in chain order, under unique names, with the
 * pins the pipeline needs named; a stage added later (the tests' mark
 * stage, lb to come) is refused on a taken slot or name or outside the
 * chain, and is kept in slot order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pipeline/pipeline.h"

static void test_builtin_table(void **state)
{
	const struct fp_stage_ops *const *t = fp_stage_table();
	unsigned used = 0;
	char err[256] = "";
	int n = 0;

	assert_int_equal(fp_stage_table__check(err, sizeof(err)), 0);
	for (; t[n]; n++) {
		assert_true(t[n]->slot < FP_STAGE_CHAIN);
		assert_false(used & (1u << t[n]->slot));
		used |= 1u << t[n]->slot;
		if (n)
			assert_true(t[n - 1]->slot < t[n]->slot);
		assert_ptr_equal(fp_stage_by_name(t[n]->name), t[n]);
		assert_ptr_equal(fp_stage_by_slot(t[n]->slot), t[n]);
		assert_non_null(t[n]->prog_pin);
		assert_non_null(t[n]->meta_pin);
	}
	assert_true(n >= 2);
	/* the article's order: the dump first, then the filter */
	assert_string_equal(fp_stage_by_slot(FP_STAGE_DUMP)->name, "dump");
	assert_string_equal(fp_stage_by_slot(FP_STAGE_FILTER)->name, "filter");
	assert_true(fp_stage_by_slot(FP_STAGE_DUMP)->tap);
	assert_non_null(fp_stage_by_slot(FP_STAGE_FILTER)->fused_pin);
	assert_string_equal(fp_stage_by_slot(FP_STAGE_BRIDGE)->name, "bridge");
	/* the lb's backend side, last in the chain */
	assert_string_equal(fp_stage_by_slot(FP_STAGE_DECAP)->name, "decap");
	assert_null(fp_stage_by_name("nosuch"));
	assert_null(fp_stage_by_name(NULL));
}

static const struct fp_stage_ops later = {
	.name = "later", .slot = 5, .abi = 1, .meta_pin = "m", .prog_pin = "p",
};
static const struct fp_stage_ops middle = {
	.name = "middle", .slot = 3, .abi = 1, .meta_pin = "m", .prog_pin = "p",
};

static void test_add_refusals_and_order(void **state)
{
	const struct fp_stage_ops *const *t;
	struct fp_stage_ops dup_slot = middle, dup_name = later, outside = later;
	char err[256] = "";
	int i;

	dup_slot.name = "other";
	dup_name.slot = 2; /* a free slot: only the name is taken */
	outside.name = "outside";
	outside.slot = FP_STAGE_CHAIN; /* the tap's slot is not the chain's */
	assert_int_equal(fp_stage_table__add(&later), 0);
	assert_int_equal(fp_stage_table__add(&middle), 0);
	assert_int_equal(fp_stage_table__add(&dup_slot), -EEXIST);
	assert_int_equal(fp_stage_table__add(&dup_name), -EEXIST);
	assert_int_equal(fp_stage_table__add(&outside), -EINVAL);
	assert_int_equal(fp_stage_table__add(NULL), -EINVAL);
	/* added out of order, walked in slot order */
	t = fp_stage_table();
	for (i = 1; t[i]; i++)
		assert_true(t[i - 1]->slot < t[i]->slot);
	assert_ptr_equal(fp_stage_by_slot(3), &middle);
	assert_ptr_equal(fp_stage_by_name("later"), &later);
	assert_int_equal(fp_stage_table__check(err, sizeof(err)), 0);
}

static const struct fp_stage_ops bad_name = {
	.name = "Bad-Name", .slot = 2, .abi = 1, .meta_pin = "m", .prog_pin = "p",
};

static void test_check_names_a_bad_entry(void **state)
{
	char err[256] = "";

	/* added (the slot and name are free), but the check names it */
	assert_int_equal(fp_stage_table__add(&bad_name), 0);
	assert_int_equal(fp_stage_table__check(err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "Bad-Name"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_table),
		cmocka_unit_test(test_add_refusals_and_order),
		cmocka_unit_test(test_check_names_a_bad_entry),
	};

	return cmocka_run_group_tests_name("stage_table", tests, NULL, NULL);
}
