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
#include <fastpath/abi.h>

struct fp_cls {
	__u32 present;    /* FP_T_* bits the packet can satisfy */
	__u32 src, dst, qname;
	__u16 sport, dport, len, ttl;
	__u16 vlan[2];    /* classes of the outer and inner tag */
};

static __always_inline __u32 cls_at(void *cls, __u32 idx)
{
	__u32 *v = bpf_map_lookup_elem(cls, &idx);

	return v ? *v : 0;
}

struct addr_walk {
	void *map;
	const struct fp_flt_gencfg *g;
	const __u8 *addr;
	__u32 tbl;
	__u32 cls;
};

/* Probe the i-th prefix length in use (longest first). */
static long addr_probe(__u32 i, void *arg)
{
	struct addr_walk *w = arg;
	struct fp_flt_addr_key k = { .tbl = w->tbl };
	__u32 plen, words = w->tbl >= FP_ADDR_SRC6 ? 4 : 1, *cls;

	if (i >= FP_MAX_PLENS)
		return 1;
	plen = w->g->plen[w->tbl & 3][i];
	k.plen = plen;
	for (__u32 wd = 0; wd < 4 && wd < words; wd++) {
		__u32 a, bits, mask;

		__builtin_memcpy(&a, w->addr + 4 * wd, 4);
		bits = plen > 32 * wd ? plen - 32 * wd : 0;
		mask = bits >= 32 ? 0xffffffffu : bits ? bpf_htonl(~0u << (32 - bits)) : 0;
		__builtin_memcpy(k.addr + 4 * wd, &(__u32){ a & mask }, 4);
	}
	cls = bpf_map_lookup_elem(w->map, &k);
	if (!cls)
		return 0;
	w->cls = *cls;
	return 1;
}

/* Longest prefix of the address found in the gen's table, as a class. */
static __always_inline __u32 addr_class(void *addr_map, const struct fp_flt_gencfg *g,
					__u32 tbl, const __u8 *addr)
{
	struct addr_walk w = { .map = addr_map, .g = g, .addr = addr, .tbl = tbl & 3 };

	bpf_loop(g->n_plen[tbl & 3], addr_probe, &w, 0);
	return w.cls;
}

struct qh_walk {
	struct fp_pkt *pkt;
	struct fp_flt_qh *qh;
	int k;            /* next label (from the last) whose suffix hash to record */
	__u64 h;
};

/* One byte of the name, last to first: FNV-1a; at each label start the
 * hash so far is the hash of the suffix beginning there. */
static long qh_byte(__u32 j, void *arg)
{
	struct qh_walk *w = arg;
	__u32 len = w->pkt->qname_len, i;

	if (j >= len || j > 255)
		return 1;
	i = len - 1 - j;
	w->h = (w->h ^ w->pkt->qname[i & 0xff]) * FP_QH_PRIME;
	if (w->k >= 0 && i == w->pkt->label_off[w->k & (FP_DNS_LABELS_MAX - 1)]) {
		w->qh->h[w->k & (FP_DNS_LABELS_MAX - 1)] = w->h;
		w->k--;
	}
	return 0;
}

struct qn_cmp {
	const __u8 *a;    /* packet name from the suffix start */
	const __u8 *b;    /* the table's name */
	__u32 base;
	int diff;
};

static long qn_cmp_byte(__u32 i, void *arg)
{
	struct qn_cmp *c = arg;

	if (c->a[(c->base + i) & 0xff] != c->b[i & 0xff]) {
		c->diff = 1;
		return 1;
	}
	return 0;
}

struct qn_probe {
	struct fp_pkt *pkt;
	struct fp_flt_qh *qh;
	void *map;
	__u32 cls;
};

/* Probe suffix k (k = 0: the whole name, exact; k >= 1: a wildcard). */
static long qn_probe_one(__u32 k, void *arg)
{
	struct qn_probe *p = arg;
	struct fp_pkt *pkt = p->pkt;
	struct fp_flt_qname_key key = { .kind = k ? FP_QN_WILD : FP_QN_EXACT };
	struct fp_flt_qname_val *v;
	struct qn_cmp c;
	__u32 start;

	if (k >= pkt->n_labels || k >= FP_DNS_LABELS_MAX)
		return 1;
	key.hash = p->qh->h[k & (FP_DNS_LABELS_MAX - 1)];
	v = bpf_map_lookup_elem(p->map, &key);
	if (!v)
		return 0;
	start = pkt->label_off[k & (FP_DNS_LABELS_MAX - 1)];
	if (v->len != pkt->qname_len - start)
		return 0;
	c.a = pkt->qname;
	c.b = v->name;
	c.base = start;
	c.diff = 0;
	bpf_loop(v->len, qn_cmp_byte, &c, 0);
	if (c.diff)
		return 0; /* a hash collision: keep looking */
	p->cls = v->cls;
	return 1;
}

/* The deepest node of the name tree the packet's name reaches, as a class. */
static __always_inline __u32 qname_class(void *map, struct fp_pkt *pkt)
{
	__u32 zero = 0;
	struct fp_flt_qh *qh = bpf_map_lookup_elem(&fp_flt_qh, &zero);
	struct qh_walk w;
	struct qn_probe p;

	if (!qh || !pkt->n_labels)
		return 0;
	w.pkt = pkt;
	w.qh = qh;
	w.k = pkt->n_labels - 1;
	w.h = FP_QH_SEED;
	bpf_loop(256, qh_byte, &w, 0);
	p.pkt = pkt;
	p.qh = qh;
	p.map = map;
	p.cls = 0;
	bpf_loop(FP_DNS_LABELS_MAX, qn_probe_one, &p, 0);
	return p.cls;
}

#endif
