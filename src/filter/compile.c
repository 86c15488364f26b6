// SPDX-License-Identifier: BSD-2-Clause
/*
 * Rule set -> one generation's map contents. Rules sharing a shape (the same
 * fields, the same TCP flag mask) form a tuple; each rule adds one key per
 * combination of the classes it covers, and the first rule to claim a key
 * keeps it (first match wins). See docs/architecture.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/bpf.h>

#include "filter/compile_internal.h"
#include "util/htab.h"

const char *cfield_name(enum cfield f)
{
	static const char *const names[CF_MAX] = {
		[CF_VLAN] = "vlan", [CF_SPORT] = "sport", [CF_DPORT] = "dport", [CF_LEN] = "len",
		[CF_TTL] = "ttl", [CF_SRC] = "src", [CF_DST] = "dst", [CF_QNAME] = "qname",
	};
	return f < CF_MAX ? names[f] : "?";
}

uint64_t fp_rule_ident(const char *text)
{
	return fp_hash_bytes(text, strlen(text));
}

static uint32_t rule_fields(const struct fp_rule *r)
{
	return r->terms & (FP_T_L3 | FP_T_PROTO | FP_T_SRC | FP_T_DST | FP_T_SPORT | FP_T_DPORT |
			   FP_T_FLAGS | FP_T_LEN | FP_T_TTL | FP_T_VLAN | FP_T_FRAG | FP_T_QNAME |
			   FP_T_QTYPE | FP_T_UNDET | FP_T_ETHER);
}

struct tshape {
	uint32_t fields;
	uint32_t flags_mask;
};

/* A tuple's fields and its key masks: fp_flt_key with every bit the tuple
 * looks at set, as the words the stage ANDs the packet's key words with. */
static void tuple_init(struct fp_flt_tuple *t, uint32_t fields, uint8_t flags_mask)
{
	struct fp_flt_key k = { 0 };
	uint64_t w[4] = { 0 };

	if (fields & FP_T_L3)
		k.l3 = 0xff;
	if (fields & FP_T_PROTO)
		k.proto = 0xff;
	if (fields & FP_T_FLAGS)
		k.flags = flags_mask;
	if (fields & FP_T_VLAN)
		k.vlan = 0xffff;
	if (fields & FP_T_SPORT)
		k.sport = 0xffff;
	if (fields & FP_T_DPORT)
		k.dport = 0xffff;
	if (fields & FP_T_LEN)
		k.len = 0xffff;
	if (fields & FP_T_TTL)
		k.ttl = 0xffff;
	if (fields & FP_T_QTYPE)
		k.qtype = 0xffff;
	if (fields & FP_T_SRC)
		k.src = 0xffffffff;
	if (fields & FP_T_DST)
		k.dst = 0xffffffff;
	if (fields & FP_T_QNAME)
		k.qname = 0xffff;
	if (fields & FP_T_ETHER)
		k.ether = 0xffff;
	memcpy(w, &k, sizeof(k));
	*t = (struct fp_flt_tuple){ .kmask = { w[0], w[1], w[2] }, .kmask3 = (uint32_t)w[3],
				    .fields = fields };
}

/* Tuples in order of their first rule, so the stage can stop early. */
static int build_tuples(const struct fp_ruleset *set, struct fp_flt_image *img,
			uint8_t *rule_tuple, char *err, size_t errlen)
{
	struct fp_htab shapes;
	uint32_t n = 0;

	if (fp_htab__init(&shapes, sizeof(struct tshape), 64))
		return -ENOMEM;
	for (size_t i = 0; i < set->n; i++) {
		const struct fp_rule *r = &set->rules[i];
		struct tshape s = { rule_fields(r), r->terms & FP_T_FLAGS ? r->flags_mask : 0 };
		uint32_t *t = fp_htab__find(&shapes, &s);

		if (!t) {
			if (n == FP_MAX_TUPLES) {
				snprintf(err, errlen,
					 "rule '%s' (line %u) makes a %uth distinct combination of terms; "
					 "the filter takes at most %u",
					 r->id, r->line, n + 1, FP_MAX_TUPLES);
				fp_htab__free(&shapes);
				return -E2BIG;
			}
			if (fp_htab__add(&shapes, &s, n) < 0) {
				fp_htab__free(&shapes);
				return -ENOMEM;
			}
			tuple_init(&img->cfg.tuples[n], s.fields, s.flags_mask);
			img->cfg.tuple_min_rule[n] = i;
			rule_tuple[i] = n++;
		} else {
			rule_tuple[i] = *t;
		}
	}
	/* first appearance order is already ascending tuple_min_rule */
	img->cfg.n_tuples = n;
	fp_htab__free(&shapes);
	return 0;
}

/* Adds one key per combination of the rule's class lists. */
static int add_rule_keys(const struct fp_rule *r, uint32_t idx, uint8_t tuple,
			 const struct rule_cls *rc, struct fp_htab *keys,
			 char *err, size_t errlen)
{
	struct fp_flt_key k = { .tuple = tuple };
	uint32_t pos[CF_MAX] = { 0 }, len[CF_MAX];
	uint64_t total = 1;

	if (r->terms & FP_T_L3)
		k.l3 = r->l3;
	if (r->terms & FP_T_PROTO)
		k.proto = r->proto;
	if (r->terms & FP_T_FLAGS)
		k.flags = r->flags_val & r->flags_mask;
	if (r->terms & FP_T_QTYPE)
		k.qtype = r->qtype;
	if (r->terms & FP_T_ETHER)
		k.ether = r->ether;
	for (int f = 0; f < CF_MAX; f++) {
		len[f] = rc->f[f].n ? rc->f[f].n : 1;
		total *= len[f];
		if (total > FP_FLT_MAX_KEYS) {
			snprintf(err, errlen,
				 "rule '%s' (line %u) expands to more than %u table entries "
				 "(its %s term covers %u classes); split it or narrow its ranges",
				 r->id, r->line, FP_FLT_MAX_KEYS, cfield_name(f), rc->f[f].n);
			return -E2BIG;
		}
	}
	for (;;) {
#define CLS(x) (rc->f[x].n ? rc->f[x].v[pos[x]] : 0)
		k.vlan = CLS(CF_VLAN);
		k.sport = CLS(CF_SPORT);
		k.dport = CLS(CF_DPORT);
		k.len = CLS(CF_LEN);
		k.ttl = CLS(CF_TTL);
		k.src = CLS(CF_SRC);
		k.dst = CLS(CF_DST);
		k.qname = (uint16_t)CLS(CF_QNAME);
#undef CLS
		if (fp_htab__add(keys, &k, idx) < 0)
			return -ENOMEM;
		if (keys->n > FP_FLT_MAX_KEYS) {
			snprintf(err, errlen, "the rule set needs more than %u table entries "
				 "(at rule '%s', line %u)", FP_FLT_MAX_KEYS, r->id, r->line);
			return -E2BIG;
		}
		/* odometer over the class lists */
		int f = 0;
		for (; f < CF_MAX; f++) {
			if (++pos[f] < len[f])
				break;
			pos[f] = 0;
		}
		if (f == CF_MAX)
			return 0;
	}
}

static enum fp_flt_action flt_action(const struct fp_rule *r)
{
	return r->action == FP_ACT_DROP ? FP_FLT_DROP :
	       r->action == FP_ACT_LIMIT ? FP_FLT_LIMIT : FP_FLT_PASS;
}

/* The tuples below 63 (whose mask bits are their own) that use field and
 * no field outside allowed: those an entry of that field decides alone. */
static uint64_t tuples_within(const struct fp_flt_image *img, uint32_t field, uint32_t allowed)
{
	uint64_t bits = 0;

	for (uint32_t t = 0; t < img->cfg.n_tuples && t < FP_CM_TUPLE_BITS - 1; t++) {
		uint32_t f = img->cfg.tuples[t].fields;

		if ((f & field) && !(f & ~allowed))
			bits |= 1ull << t;
	}
	return bits;
}

/* The lowest hit (FP_FLT_HIT) of the tuples in direct on the key a packet
 * with pk's fields (l3, proto, dport, src, dst classes) gives each of them. */
static uint32_t direct_hit(const struct fp_ruleset *set, const struct fp_flt_image *img,
			   struct fp_htab *keys, uint64_t direct, const struct fp_flt_key *pk)
{
	uint32_t best = FP_FLT_NO_RULE;

	for (uint64_t d = direct; d; d &= d - 1) {
		uint32_t t = (uint32_t)__builtin_ctzll(d), f = img->cfg.tuples[t].fields, hit;
		struct fp_flt_key key = *pk;
		const uint32_t *rule;

		key.tuple = t;
		key.l3 = f & FP_T_L3 ? pk->l3 : 0;
		key.proto = f & FP_T_PROTO ? pk->proto : 0;
		rule = fp_htab__find(keys, &key);
		if (!rule)
			continue;
		hit = FP_FLT_HIT(*rule, flt_action(&set->rules[*rule]));
		if (hit < best)
			best = hit;
	}
	return best;
}

/*
 * The tuples a FP_CLS_DPORT_L4 entry decides alone (fields within ip/ip6,
 * protocol and dport): their key is fixed by the entry, so each is probed
 * here once per (l3, protocol, dport class), the lowest hit goes into the
 * entry and their bits leave its mask (abi.h).
 */
static int fill_port_hits(const struct fp_ruleset *set, struct fp_flt_image *img,
			  struct fp_htab *keys)
{
	uint64_t direct = tuples_within(img, FP_T_DPORT, FP_T_L3 | FP_T_PROTO | FP_T_DPORT);
	uint32_t n_cls = 0, *best;

	if (!direct)
		return 0;
	for (uint32_t v = 0; v < 65536; v++)
		if (img->cls[FP_CLS_DPORT + v] > n_cls)
			n_cls = img->cls[FP_CLS_DPORT + v];
	best = malloc((n_cls + 1) * sizeof(*best));
	if (!best)
		return -ENOMEM;
	for (uint32_t c = 0; c < 4; c++) {
		/* entry (l3 == 6) * 2 + (proto == UDP) */
		struct fp_flt_key pk = { .l3 = c & 2 ? 6 : 4,
					 .proto = c & 1 ? IPPROTO_UDP : IPPROTO_TCP };
		struct fp_flt_cls_ent *e = &img->cls_ent[FP_CLS_DPORT_L4 + c * 65536];

		best[0] = FP_FLT_NO_RULE; /* class 0: no rule names the port */
		for (uint32_t k = 1; k <= n_cls; k++) {
			pk.dport = (uint16_t)k;
			best[k] = direct_hit(set, img, keys, direct, &pk);
		}
		for (uint32_t v = 0; v < 65536; v++) {
			e[v].hit = best[img->cls[FP_CLS_DPORT + v]];
			e[v].mask &= ~direct;
		}
	}
	free(best);
	return 0;
}

/* direct_hit for address class cls of table tbl, memoized per table. */
static uint32_t addr_hit(const struct fp_ruleset *set, const struct fp_flt_image *img,
			 struct fp_htab *keys, uint64_t direct, uint32_t tbl, uint32_t cls,
			 uint32_t *memo)
{
	struct fp_flt_key pk = { .l3 = tbl >= FP_ADDR_SRC6 ? 6 : 4 };

	if (!cls || cls >= FP_CM_ADDR_N)
		return FP_FLT_NO_RULE;
	if (memo[cls] == UINT32_MAX) {
		if (tbl & 1)
			pk.dst = cls;
		else
			pk.src = cls;
		memo[cls] = direct_hit(set, img, keys, direct, &pk);
	}
	return memo[cls];
}

/*
 * The tuples an address prefilter entry decides alone (fields within ip/ip6
 * and one address): like fill_port_hits for the classes the entries answer
 * with (cls and the inline lcls), per table, since the table fixes the
 * family. A class found by a hash probe keeps its full mask word, and the
 * walk probes those tuples as before.
 */
static int fill_addr_hits(const struct fp_ruleset *set, struct fp_flt_image *img,
			  struct fp_htab *keys)
{
	const uint64_t direct[2] = { tuples_within(img, FP_T_SRC, FP_T_L3 | FP_T_SRC),
				     tuples_within(img, FP_T_DST, FP_T_L3 | FP_T_DST) };
	uint32_t *memo;

	if (!direct[0] && !direct[1])
		return 0;
	/* one memo per table (4 x the classes of a direction) */
	memo = malloc(4 * (size_t)FP_CM_ADDR_N * sizeof(*memo));
	if (!memo)
		return -ENOMEM;
	memset(memo, 0xff, 4 * (size_t)FP_CM_ADDR_N * sizeof(*memo));
	for (uint32_t i = 0; i < FP_PRE_ADDRS; i++) {
		struct fp_flt_pre *e = &img->pre[i];
		uint32_t tbl = i >> 16, *m = memo + (size_t)tbl * FP_CM_ADDR_N;
		uint64_t d = direct[tbl & 1];

		if (!d)
			continue;
		e->hit = addr_hit(set, img, keys, d, tbl, e->cls, m);
		e->mask &= ~d;
		if (e->lplen) {
			e->lhit = addr_hit(set, img, keys, d, tbl, e->lcls, m);
			e->lmask &= ~d;
		}
	}
	free(memo);
	return 0;
}

static void fill_rule(const struct fp_rule *r, struct fp_flt_rule *out, struct fp_flt_text *text)
{
	memset(out, 0, sizeof(*out));
	fp_rule__format(r, text->text, sizeof(text->text));
	out->action = flt_action(r);
	out->by = r->by;
	out->sample_n = r->sample_n;
	out->ident = fp_rule_ident(text->text);
	if (r->action == FP_ACT_LIMIT && r->rate_count) {
		uint32_t burst = r->burst ? r->burst : 1;

		out->interval_ns = (uint64_t)r->rate_period_s * 1000000000ull / r->rate_count;
		if (!out->interval_ns)
			out->interval_ns = 1;
		out->tau_ns = (uint64_t)(burst - 1) * out->interval_ns;
	}
}

int fp_flt_image__build(const struct fp_ruleset *set, struct fp_flt_image *img,
			char *err, size_t errlen)
{
	struct rule_cls *rc = NULL;
	uint8_t *rule_tuple = NULL;
	struct fp_htab keys = { 0 };
	int ret = -ENOMEM;

	memset(img, 0, sizeof(*img));
	snprintf(err, errlen, "out of memory");
	if (set->n > FP_MAX_RULES) {
		snprintf(err, errlen, "%zu rules; the filter takes at most %u", set->n, FP_MAX_RULES);
		return -E2BIG;
	}
	img->cfg.n_rules = set->n;
	img->cfg.default_verdict = set->default_action == FP_ACT_DROP ? XDP_DROP : XDP_PASS;
	img->cls = big_calloc(FP_CLS_ENTRIES, sizeof(*img->cls));
	img->rules = calloc(set->n + 1, sizeof(*img->rules));
	img->text = calloc(set->n + 1, sizeof(*img->text));
	rc = calloc(set->n + 1, sizeof(*rc));
	rule_tuple = calloc(set->n + 1, 1);
	if (!img->cls || !img->rules || !img->text || !rc || !rule_tuple)
		goto out;

	for (size_t i = 0; i < set->n; i++) {
		img->cfg.use |= rule_fields(&set->rules[i]);
		fill_rule(&set->rules[i], &img->rules[i], &img->text[i]);
	}
	for (size_t j = 0; j < N_RANGE_FIELDS; j++) {
		ret = classes_ranges(set, range_fields[j].f, img->cls + range_fields[j].cls_base,
				     range_fields[j].domain, rc, err, errlen);
		if (ret)
			goto out;
	}
	ret = classes_addrs(set, img, rc);
	if (ret == -E2BIG)
		snprintf(err, errlen, "more than %u distinct prefix lengths in one address family",
			 FP_MAX_PLENS);
	if (ret)
		goto out;
	ret = classes_qnames(set, img, rc);
	if (ret)
		goto out;
	ret = build_tuples(set, img, rule_tuple, err, errlen);
	if (ret)
		goto out;

	ret = build_cmask(set, img, rule_tuple, rc);
	if (!ret)
		ret = build_prefilter(img);
	if (ret)
		goto out;

	ret = -ENOMEM;
	if (fp_htab__init(&keys, sizeof(struct fp_flt_key), set->n * 2 + 16))
		goto out;
	for (size_t i = 0; i < set->n; i++) {
		ret = add_rule_keys(&set->rules[i], i, rule_tuple[i], &rc[i], &keys, err, errlen);
		if (ret)
			goto out;
	}
	ret = fill_port_hits(set, img, &keys);
	if (!ret)
		ret = fill_addr_hits(set, img, &keys);
	if (!ret)
		ret = pack_prefilter(img);
	if (ret)
		goto out;
	ret = -ENOMEM;
	img->keys = malloc((keys.n + 1) * sizeof(*img->keys));
	img->key_hit = malloc((keys.n + 1) * sizeof(*img->key_hit));
	if (!img->keys || !img->key_hit)
		goto out;
	{
		size_t pos = 0;
		const void *k;
		uint32_t v;

		while (fp_htab__next(&keys, &pos, &k, &v)) {
			memcpy(&img->keys[img->n_keys], k, sizeof(*img->keys));
			img->key_hit[img->n_keys++] = FP_FLT_HIT(v, flt_action(&set->rules[v]));
		}
	}
	ret = build_flat(img);
	if (ret == -E2BIG)
		snprintf(err, errlen, "the rule set needs %zu tuple keys and %zu address prefixes; "
			 "even the largest tables (2^%u slots, --table-bits %u) cannot place them: "
			 "split port lists or merge prefixes", img->n_keys, img->n_addr,
			 FP_FLAT_MAX_BITS, FP_FLAT_MAX_BITS);
	if (ret)
		goto out;
	ret = 0;
	err[0] = 0;
out:
	if (rc)
		for (size_t i = 0; i < set->n; i++)
			for (int f = 0; f < CF_MAX; f++)
				free(rc[i].f[f].v);
	free(rc);
	free(rule_tuple);
	fp_htab__free(&keys);
	if (ret)
		fp_flt_image__free(img);
	return ret;
}

void fp_flt_image__free(struct fp_flt_image *img)
{
	if (!img)
		return;
	free(img->cls);
	free(img->cls_ent);
	free(img->rules);
	free(img->text);
	free(img->keys);
	free(img->key_hit);
	free(img->addr);
	free(img->addr_cls);
	free(img->qn_key);
	free(img->qn_val);
	free(img->qn_slots);
	free(img->qn_names);
	free(img->key_slots);
	free(img->addr_slots);
	free(img->abloom);
	free(img->cmask);
	free(img->pre);
	free(img->pre_map);
	free(img->b48);
	memset(img, 0, sizeof(*img));
}

int fp_flt_image__check(const struct fp_ruleset *set, unsigned *table_bits,
			char *err, size_t errlen)
{
	struct fp_flt_image img;
	int ret = fp_flt_image__build(set, &img, err, errlen);

	if (ret)
		return ret;
	*table_bits = img.cfg.key_bits > img.cfg.addr_bits ? img.cfg.key_bits : img.cfg.addr_bits;
	if (*table_bits < FP_FLAT_BITS_DEFAULT)
		*table_bits = FP_FLAT_BITS_DEFAULT;
	fp_flt_image__free(&img);
	return 0;
}
