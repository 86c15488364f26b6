// fuzz-sources: src/bpfgen/bpfgen.c src/bpfgen/cbpf.c src/bpfgen/cbpf_check.c src/bpfgen/cbpf_print.c src/bpfgen/dns_pattern.c src/bpfgen/gen_dns.c src/bpfgen/gen_dns_validate.c src/bpfgen/gen_suffix.c src/bpfgen/gen_tcpdump.c src/bpfgen/gen_p0f.c src/bpfgen/p0f.c src/bpfgen/gen_rule.c src/bpfgen/gen_rule_emit.c src/bpfgen/gen_rule_ip6.c src/bpfgen/gen_rule_dns.c src/rules/lexer.c src/rules/values.c src/rules/parse.c src/rules/ruleset.c src/rules/format.c
/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer over bpfgen's pattern parsers and code generators: any input
 * either fails cleanly (a usage error with a message) or yields a program
 * that passes the kernel's checks (fp_cbpf__check, equal to
 * bpf_check_classic) and libpcap's bpf_validate(), and that runs over the
 * input itself as a packet without fault. Assembly printing runs too.
 *
 * Input: byte 0 picks the generator and options, the rest is split at
 * '\n' into its parameters. tcpdump and p0f-through-libpcap are left out
 * (libpcap's own parser is not ours to fuzz); the p0f signature translator
 * is fuzzed alone.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "bpfgen/bpfgen_internal.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)
#define MAXW 24

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const gens[] = { "dns", "dns", "dns_validate", "suffix" };
	struct fp_bpfgen_opts o = { 0 };
	struct fp_bpfgen_out out;
	struct fp_bpfgen_err err;
	char *buf, *argv[MAXW + 1], *p;
	int argc = 0, r;
	uint8_t sel;

	if (size < 1 || size > 4096)
		return 0;
	sel = data[0];
	buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = 0;

	if ((sel & 7) == 7) { /* the p0f translator alone */
		char *expr, *doc, msg[256];

		r = fp_p0f__to_expr(buf, &expr, &doc, msg, sizeof(msg));
		CHECK(r == 0 || (r < 0 && msg[0]));
		if (!r)
			CHECK(expr && doc && !strncmp(expr, "ip", 2));
		free(expr);
		free(doc);
		free(buf);
		return 0;
	}
	argv[argc++] = (char *)gens[sel & 3];
	o.inet6 = sel & 0x10;
	o.negate = sel & 0x20;
	o.l3_off = (sel & 0x40) ? 14 : 0;
	for (p = buf; argc < MAXW;) {
		char *nl = strchr(p, '\n');

		argv[argc++] = p;
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
	}
	argv[argc] = NULL;

	r = fp_bpfgen__generate(&o, argc, argv, &out, &err);
	if (r) {
		CHECK(err.kind != FP_BPFGEN_OK);
		CHECK(err.kind == FP_BPFGEN_HELP || err.msg[0]);
	} else {
		size_t bad = 0;
		char *s = NULL;
		size_t n = 0;
		FILE *f;

		CHECK(fp_cbpf__check(&out.prog, &bad) == 0);
		CHECK(bpf_validate((const struct bpf_insn *)out.prog.insns, (int)out.prog.len));
		(void)bpf_filter((const struct bpf_insn *)out.prog.insns, data, (unsigned)size,
				 (unsigned)size);
		f = open_memstream(&s, &n);
		CHECK(f);
		CHECK(fp_casm__print(out.casm, f) == 0);
		CHECK(fp_cbpf__print(&out.prog, f) == 0);
		fclose(f);
		free(s);
		fp_bpfgen_out__free(&out);
	}
	free(buf);
	return 0;
}
