/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Client frames for the lb tests and what the lb must make of them,
 * written out independently of the BPF code: the encapsulated frame
 * (outer header built field by field here, checksums by lbf_csum) and
 * the ICMP too-big answer. Header-only, for tests/bpf/lb_*.c.
 */
#ifndef FP_TEST_LB_FRAMES_H
#define FP_TEST_LB_FRAMES_H

#include <string.h>
#include "common/pkt.h"
#include "common/lb_fixture.h"

/* A client's TCP (proto 6) or UDP (17) frame with n_vlan tags (802.1ad
 * outer, 802.1Q inner), TTL/hop limit ttl, `payload` bytes, DF set (v4). */
static inline void lbt_frame_flags(struct pkt *b, const char *src, const char *dst, uint16_t sport,
				   uint16_t dport, uint8_t proto, int n_vlan, uint8_t ttl, size_t payload,
				   uint8_t tcp_flags)
{
	static uint8_t fill[PKT_MAX];
	uint8_t a[16];

	for (size_t i = 0; i < sizeof(fill); i++)
		fill[i] = (uint8_t)(i * 7 + 3);
	pkt_init(b);
	pkt_eth(b, 0);
	if (n_vlan == 2)
		pkt_vlan(b, PKT_ETH_8021AD, 100);
	if (n_vlan >= 1)
		pkt_vlan(b, PKT_ETH_8021Q, 0x2000 | 200); /* PCP 1 kept as it was */
	if (lbf_addr(src, a) == 4)
		pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = src, .dst = dst, .ttl = ttl,
						     .tos = 0x2e, .id = 0x1234, .df = true });
	else
		pkt_ipv6(b, &(struct pkt_ipv6_opts){ .src = src, .dst = dst, .hop_limit = ttl,
						     .tclass = 0xb8, .flow = 0x12345 });
	if (proto == 6)
		pkt_tcp(b, sport, dport, tcp_flags);
	else
		pkt_udp(b, sport, dport);
	pkt_bytes(b, fill, payload);
	pkt_finish(b);
}

/* A TCP frame of an established flow (ACK): the lb looks its flow up in
 * the connection table, where a SYN, a new connection, is never looked up. */
static inline void lbt_frame(struct pkt *b, const char *src, const char *dst, uint16_t sport,
			     uint16_t dport, uint8_t proto, int n_vlan, uint8_t ttl, size_t payload)
{
	lbt_frame_flags(b, src, dst, sport, dport, proto, n_vlan, ttl, payload, PKT_ACK);
}

static inline void lbt_put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* The outer source the lb picks for a flow hash: 172.16.0.0/24 and
 * fd00:1::/112 (lbf_reset's) with the host bits from the hash. */
static inline void lbt_outer_src(int family, uint32_t hash, uint8_t out[16])
{
	if (family == 4) {
		lbf_addr("172.16.0.0", out);
		out[3] = hash & 0xff;
	} else {
		lbf_addr("fd00:1::", out);
		out[14] = (hash >> 8) & 0xff;
		out[15] = hash & 0xff;
	}
}

/*
 * The frame the lb sends for client frame `in` (l3 at in->l3, n_vlan tags)
 * to backend `be` (family 4 or 6) from outer source osrc, with MACs
 * dmac/smac: Ethernet and the tags as they were, the outer header, the
 * client's datagram with its TTL / hop limit one lower (IPv4 checksum
 * recomputed). Returns the length.
 */
static inline size_t lbt_expect_encap(const struct pkt *in, const uint8_t dmac[6],
				      const uint8_t smac[6], const char *be, const uint8_t osrc[16],
				      uint32_t hash, uint8_t *out)
{
	const uint8_t *ip = in->buf + in->l3;
	size_t l2 = (size_t)in->l3, len = in->len - l2, o;
	uint8_t dst[16];
	int fam = lbf_addr(be, dst), v4 = in->ip_ver == 4;
	uint8_t tos = v4 ? ip[1] : (uint8_t)(ip[0] << 4 | ip[1] >> 4);

	memcpy(out, dmac, 6);
	memcpy(out + 6, smac, 6);
	memcpy(out + 12, in->buf + 12, l2 - 14);          /* the tags */
	lbt_put16(out + l2 - 2, fam == 4 ? 0x0800 : 0x86dd);
	o = l2;
	if (fam == 4) {
		uint8_t *h = out + o;

		memset(h, 0, 20);
		h[0] = 0x45;
		h[1] = tos;
		lbt_put16(h + 2, (uint16_t)(len + 20));
		h[6] = (ip[6] & 0x40);                       /* DF copied */
		h[8] = 64;
		h[9] = 4;
		memcpy(h + 12, osrc, 4);
		memcpy(h + 16, dst, 4);
		lbt_put16(h + 10, lbf_csum(h, 20, 0));
		o += 20;
	} else {
		uint8_t *h = out + o;
		uint32_t w = 6u << 28 | (uint32_t)tos << 20 | (hash & 0xfffff);

		h[0] = w >> 24;
		h[1] = w >> 16;
		h[2] = w >> 8;
		h[3] = w;
		lbt_put16(h + 4, (uint16_t)len);
		h[6] = v4 ? 4 : 41;
		h[7] = 64;
		memcpy(h + 8, osrc, 16);
		memcpy(h + 24, dst, 16);
		o += 40;
	}
	memcpy(out + o, ip, len);
	if (v4) {
		uint8_t *h = out + o;

		h[8]--;
		h[10] = h[11] = 0;
		lbt_put16(h + 10, lbf_csum(h, (h[0] & 0x0f) * 4, 0));
	} else {
		out[o + 7]--;
	}
	return o + len;
}

#endif
