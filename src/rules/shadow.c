// SPDX-License-Identifier: BSD-2-Clause
/*
 * Shadowed rules (shadow.h): the covers relation between two rules' terms,
 * and a search for rules an earlier rule covers that looks up candidates in
 * an index instead of comparing every pair.
 */
#include "rules/shadow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/htab.h"

/* The terms this file knows; a rule with another term never covers. */
#define KNOWN_TERMS (FP_T_L3 | FP_T_PROTO | FP_T_SRC | FP_T_DST | FP_T_SPORT | FP_T_DPORT | \
		     FP_T_FLAGS | FP_T_LEN | FP_T_TTL | FP_T_VLAN | FP_T_FRAG | FP_T_QNAME |      \
		     FP_T_QTYPE | FP_T_UNDET | FP_T_ETHER)

static bool range_in(const struct fp_range *in, const struct fp_range *r)
{
	return in->lo <= r->lo && r->hi <= in->hi;
}

/* Every port of b's ranges is in one of a's ranges. */
static bool ports_cover(const struct fp_portset *a, const struct fp_portset *b)
{
	for (unsigned i = 0; i < b->n && i < FP_PORTS_MAX; i++) {
		uint32_t cur = b->r[i].lo;
		bool moved = true;

		while (cur <= b->r[i].hi && moved) {
			moved = false;
			for (unsigned j = 0; j < a->n && j < FP_PORTS_MAX; j++) {
				if (a->r[j].lo <= cur && cur <= a->r[j].hi) {
					cur = a->r[j].hi + 1;
					moved = true;
				}
			}
		}
		if (cur <= b->r[i].hi)
			return false;
	}
	return true;
}

static bool cidr_covers(const struct fp_cidr *a, const struct fp_cidr *b)
{
	unsigned full = a->plen / 8, rest = a->plen % 8;

	if (a->family != b->family || a->plen > b->plen || memcmp(a->addr, b->addr, full))
		return false;
	return !rest || !((a->addr[full] ^ b->addr[full]) & (uint8_t)(0xff << (8 - rest)));
}

/* Offsets of the labels of a wire name, the root's included; their count. */
static size_t label_offsets(const struct fp_qname *q, uint8_t *off)
{
	size_t n = 0, o = 0;

	while (o < q->wire_len) {
		off[n++] = (uint8_t)o;
		if (!q->wire[o])
			break;
		o += 1 + (size_t)q->wire[o];
	}
	return n;
}

static bool qname_covers(const struct fp_qname *a, const struct fp_qname *b)
{
	uint8_t off[FP_DNS_NAME_MAX];
	size_t n;

	if (!a->wildcard)
		return !b->wildcard && a->wire_len == b->wire_len &&
		       !memcmp(a->wire, b->wire, a->wire_len);
	/* *.s holds names one or more labels below s: an exact name strictly
	 * below s, or a wildcard *.t with t at or below s */
	n = label_offsets(b, off);
	for (size_t i = b->wildcard ? 0 : 1; i < n; i++)
		if (b->wire_len - off[i] == a->wire_len &&
		    !memcmp(b->wire + off[i], a->wire, a->wire_len))
			return true;
	return false;
}

bool fp_rule__covers(const struct fp_rule *a, const struct fp_rule *b)
{
	uint32_t t = a->terms;

	if ((t & ~KNOWN_TERMS) || (t & ~b->terms))
		return false;
	if ((t & FP_T_L3) && a->l3 != b->l3)
		return false;
	if ((t & FP_T_PROTO) && a->proto != b->proto)
		return false;
	if ((t & FP_T_SRC) && !cidr_covers(&a->src, &b->src))
		return false;
	if ((t & FP_T_DST) && !cidr_covers(&a->dst, &b->dst))
		return false;
	if ((t & FP_T_SPORT) && !ports_cover(&a->sport, &b->sport))
		return false;
	if ((t & FP_T_DPORT) && !ports_cover(&a->dport, &b->dport))
		return false;
	if ((t & FP_T_FLAGS) && ((a->flags_mask & ~b->flags_mask) ||
				 (b->flags_val & a->flags_mask) != a->flags_val))
		return false;
	if ((t & FP_T_LEN) && !range_in(&a->len, &b->len))
		return false;
	if ((t & FP_T_TTL) && !range_in(&a->ttl, &b->ttl))
		return false;
	if ((t & FP_T_VLAN) && a->vlan != b->vlan)
		return false;
	if ((t & FP_T_QNAME) && !qname_covers(&a->qname, &b->qname))
		return false;
	if ((t & FP_T_QTYPE) && a->qtype != b->qtype)
		return false;
	if ((t & FP_T_ETHER) && a->ether != b->ether)
		return false;
	return true; /* FP_T_FRAG, FP_T_UNDET: present in both */
}

/* ---- the search ---------------------------------------------------------- */

/* The field a shape's rules are indexed by. */
enum key_kind { K_SRC, K_DST, K_QNAME, K_DPORT, K_SPORT, K_NONE };

struct shape {
	uint32_t terms;
	uint8_t flags_mask;
	enum key_kind kind;
	uint64_t plens[2][3];              /* K_SRC/K_DST: prefix lengths used, v4 and v6 */
};

struct entry {
	uint32_t rule, next;
};

struct search {
	const struct fp_ruleset *set;
	struct shape *shapes;
	size_t n_shapes;
	struct fp_htab heads;              /* key hash -> first entry */
	struct entry *e;
	size_t n_e, cap_e;
	uint64_t work;
};

struct key {
	size_t n;
	uint8_t b[320];
};

#define NONE UINT32_MAX

static void put(struct key *k, const void *p, size_t n)
{
	memcpy(k->b + k->n, p, n);
	k->n += n;
}

/* The shape's index and the rule's values of the shape's exact-match terms. */
static void key_eq(struct key *k, uint32_t si, const struct shape *s, const struct fp_rule *r)
{
	uint8_t fv = r->flags_val & s->flags_mask;

	k->n = 0;
	put(k, &si, sizeof(si));
	if (s->terms & FP_T_L3)
		put(k, &r->l3, 1);
	if (s->terms & FP_T_PROTO)
		put(k, &r->proto, 1);
	if (s->terms & FP_T_VLAN)
		put(k, &r->vlan, 2);
	if (s->terms & FP_T_QTYPE)
		put(k, &r->qtype, 2);
	if (s->terms & FP_T_ETHER)
		put(k, &r->ether, 2);
	if (s->terms & FP_T_FLAGS)
		put(k, &fv, 1);
}

static void key_tag(struct key *k, uint8_t tag)
{
	put(k, &tag, 1);
}

static void key_cidr(struct key *k, const struct fp_cidr *c, unsigned plen)
{
	uint8_t a[16] = { 0 };

	memcpy(a, c->addr, plen / 8);
	if (plen % 8)
		a[plen / 8] = c->addr[plen / 8] & (uint8_t)(0xff << (8 - plen % 8));
	key_tag(k, 'c');
	put(k, &c->family, 1);
	put(k, &plen, sizeof(plen));
	put(k, a, sizeof(a));
}

static void key_name(struct key *k, bool wildcard, const uint8_t *wire, size_t len)
{
	uint8_t w = wildcard;

	key_tag(k, 'n');
	put(k, &w, 1);
	put(k, wire, len);
}

static void key_port(struct key *k, uint32_t port)
{
	key_tag(k, 'p');
	put(k, &port, sizeof(port));
}

static uint64_t key_hash(const struct key *k)
{
	return fp_hash_bytes(k->b, k->n);
}

static int index_add(struct search *s, const struct key *k, size_t rule)
{
	uint64_t h = key_hash(k);
	uint32_t *head = fp_htab__find(&s->heads, &h);

	if (s->n_e == s->cap_e) {
		size_t cap = s->cap_e ? 2 * s->cap_e : 64;
		struct entry *v = realloc(s->e, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->e = v;
		s->cap_e = cap;
	}
	s->e[s->n_e] = (struct entry){ (uint32_t)rule, head ? *head : NONE };
	if (head)
		*head = (uint32_t)s->n_e;
	else if (fp_htab__add(&s->heads, &h, (uint32_t)s->n_e) < 0)
		return -ENOMEM;
	s->n_e++;
	return 0;
}

/* The earliest-inserted candidates last; the first that covers b, or NONE. */
static uint32_t probe(struct search *s, const struct key *k, size_t b)
{
	uint64_t h = key_hash(k);
	uint32_t *head = fp_htab__find(&s->heads, &h);

	s->work++;
	for (uint32_t i = head ? *head : NONE; i != NONE && s->work <= FP_SHADOW_WORK_MAX;
	     i = s->e[i].next) {
		s->work++;
		if (fp_rule__covers(&s->set->rules[s->e[i].rule], &s->set->rules[b]))
			return s->e[i].rule;
	}
	return NONE;
}

static const struct fp_portset *kind_ports(enum key_kind kind, const struct fp_rule *r)
{
	return kind == K_DPORT ? &r->dport : &r->sport;
}

static bool one_port(const struct fp_portset *p)
{
	return p->n == 1 && p->r[0].lo == p->r[0].hi;
}

/* A covering rule of shape si for rule b, or NONE. */
static uint32_t find_in_shape(struct search *s, uint32_t si, size_t b)
{
	const struct shape *sh = &s->shapes[si];
	const struct fp_rule *r = &s->set->rules[b];
	struct key k;
	uint32_t a = NONE;

	switch (sh->kind) {
	case K_SRC:
	case K_DST: {
		const struct fp_cidr *c = sh->kind == K_SRC ? &r->src : &r->dst;
		const uint64_t *pl = sh->plens[c->family == 6];

		for (unsigned p = 0; p <= c->plen && a == NONE; p++) {
			if (!(pl[p / 64] >> (p % 64) & 1))
				continue;
			key_eq(&k, si, sh, r);
			key_cidr(&k, c, p);
			a = probe(s, &k, b);
		}
		return a;
	}
	case K_QNAME: {
		uint8_t off[FP_DNS_NAME_MAX];
		size_t n = label_offsets(&r->qname, off);

		if (!r->qname.wildcard) {
			key_eq(&k, si, sh, r);
			key_name(&k, false, r->qname.wire, r->qname.wire_len);
			a = probe(s, &k, b);
		}
		for (size_t i = r->qname.wildcard ? 0 : 1; i < n && a == NONE; i++) {
			key_eq(&k, si, sh, r);
			key_name(&k, true, r->qname.wire + off[i], r->qname.wire_len - off[i]);
			a = probe(s, &k, b);
		}
		return a;
	}
	case K_DPORT:
	case K_SPORT:
		if (one_port(kind_ports(sh->kind, r))) {
			key_eq(&k, si, sh, r);
			key_port(&k, kind_ports(sh->kind, r)->r[0].lo);
			a = probe(s, &k, b);
		}
		if (a != NONE)
			return a;
		/* and the rules of this shape with a wider port list: */
		__attribute__((fallthrough));
	case K_NONE:
		key_eq(&k, si, sh, r);
		key_tag(&k, 'w');
		return probe(s, &k, b);
	}
	return NONE;
}

static enum key_kind shape_kind(uint32_t terms)
{
	if (terms & FP_T_SRC)
		return K_SRC;
	if (terms & FP_T_DST)
		return K_DST;
	if (terms & FP_T_QNAME)
		return K_QNAME;
	if (terms & FP_T_DPORT)
		return K_DPORT;
	if (terms & FP_T_SPORT)
		return K_SPORT;
	return K_NONE;
}

/* Adds rule b to the index under its shape (made if new). */
static int insert(struct search *s, size_t b)
{
	const struct fp_rule *r = &s->set->rules[b];
	uint8_t fm = r->terms & FP_T_FLAGS ? r->flags_mask : 0;
	struct shape *sh = NULL;
	uint32_t si;
	struct key k;

	if (r->terms & ~KNOWN_TERMS)
		return 0; /* covers nothing: not indexed */
	for (si = 0; si < s->n_shapes; si++)
		if (s->shapes[si].terms == r->terms && s->shapes[si].flags_mask == fm)
			break;
	if (si == s->n_shapes)
		s->shapes[s->n_shapes++] = (struct shape){ r->terms, fm, shape_kind(r->terms), { { 0 } } };
	sh = &s->shapes[si];
	key_eq(&k, si, sh, r);
	switch (sh->kind) {
	case K_SRC:
	case K_DST: {
		const struct fp_cidr *c = sh->kind == K_SRC ? &r->src : &r->dst;

		sh->plens[c->family == 6][c->plen / 64] |= 1ull << (c->plen % 64);
		key_cidr(&k, c, c->plen);
		break;
	}
	case K_QNAME:
		key_name(&k, r->qname.wildcard, r->qname.wire, r->qname.wire_len);
		break;
	case K_DPORT:
	case K_SPORT:
		if (one_port(kind_ports(sh->kind, r))) {
			key_port(&k, kind_ports(sh->kind, r)->r[0].lo);
			break;
		}
		__attribute__((fallthrough));
	case K_NONE:
		key_tag(&k, 'w');
		break;
	}
	return index_add(s, &k, b);
}

int fp_ruleset__shadowed(const struct fp_ruleset *set,
			 void (*fn)(void *ctx, size_t b, size_t a), void *ctx, size_t *stopped)
{
	struct search s = { .set = set };
	int ret = -ENOMEM;

	*stopped = set->n;
	s.shapes = calloc(set->n + 1, sizeof(*s.shapes));
	if (!s.shapes || fp_htab__init(&s.heads, sizeof(uint64_t), set->n + 16))
		goto out;
	for (size_t b = 0; b < set->n; b++) {
		const struct fp_rule *r = &set->rules[b];
		uint32_t a = NONE;

		for (uint32_t si = 0; si < s.n_shapes && a == NONE; si++) {
			const struct shape *sh = &s.shapes[si];

			if ((sh->terms & ~r->terms) || (sh->flags_mask & ~r->flags_mask))
				continue;
			a = find_in_shape(&s, si, b);
		}
		if (s.work > FP_SHADOW_WORK_MAX) {
			*stopped = b;
			ret = 1;
			goto out;
		}
		if (a != NONE)
			fn(ctx, b, a);
		else if (insert(&s, b)) /* a covered rule covers nothing its coverer does not */
			goto out;
	}
	ret = 0;
out:
	free(s.shapes);
	free(s.e);
	fp_htab__free(&s.heads);
	return ret;
}
