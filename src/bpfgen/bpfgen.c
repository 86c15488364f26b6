// SPDX-License-Identifier: BSD-2-Clause
/*
 * The generator table, the generators' argparse-like parameter parsing and
 * fp_bpfgen__generate() (bpfgen.h).
 */
#include "bpfgen/bpfgen_internal.h"
#include "bpfgen/gen_rule.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*gen_fn)(const struct fp_bpfgen_opts *o, int argc, char **argv,
		      struct fp_casm *a, struct fp_bpfgen_err *err);

static const struct {
	const char *name;
	gen_fn fn;
} generators[] = {
	{ "dns", fp_bpfgen_dns },
	{ "dns_validate", fp_bpfgen_dns_validate },
	{ "p0f", fp_bpfgen_p0f },
	{ "rule", fp_bpfgen_rule },
	{ "suffix", fp_bpfgen_suffix },
	{ "tcpdump", fp_bpfgen_tcpdump },
};
#define N_GENERATORS (sizeof(generators) / sizeof(generators[0]))

const char *const fp_bpfgen_types[] = { "dns", "dns_validate", "p0f", "rule", "suffix",
					     "tcpdump", NULL };

int gen_error(struct fp_bpfgen_err *err, enum fp_bpfgen_errkind kind, const char *fmt, ...)
{
	va_list ap;

	err->kind = kind;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return kind == FP_BPFGEN_RUNTIME ? -ENOMEM : -EINVAL;
}

/* argparse takes "-5" and "-.5" for values, not options, when no option looks so. */
static bool looks_negative_number(const char *s)
{
	const char *p = s + 1;
	bool dot = false, digit = false;

	for (; *p; p++) {
		if (isdigit((unsigned char)*p))
			digit = true;
		else if (*p == '.' && !dot)
			dot = true;
		else
			return false;
	}
	return digit;
}

static int long_flag(const char *gen, const struct gen_flag *flags, const char *arg,
		     struct fp_bpfgen_err *err)
{
	const char *name = arg + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	int i, found = -1, n = 0;

	if (!strncmp(name, "help", len) && len)
		return gen_error(err, FP_BPFGEN_HELP, "%s", "");
	for (i = 0; flags[i].value; i++) {
		if (!flags[i].long_name || strncmp(name, flags[i].long_name, len))
			continue;
		if (strlen(flags[i].long_name) == len) {
			found = i;
			n = 1;
			break;
		}
		found = i;
		n++;
	}
	if (n == 0)
		return gen_error(err, FP_BPFGEN_USAGE, "%s: unrecognized option '%s'", gen, arg);
	if (n > 1)
		return gen_error(err, FP_BPFGEN_USAGE, "%s: ambiguous option '%s'", gen, arg);
	if (eq)
		return gen_error(err, FP_BPFGEN_USAGE, "%s: option '--%s' takes no value", gen,
				 flags[found].long_name);
	*flags[found].value = true;
	return 0;
}

static int short_flags(const char *gen, const struct gen_flag *flags, const char *arg,
		       struct fp_bpfgen_err *err)
{
	const char *p;
	int i;

	for (p = arg + 1; *p; p++) {
		if (*p == 'h')
			return gen_error(err, FP_BPFGEN_HELP, "%s", "");
		for (i = 0; flags[i].value; i++)
			if (flags[i].short_name == *p)
				break;
		if (!flags[i].value)
			return gen_error(err, FP_BPFGEN_USAGE, "%s: unrecognized option '-%c' in '%s'",
					 gen, *p, arg);
		*flags[i].value = true;
	}
	return 0;
}

int gen_parse(const char *gen, const struct gen_flag *flags, int argc, char **argv,
	      struct gen_args *out, struct fp_bpfgen_err *err)
{
	bool options = true;
	int i, r;

	out->npos = 0;
	out->pos = calloc((size_t)argc + 1, sizeof(*out->pos));
	if (!out->pos)
		return gen_error(err, FP_BPFGEN_RUNTIME, "out of memory");
	for (i = 0; i < argc; i++) {
		const char *s = argv[i];

		if (options && !strcmp(s, "--")) {
			options = false;
			continue;
		}
		if (!options || s[0] != '-' || !s[1] || looks_negative_number(s)) {
			out->pos[out->npos++] = argv[i];
			continue;
		}
		r = s[1] == '-' ? long_flag(gen, flags, s, err) : short_flags(gen, flags, s, err);
		if (r) {
			free(out->pos);
			out->pos = NULL;
			return r;
		}
	}
	return 0;
}

int fp_bpfgen__generate(const struct fp_bpfgen_opts *o, int argc, char **argv,
			struct fp_bpfgen_out *out, struct fp_bpfgen_err *err)
{
	const char *msg;
	size_t i;
	int r;

	memset(out, 0, sizeof(*out));
	memset(err, 0, sizeof(*err));
	if (argc < 1 || !argv[0])
		return gen_error(err, FP_BPFGEN_USAGE, "no generator TYPE given");
	for (i = 0; i < N_GENERATORS; i++)
		if (!strcmp(argv[0], generators[i].name))
			break;
	if (i == N_GENERATORS)
		return gen_error(err, FP_BPFGEN_USAGE,
				 "unknown generator '%s' (choose from dns, dns_validate, p0f, "
				 "rule, suffix, tcpdump)", argv[0]);
	out->casm = fp_casm__new();
	if (!out->casm)
		return gen_error(err, FP_BPFGEN_RUNTIME, "out of memory");
	r = generators[i].fn(o, argc, argv, out->casm, err);
	if (!r) {
		r = fp_casm__resolve(out->casm, &out->prog);
		if (r) {
			fp_casm__error(out->casm, &msg);
			if (r == -ENOMEM)
				gen_error(err, FP_BPFGEN_RUNTIME, "%s: out of memory", argv[0]);
			else
				gen_error(err, FP_BPFGEN_USAGE, "%s: %s", argv[0],
					  msg ? msg : "cannot build the program");
		}
	}
	if (r)
		fp_bpfgen_out__free(out);
	return r;
}

void fp_bpfgen_out__free(struct fp_bpfgen_out *out)
{
	if (!out)
		return;
	fp_casm__free(out->casm);
	fp_cbpf__free(&out->prog);
	out->casm = NULL;
}
