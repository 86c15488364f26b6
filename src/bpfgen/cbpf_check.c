// SPDX-License-Identifier: BSD-2-Clause
/*
 * fp_cbpf__check(): the rules the kernel applies to a classic BPF program
 * before SO_ATTACH_FILTER or xt_bpf take it (bpf_check_classic() and
 * check_load_and_stores() in net/core/filter.c), written from their
 * documented behaviour. libpcap's bpf_validate() is laxer on some points
 * (it accepts what the kernel refuses, e.g. unknown ancillary offsets), so
 * tests use this one.
 */
#include "bpfgen/cbpf.h"

#include <errno.h>
#include <stdlib.h>

#include <linux/filter.h>

static bool code_allowed(uint16_t c)
{
	switch (c) {
	case BPF_ALU | BPF_ADD | BPF_K: case BPF_ALU | BPF_ADD | BPF_X:
	case BPF_ALU | BPF_SUB | BPF_K: case BPF_ALU | BPF_SUB | BPF_X:
	case BPF_ALU | BPF_MUL | BPF_K: case BPF_ALU | BPF_MUL | BPF_X:
	case BPF_ALU | BPF_DIV | BPF_K: case BPF_ALU | BPF_DIV | BPF_X:
	case BPF_ALU | BPF_MOD | BPF_K: case BPF_ALU | BPF_MOD | BPF_X:
	case BPF_ALU | BPF_AND | BPF_K: case BPF_ALU | BPF_AND | BPF_X:
	case BPF_ALU | BPF_OR | BPF_K:  case BPF_ALU | BPF_OR | BPF_X:
	case BPF_ALU | BPF_XOR | BPF_K: case BPF_ALU | BPF_XOR | BPF_X:
	case BPF_ALU | BPF_LSH | BPF_K: case BPF_ALU | BPF_LSH | BPF_X:
	case BPF_ALU | BPF_RSH | BPF_K: case BPF_ALU | BPF_RSH | BPF_X:
	case BPF_ALU | BPF_NEG:
	case BPF_LD | BPF_W | BPF_ABS: case BPF_LD | BPF_H | BPF_ABS: case BPF_LD | BPF_B | BPF_ABS:
	case BPF_LD | BPF_W | BPF_IND: case BPF_LD | BPF_H | BPF_IND: case BPF_LD | BPF_B | BPF_IND:
	case BPF_LD | BPF_W | BPF_LEN: case BPF_LD | BPF_IMM: case BPF_LD | BPF_MEM:
	case BPF_LDX | BPF_W | BPF_LEN: case BPF_LDX | BPF_B | BPF_MSH:
	case BPF_LDX | BPF_IMM: case BPF_LDX | BPF_MEM:
	case BPF_ST: case BPF_STX:
	case BPF_MISC | BPF_TAX: case BPF_MISC | BPF_TXA:
	case BPF_RET | BPF_K: case BPF_RET | BPF_A:
	case BPF_JMP | BPF_JA:
	case BPF_JMP | BPF_JEQ | BPF_K: case BPF_JMP | BPF_JEQ | BPF_X:
	case BPF_JMP | BPF_JGE | BPF_K: case BPF_JMP | BPF_JGE | BPF_X:
	case BPF_JMP | BPF_JGT | BPF_K: case BPF_JMP | BPF_JGT | BPF_X:
	case BPF_JMP | BPF_JSET | BPF_K: case BPF_JMP | BPF_JSET | BPF_X:
		return true;
	}
	return false;
}

/* Ancillary loads the kernel knows (SKF_AD_OFF + one of these). */
static bool anc_known(uint32_t k)
{
	static const uint32_t known[] = {
		SKF_AD_PROTOCOL, SKF_AD_PKTTYPE, SKF_AD_IFINDEX, SKF_AD_NLATTR,
		SKF_AD_NLATTR_NEST, SKF_AD_MARK, SKF_AD_QUEUE, SKF_AD_HATYPE,
		SKF_AD_RXHASH, SKF_AD_CPU, SKF_AD_ALU_XOR_X, SKF_AD_VLAN_TAG,
		SKF_AD_VLAN_TAG_PRESENT, SKF_AD_PAY_OFFSET, SKF_AD_RANDOM, SKF_AD_VLAN_TPID,
	};
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (k == (uint32_t)SKF_AD_OFF + known[i])
			return true;
	return false;
}

static bool is_cond(uint16_t c)
{
	return BPF_CLASS(c) == BPF_JMP && BPF_OP(c) != BPF_JA;
}

/* Every scratch slot read is written first on every path to it. */
static int check_mem(const struct fp_cbpf_insn *f, size_t len, size_t *bad)
{
	uint16_t *masks = malloc(len * sizeof(*masks)), valid = 0;
	size_t pc;
	int ret = 0;

	if (!masks)
		return -ENOMEM;
	for (pc = 0; pc < len; pc++)
		masks[pc] = 0xffff;
	for (pc = 0; pc < len; pc++) {
		valid &= masks[pc];
		switch (f[pc].code) {
		case BPF_ST:
		case BPF_STX:
			valid |= (uint16_t)(1u << f[pc].k);
			break;
		case BPF_LD | BPF_MEM:
		case BPF_LDX | BPF_MEM:
			if (!(valid & (1u << f[pc].k))) {
				*bad = pc;
				ret = -EINVAL;
				goto out;
			}
			break;
		case BPF_JMP | BPF_JA:
			masks[pc + 1 + f[pc].k] &= valid;
			valid = 0xffff;
			break;
		default:
			if (is_cond(f[pc].code)) {
				masks[pc + 1 + f[pc].jt] &= valid;
				masks[pc + 1 + f[pc].jf] &= valid;
				valid = 0xffff;
			}
		}
	}
out:
	free(masks);
	return ret;
}

int fp_cbpf__check(const struct fp_cbpf *p, size_t *bad_pc)
{
	const struct fp_cbpf_insn *f = p->insns;
	size_t pc, len = p->len, dummy;
	size_t *bad = bad_pc ? bad_pc : &dummy;

	*bad = 0;
	if (len == 0 || len > FP_CBPF_MAXINSNS || !f)
		return -EINVAL;
	for (pc = 0; pc < len; pc++) {
		const struct fp_cbpf_insn *t = &f[pc];

		*bad = pc;
		if (!code_allowed(t->code))
			return -EINVAL;
		switch (t->code) {
		case BPF_ALU | BPF_DIV | BPF_K:
		case BPF_ALU | BPF_MOD | BPF_K:
			if (t->k == 0)
				return -EINVAL;
			break;
		case BPF_ALU | BPF_LSH | BPF_K:
		case BPF_ALU | BPF_RSH | BPF_K:
			if (t->k >= 32)
				return -EINVAL;
			break;
		case BPF_LD | BPF_MEM:
		case BPF_LDX | BPF_MEM:
		case BPF_ST:
		case BPF_STX:
			if (t->k >= 16)
				return -EINVAL;
			break;
		case BPF_JMP | BPF_JA:
			if (t->k >= len - pc - 1)
				return -EINVAL;
			break;
		case BPF_LD | BPF_W | BPF_ABS:
		case BPF_LD | BPF_H | BPF_ABS:
		case BPF_LD | BPF_B | BPF_ABS:
			if (t->k >= (uint32_t)SKF_AD_OFF && !anc_known(t->k))
				return -EINVAL;
			break;
		default:
			if (is_cond(t->code) && (pc + t->jt + 1 >= len || pc + t->jf + 1 >= len))
				return -EINVAL;
		}
	}
	*bad = len - 1;
	if (f[len - 1].code != (BPF_RET | BPF_K) && f[len - 1].code != (BPF_RET | BPF_A))
		return -EINVAL;
	return check_mem(f, len, bad);
}
