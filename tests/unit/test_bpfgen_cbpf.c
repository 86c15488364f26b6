// SPDX-License-Identifier: BSD-2-Clause
/*
 * The cBPF instruction list (src/bpfgen/cbpf.c): label resolution, `ja`
 * trampolines for jumps over 255 instructions (the reference's bpf_asm
 * truncated them to 8 bits), the printers, import, and the kernel-rules
 * checker.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <linux/filter.h>
#include <pcap/pcap.h>

#include "unit/bpfgen_util.h"

static unsigned run(const struct fp_cbpf *p, const uint8_t *pkt, unsigned len)
{
	return bpf_filter((const struct bpf_insn *)p->insns, pkt, len, len);
}

/* ldb [0]; jeq #1 to a label `fill` instructions further; else ret #0. */
static struct fp_casm *far_jump(unsigned fill, uint16_t op, bool far_on_true)
{
	struct fp_casm *a = fp_casm__new();
	int far = fp_casm__label(a, "far");
	unsigned i;

	fp_casm__op(a, BPF_LD | BPF_B | BPF_ABS, 0, FP_K_DEC);
	if (far_on_true)
		fp_casm__jmp(a, BPF_JMP | op | BPF_K, 1, FP_K_DEC, far, FP_LBL_NEXT);
	else
		fp_casm__jmp(a, BPF_JMP | op | BPF_K, 1, FP_K_DEC, FP_LBL_NEXT, far);
	for (i = 0; i < fill; i++)
		fp_casm__op(a, BPF_LD | BPF_IMM, i, FP_K_DEC);
	fp_casm__op(a, BPF_RET | BPF_K, 0, FP_K_DEC);
	fp_casm__place(a, far);
	fp_casm__op(a, BPF_RET | BPF_K, 7, FP_K_DEC);
	return a;
}

static void test_trampolines(void **state)
{
	static const uint8_t one[1] = { 1 }, two[1] = { 2 };
	static const uint16_t ops[] = { BPF_JEQ, BPF_JGE, BPF_JGT, BPF_JSET };
	unsigned fill[] = { 10, 253, 254, 255, 300, 1000 };
	size_t i, j, t;

	(void)state;
	for (i = 0; i < sizeof(fill) / sizeof(fill[0]); i++) {
		for (j = 0; j < 4; j++) {
			for (t = 0; t < 2; t++) {
				struct fp_casm *a = far_jump(fill[i], ops[j], t);
				struct fp_cbpf p;
				unsigned want_one, want_two;
				bool cond_one, cond_two;

				assert_int_equal(fp_casm__resolve(a, &p), 0);
				assert_int_equal(fp_cbpf__check(&p, NULL), 0);
				/* a trampoline exactly when the jump reaches past 255 */
				assert_int_equal(p.len, fill[i] + 4 + (fill[i] + 1 > 255 ? 1 : 0));
				switch (ops[j]) {
				case BPF_JEQ: cond_one = true; cond_two = false; break;
				case BPF_JGE: cond_one = true; cond_two = true; break;
				case BPF_JGT: cond_one = false; cond_two = true; break;
				default: cond_one = true; cond_two = false; break; /* jset #1 */
				}
				want_one = cond_one == (bool)t ? 7 : 0;
				want_two = cond_two == (bool)t ? 7 : 0;
				assert_int_equal(run(&p, one, 1), want_one);
				assert_int_equal(run(&p, two, 1), want_two);
				fp_cbpf__free(&p);
				/* resolving again changes nothing */
				assert_int_equal(fp_casm__resolve(a, &p), 0);
				assert_int_equal(p.len, fill[i] + 4 + (fill[i] + 1 > 255 ? 1 : 0));
				fp_cbpf__free(&p);
				fp_casm__free(a);
			}
		}
	}
}

/* A dns program with a name of many stars is over 255 instructions long:
 * its jumps to the next pattern need trampolines. */
static void test_long_dns_program(void **state)
{
	char pat[400] = "";
	struct fp_bpfgen_out out;
	struct fp_bpfgen_err err;
	char *words[4] = { "dns", pat, "b.com", NULL };
	int i;

	(void)state;
	for (i = 0; i < 60; i++)
		strcat(pat, "*.");
	strcat(pat, "a.com");
	assert_int_equal(bg_run(&(struct fp_bpfgen_opts){ 0 }, &out, &err,
				(const char *const *)words), 0);
	assert_true(out.prog.len > 300);
	assert_int_equal(fp_cbpf__check(&out.prog, NULL), 0);
	for (i = 0; i < (int)out.prog.len; i++)
		if (out.prog.insns[i].code == (BPF_JMP | BPF_JA))
			break;
	assert_true(i < (int)out.prog.len);
	fp_bpfgen_out__free(&out);
}

static void test_print_forms(void **state)
{
	struct fp_casm *a = fp_casm__new();
	int l1 = fp_casm__label(a, "l1");
	struct fp_cbpf p;
	char *s = NULL;
	size_t n = 0;
	FILE *f;

	(void)state;
	fp_casm__op(a, BPF_LD | BPF_W | BPF_LEN, 0, FP_K_DEC);
	fp_casm__jmp(a, BPF_JMP | BPF_JGT | BPF_K, 5, FP_K_DEC, FP_LBL_NEXT, l1);
	fp_casm__jmp(a, BPF_JMP | BPF_JSET | BPF_K, 1, FP_K_HEX, FP_LBL_NEXT, l1);
	fp_casm__jmp(a, BPF_JMP | BPF_JEQ | BPF_X, 0, FP_K_DEC, l1, FP_LBL_NEXT);
	fp_casm__op(a, BPF_LD | BPF_W | BPF_ABS, (uint32_t)SKF_AD_OFF + SKF_AD_PROTOCOL, FP_K_DEC);
	fp_casm__op(a, BPF_ALU | BPF_NEG, 0, FP_K_DEC);
	fp_casm__op(a, BPF_STX, 3, FP_K_DEC);
	fp_casm__note(a, "keep");
	fp_casm__ja(a, l1);
	fp_casm__place(a, l1);
	fp_casm__op(a, BPF_RET | BPF_A, 0, FP_K_DEC);
	assert_int_equal(fp_casm__resolve(a, &p), 0);
	f = open_memstream(&s, &n);
	fp_casm__print(a, f);
	fclose(f);
	assert_string_equal(s, "    ld #len\n"
			       "    jle #5, l1\n"
			       "    jset #0x1, nx_0, l1\n"
			       "nx_0:\n"
			       "    jeq x, l1\n"
			       "    ld #proto\n"
			       "    neg\n"
			       "    stx M[3]           ; keep\n"
			       "    ja l1\n"
			       "l1:\n"
			       "    ret a\n");
	free(s);
	s = NULL;
	f = open_memstream(&s, &n);
	fp_cbpf__print(&p, f);
	fclose(f);
	assert_string_equal(s, "9,128 0 0 0,37 0 6 5,69 0 5 1,29 4 0 0,32 0 0 4294963200,"
			       "132 0 0 0,3 0 0 3,5 0 0 0,22 0 0 0,\n");
	free(s);
	fp_cbpf__free(&p);
	fp_casm__free(a);
}

static void test_import(void **state)
{
	/* ldh [12]; jeq #0x800 jt 0 jf 1; ret #1; ret #0 */
	static const struct fp_cbpf_insn in[] = {
		{ 0x28, 0, 0, 12 }, { 0x15, 0, 1, 0x800 }, { 0x06, 0, 0, 1 }, { 0x06, 0, 0, 0 },
	};
	static const struct fp_cbpf_insn bad[] = { { 0x15, 0, 5, 0 }, { 0x06, 0, 0, 0 } };
	struct fp_casm *a = fp_casm__new();
	struct fp_cbpf p;

	(void)state;
	assert_int_equal(fp_casm__import(a, in, 4), 0);
	assert_int_equal(fp_casm__resolve(a, &p), 0);
	assert_int_equal(p.len, 4);
	assert_memory_equal(p.insns, in, sizeof(in));
	fp_cbpf__free(&p);
	fp_casm__free(a);
	a = fp_casm__new();
	assert_int_equal(fp_casm__import(a, bad, 2), -EINVAL);
	fp_casm__free(a);
}

static void test_resolve_errors(void **state)
{
	struct fp_casm *a;
	struct fp_cbpf p;
	int l, i;

	(void)state;
	/* a label never placed */
	a = fp_casm__new();
	l = fp_casm__label(a, "nowhere");
	fp_casm__jmp(a, BPF_JMP | BPF_JEQ | BPF_K, 0, FP_K_DEC, l, FP_LBL_NEXT);
	fp_casm__op(a, BPF_RET | BPF_K, 0, FP_K_DEC);
	assert_int_equal(fp_casm__resolve(a, &p), -EINVAL);
	assert_null(p.insns);
	fp_casm__free(a);
	/* a backward jump */
	a = fp_casm__new();
	l = fp_casm__label(a, "back");
	fp_casm__place(a, l);
	fp_casm__op(a, BPF_LD | BPF_IMM, 0, FP_K_DEC);
	fp_casm__ja(a, l);
	fp_casm__op(a, BPF_RET | BPF_K, 0, FP_K_DEC);
	assert_int_equal(fp_casm__resolve(a, &p), -EINVAL);
	fp_casm__free(a);
	/* an unknown label id */
	a = fp_casm__new();
	fp_casm__jmp(a, BPF_JMP | BPF_JEQ | BPF_K, 0, FP_K_DEC, 42, FP_LBL_NEXT);
	assert_int_equal(fp_casm__resolve(a, &p), -EINVAL);
	fp_casm__free(a);
	/* over 4096 instructions */
	a = fp_casm__new();
	for (i = 0; i < 4097; i++)
		fp_casm__op(a, BPF_RET | BPF_K, 0, FP_K_DEC);
	assert_int_equal(fp_casm__resolve(a, &p), -E2BIG);
	fp_casm__free(a);
	/* empty */
	a = fp_casm__new();
	assert_int_equal(fp_casm__resolve(a, &p), -EINVAL);
	fp_casm__free(a);
}

static int check(const struct fp_cbpf_insn *in, size_t n, size_t *bad)
{
	struct fp_cbpf p = { (struct fp_cbpf_insn *)in, n };

	return fp_cbpf__check(&p, bad);
}

static void test_check(void **state)
{
#define RET0 { BPF_RET | BPF_K, 0, 0, 0 }
	static const struct fp_cbpf_insn ok[] = {
		{ BPF_LD | BPF_W | BPF_ABS, 0, 0, (uint32_t)SKF_AD_OFF + SKF_AD_PROTOCOL },
		{ BPF_ST, 0, 0, 15 }, { BPF_LDX | BPF_MEM, 0, 0, 15 },
		{ BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0 }, RET0, { BPF_RET | BPF_A, 0, 0, 0 },
	};
	static const struct fp_cbpf_insn div0[] = { { BPF_ALU | BPF_DIV | BPF_K, 0, 0, 0 }, RET0 };
	static const struct fp_cbpf_insn lsh32[] = { { BPF_ALU | BPF_LSH | BPF_K, 0, 0, 32 }, RET0 };
	static const struct fp_cbpf_insn mem16[] = { { BPF_ST, 0, 0, 16 }, RET0 };
	static const struct fp_cbpf_insn ja_out[] = { { BPF_JMP | BPF_JA, 0, 0, 1 }, RET0 };
	static const struct fp_cbpf_insn jf_out[] = { { BPF_JMP | BPF_JGT | BPF_K, 0, 1, 0 }, RET0 };
	static const struct fp_cbpf_insn noret[] = { RET0, { BPF_LD | BPF_IMM, 0, 0, 0 } };
	static const struct fp_cbpf_insn unread[] = {
		{ BPF_LD | BPF_B | BPF_ABS, 0, 0, 0 }, { BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0 },
		{ BPF_ST, 0, 0, 2 }, { BPF_LD | BPF_MEM, 0, 0, 2 }, RET0,
	};
	static const struct fp_cbpf_insn anc[] = { { BPF_LD | BPF_W | BPF_ABS, 0, 0, 0xfffff000u + 1000 }, RET0 };
	static const struct fp_cbpf_insn opcode[] = { { 0xff, 0, 0, 0 }, RET0 };
	static const struct fp_cbpf_insn retx[] = { { BPF_RET | BPF_X, 0, 0, 0 } };
	size_t bad;

	(void)state;
	assert_int_equal(check(ok, 6, &bad), 0);
	assert_int_equal(check(ok, 0, &bad), -EINVAL);
	assert_int_equal(check(div0, 2, &bad), -EINVAL);
	assert_int_equal(bad, 0);
	assert_int_equal(check(lsh32, 2, &bad), -EINVAL);
	assert_int_equal(check(mem16, 2, &bad), -EINVAL);
	assert_int_equal(check(ja_out, 2, &bad), -EINVAL);
	assert_int_equal(check(jf_out, 2, &bad), -EINVAL);
	assert_int_equal(check(noret, 2, &bad), -EINVAL);
	assert_int_equal(bad, 1);
	/* M[2] is written on one path only, then read where the paths join */
	assert_int_equal(check(unread, 5, &bad), -EINVAL);
	assert_int_equal(bad, 3);
	assert_int_equal(check(anc, 2, &bad), -EINVAL);
	assert_int_equal(check(opcode, 2, &bad), -EINVAL);
	assert_int_equal(check(retx, 1, &bad), -EINVAL);
#undef RET0
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trampolines),
		cmocka_unit_test(test_long_dns_program),
		cmocka_unit_test(test_print_forms),
		cmocka_unit_test(test_import),
		cmocka_unit_test(test_resolve_errors),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests_name("bpfgen_cbpf", tests, NULL, NULL);
}
