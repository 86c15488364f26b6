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
	/* the lb's backend side, last in the chain */
	assert_string_equal(fp_stage_by_slot(FP_STAGE_DECAP)->name, "decap");
	assert_null(fp_stage_by_name("nosuch"));
	assert_null(fp_stage_by_name(NULL));
}

/* The first slot of the chain no built-in stage takes (the tests' mark
 * stage's, 5, once every stage is in); -1 when none is left. */
static int free_slot(void)
{
	for (unsigned s = 0; s < FP_STAGE_CHAIN; s++)
		if (!fp_stage_by_slot(s))
			return (int)s;
	return -1;
}

static struct fp_stage_ops later = {
	.name = "later", .abi = 1, .meta_pin = "m", .prog_pin = "p",
};

static void test_add_refusals_and_order(void **state)
{
	const struct fp_stage_ops *const *t;
	struct fp_stage_ops dup_slot, dup_name, outside;
	char err[256] = "";
	int i, slot = free_slot();

	assert_true(slot >= 0);
	later.slot = (unsigned)slot;
	dup_slot = later, dup_name = later, outside = later;
	dup_slot.name = "other";
	dup_name.name = "filter"; /* a built-in's name, on the free slot */
	outside.name = "outside";
	outside.slot = FP_STAGE_CHAIN; /* the tap's slot is not the chain's */
	assert_int_equal(fp_stage_table__add(&dup_name), -EEXIST);
	assert_int_equal(fp_stage_table__add(&outside), -EINVAL);
	assert_int_equal(fp_stage_table__add(NULL), -EINVAL);
	assert_int_equal(fp_stage_table__add(&later), 0);
	assert_int_equal(fp_stage_table__add(&dup_slot), -EEXIST);
	/* added last, walked in slot order */
	t = fp_stage_table();
	for (i = 1; t[i]; i++)
		assert_true(t[i - 1]->slot < t[i]->slot);
	assert_ptr_equal(fp_stage_by_slot(later.slot), &later);
	assert_ptr_equal(fp_stage_by_name("later"), &later);
	assert_int_equal(fp_stage_table__check(err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_table),
		cmocka_unit_test(test_add_refusals_and_order),
	};

	return cmocka_run_group_tests_name("stage_table", tests, NULL, NULL);
}
