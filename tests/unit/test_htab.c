/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * src/util/htab.c, the compiler's open-addressing table: sizing, insert
 * and find, keys that share a home slot, growth under many inserts (every
 * key still found with its value), iteration (each key once), and bad
 * input (a zeroed or freed table, a size hint no table can hold).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/htab.h"

static bool pow2(size_t x)
{
	return x && !(x & (x - 1));
}

static void test_init_sizes(void **state)
{
	struct fp_htab h;

	assert_int_equal(fp_htab__init(&h, 8, 0), 0);
	assert_int_equal(h.cap, 16); /* the smallest table */
	assert_int_equal(h.n, 0);
	assert_int_equal(h.ksz, 8);
	fp_htab__free(&h);
	/* room for the hint at half load, a power of two */
	assert_int_equal(fp_htab__init(&h, 4, 100), 0);
	assert_int_equal(h.cap, 256);
	fp_htab__free(&h);
	assert_int_equal(fp_htab__init(&h, 4, 128), 0);
	assert_int_equal(h.cap, 256);
	fp_htab__free(&h);
	assert_int_equal(fp_htab__init(&h, 4, 129), 0);
	assert_int_equal(h.cap, 512);
	fp_htab__free(&h);
}

static void test_add_find(void **state)
{
	struct fp_htab h;
	uint64_t k1 = 0x1111, k2 = 0x2222, k3 = 0x3333;
	uint32_t *v;

	assert_int_equal(fp_htab__init(&h, sizeof(uint64_t), 4), 0);
	assert_null(fp_htab__find(&h, &k1));
	assert_int_equal(fp_htab__add(&h, &k1, 10), 1);
	assert_int_equal(fp_htab__add(&h, &k2, 20), 1);
	assert_int_equal(h.n, 2);
	v = fp_htab__find(&h, &k1);
	assert_non_null(v);
	assert_int_equal(*v, 10);
	v = fp_htab__find(&h, &k2);
	assert_non_null(v);
	assert_int_equal(*v, 20);
	assert_null(fp_htab__find(&h, &k3));
	/* a key already there keeps its value */
	assert_int_equal(fp_htab__add(&h, &k1, 99), 0);
	assert_int_equal(*fp_htab__find(&h, &k1), 10);
	assert_int_equal(h.n, 2);
	/* the value is the caller's to change in place */
	*fp_htab__find(&h, &k2) = 21;
	assert_int_equal(*fp_htab__find(&h, &k2), 21);
	/* the key is copied: the caller's buffer may change afterwards */
	k3 = 0x4444;
	assert_int_equal(fp_htab__add(&h, &k3, 44), 1);
	k3 = 0x3333;
	assert_null(fp_htab__find(&h, &k3));
	k3 = 0x4444;
	assert_int_equal(*fp_htab__find(&h, &k3), 44);
	fp_htab__free(&h);
}

/* Keys of ksz bytes compare by every byte, the last one included: two
 * keys with the same home slot that differ only there are two keys. */
static void test_whole_key_compared(void **state)
{
	struct fp_htab h;
	uint8_t a[13] = { 0 }, b[13] = { 0 };

	assert_int_equal(fp_htab__init(&h, sizeof(a), 0), 0);
	assert_int_equal(h.cap, 16);
	do
		b[12]++;
	while ((fp_hash_bytes(b, sizeof(b)) & 15) != (fp_hash_bytes(a, sizeof(a)) & 15));
	assert_int_equal(fp_htab__add(&h, a, 1), 1);
	assert_null(fp_htab__find(&h, b));
	assert_int_equal(fp_htab__add(&h, b, 2), 1);
	assert_int_equal(*fp_htab__find(&h, a), 1);
	assert_int_equal(*fp_htab__find(&h, b), 2);
	fp_htab__free(&h);
}

/* Keys whose hash lands on the same home slot of a 16-slot table. */
static void test_collisions(void **state)
{
	struct fp_htab h;
	uint32_t keys[6], absent = 0, n = 0;

	assert_int_equal(fp_htab__init(&h, sizeof(uint32_t), 0), 0);
	assert_int_equal(h.cap, 16);
	for (uint32_t k = 0; n < 6; k++) {
		if ((fp_hash_bytes(&k, sizeof(k)) & 15) == 3)
			keys[n++] = k;
	}
	for (uint32_t k = keys[5] + 1;; k++) {
		if ((fp_hash_bytes(&k, sizeof(k)) & 15) == 3) {
			absent = k;
			break;
		}
	}
	/* 6 keys stay below half of 16: no growth, one chain of probes */
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(fp_htab__add(&h, &keys[i], 100 + i), 1);
	assert_int_equal(h.cap, 16);
	for (unsigned i = 0; i < 6; i++) {
		uint32_t *v = fp_htab__find(&h, &keys[i]);

		assert_non_null(v);
		assert_int_equal(*v, 100 + i);
		assert_int_equal(fp_htab__add(&h, &keys[i], 0), 0);
	}
	assert_null(fp_htab__find(&h, &absent));
	assert_int_equal(h.n, 6);
	/* the probe wraps past the last slot */
	fp_htab__free(&h);
	assert_int_equal(fp_htab__init(&h, sizeof(uint32_t), 0), 0);
	n = 0;
	for (uint32_t k = 0; n < 4; k++) {
		if ((fp_hash_bytes(&k, sizeof(k)) & 15) == 15) {
			keys[n] = k;
			assert_int_equal(fp_htab__add(&h, &k, k ^ 0x5a5a), 1);
			n++;
		}
	}
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(*fp_htab__find(&h, &keys[i]), keys[i] ^ 0x5a5a);
	fp_htab__free(&h);
}

static void test_growth_and_iteration(void **state)
{
	enum { N = 20000 };
	struct fp_htab h;
	uint8_t *seen = calloc(N, 1);
	size_t pos = 0, visits = 0;
	const void *key;
	uint32_t val;

	assert_non_null(seen);
	assert_int_equal(fp_htab__init(&h, sizeof(uint64_t), 0), 0);
	for (uint64_t i = 0; i < N; i++) {
		uint64_t k = i * 0x9e3779b97f4a7c15ULL; /* spread, distinct */

		assert_int_equal(fp_htab__add(&h, &k, (uint32_t)i), 1);
		/* at most half full, a power of two, after every insert */
		assert_true(h.n * 2 <= h.cap);
		assert_true(pow2(h.cap));
	}
	assert_int_equal(h.n, N);
	for (uint64_t i = 0; i < N; i++) {
		uint64_t k = i * 0x9e3779b97f4a7c15ULL;
		uint32_t *v = fp_htab__find(&h, &k);

		assert_non_null(v);
		assert_int_equal(*v, i);
	}
	/* each key once, with its value */
	while (fp_htab__next(&h, &pos, &key, &val)) {
		uint64_t k;

		memcpy(&k, key, sizeof(k));
		assert_true(val < N);
		assert_int_equal(k, (uint64_t)val * 0x9e3779b97f4a7c15ULL);
		assert_int_equal(seen[val], 0);
		seen[val] = 1;
		visits++;
	}
	assert_int_equal(visits, N);
	assert_false(fp_htab__next(&h, &pos, &key, &val)); /* stays at the end */
	fp_htab__free(&h);
	free(seen);
}

static void test_empty_and_freed(void **state)
{
	struct fp_htab h;
	uint64_t k = 7;
	size_t pos = 0;
	const void *key;
	uint32_t val;

	memset(&h, 0, sizeof(h)); /* never initialised */
	assert_null(fp_htab__find(&h, &k));
	assert_false(fp_htab__next(&h, &pos, &key, &val));
	fp_htab__free(&h); /* freeing it is harmless */
	assert_int_equal(fp_htab__init(&h, sizeof(k), 0), 0);
	assert_int_equal(fp_htab__add(&h, &k, 1), 1);
	fp_htab__free(&h);
	assert_int_equal(h.cap, 0);
	assert_int_equal(h.n, 0);
	assert_null(fp_htab__find(&h, &k)); /* after free: empty, not a dangling read */
	fp_htab__free(&h);                  /* twice is harmless */
	pos = 0;
	assert_false(fp_htab__next(&h, &pos, &key, &val));
}

/*
 * A size hint no table can hold is refused with -ENOMEM, at once. Run in
 * a child with an alarm: a sizing loop that never ends fails the test
 * instead of hanging it.
 */
static int init_in_child(size_t ksz, size_t hint)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		struct fp_htab h;
		int rc;

		alarm(5);
		rc = fp_htab__init(&h, ksz, hint);
		if (!rc)
			fp_htab__free(&h);
		_exit(rc == -ENOMEM ? 0 : rc == 0 ? 1 : 2);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		return -WTERMSIG(status);
	return WEXITSTATUS(status);
}

static void test_impossible_hint(void **state)
{
	static const size_t hints[] = {
		SIZE_MAX, SIZE_MAX / 2, SIZE_MAX / 2 + 1, SIZE_MAX / 4 + 1, (size_t)1 << 62,
		(size_t)1 << 60,
	};

	for (unsigned i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		int rc = init_in_child(8, hints[i]);

		if (rc)
			fail_msg("fp_htab__init(ksz 8, hint %zu): %s", hints[i],
				 rc == -SIGALRM ? "did not return within 5 s" :
				 rc == 1 ? "succeeded" : "not -ENOMEM");
	}
	/* a key size that makes slots * ksz overflow */
	assert_int_equal(init_in_child((size_t)1 << 53, 1000), 0); /* 2^11 * 2^53 wraps to 0 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_sizes),
		cmocka_unit_test(test_add_find),
		cmocka_unit_test(test_whole_key_compared),
		cmocka_unit_test(test_collisions),
		cmocka_unit_test(test_growth_and_iteration),
		cmocka_unit_test(test_empty_and_freed),
		cmocka_unit_test(test_impossible_hint),
	};

	return cmocka_run_group_tests_name("htab", tests, NULL, NULL);
}
