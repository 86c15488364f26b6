// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The filter stage: the first rule whose terms all hold decides drop, pass
 * or rate limit; per-rule per-CPU counters; no loop over rules (see
 * classify.h). Reads the parse the entry program left in fp_scratch.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "pipeline.h"
#include "filter_maps.h"
#include "classify.h"
#include "parse.h"

/* Set by `fastpath filter test` before load: record each decision. */
const volatile __u32 record_last = 0;

static __always_inline void count(void *map, __u32 idx, __u32 bytes)
{
	struct fp_counter *c = bpf_map_lookup_elem(map, &idx);

	if (c) {
		c->packets++;
		c->bytes += bytes;
	}
}

/* The class of the packet's source (dst 0) or destination address, its
 * mask word ANDed into *m and what it decides alone into *hit; a packet
 * without IP takes the class-0 word. */
static __always_inline __u32 addr_field(struct fp_pkt *pkt, const struct fp_flt_gencfg *g,
					__u32 gen, __u32 dst, __u64 *m, __u32 *hit)
{
	if (!(pkt->have & FP_HAVE_L3)) {
		*m &= g->cm_zero[dst ? FP_CMF_DST : FP_CMF_SRC];
		return 0;
	}
	return flt_addr_class(pkt, g, gen, (dst ? FP_ADDR_DST4 : FP_ADDR_SRC4) +
					   (pkt->l3 == 6 ? 2 : 0), m, hit);
}

/*
 * The packet's classes for every field the generation uses, and the tuples
 * they leave (c->cand): the AND of one mask word per field. A range field's
 * word comes with its class, a short prefix's with the prefilter entry, a
 * field the packet lacks reads its class-0 word from gencfg. The cheap
 * fields go first; the costly ones (an address may need a hash probe, the
 * DNS name a parse and a probe per label) only while a tuple left uses
 * them: a tuple that does not use a field is in every one of its mask
 * words, so skipping the field changes nothing.
 * Each class goes straight into the packet's key words (c->kw, from which a
 * tuple's key is four ANDs) and its presence bit, held in registers: storing
 * the classes and reading them back cost ~5 ns a packet in NAPI. Inlined: as
 * a global function it cost every packet a call and the spills around it.
 * A field the packet lacks leaves its key bits 0: tuples that need it are
 * never probed.
 */
static __always_inline __u32 fp_flt_classify(struct xdp_md *ctx, struct fp_pkt *pkt,
					      const struct fp_flt_gencfg *g, __u32 gen,
					      struct fp_cls *c)
{
	__u32 use, have, pres = 0, cls, hit = FP_FLT_NO_RULE;
	__u64 m = ~0ULL, kw0, kw1 = 0, kw2 = 0, kw3 = 0;

	if (!pkt || !g || !c)
		return FP_FLT_NO_RULE;
	gen &= 1;
	use = g->use;
	have = pkt->have;
	/* struct fp_flt_key as little-endian words: tuple l3 proto flags vlan
	 * sport | dport len ttl qtype | src dst | qname ether */
	kw0 = (__u64)pkt->l3 << 8 | (__u64)pkt->proto << 16 | (__u64)pkt->tcp_flags << 24;
	c->vlan1 = 0;
	/* a TCP or UDP packet's dport entry carries the L3PROTO word too */
	if ((use & (FP_T_L3 | FP_T_PROTO | FP_T_UNDET | FP_T_ETHER)) &&
	    !((use & FP_T_DPORT) && (have & FP_HAVE_PORTS))) {
		__u32 l3 = !(have & FP_HAVE_L3) ? 0 : pkt->l3 == 6 ? 2 : 1;

		m &= cm_at(gen, FP_CM_L3PROTO, FP_CM_L3PROTO_N,
			   l3 * 257 + (have & FP_HAVE_PROTO ? pkt->proto : 256));
	}
	if (have & FP_HAVE_L3) {
		/* valid IP without a protocol: the upper layer was not reached */
		pres |= FP_T_L3 | (have & FP_HAVE_FRAG ? FP_T_FRAG : 0) |
			(have & FP_HAVE_PROTO ? FP_T_PROTO : FP_T_UNDET);
		/* a len or ttl outside the span some rule covers: class 0, and
		 * the class-0 word from gencfg's second line, not a lookup */
		if (use & FP_T_LEN) {
			cls = 0;
			if (pkt->len >= g->len_span[0] && pkt->len <= g->len_span[1])
				cls = cls_at(gen, FP_CLS_LEN + pkt->len, &m);
			else
				m &= g->cm_zero[FP_CMF_LEN];
			kw1 |= (__u64)cls << 16;
			pres |= cls ? FP_T_LEN : 0;
		}
		if (use & FP_T_TTL) {
			cls = 0;
			if (pkt->ttl >= g->ttl_span[0] && pkt->ttl <= g->ttl_span[1])
				cls = cls_at(gen, FP_CLS_TTL + pkt->ttl, &m);
			else
				m &= g->cm_zero[FP_CMF_TTL];
			kw1 |= (__u64)cls << 32;
			pres |= cls ? FP_T_TTL : 0;
		}
	} else {
		if (use & FP_T_LEN)
			m &= g->cm_zero[FP_CMF_LEN];
		if (use & FP_T_TTL)
			m &= g->cm_zero[FP_CMF_TTL];
	}
	if (have & FP_HAVE_TCP)
		pres |= FP_T_FLAGS;
	if (have & FP_HAVE_PORTS) {
		if (use & FP_T_SPORT) {
			cls = cls_at(gen, FP_CLS_SPORT + pkt->sport, &m);
			kw0 |= (__u64)cls << 48;
			pres |= cls ? FP_T_SPORT : 0;
		}
		if (use & FP_T_DPORT) {
			__u32 i = gen * FP_CLS_ENTRIES + FP_CLS_DPORT_L4 +
				  (((pkt->l3 == 6) << 1 | (pkt->proto == IPPROTO_UDP)) << 16) +
				  pkt->dport;
			struct fp_flt_cls_ent *e = bpf_map_lookup_elem(&fp_flt_cls, &i);

			/* the entry decides the tuples of ip/ip6, protocol and dport
			 * alone (their hit, their bits cleared: abi.h); so do the
			 * address prefilter entries for ip/ip6 and an address */
			cls = 0;
			if (e) {
				m &= e->mask;
				cls = e->cls;
				hit = e->hit;
			}
			kw1 |= cls;
			pres |= cls ? FP_T_DPORT : 0;
		}
	} else {
		if (use & FP_T_SPORT)
			m &= g->cm_zero[FP_CMF_SPORT];
		if (use & FP_T_DPORT)
			m &= g->cm_zero[FP_CMF_DPORT];
	}
	if (use & FP_T_VLAN) {
		if (pkt->n_vlan) {
			/* either tag may match: the union of the two tags' words */
			__u64 m0 = ~0ULL, m1 = 0;
			__u32 v0, v1 = 0;

			v0 = cls_at(gen, FP_CLS_VLAN + (pkt->vlan[0] & 0xfff), &m0);
			if (pkt->n_vlan > 1) {
				m1 = ~0ULL;
				v1 = cls_at(gen, FP_CLS_VLAN + (pkt->vlan[1] & 0xfff), &m1);
			}
			m &= m0 | m1;
			if (v1 == v0)
				v1 = 0;
			if (!v0) {
				v0 = v1;
				v1 = 0;
			}
			kw0 |= (__u64)v0 << 32;
			pres |= v0 ? FP_T_VLAN : 0;
			c->vlan1 = v1;
		} else {
			m &= g->cm_zero[FP_CMF_VLAN];
		}
	}
	if (use & FP_T_ETHER) {
		kw3 = (__u64)pkt->ethertype << 16;
		pres |= pkt->ethertype ? FP_T_ETHER : 0;
	}
	/* the costly fields, while a tuple left uses them (no rule uses the
	 * field: its uses word is 0) */
	if (m & g->cm_uses[FP_CMF_SRC]) {
		cls = addr_field(pkt, g, gen, 0, &m, &hit);
		kw2 |= cls;
		pres |= cls ? FP_T_SRC : 0;
	}
	if (m & g->cm_uses[FP_CMF_DST]) {
		cls = addr_field(pkt, g, gen, 1, &m, &hit);
		kw2 |= (__u64)cls << 32;
		pres |= cls ? FP_T_DST : 0;
	}
	if (m & g->dns_uses) {
		fp_parse_dns(ctx, pkt);
		have = pkt->have;
		if (have & FP_HAVE_DNS) {
			pres |= FP_T_QTYPE;
			kw1 |= (__u64)pkt->qtype << 48;
		}
		if (m & g->cm_uses[FP_CMF_QNAME]) {
			cls = have & FP_HAVE_DNS ? fp_flt_qname_class(pkt, g, gen) : 0;
			m &= cls ? cm_at(gen, FP_CM_QNAME, FP_CM_QNAME_N, cls) :
				   g->cm_zero[FP_CMF_QNAME];
			kw3 |= cls;
			pres |= cls ? FP_T_QNAME : 0;
		}
	}
	/* the walk reads the key words only for tuples left: a packet the
	 * fields decided (m == 0, a flood its rule's dport entry drops) skips
	 * the stores */
	c->cand = m;
	if (m) {
		c->present = pres;
		c->kw[0] = kw0;
		c->kw[1] = kw1;
		c->kw[2] = kw2;
		c->kw[3] = kw3;
	}
	return hit;
}

struct tuple_walk {
	struct fp_pkt *pkt;
	const struct fp_flt_gencfg *g;
	const struct fp_cls *c;
	__u32 gen;
	__u64 cand;       /* candidate tuples below bit 63 not yet probed */
	__u32 best;       /* the lowest hit so far (FP_FLT_HIT) */
	__u32 stop;       /* a tuple's first rule came after the best: done */
};

/* Tuple tu (index t): the lower of best and the hit of the first rule of
 * that shape matching the packet's classes. */
static __always_inline __u32 probe_tuple(const struct fp_flt_gencfg *g, const struct fp_cls *c,
					 __u32 gen, const struct fp_flt_tuple *tu, __u32 t,
					 __u32 best)
{
	struct fp_words k;
	__u32 f = tu->fields, hit;

	if (f & ~c->present)
		return best; /* a field this shape needs is absent */
	k.w0 = (c->kw[0] & tu->kmask[0]) | t;
	k.w1 = c->kw[1] & tu->kmask[1];
	k.w2 = c->kw[2] & tu->kmask[2];
	k.w3 = c->kw[3] & tu->kmask3;
	hit = flat_key_hit(gen, g->key_bits, &k);
	if (hit < best)
		best = hit;
	if ((f & FP_T_VLAN) && c->vlan1) {
		/* QinQ with both tags named by rules: try the other tag too */
		k.w0 = (k.w0 & ~(0xffffULL << 32)) | (__u64)c->vlan1 << 32;
		hit = flat_key_hit(gen, g->key_bits, &k);
		if (hit < best)
			best = hit;
	}
	return best;
}

/* The walk's step: probe tuple t, or stop where no later tuple can win. */
static __always_inline long tuple_probe(__u32 t, void *arg)
{
	struct tuple_walk *w = arg;
	const struct fp_flt_tuple *tu;

	if (t >= FP_MAX_TUPLES)
		return 1;
	tu = &w->g->tuples[t];
	if (w->g->tuple_min_rule[t] >= FP_FLT_HIT_RULE(w->best)) {
		w->stop = 1;
		return 1; /* tuples are sorted: nothing later can win */
	}
	w->best = probe_tuple(w->g, w->c, w->gen, tu, t, w->best);
	return 0;
}

FP_LATE(tuple_probe)

/* The next candidate below bit 63, in tuple order (= rule order). */
static __always_inline long tuple_next(__u32 unused, void *arg)
{
	struct tuple_walk *w = arg;
	__u32 t;

	if (!w->cand)
		return 1;
	t = fp_ctz64(w->cand);
	w->cand &= w->cand - 1;
	return tuple_probe(t, w);
}

FP_LATE(tuple_next)

/* Tuples 63 and up share mask bit 63: probed one by one. */
static __always_inline long tuple_probe_hi(__u32 i, void *arg)
{
	return tuple_probe(i + FP_CM_TUPLE_BITS - 1, arg);
}

FP_LATE(tuple_probe_hi)

/*
 * The first rule that matches, as its hit (rule and action), or
 * FP_FLT_NO_RULE: one probe per tuple left, from best (the dport entry's hit
 * for the tuples it decides alone).
 * Inlined, like classify and the DNS name helpers: a BPF-to-BPF call costs
 * a packet the call, the spills around it and a return through the SRSO
 * return thunk (about 4 ns for this one, 27 ns over a DNS name's labels),
 * for more verification at load (each of fp_filter and fp_entry_filter:
 * ~650,000 instructions processed of the 1,000,000 allowed; the combined
 * stack of the callback chains is the other limit, 512 bytes).
 */
static __always_inline __u32 fp_flt_first_match(struct fp_pkt *pkt,
						   const struct fp_flt_gencfg *g, __u32 gen,
						   const struct fp_cls *c, __u32 best)
{
	struct tuple_walk w = { .pkt = pkt, .g = g, .c = c, .gen = gen & 1, .best = best };
	__u64 hi = 1ULL << (FP_CM_TUPLE_BITS - 1);
	__u32 n;

	if (!pkt || !g || !c)
		return FP_FLT_NO_RULE;
	w.cand = c->cand & ~hi;
	if (!c->cand)
		return best; /* decided by the dport entry, or by no rule */
	if (w.cand && !(w.cand & (w.cand - 1)) && !(c->cand & hi)) {
		/* one candidate (a flood that only its rule's shape fits): probed
		 * with everything in registers, not through the walk's struct,
		 * whose address the bpf_loop fallback makes it keep on the stack */
		__u32 t = fp_ctz64(w.cand);

		return probe_tuple(g, c, gen & 1, &g->tuples[t & (FP_MAX_TUPLES - 1)], t, best);
	}
	w.stop = 0;
	if (w.cand)
		FP_LOOP(FP_CM_TUPLE_BITS - 1, tuple_next, &w);
	n = g->n_tuples;
	if ((c->cand & hi) && !w.stop && n >= FP_CM_TUPLE_BITS)
		FP_LOOP(n - (FP_CM_TUPLE_BITS - 1), tuple_probe_hi, &w);
	return w.best;
}

/* GCRA: conforming packets advance the theoretical arrival time. A global
 * function: only limit rules pay for it (and its stack). The key is abi.h's
 * struct fp_flt_lim_key; fp_parse leaves src and dst zero where the packet
 * has no address (IPv4: bytes 4..15; no IP: all). Loaded for `filter test`
 * (record_last), the time is the capture's, which user space writes in
 * fp_flt_last before each run, and the key is recorded there; live, the
 * branch is dead code the verifier removes. */
__attribute__((noinline)) int fp_flt_limit_conforms(const struct fp_flt_rule *r,
						    struct fp_pkt *pkt)
{
	struct fp_flt_lim_key k = { 0 };
	struct fp_flt_lim_val *v, init;
	struct fp_flt_last *last = 0;
	__u32 zero = 0;
	__u64 now;

	if (!r || !pkt)
		return 1;
	if (record_last) {
		last = bpf_map_lookup_elem(&fp_flt_last, &zero);
		now = last ? last->now_ns : 0;
	} else {
		now = bpf_ktime_get_ns();
	}
	k.ident = r->ident;
	k.by = r->by;

	if (r->by != FP_FLT_BY_ALL)
		k.l3 = pkt->l3;
	if (r->by == FP_FLT_BY_SRC || r->by == FP_FLT_BY_FLOW)
		__builtin_memcpy(k.src, pkt->src, 16);
	if (r->by == FP_FLT_BY_DST || r->by == FP_FLT_BY_FLOW)
		__builtin_memcpy(k.dst, pkt->dst, 16);
	if (r->by == FP_FLT_BY_FLOW) {
		k.proto = pkt->have & FP_HAVE_PROTO ? pkt->proto : 0;
		if (pkt->have & FP_HAVE_PORTS) {
			k.sport = pkt->sport;
			k.dport = pkt->dport;
		}
	}
	if (last)
		last->lim = k;
	v = bpf_map_lookup_elem(&fp_flt_lim, &k);
	if (!v) {
		init.tat_ns = now + r->interval_ns;
		if (!bpf_map_update_elem(&fp_flt_lim, &k, &init, BPF_NOEXIST))
			return 1;
		v = bpf_map_lookup_elem(&fp_flt_lim, &k);
		if (!v)
			return 1;
	}
	for (int tries = 0; tries < 4; tries++) {
		__u64 tat = v->tat_ns, next;

		if (tat > now + r->tau_ns)
			return 0;
		next = (tat > now ? tat : now) + r->interval_ns;
		if (__sync_val_compare_and_swap(&v->tat_ns, tat, next) == tat)
			return 1;
	}
	return 0; /* lost the race four times: the bucket is busy, treat as over */
}

/* A rule's `sample 1/N`: after each offer, the number of its packets to let
 * go is drawn from 0..2N-2 (mean N-1), as sFlow agents do. */
static __always_inline int fp_flt_sample_due(__u64 *skip, __u32 n)
{
	if (*skip) {
		(*skip)--;
		return 0;
	}
	*skip = bpf_get_prandom_u32() % (2 * n - 1);
	return 1;
}

/*
 * While a `fastpath dump` runs (fp_ctl.dump), whether to offer this
 * decision to its tap: every one, or with FP_CTL_DUMP_OWN_RATE 1 in N of
 * a rule's packets where the rule says `sample 1/N` (the dump's tap then
 * selects and samples); the reason goes into pkt->verdict. Without a dump
 * a packet pays a test of the control word. r: the rule, when the caller
 * has looked it up already.
 */
static __always_inline int offer_due(struct fp_pkt *pkt, const struct fp_ctl *ctl,
				     const struct fp_flt_state *st, const struct fp_flt_rule *r,
				     __u32 gen, __u32 rule, struct fp_rule_cnt *rc)
{
	__u32 idx;

	if (!ctl || !(ctl->dump & FP_CTL_DUMP_ACTIVE))
		return 0;
	if (!r && rule < FP_MAX_RULES) {
		idx = (gen & 1) * FP_MAX_RULES + rule;
		r = bpf_map_lookup_elem(&fp_flt_rules, &idx);
	}
	if ((ctl->dump & FP_CTL_DUMP_OWN_RATE) && r && r->sample_n > 1 &&
	    !(rc && fp_flt_sample_due(&rc->skip, r->sample_n)))
		return 0;
	pkt->verdict.reason = rule;
	pkt->verdict.ident = r ? r->ident : 0;
	pkt->verdict.serial = (__u16)st->serial;
	return 1;
}

/* The stage: decide the packet parsed in *pkt, count it, drop it or hand it
 * to the next stage. st: fp_flt_state. The control word is looked up at
 * the end, not carried through the classification (a pointer live across
 * it cost spills, stack and verifier states). */
static __always_inline int filter_run(struct xdp_md *ctx, struct fp_pkt *pkt,
				      const struct fp_flt_state *st)
{
	__u32 zero = 0, gen, hit, rule, verdict, stat, bytes;
	struct fp_ctl *ctl;
	struct fp_flt_gencfg *g;
	struct fp_flt_rule *r = 0;
	struct fp_rule_cnt *rc = 0;
	struct fp_cls *c;
	__u32 idx;

	if (!pkt || !st)
		return XDP_PASS;
	c = (struct fp_cls *)pkt->stage;
	bytes = pkt->pkt_len;
	gen = st->gen & 1;
	g = st->serial ? bpf_map_lookup_elem(&fp_flt_gcfg, &gen) : 0;
	if (!g) {
		count(&fp_flt_stats, FP_FLT_ST_NO_RULES, bytes);
		ctl = fp_ctl_get();
		return fp_stage_end(ctx, pkt, ctl, FP_STAGE_FILTER, XDP_PASS,
				    offer_due(pkt, ctl, st, 0, 0, FP_FLT_NO_RULE, 0));
	}

	hit = fp_flt_classify(ctx, pkt, g, gen, c);
	/* for the verifier: the hit goes into the tuple walk through memory,
	 * so every classification path enters the walk with the same unknown
	 * value instead of its own range, and the walk is checked for fewer
	 * states (~6 instead of ~15 at its entry; fp_filter 804k -> 719k
	 * instructions processed). The offer overwrites the reason; the tap
	 * reads it only after one. */
	*(volatile __u32 *)&pkt->verdict.reason = hit;
	hit = *(volatile __u32 *)&pkt->verdict.reason;
	hit = fp_flt_first_match(pkt, g, gen, c, hit);
	rule = FP_FLT_HIT_RULE(hit);
	if (rule >= FP_MAX_RULES) {
		rule = FP_FLT_NO_RULE;
		verdict = g->default_verdict == XDP_DROP ? XDP_DROP : XDP_PASS;
		stat = verdict == XDP_DROP ? FP_FLT_ST_DEFAULT_DROP : FP_FLT_ST_DEFAULT_PASS;
	} else if (FP_FLT_HIT_ACTION(hit) == FP_FLT_LIMIT) {
		/* only a limit rule reads its entry in fp_flt_rules */
		idx = gen * FP_MAX_RULES + rule;
		r = bpf_map_lookup_elem(&fp_flt_rules, &idx);
		verdict = !r || fp_flt_limit_conforms(r, pkt) ? XDP_PASS : XDP_DROP;
		stat = verdict == XDP_DROP ? FP_FLT_ST_LIMIT_DROP : FP_FLT_ST_LIMIT_PASS;
	} else {
		verdict = FP_FLT_HIT_ACTION(hit) == FP_FLT_DROP ? XDP_DROP : XDP_PASS;
		stat = verdict == XDP_DROP ? FP_FLT_ST_RULE_DROP : FP_FLT_ST_RULE_PASS;
	}

	idx = gen * FP_FLT_CNT_ENTRIES + (rule < FP_MAX_RULES ? rule : FP_MAX_RULES);
	rc = bpf_map_lookup_elem(&fp_flt_cnt, &idx);
	bytes = pkt->pkt_len; /* read again: one value fewer live across the walk */
	if (rc) {
		rc->packets++;
		rc->bytes += bytes;
		rc->drops += verdict == XDP_DROP;
	}
	count(&fp_flt_stats, stat, bytes);
	if (record_last) {
		struct fp_flt_last *l = bpf_map_lookup_elem(&fp_flt_last, &zero);

		if (l) {
			l->rule = rule;
			l->verdict = verdict;
			l->seq++;
		}
	}
	ctl = fp_ctl_get();
	if (ctl && (ctl->dump & FP_CTL_DUMP_ACTIVE)) {
		/* a dump runs: the rare path, tested once and on its own, so the
		 * usual one does not carry an offer flag to its end */
		__u32 offer = offer_due(pkt, ctl, st, r, gen, rule, rc);

		if (rc)
			rc->samples += offer;
		return fp_stage_end(ctx, pkt, ctl, FP_STAGE_FILTER, verdict, offer);
	}
	if (verdict == XDP_DROP)
		return XDP_DROP;
	return fp_next_stage(ctx, FP_STAGE_FILTER);
}

/* Slot FP_STAGE_FILTER: after an earlier stage, or after the plain fp_entry. */
SEC("xdp")
int fp_filter(struct xdp_md *ctx)
{
	__u32 zero = 0;

	return filter_run(ctx, fp_pkt_get(), bpf_map_lookup_elem(&fp_flt_state, &zero));
}

/*
 * The filter's fused entry: the entry's parse and the filter in one
 * program, which the pipeline attaches in place of fp_entry while the
 * filter is the first stage that has one. An enabled earlier slot (the
 * dump's, while a `dump --match` runs) is tried first: the packet then
 * comes back through fp_filter. Without one, the packet never leaves this
 * program; that saves a tail call, a second prologue and scratch lookup,
 * and the jump into a second program's code: 12 ns a packet in NAPI
 * (`filter_rate.sh -s`, 156 -> 144 ns at 10,000 rules).
 */
SEC("xdp")
int fp_entry_filter(struct xdp_md *ctx)
{
	struct fp_pkt *pkt = fp_pkt_get();
	__u32 zero = 0;

	if (!pkt)
		return XDP_PASS;
	fp_parse(ctx, pkt);
	if (!fp_fused_head(ctx, fp_ctl_get(), FP_STAGE_FILTER))
		return fp_next_stage(ctx, FP_STAGE_FILTER);
	return filter_run(ctx, pkt, bpf_map_lookup_elem(&fp_flt_state, &zero));
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
