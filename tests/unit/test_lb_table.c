/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fp_lb_build_table (src/lb/lb_table.c): a VIP's table from the lb_backends
 * entries: only that VIP's backends in use get slots, drained and down ones
 * none, weights honoured, no backend taking new flows gives FP_LB_NO_BACKEND
 * everywhere, and the table by backend address does not depend on which
 * entries hold the backends (so two lb hosts agree whatever their order of
 * commands).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lb/lb_table.h"

#define SIZE 65537u

static struct fp_lb_backend all[FP_LB_MAX_BACKENDS];
static __u32 t1[SIZE], t2[SIZE];
static char err[256];

static void put(__u32 i, __u32 vip, __u8 last, __u16 weight, __u8 flags)
{
	memset(&all[i], 0, sizeof(all[i]));
	all[i].addr[0] = 10;
	all[i].addr[3] = last;
	all[i].family = 4;
	all[i].weight = weight;
	all[i].vip_index = vip;
	all[i].flags = FP_LB_BE_USED | flags;
}

static unsigned count(const __u32 *t, __u32 v)
{
	unsigned n = 0;

	for (__u32 s = 0; s < SIZE; s++)
		n += t[s] == v;
	return n;
}

static void test_states_and_vips(void **state)
{
	__u32 active = 0;

	(void)state;
	memset(all, 0, sizeof(all));
	put(0, 0, 11, 1, 0);
	put(1, 0, 12, 2, 0);
	put(2, 0, 13, 1, FP_LB_BE_DRAIN);
	put(3, 0, 14, 1, FP_LB_BE_DOWN);
	put(4, 1, 15, 1, 0);           /* another VIP's */
	all[5] = all[0];
	all[5].flags = 0;              /* a freed entry of this VIP */
	all[5].addr[3] = 16;
	assert_int_equal(fp_lb_build_table(all, 0, SIZE, t1, &active, err, sizeof(err)), 0);
	assert_int_equal(active, 2);
	assert_int_equal(count(t1, 0) + count(t1, 1), SIZE);
	assert_int_equal(count(t1, 2) + count(t1, 3) + count(t1, 4) + count(t1, 5), 0);
	/* weight 2 gets twice weight 1's share, within 1% of the table */
	assert_true(abs((int)count(t1, 1) - 2 * (int)count(t1, 0)) < (int)SIZE / 100);
}

static void test_none_active(void **state)
{
	__u32 active = 9;

	(void)state;
	memset(all, 0, sizeof(all));
	assert_int_equal(fp_lb_build_table(all, 0, 13, t1, &active, err, sizeof(err)), 0);
	assert_int_equal(active, 0);
	for (int s = 0; s < 13; s++)
		assert_int_equal(t1[s], FP_LB_NO_BACKEND);
	put(7, 0, 11, 1, FP_LB_BE_DOWN);
	put(8, 0, 12, 1, FP_LB_BE_DRAIN);
	assert_int_equal(fp_lb_build_table(all, 0, 13, t1, &active, err, sizeof(err)), 0);
	assert_int_equal(active, 0);
	for (int s = 0; s < 13; s++)
		assert_int_equal(t1[s], FP_LB_NO_BACKEND);
}

static void test_entry_order_independent(void **state)
{
	__u32 a1, a2;

	(void)state;
	memset(all, 0, sizeof(all));
	for (int i = 0; i < 10; i++)
		put(i, 3, (__u8)(20 + i), (__u16)(1 + i % 3), 0);
	assert_int_equal(fp_lb_build_table(all, 3, SIZE, t1, &a1, err, sizeof(err)), 0);
	/* the same backends in other entries, in another order */
	memset(all, 0, sizeof(all));
	for (int i = 0; i < 10; i++)
		put(100 + 9 - i, 3, (__u8)(20 + i), (__u16)(1 + i % 3), 0);
	assert_int_equal(fp_lb_build_table(all, 3, SIZE, t2, &a2, err, sizeof(err)), 0);
	assert_int_equal(a1, a2);
	for (__u32 s = 0; s < SIZE; s++)
		assert_int_equal(100 + 9 - t1[s], t2[s]); /* entry i moved to 109 - i */
}

static void test_table_too_small(void **state)
{
	__u32 active;

	(void)state;
	memset(all, 0, sizeof(all));
	for (int i = 0; i < 4; i++)
		put(i, 0, (__u8)(30 + i), 1, 0);
	/* 13 slots hold 3 backends at 4 slots each: Maglev refuses, with a message */
	assert_int_equal(fp_lb_build_table(all, 0, 13, t1, &active, err, sizeof(err)), -EINVAL);
	assert_true(err[0] != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states_and_vips),
		cmocka_unit_test(test_none_active),
		cmocka_unit_test(test_entry_order_independent),
		cmocka_unit_test(test_table_too_small),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
