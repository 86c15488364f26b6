/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * src/lb/maglev.c, the lb's backend choice: a small table checked against
 * the paper's population loop written out naively (and pinned, so a change
 * of hash shows), every slot a valid backend, shares within 1% of the
 * weighted share for N = 2..100, minimal disruption when a backend leaves
 * (and the same table when it comes back), weight 0 = removed, order
 * independence, and every error with its message.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "lb/maglev.h"

#define M FP_MAGLEV_DEFAULT_SIZE

static uint32_t tab_a[M], tab_b[M];

/* backend number id as a key: a v4-mapped 10.0.x.y address and an id */
static void mkkey(struct fp_maglev_backend *b, uint32_t id, uint32_t weight)
{
	memset(b, 0, sizeof(*b));
	b->key[10] = 0xff;
	b->key[11] = 0xff;
	b->key[12] = 10;
	b->key[14] = (uint8_t)(id >> 8);
	b->key[15] = (uint8_t)id;
	b->key[16] = (uint8_t)(id * 37);
	b->weight = weight;
}

static void build_ok(const struct fp_maglev_backend *b, size_t n, uint32_t m, uint32_t *t)
{
	char err[128] = "";
	int rc = fp_maglev_build(b, n, m, t, err, sizeof(err));

	if (rc)
		fail_msg("fp_maglev_build(n %zu, size %u): %d %s", n, m, rc, err);
}

static void count(const uint32_t *t, uint32_t m, size_t n, uint32_t *cnt)
{
	memset(cnt, 0, n * sizeof(*cnt));
	for (uint32_t s = 0; s < m; s++) {
		if (t[s] >= n)
			fail_msg("slot %u: backend %u of %zu", s, t[s], n);
		cnt[t[s]]++;
	}
}

/* The paper's loop for equal weights, with permutation[j] = (offset + j * skip) % m,
 * backends taking turns in key order (the test's keys sort by id). */
static void naive(const struct fp_maglev_backend *b, size_t n, uint32_t m, uint32_t *t)
{
	uint32_t off[16], sk[16], next[16] = { 0 }, filled = 0;

	for (size_t i = 0; i < n; i++)
		fp_maglev_perm(b[i].key, m, &off[i], &sk[i]);
	for (uint32_t s = 0; s < m; s++)
		t[s] = UINT32_MAX;
	for (;;) {
		for (size_t i = 0; i < n; i++) {
			uint32_t c;

			do
				c = (uint32_t)((off[i] + (uint64_t)next[i]++ * sk[i]) % m);
			while (t[c] != UINT32_MAX);
			t[c] = (uint32_t)i;
			if (++filled == m)
				return;
		}
	}
}

static void test_small_prime(void **state)
{
	/*
	 * Pinned: the same table on every run and host. By hand, from the
	 * (offset, skip) of each key, asserted below:
	 *   b0 (8, 2):  8 10 12  1  3  5  7  9 11 ...
	 *   b1 (4, 4):  4  8 12  3  7 ...
	 *   b2 (2, 10): 2 12  9  6  3  0 ...
	 * round 1: b0 8, b1 4, b2 2; round 2: b0 10, b1 12 (8 taken), b2 9 (12 taken);
	 * round 3: b0 1, b1 3, b2 6; round 4: b0 5 (3 taken), b1 7, b2 0 (3 taken);
	 * round 5: b0 11 (7, 9 taken): 13 slots filled.
	 */
	static const uint32_t pinned[13] = { 2, 0, 2, 1, 1, 0, 2, 1, 0, 2, 0, 0, 1 };
	static const uint32_t want_perm[3][2] = { { 8, 2 }, { 4, 4 }, { 2, 10 } };
	struct fp_maglev_backend b[3];
	uint32_t t[13], ref[13], cnt[3];

	for (uint32_t i = 0; i < 3; i++)
		mkkey(&b[i], i + 1, 1);
	for (uint32_t i = 0; i < 3; i++) {
		uint32_t off, skip;

		fp_maglev_perm(b[i].key, 13, &off, &skip);
		assert_int_equal(off, want_perm[i][0]);
		assert_int_equal(skip, want_perm[i][1]);
	}
	build_ok(b, 3, 13, t);
	naive(b, 3, 13, ref);
	assert_memory_equal(t, ref, sizeof(t));
	assert_memory_equal(t, pinned, sizeof(t));
	count(t, 13, 3, cnt);
	/* 13 = 5 + 4 + 4: the first in key order gets the extra turn */
	assert_int_equal(cnt[0], 5);
	assert_int_equal(cnt[1], 4);
	assert_int_equal(cnt[2], 4);
}

static void test_slots_valid(void **state)
{
	struct fp_maglev_backend b[10];
	uint32_t cnt[10];

	for (uint32_t i = 0; i < 10; i++)
		mkkey(&b[i], i, i == 4 ? 0 : 1);
	memset(tab_a, 0xff, sizeof(tab_a));
	build_ok(b, 10, M, tab_a);
	count(tab_a, M, 10, cnt); /* fails on an unfilled or out-of-range slot */
	assert_int_equal(cnt[4], 0); /* weight 0: no slot */
	/* a table at the largest backend count */
	static struct fp_maglev_backend many[FP_MAGLEV_MAX_BACKENDS];
	static uint32_t cm[FP_MAGLEV_MAX_BACKENDS];

	for (uint32_t i = 0; i < FP_MAGLEV_MAX_BACKENDS; i++)
		mkkey(&many[i], i, 1);
	build_ok(many, FP_MAGLEV_MAX_BACKENDS, M, tab_a);
	count(tab_a, M, FP_MAGLEV_MAX_BACKENDS, cm);
	for (uint32_t i = 0; i < FP_MAGLEV_MAX_BACKENDS; i++)
		assert_in_range(cm[i], M / FP_MAGLEV_MAX_BACKENDS, M / FP_MAGLEV_MAX_BACKENDS + 1);
}

/* Each backend within 1% (relative) of w / sum(w) of the table, N = 2..100,
 * equal weights and weights 1..6. Returns the worst deviation in slots. */
static double check_shares(int weighted)
{
	static struct fp_maglev_backend b[100];
	uint32_t cnt[100];
	double worst = 0;

	for (uint32_t n = 2; n <= 100; n++) {
		uint64_t sum = 0;

		for (uint32_t i = 0; i < n; i++) {
			mkkey(&b[i], i, weighted ? 1 + (i * 7 + n) % 6 : 1);
			sum += b[i].weight;
		}
		build_ok(b, n, M, tab_a);
		count(tab_a, M, n, cnt);
		for (uint32_t i = 0; i < n; i++) {
			double share = (double)M * b[i].weight / (double)sum;
			double dev = cnt[i] > share ? cnt[i] - share : share - cnt[i];

			if (dev > 0.01 * share)
				fail_msg("n %u backend %u weight %u: %u slots, share %.1f", n, i,
					 b[i].weight, cnt[i], share);
			if (dev / share > worst)
				worst = dev / share;
		}
	}
	return worst;
}

static void test_shares(void **state)
{
	struct fp_maglev_backend b[3];
	uint32_t cnt[3];

	printf("# worst share deviation, equal weights: %.4f%%\n", 100 * check_shares(0));
	printf("# worst share deviation, weights 1-6: %.4f%%\n", 100 * check_shares(1));
	/* 1:2:3 */
	for (uint32_t i = 0; i < 3; i++)
		mkkey(&b[i], i, i + 1);
	build_ok(b, 3, M, tab_a);
	count(tab_a, M, 3, cnt);
	printf("# weights 1:2:3 -> %u %u %u\n", cnt[0], cnt[1], cnt[2]);
	assert_in_range(cnt[0], M / 6 - 1, M / 6 + 1);
	assert_in_range(cnt[1], 2 * (M / 6) - 1, 2 * (M / 6) + 2);
	assert_in_range(cnt[2], 3 * (M / 6) - 1, 3 * (M / 6) + 3);
	/* the gcd is taken out: 100:200:300 is 1:2:3 */
	uint32_t c2[3];

	for (uint32_t i = 0; i < 3; i++)
		b[i].weight = 100 * (i + 1);
	build_ok(b, 3, M, tab_b);
	count(tab_b, M, 3, c2);
	assert_memory_equal(tab_a, tab_b, sizeof(tab_a));
}

/*
 * Remove backend k of n: slots of the others that move, as a fraction of the
 * table. Also: weight 0 gives the very table of removal, and adding it back
 * (at the end of the array) gives the original table.
 */
static double moved_on_removal(uint32_t n, uint32_t k, int weighted)
{
	static struct fp_maglev_backend b[100], rest[100];
	static uint32_t restored[M];
	uint32_t moved = 0, j = 0;

	for (uint32_t i = 0; i < n; i++)
		mkkey(&b[i], i, weighted ? 1 + (i * 7 + n) % 6 : 1);
	build_ok(b, n, M, tab_a);
	for (uint32_t i = 0; i < n; i++)
		if (i != k)
			rest[j++] = b[i];
	build_ok(rest, n - 1, M, tab_b);
	for (uint32_t s = 0; s < M; s++) {
		uint32_t now = tab_b[s] >= k ? tab_b[s] + 1 : tab_b[s]; /* index in b[] */

		assert_int_not_equal(now, k);
		if (tab_a[s] != k && tab_a[s] != now)
			moved++;
	}
	/* down (weight 0) = removed */
	b[k].weight = 0;
	build_ok(b, n, M, restored);
	for (uint32_t s = 0; s < M; s++)
		assert_int_equal(restored[s], tab_b[s] >= k ? tab_b[s] + 1 : tab_b[s]);
	/* added back at the end: the original table, in its new indexes */
	b[k].weight = weighted ? 1 + (k * 7 + n) % 6 : 1;
	rest[n - 1] = b[k];
	build_ok(rest, n, M, restored);
	for (uint32_t s = 0; s < M; s++) {
		uint32_t r = restored[s] == n - 1 ? k : restored[s] >= k ? restored[s] + 1 : restored[s];

		assert_int_equal(r, tab_a[s]);
	}
	return (double)moved / M;
}

static void disruption(int weighted)
{
	double worst = 0, worst_over = -1;
	uint32_t wn = 0;

	for (uint32_t n = 2; n <= 100; n++) {
		uint32_t k = (n * 7 + 3) % n; /* varies which backend leaves */
		double f = moved_on_removal(n, k, weighted);
		/* the bound: at most 1/N + 1% of the table besides the removed one's */
		if (f > 1.0 / n + 0.01)
			fail_msg("n %u: %.4f of the table moved, bound %.4f", n, f, 1.0 / n + 0.01);
		if (f > worst)
			worst = f;
		if (f - 1.0 / n > worst_over) {
			worst_over = f - 1.0 / n;
			wn = n;
		}
	}
	printf("# %s weights, N 2..100: removal moves at most %.4f of the table besides the "
	       "removed backend's; worst over 1/N: %+.4f at N %u\n", weighted ? "1-6" : "equal",
	       worst, worst_over, wn);
}

static void test_disruption(void **state)
{
	disruption(0);
	disruption(1);
	/* 10 backends: the figure for the commit */
	double f10 = moved_on_removal(10, 3, 0), w10 = moved_on_removal(10, 3, 1);

	printf("# 10 backends, one removed: %.4f%% (equal weights), %.4f%% (weights 1-6) of the "
	       "table moved besides its own\n", 100 * f10, 100 * w10);
	assert_true(f10 < 0.01);
	assert_true(w10 < 0.01);
}

static void test_order_independent(void **state)
{
	struct fp_maglev_backend b[10], r[10];
	uint32_t perm[10] = { 7, 2, 9, 0, 5, 1, 8, 3, 6, 4 };

	for (uint32_t i = 0; i < 10; i++)
		mkkey(&b[i], i, 1 + i % 3);
	for (uint32_t i = 0; i < 10; i++)
		r[i] = b[perm[i]];
	build_ok(b, 10, M, tab_a);
	build_ok(r, 10, M, tab_b);
	for (uint32_t s = 0; s < M; s++)
		assert_int_equal(perm[tab_b[s]], tab_a[s]);
	/* and the same input twice gives the same table */
	build_ok(b, 10, M, tab_b);
	assert_memory_equal(tab_a, tab_b, sizeof(tab_a));
}

static void expect_err(const struct fp_maglev_backend *b, size_t n, uint32_t m, uint32_t *t,
		       int want, const char *msg)
{
	char err[160] = "";
	uint32_t before = t ? t[0] : 0;
	int rc = fp_maglev_build(b, n, m, t, err, sizeof(err));

	if (rc != want || strcmp(err, msg))
		fail_msg("n %zu size %u: got %d \"%s\", want %d \"%s\"", n, m, rc, err, want, msg);
	if (t)
		assert_int_equal(t[0], before); /* the caller's table untouched */
}

static void test_errors(void **state)
{
	static struct fp_maglev_backend b[FP_MAGLEV_MAX_BACKENDS + 1];

	for (uint32_t i = 0; i <= FP_MAGLEV_MAX_BACKENDS; i++)
		mkkey(&b[i], i, 1);
	tab_a[0] = 12345;
	expect_err(b, 3, 65536, tab_a, -EINVAL, "table size 65536: not a prime");
	expect_err(b, 3, 1, tab_a, -EINVAL, "table size 1: not a prime");
	expect_err(b, 3, 0, tab_a, -EINVAL, "table size 0: not a prime");
	expect_err(b, 4, 13, tab_a, -EINVAL,
		   "table size 13: too small for 4 backends (at least 4 per backend)");
	expect_err(b, 3, 16777259, tab_a, -EINVAL, "table size 16777259: at most 16777213");
	expect_err(b, FP_MAGLEV_MAX_BACKENDS + 1, M, tab_a, -EINVAL, "4097 backends: at most 4096");
	expect_err(b, 0, M, tab_a, -EINVAL, "no backends");
	expect_err(NULL, 3, M, tab_a, -EINVAL, "no backends");
	expect_err(b, 3, M, NULL, -EINVAL, "no table buffer");
	b[1].weight = FP_MAGLEV_MAX_WEIGHT + 1;
	expect_err(b, 3, M, tab_a, -EINVAL, "backend 1: weight 65536: at most 65535");
	b[0].weight = b[1].weight = b[2].weight = 0;
	expect_err(b, 3, M, tab_a, -EINVAL, "no backend with a weight > 0");
	b[0].weight = b[1].weight = b[2].weight = 1;
	b[2] = b[0];
	expect_err(b, 3, M, tab_a, -EINVAL, "backends 0 and 2: the same key");
	/* the edges that pass: 4 backends need 16 -> 17; the largest size */
	mkkey(&b[2], 2, 1);
	build_ok(b, 4, 17, tab_a);
	assert_true(fp_maglev_is_prime(FP_MAGLEV_MAX_SIZE));
	assert_false(fp_maglev_is_prime(FP_MAGLEV_MAX_SIZE + 2)); /* 16777215 = 3 * 5 * ... */
	assert_true(fp_maglev_is_prime(2));
	assert_false(fp_maglev_is_prime(4294967295u));
}

static void test_key(void **state)
{
	struct in_addr a4;
	struct in6_addr a6, m6;
	uint8_t k1[FP_MAGLEV_KEY_LEN], k2[FP_MAGLEV_KEY_LEN], id[16];

	for (int i = 0; i < 16; i++)
		id[i] = (uint8_t)(0xa0 + i);
	assert_int_equal(inet_pton(AF_INET, "198.51.100.7", &a4), 1);
	assert_int_equal(inet_pton(AF_INET6, "::ffff:198.51.100.7", &m6), 1);
	assert_int_equal(inet_pton(AF_INET6, "2001:db8::7", &a6), 1);
	/* a v4 backend and its mapped form are one key */
	assert_int_equal(fp_maglev_key(k1, AF_INET, &a4, id), 0);
	assert_int_equal(fp_maglev_key(k2, AF_INET6, &m6, id), 0);
	assert_memory_equal(k1, k2, sizeof(k1));
	assert_memory_equal(k1, &m6, 16);
	assert_memory_equal(k1 + 16, id, 16);
	/* the id counts; NULL is zeros */
	assert_int_equal(fp_maglev_key(k2, AF_INET, &a4, NULL), 0);
	assert_memory_not_equal(k1, k2, sizeof(k1));
	for (int i = 16; i < 32; i++)
		assert_int_equal(k2[i], 0);
	assert_int_equal(fp_maglev_key(k2, AF_INET6, &a6, id), 0);
	assert_memory_equal(k2, &a6, 16);
	memset(k2, 0x5a, sizeof(k2));
	assert_int_equal(fp_maglev_key(k2, AF_UNIX, &a4, id), -EINVAL);
	assert_int_equal(fp_maglev_key(k2, AF_INET, NULL, id), -EINVAL);
	assert_int_equal(k2[0], 0x5a); /* untouched on error */
}

static void test_largest_table(void **state)
{
	struct fp_maglev_backend b[3];
	uint32_t *t = malloc(FP_MAGLEV_MAX_SIZE * sizeof(*t)), cnt[3];

	assert_non_null(t);
	for (uint32_t i = 0; i < 3; i++)
		mkkey(&b[i], i, 1);
	build_ok(b, 3, FP_MAGLEV_MAX_SIZE, t);
	count(t, FP_MAGLEV_MAX_SIZE, 3, cnt);
	for (uint32_t i = 0; i < 3; i++)
		assert_in_range(cnt[i], FP_MAGLEV_MAX_SIZE / 3, FP_MAGLEV_MAX_SIZE / 3 + 1);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_prime),
		cmocka_unit_test(test_slots_valid),
		cmocka_unit_test(test_shares),
		cmocka_unit_test(test_disruption),
		cmocka_unit_test(test_order_independent),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_largest_table),
	};

	return cmocka_run_group_tests_name("lb_maglev", tests, NULL, NULL);
}
