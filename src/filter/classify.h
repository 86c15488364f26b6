/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Packet -> classes -> first matching rule, with no loop over rules.
 *
 * Each field the rules use maps the packet's value to a class id in one
 * lookup (ports, len, ttl, vlan: array; addresses: one hash probe per prefix
 * length in use; DNS name: one hash probe per label). Rules sharing a shape
 * (the same set of fields) form a tuple; a tuple's hash maps the packet's
 * classes for its fields to the first rule of that shape that matches them.
 * The cost is per tuple and per label, never per rule. See
 * docs/architecture.md.
 */
#ifndef FP_FILTER_CLASSIFY_H
#define FP_FILTER_CLASSIFY_H

#include "filter_maps.h"
#include <fastpath/filter_abi.h>

struct fp_cls {
	__u64 cand;       /* tuples left to probe (fp_flt_cmask bits) */
	__u64 kw[4];      /* the packet's fp_flt_key words, every field it has
			   * (outer VLAN tag); a tuple's key is kw & its kmask */
	__u32 present;    /* FP_T_* bits the packet can satisfy */
	__u32 vlan1;      /* class of the other tag of QinQ, when both have one */
};
_Static_assert(sizeof(struct fp_cls) <= sizeof(((struct fp_pkt *)0)->stage),
	       "struct fp_cls lives in fp_pkt.stage");

/*
 * Loads of 8 and 4 bytes at any offset of a map value (the parse's name and
 * addresses in fp_pkt, a node's name). clang-14 turns a __builtin_memcpy
 * of unknown alignment into eight (four) byte loads and the shifts that
 * join them: ~20 instructions a word, in every label hashed and every word
 * of a name compared. The verifier takes unaligned loads from map values
 * (not from the stack) where the CPU does, as x86 does.
 */
typedef __u64 __attribute__((may_alias)) fp_u64_any;
typedef __u32 __attribute__((may_alias)) fp_u32_any;

static __always_inline __u64 fp_ld64(const __u8 *p)
{
	return *(const fp_u64_any *)p;
}

static __always_inline __u32 fp_ld32(const __u8 *p)
{
	return *(const fp_u32_any *)p;
}

/* Generation gen's class of value index idx (FP_CLS_*), ANDs its mask into *m. */
static __always_inline __u32 cls_at(__u32 gen, __u32 idx, __u64 *m)
{
	__u32 i = gen * FP_CLS_ENTRIES + idx;
	struct fp_flt_cls_ent *e = bpf_map_lookup_elem(&fp_flt_cls, &i);

	if (!e)
		return 0;
	*m &= e->mask;
	return e->cls;
}

/* Tuple mask of one field's class; a class beyond its region: all tuples. */
static __always_inline __u64 cm_at(__u32 gen, __u32 base, __u32 n, __u32 cls)
{
	__u32 idx = gen * FP_CM_ENTRIES + base + cls;
	__u64 *v;

	if (cls >= n)
		return ~0ULL;
	v = bpf_map_lookup_elem(&fp_flt_cmask, &idx);
	return v ? *v : ~0ULL;
}

/* Index of the lowest set bit of x != 0 (BPF has no ctz): de Bruijn. */
static const __u8 fp_debruijn64[64] = {
	0,  1,  2,  53, 3,  7,  54, 27, 4,  38, 41, 8,  34, 55, 48, 28,
	62, 5,  39, 46, 44, 42, 22, 9,  24, 35, 59, 56, 49, 18, 29, 11,
	63, 52, 6,  26, 37, 40, 33, 47, 61, 45, 43, 21, 23, 58, 17, 10,
	51, 25, 36, 32, 60, 20, 57, 16, 50, 31, 19, 15, 30, 14, 13, 12,
};

static __always_inline __u32 fp_ctz64(__u64 x)
{
	return fp_debruijn64[((x & -x) * 0x022fdd63cc95386dULL) >> 58];
}

/*
 * Keys go to the flat tables as the four little-endian words fp_flat_hash
 * takes, built in registers: a key stored field by field and reloaded as
 * words would stall each load on store forwarding.
 */
struct fp_words {
	__u64 w0, w1, w2, w3;
};

/* The home slot of a key in a flat table of 2^bits slots. */
static __always_inline __u32 flat_home(const struct fp_words *k, __u32 bits)
{
	return fp_flat_hash(k->w0, k->w1, k->w2, k->w3) >> ((64 - bits) & 63);
}

/*
 * A tuple key's hit (FP_FLT_HIT) in generation gen of fp_flt_keys
 * (FP_FLT_NO_RULE: none). The probes are unrolled: at the head of a
 * bounded loop the verifier prunes only exactly equal states, so each of
 * the classify paths that reach the walk went through all eight
 * iterations again, and the staged fp_filter passed the verifier's budget
 * of 1,000,000 instructions on kernel 6.18.44 (unrolled: ~610,000 each
 * for fp_filter and fp_entry_filter; the other probe loops cost little).
 */
static __always_inline __u32 flat_key_hit(__u32 gen, __u32 bits, const struct fp_words *k)
{
	__u32 mask = (1u << (bits & 31)) - 1, at = flat_home(k, bits);

#pragma unroll
	for (__u32 d = 0; d < FP_FLAT_PROBES; d++) {
		__u32 i = (gen << (flat_bits & 31)) + ((at + d) & mask);
		const __u64 *s = bpf_map_lookup_elem(&fp_flt_keys, &i);

		if (!s || (__u32)(s[3] >> 32) == FP_FLT_NO_RULE)
			return FP_FLT_NO_RULE; /* an empty slot ends the probe */
		if (s[0] == k->w0 && s[1] == k->w1 && s[2] == k->w2 && (__u32)s[3] == k->w3)
			return s[3] >> 32;
	}
	return FP_FLT_NO_RULE;
}

/* A prefix's class in generation gen of fp_flt_addr (0: none); its bit in
 * fp_flt_abloom first (abi.h). */
static __always_inline __u32 flat_addr_cls(__u32 gen, __u32 bits, const struct fp_words *k)
{
	__u64 h = fp_flat_hash(k->w0, k->w1, k->w2, k->w3);
	__u32 mask = (1u << (bits & 31)) - 1, at = h >> ((64 - bits) & 63);
	__u32 b = h >> (64 - FP_ABLOOM_BITS), wi = gen * FP_ABLOOM_WORDS + (b >> 6);
	const __u64 *bw = bpf_map_lookup_elem(&fp_flt_abloom, &wi);

	if (!bw || !((*bw >> (b & 63)) & 1))
		return 0; /* no prefix of the table has this hash */
	for (__u32 d = 0; d < FP_FLAT_PROBES; d++) {
		__u32 i = (gen << (flat_bits & 31)) + ((at + d) & mask);
		const __u64 *s = bpf_map_lookup_elem(&fp_flt_addr, &i);

		if (!s || !(s[2] >> 32))
			return 0;
		if (s[0] == k->w0 && s[1] == k->w1 && (__u32)s[2] == k->w2)
			return s[2] >> 32;
	}
	return 0;
}

/* A DNS name node's class in generation gen of fp_flt_qname (0: none). */
static __always_inline __u32 flat_qname_cls(__u32 gen, __u32 bits, const struct fp_words *k)
{
	__u32 mask = (1u << (bits & 31)) - 1, at = flat_home(k, bits);

	for (__u32 d = 0; d < FP_FLAT_PROBES; d++) {
		__u32 i = gen * FP_QN_GEN_SLOTS + ((at + d) & mask);
		const __u64 *s = bpf_map_lookup_elem(&fp_flt_qname, &i);

		if (!s || !(__u32)s[2])
			return 0;
		if (s[0] == k->w0 && s[1] == k->w1)
			return (__u32)s[2];
	}
	return 0;
}

/*
 * Loops in the per-packet path run as plain bounded loops for their first
 * FP_FAST iterations: a bpf_loop callback is an indirect call, which costs
 * tens of ns under retpolines. Longer loops (rare: many tuples, prefix
 * lengths or labels) finish in bpf_loop, where the verifier's work is flat.
 */
#define FP_FAST 8

#define FP_LOOP(n, step, ctx)                                                  \
	do {                                                                   \
		__u32 __n = (n), __i;                                          \
		long __stop = 0;                                               \
		for (__i = 0; __i < FP_FAST && __i < __n; __i++) {             \
			__stop = step(__i, ctx);                               \
			if (__stop)                                            \
				break;                                         \
		}                                                              \
		if (!__stop && __n > FP_FAST)                                  \
			bpf_loop(__n - FP_FAST, step##_late, ctx, 0);          \
	} while (0)

/* The bpf_loop callback of a step: iterations FP_FAST and later. */
#define FP_LATE(step)                                                          \
	static long step##_late(__u32 i, void *ctx)                            \
	{                                                                      \
		return step(i + FP_FAST, ctx);                                 \
	}

struct addr_walk {
	__u32 gen;
	const struct fp_flt_gencfg *g;
	const __u8 *addr;
	__u32 tbl;
	__u32 cls;
	__u64 probe;      /* prefix lengths (indexes into g->plen[tbl]) still to try */
};

/* Probe the next prefix length the prefilter named (longest first). */
static __always_inline long addr_probe(__u32 unused, void *arg)
{
	struct addr_walk *w = arg;
	struct fp_words k = { 0 };
	__u32 i, plen, a[4] = { 0 }, cls;

	if (!w->probe)
		return 1;
	i = fp_ctz64(w->probe);
	w->probe &= w->probe - 1;
	if (i >= FP_MAX_PLENS)
		return 1;
	plen = w->g->plen[w->tbl & 3][i];
	/* the address words as loaded (network order), masked to plen */
	for (__u32 wd = 0; wd < 4; wd++) {
		__u32 bits = plen > 32 * wd ? plen - 32 * wd : 0;

		if (wd > 0 && w->tbl < FP_ADDR_SRC6)
			break;
		a[wd] = fp_ld32(w->addr + 4 * wd);
		a[wd] &= bits >= 32 ? 0xffffffffu : bits ? bpf_htonl(~0u << (32 - bits)) : 0;
	}
	/* struct fp_flt_addr_key: tbl, plen, pad, addr[16] */
	k.w0 = (__u64)w->tbl | (__u64)plen << 8 | (__u64)a[0] << 32;
	k.w1 = (__u64)a[1] | (__u64)a[2] << 32;
	k.w2 = a[3];
	cls = flat_addr_cls(w->gen & 1, w->g->addr_bits, &k);
	if (!cls)
		return 0;
	w->cls = cls;
	return 1;
}

FP_LATE(addr_probe)

/*
 * Longest prefix of the address in the gen's table, as a class (its mask
 * word ANDed into *m): the prefilter entry of its /16 (through the bitmap
 * and the index: abi.h) gives the answer of
 * the short prefixes and the longer lengths worth a hash probe (usually
 * none). An answer from the entry lowers *hit to what its class decides
 * alone (abi.h); a probed class leaves those tuples to the walk.
 */
static __always_inline __u32 addr_class(__u32 gen, const struct fp_flt_gencfg *g, __u32 tbl,
					const __u8 *addr, __u64 *m, __u32 *hit)
{
	__u32 h = (__u32)addr[0] << 8 | addr[1], t = tbl & 3, base = gen * FP_PRE_ENTRIES, n = 0;
	__u32 idx = base + (t << 8 | h >> 8);
	struct fp_flt_pre_bits *b = bpf_map_lookup_elem(&fp_flt_pre, &idx);
	struct fp_flt_pre_idx *x;
	struct fp_flt_pre *e;
	struct addr_walk w;

	if (!b)
		return 0;
	/* the /16's bit; set: its entry's number from the index, else entry 0 */
	if ((b->w[(h >> 6) & 3] >> (h & 63)) & 1) {
		idx = base + FP_PRE_BITS_N + (t << 12 | h >> 4);
		x = bpf_map_lookup_elem(&fp_flt_pre, &idx);
		if (!x)
			return 0;
		n = x->ent[h & 15];
	}
	idx = base + FP_PRE_ENT0 + (t << 16) + n;
	e = bpf_map_lookup_elem(&fp_flt_pre, &idx);
	if (!e)
		return 0;
	if (e->lplen) {
		/* the /16's one longer prefix, inline (IPv4 only) */
		__u32 lo = (__u32)addr[2] << 8 | addr[3];

		if (!((lo ^ e->lo) & (0xffffu << ((32 - e->lplen) & 15)) & 0xffff)) {
			*m &= e->lmask;
			if (e->lhit < *hit)
				*hit = e->lhit;
			return e->lcls;
		}
	} else if (e->probe) {
		__u64 probe = e->probe;

		if (e->w48) {
			/* IPv6: the lengths over 32 only in the /32 that has
			 * them, and there only where the /48's bit is set */
			__u32 v = (__u32)addr[4] << 8 | addr[5];
			struct fp_flt_pre_bits *b48;

			idx = base + FP_PRE_B48 + (((e->w48 - 1) & (FP_PRE_B48_BLOCKS - 1)) << 8) +
			      (v >> 8);
			if (((__u32)addr[2] << 8 | addr[3]) != e->lo) {
				probe = e->probe32;
			} else {
				b48 = bpf_map_lookup_elem(&fp_flt_pre, &idx);
				if (!b48)
					return 0;
				if (!((b48->w[(v >> 6) & 3] >> (v & 63)) & 1))
					probe = e->probe32;
			}
		}
		if (probe) {
			/* the walk's struct (on the stack: bpf_loop takes its
			 * address) only for the packets that probe */
			w.gen = gen;
			w.g = g;
			w.addr = addr;
			w.tbl = tbl & 3;
			w.cls = e->cls;
			w.probe = probe;
			FP_LOOP(FP_MAX_PLENS, addr_probe, &w);
			if (w.cls != e->cls) {
				*m &= cm_at(gen, tbl & 1 ? FP_CM_DST : FP_CM_SRC, FP_CM_ADDR_N,
					    w.cls);
				return w.cls;
			}
		}
	}
	*m &= e->mask; /* no longer prefix holds: the /16's answer */
	if (e->hit < *hit)
		*hit = e->hit;
	return e->cls;
}

/* Folds one label (its length byte and bytes, <= 64) into h, 8 bytes at a
 * time: the hash of include/fastpath/abi.h. buf has 8 bytes of slack. */
static __always_inline __u64 fp_flt_qh_label(const struct fp_pkt *pkt, __u32 off, __u64 h)
{
	const __u8 *buf;
	__u32 len;

	if (!pkt)
		return h;
	buf = pkt->qname;
	len = (__u32)buf[off & 0xff] + 1;

#pragma unroll
	for (__u32 j = 0; j < 8; j++) {
		__u64 w;

		if (8 * j < len) {
			w = fp_ld64(buf + ((off + 8 * j) & 0xff));
			if (len - 8 * j < 8)
				w &= (1ULL << (8 * (len - 8 * j))) - 1;
			h = (h ^ w) * FP_QH_PRIME;
		}
	}
	return (h ^ (h >> 29)) * FP_QH_PRIME;
}

/* The class of the packet's source (tbl even) or destination address. */
static __always_inline __u32 flt_addr_class(struct fp_pkt *pkt, const struct fp_flt_gencfg *g,
					    __u32 gen, __u32 tbl, __u64 *m, __u32 *hit)
{
	return addr_class(gen, g, tbl, tbl & 1 ? pkt->dst : pkt->src, m, hit);
}

/* The packet's name from label offset `start` equals the table's name,
 * compared word by word. */
static __always_inline int fp_flt_qn_equal(const struct fp_pkt *pkt, __u32 start,
					       const struct fp_flt_qname_val *v)
{
	__u32 len;

	if (!pkt || !v)
		return 0;
	len = v->len;
	for (__u32 j = 0; j < 32; j++) {
		__u64 x, y;

		if (8 * j >= len)
			break;
		x = fp_ld64(pkt->qname + ((start + 8 * j) & 0xff));
		y = fp_ld64(v->name + ((8 * j) & 0xff));
		if (len - 8 * j < 8) {
			__u64 m = (1ULL << (8 * (len - 8 * j))) - 1;

			x &= m;
			y &= m;
		}
		if (x != y)
			return 0;
	}
	return 1;
}

/*
 * The walk over the name's labels from the root: after label k (counted
 * from the first) the hash is that of the suffix starting at k, which is
 * probed when some node of that kind (k == 0: exact; later: wildcard) has
 * that many labels. Each verified hit is deeper than the last, so the last
 * one is the deepest node the name reaches. One pass, hashes in a register:
 * hashing every suffix into a per-CPU array and probing them in a second
 * pass from the deepest cost the water torture ~10 ns more.
 */
struct qn_walk {
	struct fp_pkt *pkt;
	const struct fp_flt_gencfg *g;
	__u64 h;          /* the hash of the suffix walked so far */
	__u32 gen;
	__u32 n;          /* labels of the name, the root included */
	__u32 cls;        /* the deepest node found so far */
};

static __always_inline long qn_step(__u32 j, struct qn_walk *w)
{
	struct fp_pkt *pkt = w->pkt;
	__u32 n = w->n, k, start, bit, cls, idx;
	struct fp_flt_qname_val *v;
	struct fp_words key = { 0 };

	if (j >= n || j >= FP_DNS_LABELS_MAX)
		return 1;
	k = (n - 1 - j) & (FP_DNS_LABELS_MAX - 1);
	start = pkt->label_off[k];
	w->h = fp_flt_qh_label(pkt, start, w->h);
	bit = j < 63 ? j : 63; /* depth j + 1 */
	if (!((w->g->qn_depth[k ? 1 : 0] >> bit) & 1))
		return 0; /* no node of this kind has this many labels */
	/* struct fp_flt_qname_key: hash, kind, pad */
	key.w0 = w->h;
	key.w1 = k ? FP_QN_WILD : FP_QN_EXACT;
	cls = flat_qname_cls(w->gen, w->g->qn_bits, &key);
	if (!cls)
		return 0;
	idx = w->gen * FP_CM_QNAME_N + cls;
	v = bpf_map_lookup_elem(&fp_flt_qnames, &idx);
	if (!v || v->len != pkt->qname_len - start || !fp_flt_qn_equal(pkt, start, v))
		return 0; /* a hash collision: keep looking */
	w->cls = cls;
	return 0;
}

static long qn_step_late(__u32 j, void *arg)
{
	return qn_step(j + FP_FAST, arg);
}

/*
 * The deepest node of the name tree the packet's name reaches, as a class.
 * Only suffixes as deep as the deepest node are hashed, and only depths
 * some node has are probed. The first FP_FAST labels walk a struct that
 * never leaves registers; a longer walk goes on in bpf_loop with a copy.
 */
static __always_inline __u32 qname_class(__u32 gen, struct fp_pkt *pkt,
					 const struct fp_flt_gencfg *g)
{
	__u32 n = pkt->n_labels, hn = g->qn_max_depth;
	struct qn_walk w = { .pkt = pkt, .g = g, .h = FP_QH_SEED, .gen = gen, .n = n };
	struct qn_walk late;

	if (!n || !hn)
		return 0;
	if (hn > n)
		hn = n;
	for (__u32 j = 0; j < FP_FAST && j < hn; j++)
		qn_step(j, &w);
	if (hn > FP_FAST) {
		late = w;
		bpf_loop(hn - FP_FAST, qn_step_late, &late, 0);
		return late.cls;
	}
	return w.cls;
}

/* The class of the packet's DNS name (0: no rule's pattern reaches it). */
__attribute__((noinline)) __u32 fp_flt_qname_class(struct fp_pkt *pkt,
						   const struct fp_flt_gencfg *g, __u32 gen)
{
	if (!pkt || !g)
		return 0;
	return qname_class(gen & 1, pkt, g);
}

#endif
