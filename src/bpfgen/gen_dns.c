// SPDX-License-Identifier: BSD-2-Clause
/*
 * `bpfgen dns [-i] PATTERN...`: matches DNS queries whose first question
 * name matches one of the patterns (dns_pattern.c), in the layout of
 * Cloudflare's bpfgen: x and M[0] hold the offset of the question name,
 * each pattern is a block `lb_N:` that falls to `ret match` or jumps to the
 * next block, the last block's successor returns no-match.
 */
#include "bpfgen/bpfgen_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/filter.h>

static const char dns_help[] =
	"usage: fastpath bpfgen dns -- [-h] [-i] PATTERN [PATTERN ...]\n"
	"\n"
	"Matches DNS packets whose first question name matches any PATTERN.\n"
	"\n"
	"  example.com        exactly example.com (leading/trailing dots ignored)\n"
	"  .                  the root name (root-zone queries: dig . NS)\n"
	"  *.example.com      one label of 1..63 bytes before example.com\n"
	"                     (not example.com itself, not a.b.example.com)\n"
	"  *{4-255}.ex.com    one label of 4..63 bytes (bounds clamped to 1..63)\n"
	"  fin?.me            '?' is any one byte: fint.me, finX.me; not fin.me\n"
	"  example.**         example followed by any suffix: example.com,\n"
	"                     example.co.uk; not www.example.com\n"
	"  example**          a first label starting with example, any suffix\n"
	"  %2e %3f ...        percent-encoded bytes inside a label\n"
	"\n"
	"A '*' is a wildcard only as a whole label: 'a*.com' is literal.\n"
	"\n"
	"options:\n"
	"  -h, --help         show this help\n"
	"  -i, --ignorecase   match ASCII letters case-insensitively\n";

/* Python 2 repr() of a byte string, as the reference's "; Match:" comments. */
static void py_repr(const unsigned char *s, size_t n, char *out, size_t cap)
{
	bool sq = memchr(s, '\'', n) != NULL, dq = memchr(s, '"', n) != NULL;
	char q = sq && !dq ? '"' : '\'';
	size_t i, o = 0;

	if (cap < 8)
		return;
	out[o++] = q;
	for (i = 0; i < n && o + 6 < cap; i++) {
		unsigned char c = s[i];

		if (c == (unsigned char)q || c == '\\')
			o += (size_t)snprintf(out + o, cap - o, "\\%c", c);
		else if (c == '\t')
			o += (size_t)snprintf(out + o, cap - o, "\\t");
		else if (c == '\n')
			o += (size_t)snprintf(out + o, cap - o, "\\n");
		else if (c == '\r')
			o += (size_t)snprintf(out + o, cap - o, "\\r");
		else if (c < 0x20 || c >= 0x7f)
			o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o++] = q;
	out[o] = 0;
}

static void hex(const unsigned char *s, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", s[i]);
	out[2 * n] = 0;
}

static void emit_star(struct fp_casm *a, const struct fp_dns_step *st, int fail)
{
	if (st->ranged)
		fp_casm__text(a, "    ; Match: *{%u-%u}", st->umin, st->umax);
	else
		fp_casm__text(a, "    ; Match: *");
	fp_casm__op(a, BPF_LD | BPF_B | BPF_IND, 0, FP_K_DEC);
	if (st->min == st->max) {
		fp_casm__jmp(a, BPF_JMP | BPF_JEQ | BPF_K, st->min, FP_K_DEC, FP_LBL_NEXT, fail);
	} else {
		/* jlt min; jgt max: a label length, never 0 (root) or > 63 (pointer) */
		fp_casm__jmp(a, BPF_JMP | BPF_JGE | BPF_K, st->min, FP_K_DEC, FP_LBL_NEXT, fail);
		fp_casm__jmp(a, BPF_JMP | BPF_JGT | BPF_K, st->max, FP_K_DEC, fail, FP_LBL_NEXT);
	}
	fp_casm__op(a, BPF_ALU | BPF_ADD | BPF_X, 0, FP_K_DEC);
	fp_casm__op(a, BPF_ALU | BPF_ADD | BPF_K, 1, FP_K_DEC);
	fp_casm__op(a, BPF_MISC | BPF_TAX, 0, FP_K_DEC);
}

static uint32_t be(const unsigned char *p, unsigned n)
{
	uint32_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void emit_literal(struct fp_casm *a, const struct fp_dns_step *st, bool last, int fail)
{
	static const uint16_t size[5] = { 0, BPF_B, BPF_H, 0, BPF_W };
	static const enum fp_kfmt kf[5] = { 0, FP_K_HEX2, FP_K_HEX4, 0, FP_K_HEX8 };
	char hs[520], hm[520], rs[1100];
	unsigned off = 0;

	hex(st->raw, st->n, hs);
	hex(st->mask, st->n, hm);
	py_repr(st->raw, st->n, rs, sizeof(rs));
	fp_casm__text(a, "    ; Match: %s %s  mask=%s", hs, rs, hm);
	if (st->freelen >= 0) {
		/* the free suffix's label: at least the prefix, at most 63 bytes */
		fp_casm__op(a, BPF_LD | BPF_B | BPF_IND, (uint32_t)st->freelen, FP_K_DEC);
		if (st->freemin > 0)
			fp_casm__jmp(a, BPF_JMP | BPF_JGE | BPF_K, st->freemin, FP_K_DEC,
				     FP_LBL_NEXT, fail);
		fp_casm__jmp(a, BPF_JMP | BPF_JGT | BPF_K, 63, FP_K_DEC, fail, FP_LBL_NEXT);
	}
	while (off < st->n) {
		unsigned w = st->n - off >= 4 ? 4 : st->n - off >= 2 ? 2 : 1;
		uint32_t m = be(st->mask + off, w), v = be(st->val + off, w);

		fp_casm__op(a, BPF_LD | size[w] | BPF_IND, off, FP_K_DEC);
		if (m)
			fp_casm__op(a, BPF_ALU | BPF_OR | BPF_K, m, kf[w]);
		fp_casm__jmp(a, BPF_JMP | BPF_JEQ | BPF_K, v, kf[w], FP_LBL_NEXT, fail);
		off += w;
	}
	if (!last) {
		fp_casm__op(a, BPF_MISC | BPF_TXA, 0, FP_K_DEC);
		fp_casm__op(a, BPF_ALU | BPF_ADD | BPF_K, off, FP_K_DEC);
		fp_casm__op(a, BPF_MISC | BPF_TAX, 0, FP_K_DEC);
	}
}

static void emit_prologue(const struct fp_bpfgen_opts *o, struct fp_casm *a, int npat)
{
	if (!o->inet6) {
		fp_casm__op(a, BPF_LDX | BPF_B | BPF_MSH, o->l3_off, FP_K_DEC);
		fp_casm__text(a, "    ; l3_off(%u) + 8 of udp + 12 of dns", o->l3_off);
		fp_casm__op(a, BPF_LD | BPF_IMM, o->l3_off + 8 + 12, FP_K_DEC);
		fp_casm__op(a, BPF_ALU | BPF_ADD | BPF_X, 0, FP_K_DEC);
	} else {
		/* as the reference: UDP right after the 40-byte fixed header */
		fp_casm__op(a, BPF_LD | BPF_IMM, o->l3_off + 40 + 8 + 12, FP_K_DEC);
	}
	fp_casm__op(a, BPF_MISC | BPF_TAX, 0, FP_K_DEC);
	fp_casm__text(a, "    ; a = x = M[0] = offset of first dns query byte");
	if (npat > 1)
		fp_casm__op(a, BPF_ST, 0, FP_K_DEC);
	else
		fp_casm__text(a, "    ; st M[0]");
	fp_casm__text(a, "%s", "");
}

int fp_bpfgen_dns(const struct fp_bpfgen_opts *o, int argc, char **argv,
		  struct fp_casm *a, struct fp_bpfgen_err *err)
{
	bool icase = false;
	const struct gen_flag flags[] = { { 'i', "ignorecase", &icase }, { 0, NULL, NULL } };
	struct fp_dns_pattern *pats = NULL;
	struct gen_args args;
	char msg[400];
	int i, r, *lbl = NULL;

	r = gen_parse("dns", flags, argc - 1, argv + 1, &args, err);
	if (r) {
		err->help = dns_help;
		return r;
	}
	err->usage = "fastpath bpfgen dns -- [-i] PATTERN [PATTERN ...]";
	if (args.npos == 0) {
		r = gen_error(err, FP_BPFGEN_USAGE, "dns: no PATTERN given");
		goto out;
	}
	pats = calloc((size_t)args.npos, sizeof(*pats));
	lbl = calloc((size_t)args.npos + 1, sizeof(*lbl));
	if (!pats || !lbl) {
		r = gen_error(err, FP_BPFGEN_RUNTIME, "out of memory");
		goto out;
	}
	for (i = 0; i < args.npos; i++) {
		r = fp_dns_pattern__parse(args.pos[i], icase, &pats[i], msg, sizeof(msg));
		if (r) {
			r = gen_error(err, r == -ENOMEM ? FP_BPFGEN_RUNTIME : FP_BPFGEN_USAGE,
				      "dns: %s", msg);
			goto out;
		}
	}
	emit_prologue(o, a, args.npos);
	for (i = 0; i <= args.npos; i++)
		lbl[i] = fp_casm__label(a, "lb_%d", i);
	for (i = 0; i < args.npos; i++) {
		unsigned j;

		fp_casm__place(a, lbl[i]);
		if (i)
			fp_casm__op(a, BPF_LDX | BPF_MEM, 0, FP_K_DEC);
		else
			fp_casm__text(a, "    ; ldx M[0]");
		for (j = 0; j < pats[i].nsteps; j++) {
			const struct fp_dns_step *st = &pats[i].steps[j];

			if (st->star)
				emit_star(a, st, lbl[i + 1]);
			else
				emit_literal(a, st, j + 1 == pats[i].nsteps, lbl[i + 1]);
		}
		fp_casm__op(a, BPF_RET | BPF_K, ret_match(o), FP_K_DEC);
		fp_casm__text(a, "%s", "");
	}
	fp_casm__place(a, lbl[args.npos]);
	fp_casm__op(a, BPF_RET | BPF_K, ret_nomatch(o), FP_K_DEC);
	r = 0;
out:
	for (i = 0; pats && i < args.npos; i++)
		fp_dns_pattern__free(&pats[i]);
	free(pats);
	free(lbl);
	free(args.pos);
	return r;
}
