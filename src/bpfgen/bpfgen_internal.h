/* SPDX-License-Identifier: BSD-2-Clause */
/* What the generators share (bpfgen.c) and their entry points. */
#ifndef FP_BPFGEN_INTERNAL_H
#define FP_BPFGEN_INTERNAL_H

#include "bpfgen/bpfgen.h"

/* Return values of the generated programs, as the reference's. */
#define FP_BPFGEN_RET_MATCH 65535u

static inline unsigned ret_match(const struct fp_bpfgen_opts *o)
{
	return o->negate ? 0 : FP_BPFGEN_RET_MATCH;
}

static inline unsigned ret_nomatch(const struct fp_bpfgen_opts *o)
{
	return o->negate ? FP_BPFGEN_RET_MATCH : 0;
}

/* A boolean option of a generator (argparse store_true). */
struct gen_flag {
	char short_name;       /* 'i', or 0 */
	const char *long_name; /* "ignorecase" */
	bool *value;
};

struct gen_args {
	int npos;
	char **pos; /* the positional parameters (pointers into argv), malloc'd */
};

/*
 * Parses a generator's parameters as argparse does: flags anywhere, long
 * flags by unique prefix, short flags combined (-is), `--` ends options,
 * `-h`/`--help` asks for help. Returns 0, or -EINVAL with err filled (USAGE
 * naming the bad argument, or HELP), or -ENOMEM.
 */
int gen_parse(const char *gen, const struct gen_flag *flags, int argc, char **argv,
	      struct gen_args *out, struct fp_bpfgen_err *err);

/* Fills err (kind, printf-style message); returns -EINVAL (USAGE/HELP) or -ENOMEM. */
int gen_error(struct fp_bpfgen_err *err, enum fp_bpfgen_errkind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Generators: argv[0] is the type, the rest its parameters; code goes into a. */
int fp_bpfgen_dns(const struct fp_bpfgen_opts *o, int argc, char **argv,
		  struct fp_casm *a, struct fp_bpfgen_err *err);
int fp_bpfgen_dns_validate(const struct fp_bpfgen_opts *o, int argc, char **argv,
			   struct fp_casm *a, struct fp_bpfgen_err *err);
int fp_bpfgen_suffix(const struct fp_bpfgen_opts *o, int argc, char **argv,
		     struct fp_casm *a, struct fp_bpfgen_err *err);
int fp_bpfgen_tcpdump(const struct fp_bpfgen_opts *o, int argc, char **argv,
		      struct fp_casm *a, struct fp_bpfgen_err *err);
int fp_bpfgen_p0f(const struct fp_bpfgen_opts *o, int argc, char **argv,
		  struct fp_casm *a, struct fp_bpfgen_err *err);

/* Compiles a tcpdump expression for the link type of o->l3_off and appends
 * it to a in the reference's layout (header comments, lNNN labels). */
int fp_bpfgen_tcpdump_expr(const struct fp_bpfgen_opts *o, const char *expr,
			   struct fp_casm *a, struct fp_bpfgen_err *err);

/* The p0f signature as a tcpdump expression and its one-line-per-test
 * documentation (both malloc'd). Returns 0 or -EINVAL with msg filled. */
int fp_p0f__to_expr(const char *sig, char **expr, char **doc, char *msg, size_t msglen);

#endif /* FP_BPFGEN_INTERNAL_H */
