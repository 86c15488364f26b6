/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fastpath rule model v1: one parsed rule (AST) and one rule set.
 *
 * Parsed once here; lowered by the filter compiler (XDP maps), by bpfgen
 * (classic BPF) and by the reference matcher (plain C). Every back end must
 * give the same verdict as the reference matcher (src/rules/match_ref.c).
 */
#ifndef FP_RULES_RULE_H
#define FP_RULES_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fastpath/terms.h>

#define FP_RULE_ID_MAX      64   /* id NAME: 1..63 chars of [A-Za-z0-9_.:-] */
#define FP_RULE_COMMENT_MAX 128  /* "comment": up to 127 bytes */
#define FP_PORTS_MAX        32   /* ranges in one sport/dport list */
#define FP_DNS_NAME_MAX     255  /* wire length, length bytes and root included */

enum fp_action {
	FP_ACT_PASS  = 0,
	FP_ACT_DROP  = 1,
	FP_ACT_LIMIT = 2,
};

enum fp_limit_by {
	FP_BY_ALL  = 0, /* one bucket for the rule (no `by`) */
	FP_BY_SRC  = 1,
	FP_BY_DST  = 2,
	FP_BY_FLOW = 3, /* src, dst, proto, sport, dport */
};

/* Which terms a rule has (bits of fp_rule.terms): enum fp_term in abi.h,
 * shared with the XDP filter. */

/* TCP flag bits as in the TCP header's flags byte. */
enum fp_tcp_flag {
	FP_TCP_FIN = 0x01, FP_TCP_SYN = 0x02, FP_TCP_RST = 0x04, FP_TCP_PSH = 0x08,
	FP_TCP_ACK = 0x10, FP_TCP_URG = 0x20, FP_TCP_ECE = 0x40, FP_TCP_CWR = 0x80,
};

struct fp_range {
	uint32_t lo, hi; /* inclusive; lo <= hi */
};

struct fp_cidr {
	uint8_t family;   /* 4 or 6 */
	uint8_t plen;     /* 0..32 or 0..128 */
	uint8_t addr[16]; /* network order; v4 in addr[0..3]; bits past plen are zero */
};

struct fp_portset {
	uint8_t n;                         /* 1..FP_PORTS_MAX */
	struct fp_range r[FP_PORTS_MAX];   /* each within 0..65535, as written */
};

struct fp_qname {
	bool wildcard;                     /* "*.SUFFIX": one or more labels below suffix */
	uint8_t wire_len;                  /* bytes used in wire[], root byte included */
	uint8_t wire[FP_DNS_NAME_MAX];     /* exact name or SUFFIX, DNS wire format, lowercase */
};

struct fp_rule {
	enum fp_action action;
	/* limit RATE: `count` packets per `period_s` seconds (1 for /s, 60 for /m) */
	uint32_t rate_count;
	uint32_t rate_period_s;
	uint32_t burst;                    /* packets; defaulted by the parser for limit */
	enum fp_limit_by by;
	uint32_t sample_n;                 /* `sample 1/N`; 0 = not sampled */

	uint32_t terms;                    /* FP_T_* bits present */
	uint8_t l3;                        /* 4 or 6 */
	uint8_t proto;                     /* IP protocol number */
	struct fp_cidr src, dst;
	struct fp_portset sport, dport;
	uint8_t flags_mask, flags_val;     /* (tcp flags & mask) == val */
	struct fp_range len;               /* 0..65535 */
	struct fp_range ttl;               /* 0..255 */
	uint16_t vlan;                     /* 0..4095 */
	struct fp_qname qname;
	uint16_t qtype;
	uint16_t ether;                    /* 0x0600..0xffff, not a VLAN TPID */

	char id[FP_RULE_ID_MAX];           /* `id NAME`, else the line number */
	char comment[FP_RULE_COMMENT_MAX]; /* the quoted comment, unquoted; "" if none */
	unsigned line;                     /* 1-based line in its source, 0 if none */
};

struct fp_ruleset {
	enum fp_action default_action;     /* FP_ACT_PASS or FP_ACT_DROP; default pass */
	size_t n;
	struct fp_rule *rules;             /* malloc'd, n entries, in priority order */
};

/* One error found while parsing: where and what. */
struct fp_diag {
	unsigned line, col;                /* 1-based; col counts bytes */
	char msg[160];
};

struct fp_diags {
	size_t n;                          /* errors found (all of them) */
	size_t cap;
	struct fp_diag *v;                 /* malloc'd; first min(n, cap) are stored */
};

/*
 * Parses a whole rule file. Reports every error (not just the first) into
 * diags. Returns 0 and fills *set on success; on any error returns -EINVAL,
 * leaves *set empty, and diags->n > 0. Returns -ENOMEM on allocation failure.
 */
int fp_ruleset__parse(const char *text, size_t len, struct fp_ruleset *set,
		      struct fp_diags *diags);

/*
 * Parses one rule (the text of one line, no `default`). `line` is used for
 * the default id and for diagnostics. 0 or -EINVAL with diags filled.
 */
int fp_rule__parse(const char *text, unsigned line, struct fp_rule *rule,
		   struct fp_diags *diags);

/*
 * Writes the rule in canonical form, with its id always explicit
 * (e.g. `limit 1000/s burst 100 by src tcp flags syn,!ack id 3 "syn flood"`),
 * so that parsing the output gives back an equal rule. Returns the length
 * it needed (snprintf semantics).
 */
int fp_rule__format(const struct fp_rule *rule, char *buf, size_t size);

/* Frees set->rules and zeroes set. NULL-safe. */
void fp_ruleset__free(struct fp_ruleset *set);
void fp_diags__free(struct fp_diags *diags);

/* Names for printing. */
const char *fp_action__name(enum fp_action a);
/* "all", "src", "dst", "flow". */
const char *fp_limit_by__name(enum fp_limit_by by);
/* "A", "AAAA", ... for the DNS types the grammar names, else NULL. */
const char *fp_qtype__name(uint16_t qtype);
/* "arp", "ip6", ... for the ethertypes the grammar names, else NULL. */
const char *fp_ether__name(uint16_t type);

/* True when the rules are equal in every field except `line` (the parser
 * zeroes what a rule does not use, so unused fields must match too). */
bool fp_rule__equal(const struct fp_rule *a, const struct fp_rule *b);

#endif /* FP_RULES_RULE_H */
