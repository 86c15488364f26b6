/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One rule's terms evaluated directly on the parse (for the dump stage's
 * --match): the same semantics as the filter and the reference matcher.
 * A loop over one rule's port ranges and the name's labels, never over rules.
 */
#ifndef FP_BPF_MATCH_H
#define FP_BPF_MATCH_H

#include <fastpath/abi.h>
#include <fastpath/terms.h>

static __always_inline int prefix_holds(const __u8 *addr, const __u8 *net, __u32 plen)
{
#pragma unroll
	for (int i = 0; i < 16; i++) {
		__u32 bits = plen > 8 * i ? plen - 8 * i : 0;
		__u8 mask = bits >= 8 ? 0xff : (__u8)(0xff << (8 - bits));

		if ((addr[i] & mask) != net[i])
			return 0;
	}
	return 1;
}

struct port_walk {
	const __u16 (*r)[2];
	__u16 port;
	int hit;
};

static long port_in(__u32 i, void *arg)
{
	struct port_walk *w = arg;

	if (i >= 32)
		return 1;
	if (w->port >= w->r[i][0] && w->port <= w->r[i][1]) {
		w->hit = 1;
		return 1;
	}
	return 0;
}

static __always_inline int ports_hold(const __u16 (*r)[2], __u32 n, __u16 port)
{
	struct port_walk w = { .r = r, .port = port };

	bpf_loop(n, port_in, &w, 0);
	return w.hit;
}

struct name_cmp {
	const struct fp_pkt *pkt;
	const __u8 *pat;
	__u32 base;
	int diff;
};

static long name_cmp_byte(__u32 i, void *arg)
{
	struct name_cmp *c = arg;

	if (c->pkt->qname[(c->base + i) & 0xff] != c->pat[i & 0xff]) {
		c->diff = 1;
		return 1;
	}
	return 0;
}

/* exact: the whole name; wildcard: a suffix starting at label 1 or later */
static __always_inline int qname_holds(const struct fp_pkt *pkt, const struct fp_match *m)
{
	struct name_cmp c = { .pkt = pkt, .pat = m->qname };
	__u32 base = 0;

	if (m->qname_wild) {
		if (m->qname_len >= pkt->qname_len)
			return 0;
		base = pkt->qname_len - m->qname_len;
		/* the suffix must start at a label boundary after the first label */
		{
			int ok = 0;

			for (__u32 k = 1; k < FP_DNS_LABELS_MAX && k < pkt->n_labels; k++)
				if (pkt->label_off[k] == base)
					ok = 1;
			if (!ok)
				return 0;
		}
	} else if (m->qname_len != pkt->qname_len) {
		return 0;
	}
	c.base = base;
	bpf_loop(m->qname_len, name_cmp_byte, &c, 0);
	return !c.diff;
}

static __always_inline int fp_match_holds(const struct fp_pkt *pkt, const struct fp_match *m)
{
	__u32 t = m->terms, have = pkt->have;

	if ((t & (FP_T_L3 | FP_T_SRC | FP_T_DST | FP_T_LEN | FP_T_TTL | FP_T_FRAG | FP_T_UNDET)) &&
	    !(have & FP_HAVE_L3))
		return 0;
	if ((t & FP_T_L3) && pkt->l3 != m->l3)
		return 0;
	if ((t & FP_T_PROTO) && (!(have & FP_HAVE_PROTO) || pkt->proto != m->proto))
		return 0;
	if ((t & FP_T_SRC) && (pkt->l3 != m->src_fam || !prefix_holds(pkt->src, m->src, m->src_plen)))
		return 0;
	if ((t & FP_T_DST) && (pkt->l3 != m->dst_fam || !prefix_holds(pkt->dst, m->dst, m->dst_plen)))
		return 0;
	if ((t & (FP_T_SPORT | FP_T_DPORT)) && !(have & FP_HAVE_PORTS))
		return 0;
	if ((t & FP_T_SPORT) && !ports_hold(m->sport, m->n_sport, pkt->sport))
		return 0;
	if ((t & FP_T_DPORT) && !ports_hold(m->dport, m->n_dport, pkt->dport))
		return 0;
	if ((t & FP_T_FLAGS) && (!(have & FP_HAVE_TCP) ||
				 (pkt->tcp_flags & m->flags_mask) != m->flags_val))
		return 0;
	if ((t & FP_T_LEN) && (pkt->len < m->len_lo || pkt->len > m->len_hi))
		return 0;
	if ((t & FP_T_TTL) && (pkt->ttl < m->ttl_lo || pkt->ttl > m->ttl_hi))
		return 0;
	if ((t & FP_T_VLAN) && !((pkt->n_vlan > 0 && pkt->vlan[0] == m->vlan) ||
				 (pkt->n_vlan > 1 && pkt->vlan[1] == m->vlan)))
		return 0;
	if ((t & FP_T_FRAG) && !(have & FP_HAVE_FRAG))
		return 0;
	if ((t & FP_T_UNDET) && (have & FP_HAVE_PROTO))
		return 0;
	if ((t & FP_T_ETHER) && pkt->ethertype != m->ether)
		return 0;
	if ((t & (FP_T_QNAME | FP_T_QTYPE)) && !(have & FP_HAVE_DNS))
		return 0;
	if ((t & FP_T_QTYPE) && pkt->qtype != m->qtype)
		return 0;
	if ((t & FP_T_QNAME) && !qname_holds(pkt, m))
		return 0;
	return 1;
}

#endif
