// SPDX-License-Identifier: BSD-2-Clause
/*
 * The rule parser: one line of text -> struct fp_rule.
 *
 *   RULE := ACTION TERM* OPTION*   (options may also sit between terms)
 *
 * Reports the first error of the line (LINE:COL of the offending token) and
 * stops; fp_ruleset__parse (ruleset.c) goes on with the next line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lexer.h"
#include "parse.h"
#include "values.h"

enum kw {
	KW_IP, KW_IP6, KW_TCP, KW_UDP, KW_ICMP, KW_ICMP6, KW_PROTO,
	KW_SRC, KW_DST, KW_SPORT, KW_DPORT, KW_FLAGS, KW_LEN, KW_TTL,
	KW_VLAN, KW_FRAG, KW_QNAME, KW_QTYPE, KW_UNDET, KW_ETHER,
	KW_N_TERMS,
	KW_BURST = KW_N_TERMS, KW_BY, KW_ID, KW_SAMPLE, KW_COMMENT,
	KW_N,
};

/* Keywords in enum kw order; "comment" is the quoted string. */
static const char *const kw_names[KW_N + 1] = {
	"ip", "ip6", "tcp", "udp", "icmp", "icmp6", "proto",
	"src", "dst", "sport", "dport", "flags", "len", "ttl",
	"vlan", "frag", "qname", "qtype", "undetermined-transport", "ether",
	"burst", "by", "id", "sample", NULL, NULL,
};

struct ctx {
	struct fp_lexer lx;
	struct fp_rule *r;
	struct fp_diags *d;
	unsigned line;
	unsigned seen;          /* 1 << enum kw */
	unsigned proto_kw;      /* keyword that set r->proto (KW_FLAGS: implied) */
	int proto_explicit;     /* an explicit protocol term was given */
	unsigned id_col;        /* column of `id NAME`'s NAME, 0 if none */
	unsigned undet_col;     /* column of `undetermined-transport`, 0 if none */
	unsigned ether_col;     /* column of `ether TYPE`'s TYPE, 0 if none */
	char err[FP_ERR_MAX];
};

static int report(struct ctx *c, unsigned col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int report(struct ctx *c, unsigned col, const char *fmt, ...)
{
	char msg[FP_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fp_diags__add(c->d, c->line, col, "%s", msg);
	return -1;
}

static const char *show(const struct fp_tok *t, char *buf, size_t size)
{
	return fp_tok__show(t->s, t->len, buf, size);
}

static int tok_is(const struct fp_tok *t, const char *word)
{
	return t->kind == FP_TOK_WORD && t->len == strlen(word) && !memcmp(t->s, word, t->len);
}

/* The argument of keyword kw: a word. */
static int need_arg(struct ctx *c, const char *kw, const char *what, struct fp_tok *a)
{
	char b[48];

	fp_lexer__next(&c->lx, a);
	switch (a->kind) {
	case FP_TOK_WORD:
		return 0;
	case FP_TOK_END:
		return report(c, a->col, "expected %s after '%s', got end of line", what, kw);
	case FP_TOK_STRING:
		return report(c, a->col, "expected %s after '%s', got \"%s\"", what, kw,
			      show(a, b, sizeof(b)));
	default:
		return report(c, a->col, "%s", a->err);
	}
}

static const char *proto_word(unsigned kw)
{
	return kw == KW_FLAGS ? "flags (implies tcp)" : kw_names[kw];
}

/* Checks that protocol p (from keyword kw) fits the terms already given. */
static int check_proto_fits(struct ctx *c, unsigned col, unsigned kw, uint8_t p)
{
	if ((c->seen & (1u << KW_FLAGS)) && p != 6)
		return report(c, col, "'%s' conflicts with 'flags': TCP flags need tcp", kw_names[kw]);
	for (unsigned k = KW_SPORT; k <= KW_DPORT; k++)
		if ((c->seen & (1u << k)) && p != 6 && p != 17)
			return report(c, col, "'%s' conflicts with '%s': ports need tcp or udp",
				      kw_names[kw], kw_names[k]);
	for (unsigned k = KW_QNAME; k <= KW_QTYPE; k++)
		if ((c->seen & (1u << k)) && p != 17)
			return report(c, col, "'%s' conflicts with '%s': DNS terms need udp",
				      kw_names[kw], kw_names[k]);
	return 0;
}

static int set_proto(struct ctx *c, const struct fp_tok *t, unsigned kw, uint8_t p)
{
	struct fp_rule *r = c->r;

	if (r->terms & FP_T_PROTO) {
		if (r->proto != p)
			return report(c, t->col, "'%s' conflicts with '%s': a rule has one protocol",
				      kw_names[kw], proto_word(c->proto_kw));
		if (c->proto_explicit)
			return report(c, t->col, "protocol given twice ('%s' after '%s')",
				      kw_names[kw], kw_names[c->proto_kw]);
	}
	if (check_proto_fits(c, t->col, kw, p))
		return -1;
	r->terms |= FP_T_PROTO;
	r->proto = p;
	c->proto_kw = kw;
	c->proto_explicit = 1;
	return 0;
}

/* Terms that need a protocol: returns -1 if the rule's protocol excludes them. */
static int need_proto(struct ctx *c, const struct fp_tok *t, unsigned kw)
{
	const struct fp_rule *r = c->r;

	if (!(r->terms & FP_T_PROTO))
		return 0;
	if (kw == KW_FLAGS && r->proto != 6)
		return report(c, t->col, "'flags' needs tcp, but the rule says '%s'",
			      kw_names[c->proto_kw]);
	if ((kw == KW_SPORT || kw == KW_DPORT) && r->proto != 6 && r->proto != 17)
		return report(c, t->col, "'%s' needs tcp or udp, but the rule says '%s'",
			      kw_names[kw], kw_names[c->proto_kw]);
	if ((kw == KW_QNAME || kw == KW_QTYPE) && r->proto != 17)
		return report(c, t->col, "'%s' needs udp (DNS), but the rule says '%s'",
			      kw_names[kw], proto_word(c->proto_kw));
	return 0;
}

/* Family checks between ip/ip6, src and dst. */
static int check_family(struct ctx *c, unsigned col, unsigned kw, uint8_t fam)
{
	const struct fp_rule *r = c->r;

	if ((r->terms & FP_T_L3) && r->l3 != fam)
		return report(c, col, "'%s' is IPv%u but the rule says '%s'", kw_names[kw], fam,
			      r->l3 == 4 ? "ip" : "ip6");
	if (kw != KW_SRC && (r->terms & FP_T_SRC) && r->src.family != fam)
		return report(c, col, "'%s' is IPv%u but 'src' is IPv%u", kw_names[kw], fam,
			      r->src.family);
	if (kw != KW_DST && (r->terms & FP_T_DST) && r->dst.family != fam)
		return report(c, col, "'%s' is IPv%u but 'dst' is IPv%u", kw_names[kw], fam,
			      r->dst.family);
	return 0;
}

static int term(struct ctx *c, const struct fp_tok *t, unsigned kw)
{
	struct fp_rule *r = c->r;
	struct fp_tok a;
	uint64_t v = 0;
	char b[48];
	int e;

	switch (kw) {
	case KW_IP:
	case KW_IP6:
		if (c->seen & (1u << (kw == KW_IP ? KW_IP6 : KW_IP)))
			return report(c, t->col, "'%s' conflicts with '%s'", kw_names[kw],
				      kw == KW_IP ? "ip6" : "ip");
		if (check_family(c, t->col, kw, kw == KW_IP ? 4 : 6))
			return -1;
		r->terms |= FP_T_L3;
		r->l3 = kw == KW_IP ? 4 : 6;
		return 0;
	case KW_TCP:   return set_proto(c, t, kw, 6);
	case KW_UDP:   return set_proto(c, t, kw, 17);
	case KW_ICMP:  return set_proto(c, t, kw, 1);
	case KW_ICMP6: return set_proto(c, t, kw, 58);
	case KW_PROTO:
		if (need_arg(c, "proto", "a protocol number 0..255", &a))
			return -1;
		e = fp_val__uint(a.s, a.len, 255, &v);
		if (e == -1)
			return report(c, a.col, "expected a protocol number 0..255 after 'proto', "
				      "got '%s'", show(&a, b, sizeof(b)));
		if (e == -2)
			return report(c, a.col, "protocol %s out of range 0..255", show(&a, b, sizeof(b)));
		return set_proto(c, t, kw, (uint8_t)v);
	case KW_SRC:
	case KW_DST: {
		struct fp_cidr cidr;

		if (need_arg(c, kw_names[kw], "an IPv4 or IPv6 address or prefix", &a))
			return -1;
		if (fp_val__cidr(a.s, a.len, kw_names[kw], &cidr, c->err, sizeof(c->err)))
			return report(c, a.col, "%s", c->err);
		if (check_family(c, a.col, kw, cidr.family))
			return -1;
		r->terms |= kw == KW_SRC ? FP_T_SRC : FP_T_DST;
		*(kw == KW_SRC ? &r->src : &r->dst) = cidr;
		return 0;
	}
	case KW_SPORT:
	case KW_DPORT:
		if (need_proto(c, t, kw) || need_arg(c, kw_names[kw], "a port or range", &a))
			return -1;
		if (fp_val__ports(a.s, a.len, kw_names[kw], kw == KW_SPORT ? &r->sport : &r->dport,
				  c->err, sizeof(c->err)))
			return report(c, a.col, "%s", c->err);
		r->terms |= kw == KW_SPORT ? FP_T_SPORT : FP_T_DPORT;
		return 0;
	case KW_FLAGS:
		if (need_proto(c, t, kw) ||
		    (!(r->terms & FP_T_PROTO) && check_proto_fits(c, t->col, kw, 6)) ||
		    need_arg(c, "flags", "a list of TCP flags", &a))
			return -1;
		if (fp_val__flags(a.s, a.len, &r->flags_mask, &r->flags_val, c->err, sizeof(c->err)))
			return report(c, a.col, "%s", c->err);
		r->terms |= FP_T_FLAGS | FP_T_PROTO;
		if (!c->proto_explicit) {
			r->proto = 6;
			c->proto_kw = KW_FLAGS;
		}
		return 0;
	case KW_LEN:
	case KW_TTL:
		if (need_arg(c, kw_names[kw], "a number or range N-M", &a))
			return -1;
		if (fp_val__range(a.s, a.len, kw_names[kw], kw == KW_LEN ? 65535 : 255,
				  kw == KW_LEN ? &r->len : &r->ttl, c->err, sizeof(c->err)))
			return report(c, a.col, "%s", c->err);
		r->terms |= kw == KW_LEN ? FP_T_LEN : FP_T_TTL;
		return 0;
	case KW_VLAN:
		if (need_arg(c, "vlan", "a VLAN id 0..4095", &a))
			return -1;
		e = fp_val__uint(a.s, a.len, 4095, &v);
		if (e)
			return report(c, a.col, e == -1 ? "expected a VLAN id 0..4095 after 'vlan', got '%s'"
				      : "VLAN id %s out of range 0..4095", show(&a, b, sizeof(b)));
		r->terms |= FP_T_VLAN;
		r->vlan = (uint16_t)v;
		return 0;
	case KW_FRAG:
		r->terms |= FP_T_FRAG;
		return 0;
	case KW_UNDET:
		r->terms |= FP_T_UNDET;
		c->undet_col = t->col;
		return 0;
	case KW_ETHER:
		if (need_arg(c, "ether", "an ethertype", &a))
			return -1;
		if (fp_val__ether(a.s, a.len, &r->ether, c->err, sizeof(c->err)))
			return report(c, a.col, "%s", c->err);
		r->terms |= FP_T_ETHER;
		c->ether_col = a.col;
		return 0;
	case KW_QNAME:
		if (need_proto(c, t, kw) ||
		    need_arg(c, "qname", "a DNS name or *.SUFFIX", &a))
			return -1;
		if (fp_val__qname(a.s, a.len, &r->qname, c->err, sizeof(c->err)))
			return report(c, a.col, "%s", c->err);
		r->terms |= FP_T_QNAME;
		return 0;
	case KW_QTYPE:
		if (need_proto(c, t, kw) || need_arg(c, "qtype", "a DNS type", &a))
			return -1;
		if (fp_val__qtype(a.s, a.len, &r->qtype, c->err, sizeof(c->err)))
			return report(c, a.col, "%s", c->err);
		r->terms |= FP_T_QTYPE;
		return 0;
	}
	return -1;
}

static int id_ok(const char *s, size_t n)
{
	if (n < 1 || n >= FP_RULE_ID_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		      ch == '_' || ch == '.' || ch == ':' || ch == '-'))
			return 0;
	}
	return 1;
}

static int option(struct ctx *c, const struct fp_tok *t, unsigned kw)
{
	struct fp_rule *r = c->r;
	struct fp_tok a;
	uint64_t v = 0;
	char b[48];
	int e;

	if ((kw == KW_BURST || kw == KW_BY) && r->action != FP_ACT_LIMIT)
		return report(c, t->col, "'%s' only applies to 'limit' rules, not '%s'",
			      kw_names[kw], fp_action__name(r->action));
	switch (kw) {
	case KW_BURST:
		if (need_arg(c, "burst", "a packet count", &a))
			return -1;
		e = fp_val__uint(a.s, a.len, UINT32_MAX, &v);
		if (e || v == 0)
			return report(c, a.col, "expected a packet count 1..%u after 'burst', got '%s'",
				      UINT32_MAX, show(&a, b, sizeof(b)));
		r->burst = (uint32_t)v;
		return 0;
	case KW_BY:
		if (need_arg(c, "by", "src, dst or flow", &a))
			return -1;
		if (tok_is(&a, "src"))
			r->by = FP_BY_SRC;
		else if (tok_is(&a, "dst"))
			r->by = FP_BY_DST;
		else if (tok_is(&a, "flow"))
			r->by = FP_BY_FLOW;
		else
			return report(c, a.col, "expected src, dst or flow after 'by', got '%s'",
				      show(&a, b, sizeof(b)));
		return 0;
	case KW_ID:
		if (need_arg(c, "id", "a rule id", &a))
			return -1;
		if (!id_ok(a.s, a.len))
			return report(c, a.col, "bad rule id '%s': expected 1..%d characters of "
				      "A-Z a-z 0-9 _ . : -", show(&a, b, sizeof(b)), FP_RULE_ID_MAX - 1);
		/* outputs name the default verdict's row "default" (filter list, stats,
		 * test, dump, metrics) and print a missing value as "-" */
		if (tok_is(&a, "default") || tok_is(&a, "-"))
			return report(c, a.col, "rule id '%s' is reserved (it names the default "
				      "verdict in outputs); choose another", show(&a, b, sizeof(b)));
		memcpy(r->id, a.s, a.len);
		r->id[a.len] = '\0';
		c->id_col = a.col;
		return 0;
	case KW_SAMPLE:
		if (need_arg(c, "sample", "a rate 1/N", &a))
			return -1;
		e = a.len > 2 && !memcmp(a.s, "1/", 2) ? fp_val__uint(a.s + 2, a.len - 2, UINT32_MAX, &v) : -1;
		if (e || v == 0)
			return report(c, a.col, "expected 1/N (N 1..%u) after 'sample', got '%s'",
				      UINT32_MAX, show(&a, b, sizeof(b)));
		r->sample_n = (uint32_t)v;
		return 0;
	case KW_COMMENT:
		memcpy(r->comment, t->str, sizeof(r->comment));
		return 0;
	}
	return -1;
}

static int parse_action(struct ctx *c, const struct fp_tok *t)
{
	static const char *const actions[] = { "drop", "pass", "limit", NULL };
	struct fp_rule *r = c->r;
	struct fp_tok a;
	char b[48];

	if (t->kind == FP_TOK_BAD)
		return report(c, t->col, "%s", t->err);
	if (t->kind == FP_TOK_END)
		return report(c, t->col, "empty rule: expected drop, pass or limit");
	if (t->kind == FP_TOK_STRING)
		return report(c, t->col, "a rule starts with drop, pass or limit, not a comment");
	if (tok_is(t, "drop")) {
		r->action = FP_ACT_DROP;
	} else if (tok_is(t, "pass")) {
		r->action = FP_ACT_PASS;
	} else if (tok_is(t, "limit")) {
		r->action = FP_ACT_LIMIT;
		if (need_arg(c, "limit", "a rate N/s or N/m", &a))
			return -1;
		if (fp_val__rate(a.s, a.len, &r->rate_count, &r->rate_period_s,
				 c->err, sizeof(c->err)))
			return report(c, a.col, "%s", c->err);
	} else if (tok_is(t, "default")) {
		return report(c, t->col, "'default' sets the verdict of a rule file; it is not a rule");
	} else {
		const char *sug = fp_val__suggest(t->s, t->len, actions);

		if (sug)
			return report(c, t->col, "unknown action '%s'; did you mean '%s'?",
				      show(t, b, sizeof(b)), sug);
		return report(c, t->col, "unknown action '%s': expected drop, pass or limit",
			      show(t, b, sizeof(b)));
	}
	return 0;
}

static int lookup_kw(const struct fp_tok *t)
{
	if (t->kind == FP_TOK_STRING)
		return KW_COMMENT;
	for (int k = 0; k < KW_N; k++)
		if (kw_names[k] && tok_is(t, kw_names[k]))
			return k;
	return -1;
}

/*
 * undetermined-transport holds only where no upper layer was reached: with a
 * protocol, port, flag or DNS term, or on IPv4 (whose valid header always
 * names its protocol), the rule could never match.
 */
static int check_undet(struct ctx *c)
{
	static const unsigned l4kw[] = { KW_TCP, KW_UDP, KW_ICMP, KW_ICMP6, KW_PROTO, KW_SPORT,
					 KW_DPORT, KW_FLAGS, KW_QNAME, KW_QTYPE };
	const struct fp_rule *r = c->r;

	if (!(r->terms & FP_T_UNDET))
		return 0;
	for (size_t i = 0; i < sizeof(l4kw) / sizeof(l4kw[0]); i++)
		if (c->seen & (1u << l4kw[i]))
			return report(c, c->undet_col, "'undetermined-transport' conflicts with '%s': "
				      "a packet whose upper layer was not reached has no protocol, "
				      "ports, flags or DNS question", kw_names[l4kw[i]]);
	if ((r->terms & FP_T_L3) && r->l3 == 4)
		return report(c, c->undet_col, "'undetermined-transport' never holds with 'ip': "
			      "a valid IPv4 header always names its protocol (use ip6)");
	if (((r->terms & FP_T_SRC) && r->src.family == 4) ||
	    ((r->terms & FP_T_DST) && r->dst.family == 4))
		return report(c, c->undet_col, "'undetermined-transport' never holds with an IPv4 "
			      "address: a valid IPv4 header always names its protocol");
	return 0;
}

/*
 * ether TYPE with terms above layer 2 (all but vlan): those need the IP
 * header of TYPE's family, so TYPE must be ip or ip6 and agree with them.
 */
static int check_ether(struct ctx *c)
{
	const struct fp_rule *r = c->r;
	uint32_t above = r->terms & ~(uint32_t)(FP_T_ETHER | FP_T_VLAN);
	unsigned fam = r->ether == 0x0800 ? 4 : r->ether == 0x86dd ? 6 : 0;

	if (!(r->terms & FP_T_ETHER) || !above)
		return 0;
	if (!fam) {
		char tn[16];

		snprintf(tn, sizeof(tn), "0x%04x", r->ether);
		return report(c, c->ether_col, "'ether %s' conflicts with the IP terms of the "
			      "rule: they need ether ip or ether ip6",
			      fp_ether__name(r->ether) ? fp_ether__name(r->ether) : tn);
	}
	if (((r->terms & FP_T_L3) && r->l3 != fam) ||
	    ((r->terms & FP_T_SRC) && r->src.family != fam) ||
	    ((r->terms & FP_T_DST) && r->dst.family != fam) ||
	    ((r->terms & FP_T_UNDET) && fam == 4))
		return report(c, c->ether_col, "'ether %s' conflicts with the IPv%u terms of the rule",
			      fp_ether__name(r->ether), fam == 4 ? 6 : 4);
	return 0;
}

/* Default burst: 100 ms worth of the rate, at least 1 packet. */
static uint32_t default_burst(uint32_t count, uint32_t period_s)
{
	uint64_t div = (uint64_t)period_s * 10;
	uint64_t b = ((uint64_t)count + div - 1) / div;

	return b ? (uint32_t)b : 1;
}

int fp_rule__parse_line(const char *text, size_t len, unsigned line, struct fp_rule *rule,
			struct fp_diags *diags, unsigned *id_col)
{
	struct ctx c = { .r = rule, .d = diags, .line = line };
	struct fp_tok t;
	char b[48];

	memset(rule, 0, sizeof(*rule));
	rule->line = line;
	fp_lexer__init(&c.lx, text, len);
	fp_lexer__next(&c.lx, &t);
	if (parse_action(&c, &t))
		return -EINVAL;
	for (;;) {
		fp_lexer__next(&c.lx, &t);
		if (t.kind == FP_TOK_END)
			break;
		if (t.kind == FP_TOK_BAD) {
			report(&c, t.col, "%s", t.err);
			return -EINVAL;
		}
		int kw = lookup_kw(&t);
		if (kw < 0) {
			const char *sug = fp_val__suggest(t.s, t.len, kw_names);

			if (sug)
				report(&c, t.col, "unknown term '%s'; did you mean '%s'?",
				       show(&t, b, sizeof(b)), sug);
			else
				report(&c, t.col, "unknown term '%s'", show(&t, b, sizeof(b)));
			return -EINVAL;
		}
		if (c.seen & (1u << kw)) {
			if (kw == KW_COMMENT)
				report(&c, t.col, "a rule has one comment; this is a second one");
			else
				report(&c, t.col, "%s '%s' given twice", kw < KW_N_TERMS ? "term" : "option",
				       kw_names[kw]);
			return -EINVAL;
		}
		if (kw < KW_N_TERMS ? term(&c, &t, (unsigned)kw) : option(&c, &t, (unsigned)kw))
			return -EINVAL;
		c.seen |= 1u << kw;
	}
	if (check_undet(&c) || check_ether(&c))
		return -EINVAL;
	if (rule->action == FP_ACT_LIMIT && !rule->burst)
		rule->burst = default_burst(rule->rate_count, rule->rate_period_s);
	if (!rule->id[0])
		snprintf(rule->id, sizeof(rule->id), "%u", line);
	if (id_col)
		*id_col = c.id_col;
	return 0;
}

int fp_rule__parse(const char *text, unsigned line, struct fp_rule *rule,
		   struct fp_diags *diags)
{
	int err = fp_rule__parse_line(text ? text : "", text ? strlen(text) : 0, line, rule,
				      diags, NULL);

	if (err)
		memset(rule, 0, sizeof(*rule));
	return err;
}
