// SPDX-License-Identifier: BSD-2-Clause
/*
 * The two tables that keep the stage's per-packet work small (ABI
 * include/fastpath/abi.h, fp_flt_cmask and fp_flt_pre):
 *
 * - tuple masks: per field and class, the tuples that can still match, so
 *   the stage ANDs one word per field and probes only the tuples left
 *   (usually one or none) instead of every tuple whose fields are present;
 *   the range fields' words are copied next to their classes (fp_flt_cls),
 *   the short prefixes' into the prefilter, ip/ip6 and protocol ANDed
 *   into one word;
 * - the address prefilter: per table and top 16 bits, the class the short
 *   prefixes give and which longer prefix lengths can hit, so an address no
 *   long prefix is near costs no hash probe.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "filter/compile_internal.h"

static uint64_t tuple_bit(uint32_t t)
{
	return 1ull << (t < FP_CM_TUPLE_BITS - 1 ? t : FP_CM_TUPLE_BITS - 1);
}

/* Class-indexed fields: where each lives in fp_flt_cmask. */
static const struct {
	enum cfield f;
	enum fp_cm_field z;
	uint32_t term, base, n;
} cm_fields[] = {
	{ CF_SPORT, FP_CMF_SPORT, FP_T_SPORT, FP_CM_SPORT, FP_CM_RANGE_N },
	{ CF_DPORT, FP_CMF_DPORT, FP_T_DPORT, FP_CM_DPORT, FP_CM_RANGE_N },
	{ CF_LEN, FP_CMF_LEN, FP_T_LEN, FP_CM_LEN, FP_CM_RANGE_N },
	{ CF_TTL, FP_CMF_TTL, FP_T_TTL, FP_CM_TTL, FP_CM_TTL_N },
	{ CF_VLAN, FP_CMF_VLAN, FP_T_VLAN, FP_CM_VLAN, FP_CM_VLAN_N },
	{ CF_SRC, FP_CMF_SRC, FP_T_SRC, FP_CM_SRC, FP_CM_ADDR_N },
	{ CF_DST, FP_CMF_DST, FP_T_DST, FP_CM_DST, FP_CM_ADDR_N },
	{ CF_QNAME, FP_CMF_QNAME, FP_T_QNAME, FP_CM_QNAME, FP_CM_QNAME_N },
};
#define N_CM_FIELDS (sizeof(cm_fields) / sizeof(cm_fields[0]))

/* Tuples (as mask bits) whose fields have one of `terms` (with) or none
 * of them. Bit 63 stands for all tuples from 63 up: it is set when any of
 * them qualifies, so a word never drops one of those tuples. */
static uint64_t tuples_where(const struct fp_flt_image *img, uint32_t terms, bool with)
{
	uint64_t m = 0;

	for (uint32_t t = 0; t < img->cfg.n_tuples; t++)
		if (!!(img->cfg.tuples[t].fields & terms) == with)
			m |= tuple_bit(t);
	return m;
}

static void fill(uint64_t *v, uint32_t n, uint64_t m)
{
	for (uint32_t i = 0; i < n; i++)
		v[i] = m;
}

/* The values of a range field that some rule covers lie in [lo, hi]
 * ([1, 0] when none does): gencfg's len_span and ttl_span. */
static void span(const struct fp_flt_image *img, uint32_t base, uint32_t domain, __u16 out[2])
{
	uint32_t lo = 0, hi = domain;

	while (lo < domain && !img->cls[base + lo])
		lo++;
	while (hi > lo && !img->cls[base + hi - 1])
		hi--;
	out[0] = lo < domain ? lo : 1;
	out[1] = lo < domain ? hi - 1 : 0;
}

/* fp_flt_cls as loaded: each value's class and that class's mask word. */
static int build_cls_ent(struct fp_flt_image *img)
{
	struct fp_flt_cls_ent *e = big_calloc(FP_CLS_ENTRIES, sizeof(*e));

	if (!e)
		return -ENOMEM;
	for (size_t j = 0; j < N_RANGE_FIELDS; j++) {
		const struct range_field *r = &range_fields[j];

		for (uint32_t v = 0; v < r->domain; v++) {
			struct fp_flt_cls_ent *x = &e[r->cls_base + v];

			x->cls = img->cls[r->cls_base + v];
			x->mask = img->cmask[r->cm_base + x->cls];
			x->hit = FP_FLT_NO_RULE;
		}
	}
	for (uint32_t c = 0; c < 4; c++) {
		/* IPv4 or IPv6, TCP or UDP: see FP_CLS_DPORT_L4 */
		uint64_t l3proto = img->cmask[FP_CM_L3PROTO + (1 + c / 2) * 257 +
					      (c & 1 ? 17 : 6)];

		for (uint32_t v = 0; v < 65536; v++) {
			struct fp_flt_cls_ent *x = &e[FP_CLS_DPORT_L4 + c * 65536 + v];

			*x = e[FP_CLS_DPORT + v];
			x->mask &= l3proto;
		}
	}
	img->cls_ent = e;
	span(img, FP_CLS_LEN, 65536, img->cfg.len_span);
	span(img, FP_CLS_TTL, 256, img->cfg.ttl_span);
	return 0;
}

int build_cmask(const struct fp_ruleset *set, struct fp_flt_image *img,
		const uint8_t *rule_tuple, const struct rule_cls *rc)
{
	uint64_t *cm = big_calloc(FP_CM_ENTRIES, sizeof(*cm)), l3[3], proto[257];

	if (!cm)
		return -ENOMEM;
	for (size_t j = 0; j < N_CM_FIELDS; j++) {
		img->cfg.cm_zero[cm_fields[j].z] = tuples_where(img, cm_fields[j].term, false);
		if (cm_fields[j].z < FP_CMF_N_COSTLY)
			img->cfg.cm_uses[cm_fields[j].z] = tuples_where(img, cm_fields[j].term, true);
		fill(cm + cm_fields[j].base, cm_fields[j].n, img->cfg.cm_zero[cm_fields[j].z]);
	}
	img->cfg.dns_uses = tuples_where(img, FP_T_QNAME | FP_T_QTYPE, true);
	/* undetermined-transport is protocol "none known" (256) in the word:
	 * packets with a protocol never probe its tuples */
	fill(proto, 257, tuples_where(img, FP_T_PROTO | FP_T_UNDET, false));
	fill(l3, 3, tuples_where(img, FP_T_L3 | FP_T_ETHER, false));

	for (size_t i = 0; i < set->n; i++) {
		const struct fp_rule *r = &set->rules[i];
		uint64_t b = tuple_bit(rule_tuple[i]);

		for (size_t j = 0; j < N_CM_FIELDS; j++) {
			const struct clist *l = &rc[i].f[cm_fields[j].f];

			if (!(r->terms & cm_fields[j].term))
				continue;
			for (uint32_t k = 0; k < l->n; k++) {
				if (l->v[k] >= cm_fields[j].n) {
					free(cm); /* the ABI's regions are sized so this cannot be */
					return -E2BIG;
				}
				cm[cm_fields[j].base + l->v[k]] |= b;
			}
		}
		if (r->terms & FP_T_PROTO)
			proto[r->proto] |= b;
		if (r->terms & FP_T_UNDET)
			proto[256] |= b;
		/* ip/ip6 and ether in the l3 words: 0 no valid IP header, 1 IPv4,
		 * 2 IPv6. ether ip also holds on a broken IPv4 header (word 0),
		 * other types only there: IP packets never probe their tuples */
		if (r->terms & (FP_T_L3 | FP_T_ETHER)) {
			unsigned ok = 7; /* bit a: l3 word a */

			if (r->terms & FP_T_L3)
				ok &= r->l3 == 6 ? 4 : 2;
			if (r->terms & FP_T_ETHER)
				ok &= r->ether == 0x0800 ? 3 : r->ether == 0x86dd ? 5 : 1;
			for (uint32_t a = 0; a < 3; a++)
				if (ok & (1u << a))
					l3[a] |= b;
		}
	}
	for (uint32_t a = 0; a < 3; a++)
		for (uint32_t p = 0; p < 257; p++)
			cm[FP_CM_L3PROTO + a * 257 + p] = l3[a] & proto[p];
	/* ... and needs a valid IP header (tuples below 63: bit 63 is shared) */
	cm[FP_CM_L3PROTO + 256] &= ~(tuples_where(img, FP_T_UNDET, true) &
				     ~tuple_bit(FP_CM_TUPLE_BITS - 1));
	img->cmask = cm;
	return build_cls_ent(img);
}

static uint32_t hi16(const uint8_t *addr)
{
	return (uint32_t)addr[0] << 8 | addr[1];
}

/*
 * The IPv6 /16s whose prefixes longer than /32 all lie in one /32: that
 * /32, a /48 bitmap block of it and the probe of an address outside it
 * (abi.h, fp_flt_pre.w48), while blocks last. A /16 with such prefixes in
 * two /32s probes as before.
 */
static int build_b48(struct fp_flt_image *img)
{
	int32_t *one32 = malloc(2 * 65536 * sizeof(*one32)); /* -1: none yet, -2: two /32s */
	uint32_t n_blk = 0;

	img->b48 = calloc(FP_PRE_B48_BLOCKS * 1024, sizeof(*img->b48));
	if (!one32 || !img->b48) {
		free(one32);
		return -ENOMEM;
	}
	memset(one32, 0xff, 2 * 65536 * sizeof(*one32));
	for (size_t i = 0; i < img->n_addr; i++) {
		const struct fp_flt_addr_key *k = &img->addr[i];
		uint32_t at = (uint32_t)(k->tbl & 1) << 16 | hi16(k->addr);
		int32_t lo = k->addr[2] << 8 | k->addr[3];

		if (k->tbl < FP_ADDR_SRC6 || k->plen <= 32)
			continue;
		one32[at] = one32[at] == -1 || one32[at] == lo ? lo : -2;
	}
	for (uint32_t at = 0; at < 2 * 65536 && n_blk < FP_PRE_B48_BLOCKS; at++) {
		struct fp_flt_pre *e = &img->pre[(uint32_t)FP_ADDR_SRC6 << 16 | at];
		uint32_t tbl = FP_ADDR_SRC6 + (at >> 16);

		if (one32[at] < 0)
			continue;
		e->lo = (uint16_t)one32[at];
		e->w48 = ++n_blk;
		e->probe32 = e->probe;
		for (uint32_t j = 0; j < img->cfg.n_plen[tbl]; j++)
			if (img->cfg.plen[tbl][j] > 32)
				e->probe32 &= ~(1ull << j);
		for (size_t i = 0; i < img->n_addr; i++) {
			const struct fp_flt_addr_key *k = &img->addr[i];
			uint32_t v, n;

			if (k->tbl != tbl || k->plen <= 32 || hi16(k->addr) != (at & 0xffff) ||
			    (k->addr[2] << 8 | k->addr[3]) != one32[at])
				continue;
			/* the /48s it covers (one when it is /48 or longer) */
			v = (uint32_t)k->addr[4] << 8 | k->addr[5];
			n = k->plen >= 48 ? 1 : 1u << (48 - k->plen);
			for (uint32_t d = 0; d < n; d++)
				img->b48[(e->w48 - 1) * 1024 + (v + d) / 64] |= 1ull << ((v + d) & 63);
		}
	}
	free(one32);
	return 0;
}

int build_prefilter(struct fp_flt_image *img)
{
	struct fp_flt_pre *pre = big_calloc(FP_PRE_ADDRS, sizeof(*pre));

	if (!pre)
		return -ENOMEM;
	/* short prefixes, shortest first: a longer one overwrites the part it holds */
	for (uint32_t plen = 0; plen <= 16; plen++) {
		for (size_t i = 0; i < img->n_addr; i++) {
			const struct fp_flt_addr_key *k = &img->addr[i];
			uint32_t base, span;

			if (k->plen != plen)
				continue;
			span = 1u << (16 - plen);
			base = (uint32_t)k->tbl << 16 | (hi16(k->addr) & ~(span - 1));
			for (uint32_t h = 0; h < span; h++)
				pre[base + h].cls = img->addr_cls[i];
		}
	}
	/* the short prefix's mask word, read when no longer prefix hits; what
	 * the classes decide alone comes later (fill_addr_hits) */
	for (uint32_t i = 0; i < FP_PRE_ADDRS; i++) {
		pre[i].mask = img->cmask[(i >> 16 & 1 ? FP_CM_DST : FP_CM_SRC) + pre[i].cls];
		pre[i].hit = pre[i].lhit = FP_FLT_NO_RULE;
	}
	/* an IPv4 /16 with one longer prefix keeps it inline, unprobed */
	uint8_t *n_long = big_calloc(FP_PRE_ADDRS, 1);

	if (!n_long) {
		free(pre);
		return -ENOMEM;
	}
	for (size_t i = 0; i < img->n_addr; i++) {
		const struct fp_flt_addr_key *k = &img->addr[i];
		uint32_t at = (uint32_t)k->tbl << 16 | hi16(k->addr);

		if (k->plen > 16 && n_long[at] < 2)
			n_long[at]++;
	}
	for (size_t i = 0; i < img->n_addr; i++) {
		const struct fp_flt_addr_key *k = &img->addr[i];
		uint32_t at = (uint32_t)k->tbl << 16 | hi16(k->addr);

		if (k->plen <= 16 || k->tbl >= FP_ADDR_SRC6 || n_long[at] != 1)
			continue;
		pre[at].lo = (uint16_t)(k->addr[2] << 8 | k->addr[3]);
		pre[at].lplen = k->plen;
		pre[at].lcls = img->addr_cls[i];
		pre[at].lmask = img->cmask[(k->tbl & 1 ? FP_CM_DST : FP_CM_SRC) + img->addr_cls[i]];
	}
	free(n_long);
	/* other longer prefixes: their /16 probes their length */
	for (size_t i = 0; i < img->n_addr; i++) {
		const struct fp_flt_addr_key *k = &img->addr[i];

		if (k->plen <= 16 || pre[(uint32_t)k->tbl << 16 | hi16(k->addr)].lplen)
			continue;
		for (uint32_t j = 0; j < img->cfg.n_plen[k->tbl & 3]; j++) {
			if (img->cfg.plen[k->tbl & 3][j] == k->plen) {
				pre[(uint32_t)k->tbl << 16 | hi16(k->addr)].probe |= 1ull << j;
				break;
			}
		}
	}
	img->pre = pre;
	return build_b48(img);
}

static uint64_t pre_hash(const struct fp_flt_pre *e)
{
	uint64_t w[sizeof(*e) / 8], h = 0x9e3779b97f4a7c15ull;

	memcpy(w, e, sizeof(w));
	for (size_t i = 0; i < sizeof(w) / 8; i++)
		h = (h ^ w[i]) * 0xff51afd7ed558ccdull;
	return h ^ h >> 32;
}

/* The prefilter as the map holds it (abi.h): the bitmap, the index, then
 * each table's distinct entries, /16s with equal entries sharing one, the
 * most common as entry 0. */
int pack_prefilter(struct fp_flt_image *img)
{
	const uint32_t n_slots = 2u << 16; /* open addressing, at most half full */
	struct fp_flt_pre *map = big_calloc(FP_PRE_ENTRIES, sizeof(*map));
	struct fp_flt_pre_bits *bits = (struct fp_flt_pre_bits *)map;
	struct fp_flt_pre_idx *idx = (struct fp_flt_pre_idx *)(map + FP_PRE_BITS_N);
	uint32_t *slot = malloc(n_slots * sizeof(*slot)); /* entry number + 1; 0: empty */
	uint32_t *uses = malloc((1u << 16) * sizeof(*uses));

	if (!map || !slot || !uses) {
		free(map);
		free(slot);
		free(uses);
		return -ENOMEM;
	}
	for (uint32_t tbl = 0; tbl < 4; tbl++) {
		struct fp_flt_pre *ent = map + FP_PRE_ENT0 + (tbl << 16), t;
		uint32_t n = 0, top = 0;

		memset(slot, 0, n_slots * sizeof(*slot));
		memset(uses, 0, (1u << 16) * sizeof(*uses));
		for (uint32_t h = 0; h < 1u << 16; h++) {
			const struct fp_flt_pre *e = &img->pre[tbl << 16 | h];
			uint32_t at = (uint32_t)pre_hash(e) & (n_slots - 1), s;

			while ((s = slot[at]) && memcmp(&ent[s - 1], e, sizeof(*e)))
				at = (at + 1) & (n_slots - 1);
			if (!s) {
				ent[n] = *e;
				slot[at] = s = ++n;
			}
			idx[(tbl << 16 | h) >> 4].ent[h & 15] = (uint16_t)(s - 1);
			if (++uses[s - 1] > uses[top])
				top = s - 1;
		}
		/* the most common entry becomes 0: its /16s need no index read */
		t = ent[0];
		ent[0] = ent[top];
		ent[top] = t;
		for (uint32_t h = 0; h < 1u << 16; h++) {
			uint16_t *e = &idx[(tbl << 16 | h) >> 4].ent[h & 15];

			*e = *e == top ? 0 : *e == 0 ? (uint16_t)top : *e;
			if (*e)
				bits[(tbl << 16 | h) >> 8].w[(h >> 6) & 3] |= 1ull << (h & 63);
		}
	}
	/* the /48 bitmap blocks, 256 bits an element */
	for (uint32_t i = 0; i < FP_PRE_B48_BLOCKS * FP_PRE_B48_ELEMS; i++)
		memcpy(bits[FP_PRE_B48 + i].w, img->b48 + 4 * i, sizeof(bits->w));
	free(slot);
	free(uses);
	img->pre_map = map;
	return 0;
}
