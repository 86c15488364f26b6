// SPDX-License-Identifier: BSD-2-Clause
/*
 * `bpfgen tcpdump EXPR...` and the tail of `bpfgen p0f`: a pcap-filter
 * expression compiled by libpcap's pcap_compile() for the link type the L3
 * offset implies, as Cloudflare's bpfgen does through `tcpdump -d`:
 *   -o 0   raw IPv4 (LINKTYPE_IPV4), or raw IPv6 with -6 (LINKTYPE_IPV6)
 *   -o 14  Ethernet;  -o 16  Linux cooked (SLL);  -o 18  Ethernet with
 *          "vlan and (EXPR)"
 * -n compiles "not (EXPR)". The snap length is the reference's (65536),
 * so accepted packets return 65536 as with tcpdump.
 */
#include "bpfgen/bpfgen_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

static const char tcpdump_help[] =
	"usage: fastpath bpfgen tcpdump -- [-h] EXPR [EXPR ...]\n"
	"\n"
	"Compiles a pcap-filter(7) expression (the words are joined by spaces)\n"
	"with libpcap for the link type of -o: 0 raw IPv4 (raw IPv6 with -6),\n"
	"14 Ethernet, 16 Linux cooked capture, 18 Ethernet with a VLAN tag.\n"
	"\n"
	"options:\n"
	"  -h, --help     show this help\n";

#define TCPDUMP_SNAPLEN 65536

int fp_bpfgen_tcpdump_expr(const struct fp_bpfgen_opts *o, const char *expr,
			   struct fp_casm *a, struct fp_bpfgen_err *err)
{
	struct bpf_program prog = { 0 };
	char *full = NULL, *tmp = NULL;
	bool vlan = false;
	int dlt, r;
	pcap_t *p;

	switch (o->l3_off) {
	case 0:  dlt = o->inet6 ? DLT_IPV6 : DLT_IPV4; break;
	case 14: dlt = DLT_EN10MB; break;
	case 16: dlt = DLT_LINUX_SLL; break;
	case 18: dlt = DLT_EN10MB; vlan = true; break;
	default:
		return gen_error(err, FP_BPFGEN_USAGE,
				 "tcpdump: offset %u has no link type (use 0, 14, 16 or 18)",
				 o->l3_off);
	}
	if (!(full = strdup(expr)))
		goto nomem;
	if (o->negate) {
		if (asprintf(&tmp, "not (%s)", full) < 0)
			goto nomem;
		free(full);
		full = tmp;
	}
	if (vlan) {
		if (asprintf(&tmp, "vlan and (%s)", full) < 0)
			goto nomem;
		free(full);
		full = tmp;
	}
	p = pcap_open_dead(dlt, TCPDUMP_SNAPLEN);
	if (!p)
		goto nomem;
	/* optimized, netmask 0: what `tcpdump -d -r FILE` compiles */
	if (pcap_compile(p, &prog, full, 1, 0) < 0) {
		r = gen_error(err, FP_BPFGEN_USAGE, "tcpdump: cannot compile '%s': %s", full,
			      pcap_geterr(p));
		pcap_close(p);
		free(full);
		return r;
	}
	pcap_close(p);
	fp_casm__text(a, "; ipver=%d", o->inet6 ? 6 : 4);
	fp_casm__text(a, "; %s", full);
	fp_casm__text(a, "%s", "");
	r = fp_casm__import(a, (const struct fp_cbpf_insn *)prog.bf_insns, prog.bf_len);
	pcap_freecode(&prog);
	free(full);
	if (r)
		return gen_error(err, FP_BPFGEN_RUNTIME, "tcpdump: libpcap returned a bad program");
	return 0;
nomem:
	free(full);
	return gen_error(err, FP_BPFGEN_RUNTIME, "out of memory");
}

int fp_bpfgen_tcpdump(const struct fp_bpfgen_opts *o, int argc, char **argv,
		      struct fp_casm *a, struct fp_bpfgen_err *err)
{
	const struct gen_flag flags[] = { { 0, NULL, NULL } };
	struct gen_args args;
	size_t len = 1;
	char *expr;
	int i, r;

	r = gen_parse("tcpdump", flags, argc - 1, argv + 1, &args, err);
	if (r) {
		err->help = tcpdump_help;
		return r;
	}
	err->usage = "fastpath bpfgen tcpdump -- EXPR [EXPR ...]";
	if (args.npos == 0) {
		free(args.pos);
		return gen_error(err, FP_BPFGEN_USAGE, "tcpdump: no EXPR given");
	}
	for (i = 0; i < args.npos; i++)
		len += strlen(args.pos[i]) + 1;
	expr = calloc(1, len);
	if (!expr) {
		free(args.pos);
		return gen_error(err, FP_BPFGEN_RUNTIME, "out of memory");
	}
	for (i = 0; i < args.npos; i++) {
		if (i)
			strcat(expr, " ");
		strcat(expr, args.pos[i]);
	}
	r = fp_bpfgen_tcpdump_expr(o, expr, a, err);
	free(expr);
	free(args.pos);
	return r;
}
