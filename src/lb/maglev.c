// SPDX-License-Identifier: BSD-2-Clause
/* Maglev consistent hashing: see maglev.h. */
#include <errno.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lb/maglev.h"

#define EMPTY UINT32_MAX

/* Two fixed seeds: the offset and skip hashes must be independent. */
#define SEED_OFFSET 0x6d61676c65763031ull /* "maglev01" */
#define SEED_SKIP 0x9e3779b97f4a7c15ull

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* The 64-bit finalizer of MurmurHash3: every input bit flips half the output. */
static uint64_t fmix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* Key bytes taken 8 at a time, little-endian by construction: the same on every host. */
static uint64_t key_hash(const uint8_t *key, uint64_t seed)
{
	uint64_t h = fmix64(seed ^ FP_MAGLEV_KEY_LEN);

	for (size_t i = 0; i < FP_MAGLEV_KEY_LEN; i += 8) {
		uint64_t w = 0;

		for (size_t j = 0; j < 8; j++)
			w |= (uint64_t)key[i + j] << (8 * j);
		h = fmix64(h ^ w) + 0x9e3779b97f4a7c15ull;
	}
	return fmix64(h);
}

void fp_maglev_perm(const uint8_t key[FP_MAGLEV_KEY_LEN], uint32_t m, uint32_t *offset,
		    uint32_t *skip)
{
	*offset = (uint32_t)(key_hash(key, SEED_OFFSET) % m);
	*skip = m > 1 ? (uint32_t)(key_hash(key, SEED_SKIP) % (m - 1)) + 1 : 1;
}

int fp_maglev_key(uint8_t key[FP_MAGLEV_KEY_LEN], int af, const void *addr, const uint8_t *id)
{
	if (!addr || (af != AF_INET && af != AF_INET6))
		return -EINVAL;
	memset(key, 0, FP_MAGLEV_KEY_LEN);
	if (af == AF_INET) {
		key[10] = 0xff;
		key[11] = 0xff;
		memcpy(key + 12, addr, 4);
	} else {
		memcpy(key, addr, 16);
	}
	if (id)
		memcpy(key + 16, id, 16);
	return 0;
}

int fp_maglev_is_prime(uint32_t x)
{
	if (x < 2)
		return 0;
	if (x % 2 == 0)
		return x == 2;
	for (uint64_t d = 3; d * d <= x; d += 2)
		if (x % d == 0)
			return 0;
	return 1;
}

static uint32_t gcd(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

struct keyed {
	const uint8_t *key;
	uint32_t idx;
};

static int by_key(const void *a, const void *b)
{
	return memcmp(((const struct keyed *)a)->key, ((const struct keyed *)b)->key,
		      FP_MAGLEV_KEY_LEN);
}

static int check_input(const struct fp_maglev_backend *b, size_t n, uint32_t m, char *err,
		       size_t errlen)
{
	size_t live = 0;

	if (!b || n == 0) {
		seterr(err, errlen, "no backends");
		return -EINVAL;
	}
	if (n > FP_MAGLEV_MAX_BACKENDS) {
		seterr(err, errlen, "%zu backends: at most %u", n, FP_MAGLEV_MAX_BACKENDS);
		return -EINVAL;
	}
	if (m > FP_MAGLEV_MAX_SIZE) {
		seterr(err, errlen, "table size %u: at most %u", m, FP_MAGLEV_MAX_SIZE);
		return -EINVAL;
	}
	if (!fp_maglev_is_prime(m)) {
		seterr(err, errlen, "table size %u: not a prime", m);
		return -EINVAL;
	}
	if ((uint64_t)m < (uint64_t)FP_MAGLEV_MIN_SLOTS_PER_BACKEND * n) {
		seterr(err, errlen, "table size %u: too small for %zu backends (at least %u per backend)",
		       m, n, FP_MAGLEV_MIN_SLOTS_PER_BACKEND);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		if (b[i].weight > FP_MAGLEV_MAX_WEIGHT) {
			seterr(err, errlen, "backend %zu: weight %u: at most %u", i, b[i].weight,
			       FP_MAGLEV_MAX_WEIGHT);
			return -EINVAL;
		}
		live += b[i].weight > 0;
	}
	if (!live) {
		seterr(err, errlen, "no backend with a weight > 0");
		return -EINVAL;
	}
	return 0;
}

int fp_maglev_build(const struct fp_maglev_backend *b, size_t n, uint32_t m, uint32_t *table,
		    char *err, size_t errlen)
{
	struct keyed *order = NULL;
	uint32_t *pos = NULL, *skip = NULL, *turns = NULL, g = 0;
	uint32_t filled = 0;
	int rc;

	rc = check_input(b, n, m, err, errlen);
	if (rc)
		return rc;
	if (!table) {
		seterr(err, errlen, "no table buffer");
		return -EINVAL;
	}
	order = calloc(n, sizeof(*order));
	pos = calloc(n, sizeof(*pos));
	skip = calloc(n, sizeof(*skip));
	turns = calloc(n, sizeof(*turns));
	if (!order || !pos || !skip || !turns) {
		seterr(err, errlen, "out of memory for %zu backends", n);
		rc = -ENOMEM;
		goto out;
	}
	/* Turns in key order, so the array's order does not matter; equal keys
	 * would make the table depend on it, so they are refused. */
	for (uint32_t i = 0; i < n; i++)
		order[i] = (struct keyed){ .key = b[i].key, .idx = i };
	qsort(order, n, sizeof(*order), by_key);
	for (size_t i = 1; i < n; i++) {
		if (!by_key(&order[i - 1], &order[i])) {
			uint32_t lo = order[i - 1].idx < order[i].idx ? order[i - 1].idx : order[i].idx;
			uint32_t hi = order[i - 1].idx ^ order[i].idx ^ lo;

			seterr(err, errlen, "backends %u and %u: the same key", lo, hi);
			rc = -EINVAL;
			goto out;
		}
	}
	/* Validated above: nothing fails from here, so the caller's table is
	 * written only on success. */
	for (size_t i = 0; i < n; i++)
		g = gcd(g, b[i].weight);
	for (size_t i = 0; i < n; i++) {
		uint32_t k = order[i].idx;

		fp_maglev_perm(b[k].key, m, &pos[i], &skip[i]);
		turns[i] = b[k].weight / g;
	}
	for (uint32_t s = 0; s < m; s++)
		table[s] = EMPTY;
	/* Each backend in turn claims the next free slot of its permutation;
	 * table_size is prime and skip in [1, m), so the permutation visits
	 * every slot and the walk always finds a free one. */
	while (filled < m) {
		for (size_t i = 0; i < n && filled < m; i++) {
			for (uint32_t t = 0; t < turns[i] && filled < m; t++) {
				while (table[pos[i]] != EMPTY) {
					pos[i] += skip[i];
					if (pos[i] >= m)
						pos[i] -= m;
				}
				table[pos[i]] = order[i].idx;
				filled++;
			}
		}
	}
out:
	free(order);
	free(pos);
	free(skip);
	free(turns);
	return rc;
}
