// SPDX-License-Identifier: BSD-2-Clause
/*
 * Field classes for the filter compiler. A class is a set of packet values
 * no rule tells apart; each rule covers a list of classes per field.
 *   ranges (ports, len, ttl, vlan): elementary segments between the rules'
 *     range boundaries; a range covers a contiguous run of segment ids.
 *   addresses: one class per distinct prefix; a packet's class is its
 *     longest matching prefix; a rule's prefix covers itself and every
 *     longer prefix inside it.
 *   DNS names: one class per name node (exact E(n) or wildcard W(s)); a
 *     packet's class is the deepest node its name reaches; W(s) covers every
 *     node below s (and itself), E(n) covers itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "filter/compile_internal.h"
#include "util/htab.h"

const struct range_field range_fields[N_RANGE_FIELDS] = {
	{ CF_SPORT, FP_CLS_SPORT, 65536, FP_CM_SPORT }, { CF_DPORT, FP_CLS_DPORT, 65536, FP_CM_DPORT },
	{ CF_LEN, FP_CLS_LEN, 65536, FP_CM_LEN },       { CF_TTL, FP_CLS_TTL, 256, FP_CM_TTL },
	{ CF_VLAN, FP_CLS_VLAN, 4096, FP_CM_VLAN },
};

void *big_calloc(size_t n, size_t size)
{
	uint8_t *p = calloc(n, size);
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), a, e;

	if (p && n * size >= (1u << 20)) {
		a = ((uintptr_t)p + page - 1) & ~(page - 1);
		e = ((uintptr_t)p + n * size) & ~(page - 1);
		if (e > a)
			(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE); /* best effort */
	}
	return p;
}

int clist_add(struct clist *l, uint32_t v)
{
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 4, *nv = realloc(l->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n++] = v;
	return 0;
}

/* The ranges a rule gives for a range field (at most FP_PORTS_MAX). */
static unsigned rule_ranges(const struct fp_rule *r, enum cfield f, struct fp_range *out)
{
	switch (f) {
	case CF_SPORT:
		if (!(r->terms & FP_T_SPORT))
			return 0;
		memcpy(out, r->sport.r, r->sport.n * sizeof(*out));
		return r->sport.n;
	case CF_DPORT:
		if (!(r->terms & FP_T_DPORT))
			return 0;
		memcpy(out, r->dport.r, r->dport.n * sizeof(*out));
		return r->dport.n;
	case CF_LEN:
		if (!(r->terms & FP_T_LEN))
			return 0;
		out[0] = r->len;
		return 1;
	case CF_TTL:
		if (!(r->terms & FP_T_TTL))
			return 0;
		out[0] = r->ttl;
		return 1;
	case CF_VLAN:
		if (!(r->terms & FP_T_VLAN))
			return 0;
		out[0] = (struct fp_range){ r->vlan, r->vlan };
		return 1;
	default:
		return 0;
	}
}

int classes_ranges(const struct fp_ruleset *set, enum cfield f, uint32_t *cls,
		   uint32_t domain, struct rule_cls *rc, char *err, size_t errlen)
{
	int32_t *diff = calloc(domain + 1, sizeof(*diff));
	uint8_t *edge = calloc(domain + 1, 1);
	struct fp_range r[FP_PORTS_MAX];
	uint32_t next = 0;
	int64_t cur = 0;
	int ret = -ENOMEM;

	if (!diff || !edge)
		goto out;
	for (size_t i = 0; i < set->n; i++) {
		unsigned n = rule_ranges(&set->rules[i], f, r);

		for (unsigned j = 0; j < n; j++) {
			diff[r[j].lo]++;
			diff[r[j].hi + 1]--;
			edge[r[j].lo] = edge[r[j].hi + 1] = 1;
		}
	}
	/* segment ids in value order, only for values some range covers */
	for (uint32_t x = 0; x < domain; x++) {
		bool was = cur > 0;

		cur += diff[x];
		if (cur > 0 && (edge[x] || !was))
			next++;
		cls[x] = cur > 0 ? next : 0;
	}
	if (next > 0xffff) {
		snprintf(err, errlen, "too many distinct %s ranges (%u classes, at most 65535)",
			 cfield_name(f), next);
		ret = -E2BIG;
		goto out;
	}
	for (size_t i = 0; i < set->n; i++) {
		unsigned n = rule_ranges(&set->rules[i], f, r);
		struct clist *l = &rc[i].f[f];

		for (unsigned j = 0; j < n; j++) {
			for (uint32_t c = cls[r[j].lo]; c <= cls[r[j].hi]; c++) {
				bool dup = false;

				/* overlapping ranges in one list: keep each class once */
				for (unsigned k = 0; k < j && !dup; k++)
					dup = c >= cls[r[k].lo] && c <= cls[r[k].hi];
				if (!dup && clist_add(l, c))
					goto out;
			}
		}
	}
	ret = 0;
out:
	free(diff);
	free(edge);
	return ret;
}

static void mask_addr(uint8_t *a, unsigned plen)
{
	for (unsigned i = 0; i < 16; i++) {
		unsigned bits = plen > 8 * i ? plen - 8 * i : 0;

		a[i] &= bits >= 8 ? 0xff : (uint8_t)(0xff << (8 - bits));
	}
}

/* Every distinct prefix is a node; covers[] is indexed by node class. */
int classes_addrs(const struct fp_ruleset *set, struct fp_flt_image *img,
		  struct rule_cls *rc)
{
	struct fp_htab nodes;
	struct clist *covers = NULL;
	uint32_t n_cls = 0;
	bool used[4][129] = { { false } };
	int ret = -ENOMEM;

	if (fp_htab__init(&nodes, sizeof(struct fp_flt_addr_key), 64))
		return -ENOMEM;
	/* 1. nodes */
	for (size_t i = 0; i < set->n; i++) {
		const struct fp_rule *r = &set->rules[i];

		for (int d = 0; d < 2; d++) {
			const struct fp_cidr *c = d ? &r->dst : &r->src;
			struct fp_flt_addr_key k = { 0 };
			int added;

			if (!(r->terms & (d ? FP_T_DST : FP_T_SRC)))
				continue;
			k.tbl = (c->family == 6 ? 2 : 0) + d;
			k.plen = c->plen;
			memcpy(k.addr, c->addr, 16);
			mask_addr(k.addr, k.plen);
			added = fp_htab__add(&nodes, &k, n_cls + 1);
			if (added < 0)
				goto out;
			if (added) {
				n_cls++;
				used[k.tbl][k.plen] = true;
			}
		}
	}
	covers = calloc(n_cls + 1, sizeof(*covers));
	img->addr = calloc(n_cls ? n_cls : 1, sizeof(*img->addr));
	img->addr_cls = calloc(n_cls ? n_cls : 1, sizeof(*img->addr_cls));
	if (!covers || !img->addr || !img->addr_cls)
		goto out;

	/* 2. prefix lengths in use, longest first, and the map entries */
	for (int t = 0; t < 4; t++) {
		int n = 0;

		for (int p = 128; p >= 0; p--) {
			if (!used[t][p])
				continue;
			if (n == FP_MAX_PLENS) {
				ret = -E2BIG;
				goto out;
			}
			img->cfg.plen[t][n++] = p;
		}
		img->cfg.n_plen[t] = n;
	}
	{
		size_t pos = 0;
		const void *key;
		uint32_t cls;

		while (fp_htab__next(&nodes, &pos, &key, &cls)) {
			const struct fp_flt_addr_key *q = key;

			img->addr[img->n_addr] = *q;
			img->addr_cls[img->n_addr++] = cls;
			/* 3. each node lies inside every shorter node that is its prefix */
			for (int j = 0; j < img->cfg.n_plen[q->tbl]; j++) {
				struct fp_flt_addr_key a = *q;
				uint32_t *anc;

				if (img->cfg.plen[q->tbl][j] > q->plen)
					continue;
				a.plen = img->cfg.plen[q->tbl][j];
				mask_addr(a.addr, a.plen);
				anc = fp_htab__find(&nodes, &a);
				if (anc && clist_add(&covers[*anc], cls))
					goto out;
			}
		}
	}
	/* 4. each rule covers what its prefix covers */
	for (size_t i = 0; i < set->n; i++) {
		const struct fp_rule *r = &set->rules[i];

		for (int d = 0; d < 2; d++) {
			const struct fp_cidr *c = d ? &r->dst : &r->src;
			struct fp_flt_addr_key k = { 0 };
			struct clist *from, *to = &rc[i].f[d ? CF_DST : CF_SRC];

			if (!(r->terms & (d ? FP_T_DST : FP_T_SRC)))
				continue;
			k.tbl = (c->family == 6 ? 2 : 0) + d;
			k.plen = c->plen;
			memcpy(k.addr, c->addr, 16);
			mask_addr(k.addr, k.plen);
			from = &covers[*fp_htab__find(&nodes, &k)];
			for (uint32_t j = 0; j < from->n; j++)
				if (clist_add(to, from->v[j]))
					goto out;
		}
	}
	ret = 0;
out:
	if (covers)
		for (uint32_t i = 0; i <= n_cls; i++)
			free(covers[i].v);
	free(covers);
	fp_htab__free(&nodes);
	return ret;
}
