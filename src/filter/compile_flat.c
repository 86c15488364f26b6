// SPDX-License-Identifier: BSD-2-Clause
/*
 * The flat hash tables of a generation (include/fastpath/abi.h): tuple
 * keys -> rule and address prefixes -> class, laid out as the XDP stage
 * probes them. Linear probing from fp_flat_hash's home slot (Robin Hood
 * placement); a table twice the keys or more, doubled until no key sits
 * FP_FLAT_PROBES or more slots from home, so the stage's probe is bounded
 * and short.
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

static unsigned first_bits(size_t n, unsigned max_bits)
{
	unsigned bits = FP_FLAT_MIN_BITS;

	while (bits < max_bits && ((size_t)1 << bits) < 2 * n)
		bits++;
	return bits;
}

/*
 * Places n keys (key i at keys + i * ksz, value at vals + i * vsz) into
 * slots of ssz bytes (key at 0, value at koff), 2^bits of them; `item`
 * (2^bits, zeroed) is scratch. Robin Hood insertion: a key further from
 * its home takes the slot of one nearer to its own, which keeps the
 * longest distance short; runs stay without holes, so the stage's probe
 * may still stop at the first empty slot. -EAGAIN when a key would sit
 * FP_FLAT_PROBES or more slots from home.
 */
static int place(const void *keys, size_t ksz, const void *vals, size_t vsz, size_t n,
		 uint8_t *slots, size_t ssz, size_t koff, unsigned bits, uint32_t *item)
{
	uint32_t mask = (1u << bits) - 1;
	uint8_t *dist = calloc((size_t)mask + 1, 1);

	if (!dist)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint32_t cur = (uint32_t)i + 1, at = home((const uint8_t *)keys + i * ksz, ksz, bits);
		uint8_t d = 0;

		while (item[at]) {
			if (dist[at] < d) { /* the resident is nearer home: it moves on */
				uint32_t t = item[at];
				uint8_t td = dist[at];

				item[at] = cur, dist[at] = d;
				cur = t, d = td;
			}
			at = (at + 1) & mask;
			if (++d >= FP_FLAT_PROBES) {
				free(dist);
				return -EAGAIN;
			}
		}
		item[at] = cur, dist[at] = d;
	}
	for (uint32_t at = 0; at <= mask; at++) {
		size_t i;

		if (!item[at])
			continue;
		i = item[at] - 1;
		memcpy(slots + (size_t)at * ssz, (const uint8_t *)keys + i * ksz, ksz);
		memcpy(slots + (size_t)at * ssz + koff, (const uint8_t *)vals + i * vsz, vsz);
	}
	free(dist);
	return 0;
}

/* Builds one table; *out and *bits_out on success; the empty value is what
 * fill_empty writes into every slot first. */
static int build_table(const void *keys, size_t ksz, const void *vals, size_t vsz, size_t n,
		       size_t ssz, size_t koff, const void *empty, unsigned max_bits, void **out,
		       uint8_t *bits_out)
{
	for (unsigned bits = first_bits(n, max_bits); bits <= max_bits; bits++) {
		size_t slots = (size_t)1 << bits;
		uint8_t *t = malloc(slots * ssz);
		uint32_t *item = calloc(slots, sizeof(*item));
		int ret;

		if (!t || !item) {
			free(t);
			free(item);
			return -ENOMEM;
		}
		for (size_t s = 0; s < slots; s++)
			memcpy(t + s * ssz, empty, ssz);
		ret = place(keys, ksz, vals, vsz, n, t, ssz, koff, bits, item);
		free(item);
		if (ret == -ENOMEM) {
			free(t);
			return ret;
		}
		if (ret == 0) {
			*out = t;
			*bits_out = (uint8_t)bits;
			return 0;
		}
		free(t);
	}
	return -E2BIG;
}

/* The DNS name nodes: a flat table of (hash, kind) -> class, and the
 * names by class. */
static int build_flat_qnames(struct fp_flt_image *img)
{
	struct fp_flt_qname_slot eq;
	uint32_t *cls = calloc(img->n_qname + 1, sizeof(*cls));
	void *t;
	int ret;

	img->qn_names = calloc(img->n_qname + 1, sizeof(*img->qn_names));
	if (!cls || !img->qn_names) {
		free(cls);
		return -ENOMEM;
	}
	for (size_t i = 0; i < img->n_qname; i++) {
		cls[i] = img->qn_val[i].cls;
		if (cls[i] <= img->n_qname)
			img->qn_names[cls[i]] = img->qn_val[i];
	}
	memset(&eq, 0, sizeof(eq));
	ret = build_table(img->qn_key, sizeof(struct fp_flt_qname_key), cls, sizeof(uint32_t),
			  img->n_qname, sizeof(eq), offsetof(struct fp_flt_qname_slot, cls), &eq,
			  FP_QN_MAX_BITS, &t, &img->cfg.qn_bits);
	free(cls);
	if (ret)
		return ret;
	img->qn_slots = t;
	return 0;
}

int build_flat(struct fp_flt_image *img)
{
	struct fp_flt_key_slot ek;
	struct fp_flt_addr_slot ea;
	void *t;
	int ret;

	memset(&ek, 0, sizeof(ek));
	ek.hit = FP_FLT_NO_RULE;
	memset(&ea, 0, sizeof(ea));
	ret = build_table(img->keys, sizeof(struct fp_flt_key), img->key_hit, sizeof(uint32_t),
			  img->n_keys, sizeof(ek), offsetof(struct fp_flt_key_slot, hit), &ek,
			  FP_FLAT_MAX_BITS, &t, &img->cfg.key_bits);
	if (ret)
		return ret;
	img->key_slots = t;
	ret = build_table(img->addr, sizeof(struct fp_flt_addr_key), img->addr_cls,
			  sizeof(uint32_t), img->n_addr, sizeof(ea),
			  offsetof(struct fp_flt_addr_slot, cls), &ea, FP_FLAT_MAX_BITS, &t,
			  &img->cfg.addr_bits);
	if (ret)
		return ret;
	img->addr_slots = t;
	img->abloom = calloc(FP_ABLOOM_WORDS, sizeof(*img->abloom));
	if (!img->abloom)
		return -ENOMEM;
	for (size_t i = 0; i < img->n_addr; i++) {
		uint64_t w[4] = { 0 };
		uint32_t b;

		memcpy(w, &img->addr[i], sizeof(img->addr[i]));
		b = (uint32_t)(fp_flat_hash(w[0], w[1], w[2], w[3]) >> (64 - FP_ABLOOM_BITS));
		img->abloom[b >> 6] |= 1ULL << (b & 63);
	}
	return build_flat_qnames(img);
}
