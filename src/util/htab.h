/* SPDX-License-Identifier: BSD-2-Clause */
/* A small open-addressing hash table: fixed-size byte keys -> u32 values.
 * Used by the filter compiler to dedupe classes and tuple keys. */
#ifndef FP_UTIL_HTAB_H
#define FP_UTIL_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fp_htab {
	size_t ksz;       /* key size in bytes */
	size_t cap;       /* slots, a power of two */
	size_t n;         /* keys stored */
	uint8_t *keys;    /* cap * ksz */
	uint32_t *vals;
	uint8_t *used;
};

/* 0 or -ENOMEM (also for a hint or key size no table can hold). */
int fp_htab__init(struct fp_htab *h, size_t ksz, size_t hint);
/* The value stored for key, or NULL. */
uint32_t *fp_htab__find(const struct fp_htab *h, const void *key);
/* Inserts key with val unless present. 1 inserted, 0 already there (the
 * stored value is kept), -ENOMEM. */
int fp_htab__add(struct fp_htab *h, const void *key, uint32_t val);
/* Iterates: pass *pos = 0 first; returns false at the end. */
bool fp_htab__next(const struct fp_htab *h, size_t *pos, const void **key, uint32_t *val);
void fp_htab__free(struct fp_htab *h);

uint64_t fp_hash_bytes(const void *p, size_t n);

#endif
