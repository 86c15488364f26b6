// SPDX-License-Identifier: BSD-2-Clause
/*
 * `bpfgen p0f SIG`: a p0f v3 TCP signature (p0f.c) compiled as a tcpdump
 * expression (gen_tcpdump.c), preceded by one comment line per test.
 */
#include "bpfgen/bpfgen_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char p0f_help[] =
	"usage: fastpath bpfgen p0f -- [-h] SIGNATURE\n"
	"\n"
	"Matches TCP packets that fit a p0f v3 signature,\n"
	"ver:ittl:olen:mss:wsize,scale:olayout:quirks:pclass, for example\n"
	"  4:64:0:*:mss*10,6:mss,sok,ts,nop,ws:df,id+:0\n"
	"The signature becomes a pcap-filter expression (shown with -s) that is\n"
	"compiled as `bpfgen tcpdump` does.\n"
	"\n"
	"options:\n"
	"  -h, --help     show this help\n";

int fp_bpfgen_p0f(const struct fp_bpfgen_opts *o, int argc, char **argv,
		  struct fp_casm *a, struct fp_bpfgen_err *err)
{
	const struct gen_flag flags[] = { { 0, NULL, NULL } };
	char *expr = NULL, *doc = NULL, *line, *save = NULL, msg[400];
	struct gen_args args;
	int r;

	r = gen_parse("p0f", flags, argc - 1, argv + 1, &args, err);
	if (r) {
		err->help = p0f_help;
		return r;
	}
	err->usage = "fastpath bpfgen p0f -- SIGNATURE";
	if (args.npos != 1) {
		r = gen_error(err, FP_BPFGEN_USAGE, "p0f: give exactly one SIGNATURE (%d given)",
			      args.npos);
		goto out;
	}
	r = fp_p0f__to_expr(args.pos[0], &expr, &doc, msg, sizeof(msg));
	if (r) {
		r = gen_error(err, r == -ENOMEM ? FP_BPFGEN_RUNTIME : FP_BPFGEN_USAGE, "%s",
			      r == -ENOMEM ? "out of memory" : msg);
		goto out;
	}
	for (line = strtok_r(doc, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		fp_casm__text(a, "; %s", line);
	fp_casm__text(a, ";");
	r = fp_bpfgen_tcpdump_expr(o, expr, a, err);
out:
	free(expr);
	free(doc);
	free(args.pos);
	return r;
}
