/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Classic BPF as an instruction list with symbolic labels (struct fp_casm),
 * and the resolved program it turns into (struct fp_cbpf).
 *
 * A generator appends items in order: instructions, label definitions,
 * comment lines. Jumps name labels (or FP_LBL_NEXT: fall through), so code
 * is written top to bottom without counting. fp_casm__resolve() then places
 * the labels, inserts `ja` trampolines where a conditional jump would reach
 * further than its 8-bit offset allows, and fills a struct fp_cbpf. The same
 * list prints as bpf_asm assembly (the syntax of the kernel's
 * tools/bpf/bpf_asm, labels and comments kept) or as the one-line bytecode
 * of `iptables -m bpf --bytecode`.
 *
 * Builder calls never fail individually: the first error (ENOMEM, a bad
 * label) sticks in the list and fp_casm__resolve() returns it, so generators
 * stay free of error plumbing.
 */
#ifndef FP_BPFGEN_CBPF_H
#define FP_BPFGEN_CBPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One instruction, laid out as struct sock_filter and libpcap's struct bpf_insn. */
struct fp_cbpf_insn {
	uint16_t code;
	uint8_t jt;
	uint8_t jf;
	uint32_t k;
};
_Static_assert(sizeof(struct fp_cbpf_insn) == 8, "struct sock_filter layout");

/* A resolved program (owned; fp_cbpf__free releases it). */
struct fp_cbpf {
	struct fp_cbpf_insn *insns;
	size_t len;
};

#define FP_CBPF_MAXINSNS 4096 /* BPF_MAXINSNS: the kernel's limit */
#define FP_XT_BPF_MAXINSNS 64 /* XT_BPF_MAX_NUM_INSTR: iptables -m bpf */
#define FP_LBL_NEXT (-1)      /* jump target: the next instruction */

/* How the assembly printer writes an instruction's k. */
enum fp_kfmt {
	FP_K_DEC,  /* 20 */
	FP_K_HEX,  /* 0x1 */
	FP_K_HEX2, /* 0x07 */
	FP_K_HEX4, /* 0x0765 */
	FP_K_HEX8, /* 0x07657861 */
};

struct fp_casm;

struct fp_casm *fp_casm__new(void);
void fp_casm__free(struct fp_casm *a);

/* A new, not yet placed label; returns its id (>= 0). Names must be unique
 * and bpf_asm-valid ([A-Za-z_][A-Za-z0-9_]+). */
int fp_casm__label(struct fp_casm *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Places a label before the next instruction appended. */
void fp_casm__place(struct fp_casm *a, int label);
/* A line printed as is in the assembly ("" prints an empty line). */
void fp_casm__text(struct fp_casm *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A comment printed after the last instruction appended, on its line. */
void fp_casm__note(struct fp_casm *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Any non-jump instruction. */
void fp_casm__op(struct fp_casm *a, uint16_t code, uint32_t k, enum fp_kfmt kf);
/* A conditional jump (BPF_JMP | JEQ/JGT/JGE/JSET | K/X) to labels or FP_LBL_NEXT. */
void fp_casm__jmp(struct fp_casm *a, uint16_t code, uint32_t k, enum fp_kfmt kf,
		  int jt, int jf);
/* An unconditional jump. */
void fp_casm__ja(struct fp_casm *a, int label);

/* The sticky error (0 or negative errno) and its message. */
int fp_casm__error(const struct fp_casm *a, const char **msg);

/*
 * Places labels, inserts `ja` trampolines for conditional jumps further
 * than 255 instructions, and writes the program to out (out->insns is
 * malloc'd). Returns 0, the sticky error, -E2BIG over FP_CBPF_MAXINSNS,
 * -EINVAL for a label never placed, placed last or behind its jump.
 * Idempotent; the list afterwards prints what out holds.
 */
int fp_casm__resolve(struct fp_casm *a, struct fp_cbpf *out);

/* Number of instructions in the list (before resolve: without trampolines). */
size_t fp_casm__count(const struct fp_casm *a);

/* Assembly, one instruction per line, labels and comments kept. Call after
 * fp_casm__resolve(). Returns 0 or -errno (write error). */
int fp_casm__print(const struct fp_casm *a, FILE *f);

/* The bytecode line "N,code jt jf k,code jt jf k,...," and a newline: the
 * format of bpf_asm and of `iptables -m bpf --bytecode`. */
int fp_cbpf__print(const struct fp_cbpf *p, FILE *f);

/* Converts a numeric program (e.g. from pcap_compile) into a list: a label
 * "lNNN" before every instruction and every jump by label, as Cloudflare's
 * bpfgen prints tcpdump programs. Returns 0 or -EINVAL (a jump out of it). */
int fp_casm__import(struct fp_casm *a, const struct fp_cbpf_insn *insns, size_t len);

/*
 * The checks of the kernel's bpf_check_classic(): length 1..4096, known
 * opcodes, no division by a constant 0, shifts by < 32, scratch slots < 16,
 * jumps forward and inside, ancillary loads known, last instruction a
 * return, and no scratch slot read before written on some path. Returns 0 or
 * -EINVAL with *bad_pc (if not NULL) set to the offending instruction.
 */
int fp_cbpf__check(const struct fp_cbpf *p, size_t *bad_pc);

void fp_cbpf__free(struct fp_cbpf *p);

#endif /* FP_BPFGEN_CBPF_H */
