// SPDX-License-Identifier: BSD-2-Clause
/*
 * The cBPF instruction list: building, label resolution with `ja`
 * trampolines, import of numeric programs (cbpf.h).
 */
#include "bpfgen/cbpf_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <linux/filter.h>

struct fp_casm *fp_casm__new(void)
{
	return calloc(1, sizeof(struct fp_casm));
}

void fp_casm__free(struct fp_casm *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->n; i++) {
		free(a->items[i].text);
		free(a->items[i].note);
	}
	for (i = 0; i < a->nlabels; i++)
		free(a->labels[i]);
	free(a->items);
	free(a->labels);
	free(a);
}

static void set_error(struct fp_casm *a, int err, const char *msg)
{
	if (a->err)
		return;
	a->err = err;
	a->errmsg = msg;
}

int fp_casm__error(const struct fp_casm *a, const char **msg)
{
	if (msg)
		*msg = a->err ? a->errmsg : NULL;
	return a->err;
}

/* Inserts a zeroed item at position at; returns it or NULL (error set). */
static struct casm_item *insert_item(struct fp_casm *a, size_t at)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		struct casm_item *v = realloc(a->items, cap * sizeof(*v));

		if (!v) {
			set_error(a, -ENOMEM, "out of memory");
			return NULL;
		}
		a->items = v;
		a->cap = cap;
	}
	memmove(&a->items[at + 1], &a->items[at], (a->n - at) * sizeof(*a->items));
	a->n++;
	memset(&a->items[at], 0, sizeof(*a->items));
	a->items[at].jt = a->items[at].jf = FP_LBL_NEXT;
	a->items[at].label = -1;
	return &a->items[at];
}

static struct casm_item *append(struct fp_casm *a, enum casm_kind kind)
{
	struct casm_item *it;

	if (a->err)
		return NULL;
	it = insert_item(a, a->n);
	if (it)
		it->kind = kind;
	return it;
}

static char *vfmt(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

static int new_label(struct fp_casm *a, char *name)
{
	char **v;

	if (!name) {
		set_error(a, -ENOMEM, "out of memory");
		return -1;
	}
	v = realloc(a->labels, (a->nlabels + 1) * sizeof(*v));
	if (!v) {
		free(name);
		set_error(a, -ENOMEM, "out of memory");
		return -1;
	}
	a->labels = v;
	a->labels[a->nlabels] = name;
	return (int)a->nlabels++;
}

int fp_casm__label(struct fp_casm *a, const char *fmt, ...)
{
	va_list ap;
	char *name;

	va_start(ap, fmt);
	name = vfmt(fmt, ap);
	va_end(ap);
	return new_label(a, name);
}

void fp_casm__place(struct fp_casm *a, int label)
{
	struct casm_item *it;

	if (label < 0 || (size_t)label >= a->nlabels) {
		set_error(a, -EINVAL, "placing an unknown label");
		return;
	}
	it = append(a, CASM_LABEL);
	if (it)
		it->label = label;
}

void fp_casm__text(struct fp_casm *a, const char *fmt, ...)
{
	struct casm_item *it = append(a, CASM_TEXT);
	va_list ap;

	if (!it)
		return;
	va_start(ap, fmt);
	it->text = vfmt(fmt, ap);
	va_end(ap);
	if (!it->text)
		set_error(a, -ENOMEM, "out of memory");
}

void fp_casm__note(struct fp_casm *a, const char *fmt, ...)
{
	va_list ap;
	ssize_t i;

	if (a->err)
		return;
	for (i = (ssize_t)a->n - 1; i >= 0 && a->items[i].kind != CASM_INSN; i--)
		;
	if (i < 0) {
		set_error(a, -EINVAL, "a note before any instruction");
		return;
	}
	free(a->items[i].note);
	va_start(ap, fmt);
	a->items[i].note = vfmt(fmt, ap);
	va_end(ap);
	if (!a->items[i].note)
		set_error(a, -ENOMEM, "out of memory");
}

void fp_casm__op(struct fp_casm *a, uint16_t code, uint32_t k, enum fp_kfmt kf)
{
	struct casm_item *it = append(a, CASM_INSN);

	if (!it)
		return;
	it->code = code;
	it->k = k;
	it->kfmt = kf;
}

static bool label_ok(const struct fp_casm *a, int l)
{
	return l == FP_LBL_NEXT || (l >= 0 && (size_t)l < a->nlabels);
}

void fp_casm__jmp(struct fp_casm *a, uint16_t code, uint32_t k, enum fp_kfmt kf,
		  int jt, int jf)
{
	struct casm_item *it;

	if (!label_ok(a, jt) || !label_ok(a, jf)) {
		set_error(a, -EINVAL, "a jump to an unknown label");
		return;
	}
	it = append(a, CASM_INSN);
	if (!it)
		return;
	it->code = code;
	it->k = k;
	it->kfmt = kf;
	it->jt = jt;
	it->jf = jf;
}

void fp_casm__ja(struct fp_casm *a, int label)
{
	struct casm_item *it;

	if (label < 0 || (size_t)label >= a->nlabels) {
		set_error(a, -EINVAL, "a jump to an unknown label");
		return;
	}
	it = append(a, CASM_INSN);
	if (!it)
		return;
	it->code = BPF_JMP | BPF_JA;
	it->label = label;
}

size_t fp_casm__count(const struct fp_casm *a)
{
	size_t i, n = 0;

	for (i = 0; i < a->n; i++)
		n += a->items[i].kind == CASM_INSN;
	return n;
}

bool casm_is_cond(uint16_t code)
{
	return BPF_CLASS(code) == BPF_JMP && BPF_OP(code) != BPF_JA;
}

/*
 * Instruction index of every item (pc[]) and of every label (pos[], -1 if
 * never placed, or placed after the last instruction).
 */
static int layout(const struct fp_casm *a, long *pc, long *pos)
{
	size_t i, n = 0;

	for (i = 0; i < a->nlabels; i++)
		pos[i] = -1;
	for (i = 0; i < a->n; i++) {
		pc[i] = (long)n;
		if (a->items[i].kind == CASM_LABEL)
			pos[a->items[i].label] = (long)n;
		else if (a->items[i].kind == CASM_INSN)
			n++;
	}
	for (i = 0; i < a->nlabels; i++)
		if (pos[i] >= (long)n)
			pos[i] = -1;
	return (int)n;
}

/* Distance of a jump from the instruction at pc to label l (-1: invalid). */
static long dist(const long *pos, long pc, int l)
{
	if (l == FP_LBL_NEXT)
		return 0;
	if (pos[l] < 0 || pos[l] <= pc)
		return -1;
	return pos[l] - pc - 1;
}

/*
 * Gives the conditional jump at item i trampolines for its far branches:
 *   jxx  k, T1, T2     (or the near label / the label after the trampolines)
 *   T1: ja far_t
 *   T2: ja far_f
 *   N:  (what came next)
 */
static int *branch(struct fp_casm *a, size_t i, int b)
{
	return b ? &a->items[i].jf : &a->items[i].jt;
}

static int add_trampolines(struct fp_casm *a, size_t i, bool far_t, bool far_f)
{
	bool far[2] = { far_t, far_f };
	size_t at = i + 1;
	int b, next = -1;

	for (b = 0; b < 2; b++) {
		int t, target = *branch(a, i, b);
		struct casm_item *it;

		if (!far[b])
			continue;
		t = fp_casm__label(a, "tr_%u", a->ntramp++);
		if (t < 0 || !(it = insert_item(a, at++)))
			return a->err;
		it->kind = CASM_LABEL;
		it->label = t;
		if (!(it = insert_item(a, at++)))
			return a->err;
		it->kind = CASM_INSN;
		it->code = BPF_JMP | BPF_JA;
		it->label = target;
		*branch(a, i, b) = t;
	}
	for (b = 0; b < 2; b++) {
		struct casm_item *it;

		if (*branch(a, i, b) != FP_LBL_NEXT)
			continue;
		if (next < 0) {
			next = fp_casm__label(a, "nx_%u", a->ntramp++);
			if (next < 0 || !(it = insert_item(a, at)))
				return a->err;
			it->kind = CASM_LABEL;
			it->label = next;
		}
		*branch(a, i, b) = next;
	}
	return 0;
}

/* One pass: trampolines for the first far jump found. 1 = changed, 0 = none. */
static int trampoline_pass(struct fp_casm *a, long *pc, long *pos)
{
	size_t i;

	layout(a, pc, pos);
	for (i = 0; i < a->n; i++) {
		const struct casm_item *it = &a->items[i];
		long dt, df;
		int err;

		if (it->kind != CASM_INSN)
			continue;
		if (it->code == (BPF_JMP | BPF_JA)) {
			if (dist(pos, pc[i], it->label) < 0)
				goto bad;
			continue;
		}
		if (!casm_is_cond(it->code))
			continue;
		dt = dist(pos, pc[i], it->jt);
		df = dist(pos, pc[i], it->jf);
		if (dt < 0 || df < 0)
			goto bad;
		if (dt <= 255 && df <= 255)
			continue;
		err = add_trampolines(a, i, dt > 255, df > 255);
		return err ? err : 1;
	}
	return 0;
bad:
	set_error(a, -EINVAL, "a jump to a label not placed after it");
	return a->err;
}

/* The printer names both targets of a jset or of a jump with two fall-throughs. */
static int name_fallthroughs(struct fp_casm *a)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		struct casm_item *it = &a->items[i];
		bool need;
		int l;

		if (it->kind != CASM_INSN || !casm_is_cond(it->code))
			continue;
		need = (it->jt == FP_LBL_NEXT && it->jf == FP_LBL_NEXT) ||
		       (BPF_OP(it->code) == BPF_JSET && it->jt == FP_LBL_NEXT);
		if (!need)
			continue;
		l = fp_casm__label(a, "nx_%u", a->ntramp++);
		if (l < 0 || !(it = insert_item(a, i + 1)))
			return a->err;
		it->kind = CASM_LABEL;
		it->label = l;
		it = &a->items[i];
		if (it->jt == FP_LBL_NEXT)
			it->jt = l;
		if (it->jf == FP_LBL_NEXT)
			it->jf = l;
	}
	return 0;
}

int fp_casm__resolve(struct fp_casm *a, struct fp_cbpf *out)
{
	long *pc = NULL, *pos = NULL;
	size_t i, n;
	int err, r;

	memset(out, 0, sizeof(*out));
	if (a->err)
		return a->err;
	/* Each pass adds at most 3 items and 3 labels. */
	do {
		free(pc);
		free(pos);
		pc = malloc((a->n + 8) * sizeof(*pc));
		pos = malloc((a->nlabels + 8) * sizeof(*pos));
		if (!pc || !pos) {
			set_error(a, -ENOMEM, "out of memory");
			goto out;
		}
		r = trampoline_pass(a, pc, pos);
		if (fp_casm__count(a) > FP_CBPF_MAXINSNS)
			break;
	} while (r > 0);
	if (r < 0)
		goto out;
	if (name_fallthroughs(a))
		goto out;
	n = fp_casm__count(a);
	if (n == 0 || n > FP_CBPF_MAXINSNS) {
		err = n ? -E2BIG : -EINVAL;
		set_error(a, err, n ? "more than 4096 instructions (the kernel's limit)"
				    : "an empty program");
		goto out;
	}
	free(pc);
	free(pos);
	pc = malloc(a->n * sizeof(*pc));
	pos = malloc((a->nlabels + 1) * sizeof(*pos));
	out->insns = calloc(n, sizeof(*out->insns));
	if (!pc || !pos || !out->insns) {
		set_error(a, -ENOMEM, "out of memory");
		goto out;
	}
	layout(a, pc, pos);
	for (i = 0; i < a->n; i++) {
		const struct casm_item *it = &a->items[i];
		struct fp_cbpf_insn *o = &out->insns[pc[i]];

		if (it->kind != CASM_INSN)
			continue;
		o->code = it->code;
		o->k = it->k;
		if (it->code == (BPF_JMP | BPF_JA)) {
			o->k = (uint32_t)dist(pos, pc[i], it->label);
		} else if (casm_is_cond(it->code)) {
			o->jt = (uint8_t)dist(pos, pc[i], it->jt);
			o->jf = (uint8_t)dist(pos, pc[i], it->jf);
		}
	}
	out->len = n;
out:
	free(pc);
	free(pos);
	if (a->err) {
		free(out->insns);
		memset(out, 0, sizeof(*out));
	}
	return a->err;
}

int fp_casm__import(struct fp_casm *a, const struct fp_cbpf_insn *insns, size_t len)
{
	int base = (int)a->nlabels;
	size_t i;

	for (i = 0; i < len; i++)
		fp_casm__label(a, "l%03zu", i);
	if (a->err)
		return a->err;
	for (i = 0; i < len; i++) {
		const struct fp_cbpf_insn *in = &insns[i];

		fp_casm__place(a, base + (int)i);
		if (in->code == (BPF_JMP | BPF_JA)) {
			if (in->k >= len - i - 1)
				goto bad;
			fp_casm__ja(a, base + (int)(i + 1 + in->k));
		} else if (casm_is_cond(in->code)) {
			if (i + 1 + in->jt >= len || i + 1 + in->jf >= len)
				goto bad;
			fp_casm__jmp(a, in->code, in->k, FP_K_HEX, base + (int)(i + 1 + in->jt),
				     base + (int)(i + 1 + in->jf));
		} else {
			fp_casm__op(a, in->code, in->k, FP_K_HEX);
		}
	}
	return a->err;
bad:
	set_error(a, -EINVAL, "a jump out of the imported program");
	return a->err;
}

void fp_cbpf__free(struct fp_cbpf *p)
{
	if (!p)
		return;
	free(p->insns);
	p->insns = NULL;
	p->len = 0;
}
