/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fastpath bpfgen: classic BPF generators compatible with Cloudflare's
 * bpfgen (bpftools): dns, dns_validate, suffix, tcpdump, p0f; and `rule`,
 * the fastpath rule model's terms lowered to classic BPF.
 *
 *   struct fp_bpfgen_opts o = { .l3_off = 0 };
 *   struct fp_bpfgen_out out;
 *   struct fp_bpfgen_err err;
 *   char *args[] = { "dns", "*.example.com" };
 *   if (fp_bpfgen__generate(&o, 2, args, &out, &err) == 0) {
 *           fp_cbpf__print(&out.prog, stdout);     // 20,177 0 0 0,...
 *           fp_bpfgen_out__free(&out);
 *   }
 *
 * argv[0] is the generator (TYPE), argv[1..] its parameters, which it
 * parses itself (as the reference's generators do: `-i`, `--strict`,
 * `--help`, `--`). Nothing here prints or exits: errors and the
 * generators' help text come back in struct fp_bpfgen_err.
 */
#ifndef FP_BPFGEN_BPFGEN_H
#define FP_BPFGEN_BPFGEN_H

#include <stdbool.h>

#include "bpfgen/cbpf.h"

struct fp_bpfgen_opts {
	unsigned l3_off; /* -o: offset of the L3 header (0 xt_bpf; 14, 16, 18) */
	bool inet6;      /* -6 */
	bool negate;     /* -n: swap the match and no-match return values */
};

enum fp_bpfgen_errkind {
	FP_BPFGEN_OK = 0,
	FP_BPFGEN_USAGE,   /* bad arguments: exit 2 */
	FP_BPFGEN_HELP,    /* --help given to the generator: msg holds its help, exit 0 */
	FP_BPFGEN_RUNTIME, /* out of memory, libpcap failure: exit 1 */
};

struct fp_bpfgen_err {
	enum fp_bpfgen_errkind kind;
	char msg[512];        /* what and where ("dns: label 'xx...' is 70 bytes; ...") */
	const char *help;     /* HELP: the generator's help text (static) */
	const char *usage;    /* USAGE: the generator's synopsis line (static), or NULL */
};

struct fp_bpfgen_out {
	struct fp_casm *casm; /* the instruction list: fp_casm__print() for -s */
	struct fp_cbpf prog;  /* the resolved program */
};

/* The generator names, NULL-terminated: dns, dns_validate, p0f, rule, suffix, tcpdump. */
extern const char *const fp_bpfgen_types[];

/*
 * Runs generator argv[0] with parameters argv[1..argc-1]. Returns 0 and
 * fills out, or a negative errno with err filled: -EINVAL (USAGE or HELP)
 * or another errno (RUNTIME).
 */
int fp_bpfgen__generate(const struct fp_bpfgen_opts *o, int argc, char **argv,
			struct fp_bpfgen_out *out, struct fp_bpfgen_err *err);

void fp_bpfgen_out__free(struct fp_bpfgen_out *out);

/*
 * The rule model (src/rules/rule.h) to classic BPF: a program returning
 * non-zero exactly on the packets the rule's terms match, as the
 * reference matcher (src/rules/match_ref.h) says; the action and options
 * are ignored. o->l3_off is 0 (the packet starts at the IP header, as
 * xt_bpf sees it; the family from the version nibble) or 14 (Ethernet);
 * o->negate swaps the return values; o->inet6 is refused. Returns 0 and
 * fills out, or -EINVAL (USAGE: e.g. vlan at offset 0) / -ENOMEM.
 */
struct fp_rule;
int fp_bpfgen__rule(const struct fp_bpfgen_opts *o, const struct fp_rule *rule,
		    struct fp_bpfgen_out *out, struct fp_bpfgen_err *err);

/* Parses rule text for fp_bpfgen__rule: an action is optional (the terms
 * alone will do). 0, or -EINVAL with err->msg "rule: column N: ...". */
int fp_bpfgen__rule_parse(const char *text, struct fp_rule *rule, struct fp_bpfgen_err *err);

/*
 * The dns generator's pattern language, exposed for tests and fuzzing:
 * parses one pattern (with -i if icase) into a list of match steps.
 */
struct fp_dns_step {
	bool star;          /* a `*` or `*{min-max}` label */
	unsigned min, max;  /* star: label length bounds after clamping to 1..63 */
	bool ranged;        /* star: written with {min-max} */
	unsigned umin, umax;/* star, ranged: as written */
	unsigned n;         /* literal: number of bytes */
	unsigned char val[256];  /* literal: bytes as compared (after the mask) */
	unsigned char mask[256]; /* literal: bits ignored (0x20 letters with -i, 0xff '?') */
	unsigned char raw[256];  /* literal: the bytes as written */
	int freelen;        /* literal: offset of a free-suffix length byte, -1 none */
	unsigned freemin;   /* literal: that label's minimum length */
};

struct fp_dns_pattern {
	unsigned nsteps;
	struct fp_dns_step *steps;
};

int fp_dns_pattern__parse(const char *text, bool icase, struct fp_dns_pattern *p,
			  char *err, size_t errlen);
void fp_dns_pattern__free(struct fp_dns_pattern *p);

#endif /* FP_BPFGEN_BPFGEN_H */
