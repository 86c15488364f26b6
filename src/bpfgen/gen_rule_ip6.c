// SPDX-License-Identifier: BSD-2-Clause
/*
 * `bpfgen rule`: the IPv6 block, after the "L3 ... IPv6" paragraph of
 * src/rules/match_ref.h. The walk over extension headers is unrolled 8
 * times (the semantics' own bound: a 9th extension header makes the upper
 * layer unknown), so no cut-off of ours is involved. Each step:
 *
 *   A = next header, X = its offset
 *   0, 43, 60   8*(hdrlen+1) bytes whole within ip_end, else unknown
 *   44          8 bytes within ip_end, else unknown; offset or M: frag;
 *               offset != 0: proto = its next header, no L4
 *   other       the upper-layer protocol, L4 at X
 *
 * undetermined-transport holds exactly on the exits marked unknown.
 */
#include "bpfgen/gen_rule.h"

#define IPV6_HLEN 40

static void ext_step(struct rule_gen *g, int next, int upper, int unknown, int nol4)
{
	int frag = rg_label(g, "ext_frag"), hdr = rg_label(g, "ext_hdr");
	bool want_frag = g->r->terms & FP_T_FRAG;

	rg_jmp(g, BPF_JEQ, 0, hdr, FP_LBL_NEXT);
	rg_jmp(g, BPF_JEQ, 43, hdr, FP_LBL_NEXT);
	rg_jmp(g, BPF_JEQ, 60, hdr, FP_LBL_NEXT);
	rg_jmp(g, BPF_JEQ, 44, frag, upper);

	fp_casm__place(g->a, frag);
	rg_op(g, BPF_LD | BPF_MEM, S_IPEND);
	rg_op(g, BPF_ALU | BPF_SUB | BPF_X, 0);
	rg_jmp(g, BPF_JGE, 8, FP_LBL_NEXT, unknown);
	if (want_frag) {
		int nf = rg_label(g, "nofrag");

		rg_ld_ind(g, BPF_H, 2);
		rg_jmp(g, BPF_JSET, 0xfff9, FP_LBL_NEXT, nf);
		rg_op(g, BPF_LD | BPF_IMM, 1);
		rg_op(g, BPF_ST, S_FRAG);
		fp_casm__place(g->a, nf);
	}
	rg_ld_ind(g, BPF_B, 0);
	rg_op(g, BPF_ST, S_TMP);
	rg_ld_ind(g, BPF_H, 2);
	rg_jmp(g, BPF_JSET, 0xfff8, nol4, FP_LBL_NEXT);
	rg_op(g, BPF_MISC | BPF_TXA, 0);
	rg_op(g, BPF_ALU | BPF_ADD | BPF_K, 8);
	rg_op(g, BPF_MISC | BPF_TAX, 0);
	rg_op(g, BPF_LD | BPF_MEM, S_TMP);
	rg_ja(g, next);

	fp_casm__place(g->a, hdr);
	rg_op(g, BPF_LD | BPF_MEM, S_IPEND);
	rg_op(g, BPF_ALU | BPF_SUB | BPF_X, 0);
	rg_jmp(g, BPF_JGE, 2, FP_LBL_NEXT, unknown);
	rg_ld_ind(g, BPF_B, 0);
	rg_op(g, BPF_ST, S_TMP);
	rg_ld_ind(g, BPF_B, 1);
	rg_op(g, BPF_ALU | BPF_ADD | BPF_K, 1);
	rg_op(g, BPF_ALU | BPF_LSH | BPF_K, 3);
	rg_op(g, BPF_ALU | BPF_ADD | BPF_X, 0);
	rg_op(g, BPF_LDX | BPF_MEM, S_IPEND);
	fp_casm__jmp(g->a, BPF_JMP | BPF_JGT | BPF_X, 0, FP_K_DEC, unknown, FP_LBL_NEXT);
	rg_op(g, BPF_MISC | BPF_TAX, 0);
	rg_op(g, BPF_LD | BPF_MEM, S_TMP);
}

void rg_ipv6(struct rule_gen *g)
{
	const struct fp_rule *r = g->r;
	uint32_t t = r->terms;
	bool want_frag = t & FP_T_FRAG, want_undet = t & FP_T_UNDET;
	int fragchk, unknown, nol4, upper, next, i;

	fp_casm__text(g->a, "     ; IPv6: 40 bytes, version 6");
	rg_op(g, BPF_MISC | BPF_TXA, 0);
	rg_op(g, BPF_ST, S_L3);
	rg_op(g, BPF_LD | BPF_W | BPF_LEN, 0);
	rg_op(g, BPF_ALU | BPF_SUB | BPF_X, 0);
	rg_jmp(g, BPF_JGE, IPV6_HLEN, FP_LBL_NEXT, rg_nm(g));
	rg_ld_ind(g, BPF_B, 0);
	rg_op(g, BPF_ALU | BPF_RSH | BPF_K, 4);
	rg_jmp(g, BPF_JEQ, 6, FP_LBL_NEXT, rg_nm(g));
	if (t & FP_T_SRC)
		rg_cidr(g, &r->src, 8, "src");
	if (t & FP_T_DST)
		rg_cidr(g, &r->dst, 24, "dst");
	if (t & FP_T_LEN) {
		fp_casm__text(g->a, "     ; len: payload length + 40");
		rg_ld_ind(g, BPF_H, 4);
		rg_op(g, BPF_ALU | BPF_ADD | BPF_K, IPV6_HLEN);
		rg_range(g, r->len.lo, r->len.hi, 65535 + IPV6_HLEN, rg_nm(g));
	}
	if (t & FP_T_TTL) {
		fp_casm__text(g->a, "     ; ttl: hop limit");
		rg_ld_ind(g, BPF_B, 7);
		rg_range(g, r->ttl.lo, r->ttl.hi, 255, rg_nm(g));
	}
	if (!want_frag && !g->need_proto && !want_undet) {
		rg_ja(g, rg_m(g));
		return;
	}
	rg_flush(g, true); /* the walk is long: keep the exits above near */
	fragchk = want_frag ? rg_label(g, "v6_frag") : -1;
	if (want_undet) {
		/* the parser refuses protocol terms with it (need_proto is false):
		 * the rule holds exactly where the walk gives up */
		unknown = want_frag ? fragchk : rg_m(g);
		nol4 = upper = rg_nm(g);
	} else {
		unknown = g->need_proto ? rg_nm(g) : fragchk;
		nol4 = g->need_proto ? rg_label(g, "v6_nol4") : fragchk;
		upper = g->need_proto ? rg_label(g, "v6_upper") : fragchk;
	}

	fp_casm__text(g->a, "     ; ip_end = min(len, l3 + 40 + payload length)");
	rg_ld_ind(g, BPF_H, 4);
	rg_op(g, BPF_ALU | BPF_ADD | BPF_K, IPV6_HLEN);
	rg_op(g, BPF_ALU | BPF_ADD | BPF_X, 0);
	rg_op(g, BPF_ST, S_IPEND);
	rg_min_len(g, S_IPEND);
	rg_op(g, BPF_LDX | BPF_MEM, S_L3);
	if (want_frag) {
		rg_op(g, BPF_LD | BPF_IMM, 0);
		rg_op(g, BPF_ST, S_FRAG);
	}
	fp_casm__text(g->a, "     ; extension headers, at most %d", IPV6_EXT_UNROLL);
	rg_ld_ind(g, BPF_B, 6);
	rg_op(g, BPF_ST, S_TMP);
	rg_op(g, BPF_MISC | BPF_TXA, 0);
	rg_op(g, BPF_ALU | BPF_ADD | BPF_K, IPV6_HLEN);
	rg_op(g, BPF_MISC | BPF_TAX, 0);
	rg_op(g, BPF_LD | BPF_MEM, S_TMP);
	next = rg_label(g, "ext");
	for (i = 0; i < IPV6_EXT_UNROLL; i++) {
		int after = rg_label(g, "ext");

		fp_casm__place(g->a, next);
		ext_step(g, after, upper, unknown, nol4);
		next = after;
	}
	fp_casm__place(g->a, next);
	fp_casm__text(g->a, "     ; a 9th extension header: upper layer unknown");
	rg_jmp(g, BPF_JEQ, 0, unknown, FP_LBL_NEXT);
	rg_jmp(g, BPF_JEQ, 43, unknown, FP_LBL_NEXT);
	rg_jmp(g, BPF_JEQ, 60, unknown, FP_LBL_NEXT);
	rg_jmp(g, BPF_JEQ, 44, unknown, upper);

	if (g->need_proto) {
		fp_casm__place(g->a, nol4);
		fp_casm__text(g->a, "     ; a later fragment: proto known, no L4 header");
		if (g->need_l4) {
			rg_ja(g, rg_nm(g));
		} else {
			rg_op(g, BPF_LD | BPF_MEM, S_TMP);
			if (t & FP_T_PROTO)
				rg_jmp(g, BPF_JEQ, r->proto, FP_LBL_NEXT, rg_nm(g));
			rg_ja(g, fragchk < 0 ? rg_m(g) : fragchk);
		}
		fp_casm__place(g->a, upper);
		fp_casm__text(g->a, "     ; the upper layer: A = proto, X = l4");
		if (t & FP_T_PROTO)
			rg_jmp(g, BPF_JEQ, r->proto, FP_LBL_NEXT, rg_nm(g));
		if (want_frag) {
			rg_op(g, BPF_ST, S_TMP);
			rg_op(g, BPF_LD | BPF_MEM, S_FRAG);
			rg_jmp(g, BPF_JEQ, 0, rg_nm(g), FP_LBL_NEXT);
			rg_op(g, BPF_LD | BPF_MEM, S_TMP);
		}
		if (g->need_l4) {
			rg_op(g, BPF_ST, S_PROTO);
			rg_op(g, BPF_MISC | BPF_TXA, 0);
			rg_op(g, BPF_ST, S_L4);
			rg_ja(g, g->l4);
		} else {
			rg_ja(g, rg_m(g));
		}
	}
	if (want_frag) {
		fp_casm__place(g->a, fragchk);
		rg_op(g, BPF_LD | BPF_MEM, S_FRAG);
		rg_jmp(g, BPF_JEQ, 0, rg_nm(g), rg_m(g));
	}
}
