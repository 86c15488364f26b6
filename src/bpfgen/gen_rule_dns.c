// SPDX-License-Identifier: BSD-2-Clause
/*
 * `bpfgen rule`: the DNS terms (qname, qtype) in classic BPF, after the
 * "DNS" paragraph of src/rules/match_ref.h.
 *
 * Classic BPF has no loops, but a name has at most 127 labels (each at
 * least two bytes, 255 with the root): the label walk is unrolled 128
 * times, exactly, with no cut-off.
 *
 *   exact name P     no walk: the bytes after the header equal P (letters
 *                    compared with `or #0x20` where P has a letter, so
 *                    A-Z and a-z are equal and nothing else is); P being a
 *                    valid name, the walk would follow P's labels.
 *   *.S              walk 1: validate the name, find its root byte END;
 *                    the suffix must start at CAND = END + 1 - |S|, at
 *                    least one label after the start; the bytes at CAND
 *                    equal S; walk 2: CAND is one of the name's label
 *                    boundaries (bytes equal to S at a non-boundary, as in
 *                    \x03x\x01a\x00 for S = a., do not count).
 *   qtype            after walk 1 (or at P's end): the 16 bits after the root.
 */
#include "bpfgen/gen_rule.h"

#define DNS_HDR 12
#define UDP_HDR 8
#define NAME_OFF (UDP_HDR + DNS_HDR) /* the name's offset from l4 */

int rg_check_qname(const struct fp_qname *q)
{
	unsigned pos = 0;
	int upper = 0;

	if (q->wire_len < 1)
		return -1;
	for (;;) {
		unsigned lab, i;

		if (pos >= q->wire_len)
			return -1;
		lab = q->wire[pos];
		if (lab > 63 || pos + 1 + lab > q->wire_len)
			return -1;
		for (i = 1; i <= lab; i++)
			upper |= q->wire[pos + i] >= 'A' && q->wire[pos + i] <= 'Z';
		pos += 1 + lab;
		if (lab == 0)
			break;
	}
	if (pos != q->wire_len)
		return -1;
	return upper;
}

/* Compares the n bytes of wire (a name) with [x + base], letters folded. */
static void cmp_name(struct rule_gen *g, uint32_t base, const uint8_t *wire, unsigned n)
{
	static const uint16_t size[5] = { 0, BPF_B, BPF_H, 0, BPF_W };
	uint8_t fold[FP_DNS_NAME_MAX] = { 0 };
	unsigned pos = 0, off, i;

	while (pos < n && wire[pos]) { /* letters of labels only, never length bytes */
		for (i = 1; i <= wire[pos] && pos + i < n; i++)
			if (wire[pos + i] >= 'a' && wire[pos + i] <= 'z')
				fold[pos + i] = 0x20;
		pos += 1u + wire[pos];
	}
	for (off = 0; off < n;) {
		unsigned w = n - off >= 4 ? 4 : n - off >= 2 ? 2 : 1;
		uint32_t val = 0, mask = 0;

		for (i = 0; i < w; i++) {
			val = val << 8 | wire[off + i];
			mask = mask << 8 | fold[off + i];
		}
		rg_ld_ind(g, size[w], base + off);
		if (mask)
			rg_op(g, BPF_ALU | BPF_OR | BPF_K, mask);
		rg_jmp(g, BPF_JEQ, val, FP_LBL_NEXT, rg_nm(g));
		off += w;
	}
}

static void qtype(struct rule_gen *g, uint32_t off)
{
	if (!(g->r->terms & FP_T_QTYPE))
		return;
	fp_casm__text(g->a, "     ; qtype %u", g->r->qtype);
	rg_ld_ind(g, BPF_H, off);
	rg_jmp(g, BPF_JEQ, g->r->qtype, FP_LBL_NEXT, rg_nm(g));
}

/* Walk 1: X = l4 on entry; on exit (label `root`) X = the root byte. */
static void walk_name(struct rule_gen *g, int root)
{
	int next = rg_label(g, "label"), keep = rg_label(g, "keep");
	unsigned i, to_root;

	rg_flush(g, true);
	fp_casm__text(g->a, "     ; the name: labels 1..63 within min(ip_end, name + 255), "
		      "unrolled %d times", DNS_LABELS_MAX);
	rg_op(g, BPF_MISC | BPF_TXA, 0);
	rg_op(g, BPF_ALU | BPF_ADD | BPF_K, NAME_OFF + FP_DNS_NAME_MAX);
	rg_op(g, BPF_ST, S_LIM);
	rg_op(g, BPF_LDX | BPF_MEM, S_IPEND);
	fp_casm__jmp(g->a, BPF_JMP | BPF_JGT | BPF_X, 0, FP_K_DEC, FP_LBL_NEXT, keep);
	rg_op(g, BPF_MISC | BPF_TXA, 0);
	rg_op(g, BPF_ST, S_LIM);
	fp_casm__place(g->a, keep);
	rg_op(g, BPF_LD | BPF_MEM, S_L4);
	rg_op(g, BPF_ALU | BPF_ADD | BPF_K, NAME_OFF);
	rg_op(g, BPF_MISC | BPF_TAX, 0);
	rg_op(g, BPF_LD | BPF_MEM, S_LIM);
	fp_casm__jmp(g->a, BPF_JMP | BPF_JGT | BPF_X, 0, FP_K_DEC, next, rg_nm(g));
	to_root = rg_relay_push(g, root);
	for (i = 0; i < DNS_LABELS_MAX; i++) {
		int after = i + 1 < DNS_LABELS_MAX ? rg_label(g, "label") : -1;

		if (i % 10 == 0)
			rg_flush(g, false); /* the jump before goes to labels only */
		fp_casm__place(g->a, next);
		rg_ld_ind(g, BPF_B, 0);
		rg_jmp(g, BPF_JGT, 63, rg_nm(g), FP_LBL_NEXT);
		rg_jmp(g, BPF_JEQ, 0, rg_near(g, to_root), FP_LBL_NEXT);
		rg_op(g, BPF_ALU | BPF_ADD | BPF_X, 0);
		rg_op(g, BPF_ALU | BPF_ADD | BPF_K, 1);
		rg_op(g, BPF_MISC | BPF_TAX, 0);
		rg_op(g, BPF_LD | BPF_MEM, S_LIM);
		fp_casm__jmp(g->a, BPF_JMP | BPF_JGT | BPF_X, 0, FP_K_DEC,
			     after < 0 ? rg_nm(g) : after, rg_nm(g));
		next = after;
	}
	rg_flush(g, false);
	rg_relay_pop(g);
}

/* *.S after walk 1: X = the root byte, M[S_END] too. */
static void wildcard(struct rule_gen *g, const struct fp_qname *q)
{
	unsigned w = q->wire_len, i, n;

	if (w == 1) {
		fp_casm__text(g->a, "     ; qname *.: any name but the root");
		rg_op(g, BPF_LD | BPF_MEM, S_L4);
		rg_op(g, BPF_ALU | BPF_ADD | BPF_K, NAME_OFF);
		fp_casm__jmp(g->a, BPF_JMP | BPF_JGE | BPF_X, 0, FP_K_DEC, rg_nm(g), rg_m(g));
		return;
	}
	fp_casm__text(g->a, "     ; qname *.S: S starts at END + 1 - %u, after one label at least", w);
	rg_op(g, BPF_LD | BPF_MEM, S_L4);
	rg_op(g, BPF_ALU | BPF_ADD | BPF_K, NAME_OFF + w);
	rg_op(g, BPF_MISC | BPF_TAX, 0);
	rg_op(g, BPF_LD | BPF_MEM, S_END);
	fp_casm__jmp(g->a, BPF_JMP | BPF_JGT | BPF_X, 0, FP_K_DEC, FP_LBL_NEXT, rg_nm(g));
	rg_op(g, BPF_ALU | BPF_ADD | BPF_K, 1);
	rg_op(g, BPF_ALU | BPF_SUB | BPF_K, w);
	rg_op(g, BPF_ST, S_CAND);
	rg_op(g, BPF_MISC | BPF_TAX, 0);
	cmp_name(g, 0, q->wire, w);

	fp_casm__text(g->a, "     ; and S starts at a label boundary: walk 2 from label 2");
	rg_op(g, BPF_LD | BPF_MEM, S_L4);
	rg_op(g, BPF_ALU | BPF_ADD | BPF_K, NAME_OFF);
	rg_op(g, BPF_MISC | BPF_TAX, 0);
	n = (FP_DNS_NAME_MAX - w) / 2 + 1;
	for (i = 0; i <= n; i++) {
		if (i % 10 == 9)
			rg_flush(g, true);
		if (i) {
			rg_op(g, BPF_LD | BPF_MEM, S_CAND);
			fp_casm__jmp(g->a, BPF_JMP | BPF_JEQ | BPF_X, 0, FP_K_DEC, rg_m(g),
				     FP_LBL_NEXT);
			fp_casm__jmp(g->a, BPF_JMP | BPF_JGT | BPF_X, 0, FP_K_DEC, FP_LBL_NEXT,
				     rg_nm(g));
		}
		rg_ld_ind(g, BPF_B, 0);
		rg_op(g, BPF_ALU | BPF_ADD | BPF_X, 0);
		rg_op(g, BPF_ALU | BPF_ADD | BPF_K, 1);
		rg_op(g, BPF_MISC | BPF_TAX, 0);
	}
	rg_ja(g, rg_nm(g));
}

void rg_dns(struct rule_gen *g)
{
	const struct fp_rule *r = g->r;
	const struct fp_qname *q = &r->qname;
	bool has_qname = r->terms & FP_T_QNAME;
	int root;

	rg_flush(g, true);
	fp_casm__text(g->a, "     ; DNS: dport 53, 12 header bytes, QR = 0, QDCOUNT >= 1");
	rg_ld_ind(g, BPF_H, 2);
	rg_jmp(g, BPF_JEQ, 53, FP_LBL_NEXT, rg_nm(g));
	rg_op(g, BPF_LD | BPF_MEM, S_L4AV);
	rg_jmp(g, BPF_JGE, NAME_OFF, FP_LBL_NEXT, rg_nm(g));
	rg_ld_ind(g, BPF_B, UDP_HDR + 2);
	rg_jmp(g, BPF_JSET, 0x80, rg_nm(g), FP_LBL_NEXT);
	rg_ld_ind(g, BPF_H, UDP_HDR + 4);
	rg_jmp(g, BPF_JEQ, 0, rg_nm(g), FP_LBL_NEXT);
	if (has_qname && rg_check_qname(q) != 0) {
		fp_casm__text(g->a, "     ; never: the qname has an upper-case letter");
		rg_ja(g, rg_nm(g));
		return;
	}
	if (has_qname && !q->wildcard) {
		fp_casm__text(g->a, "     ; qname: exactly these %u bytes, then qtype and qclass",
			      q->wire_len);
		rg_op(g, BPF_LD | BPF_MEM, S_L4AV);
		rg_jmp(g, BPF_JGE, NAME_OFF + q->wire_len + 4u, FP_LBL_NEXT, rg_nm(g));
		cmp_name(g, NAME_OFF, q->wire, q->wire_len);
		qtype(g, NAME_OFF + q->wire_len);
		rg_ja(g, rg_m(g));
		return;
	}
	root = rg_label(g, "root");
	walk_name(g, root);
	fp_casm__place(g->a, root);
	fp_casm__text(g->a, "     ; the root byte; then qtype and qclass within ip_end");
	rg_op(g, BPF_MISC | BPF_TXA, 0);
	rg_op(g, BPF_ST, S_END);
	rg_op(g, BPF_LD | BPF_MEM, S_IPEND);
	rg_op(g, BPF_ALU | BPF_SUB | BPF_X, 0);
	rg_jmp(g, BPF_JGE, 5, FP_LBL_NEXT, rg_nm(g));
	qtype(g, 1);
	if (has_qname)
		wildcard(g, q);
	else
		rg_ja(g, rg_m(g));
}
