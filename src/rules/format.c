// SPDX-License-Identifier: BSD-2-Clause
/*
 * Canonical text of a rule: the action (with rate, burst and by), the terms
 * in a fixed order, sample, the explicit id and the quoted comment. Parsing
 * the output gives back an equal rule (fp_rule__equal).
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "values.h"

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (o->len < o->size)
		n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
	else
		n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static void put_cidr(struct out *o, const char *kw, const struct fp_cidr *c)
{
	char a[INET6_ADDRSTRLEN];
	int v6 = c->family == 6;

	if (!inet_ntop(v6 ? AF_INET6 : AF_INET, c->addr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	if (c->plen == (v6 ? 128 : 32))
		put(o, " %s %s", kw, a);
	else
		put(o, " %s %s/%u", kw, a, c->plen);
}

static void put_range(struct out *o, const struct fp_range *r)
{
	if (r->lo == r->hi)
		put(o, "%u", r->lo);
	else
		put(o, "%u-%u", r->lo, r->hi);
}

static void put_ports(struct out *o, const char *kw, const struct fp_portset *p)
{
	put(o, " %s ", kw);
	for (unsigned i = 0; i < p->n && i < FP_PORTS_MAX; i++) {
		if (i)
			put(o, ",");
		put_range(o, &p->r[i]);
	}
}

static void put_qname(struct out *o, const struct fp_qname *q)
{
	size_t i = 0;

	put(o, " qname %s", q->wildcard ? "*." : "");
	if (q->wire_len <= 1 && !q->wildcard) {
		put(o, ".");
		return;
	}
	while (i < q->wire_len && q->wire[i]) {
		size_t ll = q->wire[i];

		if (i)
			put(o, ".");
		put(o, "%.*s", (int)(ll < q->wire_len - i - 1u ? ll : q->wire_len - i - 1u),
		    (const char *)q->wire + i + 1);
		i += ll + 1;
	}
}

static void put_comment(struct out *o, const char *c)
{
	put(o, " \"");
	for (; *c; c++) {
		if (*c == '"' || *c == '\\')
			put(o, "\\%c", *c);
		else
			put(o, "%c", *c);
	}
	put(o, "\"");
}

static const char *proto_name(uint8_t p)
{
	switch (p) {
	case 6:  return "tcp";
	case 17: return "udp";
	case 1:  return "icmp";
	case 58: return "icmp6";
	}
	return NULL;
}

int fp_rule__format(const struct fp_rule *r, char *buf, size_t size)
{
	struct out o = { .buf = buf, .size = size };
	uint32_t t = r->terms;

	if (size)
		buf[0] = '\0';
	put(&o, "%s", fp_action__name(r->action));
	if (r->action == FP_ACT_LIMIT) {
		put(&o, " %u/%s burst %u", r->rate_count, r->rate_period_s == 60 ? "m" : "s", r->burst);
		if (r->by != FP_BY_ALL)
			put(&o, " by %s", fp_limit_by__name(r->by));
	}
	if (t & FP_T_ETHER) {
		const char *name = fp_ether__name(r->ether);

		if (name)
			put(&o, " ether %s", name);
		else
			put(&o, " ether 0x%04x", r->ether);
	}
	if (t & FP_T_L3)
		put(&o, " %s", r->l3 == 6 ? "ip6" : "ip");
	if (t & FP_T_PROTO) {
		const char *name = proto_name(r->proto);

		if (name)
			put(&o, " %s", name);
		else
			put(&o, " proto %u", r->proto);
	}
	if (t & FP_T_SRC)
		put_cidr(&o, "src", &r->src);
	if (t & FP_T_DST)
		put_cidr(&o, "dst", &r->dst);
	if (t & FP_T_SPORT)
		put_ports(&o, "sport", &r->sport);
	if (t & FP_T_DPORT)
		put_ports(&o, "dport", &r->dport);
	if (t & FP_T_FLAGS) {
		const char *sep = " flags ";

		for (unsigned b = 1; b < 0x100; b <<= 1) {
			if (!(r->flags_mask & b))
				continue;
			put(&o, "%s%s%s", sep, (r->flags_val & b) ? "" : "!", fp_tcp_flag__name(b));
			sep = ",";
		}
	}
	if (t & FP_T_LEN) {
		put(&o, " len ");
		put_range(&o, &r->len);
	}
	if (t & FP_T_TTL) {
		put(&o, " ttl ");
		put_range(&o, &r->ttl);
	}
	if (t & FP_T_VLAN)
		put(&o, " vlan %u", r->vlan);
	if (t & FP_T_FRAG)
		put(&o, " frag");
	if (t & FP_T_UNDET)
		put(&o, " undetermined-transport");
	if (t & FP_T_QNAME)
		put_qname(&o, &r->qname);
	if (t & FP_T_QTYPE) {
		const char *name = fp_qtype__name(r->qtype);

		if (name)
			put(&o, " qtype %s", name);
		else
			put(&o, " qtype %u", r->qtype);
	}
	if (r->sample_n)
		put(&o, " sample 1/%u", r->sample_n);
	put(&o, " id %.*s", FP_RULE_ID_MAX - 1, r->id);
	if (r->comment[0])
		put_comment(&o, r->comment);
	return o.len > (size_t)INT32_MAX ? INT32_MAX : (int)o.len;
}

const char *fp_action__name(enum fp_action a)
{
	switch (a) {
	case FP_ACT_PASS:  return "pass";
	case FP_ACT_DROP:  return "drop";
	case FP_ACT_LIMIT: return "limit";
	}
	return "unknown";
}

const char *fp_limit_by__name(enum fp_limit_by by)
{
	switch (by) {
	case FP_BY_ALL:  return "all";
	case FP_BY_SRC:  return "src";
	case FP_BY_DST:  return "dst";
	case FP_BY_FLOW: return "flow";
	}
	return "unknown";
}

static int range_eq(const struct fp_range *a, const struct fp_range *b)
{
	return a->lo == b->lo && a->hi == b->hi;
}

static int ports_eq(const struct fp_portset *a, const struct fp_portset *b)
{
	if (a->n != b->n || a->n > FP_PORTS_MAX)
		return 0;
	for (unsigned i = 0; i < a->n; i++)
		if (!range_eq(&a->r[i], &b->r[i]))
			return 0;
	return 1;
}

static int cidr_eq(const struct fp_cidr *a, const struct fp_cidr *b)
{
	return a->family == b->family && a->plen == b->plen && !memcmp(a->addr, b->addr, 16);
}

bool fp_rule__equal(const struct fp_rule *a, const struct fp_rule *b)
{
	return a->action == b->action && a->rate_count == b->rate_count &&
	       a->rate_period_s == b->rate_period_s && a->burst == b->burst && a->by == b->by &&
	       a->sample_n == b->sample_n && a->terms == b->terms && a->l3 == b->l3 &&
	       a->proto == b->proto && cidr_eq(&a->src, &b->src) && cidr_eq(&a->dst, &b->dst) &&
	       ports_eq(&a->sport, &b->sport) && ports_eq(&a->dport, &b->dport) &&
	       a->flags_mask == b->flags_mask && a->flags_val == b->flags_val &&
	       range_eq(&a->len, &b->len) && range_eq(&a->ttl, &b->ttl) && a->vlan == b->vlan &&
	       a->qname.wildcard == b->qname.wildcard && a->qname.wire_len == b->qname.wire_len &&
	       !memcmp(a->qname.wire, b->qname.wire, a->qname.wire_len) && a->qtype == b->qtype &&
	       a->ether == b->ether &&
	       !strncmp(a->id, b->id, sizeof(a->id)) &&
	       !strncmp(a->comment, b->comment, sizeof(a->comment));
}
