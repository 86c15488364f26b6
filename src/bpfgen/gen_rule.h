/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The insides of `bpfgen rule`: the rule model (src/rules/rule.h) lowered to
 * classic BPF, shared by gen_rule.c (entry, L2, IPv4, L4), gen_rule_ip6.c
 * (IPv6 and its extension headers), gen_rule_dns.c (the DNS question) and
 * gen_rule_emit.c (the emitters).
 *
 * The code follows the packet semantics of src/rules/match_ref.h sentence
 * by sentence. It never lets a load run past the packet (classic BPF would
 * then return 0, which is a "match" under -n): every read is preceded by an
 * explicit length check, so the program ends only through its own `ret`s.
 *
 * Registers and scratch slots, as the blocks hand over to each other:
 *   X          the offset being looked at (l3, an extension header, l4, ...)
 *   M[S_L3]    offset of the IP header
 *   M[S_IPEND] min(packet length, l3 + IP datagram length)
 *   M[S_L4]    offset of the TCP/UDP header
 *   M[S_PROTO] the upper-layer protocol
 */
#ifndef FP_BPFGEN_GEN_RULE_H
#define FP_BPFGEN_GEN_RULE_H

#include <linux/filter.h>

#include "bpfgen/bpfgen_internal.h"
#include "rules/rule.h"

enum rule_slot {
	S_L3 = 0,
	S_IPEND,
	S_L4,
	S_PROTO,
	S_TMP,      /* v4: total length; v6 walk: next header */
	S_IHL,
	S_FRAG,     /* v6: a fragment header set frag */
	S_L4AV,     /* bytes from l4 to ip_end */
	S_LIM,      /* DNS: min(ip_end, name start + 255) */
	S_END,      /* DNS: offset of the name's root byte */
	S_CAND,     /* DNS: where a wildcard's suffix must start */
};

#define IPV6_EXT_UNROLL 8   /* match_ref.h: more than 8 extension headers: unknown */
#define DNS_LABELS_MAX  128 /* 127 one-byte labels and the root fill 255 bytes */

/*
 * Near exits. A conditional jump reaches 255 instructions; rather than one
 * `ja` trampoline per far jump (what fp_casm__resolve() would insert), the
 * code jumps to labels from rg_near() and rg_flush() places them every so
 * often, each once, as a `ja FAR` (for match and nomatch: to the final
 * `ret`s, which the last near labels share).
 */
enum { R_MATCH = 0, R_NOMATCH = 1, R_MAX = 4 };

struct rg_relay {
	int far;               /* the real target (match / nomatch: the final ret) */
	int local;             /* the label to use now, -1 when none yet */
};

struct rule_gen {
	struct fp_casm *a;
	const struct fp_rule *r;
	const struct fp_bpfgen_opts *o;
	struct rg_relay relay[R_MAX];
	unsigned nrelay;
	int l4;                /* the L4 block (X = l4), -1 when not needed */
	unsigned uniq;         /* numbering of labels */
	bool need_proto;       /* a proto term or any L4 term */
	bool need_l4;          /* ports, flags, DNS */
	bool need_dns;
	bool tcp_ok, udp_ok;   /* which L4 headers can satisfy the rule */
};

/* A new label "<base>_<n>". */
int rg_label(struct rule_gen *g, const char *base);

/* The label to jump to for relay i now (R_MATCH, R_NOMATCH, rg_relay_push()). */
int rg_near(struct rule_gen *g, unsigned i);
static inline int rg_m(struct rule_gen *g) { return rg_near(g, R_MATCH); }
static inline int rg_nm(struct rule_gen *g) { return rg_near(g, R_NOMATCH); }
/* A relay to a far label; returns its index. Pop after the last flush using it. */
unsigned rg_relay_push(struct rule_gen *g, int far);
void rg_relay_pop(struct rule_gen *g);
/* Places the near labels in use here; with fall, behind a `ja` over them. */
void rg_flush(struct rule_gen *g, bool fall);
/* The program's end: the last near exits and the two `ret`s. */
void rg_finish(struct rule_gen *g);

/* Short hands for the instructions the lowering uses. */
void rg_op(struct rule_gen *g, uint16_t code, uint32_t k);
void rg_jmp(struct rule_gen *g, uint16_t op, uint32_t k, int jt, int jf);
void rg_ja(struct rule_gen *g, int label);
void rg_ld_ind(struct rule_gen *g, uint16_t size, uint32_t k);
/* A = min(A, X) is not in classic BPF: M[slot] = min(M[slot], packet length). */
void rg_min_len(struct rule_gen *g, enum rule_slot slot);
/* A within [lo, hi] (A <= max always) or jump to fail. */
void rg_range(struct rule_gen *g, uint32_t lo, uint32_t hi, uint32_t max, int fail);

/* A (a port) within one of the ranges, else jump to fail. */
void rg_ports(struct rule_gen *g, const struct fp_portset *ps, int fail);
/* The CIDR's address at [x + off], else nomatch. */
void rg_cidr(struct rule_gen *g, const struct fp_cidr *c, uint32_t off, const char *what);

/* 0: a valid name in wire format; 1: valid, with an upper-case letter in a
 * label (it can never equal a lowercased name); -1: malformed. */
int rg_check_qname(const struct fp_qname *q);

/* Lowers the terms of r into a (bpfgen.h: fp_bpfgen__rule). 0 or -EINVAL
 * with err filled. */
int fp_bpfgen_rule_lower(const struct fp_bpfgen_opts *o, const struct fp_rule *r,
			 struct fp_casm *a, struct fp_bpfgen_err *err);
/* The generator `rule`: argv[1..] joined are the rule text. */
int fp_bpfgen_rule(const struct fp_bpfgen_opts *o, int argc, char **argv,
		   struct fp_casm *a, struct fp_bpfgen_err *err);

/* The IPv6 block: X = l3 on entry; ends in match, nomatch or g->l4. */
void rg_ipv6(struct rule_gen *g);
/* The DNS block: X = l4 of a whole UDP header with dport 53. */
void rg_dns(struct rule_gen *g);

#endif /* FP_BPFGEN_GEN_RULE_H */
