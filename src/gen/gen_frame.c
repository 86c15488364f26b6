// SPDX-License-Identifier: BSD-2-Clause
/*
 * Template frames for the generator: built-in UDP, TCP SYN and DNS query
 * frames (IPv4 or IPv6, valid checksums), the first packet of a capture,
 * and the layout the kernel half needs to rewrite a frame.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <pcap/pcap.h>

#include "gen/gen.h"
#include "gen/gen_internal.h"

#define ETH_LEN   14
#define IP4_LEN   20
#define IP6_LEN   40
#define UDP_LEN   8
#define TCP_LEN   20
#define MIN_FRAME 60 /* Ethernet minimum without FCS */

static void put16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = v & 0xff; }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

/* One's complement sum of big-endian 16-bit words. */
static uint32_t sum16(uint32_t sum, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += get16(p + i);
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

/* TCP/UDP checksum with the pseudo header of the IP header at ip. */
static uint16_t l4_csum(const struct fp_gen_frame_opts *o, const uint8_t *l4, size_t l4len,
			uint8_t proto)
{
	size_t alen = o->family == 4 ? 4 : 16;
	uint32_t sum = 0;
	uint16_t c;

	sum = sum16(sum, o->src, alen);
	sum = sum16(sum, o->dst, alen);
	sum += proto;
	sum += (uint32_t)l4len;
	c = fold(sum16(sum, l4, l4len));
	return (proto == 17 && c == 0) ? 0xffff : c;
}

/* DNS wire name of `name` into p; returns its length or -EINVAL. */
static int dns_name(const char *name, uint8_t *p, size_t size, char *err, size_t errlen)
{
	size_t n = strlen(name), i = 0, w = 0;

	if (n && name[n - 1] == '.')
		n--;
	if (!n) {
		snprintf(err, errlen, "--dns: empty name; give one such as www.example.com");
		return -EINVAL;
	}
	while (i < n) {
		size_t j = i;

		while (j < n && name[j] != '.')
			j++;
		if (j == i || j - i > 63) {
			snprintf(err, errlen, "--dns '%s': labels must be 1 to 63 bytes", name);
			return -EINVAL;
		}
		if (w + 1 + (j - i) + 1 > size || w + 1 + (j - i) + 1 > 255) {
			snprintf(err, errlen, "--dns '%s': name longer than 255 bytes on the wire", name);
			return -EINVAL;
		}
		p[w++] = (uint8_t)(j - i);
		memcpy(p + w, name + i, j - i);
		w += j - i;
		i = j + 1;
	}
	p[w++] = 0;
	return (int)w;
}

int fp_gen__build_frame(const struct fp_gen_frame_opts *o, uint8_t *buf, size_t *len,
			char *err, size_t errlen)
{
	size_t ip_len = o->family == 4 ? IP4_LEN : IP6_LEN;
	uint8_t *ip = buf + ETH_LEN, *l4 = ip + ip_len, proto;
	size_t l4len, total;
	int n;

	if (o->family != 4 && o->family != 6) {
		snprintf(err, errlen, "address family %d: use IPv4 or IPv6 addresses", o->family);
		return -EINVAL;
	}
	memset(buf, 0, FP_GEN_FRAME_MAX);
	memcpy(buf, o->dst_mac, 6);
	memcpy(buf + 6, o->src_mac, 6);
	put16(buf + 12, o->family == 4 ? 0x0800 : 0x86dd);

	switch (o->kind) {
	case FP_GEN_UDP:
		proto = 17;
		l4len = UDP_LEN + (MIN_FRAME - ETH_LEN - IP4_LEN - UDP_LEN); /* 60 B with v4 */
		memcpy(l4 + UDP_LEN, "fastpath-gen", 12);
		break;
	case FP_GEN_SYN:
		proto = 6;
		l4len = TCP_LEN;
		put16(l4 + 4, 0x1234), put16(l4 + 6, 0x5678); /* seq */
		l4[12] = (TCP_LEN / 4) << 4;
		l4[13] = 0x02;                                /* SYN */
		put16(l4 + 14, 64240);                        /* window */
		break;
	case FP_GEN_DNS:
		proto = 17;
		put16(l4 + UDP_LEN, 0x1234);                  /* id */
		put16(l4 + UDP_LEN + 2, 0x0100);              /* RD */
		put16(l4 + UDP_LEN + 4, 1);                   /* QDCOUNT */
		n = dns_name(o->qname ? o->qname : "", l4 + UDP_LEN + 12, 255, err, errlen);
		if (n < 0)
			return n;
		put16(l4 + UDP_LEN + 12 + n, 1);              /* QTYPE A */
		put16(l4 + UDP_LEN + 12 + n + 2, 1);          /* QCLASS IN */
		l4len = UDP_LEN + 12 + (size_t)n + 4;
		break;
	default:
		snprintf(err, errlen, "unknown template kind %d", (int)o->kind);
		return -EINVAL;
	}
	put16(l4, o->sport);
	put16(l4 + 2, o->dport);
	if (proto == 17)
		put16(l4 + 4, (uint16_t)l4len);

	if (o->family == 4) {
		ip[0] = 0x45;
		put16(ip + 2, (uint16_t)(IP4_LEN + l4len));
		put16(ip + 4, 0x4242);                        /* id */
		ip[8] = 64;
		ip[9] = proto;
		memcpy(ip + 12, o->src, 4);
		memcpy(ip + 16, o->dst, 4);
		put16(ip + 10, fold(sum16(0, ip, IP4_LEN)));
	} else {
		ip[0] = 0x60;
		put16(ip + 4, (uint16_t)l4len);
		ip[6] = proto;
		ip[7] = 64;
		memcpy(ip + 8, o->src, 16);
		memcpy(ip + 24, o->dst, 16);
	}
	put16(l4 + (proto == 17 ? 6 : 16), l4_csum(o, l4, l4len, proto));
	total = ETH_LEN + ip_len + l4len;
	*len = total < MIN_FRAME ? MIN_FRAME : total; /* SYN: zero padding after the datagram */
	return 0;
}

int fp_gen__read_pcap(const char *path, uint8_t *buf, size_t *len, char *err, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *p;
	int ret = 0, rc;

	p = pcap_open_offline(path, perr);
	if (!p) {
		snprintf(err, errlen, "--template %s: %s", path, perr);
		return -EINVAL;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		snprintf(err, errlen, "--template %s: link type %s, need Ethernet (EN10MB)", path,
			 pcap_datalink_val_to_name(pcap_datalink(p)) ?: "unknown");
		ret = -EINVAL;
		goto out;
	}
	rc = pcap_next_ex(p, &h, &data);
	if (rc != 1) {
		snprintf(err, errlen, "--template %s: %s", path,
			 rc == -2 ? "no packet in the capture" : pcap_geterr(p));
		ret = -EINVAL;
		goto out;
	}
	if (h->caplen < ETH_LEN || h->caplen > FP_GEN_FRAME_MAX || h->caplen < h->len) {
		snprintf(err, errlen, "--template %s: first packet is %u bytes (captured %u): "
			 "need a whole frame of 14 to %d bytes", path, h->len, h->caplen,
			 FP_GEN_FRAME_MAX);
		ret = -EINVAL;
		goto out;
	}
	memset(buf, 0, FP_GEN_FRAME_MAX);
	memcpy(buf, data, h->caplen);
	*len = h->caplen;
out:
	pcap_close(p);
	return ret;
}

void gen_layout(const uint8_t *f, size_t len, struct fp_gen_layout *l)
{
	uint32_t off = 12, ihl;
	uint16_t type;
	int tags;

	memset(l, 0, sizeof(*l));
	if (len < ETH_LEN)
		return;
	type = get16(f + off);
	for (tags = 0; tags < 2 && (type == 0x8100 || type == 0x88a8) && off + 6 <= len; tags++) {
		off += 4;
		type = get16(f + off);
	}
	off += 2;
	if (type == 0x0800 && off + IP4_LEN <= len && (f[off] >> 4) == 4) {
		ihl = (f[off] & 0x0f) * 4u;
		if (ihl < IP4_LEN || off + ihl > len)
			return;
		l->family = 4;
		l->ip_off = off;
		l->proto = f[off + 9];
		if (get16(f + off + 6) & 0x3fff)           /* a fragment: no L4 to rewrite */
			return;
		l->l4_off = off + ihl;
	} else if (type == 0x86dd && off + IP6_LEN <= len && (f[off] >> 4) == 6) {
		l->family = 6;
		l->ip_off = off;
		l->proto = f[off + 6];
		l->l4_off = off + IP6_LEN;                  /* extension headers not followed */
	} else {
		return;
	}
	if (l->proto == 6 && l->l4_off + TCP_LEN <= len)
		l->l4_csum_off = l->l4_off + 16;
	else if (l->proto == 17 && l->l4_off + UDP_LEN <= len)
		l->l4_csum_off = l->l4_off + 6;
	else
		l->l4_off = 0;
	/* DNS: a UDP datagram with a header and a first label of 1..63 bytes. */
	if (l->proto == 17 && l->l4_off && l->l4_off + UDP_LEN + 12 + 1 <= len) {
		uint32_t q = l->l4_off + UDP_LEN + 12;
		uint8_t n = f[q];

		if (n >= 1 && n <= FP_GEN_LABEL_MAX && q + 1 + n <= len) {
			l->label_off = q + 1;
			l->label_len = n;
		}
	}
}
