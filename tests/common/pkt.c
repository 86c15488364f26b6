/* SPDX-License-Identifier: BSD-2-Clause */
/* The test packet builder: see pkt.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "common/pkt.h"

static void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Appends n zeroed bytes; returns their offset, or -1 (and sets err). */
static int push(struct pkt *b, size_t n)
{
	int off = (int)b->len;

	if (b->err || n > PKT_MAX - b->len) {
		b->err = true;
		return -1;
	}
	memset(b->buf + b->len, 0, n);
	b->len += n;
	return off;
}

/* Fills the pending next-protocol field (if left 0), then forgets it. */
static void chain(struct pkt *b, uint16_t type_or_proto)
{
	if (b->next_off < 0)
		return;
	if (b->next_size == 2) {
		if (rd16(b->buf + b->next_off) == 0)
			wr16(b->buf + b->next_off, type_or_proto);
	} else if (b->buf[b->next_off] == 0) {
		b->buf[b->next_off] = (uint8_t)type_or_proto;
	}
	b->next_off = -1;
}

static void pending(struct pkt *b, int off, int size)
{
	b->next_off = off;
	b->next_size = size;
}

void pkt_init(struct pkt *b)
{
	memset(b, 0, sizeof(*b));
	b->l3 = b->l4 = b->l7 = -1;
	b->next_off = -1;
	b->ip_end = -1;
	b->tot_len = -1;
}

void pkt_eth_mac(struct pkt *b, const uint8_t dst[6], const uint8_t src[6], uint16_t ethertype)
{
	int off = push(b, 14);

	if (off < 0)
		return;
	memcpy(b->buf + off, dst, 6);
	memcpy(b->buf + off + 6, src, 6);
	wr16(b->buf + off + 12, ethertype);
	pending(b, off + 12, 2);
}

void pkt_eth(struct pkt *b, uint16_t ethertype)
{
	static const uint8_t dst[6] = { 2, 0, 0, 0, 0, 2 }, src[6] = { 2, 0, 0, 0, 0, 1 };

	pkt_eth_mac(b, dst, src, ethertype);
}

void pkt_vlan(struct pkt *b, uint16_t tpid, uint16_t tci)
{
	int off;

	chain(b, tpid);
	off = push(b, 4);
	if (off < 0)
		return;
	wr16(b->buf + off, tci);
	pending(b, off + 2, 2);
}

static void put_addr(struct pkt *b, int af, const char *text, const uint8_t *raw,
		     uint8_t *dst, size_t n)
{
	if (!text)
		memcpy(dst, raw, n);
	else if (inet_pton(af, text, dst) != 1)
		b->err = true;
}

void pkt_ipv4(struct pkt *b, const struct pkt_ipv4_opts *o)
{
	size_t optlen = ((size_t)o->options_len + 3) & ~(size_t)3;
	uint8_t *ip;
	int off;

	if (optlen > 40) {
		b->err = true;
		return;
	}
	chain(b, PKT_ETH_IPV4);
	off = push(b, 20 + optlen);
	if (off < 0)
		return;
	ip = b->buf + off;
	ip[0] = (uint8_t)((o->version ? o->version : 4) << 4 |
			  (o->ihl ? o->ihl : (20 + optlen) / 4));
	ip[1] = o->tos;
	wr16(ip + 4, o->id);
	wr16(ip + 6, (uint16_t)((o->df ? 0x4000 : 0) | (o->mf ? 0x2000 : 0) |
				(o->frag_off & 0x1fff)));
	ip[8] = o->ttl;
	ip[9] = o->proto;
	put_addr(b, AF_INET, o->src, o->src_b, ip + 12, 4);
	put_addr(b, AF_INET, o->dst, o->dst_b, ip + 16, 4);
	if (o->options_len)
		memcpy(ip + 20, o->options, o->options_len);
	b->l3 = off;
	b->l3_hlen = (int)(20 + optlen);
	b->ip_ver = 4;
	b->tot_len = o->tot_len ? o->tot_len : -1;
	b->ip_bad_csum = o->bad_csum;
	pending(b, off + 9, 1);
}

void pkt_ipv6(struct pkt *b, const struct pkt_ipv6_opts *o)
{
	uint8_t *ip;
	int off;

	chain(b, PKT_ETH_IPV6);
	off = push(b, 40);
	if (off < 0)
		return;
	ip = b->buf + off;
	ip[0] = (uint8_t)((o->version ? o->version : 6) << 4 | (o->tclass >> 4));
	ip[1] = (uint8_t)((o->tclass & 0x0f) << 4 | ((o->flow >> 16) & 0x0f));
	wr16(ip + 2, (uint16_t)o->flow);
	ip[6] = o->next;
	ip[7] = o->hop_limit;
	put_addr(b, AF_INET6, o->src, o->src_b, ip + 8, 16);
	put_addr(b, AF_INET6, o->dst, o->dst_b, ip + 24, 16);
	b->l3 = off;
	b->ip_ver = 6;
	b->tot_len = o->plen ? o->plen : -1;
	pending(b, off + 6, 1);
}

void pkt_ipv6_ext(struct pkt *b, uint8_t type, uint8_t hdrlen)
{
	size_t n = 8 * ((size_t)hdrlen + 1);
	uint8_t *h;
	int off;

	chain(b, type);
	off = push(b, n);
	if (off < 0)
		return;
	h = b->buf + off;
	h[1] = hdrlen;
	if (type == PKT_IP6_ROUTE) {
		h[2] = 0; /* type 0 with segments left 0: ignored by receivers */
	} else {
		h[2] = 1; /* PadN over the rest */
		h[3] = (uint8_t)(n - 4);
	}
	pending(b, off, 1);
}

void pkt_ipv6_frag(struct pkt *b, uint16_t offset, bool more, uint32_t id)
{
	uint8_t *h;
	int off;

	chain(b, PKT_IP6_FRAG);
	off = push(b, 8);
	if (off < 0)
		return;
	h = b->buf + off;
	wr16(h + 2, (uint16_t)(offset << 3 | (more ? 1 : 0)));
	wr16(h + 4, (uint16_t)(id >> 16));
	wr16(h + 6, (uint16_t)id);
	pending(b, off, 1);
}

void pkt_tcp_ex(struct pkt *b, const struct pkt_tcp_opts *o)
{
	size_t optlen = ((size_t)o->options_len + 3) & ~(size_t)3;
	uint8_t *h;
	int off;

	if (optlen > 40) {
		b->err = true;
		return;
	}
	chain(b, 6);
	off = push(b, 20 + optlen);
	if (off < 0)
		return;
	h = b->buf + off;
	wr16(h, o->sport);
	wr16(h + 2, o->dport);
	wr16(h + 4, (uint16_t)(o->seq >> 16));
	wr16(h + 6, (uint16_t)o->seq);
	wr16(h + 8, (uint16_t)(o->ack >> 16));
	wr16(h + 10, (uint16_t)o->ack);
	h[12] = (uint8_t)((o->doff ? o->doff : (20 + optlen) / 4) << 4);
	h[13] = o->flags;
	wr16(h + 14, o->win ? o->win : 65535);
	if (o->options_len)
		memcpy(h + 20, o->options, o->options_len);
	b->l4 = off;
	b->l4_proto = 6;
	b->l4_bad_csum = o->bad_csum;
	b->l7 = (int)b->len;
}

void pkt_tcp(struct pkt *b, uint16_t sport, uint16_t dport, uint8_t flags)
{
	pkt_tcp_ex(b, &(struct pkt_tcp_opts){ .sport = sport, .dport = dport, .flags = flags });
}

void pkt_udp(struct pkt *b, uint16_t sport, uint16_t dport)
{
	int off;

	chain(b, 17);
	off = push(b, 8);
	if (off < 0)
		return;
	wr16(b->buf + off, sport);
	wr16(b->buf + off + 2, dport);
	b->l4 = off;
	b->l4_proto = 17;
	b->l7 = (int)b->len;
}

static void push_icmp(struct pkt *b, uint8_t proto, uint8_t type, uint8_t code)
{
	int off;

	chain(b, proto);
	off = push(b, 8);
	if (off < 0)
		return;
	b->buf[off] = type;
	b->buf[off + 1] = code;
	b->l4 = off;
	b->l4_proto = proto;
	b->l7 = (int)b->len;
}

void pkt_icmp(struct pkt *b, uint8_t type, uint8_t code)
{
	push_icmp(b, 1, type, code);
}

void pkt_icmp6(struct pkt *b, uint8_t type, uint8_t code)
{
	push_icmp(b, 58, type, code);
}

size_t pkt_dns_name(const char *name, uint8_t *out, size_t cap)
{
	size_t n = 0, len = strlen(name);
	const char *p = name, *end = name + len;

	if (len && name[len - 1] == '.')
		end--; /* a trailing dot is the root, written below */
	while (p < end) {
		const char *dot = memchr(p, '.', (size_t)(end - p));
		size_t lab = (size_t)((dot ? dot : end) - p);

		if (n + 1 + lab > cap)
			return 0;
		out[n++] = (uint8_t)lab;
		memcpy(out + n, p, lab);
		n += lab;
		p += lab + 1;
	}
	if (n + 1 > cap)
		return 0;
	out[n++] = 0;
	return n;
}

void pkt_dns(struct pkt *b, const struct pkt_dns_opts *o)
{
	uint8_t wire[PKT_MAX];
	size_t wlen = o->wire ? o->wire_len : pkt_dns_name(o->name ? o->name : "", wire, sizeof(wire));
	const uint8_t *name = o->wire ? o->wire : wire;
	uint8_t *h;
	int off;

	if (!o->wire && wlen == 0) {
		b->err = true;
		return;
	}
	off = push(b, 12 + wlen + (o->no_qtype ? 0 : 4));
	if (off < 0)
		return;
	h = b->buf + off;
	wr16(h, o->id ? o->id : 0x1234);
	wr16(h + 2, o->flags);
	wr16(h + 4, o->no_question ? 0 : o->qdcount ? o->qdcount : 1);
	memcpy(h + 12, name, wlen);
	if (!o->no_qtype) {
		wr16(h + 12 + wlen, o->qtype);
		wr16(h + 14 + wlen, o->qclass ? o->qclass : 1);
	}
	b->l7 = off;
}

void pkt_dns_query(struct pkt *b, const char *name, uint16_t qtype)
{
	pkt_dns(b, &(struct pkt_dns_opts){ .name = name, .qtype = qtype, .flags = 0x0100 });
}

void pkt_bytes(struct pkt *b, const void *data, size_t n)
{
	int off = push(b, n);

	if (off >= 0 && n)
		memcpy(b->buf + off, data, n);
}

void pkt_next(struct pkt *b, uint16_t type)
{
	chain(b, type);
}

/* ---- finish --------------------------------------------------------------- */

static uint32_t sum16(const uint8_t *p, size_t n, uint32_t sum)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += rd16(p + i);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Pseudo-header sum of the IP layer for an upper layer of n bytes. */
static uint32_t pseudo(const struct pkt *b, uint8_t proto, size_t n)
{
	const uint8_t *ip = b->buf + b->l3;
	uint32_t sum;

	if (b->ip_ver == 4)
		sum = sum16(ip + 12, 8, 0);
	else
		sum = sum16(ip + 8, 32, 0);
	return sum + proto + (uint32_t)(n & 0xffff) + (uint32_t)(n >> 16);
}

static void finish_l4(struct pkt *b)
{
	uint8_t *h = b->buf + b->l4;
	size_t n = b->len - (size_t)b->l4;
	int csum_at;
	uint16_t c;
	uint32_t sum = 0;

	switch (b->l4_proto) {
	case 6:  csum_at = 16; sum = pseudo(b, 6, n); break;
	case 17: csum_at = 6;  sum = pseudo(b, 17, n); wr16(h + 4, (uint16_t)n); break;
	case 1:  csum_at = 2;  break;
	case 58: csum_at = 2;  sum = pseudo(b, 58, n); break;
	default: return;
	}
	if (b->ip_ver == 0)
		return;
	wr16(h + csum_at, 0);
	c = fold(sum16(h, n, sum));
	if (b->l4_proto == 17 && c == 0)
		c = 0xffff;
	wr16(h + csum_at, b->l4_bad_csum ? (uint16_t)(c ^ 0x5a5a) : c);
}

int pkt_finish(struct pkt *b)
{
	if (b->err)
		return -ENOSPC;
	if (b->next_off >= 0 && b->ip_ver == 6 && b->next_size == 1)
		chain(b, PKT_IP6_NONE);
	b->next_off = -1;
	if (b->l3 >= 0) {
		uint8_t *ip = b->buf + b->l3;
		size_t n = b->len - (size_t)b->l3;

		b->ip_end = (int)b->len;
		if (b->ip_ver == 4) {
			size_t hl = (size_t)b->l3_hlen < n ? (size_t)b->l3_hlen : n;

			wr16(ip + 2, (uint16_t)(b->tot_len >= 0 ? b->tot_len : (int)n));
			wr16(ip + 10, 0);
			wr16(ip + 10, (uint16_t)(fold(sum16(ip, hl, 0)) ^ (b->ip_bad_csum ? 0x5a5a : 0)));
		} else {
			wr16(ip + 4, (uint16_t)(b->tot_len >= 0 ? b->tot_len : (int)n - 40));
		}
	}
	if (b->l4 >= 0)
		finish_l4(b);
	b->finished = true;
	return 0;
}

/* ---- damaging -------------------------------------------------------------- */

void pkt_truncate(struct pkt *b, size_t len)
{
	if (len < b->len)
		b->len = len;
}

void pkt_pad(struct pkt *b, size_t n, uint8_t byte)
{
	int off = push(b, n);

	if (off >= 0)
		memset(b->buf + off, byte, n);
}

void pkt_set8(struct pkt *b, size_t off, uint8_t v)
{
	if (off < PKT_MAX)
		b->buf[off] = v;
}

void pkt_set16(struct pkt *b, size_t off, uint16_t v)
{
	if (off + 1 < PKT_MAX)
		wr16(b->buf + off, v);
}

void pkt_hexdump(FILE *f, const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		fprintf(f, "%s%02x%s", i % 16 ? "" : "  ", buf[i],
			i % 16 == 15 || i + 1 == len ? "\n" : " ");
}
