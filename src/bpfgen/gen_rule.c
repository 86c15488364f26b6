// SPDX-License-Identifier: BSD-2-Clause
/*
 * `bpfgen rule TERMS`: the terms of one fastpath rule lowered to one classic
 * BPF program that returns non-zero exactly on the packets the reference
 * matcher (src/rules/match_ref.h) says the terms match. The action and the
 * options of the rule are ignored. Offset 0 (xt_bpf: the packet starts at
 * the IP header; the family comes from the version nibble) or 14 (an
 * Ethernet frame, up to two 802.1Q/802.1ad tags).
 *
 * The program is a chain of tests, each jumping to `nomatch` when it fails:
 *   vlan         (offset 14) the VID of tag 1 or tag 2
 *   L3 dispatch  ethertype after the tags / version nibble -> v4 or v6 block
 *   v4 block     validity, src, dst, len, ttl, frag, proto, L4 offset
 *   v6 block     validity, src, dst, len, ttl, extension headers unrolled
 *                (gen_rule_ip6.c), frag, proto
 *   L4 block     TCP/UDP header whole within ip_end, flags, sport, dport
 *   DNS block    the first question (gen_rule_dns.c): qname, qtype
 */
#include "bpfgen/gen_rule.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/match_ref.h"

#define ETH_HLEN     14
#define ETH_P_IPV4   0x0800
#define ETH_P_IPV6   0x86dd
#define ETH_P_8021Q  0x8100
#define ETH_P_8021AD 0x88a8

static const char rule_help[] =
	"usage: fastpath bpfgen [-o 0|14] [-n] [-s] rule [--] RULE TERMS...\n"
	"\n"
	"Lowers the terms of one fastpath rule (fastpath-rules(7)) to a classic\n"
	"BPF program that returns non-zero exactly on the packets they match.\n"
	"The words are joined with spaces; an action (drop, pass, limit N/s) and\n"
	"options (id, burst, by, sample, a comment) may be given and are ignored.\n"
	"-o 0 (default): the packet starts at the IP header (xt_bpf); -o 14: an\n"
	"Ethernet frame (needed for vlan and ether).\n"
	"\n"
	"examples:\n"
	"  fastpath bpfgen rule 'udp dport 53 qname *.example.com'\n"
	"  fastpath bpfgen -o 14 -s rule 'vlan 10 tcp flags syn,!ack'\n";

/* ---- L2 ---------------------------------------------------------------- */

/* vlan N: one of the (up to two) parsed tags has VID N. */
static void vlan_term(struct rule_gen *g)
{
	int t1 = rg_label(g, "tag1"), t2 = rg_label(g, "tag2"), ok = rg_label(g, "vlan_ok");

	fp_casm__text(g->a, "     ; vlan %u: tag 1 or tag 2", g->r->vlan);
	rg_op(g, BPF_LD | BPF_W | BPF_LEN, 0);
	rg_jmp(g, BPF_JGE, ETH_HLEN + 4, FP_LBL_NEXT, rg_nm(g));
	rg_op(g, BPF_LD | BPF_H | BPF_ABS, 12);
	rg_jmp(g, BPF_JEQ, ETH_P_8021Q, t1, FP_LBL_NEXT);
	rg_jmp(g, BPF_JEQ, ETH_P_8021AD, t1, rg_nm(g));
	fp_casm__place(g->a, t1);
	rg_op(g, BPF_LD | BPF_H | BPF_ABS, 14);
	rg_op(g, BPF_ALU | BPF_AND | BPF_K, 0x0fff);
	rg_jmp(g, BPF_JEQ, g->r->vlan, ok, FP_LBL_NEXT);
	rg_op(g, BPF_LD | BPF_H | BPF_ABS, 16);
	rg_jmp(g, BPF_JEQ, ETH_P_8021Q, t2, FP_LBL_NEXT);
	rg_jmp(g, BPF_JEQ, ETH_P_8021AD, t2, rg_nm(g));
	fp_casm__place(g->a, t2);
	rg_op(g, BPF_LD | BPF_W | BPF_LEN, 0);
	rg_jmp(g, BPF_JGE, ETH_HLEN + 8, FP_LBL_NEXT, rg_nm(g));
	rg_op(g, BPF_LD | BPF_H | BPF_ABS, 18);
	rg_op(g, BPF_ALU | BPF_AND | BPF_K, 0x0fff);
	rg_jmp(g, BPF_JEQ, g->r->vlan, ok, rg_nm(g));
	fp_casm__place(g->a, ok);
}

/*
 * ether T (offset 14): the ethertype after up to two tags is T; a frame
 * shorter than its type field, a tag cut short or a third tag: no type.
 * T is never a tag's TPID (the parser refuses those).
 */
static void ether_term(struct rule_gen *g)
{
	static const unsigned l3s[3] = { ETH_HLEN, ETH_HLEN + 4, ETH_HLEN + 8 };
	int ok = rg_label(g, "ether_ok");

	fp_casm__text(g->a, "     ; ether 0x%04x: the type after up to two VLAN tags", g->r->ether);
	for (unsigned i = 0; i < 3; i++) {
		int tag = rg_label(g, "etag");

		rg_op(g, BPF_LD | BPF_W | BPF_LEN, 0);
		rg_jmp(g, BPF_JGE, l3s[i], FP_LBL_NEXT, rg_nm(g));
		rg_op(g, BPF_LD | BPF_H | BPF_ABS, l3s[i] - 2);
		if (i == 2) {
			rg_jmp(g, BPF_JEQ, g->r->ether, ok, rg_nm(g));
			break;
		}
		rg_jmp(g, BPF_JEQ, g->r->ether, ok, FP_LBL_NEXT);
		rg_jmp(g, BPF_JEQ, ETH_P_8021Q, tag, FP_LBL_NEXT);
		rg_jmp(g, BPF_JEQ, ETH_P_8021AD, tag, rg_nm(g));
		fp_casm__place(g->a, tag);
	}
	fp_casm__place(g->a, ok);
}

/*
 * Offset 14: the ethertype after up to two tags; a tag cut short or a third
 * tag: no L3. Jumps to v4/v6 (labels taking X = l3) or nomatch.
 */
static void l3_dispatch_eth(struct rule_gen *g, int lv4, int lv6)
{
	int v4 = lv4 < 0 ? rg_nm(g) : lv4, v6 = lv6 < 0 ? rg_nm(g) : lv6;
	static const unsigned l3s[3] = { ETH_HLEN, ETH_HLEN + 4, ETH_HLEN + 8 };
	int at[3], tag[3];
	unsigned i;

	fp_casm__text(g->a, "     ; L3 after up to two VLAN tags");
	for (i = 0; i < 3; i++) {
		at[i] = rg_label(g, "l3at");
		tag[i] = rg_label(g, "tag");
	}
	for (i = 0; i < 3; i++) {
		rg_op(g, BPF_LD | BPF_W | BPF_LEN, 0);
		rg_jmp(g, BPF_JGE, l3s[i], FP_LBL_NEXT, rg_nm(g));
		rg_op(g, BPF_LD | BPF_H | BPF_ABS, l3s[i] - 2);
		rg_jmp(g, BPF_JEQ, ETH_P_IPV4, lv4 < 0 ? v4 : at[i], FP_LBL_NEXT);
		if (i == 2) { /* a third tag: no L3 */
			rg_jmp(g, BPF_JEQ, ETH_P_IPV6, lv6 < 0 ? v6 : at[i], rg_nm(g));
			break;
		}
		rg_jmp(g, BPF_JEQ, ETH_P_IPV6, lv6 < 0 ? v6 : at[i], FP_LBL_NEXT);
		rg_jmp(g, BPF_JEQ, ETH_P_8021Q, tag[i], FP_LBL_NEXT);
		rg_jmp(g, BPF_JEQ, ETH_P_8021AD, tag[i], rg_nm(g));
		fp_casm__place(g->a, tag[i]);
	}
	/* A in at[i] is the ethertype again; X = l3 */
	for (i = 0; i < 3; i++) {
		fp_casm__place(g->a, at[i]);
		rg_op(g, BPF_LDX | BPF_W | BPF_IMM, l3s[i]);
		if (lv4 < 0 || lv6 < 0)
			rg_ja(g, lv4 < 0 ? v6 : v4);
		else
			rg_jmp(g, BPF_JEQ, ETH_P_IPV4, v4, v6);
	}
}

/* Offset 0: the family from the version nibble. */
static void l3_dispatch_raw(struct rule_gen *g, int v4, int v6)
{
	if (v4 < 0)
		v4 = rg_nm(g);
	if (v6 < 0)
		v6 = rg_nm(g);
	fp_casm__text(g->a, "     ; L3 family from the version nibble");
	rg_op(g, BPF_LD | BPF_W | BPF_LEN, 0);
	rg_jmp(g, BPF_JEQ, 0, rg_nm(g), FP_LBL_NEXT);
	rg_op(g, BPF_LDX | BPF_W | BPF_IMM, 0);
	rg_op(g, BPF_LD | BPF_B | BPF_ABS, 0);
	rg_op(g, BPF_ALU | BPF_RSH | BPF_K, 4);
	rg_jmp(g, BPF_JEQ, 4, v4, FP_LBL_NEXT);
	rg_jmp(g, BPF_JEQ, 6, v6, rg_nm(g));
}

/* ---- IPv4 -------------------------------------------------------------- */

static void ipv4(struct rule_gen *g)
{
	const struct fp_rule *r = g->r;
	uint32_t t = r->terms;

	fp_casm__text(g->a, "     ; IPv4: 20 bytes, version 4, IHL >= 5, IHL*4 bytes, total >= IHL*4");
	rg_op(g, BPF_MISC | BPF_TXA, 0);
	rg_op(g, BPF_ST, S_L3);
	rg_op(g, BPF_LD | BPF_W | BPF_LEN, 0);
	rg_op(g, BPF_ALU | BPF_SUB | BPF_X, 0);
	rg_jmp(g, BPF_JGE, 20, FP_LBL_NEXT, rg_nm(g));
	rg_ld_ind(g, BPF_B, 0);
	rg_op(g, BPF_ALU | BPF_RSH | BPF_K, 4);
	rg_jmp(g, BPF_JEQ, 4, FP_LBL_NEXT, rg_nm(g));
	rg_ld_ind(g, BPF_B, 0);
	rg_op(g, BPF_ALU | BPF_AND | BPF_K, 0x0f);
	rg_op(g, BPF_ALU | BPF_LSH | BPF_K, 2);
	rg_jmp(g, BPF_JGE, 20, FP_LBL_NEXT, rg_nm(g));
	rg_op(g, BPF_ST, S_IHL);
	rg_op(g, BPF_ALU | BPF_ADD | BPF_X, 0);
	rg_op(g, BPF_ST, S_L4);              /* l3 + IHL*4 */
	rg_op(g, BPF_MISC | BPF_TAX, 0);
	rg_op(g, BPF_LD | BPF_W | BPF_LEN, 0);
	fp_casm__jmp(g->a, BPF_JMP | BPF_JGE | BPF_X, 0, FP_K_DEC, FP_LBL_NEXT, rg_nm(g));
	rg_op(g, BPF_LDX | BPF_MEM, S_L3);
	rg_ld_ind(g, BPF_H, 2);
	rg_op(g, BPF_ST, S_TMP);             /* total length */
	rg_op(g, BPF_LDX | BPF_MEM, S_IHL);
	fp_casm__jmp(g->a, BPF_JMP | BPF_JGE | BPF_X, 0, FP_K_DEC, FP_LBL_NEXT, rg_nm(g));
	rg_op(g, BPF_LDX | BPF_MEM, S_L3);

	if (t & FP_T_SRC)
		rg_cidr(g, &r->src, 12, "src");
	if (t & FP_T_DST)
		rg_cidr(g, &r->dst, 16, "dst");
	if (t & FP_T_LEN) {
		fp_casm__text(g->a, "     ; len: total length");
		rg_op(g, BPF_LD | BPF_MEM, S_TMP);
		rg_range(g, r->len.lo, r->len.hi, 65535, rg_nm(g));
	}
	if (t & FP_T_TTL) {
		fp_casm__text(g->a, "     ; ttl");
		rg_ld_ind(g, BPF_B, 8);
		rg_range(g, r->ttl.lo, r->ttl.hi, 255, rg_nm(g));
	}
	if (t & FP_T_FRAG) {
		fp_casm__text(g->a, "     ; frag: MF or a fragment offset");
		rg_ld_ind(g, BPF_H, 6);
		rg_jmp(g, BPF_JSET, 0x3fff, FP_LBL_NEXT, rg_nm(g));
	}
	if (!g->need_proto) {
		rg_ja(g, rg_m(g));
		return;
	}
	fp_casm__text(g->a, "     ; proto");
	rg_ld_ind(g, BPF_B, 9);
	if (t & FP_T_PROTO)
		rg_jmp(g, BPF_JEQ, r->proto, FP_LBL_NEXT, rg_nm(g));
	if (!g->need_l4) {
		rg_ja(g, rg_m(g));
		return;
	}
	rg_op(g, BPF_ST, S_PROTO);
	fp_casm__text(g->a, "     ; L4 only in the first fragment; ip_end = min(len, l3 + total)");
	rg_ld_ind(g, BPF_H, 6);
	rg_jmp(g, BPF_JSET, 0x1fff, rg_nm(g), FP_LBL_NEXT);
	rg_op(g, BPF_LD | BPF_MEM, S_TMP);
	rg_op(g, BPF_ALU | BPF_ADD | BPF_X, 0);
	rg_op(g, BPF_ST, S_IPEND);
	rg_min_len(g, S_IPEND);
	rg_op(g, BPF_LDX | BPF_MEM, S_L4);
	rg_ja(g, g->l4);
}

/* ---- L4 ---------------------------------------------------------------- */

/* X = l4, M[S_L4] = l4, M[S_PROTO], M[S_IPEND] >= l4. */
static void l4_block(struct rule_gen *g)
{
	const struct fp_rule *r = g->r;
	int tcp = rg_label(g, "tcp"), udp = rg_label(g, "udp"), ports = rg_label(g, "ports");

	fp_casm__place(g->a, g->l4);
	fp_casm__text(g->a, "     ; L4: the header whole within ip_end");
	rg_op(g, BPF_LD | BPF_MEM, S_IPEND);
	rg_op(g, BPF_ALU | BPF_SUB | BPF_X, 0);
	rg_op(g, BPF_ST, S_L4AV);
	rg_op(g, BPF_LD | BPF_MEM, S_PROTO);
	if (g->tcp_ok)
		rg_jmp(g, BPF_JEQ, 6, tcp, g->udp_ok ? FP_LBL_NEXT : rg_nm(g));
	if (g->udp_ok)
		rg_jmp(g, BPF_JEQ, 17, udp, rg_nm(g));
	if (g->tcp_ok) {
		fp_casm__place(g->a, tcp);
		fp_casm__text(g->a, "     ; TCP: 20 bytes, data offset >= 5, data offset*4 bytes");
		rg_op(g, BPF_LD | BPF_MEM, S_L4AV);
		rg_jmp(g, BPF_JGE, 20, FP_LBL_NEXT, rg_nm(g));
		rg_ld_ind(g, BPF_B, 12);
		rg_op(g, BPF_ALU | BPF_RSH | BPF_K, 4);
		rg_op(g, BPF_ALU | BPF_LSH | BPF_K, 2);
		rg_jmp(g, BPF_JGE, 20, FP_LBL_NEXT, rg_nm(g));
		rg_op(g, BPF_MISC | BPF_TAX, 0);
		rg_op(g, BPF_LD | BPF_MEM, S_L4AV);
		fp_casm__jmp(g->a, BPF_JMP | BPF_JGE | BPF_X, 0, FP_K_DEC, FP_LBL_NEXT, rg_nm(g));
		rg_op(g, BPF_LDX | BPF_MEM, S_L4);
		if (r->terms & FP_T_FLAGS) {
			fp_casm__text(g->a, "     ; flags: (byte 13 & 0x%02x) == 0x%02x",
				      r->flags_mask, r->flags_val);
			rg_ld_ind(g, BPF_B, 13);
			if (r->flags_mask != 0xff)
				rg_op(g, BPF_ALU | BPF_AND | BPF_K, r->flags_mask);
			rg_jmp(g, BPF_JEQ, r->flags_val, FP_LBL_NEXT, rg_nm(g));
		}
		if (g->udp_ok)
			rg_ja(g, ports);
	}
	if (g->udp_ok) {
		fp_casm__place(g->a, udp);
		fp_casm__text(g->a, "     ; UDP: 8 bytes");
		rg_op(g, BPF_LD | BPF_MEM, S_L4AV);
		rg_jmp(g, BPF_JGE, 8, FP_LBL_NEXT, rg_nm(g));
	}
	fp_casm__place(g->a, ports);
	if (r->terms & FP_T_SPORT) {
		fp_casm__text(g->a, "     ; sport");
		rg_ld_ind(g, BPF_H, 0);
		rg_ports(g, &r->sport, rg_nm(g));
	}
	if (r->terms & FP_T_DPORT) {
		fp_casm__text(g->a, "     ; dport");
		rg_ld_ind(g, BPF_H, 2);
		rg_ports(g, &r->dport, rg_nm(g));
	}
	if (g->need_dns)
		rg_dns(g);
	else
		rg_ja(g, rg_m(g));
}

/* ---- the whole program --------------------------------------------------- */

/* Why the terms can never hold together, or NULL. */
static const char *never(const struct fp_rule *r, bool *v4, bool *v6)
{
	uint32_t t = r->terms;
	bool l4 = t & (FP_T_SPORT | FP_T_DPORT | FP_T_FLAGS | FP_T_QNAME | FP_T_QTYPE);
	bool dns = t & (FP_T_QNAME | FP_T_QTYPE);

	*v4 = *v6 = true;
	if (t & FP_T_L3) {
		*v4 = r->l3 == 4;
		*v6 = r->l3 == 6;
	}
	if (t & FP_T_SRC) {
		*v4 &= r->src.family == 4;
		*v6 &= r->src.family == 6;
	}
	if (t & FP_T_DST) {
		*v4 &= r->dst.family == 4;
		*v6 &= r->dst.family == 6;
	}
	if (t & FP_T_UNDET)
		*v4 = false; /* a valid IPv4 header always names its protocol */
	if ((t & FP_T_ETHER) && (t & ~(uint32_t)(FP_T_ETHER | FP_T_VLAN))) {
		*v4 &= r->ether == ETH_P_IPV4;
		*v6 &= r->ether == ETH_P_IPV6;
	}
	if (!*v4 && !*v6)
		return (t & FP_T_UNDET) ? "undetermined-transport never holds on IPv4"
		       : (t & FP_T_ETHER) ? "the ethertype does not carry the IP family the terms need"
		       : "the terms ask for both IPv4 and IPv6";
	if ((t & FP_T_UNDET) && ((t & FP_T_PROTO) || l4))
		return "undetermined-transport excludes protocol, port, flags and DNS terms";
	if ((t & FP_T_PROTO) && l4 && r->proto != 6 && r->proto != 17)
		return "ports, flags and DNS need TCP or UDP";
	if ((t & FP_T_FLAGS) && dns)
		return "flags need TCP, qname and qtype UDP";
	if ((t & FP_T_FLAGS) && (t & FP_T_PROTO) && r->proto != 6)
		return "flags need TCP";
	if (dns && (t & FP_T_PROTO) && r->proto != 17)
		return "qname and qtype need UDP";
	return NULL;
}

int fp_bpfgen_rule_lower(const struct fp_bpfgen_opts *o, const struct fp_rule *r,
			 struct fp_casm *a, struct fp_bpfgen_err *err)
{
	struct rule_gen g = { .a = a, .r = r, .o = o, .l4 = -1, .nrelay = 2 };
	uint32_t t = r->terms;
	bool v4, v6, need_l3;
	const char *why;
	char text[1024];
	int lv4, lv6;

	if (o->l3_off != 0 && o->l3_off != ETH_HLEN)
		return gen_error(err, FP_BPFGEN_USAGE,
				 "rule: offset %u: use -o 0 (the packet starts at the IP header, "
				 "xt_bpf) or -o 14 (an Ethernet frame)", o->l3_off);
	if (o->inet6)
		return gen_error(err, FP_BPFGEN_USAGE,
				 "rule: -6 does not apply: the family comes from the terms and "
				 "the packet (use the term ip6)");
	if ((t & FP_T_VLAN) && o->l3_off == 0)
		return gen_error(err, FP_BPFGEN_USAGE,
				 "rule: term 'vlan %u' needs the Ethernet header: at offset 0 "
				 "(xt_bpf) the program sees no tags; use -o 14", r->vlan);
	if ((t & FP_T_ETHER) && o->l3_off == 0)
		return gen_error(err, FP_BPFGEN_USAGE,
				 "rule: term 'ether' needs the Ethernet header: at offset 0 "
				 "(xt_bpf) the program sees no ethertype (use ip or ip6 for the "
				 "family); use -o 14");
	if (t & FP_T_QNAME) {
		int e = rg_check_qname(&r->qname);

		if (e < 0)
			return gen_error(err, FP_BPFGEN_USAGE, "rule: term 'qname': malformed name");
	}

	g.relay[R_MATCH] = (struct rg_relay){ fp_casm__label(a, "match"), -1 };
	g.relay[R_NOMATCH] = (struct rg_relay){ fp_casm__label(a, "nomatch"), -1 };
	fp_rule__format(r, text, sizeof(text));
	fp_casm__text(a, "     ; fastpath rule terms of: %s", text);
	fp_casm__text(a, "     ; offset %u (%s)", o->l3_off,
		      o->l3_off ? "Ethernet frame" : "the packet starts at the IP header");
	why = never(r, &v4, &v6);
	if (why) {
		fp_casm__text(a, "     ; never matches: %s", why);
		rg_ja(&g, rg_nm(&g));
		goto tail;
	}
	g.need_dns = t & (FP_T_QNAME | FP_T_QTYPE);
	g.need_l4 = g.need_dns || (t & (FP_T_SPORT | FP_T_DPORT | FP_T_FLAGS));
	g.need_proto = g.need_l4 || (t & FP_T_PROTO);
	g.tcp_ok = !g.need_dns && (!(t & FP_T_PROTO) || r->proto == 6);
	g.udp_ok = !(t & FP_T_FLAGS) && (!(t & FP_T_PROTO) || r->proto == 17);
	need_l3 = t & ~(uint32_t)(FP_T_VLAN | FP_T_ETHER);

	if (t & FP_T_VLAN)
		vlan_term(&g);
	if (t & FP_T_ETHER)
		ether_term(&g);
	if (!need_l3) {
		rg_ja(&g, rg_m(&g));
		goto tail;
	}
	if (g.need_l4)
		g.l4 = rg_label(&g, "l4");
	lv4 = v4 ? rg_label(&g, "ipv4") : -1;
	lv6 = v6 ? rg_label(&g, "ipv6") : -1;
	if (o->l3_off == 0)
		l3_dispatch_raw(&g, lv4, lv6);
	else
		l3_dispatch_eth(&g, lv4, lv6);
	if (v4) {
		fp_casm__place(a, lv4);
		ipv4(&g);
		if (v6 || g.need_l4)
			rg_flush(&g, false);
	}
	if (v6) {
		fp_casm__place(a, lv6);
		rg_ipv6(&g);
		if (g.need_l4)
			rg_flush(&g, false);
	}
	if (g.need_l4)
		l4_block(&g);
tail:
	/* every path above ends in a jump: the two exits close the program */
	fp_casm__text(a, "%s", "");
	rg_finish(&g);
	return 0;
}

/* ---- the generator and the library entry -------------------------------- */

static bool starts_with_action(const char *s)
{
	static const char *const acts[] = { "drop", "pass", "limit", "default" };
	size_t i, n;

	while (*s == ' ' || *s == '\t')
		s++;
	for (i = 0; i < sizeof(acts) / sizeof(acts[0]); i++) {
		n = strlen(acts[i]);
		if (!strncmp(s, acts[i], n) && (s[n] == 0 || s[n] == ' ' || s[n] == '\t'))
			return true;
	}
	return false;
}

int fp_bpfgen__rule_parse(const char *terms, struct fp_rule *rule, struct fp_bpfgen_err *err)
{
	static const char prefix[] = "drop ";
	struct fp_diags d = { 0 };
	bool add = !starts_with_action(terms);
	char *text;
	int r;

	if (asprintf(&text, "%s%s", add ? prefix : "", terms) < 0)
		return gen_error(err, FP_BPFGEN_RUNTIME, "out of memory");
	r = fp_rule__parse(text, 1, rule, &d);
	free(text);
	if (r == -EINVAL) {
		unsigned col = d.n && d.cap ? d.v[0].col : 1;

		if (add)
			col = col > sizeof(prefix) - 1 ? col - (unsigned)(sizeof(prefix) - 1) : 1;
		gen_error(err, FP_BPFGEN_USAGE, "rule: column %u: %s", col,
			  d.n && d.cap ? d.v[0].msg : "cannot parse the rule");
	} else if (r) {
		gen_error(err, FP_BPFGEN_RUNTIME, "out of memory");
	}
	fp_diags__free(&d);
	return r;
}

int fp_bpfgen_rule(const struct fp_bpfgen_opts *o, int argc, char **argv,
		   struct fp_casm *a, struct fp_bpfgen_err *err)
{
	const struct gen_flag flags[] = { { 0, NULL, NULL } };
	struct gen_args args;
	struct fp_rule rule;
	char *text = NULL;
	size_t len = 0, i;
	int r;

	r = gen_parse("rule", flags, argc - 1, argv + 1, &args, err);
	if (r) {
		err->help = rule_help;
		return r;
	}
	err->usage = "fastpath bpfgen [-o 0|14] [-n] [-s] rule 'RULE TERMS'";
	if (args.npos == 0) {
		r = gen_error(err, FP_BPFGEN_USAGE, "rule: no RULE TERMS given");
		goto out;
	}
	for (i = 0; i < (size_t)args.npos; i++)
		len += strlen(args.pos[i]) + 1;
	text = calloc(1, len + 1);
	if (!text) {
		r = gen_error(err, FP_BPFGEN_RUNTIME, "out of memory");
		goto out;
	}
	for (i = 0; i < (size_t)args.npos; i++) {
		if (i)
			strcat(text, " ");
		strcat(text, args.pos[i]);
	}
	r = fp_bpfgen__rule_parse(text, &rule, err);
	if (!r)
		r = fp_bpfgen_rule_lower(o, &rule, a, err);
out:
	free(text);
	free(args.pos);
	return r;
}

int fp_bpfgen__rule(const struct fp_bpfgen_opts *o, const struct fp_rule *rule,
		    struct fp_bpfgen_out *out, struct fp_bpfgen_err *err)
{
	const char *msg;
	int r;

	memset(out, 0, sizeof(*out));
	memset(err, 0, sizeof(*err));
	out->casm = fp_casm__new();
	if (!out->casm)
		return gen_error(err, FP_BPFGEN_RUNTIME, "out of memory");
	r = fp_bpfgen_rule_lower(o, rule, out->casm, err);
	if (!r) {
		r = fp_casm__resolve(out->casm, &out->prog);
		if (r == -ENOMEM)
			gen_error(err, FP_BPFGEN_RUNTIME, "rule: out of memory");
		else if (r == -E2BIG)
			gen_error(err, FP_BPFGEN_USAGE,
				  "rule: the program needs more than %d instructions (BPF_MAXINSNS)%s",
				  FP_CBPF_MAXINSNS,
				  (rule->terms & FP_T_QNAME) && rule->qname.wildcard
				  ? "; the largest part is the wildcard term 'qname'" : "");
		else if (r) {
			fp_casm__error(out->casm, &msg);
			gen_error(err, FP_BPFGEN_USAGE, "rule: %s",
				  msg ? msg : "cannot build the program");
		}
	}
	if (r)
		fp_bpfgen_out__free(out);
	return r;
}
