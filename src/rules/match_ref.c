/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The reference matcher: the packet semantics of src/rules/match_ref.h,
 * written out literally, one step per sentence of that comment. It defines
 * correctness for every back end, so it is kept simple rather than fast.
 */
#include <string.h>

#include "rules/match_ref.h"

#define ETH_HLEN        14
#define ETH_P_IPV4      0x0800
#define ETH_P_IPV6      0x86dd
#define ETH_P_8021Q     0x8100
#define ETH_P_8021AD    0x88a8
#define VLAN_TAGS_MAX   2
#define IPV6_HLEN       40
#define IPV6_EXT_MAX    8
#define PROTO_TCP       6
#define PROTO_UDP       17
#define DNS_PORT        53

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Bytes [off, off + n) lie within [0, end). */
static bool within(size_t off, size_t n, size_t end)
{
	return off <= end && n <= end - off;
}

static bool is_vlan_tpid(uint16_t type)
{
	return type == ETH_P_8021Q || type == ETH_P_8021AD;
}

/*
 * L2. Returns the L3 ethertype and its offset in *l3, or 0 when there is no
 * L3 to look at (short frame, tag cut short, a third tag).
 */
static uint16_t parse_l2(const uint8_t *f, size_t len, size_t *l3, struct fp_ref_pkt *out)
{
	size_t off = ETH_HLEN;
	uint16_t type;

	if (len < ETH_HLEN)
		return 0;
	type = rd16(f + 12);
	while (is_vlan_tpid(type)) {
		if (out->n_vlan == VLAN_TAGS_MAX)
			return 0; /* a third tag: no L3 */
		if (!within(off, 4, len))
			return 0; /* tag cut short: no L3 */
		out->vlan[out->n_vlan++] = rd16(f + off) & 0x0fff;
		type = rd16(f + off + 2);
		off += 4;
	}
	*l3 = off;
	return type;
}

/* IPv4. Returns the L4 offset, or 0 when no L4 header exists. */
static size_t parse_ipv4(const uint8_t *f, size_t len, size_t l3, size_t *ip_end,
			 struct fp_ref_pkt *out)
{
	const uint8_t *ip = f + l3;
	size_t ihl, tot;
	uint16_t frag;

	if (!within(l3, 20, len))
		return 0;
	ihl = (size_t)(ip[0] & 0x0f) * 4;
	tot = rd16(ip + 2);
	if ((ip[0] >> 4) != 4 || ihl < 20 || !within(l3, ihl, len) || tot < ihl)
		return 0;

	out->l3 = 4;
	out->len = (uint16_t)tot;
	out->ttl = ip[8];
	out->proto_known = true;
	out->proto = ip[9];
	memcpy(out->src, ip + 12, 4);
	memcpy(out->dst, ip + 16, 4);
	*ip_end = l3 + tot < len ? l3 + tot : len;
	frag = rd16(ip + 6);
	out->frag = (frag & 0x2000) || (frag & 0x1fff);
	if (frag & 0x1fff)
		return 0; /* not the first fragment: no L4 header */
	return l3 + ihl;
}

/* IPv6 and its extension headers. Returns the L4 offset, or 0. */
static size_t parse_ipv6(const uint8_t *f, size_t len, size_t l3, size_t *ip_end,
			 struct fp_ref_pkt *out)
{
	const uint8_t *ip = f + l3;
	size_t plen, off;
	uint8_t next;
	int n_ext = 0;

	if (!within(l3, IPV6_HLEN, len) || (ip[0] >> 4) != 6)
		return 0;
	plen = rd16(ip + 4);
	out->l3 = 6;
	/* payload length + 40 may exceed 65535; the u16 field wraps, as
	 * struct fp_pkt's does (see the report on this doubtful point). */
	out->len = (uint32_t)plen + IPV6_HLEN;
	out->ttl = ip[7];
	memcpy(out->src, ip + 8, 16);
	memcpy(out->dst, ip + 24, 16);
	*ip_end = l3 + IPV6_HLEN + plen < len ? l3 + IPV6_HLEN + plen : len;
	next = ip[6];
	off = l3 + IPV6_HLEN;

	while (next == 0 || next == 43 || next == 44 || next == 60) {
		const uint8_t *h = f + off;

		if (++n_ext > IPV6_EXT_MAX)
			return 0; /* more than 8 extension headers: upper layer unknown */
		if (next == 44) {
			uint16_t fo;

			if (!within(off, 8, *ip_end))
				return 0; /* fragment header cut short */
			fo = rd16(h + 2); /* offset in bits 15..3, M in bit 0 */
			if ((fo & 0xfff8) || (fo & 0x0001))
				out->frag = true;
			next = h[0];
			if (fo & 0xfff8) {
				out->proto_known = true;
				out->proto = next;
				return 0; /* not the first fragment: no L4 header */
			}
			off += 8;
		} else {
			size_t hlen;

			if (!within(off, 2, *ip_end))
				return 0; /* cannot even read its length */
			hlen = 8 * ((size_t)h[1] + 1);
			if (!within(off, hlen, *ip_end))
				return 0; /* extension header cut short */
			next = h[0];
			off += hlen;
		}
	}
	out->proto_known = true;
	out->proto = next;
	return off;
}

/* TCP / UDP header within the datagram; then DNS for UDP to port 53. */
static void parse_l4(const uint8_t *f, size_t l4, size_t ip_end, struct fp_ref_pkt *out)
{
	const uint8_t *h = f + l4;

	if (out->proto == PROTO_TCP) {
		size_t doff;

		if (!within(l4, 20, ip_end))
			return;
		doff = (size_t)(h[12] >> 4) * 4;
		if (doff < 20 || !within(l4, doff, ip_end))
			return;
		out->has_tcp_flags = true;
		out->tcp_flags = h[13];
	} else if (out->proto == PROTO_UDP) {
		if (!within(l4, 8, ip_end))
			return;
	} else {
		return; /* other protocols: no ports */
	}
	out->has_ports = true;
	out->sport = rd16(h);
	out->dport = rd16(h + 2);

	if (out->proto == PROTO_UDP && out->dport == DNS_PORT &&
	    fp_dns__question(f + l4 + 8, ip_end - (l4 + 8), out->qname, &out->qname_len,
			     &out->qtype) == 0)
		out->has_dns = true;
}

void fp_ref__parse(const uint8_t *frame, size_t len, struct fp_ref_pkt *out)
{
	size_t l3 = 0, l4 = 0, ip_end = 0;
	uint16_t type;

	memset(out, 0, sizeof(*out));
	type = parse_l2(frame, len, &l3, out);
	out->ethertype = type;
	if (type == ETH_P_IPV4)
		l4 = parse_ipv4(frame, len, l3, &ip_end, out);
	else if (type == ETH_P_IPV6)
		l4 = parse_ipv6(frame, len, l3, &ip_end, out);
	if (l4)
		parse_l4(frame, l4, ip_end, out);
}

/* ---- terms ------------------------------------------------------------- */

static bool in_range(uint32_t v, const struct fp_range *r)
{
	return v >= r->lo && v <= r->hi;
}

static bool in_portset(uint16_t port, const struct fp_portset *ps)
{
	for (unsigned i = 0; i < ps->n && i < FP_PORTS_MAX; i++)
		if (in_range(port, &ps->r[i]))
			return true;
	return false;
}

static bool in_cidr(const uint8_t *addr, uint8_t l3, const struct fp_cidr *c)
{
	unsigned full = c->plen / 8, rest = c->plen % 8;

	if (l3 != c->family)
		return false;
	if (memcmp(addr, c->addr, full) != 0)
		return false;
	if (rest) {
		uint8_t mask = (uint8_t)(0xff << (8 - rest));

		if ((addr[full] & mask) != (c->addr[full] & mask))
			return false;
	}
	return true;
}

/*
 * exact: name == P. wildcard *.S: S is a suffix of the name that starts at
 * a label boundary other than the first one (one or more labels before S).
 */
static bool qname_matches(const struct fp_ref_pkt *pkt, const struct fp_qname *q)
{
	size_t off = 0;

	if (!q->wildcard)
		return pkt->qname_len == q->wire_len &&
		       memcmp(pkt->qname, q->wire, q->wire_len) == 0;
	while (off < pkt->qname_len && pkt->qname[off] != 0) {
		off += 1 + (size_t)pkt->qname[off]; /* skip one label */
		if (pkt->qname_len - off == q->wire_len &&
		    memcmp(pkt->qname + off, q->wire, q->wire_len) == 0)
			return true;
		if (off >= pkt->qname_len)
			break;
	}
	return false;
}

bool fp_ref__rule_matches(const struct fp_rule *rule, const struct fp_ref_pkt *pkt)
{
	uint32_t t = rule->terms;

	if ((t & FP_T_L3) && pkt->l3 != rule->l3)
		return false;
	if ((t & FP_T_PROTO) && !(pkt->proto_known && pkt->proto == rule->proto))
		return false;
	if ((t & FP_T_SRC) && !in_cidr(pkt->src, pkt->l3, &rule->src))
		return false;
	if ((t & FP_T_DST) && !in_cidr(pkt->dst, pkt->l3, &rule->dst))
		return false;
	if ((t & FP_T_SPORT) && !(pkt->has_ports && in_portset(pkt->sport, &rule->sport)))
		return false;
	if ((t & FP_T_DPORT) && !(pkt->has_ports && in_portset(pkt->dport, &rule->dport)))
		return false;
	if ((t & FP_T_FLAGS) &&
	    !(pkt->has_tcp_flags && (pkt->tcp_flags & rule->flags_mask) == rule->flags_val))
		return false;
	if ((t & FP_T_LEN) && !(pkt->l3 && in_range(pkt->len, &rule->len)))
		return false;
	if ((t & FP_T_TTL) && !(pkt->l3 && in_range(pkt->ttl, &rule->ttl)))
		return false;
	if (t & FP_T_VLAN) {
		bool hit = false;

		for (unsigned i = 0; i < pkt->n_vlan && i < 2; i++)
			hit |= pkt->vlan[i] == rule->vlan;
		if (!hit)
			return false;
	}
	if ((t & FP_T_FRAG) && !(pkt->l3 && pkt->frag))
		return false;
	if ((t & FP_T_UNDET) && !(pkt->l3 && !pkt->proto_known))
		return false;
	if ((t & FP_T_ETHER) && pkt->ethertype != rule->ether)
		return false;
	if ((t & FP_T_QNAME) && !(pkt->has_dns && qname_matches(pkt, &rule->qname)))
		return false;
	if ((t & FP_T_QTYPE) && !(pkt->has_dns && pkt->qtype == rule->qtype))
		return false;
	return true;
}

void fp_ref__limit_key(const struct fp_rule *rule, const struct fp_ref_pkt *pkt,
		       struct fp_flt_lim_key *out)
{
	bool src = rule->by == FP_BY_SRC || rule->by == FP_BY_FLOW;
	bool dst = rule->by == FP_BY_DST || rule->by == FP_BY_FLOW;

	memset(out, 0, sizeof(*out));
	out->by = (uint8_t)rule->by;
	if (rule->by == FP_BY_ALL)
		return;
	out->l3 = pkt->l3;
	/* fp_ref__parse leaves an absent address, and IPv4's bytes 4..15, zero */
	if (src && pkt->l3)
		memcpy(out->src, pkt->src, 16);
	if (dst && pkt->l3)
		memcpy(out->dst, pkt->dst, 16);
	if (rule->by == FP_BY_FLOW) {
		if (pkt->proto_known)
			out->proto = pkt->proto;
		if (pkt->has_ports) {
			out->sport = pkt->sport;
			out->dport = pkt->dport;
		}
	}
}

long fp_ref__classify(const struct fp_ruleset *set, const uint8_t *frame, size_t len)
{
	struct fp_ref_pkt pkt;

	fp_ref__parse(frame, len, &pkt);
	for (size_t i = 0; i < set->n; i++)
		if (fp_ref__rule_matches(&set->rules[i], &pkt))
			return (long)i;
	return -1;
}
