/* SPDX-License-Identifier: BSD-2-Clause */
/* Random frames built with the packet builder: see random_packet in rand.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rand_pools.h"

/* A packet address: mostly pool, sometimes pool with random low bits, or random. */
static void packet_addr(struct rng *r, int family, uint8_t *out)
{
	size_t n = family == 4 ? 4 : 16;
	unsigned u = rng_below(r, 100);

	addr_from_pool(r, family, out);
	if (u >= 90)
		rng_bytes(r, out, n);
	else if (u >= 75)
		out[n - 1 - rng_below(r, 2)] = (uint8_t)rng_u32(r);
	else if (u >= 68 && family == 6) /* another /48 of the pool's /32 */
		out[4 + rng_below(r, 2)] = (uint8_t)rng_u32(r);
}

static uint16_t packet_port(struct rng *r)
{
	return rng_pct(r, 80) ? PICK(r, port_pool) : (uint16_t)rng_u32(r);
}

/* ---- DNS names ------------------------------------------------------------------ */

static void random_label(struct rng *r, char *out, size_t len)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789-_";

	for (size_t i = 0; i < len; i++)
		out[i] = chars[rng_below(r, sizeof(chars) - 1)];
	out[len] = 0;
}

/* A query name (text): pool names, random subdomains of them, random case. */
static void packet_name(struct rng *r, char *out, size_t cap)
{
	const char *base = rng_pct(r, 50) ? PICK(r, name_pool) : PICK(r, suffix_pool);
	char lab[16];
	size_t n = 0;

	out[0] = 0;
	if (rng_pct(r, 55)) {
		unsigned k = 1 + rng_below(r, 3);

		for (unsigned i = 0; i < k; i++) {
			random_label(r, lab, 1 + rng_below(r, 12));
			n += (size_t)snprintf(out + n, cap - n, "%s.", lab);
		}
	}
	snprintf(out + n, cap - n, "%s", base);
	if (rng_pct(r, 30))
		for (char *p = out; *p; p++)
			if (*p >= 'a' && *p <= 'z' && rng_pct(r, 50))
				*p = (char)(*p - 'a' + 'A');
	if (rng_pct(r, 10))
		strncat(out, ".", cap - strlen(out) - 1); /* trailing dot: same name */
}

/* A name whose wire length is near 255 (253..258), labels of up to 63. */
static size_t long_wire_name(struct rng *r, uint8_t *w)
{
	size_t target = 253 + rng_below(r, 6), n = 0;

	while (n + 1 < target) {
		size_t lab = target - n - 2 < 63 ? target - n - 2 : 1 + rng_below(r, 63);

		w[n++] = (uint8_t)lab;
		for (size_t i = 0; i < lab; i++)
			w[n++] = (uint8_t)('a' + rng_below(r, 26));
	}
	w[n++] = 0;
	return n;
}

static void push_dns(struct rng *r, struct pkt *b)
{
	char name[320];
	uint8_t wire[300];
	struct pkt_dns_opts o = { .name = name, .qtype = PICK(r, qtype_pool), .flags = 0x0100 };
	unsigned u = rng_below(r, 100);

	packet_name(r, name, sizeof(name));
	if (rng_pct(r, 10))
		o.qtype = (uint16_t)rng_u32(r);
	if (rng_pct(r, 10))
		o.flags = (uint16_t)(rng_u32(r) & 0x7fff); /* opcode etc. vary, still a query */
	if (u < 5) {
		o.flags |= 0x8000; /* a response */
	} else if (u < 8) {
		o.no_question = true;
	} else if (u < 11) {
		size_t n = pkt_dns_name(rng_pct(r, 50) ? "www" : "", wire, sizeof(wire));

		wire[n - 1] = (uint8_t)(0xc0 | rng_below(r, 64)); /* a pointer instead of the root */
		wire[n] = (uint8_t)rng_u32(r);
		o.wire = wire;
		o.wire_len = n + 1;
	} else if (u < 13) {
		wire[0] = (uint8_t)(64 + rng_below(r, 192)); /* label 64..255 */
		memset(wire + 1, 'a', 64);
		wire[65] = 0;
		o.wire = wire;
		o.wire_len = 66;
	} else if (u < 18) {
		o.wire = wire;
		o.wire_len = long_wire_name(r, wire);
	} else if (u < 21) {
		o.no_qtype = true;
	} else if (u < 24) {
		o.qdcount = (uint16_t)(2 + rng_below(r, 3));
	}
	pkt_dns(b, &o);
	if (rng_pct(r, 10)) {
		uint8_t extra[16];

		rng_bytes(r, extra, sizeof(extra));
		pkt_bytes(b, extra, 1 + rng_below(r, sizeof(extra)));
	}
}

/* ---- packets ----------------------------------------------------------------------- */

static void push_tcp(struct rng *r, struct pkt *b)
{
	uint8_t opt[40];
	struct pkt_tcp_opts o = {
		.sport = packet_port(r), .dport = packet_port(r),
		.flags = rng_pct(r, 85) ? PICK(r, tcp_flag_pool) : (uint8_t)rng_u32(r),
		.seq = rng_u32(r), .ack = rng_u32(r),
	};

	if (rng_pct(r, 20)) {
		o.options_len = (uint8_t)(1 + rng_below(r, 40));
		rng_bytes(r, opt, o.options_len);
		o.options = opt;
	}
	pkt_tcp_ex(b, &o);
}

static void push_payload(struct rng *r, struct pkt *b, size_t max)
{
	uint8_t p[64];
	size_t n = rng_below(r, (uint32_t)(max < sizeof(p) ? max : sizeof(p)) + 1);

	rng_bytes(r, p, n);
	pkt_bytes(b, p, n);
}

/* The upper layer: TCP, UDP (DNS), ICMP, another protocol or nothing. */
static void push_l4(struct rng *r, struct pkt *b, int family)
{
	static const uint8_t other_protos[] = { 47, 50, 132, 2, 89, 255 };
	unsigned u = rng_below(r, 100);

	if (u < 35) {
		push_tcp(r, b);
		if (rng_pct(r, 30))
			push_payload(r, b, 40);
	} else if (u < 78) {
		bool dns = rng_pct(r, 55);

		pkt_udp(b, packet_port(r), dns ? 53 : packet_port(r));
		if (dns)
			push_dns(r, b);
		else
			push_payload(r, b, 40);
	} else if (u < 86) {
		bool six = family == 6 ? !rng_pct(r, 5) : rng_pct(r, 5);

		if (six)
			pkt_icmp6(b, rng_pct(r, 50) ? 128 : (uint8_t)rng_u32(r), 0);
		else
			pkt_icmp(b, rng_pct(r, 50) ? 8 : (uint8_t)rng_u32(r), 0);
		push_payload(r, b, 32);
	} else if (u < 94) {
		pkt_next(b, rng_pct(r, 80) ? PICK(r, other_protos) : (uint8_t)rng_u32(r));
		push_payload(r, b, 32);
	}
	/* else: nothing after the IP header */
}

static void push_ipv4(struct rng *r, struct pkt *b)
{
	uint8_t opt[40];
	struct pkt_ipv4_opts o = { .ttl = PICK(r, ttl_pool), .id = (uint16_t)rng_u32(r) };

	packet_addr(r, 4, o.src_b);
	packet_addr(r, 4, o.dst_b);
	if (rng_pct(r, 15)) {
		o.options_len = (uint8_t)(1 + rng_below(r, 40));
		rng_bytes(r, opt, o.options_len);
		o.options = opt;
	}
	if (rng_pct(r, 15)) {
		if (rng_pct(r, 50)) {
			o.mf = true; /* first fragment */
		} else {
			o.frag_off = (uint16_t)(1 + rng_below(r, 0x1fff));
			o.mf = rng_pct(r, 50);
		}
	} else {
		o.df = rng_pct(r, 30);
	}
	pkt_ipv4(b, &o);
}

static void push_ipv6(struct rng *r, struct pkt *b)
{
	static const uint8_t kinds[] = { PKT_IP6_HOP, PKT_IP6_ROUTE, PKT_IP6_DEST, PKT_IP6_FRAG };
	struct pkt_ipv6_opts o = { .hop_limit = PICK(r, ttl_pool), .flow = rng_u32(r) };
	unsigned n_ext = 0;

	packet_addr(r, 6, o.src_b);
	packet_addr(r, 6, o.dst_b);
	pkt_ipv6(b, &o);
	if (rng_pct(r, 30))
		n_ext = rng_pct(r, 70) ? 1 + rng_below(r, 3) : 7 + rng_below(r, 4);
	for (unsigned i = 0; i < n_ext; i++) {
		uint8_t k = PICK(r, kinds);

		if (k == PKT_IP6_FRAG)
			pkt_ipv6_frag(b, rng_pct(r, 50) ? 0 : (uint16_t)(1 + rng_below(r, 0x1fff)),
				      rng_pct(r, 50), rng_u32(r));
		else
			pkt_ipv6_ext(b, k, (uint8_t)rng_below(r, 3));
	}
	if (rng_pct(r, 4)) {
		/* an extension header whose length runs past the datagram: the
		 * upper layer is not reached (undetermined-transport) */
		pkt_ipv6_ext(b, PICK(r, kinds) == PKT_IP6_ROUTE ? PKT_IP6_ROUTE : PKT_IP6_DEST, 0);
		if (!b->err)
			b->buf[b->len - 7] = (uint8_t)(1 + rng_below(r, 255));
	}
}

/* Damage after finish: header fields, truncation, padding. */
static void damage(struct rng *r, struct pkt *b)
{
	size_t l3 = (size_t)b->l3;

	if (b->ip_ver == 4) {
		unsigned u = rng_below(r, 100);

		if (u < 3)
			pkt_set8(b, l3, (uint8_t)((rng_below(r, 16) << 4) | (b->buf[l3] & 0x0f)));
		else if (u < 6)
			pkt_set8(b, l3, (uint8_t)(0x40 | rng_below(r, 5))); /* IHL < 5 */
		else if (u < 8)
			pkt_set8(b, l3, (uint8_t)(0x40 | (6 + rng_below(r, 10))));
		else if (u < 14)
			pkt_set16(b, l3 + 2, (uint16_t)rng_below(r, (uint32_t)(b->len - l3)));
		else if (u < 16)
			pkt_set16(b, l3 + 2, (uint16_t)(b->len - l3 + 1 + rng_below(r, 100)));
	} else if (b->ip_ver == 6) {
		unsigned u = rng_below(r, 100);

		if (u < 3)
			pkt_set8(b, l3, (uint8_t)(rng_below(r, 16) << 4));
		else if (u < 9)
			pkt_set16(b, l3 + 4, (uint16_t)rng_below(r, (uint32_t)(b->len - l3 - 40 + 1)));
		else if (u < 11)
			pkt_set16(b, l3 + 4, (uint16_t)(b->len - l3 - 40 + 1 + rng_below(r, 100)));
	}
	if (b->l4_proto == 6 && b->l4 >= 0 && rng_pct(r, 5))
		pkt_set8(b, (size_t)b->l4 + 12,
			 (uint8_t)((rng_pct(r, 60) ? rng_below(r, 5) : 5 + rng_below(r, 11)) << 4));
	if (rng_pct(r, 12)) {
		uint8_t pad[64];
		size_t n = 1 + rng_below(r, sizeof(pad));

		rng_bytes(r, pad, n);
		if (rng_pct(r, 30) && n >= 4) {
			pad[2] = 0; /* looks like a port 53 or a DNS header */
			pad[3] = 53;
		}
		pkt_pad(b, n, 0);
		memcpy(b->buf + b->len - n, pad, n);
	}
	if (rng_pct(r, 12))
		pkt_truncate(b, rng_below(r, (uint32_t)b->len));
	if (rng_pct(r, 1))
		b->buf[rng_below(r, (uint32_t)b->len)] ^= (uint8_t)(1 + rng_below(r, 255));
}

size_t random_packet(struct rng *r, uint8_t *buf, size_t cap)
{
	static const uint16_t other_types[] = { PKT_ETH_ARP, 0x88cc, 0x8847, 0x0000, 0xffff, 0x0600 };
	struct pkt *b = malloc(sizeof(*b));
	unsigned u, tags;
	size_t len;

	if (!b)
		return 0;
	if (rng_pct(r, 2)) {
		len = rng_below(r, 14); /* too short for Ethernet */
		rng_bytes(r, buf, len < cap ? len : cap);
		free(b);
		return len < cap ? len : cap;
	}
	pkt_init(b);
	pkt_eth(b, 0);
	u = rng_below(r, 100);
	tags = u < 62 ? 0 : u < 80 ? 1 : u < 95 ? 2 : 3;
	for (unsigned i = 0; i < tags; i++)
		pkt_vlan(b, rng_pct(r, 50) ? PKT_ETH_8021Q : PKT_ETH_8021AD,
			 rng_pct(r, 75) ? PICK(r, vlan_pool) : (uint16_t)rng_u32(r));

	u = rng_below(r, 100);
	if (u < 46) {
		push_ipv4(r, b);
		push_l4(r, b, 4);
	} else if (u < 92) {
		push_ipv6(r, b);
		push_l4(r, b, 6);
	} else {
		pkt_next(b, PICK(r, other_types));
		push_payload(r, b, 60);
	}
	pkt_finish(b);
	damage(r, b);

	len = b->len < cap ? b->len : cap;
	memcpy(buf, b->buf, len);
	free(b);
	return len;
}

