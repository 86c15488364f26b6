// SPDX-License-Identifier: BSD-2-Clause
/*
 * `bpfgen suffix HEX...`: matches packets ending with the given bytes, in
 * the layout of Cloudflare's bpfgen. The arguments are joined; whitespace
 * is ignored; an 'x' (or 'X') digit matches any nibble. The reference took
 * 'x' only at the end (and crashed on one anywhere else, or on an odd
 * number of digits); here it works anywhere, by masking with `and`.
 */
#include "bpfgen/bpfgen_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/filter.h>

static const char suffix_help[] =
	"usage: fastpath bpfgen suffix -- [-h] HEX [HEX ...]\n"
	"\n"
	"Matches packets that end with the bytes HEX. The arguments are joined\n"
	"and whitespace is ignored, so '010203' is the same as '01 02 03'. An\n"
	"'x' digit matches any nibble: '01xx03' matches 010003, 01ff03, ...\n"
	"\n"
	"options:\n"
	"  -h, --help     show this help\n";

#define SUFFIX_MAX 4096

static int nibble(char c)
{
	if (c == 'x' || c == 'X')
		return -1;
	if (isdigit((unsigned char)c))
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -2;
}

static uint32_t be(const unsigned char *p, unsigned n)
{
	uint32_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

int fp_bpfgen_suffix(const struct fp_bpfgen_opts *o, int argc, char **argv,
		     struct fp_casm *a, struct fp_bpfgen_err *err)
{
	const struct gen_flag flags[] = { { 0, NULL, NULL } };
	unsigned char val[SUFFIX_MAX], care[SUFFIX_MAX];
	static const uint16_t size[5] = { 0, BPF_B, BPF_H, 0, BPF_W };
	static const enum fp_kfmt kf[5] = { 0, FP_K_HEX2, FP_K_HEX4, 0, FP_K_HEX8 };
	char digits[2 * SUFFIX_MAX + 1], shown[2 * SUFFIX_MAX + 1];
	size_t nd = 0, n, len, off, i;
	struct gen_args args;
	int r, nomatch;

	r = gen_parse("suffix", flags, argc - 1, argv + 1, &args, err);
	if (r) {
		err->help = suffix_help;
		return r;
	}
	err->usage = "fastpath bpfgen suffix -- HEX [HEX ...]";
	for (i = 0; i < (size_t)args.npos; i++) {
		const char *p;

		for (p = args.pos[i]; *p; p++) {
			if (isspace((unsigned char)*p))
				continue;
			if (nibble(*p) == -2) {
				r = gen_error(err, FP_BPFGEN_USAGE,
					      "suffix: '%c' in '%s' is not a hex digit or x",
					      *p, args.pos[i]);
				goto out;
			}
			if (nd >= 2 * SUFFIX_MAX) {
				r = gen_error(err, FP_BPFGEN_USAGE,
					      "suffix: more than %d bytes", SUFFIX_MAX);
				goto out;
			}
			digits[nd++] = *p;
		}
	}
	if (nd == 0) {
		r = gen_error(err, FP_BPFGEN_USAGE, "suffix: no HEX bytes given");
		goto out;
	}
	if (nd % 2) {
		r = gen_error(err, FP_BPFGEN_USAGE, "suffix: odd number of hex digits (%zu)", nd);
		goto out;
	}
	len = nd / 2;
	for (i = 0; i < len; i++) {
		int hi = nibble(digits[2 * i]), lo = nibble(digits[2 * i + 1]);

		care[i] = (unsigned char)((hi < 0 ? 0 : 0xf0) | (lo < 0 ? 0 : 0x0f));
		val[i] = (unsigned char)(((hi < 0 ? 0 : hi) << 4 | (lo < 0 ? 0 : lo)) & care[i]);
	}
	/* trailing wildcard bytes need no test (the reference stripped them too) */
	for (n = len; n > 0 && !care[n - 1]; n--)
		;
	for (i = 0; i < 2 * n; i++)
		shown[i] = (char)tolower((unsigned char)digits[i]);
	shown[2 * n] = 0;

	nomatch = fp_casm__label(a, "nomatch");
	fp_casm__op(a, BPF_LD | BPF_W | BPF_LEN, 0, FP_K_DEC);
	fp_casm__op(a, BPF_ALU | BPF_SUB | BPF_K, (uint32_t)len, FP_K_DEC);
	fp_casm__op(a, BPF_MISC | BPF_TAX, 0, FP_K_DEC);
	fp_casm__text(a, "%s", "");
	fp_casm__text(a, "     ; matching %s", shown);
	for (off = 0; off < n;) {
		unsigned w = n - off >= 4 ? 4 : n - off >= 2 ? 2 : 1;
		uint32_t m = be(care + off, w), v = be(val + off, w);
		uint32_t full = w == 4 ? 0xffffffffu : (1u << (8 * w)) - 1;

		if (m) {
			fp_casm__op(a, BPF_LD | size[w] | BPF_IND, (uint32_t)off, FP_K_DEC);
			if (m != full)
				fp_casm__op(a, BPF_ALU | BPF_AND | BPF_K, m, kf[w]);
			fp_casm__jmp(a, BPF_JMP | BPF_JEQ | BPF_K, v, kf[w], FP_LBL_NEXT, nomatch);
		}
		off += w;
	}
	fp_casm__op(a, BPF_RET | BPF_K, ret_match(o), FP_K_DEC);
	fp_casm__text(a, "%s", "");
	fp_casm__place(a, nomatch);
	fp_casm__op(a, BPF_RET | BPF_K, ret_nomatch(o), FP_K_DEC);
	r = 0;
out:
	free(args.pos);
	return r;
}
