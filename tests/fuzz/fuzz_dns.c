// fuzz-sources: src/rules/match_ref.c src/rules/dns.c
/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer over the DNS question decoder (fp_dns__question) and the whole
 * reference parser (fp_ref__parse, fp_ref__rule_matches): never a read out
 * of bounds (ASan), never undefined behaviour (UBSan), and the invariants
 * of struct fp_ref_pkt always hold. The first input byte picks the target.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules/match_ref.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/* A decoded name: labels of 1..63 bytes, lowercase, ending in the root
 * exactly at name_len, at most 255 bytes. */
static void check_name(const uint8_t *name, uint8_t len)
{
	size_t off = 0;

	CHECK(len >= 1 && len <= FP_DNS_NAME_MAX);
	CHECK(name[len - 1] == 0);
	while (name[off] != 0) {
		CHECK(name[off] <= 63);
		for (size_t i = 1; i <= name[off]; i++)
			CHECK(!(name[off + i] >= 'A' && name[off + i] <= 'Z'));
		off += 1 + (size_t)name[off];
		CHECK(off < len);
	}
	CHECK(off == (size_t)len - 1);
}

static void fuzz_question(const uint8_t *data, size_t size)
{
	uint8_t name[FP_DNS_NAME_MAX];
	uint8_t len = 0;
	uint16_t qtype = 0;

	if (fp_dns__question(data, size, name, &len, &qtype) != 0)
		return;
	check_name(name, len);
	CHECK(size >= 12 + (size_t)len + 4);
	CHECK(!(data[2] & 0x80) && (data[4] | data[5]));
	CHECK(qtype == (data[12 + len] << 8 | data[13 + len]));
}

/* A few rules touching every term, so rule_matches runs on every field. */
static void fuzz_rules(const struct fp_ref_pkt *p, const uint8_t *data, size_t size)
{
	struct fp_rule r;
	uint8_t sel = size > 1 ? data[1] : 0;

	memset(&r, 0, sizeof(r));
	r.terms = 0x1fff & ((uint32_t)sel << 5 | sel);
	r.l3 = sel & 1 ? 4 : 6;
	r.proto = 17;
	r.src.family = r.dst.family = r.l3;
	r.src.plen = sel % 33;
	r.dst.plen = (uint8_t)(r.l3 == 4 ? 32 : 128);
	memcpy(r.dst.addr, p->dst, 16);
	if (r.l3 == 4)
		memset(r.dst.addr + 4, 0, 12);
	r.sport.n = r.dport.n = 1;
	r.sport.r[0] = (struct fp_range){ 0, 1024 };
	r.dport.r[0] = (struct fp_range){ 53, 53 };
	r.flags_mask = sel;
	r.flags_val = sel & 0x12;
	r.len = (struct fp_range){ 0, 1500 };
	r.ttl = (struct fp_range){ 1, 64 };
	r.vlan = 100;
	r.qname.wildcard = sel & 2;
	r.qname.wire_len = 1; /* the root: "*." or "." */
	r.qtype = 1;
	(void)fp_ref__rule_matches(&r, p);
	if (p->has_dns && p->qname_len > 1) {
		r.terms = FP_T_QNAME;
		r.qname.wildcard = true;
		CHECK(fp_ref__rule_matches(&r, p)); /* "*." matches every name but the root */
		r.qname.wildcard = false;
		r.qname.wire_len = p->qname_len;
		memcpy(r.qname.wire, p->qname, p->qname_len);
		CHECK(fp_ref__rule_matches(&r, p)); /* a name matches itself */
	}
}

static void fuzz_frame(const uint8_t *data, size_t size)
{
	struct fp_ref_pkt p;

	fp_ref__parse(data, size, &p);
	CHECK(p.n_vlan <= 2);
	CHECK(p.l3 == 0 || p.l3 == 4 || p.l3 == 6);
	CHECK(!p.proto_known || p.l3);
	CHECK(!p.frag || p.l3);
	CHECK(!p.has_ports || (p.proto_known && (p.proto == 6 || p.proto == 17)));
	CHECK(!p.has_tcp_flags || (p.has_ports && p.proto == 6));
	CHECK(!p.has_dns || (p.has_ports && p.proto == 17 && p.dport == 53));
	if (p.has_dns)
		check_name(p.qname, p.qname_len);
	fuzz_rules(&p, data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		fuzz_question(data + 1, size - 1);
	else
		fuzz_frame(data + 1, size - 1);
	return 0;
}
