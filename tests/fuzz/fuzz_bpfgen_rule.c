// fuzz-sources: src/bpfgen/bpfgen.c src/bpfgen/cbpf.c src/bpfgen/cbpf_check.c src/bpfgen/cbpf_print.c src/bpfgen/dns_pattern.c src/bpfgen/gen_dns.c src/bpfgen/gen_dns_validate.c src/bpfgen/gen_suffix.c src/bpfgen/gen_tcpdump.c src/bpfgen/gen_p0f.c src/bpfgen/p0f.c src/bpfgen/gen_rule.c src/bpfgen/gen_rule_emit.c src/bpfgen/gen_rule_ip6.c src/bpfgen/gen_rule_dns.c src/rules/lexer.c src/rules/values.c src/rules/parse.c src/rules/ruleset.c src/rules/format.c
/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer over `bpfgen rule`: any rule text either fails cleanly (a
 * message) or lowers to a program that passes fp_cbpf__check (the kernel's
 * bpf_check_classic) and libpcap's bpf_validate(), fits BPF_MAXINSNS, and
 * runs over the input itself as a packet without fault; assembly prints.
 *
 * Byte 0 picks: bit 0 offset 14 (else 0), bit 1 -n, bit 2 the rest is a
 * raw struct fp_rule (garbage fields: bad families, prefix lengths, port
 * counts, qname bytes) instead of rule text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "bpfgen/bpfgen.h"
#include "rules/rule.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fp_bpfgen_opts o = { 0 };
	struct fp_bpfgen_out out;
	struct fp_bpfgen_err err;
	struct fp_rule rule;
	int r;

	if (size < 1 || size > 4096)
		return 0;
	o.l3_off = data[0] & 1 ? 14 : 0;
	o.negate = data[0] & 2;
	memset(&rule, 0, sizeof(rule));
	if (data[0] & 4) {
		memcpy(&rule, data + 1, size - 1 < sizeof(rule) ? size - 1 : sizeof(rule));
		rule.action = FP_ACT_DROP;
		rule.by = FP_BY_ALL;
		rule.id[sizeof(rule.id) - 1] = 0;
		rule.comment[sizeof(rule.comment) - 1] = 0;
		{
			/* a bool holds 0 or 1: any other byte is UB to load (the
			 * harness's garbage, not a state the parser makes) */
			uint8_t w;

			memcpy(&w, &rule.qname.wildcard, 1);
			rule.qname.wildcard = w & 1;
		}
		r = 0;
	} else {
		char *text = malloc(size);

		if (!text)
			return 0;
		memcpy(text, data + 1, size - 1);
		text[size - 1] = 0;
		memset(&err, 0, sizeof(err));
		r = fp_bpfgen__rule_parse(text, &rule, &err);
		free(text);
		if (r) {
			CHECK(err.msg[0]);
			return 0;
		}
	}
	r = fp_bpfgen__rule(&o, &rule, &out, &err);
	if (r) {
		CHECK(err.kind != FP_BPFGEN_OK && err.msg[0]);
	} else {
		size_t bad = 0, n = 0;
		char *s = NULL;
		FILE *f;

		CHECK(out.prog.len >= 1 && out.prog.len <= FP_CBPF_MAXINSNS);
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
	return 0;
}
