// SPDX-License-Identifier: BSD-2-Clause
/*
 * The flat hash tables of a generation (include/fastpath/abi.h): tuple
 * keys -> rule and address prefixes -> class, laid out as the XDP stage
 * probes them. Linear probing from fp_flat_hash's home slot; a table twice
 * the keys or more, doubled until no key sits FP_FLAT_PROBES or more slots
 * from home, so the stage's probe is bounded and short.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "filter/compile_internal.h"

/* The home slot of a key of `len` bytes (<= 32) in a table of 2^bits. */
static uint32_t home(const void *key, size_t len, unsigned bits)
{
	uint64_t w[4] = { 0 };

	memcpy(w, key, len);
	return (uint32_t)(fp_flat_hash(w[0], w[1], w[2], w[3]) >> (64 - bits));
}

static unsigned first_bits(size_t n)
{
	unsigned bits = FP_FLAT_MIN_BITS;

	while (bits < FP_FLAT_MAX_BITS && ((size_t)1 << bits) < 2 * n)
		bits++;
	return bits;
}

/*
 * Places n keys (key i at keys + i * ksz, value at vals + i * vsz) into
 * slots of ssz bytes (key at 0, value at koff), 2^bits of them, `used`
 * marking what is taken. -EAGAIN when a key would sit out of reach.
 */
static int place(const void *keys, size_t ksz, const void *vals, size_t vsz, size_t n,
		 uint8_t *slots, size_t ssz, size_t koff, unsigned bits, uint8_t *used)
{
	uint32_t mask = (1u << bits) - 1;

	for (size_t i = 0; i < n; i++) {
		const uint8_t *k = (const uint8_t *)keys + i * ksz;
		uint32_t h = home(k, ksz, bits), d;

		for (d = 0; d < FP_FLAT_PROBES; d++) {
			uint32_t at = (h + d) & mask;

			if (!used[at]) {
				used[at] = 1;
				memcpy(slots + (size_t)at * ssz, k, ksz);
				memcpy(slots + (size_t)at * ssz + koff, (const uint8_t *)vals + i * vsz,
				       vsz);
				break;
			}
		}
		if (d == FP_FLAT_PROBES)
			return -EAGAIN;
	}
	return 0;
}

/* Builds one table; *out and *bits_out on success; the empty value is what
 * fill_empty writes into every slot first. */
static int build_table(const void *keys, size_t ksz, const void *vals, size_t vsz, size_t n,
		       size_t ssz, size_t koff, const void *empty, void **out, uint8_t *bits_out)
{
	for (unsigned bits = first_bits(n); bits <= FP_FLAT_MAX_BITS; bits++) {
		size_t slots = (size_t)1 << bits;
		uint8_t *t = malloc(slots * ssz), *used = calloc(slots, 1);
		int ret;

		if (!t || !used) {
			free(t);
			free(used);
			return -ENOMEM;
		}
		for (size_t s = 0; s < slots; s++)
			memcpy(t + s * ssz, empty, ssz);
		ret = place(keys, ksz, vals, vsz, n, t, ssz, koff, bits, used);
		free(used);
		if (ret == 0) {
			*out = t;
			*bits_out = (uint8_t)bits;
			return 0;
		}
		free(t);
	}
	return -E2BIG;
}

int build_flat(struct fp_flt_image *img)
{
	struct fp_flt_key_slot ek;
	struct fp_flt_addr_slot ea;
	void *t;
	int ret;

	memset(&ek, 0, sizeof(ek));
	ek.rule = FP_FLT_NO_RULE;
	memset(&ea, 0, sizeof(ea));
	ret = build_table(img->keys, sizeof(struct fp_flt_key), img->key_rule, sizeof(uint32_t),
			  img->n_keys, sizeof(ek), offsetof(struct fp_flt_key_slot, rule), &ek, &t,
			  &img->cfg.key_bits);
	if (ret)
		return ret;
	img->key_slots = t;
	ret = build_table(img->addr, sizeof(struct fp_flt_addr_key), img->addr_cls,
			  sizeof(uint32_t), img->n_addr, sizeof(ea),
			  offsetof(struct fp_flt_addr_slot, cls), &ea, &t, &img->cfg.addr_bits);
	if (ret)
		return ret;
	img->addr_slots = t;
	return 0;
}
