/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The rule model's terms, shared by the stages that match rules (the
 * filter's tuples, the dump's --match, later the steer stage) and by the
 * rules library: the term bits, one rule's terms evaluated directly
 * (struct fp_match), and the DNS name hash.
 */
#ifndef FASTPATH_TERMS_H
#define FASTPATH_TERMS_H

#ifdef __bpf__
#include <linux/types.h>
#else
#include <linux/types.h>
#include <assert.h>
#define FP_ABI_ASSERT(cond) _Static_assert(cond, #cond)
#endif
#ifndef FP_ABI_ASSERT
#define FP_ABI_ASSERT(cond)
#endif

#define FP_MAX_RULES   16384 /* rules in one set */
#define FP_RULE_TEXT   512   /* canonical rule text, NUL included */

/* Terms of a rule (fp_rule.terms) and fields of a filter tuple. */
enum fp_term {
	FP_T_L3     = 1u << 0,  /* ip | ip6            -> l3 */
	FP_T_PROTO  = 1u << 1,  /* tcp udp icmp icmp6 proto N (and implied by flags) -> proto */
	FP_T_SRC    = 1u << 2,  /* src CIDR            -> src */
	FP_T_DST    = 1u << 3,  /* dst CIDR            -> dst */
	FP_T_SPORT  = 1u << 4,  /* sport PORTS         -> sport */
	FP_T_DPORT  = 1u << 5,  /* dport PORTS         -> dport */
	FP_T_FLAGS  = 1u << 6,  /* flags LIST          -> flags_mask/flags_val */
	FP_T_LEN    = 1u << 7,  /* len RANGE           -> len */
	FP_T_TTL    = 1u << 8,  /* ttl RANGE           -> ttl */
	FP_T_VLAN   = 1u << 9,  /* vlan N              -> vlan */
	FP_T_FRAG   = 1u << 10, /* frag */
	FP_T_QNAME  = 1u << 11, /* qname PATTERN       -> qname */
	FP_T_QTYPE  = 1u << 12, /* qtype TYPE          -> qtype */
	FP_T_UNDET  = 1u << 13, /* undetermined-transport: valid IP header, upper layer
				 * not reached (FP_HAVE_L3 without FP_HAVE_PROTO) */
	FP_T_ETHER  = 1u << 14, /* ether TYPE          -> ether (after the VLAN tags) */
};

/* One rule's terms, for the dump stage's --match (evaluated directly). */
struct fp_match {
	__u32 terms;           /* FP_T_* */
	__u8  l3, proto, flags_mask, flags_val;
	__u8  src_fam, src_plen, dst_fam, dst_plen;
	__u8  src[16], dst[16];
	__u16 n_sport, n_dport;
	__u16 sport[32][2], dport[32][2];   /* inclusive ranges */
	__u32 len_lo, len_hi;
	__u8  ttl_lo, ttl_hi;
	__u16 vlan;
	__u16 qtype;
	__u16 ether;
	__u8  qname_wild;
	__u8  qname_len;
	__u8  qname[256];      /* wire format, lowercase */
};

/* ---- DNS name hash (shared by the filter and its compiler) --------------- */
#define FP_QH_SEED  0xcbf29ce484222325ULL
#define FP_QH_PRIME 0x100000001b3ULL
/*
 * The hash of a wire name folds its labels last to first (the root first),
 * so one backward pass over the labels yields the hash of every suffix.
 * A label (its length byte and bytes, at most 64) is folded 8 bytes at a
 * time, little-endian, the last word zero-padded:
 *     h = (h ^ word) * FP_QH_PRIME   for each word, then
 *     h = (h ^ (h >> 29)) * FP_QH_PRIME   at the end of each label.
 */

#endif /* FASTPATH_TERMS_H */
