/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The filter compiler: a rule set -> one generation's map contents (an
 * image), built entirely in memory so that `apply` can write it aside and
 * flip, and so that tests can check it without a kernel.
 */
#ifndef FP_FILTER_COMPILE_H
#define FP_FILTER_COMPILE_H

#include <stddef.h>
#include <stdint.h>

#include <fastpath/filter_abi.h>
#include "rules/rule.h"

#define FP_FLT_MAX_KEYS (1u << 20) /* tuple keys in one generation */

struct fp_flt_image {
	struct fp_flt_gencfg cfg;
	uint32_t *cls;                     /* FP_CLS_ENTRIES class ids */
	struct fp_flt_cls_ent *cls_ent;    /* the same with their tuple masks (what is loaded) */
	struct fp_flt_rule *rules;         /* cfg.n_rules */
	struct fp_flt_text *text;          /* cfg.n_rules canonical texts */
	size_t n_keys;
	struct fp_flt_key *keys;           /* tuple key -> key_hit[i] (FP_FLT_HIT) */
	uint32_t *key_hit;
	size_t n_addr;
	struct fp_flt_addr_key *addr;      /* address prefix -> addr_cls[i] */
	uint32_t *addr_cls;
	size_t n_qname;
	struct fp_flt_qname_key *qn_key;   /* DNS name node -> qn_val[i] */
	struct fp_flt_qname_val *qn_val;
	struct fp_flt_qname_slot *qn_slots; /* 2^cfg.qn_bits: the nodes as the stage probes them */
	struct fp_flt_qname_val *qn_names; /* n_qname + 1, by class: what a hit is checked against */
	struct fp_flt_key_slot *key_slots; /* 2^cfg.key_bits: the keys as the stage probes them */
	struct fp_flt_addr_slot *addr_slots; /* 2^cfg.addr_bits */
	uint64_t *abloom;                  /* FP_ABLOOM_WORDS: the prefixes' bits (abi) */
	uint64_t *cmask;                   /* FP_CM_ENTRIES tuple masks */
	struct fp_flt_pre *pre;            /* FP_PRE_ADDRS address prefilter entries, by /16 */
	uint64_t *b48;                     /* FP_PRE_B48_BLOCKS x 1024 words: the /48 bitmaps (abi.h) */
	struct fp_flt_pre *pre_map;        /* FP_PRE_ENTRIES: the same as the map holds them,
					    * an index and shared entries (abi.h) */
};

/*
 * Builds the image of a rule set. 0, or a negative errno with a message in
 * err (e.g. -E2BIG "rule 'x' expands to N table entries ...").
 */
int fp_flt_image__build(const struct fp_ruleset *set, struct fp_flt_image *img,
			char *err, size_t errlen);
void fp_flt_image__free(struct fp_flt_image *img);

/*
 * What `rules check` runs: the compiler `apply` runs (every limit it
 * enforces: rule count, term shapes, prefix lengths, table entries), without
 * maps or privileges. 0 with *table_bits the --table-bits of `filter load`
 * the set needs (its tables' size), or the build's error.
 */
int fp_flt_image__check(const struct fp_ruleset *set, unsigned *table_bits,
			char *err, size_t errlen);

/* FNV-1a over the wire name, last byte first (what the XDP stage computes). */
uint64_t fp_qname_hash(const uint8_t *wire, size_t len);

/* ident of a rule: limiter state survives an apply when id and text agree. */
uint64_t fp_rule_ident(const char *canonical_text);

#endif
