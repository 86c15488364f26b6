// SPDX-License-Identifier: BSD-2-Clause
/*
 * DNS name classes. Nodes are E(n) (exact name n) and W(s) (any name of one
 * or more labels below s). The XDP stage finds the deepest node a packet's
 * name reaches: E(name) if present, else W(longest proper suffix) present.
 * So W(s) covers W(s) and every node strictly below s; E(n) covers itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/compile_internal.h"
#include "util/htab.h"

struct qnode {
	uint8_t kind;                 /* enum fp_qname_kind */
	uint8_t len;                  /* wire length, root included */
	uint8_t wire[FP_DNS_NAME_MAX];
};

static uint64_t fold_label(const uint8_t *p, unsigned len, uint64_t h)
{
	for (unsigned j = 0; j < len; j += 8) {
		uint8_t b[8] = { 0 };
		uint64_t w = 0;

		memcpy(b, p + j, len - j < 8 ? len - j : 8);
		for (int i = 7; i >= 0; i--)
			w = w << 8 | b[i]; /* little-endian, as the BPF side loads it */
		h = (h ^ w) * FP_QH_PRIME;
	}
	return (h ^ (h >> 29)) * FP_QH_PRIME;
}

/* The hash of include/fastpath/abi.h: labels folded last to first. */
uint64_t fp_qname_hash(const uint8_t *wire, size_t len)
{
	unsigned off[FP_DNS_LABELS_MAX], n = 0, i = 0;
	uint64_t h = FP_QH_SEED;

	while (i < len && n < FP_DNS_LABELS_MAX) {
		off[n++] = i;
		if (wire[i] == 0)
			break;
		i += 1 + wire[i];
	}
	while (n-- > 0)
		h = fold_label(wire + off[n], wire[off[n]] + 1u, h);
	return h;
}

static void node_of(const struct fp_qname *q, struct qnode *n)
{
	memset(n, 0, sizeof(*n));
	n->kind = q->wildcard ? FP_QN_WILD : FP_QN_EXACT;
	n->len = q->wire_len;
	memcpy(n->wire, q->wire, q->wire_len);
}

/* Offsets of the suffixes of a wire name: 0 (itself), then after each label,
 * the root last. Returns how many. */
static unsigned suffixes(const struct qnode *n, unsigned off[FP_DNS_LABELS_MAX])
{
	unsigned k = 0, i = 0;

	while (i < n->len && k < FP_DNS_LABELS_MAX) {
		off[k++] = i;
		if (n->wire[i] == 0)
			break;
		i += 1 + n->wire[i];
	}
	return k;
}

int classes_qnames(const struct fp_ruleset *set, struct fp_flt_image *img,
		   struct rule_cls *rc)
{
	struct fp_htab nodes;
	struct clist *covers = NULL;
	uint32_t n_cls = 0;
	int ret = -ENOMEM;
	size_t pos = 0;
	const void *key;
	uint32_t cls;

	if (fp_htab__init(&nodes, sizeof(struct qnode), 64))
		return -ENOMEM;
	for (size_t i = 0; i < set->n; i++) {
		struct qnode n;
		int added;

		if (!(set->rules[i].terms & FP_T_QNAME))
			continue;
		node_of(&set->rules[i].qname, &n);
		added = fp_htab__add(&nodes, &n, n_cls + 1);
		if (added < 0)
			goto out;
		n_cls += added;
	}
	covers = calloc(n_cls + 1, sizeof(*covers));
	img->qn_key = calloc(n_cls ? n_cls : 1, sizeof(*img->qn_key));
	img->qn_val = calloc(n_cls ? n_cls : 1, sizeof(*img->qn_val));
	if (!covers || !img->qn_key || !img->qn_val)
		goto out;

	while (fp_htab__next(&nodes, &pos, &key, &cls)) {
		const struct qnode *x = key;
		unsigned off[FP_DNS_LABELS_MAX], n = suffixes(x, off);
		struct fp_flt_qname_val *v = &img->qn_val[img->n_qname];

		img->qn_key[img->n_qname] = (struct fp_flt_qname_key){
			.hash = fp_qname_hash(x->wire, x->len), .kind = x->kind };
		v->cls = cls;
		v->len = x->len;
		memcpy(v->name, x->wire, x->len);
		img->n_qname++;

		img->cfg.qn_depth[x->kind & 1] |= 1ull << (n < 64 ? n - 1 : 63);
		if (n > img->cfg.qn_max_depth)
			img->cfg.qn_max_depth = n < 64 ? n : FP_DNS_LABELS_MAX;
		if (x->kind == FP_QN_EXACT && clist_add(&covers[cls], cls))
			goto out;
		/* W(s) over x: s a proper suffix of an exact name, or any suffix
		 * (itself included) of a wildcard's suffix */
		for (unsigned k = x->kind == FP_QN_EXACT ? 1 : 0; k < n; k++) {
			struct qnode w = { .kind = FP_QN_WILD, .len = x->len - off[k] };
			uint32_t *anc;

			memcpy(w.wire, x->wire + off[k], w.len);
			anc = fp_htab__find(&nodes, &w);
			if (anc && clist_add(&covers[*anc], cls))
				goto out;
		}
	}
	for (size_t i = 0; i < set->n; i++) {
		struct qnode n;
		struct clist *from;

		if (!(set->rules[i].terms & FP_T_QNAME))
			continue;
		node_of(&set->rules[i].qname, &n);
		from = &covers[*fp_htab__find(&nodes, &n)];
		for (uint32_t j = 0; j < from->n; j++)
			if (clist_add(&rc[i].f[CF_QNAME], from->v[j]))
				goto out;
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
