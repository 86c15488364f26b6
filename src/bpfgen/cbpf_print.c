// SPDX-License-Identifier: BSD-2-Clause
/*
 * Printing cBPF: bpf_asm assembly from the instruction list, and the
 * `iptables -m bpf --bytecode` line from a resolved program (cbpf.h).
 */
#include "bpfgen/cbpf_internal.h"

#include <errno.h>
#include <string.h>

#include <linux/filter.h>

static void fmt_k(char *buf, size_t n, uint32_t k, enum fp_kfmt f)
{
	switch (f) {
	case FP_K_HEX:  snprintf(buf, n, "0x%x", k); break;
	case FP_K_HEX2: snprintf(buf, n, "0x%02x", k); break;
	case FP_K_HEX4: snprintf(buf, n, "0x%04x", k); break;
	case FP_K_HEX8: snprintf(buf, n, "0x%08x", k); break;
	default:        snprintf(buf, n, "%u", k); break;
	}
}

/* bpf_asm's names of ancillary loads (SKF_AD_OFF + n). */
static const char *anc_name(uint32_t k)
{
	static const struct { uint32_t off; const char *name; } t[] = {
		{ SKF_AD_PROTOCOL, "proto" }, { SKF_AD_PKTTYPE, "type" },
		{ SKF_AD_IFINDEX, "ifidx" },  { SKF_AD_NLATTR, "nla" },
		{ SKF_AD_NLATTR_NEST, "nlan" }, { SKF_AD_MARK, "mark" },
		{ SKF_AD_QUEUE, "queue" },    { SKF_AD_HATYPE, "hatype" },
		{ SKF_AD_RXHASH, "rxhash" },  { SKF_AD_CPU, "cpu" },
		{ SKF_AD_VLAN_TAG, "vlan_tci" }, { SKF_AD_VLAN_TAG_PRESENT, "vlan_pr" },
		{ SKF_AD_PAY_OFFSET, "poff" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (k == (uint32_t)SKF_AD_OFF + t[i].off)
			return t[i].name;
	return NULL;
}

static const char *alu_name(uint16_t op)
{
	switch (op) {
	case BPF_ADD: return "add";
	case BPF_SUB: return "sub";
	case BPF_MUL: return "mul";
	case BPF_DIV: return "div";
	case BPF_MOD: return "mod";
	case BPF_AND: return "and";
	case BPF_OR:  return "or";
	case BPF_XOR: return "xor";
	case BPF_LSH: return "lsh";
	case BPF_RSH: return "rsh";
	case BPF_NEG: return "neg";
	default:      return NULL;
	}
}

static const char *size_suffix(uint16_t code)
{
	switch (BPF_SIZE(code)) {
	case BPF_B: return "b";
	case BPF_H: return "h";
	default:    return "";
	}
}

/* A conditional jump: the shortest bpf_asm form that says it. */
static void fmt_jump(const struct fp_casm *a, const struct casm_item *it, const char *kstr,
		     char *buf, size_t n)
{
	static const char *const pos[] = { [BPF_JEQ >> 4] = "jeq", [BPF_JGT >> 4] = "jgt",
					   [BPF_JGE >> 4] = "jge", [BPF_JSET >> 4] = "jset" };
	static const char *const neg[] = { [BPF_JEQ >> 4] = "jneq", [BPF_JGT >> 4] = "jle",
					   [BPF_JGE >> 4] = "jlt", [BPF_JSET >> 4] = NULL };
	unsigned op = BPF_OP(it->code) >> 4;
	const char *lt = it->jt >= 0 ? a->labels[it->jt] : NULL;
	const char *lf = it->jf >= 0 ? a->labels[it->jf] : NULL;

	if (op > (BPF_JSET >> 4) || !pos[op]) {
		snprintf(buf, n, "; unknown jump 0x%x", it->code);
	} else if (lt && lf) {
		snprintf(buf, n, "%s %s, %s, %s", pos[op], kstr, lt, lf);
	} else if (lt) {
		snprintf(buf, n, "%s %s, %s", pos[op], kstr, lt);
	} else if (lf && neg[op]) {
		snprintf(buf, n, "%s %s, %s", neg[op], kstr, lf);
	} else {
		/* fp_casm__resolve() names these fall-throughs; unresolved list. */
		snprintf(buf, n, "; %s %s with an unnamed target", pos[op], kstr);
	}
}

static void fmt_insn(const struct fp_casm *a, const struct casm_item *it, char *buf, size_t n)
{
	uint16_t c = it->code;
	char k[32], src[40];
	const char *anc;

	fmt_k(k, sizeof(k), it->k, it->kfmt);
	snprintf(src, sizeof(src), BPF_SRC(c) == BPF_X ? "x" : "#%s", k);
	switch (BPF_CLASS(c)) {
	case BPF_LD:
		switch (BPF_MODE(c)) {
		case BPF_IMM: snprintf(buf, n, "ld #%s", k); return;
		case BPF_LEN: snprintf(buf, n, "ld #len"); return;
		case BPF_MEM: snprintf(buf, n, "ld M[%u]", it->k); return;
		case BPF_IND: snprintf(buf, n, "ld%s [x + %u]", size_suffix(c), it->k); return;
		case BPF_ABS:
			anc = anc_name(it->k);
			if (anc)
				snprintf(buf, n, "ld%s #%s", size_suffix(c), anc);
			else if (it->k >= 0x80000000u)
				snprintf(buf, n, "ld%s [0x%x]", size_suffix(c), it->k);
			else
				snprintf(buf, n, "ld%s [%u]", size_suffix(c), it->k);
			return;
		}
		break;
	case BPF_LDX:
		switch (BPF_MODE(c)) {
		case BPF_IMM: snprintf(buf, n, "ldx #%s", k); return;
		case BPF_LEN: snprintf(buf, n, "ldx #len"); return;
		case BPF_MEM: snprintf(buf, n, "ldx M[%u]", it->k); return;
		case BPF_MSH: snprintf(buf, n, "ldx 4*([%u]&0xf)", it->k); return;
		}
		break;
	case BPF_ST:  snprintf(buf, n, "st M[%u]", it->k); return;
	case BPF_STX: snprintf(buf, n, "stx M[%u]", it->k); return;
	case BPF_ALU:
		if (BPF_OP(c) == BPF_NEG) {
			snprintf(buf, n, "neg");
			return;
		}
		if (alu_name(BPF_OP(c))) {
			snprintf(buf, n, "%s %s", alu_name(BPF_OP(c)), src);
			return;
		}
		break;
	case BPF_JMP:
		if (BPF_OP(c) == BPF_JA) {
			snprintf(buf, n, "ja %s", it->label >= 0 ? a->labels[it->label] : "?");
			return;
		}
		fmt_jump(a, it, src, buf, n);
		return;
	case BPF_RET:
		if (BPF_RVAL(c) == BPF_A)
			snprintf(buf, n, "ret a");
		else if (BPF_RVAL(c) == BPF_X)
			snprintf(buf, n, "ret x");
		else
			snprintf(buf, n, "ret #%s", k);
		return;
	case BPF_MISC:
		snprintf(buf, n, BPF_MISCOP(c) == BPF_TAX ? "tax" : "txa");
		return;
	}
	snprintf(buf, n, "; unknown opcode 0x%x k %u", c, it->k);
}

int fp_casm__print(const struct fp_casm *a, FILE *f)
{
	char buf[256];
	size_t i;

	for (i = 0; i < a->n; i++) {
		const struct casm_item *it = &a->items[i];

		switch (it->kind) {
		case CASM_TEXT:
			fprintf(f, "%s\n", it->text);
			break;
		case CASM_LABEL:
			fprintf(f, "%s:\n", a->labels[it->label]);
			break;
		case CASM_INSN:
			fmt_insn(a, it, buf, sizeof(buf));
			if (it->note)
				fprintf(f, "    %-19s; %s\n", buf, it->note);
			else
				fprintf(f, "    %s\n", buf);
			break;
		}
	}
	return ferror(f) ? -EIO : 0;
}

int fp_cbpf__print(const struct fp_cbpf *p, FILE *f)
{
	size_t i;

	fprintf(f, "%zu,", p->len);
	for (i = 0; i < p->len; i++)
		fprintf(f, "%u %u %u %u,", p->insns[i].code, p->insns[i].jt, p->insns[i].jf,
			p->insns[i].k);
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}
