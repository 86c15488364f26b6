/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The filter compiler's tuple masks, address prefilter and flat hash tables
 * (compile_masks.c, compile_flat.c)
 * on hand-written rule sets: which tuples each class leaves, which /16s
 * probe which prefix lengths, what class the short prefixes give, and the
 * DNS depth masks. The differential test checks the stage end to end; this
 * pins the tables themselves.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/port_grid.h"
#include "filter/compile.h"
#include "rules/rule.h"

static void build(const char *text, struct fp_flt_image *img)
{
	struct fp_ruleset set;
	struct fp_diags d = { 0 };
	char err[256];

	assert_int_equal(fp_ruleset__parse(text, strlen(text), &set, &d), 0);
	assert_int_equal(fp_flt_image__build(&set, img, err, sizeof(err)), 0);
	fp_ruleset__free(&set);
	fp_diags__free(&d);
}

static uint32_t pre_idx(unsigned tbl, unsigned a, unsigned b)
{
	return tbl << 16 | a << 8 | b;
}

/* The class the image gives an exact address node (tbl, plen, a.b.c.d). */
static uint32_t node_cls(const struct fp_flt_image *img, unsigned tbl, unsigned plen,
			 const uint8_t v4[4])
{
	for (size_t i = 0; i < img->n_addr; i++)
		if (img->addr[i].tbl == tbl && img->addr[i].plen == plen &&
		    !memcmp(img->addr[i].addr, v4, 4))
			return img->addr_cls[i];
	fail_msg("no node /%u", plen);
	return 0;
}

static void test_prefilter(void **state)
{
	struct fp_flt_image img;
	uint32_t c8, c16, c24;

	(void)state;
	build("drop src 10.0.0.0/8\n"
	      "drop src 10.1.0.0/16\n"
	      "drop src 10.1.2.0/24\n"
	      "drop src 10.1.2.3/32\n"
	      "drop dst 10.9.9.9/32\n", &img);
	c8 = node_cls(&img, FP_ADDR_SRC4, 8, (const uint8_t[]){ 10, 0, 0, 0 });
	c16 = node_cls(&img, FP_ADDR_SRC4, 16, (const uint8_t[]){ 10, 1, 0, 0 });
	c24 = node_cls(&img, FP_ADDR_SRC4, 24, (const uint8_t[]){ 10, 1, 2, 0 });
	(void)c24;
	/* src lengths, longest first: 32, 24, 16, 8 -> indexes 0..3 */
	assert_int_equal(img.cfg.n_plen[FP_ADDR_SRC4], 4);
	assert_int_equal(img.cfg.plen[FP_ADDR_SRC4][0], 32);
	assert_int_equal(img.cfg.plen[FP_ADDR_SRC4][1], 24);
	/* 10.1/16: its own class, and both longer lengths to probe */
	assert_int_equal(img.pre[pre_idx(0, 10, 1)].cls, c16);
	assert_int_equal(img.pre[pre_idx(0, 10, 1)].probe, 0x3);
	/* elsewhere in 10/8: the /8's class, nothing to probe */
	assert_int_equal(img.pre[pre_idx(0, 10, 0)].cls, c8);
	assert_int_equal(img.pre[pre_idx(0, 10, 255)].cls, c8);
	assert_int_equal(img.pre[pre_idx(0, 10, 255)].probe, 0);
	/* with its class's mask word, so no mask lookup when nothing is probed,
	 * less the src tuple (0), which the entry decides alone: its hit is the
	 * first rule whose prefix holds the address */
	assert_int_equal(img.cfg.tuples[0].fields & ~FP_T_L3, FP_T_SRC);
	assert_int_equal(img.pre[pre_idx(0, 10, 255)].mask, img.cmask[FP_CM_SRC + c8] & ~1ull);
	assert_true(img.cmask[FP_CM_SRC + c8] & 1);
	assert_int_equal(img.pre[pre_idx(0, 10, 255)].hit, FP_FLT_HIT(0, FP_FLT_DROP));
	assert_int_equal(img.pre[pre_idx(0, 10, 1)].hit, FP_FLT_HIT(0, FP_FLT_DROP));
	assert_int_equal(img.pre[pre_idx(0, 11, 0)].hit, FP_FLT_NO_RULE);
	/* outside: nothing */
	assert_int_equal(img.pre[pre_idx(0, 11, 0)].cls, 0);
	assert_int_equal(img.pre[pre_idx(0, 9, 255)].cls, 0);
	/* 10.1/16 holds two longer prefixes: probed, nothing inline */
	assert_int_equal(img.pre[pre_idx(0, 10, 1)].lplen, 0);
	/* the dst table is separate: 10.9/16 holds one longer prefix, kept
	 * inline (no probe), with its class and that class's mask word */
	{
		const struct fp_flt_pre *e = &img.pre[pre_idx(FP_ADDR_DST4, 10, 9)];
		uint32_t c = node_cls(&img, FP_ADDR_DST4, 32, (const uint8_t[]){ 10, 9, 9, 9 });

		assert_int_not_equal(c, 0);
		assert_int_equal(e->probe, 0);
		assert_int_equal(e->cls, 0);
		assert_int_equal(e->lplen, 32);
		assert_int_equal(e->lo, 9 << 8 | 9);
		assert_int_equal(e->lcls, c);
		/* less the dst tuple (1), decided by the entry: rule 4 */
		assert_int_equal(e->lmask, img.cmask[FP_CM_DST + c] & ~2ull);
		assert_true(img.cmask[FP_CM_DST + c] & 2);
		assert_int_equal(e->lhit, FP_FLT_HIT(4, FP_FLT_DROP));
		assert_int_equal(e->hit, FP_FLT_NO_RULE);
	}
	assert_int_equal(img.pre[pre_idx(FP_ADDR_DST4, 10, 1)].probe, 0);
	assert_int_equal(img.pre[pre_idx(FP_ADDR_DST4, 10, 1)].lplen, 0);
	fp_flt_image__free(&img);
}

static void test_prefilter_v6_and_default_route(void **state)
{
	struct fp_flt_image img;
	uint32_t any;

	(void)state;
	build("drop src 0.0.0.0/0\n"
	      "drop src 2001:db8::/32\n"
	      "drop src 2001:db8:1::/48\n", &img);
	any = node_cls(&img, FP_ADDR_SRC4, 0, (const uint8_t[]){ 0, 0, 0, 0 });
	for (unsigned h = 0; h < 65536; h += 4099)
		assert_int_equal(img.pre[pre_idx(0, h >> 8, h & 255)].cls, any);
	/* 2001::/16 probes both v6 lengths (/48 index 0, /32 index 1) */
	assert_int_equal(img.pre[pre_idx(FP_ADDR_SRC6, 0x20, 0x01)].probe, 0x3);
	assert_int_equal(img.pre[pre_idx(FP_ADDR_SRC6, 0x20, 0x02)].probe, 0);
	fp_flt_image__free(&img);
	/* a v6 /16 with one longer prefix is probed: inline is IPv4 only */
	build("drop src 2001:db8:1::/48\n", &img);
	assert_int_equal(img.pre[pre_idx(FP_ADDR_SRC6, 0x20, 0x01)].probe, 0x1);
	assert_int_equal(img.pre[pre_idx(FP_ADDR_SRC6, 0x20, 0x01)].lplen, 0);
	fp_flt_image__free(&img);
}

/*
 * The map's prefilter (img.pre_map, abi.h): every /16 of every table reaches
 * through the bitmap and the index an entry equal to its own, /16s with
 * equal entries share one, and the most common is entry 0, whose /16s
 * have their bit clear, so that a flood from random sources reads little
 * more than a table's bitmap (one 48-byte entry per /16 cost such a flood
 * a TLB and cache miss per source: bench/flood_cost).
 */
static void test_prefilter_packed(void **state)
{
	const struct fp_flt_pre_bits *bits;
	const struct fp_flt_pre_idx *idx;
	struct fp_flt_image img;
	uint32_t n_ent[4] = { 0 }, n_bits[4] = { 0 };

	(void)state;
	build("drop src 0.0.0.0/8\n"
	      "drop src 10.0.0.0/8\n"
	      "drop src 10.1.2.3/32\n"
	      "drop src 10.1.9.0/24\n"
	      "drop src 100.64.7.0/24\n"
	      "pass dst 192.0.2.0/24\n"
	      "drop src 2001:db8:1::/48\n", &img);
	assert_non_null(img.pre_map);
	bits = (const struct fp_flt_pre_bits *)img.pre_map;
	idx = (const struct fp_flt_pre_idx *)(img.pre_map + FP_PRE_BITS_N);
	for (uint32_t i = 0; i < FP_PRE_ADDRS; i++) {
		uint32_t tbl = i >> 16, h = i & 0xffff, n = 0;
		int bit = (bits[i >> 8].w[(h >> 6) & 3] >> (h & 63)) & 1;
		const struct fp_flt_pre *e;

		if (bit)
			n = idx[i >> 4].ent[h & 15];
		if (bit != (idx[i >> 4].ent[h & 15] != 0))
			fail_msg("/16 %u of table %u: bit %d, entry %u", h, tbl, bit,
				 idx[i >> 4].ent[h & 15]);
		e = &img.pre_map[FP_PRE_ENT0 + (tbl << 16) + n];
		if (memcmp(e, &img.pre[i], sizeof(*e)))
			fail_msg("/16 %u of table %u: its packed entry %u differs", h, tbl, n);
		if (n + 1 > n_ent[tbl])
			n_ent[tbl] = n + 1;
		n_bits[tbl] += (uint32_t)bit;
	}
	/* src4: none, 0/8, 10/8, 10.1 (two longer prefixes: probed), 100.64
	 * (one, inline); dst4: none, 192.0; src6: none, 2001:0db8 (probed);
	 * dst6: none. "none" is entry 0, though 0.0 has 0/8's. */
	assert_int_equal(n_ent[FP_ADDR_SRC4], 5);
	assert_int_equal(n_ent[FP_ADDR_DST4], 2);
	assert_int_equal(n_ent[FP_ADDR_SRC6], 2);
	assert_int_equal(n_ent[FP_ADDR_DST6], 1);
	assert_int_equal(img.pre_map[FP_PRE_ENT0].cls, 0);
	assert_int_equal(n_bits[FP_ADDR_SRC4], 256 + 256 + 1);
	assert_int_equal(n_bits[FP_ADDR_DST4], 1);
	assert_int_equal(n_bits[FP_ADDR_DST6], 0);
	fp_flt_image__free(&img);
}

/* /48 v of block b (abi.h FP_PRE_B48) in the image's bitmaps. */
static int b48_bit(const struct fp_flt_image *img, uint32_t b, uint32_t v)
{
	return (int)(img->b48[b * 1024 + v / 64] >> (v & 63) & 1);
}

/*
 * An IPv6 /16 whose prefixes over /32 all lie in one /32 names it and a
 * bitmap of its /48s (fp_flt_pre.w48): the stage then probes the long
 * lengths only for an address in that /32 whose /48's bit is set, and
 * the lengths up to 32 (probe32) otherwise. Two such /32s in a /16:
 * no block, every long length probed as before.
 */
static void test_prefilter_b48(void **state)
{
	struct fp_flt_image img;
	const struct fp_flt_pre *e;
	uint64_t p32;
	unsigned n_set = 0;

	(void)state;
	build("drop src 2001:db8:1::/48\n"
	      "drop src 2001:db8:8000::/33\n"
	      "drop src 2001:db8:5:6::/64\n"
	      "drop src 2001:d00::/24\n"
	      "drop dst 2001:db8:2::/48\n"
	      "drop dst 2001:db9:3::/48\n", &img);
	e = &img.pre[pre_idx(FP_ADDR_SRC6, 0x20, 0x01)];
	assert_int_equal(e->w48, 1);
	assert_int_equal(e->lo, 0x0db8);
	/* plen[] longest first: 64, 48, 33, 24; probe32 keeps the /24's bit */
	assert_int_equal(img.cfg.plen[FP_ADDR_SRC6][3], 24);
	p32 = 1ull << 3;
	assert_int_equal(e->probe, 0xf);
	assert_int_equal(e->probe32, p32);
	for (uint32_t v = 0; v < 65536; v++)
		n_set += (unsigned)b48_bit(&img, 0, v);
	assert_true(b48_bit(&img, 0, 1) && b48_bit(&img, 0, 5) && b48_bit(&img, 0, 0x8000) &&
		    b48_bit(&img, 0, 0xffff));
	assert_false(b48_bit(&img, 0, 0) || b48_bit(&img, 0, 2) || b48_bit(&img, 0, 0x7fff));
	assert_int_equal(n_set, 2 + 32768);
	/* dst: /48s in two /32s of 2001::/16, no block */
	e = &img.pre[pre_idx(FP_ADDR_DST6, 0x20, 0x01)];
	assert_int_equal(e->w48, 0);
	assert_int_equal(e->probe, 1);
	for (uint32_t v = 0; v < 65536; v++)
		assert_false(b48_bit(&img, 1, v));
	/* the map holds block 0 after the entries, 256 bits an element */
	{
		const struct fp_flt_pre_bits *m =
			(const struct fp_flt_pre_bits *)(img.pre_map + FP_PRE_B48);

		assert_int_equal(m[0].w[0], 1ull << 1 | 1ull << 5);
		assert_int_equal(m[0x80].w[0], ~0ull);
		assert_int_equal(m[0x7f].w[3], 0);
	}
	/* IPv4 keeps its inline prefix: no block */
	fp_flt_image__free(&img);
	build("drop src 10.1.2.0/24\n", &img);
	assert_int_equal(img.pre[pre_idx(FP_ADDR_SRC4, 10, 1)].w48, 0);
	assert_int_equal(img.pre[pre_idx(FP_ADDR_SRC4, 10, 1)].lplen, 24);
	fp_flt_image__free(&img);
}

static void test_tuple_masks(void **state)
{
	struct fp_flt_image img;
	uint64_t t_dport, t_src, t_qname;

	(void)state;
	/* three shapes: {proto dport}, {src}, {proto dport qname} */
	build("drop udp dport 11211\n"
	      "drop src 192.0.2.0/24\n"
	      "drop udp dport 53 qname *.example.com\n"
	      "drop tcp dport 80-90\n", &img);
	assert_int_equal(img.cfg.n_tuples, 3);
	t_dport = 1ull << 0, t_src = 1ull << 1, t_qname = 1ull << 2;
	/* dport 11211's class: the {proto dport} tuple, and {src}, which has no dport */
	{
		uint32_t c = img.cls[FP_CLS_DPORT + 11211];

		assert_int_not_equal(c, 0);
		assert_int_equal(img.cmask[FP_CM_DPORT + c], t_dport | t_src);
	}
	/* dport 53: the qname tuple (and not {proto dport}: no rule of it covers 53) */
	assert_int_equal(img.cmask[FP_CM_DPORT + img.cls[FP_CLS_DPORT + 53]], t_qname | t_src);
	/* a port no rule names: only tuples without dport */
	assert_int_equal(img.cmask[FP_CM_DPORT + 0], t_src);
	/* protocols: udp 17 and tcp 6 keep the proto tuples; icmp only {src} */
	/* (no rule uses ip/ip6: the L3 part passes every tuple) */
	assert_int_equal(img.cmask[FP_CM_L3PROTO + 257 + 17], t_dport | t_src | t_qname);
	assert_int_equal(img.cmask[FP_CM_L3PROTO + 2 * 257 + 6], t_dport | t_src);
	assert_int_equal(img.cmask[FP_CM_L3PROTO + 257 + 1], t_src);
	assert_int_equal(img.cmask[FP_CM_L3PROTO + 256], t_src);
	/* the loaded copies: a range value's entry carries its class's word,
	 * a /16's prefilter entry its short prefix's (none here: class 0) */
	for (uint32_t port = 0; port < 65536; port += 97) {
		const struct fp_flt_cls_ent *e = &img.cls_ent[FP_CLS_DPORT + port];

		assert_int_equal(e->cls, img.cls[FP_CLS_DPORT + port]);
		assert_int_equal(e->mask, img.cmask[FP_CM_DPORT + e->cls]);
	}
	assert_int_equal(img.cls_ent[FP_CLS_DPORT + 11211].mask, t_dport | t_src);
	/* dport by (v4|v6) x (tcp|udp): the L3PROTO word folded in; the qname
	 * tuple is UDP only, so TCP to port 53 leaves only {src} */
	for (uint32_t c = 0; c < 4; c++) {
		uint64_t l3proto = img.cmask[FP_CM_L3PROTO + (1 + c / 2) * 257 + (c & 1 ? 17 : 6)];

		for (uint32_t port = 0; port < 65536; port += 97) {
			const struct fp_flt_cls_ent *e = &img.cls_ent[FP_CLS_DPORT_L4 + c * 65536 + port];

			assert_int_equal(e->cls, img.cls[FP_CLS_DPORT + port]);
			/* {proto dport} is decided by the entry's hit, not probed */
			assert_int_equal(e->mask,
					 img.cls_ent[FP_CLS_DPORT + port].mask & l3proto & ~t_dport);
		}
	}
	/* the entry's hit: udp dport 11211 (rule 0) for UDP only, tcp dport
	 * 80-90 (rule 3) for TCP only; port 53's rule needs its qname probed */
	for (uint32_t c = 0; c < 4; c++) {
		const struct fp_flt_cls_ent *e = &img.cls_ent[FP_CLS_DPORT_L4 + c * 65536];

		assert_int_equal(e[11211].hit, c & 1 ? FP_FLT_HIT(0, FP_FLT_DROP) : FP_FLT_NO_RULE);
		assert_int_equal(e[85].hit, c & 1 ? FP_FLT_NO_RULE : FP_FLT_HIT(3, FP_FLT_DROP));
		assert_int_equal(e[53].hit, FP_FLT_NO_RULE);
		assert_int_equal(e[9].hit, FP_FLT_NO_RULE);
	}
	assert_int_equal(img.cls_ent[FP_CLS_DPORT_L4 + 1 * 65536 + 11211].mask, t_src);
	assert_int_equal(img.cls_ent[FP_CLS_DPORT_L4 + 0 * 65536 + 53].mask, t_src);
	assert_int_equal(img.cls_ent[FP_CLS_DPORT_L4 + 1 * 65536 + 53].mask, t_qname | t_src);
	assert_int_equal(img.cls_ent[FP_CLS_DPORT_L4 + 2 * 65536 + 53].mask, t_src);
	assert_int_equal(img.cls_ent[FP_CLS_DPORT_L4 + 3 * 65536 + 53].mask, t_qname | t_src);
	assert_int_equal(img.pre[pre_idx(FP_ADDR_SRC4, 192, 0)].mask, img.cfg.cm_zero[FP_CMF_SRC]);
	/* a qname class: only the qname tuple needs it */
	assert_int_equal(img.cmask[FP_CM_QNAME + 0], t_dport | t_src);
	/* the tuples using each costly field, which the stage skips otherwise */
	assert_int_equal(img.cfg.cm_uses[FP_CMF_SRC], t_src);
	assert_int_equal(img.cfg.cm_uses[FP_CMF_DST], 0);
	assert_int_equal(img.cfg.cm_uses[FP_CMF_QNAME], t_qname);
	assert_int_equal(img.cfg.cm_zero[FP_CMF_DPORT], t_src);
	assert_int_equal(img.cfg.dns_uses, t_qname);
	/* DNS depth: *.example.com is a wildcard whose suffix has 3 labels */
	assert_int_equal(img.cfg.qn_depth[FP_QN_WILD], 1ull << 2);
	assert_int_equal(img.cfg.qn_depth[FP_QN_EXACT], 0);
	assert_int_equal(img.cfg.qn_max_depth, 3);
	fp_flt_image__free(&img);
}

/* len_span and ttl_span bound the values some rule covers: outside them
 * the stage takes class 0 and cm_zero without a lookup, so every value
 * outside must have class 0 and every covered value must lie inside. */
static void test_len_ttl_span(void **state)
{
	static const struct {
		const char *text;
		unsigned len_lo, len_hi, ttl_lo, ttl_hi;
	} cases[] = {
		{ "drop ttl 0-3\ndrop udp len 1245-1500\ndrop ttl 7 len 60-70\n", 60, 1500, 0, 7 },
		{ "drop ttl 255\ndrop len 65535\n", 65535, 65535, 255, 255 },
		{ "drop udp dport 53\n", 1, 0, 1, 0 },
		{ "drop len 0-65535 ttl 0-255\n", 0, 65535, 0, 255 },
	};
	struct fp_flt_image img;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		build(cases[i].text, &img);
		assert_int_equal(img.cfg.len_span[0], cases[i].len_lo);
		assert_int_equal(img.cfg.len_span[1], cases[i].len_hi);
		assert_int_equal(img.cfg.ttl_span[0], cases[i].ttl_lo);
		assert_int_equal(img.cfg.ttl_span[1], cases[i].ttl_hi);
		for (uint32_t v = 0; v < 65536; v++) {
			bool in = v >= img.cfg.len_span[0] && v <= img.cfg.len_span[1];

			if (!in)
				assert_int_equal(img.cls_ent[FP_CLS_LEN + v].cls, 0);
			if (!in)
				assert_int_equal(img.cls_ent[FP_CLS_LEN + v].mask,
						 img.cfg.cm_zero[FP_CMF_LEN]);
			in = v >= img.cfg.ttl_span[0] && v <= img.cfg.ttl_span[1];
			if (v < 256 && !in)
				assert_int_equal(img.cls_ent[FP_CLS_TTL + v].mask,
						 img.cfg.cm_zero[FP_CMF_TTL]);
		}
		fp_flt_image__free(&img);
	}
}

/* 70 shapes: tuples 63 and up share bit 63. */
static void test_tuple_overflow_bit(void **state)
{
	char text[8192];
	size_t len = 0;
	struct fp_flt_image img;

	(void)state;
	for (unsigned i = 0; i < 70; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"drop udp dport %u%s%s%s%s%s%s\n", 1000 + i,
					i & 1 ? " ttl 1-9" : "", i & 2 ? " len 100-200" : "",
					i & 4 ? " sport 7" : "", i & 8 ? " vlan 5" : "",
					i & 16 ? " frag" : "", i & 32 ? " src 10.0.0.0/8" : "");
	len += (size_t)snprintf(text + len, sizeof(text) - len, "drop ip6 udp dport 1\n");
	len += (size_t)snprintf(text + len, sizeof(text) - len, "drop ip udp dport 2 qtype A\n");
	len += (size_t)snprintf(text + len, sizeof(text) - len, "drop ip6 tcp dport 3\n");
	len += (size_t)snprintf(text + len, sizeof(text) - len,
				"drop ip6 tcp dport 4 flags syn\n");
	len += (size_t)snprintf(text + len, sizeof(text) - len, "drop icmp\n");
	len += (size_t)snprintf(text + len, sizeof(text) - len, "drop icmp6 ttl 1\n");
	len += (size_t)snprintf(text + len, sizeof(text) - len, "drop ip ttl 2\n");
	build(text, &img);
	assert_true(img.cfg.n_tuples >= FP_CM_TUPLE_BITS);
	/* dport 2 is the rule of a late tuple: only bit 63 can carry it */
	assert_true(img.cmask[FP_CM_DPORT + img.cls[FP_CLS_DPORT + 2]] & (1ull << 63));
	/* bit 63 of a uses word: some tuple from 63 up uses the field (src is
	 * used by late tuples and not by others; qtype only by a late one) */
	assert_true(img.cfg.cm_uses[FP_CMF_SRC] & (1ull << 63));
	assert_true(img.cfg.cm_zero[FP_CMF_SRC] & (1ull << 63));
	assert_int_equal(img.cfg.dns_uses, 1ull << 63);
	fp_flt_image__free(&img);
}

/* The C twin of the stage's probe (classify.h flat_addr_cls). */
static uint32_t flat_find_addr(const struct fp_flt_image *img, const struct fp_flt_addr_key *k)
{
	uint64_t w[4] = { 0 };
	uint32_t bits = img->cfg.addr_bits, mask = (1u << bits) - 1, at;

	uint64_t h;
	uint32_t b;

	memcpy(w, k, sizeof(*k));
	h = fp_flat_hash(w[0], w[1], w[2], w[3]);
	/* the prefix's bit in fp_flt_abloom first: clear, the probe ends */
	b = (uint32_t)(h >> (64 - FP_ABLOOM_BITS));
	if (!(img->abloom[b >> 6] >> (b & 63) & 1))
		return 0;
	at = (uint32_t)(h >> (64 - bits));
	for (uint32_t d = 0; d < FP_FLAT_PROBES; d++) {
		const struct fp_flt_addr_slot *s = &img->addr_slots[(at + d) & mask];

		if (!s->cls)
			return 0;
		if (!memcmp(&s->key, k, sizeof(*k)))
			return s->cls;
	}
	return 0;
}

/* 6,000 prefixes: every one is found within the probe bound; absent ones not. */
static void test_flat_tables(void **state)
{
	size_t cap = 6000 * 40, len = 0;
	char *text = malloc(cap);
	struct fp_flt_image img;

	(void)state;
	assert_non_null(text);
	for (unsigned i = 0; i < 6000; i++)
		len += (size_t)snprintf(text + len, cap - len, "drop src 100.%u.%u.%u/32\n",
					64 + i % 50, (i * 7) % 256, 1 + i % 250);
	build(text, &img);
	free(text);
	assert_true(img.n_addr >= 5000);
	assert_true((1u << img.cfg.addr_bits) >= 2 * img.n_addr);
	for (size_t i = 0; i < img.n_addr; i++)
		assert_int_equal(flat_find_addr(&img, &img.addr[i]), img.addr_cls[i]);
	{
		struct fp_flt_addr_key k = img.addr[0];

		k.addr[3] ^= 0xff; /* 100.x.y.(z^255): z <= 250, never generated */
		k.addr[0] = 101;
		assert_int_equal(flat_find_addr(&img, &k), 0);
	}
	{
		/* fp_flt_abloom: most absent prefixes end at their clear bit
		 * (about 6,000 of 262,144 bits are set) */
		unsigned clear = 0;

		for (unsigned i = 0; i < 1000; i++) {
			struct fp_flt_addr_key k = img.addr[0];
			uint64_t w[4] = { 0 };
			uint32_t b;

			k.addr[0] = 101;
			k.addr[1] = (uint8_t)(i >> 8);
			k.addr[2] = (uint8_t)i;
			memcpy(w, &k, sizeof(k));
			b = (uint32_t)(fp_flat_hash(w[0], w[1], w[2], w[3]) >> (64 - FP_ABLOOM_BITS));
			clear += !(img.abloom[b >> 6] >> (b & 63) & 1);
		}
		assert_true(clear >= 900);
	}
	/* the key table: as many slots as needed, each key reachable */
	assert_true((1u << img.cfg.key_bits) >= 2 * img.n_keys);
	fp_flt_image__free(&img);
}

/* port_grid_rules(n) compiled: 500 tuple keys per rule. */
static int build_port_grid(unsigned n, struct fp_flt_image *img, char *err, size_t errlen)
{
	size_t len;
	char *text = port_grid_rules(n, &len);
	struct fp_ruleset set;
	struct fp_diags d = { 0 };
	int ret;

	assert_non_null(text);
	assert_int_equal(fp_ruleset__parse(text, len, &set, &d), 0);
	ret = fp_flt_image__build(&set, img, err, errlen);
	fp_ruleset__free(&set);
	fp_diags__free(&d);
	free(text);
	return ret;
}

/* The documented capacity: 100,000 tuple keys fit the default 2^18 slots
 * (Robin Hood placement, every key within reach); 125,000 need 2^19
 * (`filter load --table-bits 19`; apply refuses them in a default filter). */
static void test_flat_capacity(void **state)
{
	struct fp_flt_image img;
	char err[256];

	(void)state;
	assert_int_equal(build_port_grid(200, &img, err, sizeof(err)), 0);
	assert_int_equal(img.n_keys, 100000);
	assert_true(img.cfg.key_bits <= FP_FLAT_BITS_DEFAULT);
	for (uint32_t s = 0, n = 0; s < (1u << img.cfg.key_bits); s++) {
		n += img.key_slots[s].hit != FP_FLT_NO_RULE;
		if (s + 1 == (1u << img.cfg.key_bits))
			assert_int_equal(n, 100000);
	}
	fp_flt_image__free(&img);
	assert_int_equal(build_port_grid(250, &img, err, sizeof(err)), 0);
	assert_int_equal(img.n_keys, 125000);
	assert_int_equal(img.cfg.key_bits, FP_FLAT_BITS_DEFAULT + 1);
	fp_flt_image__free(&img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flat_capacity),
		cmocka_unit_test(test_prefilter),
		cmocka_unit_test(test_prefilter_v6_and_default_route),
		cmocka_unit_test(test_prefilter_packed),
		cmocka_unit_test(test_prefilter_b48),
		cmocka_unit_test(test_tuple_masks),
		cmocka_unit_test(test_tuple_overflow_bit),
		cmocka_unit_test(test_len_ttl_span),
		cmocka_unit_test(test_flat_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
