/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A test packet builder (in the manner of Cilium's pktgen.h and Katran's
 * PacketBuilder): an Ethernet frame is built by pushing headers in order,
 * then pkt_finish() fixes lengths and checksums. Afterwards the frame can be
 * damaged on purpose (pkt_truncate, pkt_pad, pkt_set8/16).
 *
 *   struct pkt b;
 *   pkt_init(&b);
 *   pkt_eth(&b, 0);                            // ethertype from the next push
 *   pkt_vlan(&b, 0x8100, 100);                 // optional tags
 *   pkt_ipv4(&b, &(struct pkt_ipv4_opts){ .src = "192.0.2.1",
 *                                         .dst = "198.51.100.7", .ttl = 64 });
 *   pkt_udp(&b, 40000, 53);
 *   pkt_dns_query(&b, "www.Example.com", 1);
 *   pkt_finish(&b);                            // b.buf, b.len: the frame
 *
 * Next-protocol fields chain automatically: a field left 0 (the ethertype of
 * pkt_eth, a tag's inner type, IPv4 proto, IPv6 next header, an extension
 * header's next header) takes the value of the header pushed after it
 * (vlan: its TPID, ipv4 0x0800, ipv6 0x86dd, ext headers their number,
 * tcp 6, udp 17, icmp 1, icmp6 58). A nonzero value is written as given.
 * An IPv6 next header with nothing after it becomes 59 (no next header).
 *
 * Malformed frames: the option structs carry literal overrides (ihl,
 * version, tot_len, doff, ...), written as given instead of computed; and
 * after pkt_finish():
 *   pkt_truncate(&b, n)        cut the frame to n bytes (any byte)
 *   pkt_pad(&b, n, byte)       Ethernet padding after the IP datagram
 *   pkt_set8/pkt_set16(&b, off, v)   poke any byte, offsets from b.l3 etc.
 *
 * Errors: a push that does not fit sets b.err and is ignored; pkt_finish()
 * then returns -ENOSPC. Only one IP layer per frame (no tunnels).
 */
#ifndef FP_TESTS_PKT_H
#define FP_TESTS_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PKT_MAX 4096

/* Protocol numbers used by the builder and its callers. */
#define PKT_ETH_IPV4   0x0800
#define PKT_ETH_IPV6   0x86dd
#define PKT_ETH_ARP    0x0806
#define PKT_ETH_8021Q  0x8100
#define PKT_ETH_8021AD 0x88a8
#define PKT_IP6_HOP    0   /* hop-by-hop options */
#define PKT_IP6_ROUTE  43
#define PKT_IP6_FRAG   44
#define PKT_IP6_DEST   60  /* destination options */
#define PKT_IP6_NONE   59

enum pkt_tcp_flag {
	PKT_FIN = 0x01, PKT_SYN = 0x02, PKT_RST = 0x04, PKT_PSH = 0x08,
	PKT_ACK = 0x10, PKT_URG = 0x20, PKT_ECE = 0x40, PKT_CWR = 0x80,
};

struct pkt {
	uint8_t buf[PKT_MAX];
	size_t len;         /* frame length so far */
	bool err;           /* a push did not fit */
	/* Offsets of the layers pushed (-1: none), for pokes and for finish. */
	int l3, l4, l7;     /* IP header, TCP/UDP/ICMP header, DNS/payload */
	int ip_ver;         /* 4 or 6, 0 before an IP header */
	int l4_proto;       /* 6, 17, 1, 58 or 0 */
	/* internal: */
	int next_off;       /* where the pending next-protocol field lies, -1 none */
	int next_size;      /* 1 or 2 bytes */
	int ip_end;         /* end of the IP datagram, set by pkt_finish */
	int l3_hlen;        /* IPv4 header bytes as pushed */
	int tot_len;        /* literal total/payload length, -1 computed */
	bool ip_bad_csum, l4_bad_csum, finished;
};

/* ---- building ----------------------------------------------------------- */

void pkt_init(struct pkt *b);

/* Ethernet II: dst 02:00:00:00:00:02, src 02:00:00:00:00:01. type 0: chained. */
void pkt_eth(struct pkt *b, uint16_t ethertype);
/* The same with given MACs (6 bytes each). */
void pkt_eth_mac(struct pkt *b, const uint8_t dst[6], const uint8_t src[6], uint16_t ethertype);

/* One 802.1Q (0x8100) or 802.1ad (0x88a8) tag: VID in the low 12 bits of the
 * TCI (pcp/dei bits may be passed in vid's high bits). Inner type chained. */
void pkt_vlan(struct pkt *b, uint16_t tpid, uint16_t tci);

struct pkt_ipv4_opts {
	const char *src, *dst;      /* dotted quads; NULL: use src_b / dst_b */
	uint8_t src_b[4], dst_b[4]; /* network order */
	uint8_t proto;              /* 0: chained */
	uint8_t ttl, tos;           /* written as given (ttl 0 if unset) */
	uint16_t id;
	uint16_t frag_off;          /* fragment offset in 8-byte units */
	bool mf, df;                /* more fragments, don't fragment */
	const uint8_t *options;     /* raw option bytes, zero-padded to 4 */
	uint8_t options_len;        /* 0..40 */
	/* malformed on purpose: */
	uint8_t ihl;                /* 0: computed; else this 4-bit value */
	uint8_t version;            /* 0: 4; else this 4-bit value */
	int tot_len;                /* 0: computed by finish; else this (e.g. short) */
	bool bad_csum;
};
void pkt_ipv4(struct pkt *b, const struct pkt_ipv4_opts *o);

struct pkt_ipv6_opts {
	const char *src, *dst;       /* inet_pton text; NULL: use src_b / dst_b */
	uint8_t src_b[16], dst_b[16];
	uint8_t next;                /* 0: chained (59 when nothing follows) */
	uint8_t hop_limit;           /* as given */
	uint8_t tclass;
	uint32_t flow;               /* 20 bits */
	/* malformed on purpose: */
	uint8_t version;             /* 0: 6 */
	int plen;                    /* 0: computed by finish; else this payload length */
};
void pkt_ipv6(struct pkt *b, const struct pkt_ipv6_opts *o);

/* Hop-by-hop (0), routing (43) or destination options (60) header of
 * 8*(hdrlen+1) bytes (hdrlen as written in its length byte), padded with
 * PadN options (routing: type 0, segments left 0, no addresses). Next chained. */
void pkt_ipv6_ext(struct pkt *b, uint8_t type, uint8_t hdrlen);
/* Fragment header: offset in 8-byte units, M flag, identification. */
void pkt_ipv6_frag(struct pkt *b, uint16_t offset, bool more, uint32_t id);

struct pkt_tcp_opts {
	uint16_t sport, dport;
	uint8_t flags;               /* PKT_SYN | PKT_ACK ... */
	uint32_t seq, ack;
	uint16_t win;                /* 0: 65535 */
	const uint8_t *options;      /* raw option bytes, zero-padded to 4 */
	uint8_t options_len;         /* 0..40 */
	uint8_t doff;                /* 0: computed; else this 4-bit value */
	bool bad_csum;
};
void pkt_tcp(struct pkt *b, uint16_t sport, uint16_t dport, uint8_t flags);
void pkt_tcp_ex(struct pkt *b, const struct pkt_tcp_opts *o);

/* UDP; length and checksum set by finish. */
void pkt_udp(struct pkt *b, uint16_t sport, uint16_t dport);
/* ICMP / ICMPv6 header of 8 bytes (rest of header 0); checksum by finish. */
void pkt_icmp(struct pkt *b, uint8_t type, uint8_t code);
void pkt_icmp6(struct pkt *b, uint8_t type, uint8_t code);

struct pkt_dns_opts {
	const char *name;            /* text, "a.b.c" or "a.b.c."; "" or "." = root;
	                                labels are not checked: a 64-byte label or a
	                                300-byte name is written as asked */
	const uint8_t *wire;         /* used instead of name when non-NULL: raw name
	                                bytes, e.g. "\xc0\x0c" (a compression pointer) */
	size_t wire_len;
	uint16_t qtype, qclass;      /* qclass 0: 1 (IN) */
	uint16_t id;                 /* 0: 0x1234 */
	uint16_t flags;              /* written as given: 0x0100 = RD; 0x8000 = QR */
	uint16_t qdcount;            /* 0: 1 (use no_question for a literal 0) */
	bool no_question;            /* QDCOUNT = 0 */
	bool no_qtype;               /* stop after the name: no qtype/qclass */
};
/* A DNS query (id 0x1234, RD set, QDCOUNT 1) for name, qtype, class IN. */
void pkt_dns_query(struct pkt *b, const char *name, uint16_t qtype);
void pkt_dns(struct pkt *b, const struct pkt_dns_opts *o);

/* Raw bytes at the end (payload, garbage). */
void pkt_bytes(struct pkt *b, const void *data, size_t n);
/* Fills the pending next-protocol field (an ethertype or an IP protocol) with
 * type, as a header of that type would: use before pkt_bytes for a payload
 * of another protocol (ARP, GRE, ...). */
void pkt_next(struct pkt *b, uint16_t type);

/* Sets IP lengths (unless given literally), UDP length, and the IPv4 header,
 * TCP, UDP, ICMP and ICMPv6 checksums. Returns 0, or -ENOSPC after an
 * overflow. Call once, after the last push. */
int pkt_finish(struct pkt *b);

/* ---- damaging (after pkt_finish) ------------------------------------------ */

void pkt_truncate(struct pkt *b, size_t len);          /* len >= b->len: no-op */
void pkt_pad(struct pkt *b, size_t n, uint8_t byte);   /* n bytes after the frame */
void pkt_set8(struct pkt *b, size_t off, uint8_t v);
void pkt_set16(struct pkt *b, size_t off, uint16_t v); /* network order */

/* ---- helpers ---------------------------------------------------------------- */

/* Text name -> DNS wire format (no case change), as pkt_dns writes it.
 * Returns the wire length (root included), or 0 when out is too small. */
size_t pkt_dns_name(const char *name, uint8_t *out, size_t cap);

/* Hex dump of a frame, 16 bytes a line, for failure messages. */
void pkt_hexdump(FILE *f, const uint8_t *buf, size_t len);

#endif /* FP_TESTS_PKT_H */
