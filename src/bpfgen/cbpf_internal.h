/* SPDX-License-Identifier: BSD-2-Clause */
/* The insides of struct fp_casm, shared by cbpf.c and cbpf_print.c only. */
#ifndef FP_BPFGEN_CBPF_INTERNAL_H
#define FP_BPFGEN_CBPF_INTERNAL_H

#include "bpfgen/cbpf.h"

enum casm_kind { CASM_INSN, CASM_LABEL, CASM_TEXT };

struct casm_item {
	enum casm_kind kind;
	uint16_t code;
	uint32_t k;
	enum fp_kfmt kfmt;
	int jt, jf;   /* conditional jumps: label ids or FP_LBL_NEXT */
	int label;    /* CASM_LABEL: the label; ja: its target */
	char *text;   /* CASM_TEXT: the line */
	char *note;   /* CASM_INSN: a trailing comment */
};

struct fp_casm {
	struct casm_item *items;
	size_t n, cap;
	char **labels; /* names, by id */
	size_t nlabels;
	unsigned ntramp; /* numbering of generated labels */
	int err;
	const char *errmsg;
};

bool casm_is_cond(uint16_t code);

#endif /* FP_BPFGEN_CBPF_INTERNAL_H */
