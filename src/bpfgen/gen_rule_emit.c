// SPDX-License-Identifier: BSD-2-Clause
/*
 * `bpfgen rule`: the small emitters the lowering is written with
 * (gen_rule.h): labels, near exits (relays), instructions, ranges, port
 * lists, CIDRs.
 */
#include "bpfgen/gen_rule.h"

/* ---- small emitters ------------------------------------------------------ */

int rg_label(struct rule_gen *g, const char *base)
{
	return fp_casm__label(g->a, "%s_%u", base, g->uniq++);
}

int rg_near(struct rule_gen *g, unsigned i)
{
	struct rg_relay *r = &g->relay[i];

	if (r->local < 0)
		r->local = rg_label(g, i == R_MATCH ? "match" : i == R_NOMATCH ? "nomatch" : "to");
	return r->local;
}

unsigned rg_relay_push(struct rule_gen *g, int far)
{
	unsigned i = g->nrelay++;

	g->relay[i].far = far;
	g->relay[i].local = -1;
	return i;
}

void rg_relay_pop(struct rule_gen *g)
{
	g->nrelay--;
}

/*
 * Exits placed in the middle of the program are `ja` to the final ones,
 * never `ret`: the kernel's scratch-slot check (check_load_and_stores)
 * carries what is known after a `ret` into the next instruction, so a
 * `ret` reached from before the slots were written would poison the code
 * after it. Only rg_finish() writes the `ret`s.
 */
void rg_flush(struct rule_gen *g, bool fall)
{
	int over = -1;
	unsigned i;

	for (i = 0; i < g->nrelay; i++)
		if (g->relay[i].local >= 0)
			break;
	if (i == g->nrelay)
		return;
	if (fall) {
		over = rg_label(g, "over");
		rg_ja(g, over);
	}
	for (i = 0; i < g->nrelay; i++) {
		struct rg_relay *r = &g->relay[i];

		if (r->local < 0)
			continue;
		fp_casm__place(g->a, r->local);
		rg_ja(g, r->far);
		r->local = -1;
	}
	if (fall)
		fp_casm__place(g->a, over);
}

/* The two `ret`s at the end, reached from the last near exits and from
 * every flushed one. */
void rg_finish(struct rule_gen *g)
{
	unsigned i;

	for (i = R_MATCH; i <= R_NOMATCH; i++) {
		struct rg_relay *r = &g->relay[i];

		if (r->local >= 0)
			fp_casm__place(g->a, r->local);
		fp_casm__place(g->a, r->far);
		rg_op(g, BPF_RET | BPF_K, i == R_MATCH ? ret_match(g->o) : ret_nomatch(g->o));
		r->local = -1;
	}
}

void rg_op(struct rule_gen *g, uint16_t code, uint32_t k)
{
	enum fp_kfmt kf = FP_K_DEC;

	if (BPF_CLASS(code) == BPF_ALU && (BPF_OP(code) == BPF_AND || BPF_OP(code) == BPF_OR))
		kf = FP_K_HEX;
	fp_casm__op(g->a, code, k, kf);
}

void rg_jmp(struct rule_gen *g, uint16_t op, uint32_t k, int jt, int jf)
{
	enum fp_kfmt kf = op == BPF_JSET || k > 255 ? FP_K_HEX : FP_K_DEC;

	if (jt == jf && jt != FP_LBL_NEXT) {
		fp_casm__ja(g->a, jt);
		return;
	}
	fp_casm__jmp(g->a, (uint16_t)(BPF_JMP | op | BPF_K), k, kf, jt, jf);
}

void rg_ja(struct rule_gen *g, int label)
{
	fp_casm__ja(g->a, label);
}

void rg_ld_ind(struct rule_gen *g, uint16_t size, uint32_t k)
{
	rg_op(g, (uint16_t)(BPF_LD | size | BPF_IND), k);
}

void rg_min_len(struct rule_gen *g, enum rule_slot slot)
{
	int keep = rg_label(g, "keep");

	rg_op(g, BPF_LD | BPF_W | BPF_LEN, 0);
	rg_op(g, BPF_MISC | BPF_TAX, 0);
	rg_op(g, BPF_LD | BPF_MEM, slot);
	fp_casm__jmp(g->a, BPF_JMP | BPF_JGT | BPF_X, 0, FP_K_DEC, FP_LBL_NEXT, keep);
	rg_op(g, BPF_MISC | BPF_TXA, 0);
	rg_op(g, BPF_ST, slot);
	fp_casm__place(g->a, keep);
}

void rg_range(struct rule_gen *g, uint32_t lo, uint32_t hi, uint32_t max, int fail)
{
	if (lo == hi) {
		rg_jmp(g, BPF_JEQ, lo, FP_LBL_NEXT, fail);
		return;
	}
	if (lo > 0)
		rg_jmp(g, BPF_JGE, lo, FP_LBL_NEXT, fail);
	if (hi < max)
		rg_jmp(g, BPF_JGT, hi, fail, FP_LBL_NEXT);
}

/* A (a port) within one of the ranges, else fail. */
void rg_ports(struct rule_gen *g, const struct fp_portset *ps, int fail)
{
	int ok = rg_label(g, "port_ok");
	unsigned i, n = ps->n < FP_PORTS_MAX ? ps->n : FP_PORTS_MAX;

	for (i = 0; i < n; i++) {
		uint32_t lo = ps->r[i].lo, hi = ps->r[i].hi > 65535 ? 65535 : ps->r[i].hi;
		int next = i + 1 == n ? fail : rg_label(g, "port_next");

		if (lo > hi) {
			rg_ja(g, next);
		} else if (lo == hi) {
			rg_jmp(g, BPF_JEQ, lo, ok, next);
		} else if (lo == 0 && hi == 65535) {
			rg_ja(g, ok);
		} else if (lo == 0) {
			rg_jmp(g, BPF_JGT, hi, next, ok);
		} else if (hi == 65535) {
			rg_jmp(g, BPF_JGE, lo, ok, next);
		} else {
			rg_jmp(g, BPF_JGE, lo, FP_LBL_NEXT, next);
			rg_jmp(g, BPF_JGT, hi, next, ok);
		}
		if (i + 1 < n)
			fp_casm__place(g->a, next);
	}
	if (n == 0)
		rg_ja(g, fail);
	fp_casm__place(g->a, ok);
}

/* The CIDR's words at [x + off] (4 or 16 bytes). */
void rg_cidr(struct rule_gen *g, const struct fp_cidr *c, uint32_t off, const char *what)
{
	unsigned words = c->family == 4 ? 1 : 4, w, plen = c->plen;

	fp_casm__text(g->a, "     ; %s", what);
	for (w = 0; w < words && plen > 32 * w; w++) {
		unsigned bits = plen - 32 * w > 32 ? 32 : plen - 32 * w;
		uint32_t mask = bits == 32 ? 0xffffffffu : ~(0xffffffffu >> bits);
		const uint8_t *p = c->addr + 4 * w;
		uint32_t val = ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
				(uint32_t)p[2] << 8 | p[3]) & mask;

		rg_ld_ind(g, BPF_W, off + 4 * w);
		if (mask != 0xffffffffu)
			rg_op(g, BPF_ALU | BPF_AND | BPF_K, mask);
		rg_jmp(g, BPF_JEQ, val, FP_LBL_NEXT, rg_nm(g));
	}
}
