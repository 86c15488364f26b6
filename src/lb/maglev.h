/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Maglev consistent hashing (Eisenbud et al., NSDI 2016): the lb's backend
 * choice. A lookup table of a prime size M maps a flow hash (mod M) to a
 * backend; each backend fills slots in the order of its own permutation of
 * the table, so a change of the backend set moves few slots of the others.
 *
 * Weights: a backend of weight w takes w turns in every round of the population
 * loop (weights are first divided by their greatest common divisor), so it
 * gets w / sum(w) of the slots, within one round's truncation (at most its
 * reduced weight in slots). Weight 0 (drained or down) gets no slot.
 *
 * The table is the same for the same set of backends on every run and host:
 * keys are hashed byte by byte (no endianness), and the backends take their
 * turns in the order of their keys, not of the array.
 */
#ifndef FP_LB_MAGLEV_H
#define FP_LB_MAGLEV_H

#include <stddef.h>
#include <stdint.h>

#define FP_MAGLEV_KEY_LEN 32          /* the backend's address (16 bytes, v4 mapped) + its 16-byte id */
#define FP_MAGLEV_DEFAULT_SIZE 65537u /* Katran's default ring size */
#define FP_MAGLEV_MAX_SIZE 16777213u  /* the largest prime < 2^24: a 64 MiB u32 map per VIP */
#define FP_MAGLEV_MAX_BACKENDS 4096u  /* 4 * 4096 slots: the default size holds them */
/* table_size >= 4 * n: every backend a few slots; 13 holds 3 (the hand-checked table) */
#define FP_MAGLEV_MIN_SLOTS_PER_BACKEND 4u
#define FP_MAGLEV_MAX_WEIGHT 65535u   /* bounds one round of turns to 2^28 */

struct fp_maglev_backend {
	uint8_t key[FP_MAGLEV_KEY_LEN]; /* stable identity; must be unique in a build */
	uint32_t weight;                /* 0 = drained or down: no slot */
};

/*
 * fp_maglev_build - fill table[0 .. table_size-1] with indexes into b[].
 * @b, @n: the backends (1 <= n <= FP_MAGLEV_MAX_BACKENDS, unique keys,
 *         weights <= FP_MAGLEV_MAX_WEIGHT, at least one weight > 0)
 * @table_size: a prime, >= FP_MAGLEV_MIN_SLOTS_PER_BACKEND * n and
 *         <= FP_MAGLEV_MAX_SIZE
 * @table: the caller's buffer of table_size entries, built aside (the caller
 *         switches it in with one write); left unchanged on error
 * @err, @errlen: on error, a message naming what is wrong (may be NULL/0)
 * Returns 0, -EINVAL for bad input, -ENOMEM.
 */
int fp_maglev_build(const struct fp_maglev_backend *b, size_t n, uint32_t table_size,
		    uint32_t *table, char *err, size_t errlen);

/*
 * fp_maglev_key - a backend's key: its address in bytes 0..15 (IPv4 as
 * ::ffff:a.b.c.d, so a v4 backend and its mapped v6 form are one backend)
 * and id (16 bytes; NULL = zeros) in bytes 16..31. Both come from the
 * configuration, never from the host, so every lb host builds the same table.
 * @af: AF_INET (addr: 4 bytes) or AF_INET6 (16 bytes). Returns 0 or -EINVAL.
 */
int fp_maglev_key(uint8_t key[FP_MAGLEV_KEY_LEN], int af, const void *addr, const uint8_t *id);

/* 1 if x is prime, else 0 (trial division; x <= 2^32). */
int fp_maglev_is_prime(uint32_t x);

/*
 * fp_maglev_perm - a backend's permutation of a table of size m (a prime):
 * it prefers slots offset, offset + skip, offset + 2 skip, ... (mod m), with
 * offset in [0, m) and skip in [1, m) from two independent hashes of the key.
 */
void fp_maglev_perm(const uint8_t key[FP_MAGLEV_KEY_LEN], uint32_t m, uint32_t *offset,
		    uint32_t *skip);

#endif
