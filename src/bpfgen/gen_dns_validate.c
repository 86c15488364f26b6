// SPDX-License-Identifier: BSD-2-Clause
/*
 * `bpfgen dns_validate [-s|--strict]`: matches malformed DNS requests, in
 * the layout of Cloudflare's bpfgen, with two of its bugs fixed:
 *  - the packet's real length is checked before any DNS field is read, so
 *    a packet whose DNS header (or minimal question) is cut short matches
 *    as malformed; the reference's loads ran off the end, which makes a
 *    cBPF program return 0, so such packets were judged valid;
 *  - the non-strict flag mask allows RA (bit 7) as documented; the
 *    reference cleared bit 9 (TC) instead, so it passed truncated-flagged
 *    queries and refused RIPE Atlas' RA ones.
 */
#include "bpfgen/bpfgen_internal.h"

#include <stdlib.h>

#include <linux/filter.h>

static const char validate_help[] =
	"usage: fastpath bpfgen dns_validate -- [-h] [-s]\n"
	"\n"
	"Matches malformed DNS requests, by general sanity, not by name. A\n"
	"request is well formed when:\n"
	"  - the packet holds at least 12 + 9 bytes of DNS (header and the\n"
	"    shortest question, 'a.b'), and the UDP length says so too;\n"
	"  - the flags are clear but for CD, AD and Z (and, unless --strict,\n"
	"    RD and RA: RIPE Atlas probes send RA);\n"
	"  - qdcount is 1, ancount and nscount 0, arcount 0 or 1.\n"
	"\n"
	"options:\n"
	"  -h, --help     show this help\n"
	"  -s, --strict   refuse RD and RA too\n";

#define DNS_MIN_UDP (8 + 12 + 9) /* UDP header + DNS header + question "a.b" */

int fp_bpfgen_dns_validate(const struct fp_bpfgen_opts *o, int argc, char **argv,
			   struct fp_casm *a, struct fp_bpfgen_err *err)
{
	bool strict = false;
	const struct gen_flag flags[] = { { 's', "strict", &strict }, { 0, NULL, NULL } };
	struct gen_args args;
	uint32_t mask = 0xffff;
	int match, r;

	r = gen_parse("dns_validate", flags, argc - 1, argv + 1, &args, err);
	if (r) {
		err->help = validate_help;
		return r;
	}
	err->usage = "fastpath bpfgen dns_validate -- [-s]";
	if (args.npos) {
		r = gen_error(err, FP_BPFGEN_USAGE, "dns_validate: unexpected argument '%s'",
			      args.pos[0]);
		free(args.pos);
		return r;
	}
	free(args.pos);

	match = fp_casm__label(a, "match");
	if (!o->inet6) {
		fp_casm__op(a, BPF_LD | BPF_IMM, o->l3_off, FP_K_DEC);
		fp_casm__op(a, BPF_LDX | BPF_B | BPF_MSH, o->l3_off, FP_K_DEC);
		fp_casm__op(a, BPF_ALU | BPF_ADD | BPF_X, 0, FP_K_DEC);
	} else {
		/* as the reference: UDP right after the 40-byte fixed header */
		fp_casm__op(a, BPF_LD | BPF_IMM, o->l3_off + 40, FP_K_DEC);
	}
	fp_casm__op(a, BPF_MISC | BPF_TAX, 0, FP_K_DEC);
	fp_casm__text(a, "    ; x points to start of UDP header");
	fp_casm__text(a, "    ; the packet must hold the UDP header, the DNS header and");
	fp_casm__text(a, "    ; the shortest question (a.b): %d bytes", DNS_MIN_UDP);
	fp_casm__op(a, BPF_LD | BPF_W | BPF_LEN, 0, FP_K_DEC);
	fp_casm__op(a, BPF_ALU | BPF_SUB | BPF_X, 0, FP_K_DEC);
	fp_casm__jmp(a, BPF_JMP | BPF_JGE | BPF_K, DNS_MIN_UDP, FP_K_DEC, FP_LBL_NEXT, match);
	fp_casm__text(a, "    ; load udp header + payload length");
	fp_casm__op(a, BPF_LD | BPF_H | BPF_IND, 4, FP_K_DEC);
	fp_casm__text(a, "    ; valid udp payload length must be > 12 + 9 (assuming a.b query)");
	fp_casm__jmp(a, BPF_JMP | BPF_JGE | BPF_K, DNS_MIN_UDP, FP_K_DEC, FP_LBL_NEXT, match);
	fp_casm__text(a, "%s", "");
	fp_casm__op(a, BPF_MISC | BPF_TXA, 0, FP_K_DEC);
	fp_casm__op(a, BPF_ALU | BPF_ADD | BPF_K, 8, FP_K_DEC);
	fp_casm__op(a, BPF_MISC | BPF_TAX, 0, FP_K_DEC);
	fp_casm__text(a, "    ; x points to start of DNS");
	fp_casm__text(a, "%s", "");

	fp_casm__text(a, "    ; allow only flags:");
	fp_casm__text(a, "    ;   4: checking_disabled");
	fp_casm__text(a, "    ;   5: authenticated_data");
	fp_casm__text(a, "    ;   6: zflag");
	mask &= ~((1u << 4) | (1u << 5) | (1u << 6));
	if (!strict) {
		fp_casm__text(a, "    ;   7: recursion_available");
		fp_casm__text(a, "    ;   8: recursion_desired");
		mask &= ~((1u << 7) | (1u << 8));
	}
	fp_casm__op(a, BPF_LD | BPF_H | BPF_IND, 2, FP_K_DEC);
	fp_casm__note(a, "opcode = 0, rdcode = 0 etc");
	fp_casm__op(a, BPF_ALU | BPF_AND | BPF_K, mask, FP_K_HEX4);
	fp_casm__jmp(a, BPF_JMP | BPF_JEQ | BPF_K, 0, FP_K_DEC, FP_LBL_NEXT, match);
	fp_casm__text(a, "%s", "");
	fp_casm__op(a, BPF_LD | BPF_H | BPF_IND, 4, FP_K_DEC);
	fp_casm__note(a, "qdcount must be 1");
	fp_casm__jmp(a, BPF_JMP | BPF_JEQ | BPF_K, 1, FP_K_HEX, FP_LBL_NEXT, match);
	fp_casm__op(a, BPF_LD | BPF_W | BPF_IND, 6, FP_K_DEC);
	fp_casm__note(a, "ancount and nscount must be 0");
	fp_casm__jmp(a, BPF_JMP | BPF_JEQ | BPF_K, 0, FP_K_HEX, FP_LBL_NEXT, match);
	fp_casm__op(a, BPF_LD | BPF_H | BPF_IND, 10, FP_K_DEC);
	fp_casm__note(a, "arcount must be 0 or 1");
	fp_casm__jmp(a, BPF_JMP | BPF_JGT | BPF_K, 1, FP_K_HEX, match, FP_LBL_NEXT);
	fp_casm__op(a, BPF_RET | BPF_K, ret_nomatch(o), FP_K_DEC);
	fp_casm__text(a, "%s", "");
	fp_casm__place(a, match);
	fp_casm__op(a, BPF_RET | BPF_K, ret_match(o), FP_K_DEC);
	return 0;
}
