// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/htab.h"

uint64_t fp_hash_bytes(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

int fp_htab__init(struct fp_htab *h, size_t ksz, size_t hint)
{
	size_t cap = 16;

	memset(h, 0, sizeof(*h));
	/* past SIZE_MAX / 4 the doubling below would reach 0 and never end;
	 * no allocation could hold such a table anyway */
	if (hint > SIZE_MAX / 4)
		return -ENOMEM;
	while (cap < hint * 2)
		cap <<= 1;
	if ((ksz && cap > SIZE_MAX / ksz) || cap > SIZE_MAX / sizeof(*h->vals))
		return -ENOMEM;
	h->ksz = ksz;
	h->cap = cap;
	h->keys = malloc(cap * ksz);
	h->vals = malloc(cap * sizeof(*h->vals));
	h->used = calloc(cap, 1);
	if (!h->keys || !h->vals || !h->used) {
		fp_htab__free(h);
		return -ENOMEM;
	}
	return 0;
}

static size_t slot_of(const struct fp_htab *h, const void *key)
{
	size_t i = fp_hash_bytes(key, h->ksz) & (h->cap - 1);

	while (h->used[i] && memcmp(h->keys + i * h->ksz, key, h->ksz))
		i = (i + 1) & (h->cap - 1);
	return i;
}

uint32_t *fp_htab__find(const struct fp_htab *h, const void *key)
{
	size_t i;

	if (!h->cap)
		return NULL;
	i = slot_of(h, key);
	return h->used[i] ? &h->vals[i] : NULL;
}

static int grow(struct fp_htab *h)
{
	struct fp_htab n;
	size_t pos = 0;
	const void *k;
	uint32_t v;

	if (fp_htab__init(&n, h->ksz, h->cap))
		return -ENOMEM;
	while (fp_htab__next(h, &pos, &k, &v))
		fp_htab__add(&n, k, v);
	fp_htab__free(h);
	*h = n;
	return 0;
}

int fp_htab__add(struct fp_htab *h, const void *key, uint32_t val)
{
	size_t i;

	if ((h->n + 1) * 2 > h->cap && grow(h))
		return -ENOMEM;
	i = slot_of(h, key);
	if (h->used[i])
		return 0;
	h->used[i] = 1;
	memcpy(h->keys + i * h->ksz, key, h->ksz);
	h->vals[i] = val;
	h->n++;
	return 1;
}

bool fp_htab__next(const struct fp_htab *h, size_t *pos, const void **key, uint32_t *val)
{
	for (; *pos < h->cap; (*pos)++) {
		if (h->used[*pos]) {
			*key = h->keys + *pos * h->ksz;
			*val = h->vals[*pos];
			(*pos)++;
			return true;
		}
	}
	return false;
}

void fp_htab__free(struct fp_htab *h)
{
	free(h->keys);
	free(h->vals);
	free(h->used);
	memset(h, 0, sizeof(*h));
}
