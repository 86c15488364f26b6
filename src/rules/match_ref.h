/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The reference matcher: plain C, obviously correct, slow (a loop over rules).
 * It defines what a rule matches; the XDP filter, bpfgen's cBPF lowering and
 * any other back end are tested against it on random packets.
 *
 * Packet semantics (the man page fastpath-rules.7 says the same):
 *
 * L2  Ethernet II, 14 bytes; shorter frame: no L2, nothing below holds.
 *     Up to two 802.1Q (0x8100) or 802.1ad (0x88a8) tags, in any order; each
 *     4 bytes, VID = low 12 bits of the TCI. A tag cut short ends parsing (no
 *     L3; the tags before it count). A third tag: no L3 (tags 1 and 2 count).
 * L3  ethertype 0x0800 IPv4: valid iff 20 bytes present, version 4, IHL >= 5,
 *     IHL*4 bytes present, total length >= IHL*4. Otherwise no L3 at all.
 *     ip_end = min(frame end, l3 + total length) bounds everything above L3
 *     (so Ethernet padding is never read as a header).
 *     len = total length; ttl = TTL; proto = protocol field;
 *     frag = MF set or fragment offset != 0; L4 headers exist only when the
 *     offset is 0.
 *     ethertype 0x86dd IPv6: valid iff 40 bytes present and version 6.
 *     ip_end = min(frame end, l3 + 40 + payload length); len = payload
 *     length + 40; ttl = hop limit. Extension headers 0 (hop-by-hop),
 *     43 (routing), 60 (destination options): 8*(hdrlen+1) bytes; 44
 *     (fragment): 8 bytes; each must lie whole within ip_end, else the
 *     upper layer is unknown (proto terms do not hold, no L4). More than 8
 *     extension headers: upper layer unknown. A fragment header sets frag
 *     (offset != 0 or M set); with offset != 0 its next header is the
 *     proto and there is no L4 header; with offset 0 the walk goes on.
 *     Any other next header value is the upper-layer protocol (proto).
 * L4  Only with a known proto and no non-zero fragment offset.
 *     TCP (6): 20 bytes within ip_end, data offset >= 5, data offset*4 bytes
 *     within ip_end; then sport, dport, flags (byte 13).
 *     UDP (17): 8 bytes within ip_end; then sport, dport.
 *     Other protocols: no ports.
 * DNS UDP with dport 53; payload from l4+8 to ip_end. Header 12 bytes; QR
 *     (bit 15 of flags) = 0; QDCOUNT >= 1. First question: labels from
 *     payload+12: length byte 0 = root (end); 1..63 = label of that many
 *     bytes; 64..255 = no question (compression pointer or extended label).
 *     Every byte must lie within the payload; the wire length of the name
 *     (length bytes and root included) must be <= 255; then 4 more bytes
 *     (qtype, qclass) must be present. qtype = the 16-bit type. Names are
 *     compared after ASCII A-Z -> a-z on label bytes (length bytes untouched).
 *
 * Terms (all must hold):
 *   ip / ip6        L3 is IPv4 / IPv6
 *   proto N (tcp=6 udp=17 icmp=1 icmp6=58)  proto is known and == N
 *   src/dst CIDR    L3 of the CIDR's family, address within the prefix
 *   sport/dport     the packet has ports (TCP or UDP header whole) and the
 *                   port is within one of the ranges
 *   flags           TCP header whole and (flags & mask) == val
 *   len / ttl       L3 valid and value within range
 *   vlan N          one of the (up to two) parsed tags has VID N
 *   ether T         the ethertype after the tags is T (no L2, a tag cut
 *                   short or a third tag: no ethertype; an invalid IP
 *                   header does not matter: ether ip holds on it)
 *   frag            L3 valid and frag set
 *   undetermined-transport  L3 valid and proto unknown (IPv6 only: a chain
 *                   over 8 extension headers or one not whole within
 *                   ip_end); no proto, port, flags or DNS term holds then,
 *                   frag holds if a fragment header was passed
 *   qname P         DNS question readable; exact: name == P; wildcard *.S:
 *                   name has one or more labels before S (S itself does
 *                   not match; `*.` with the root suffix matches any
 *                   name except the root)
 *   qtype T         DNS question readable and qtype == T
 * The first rule (in order) whose terms all hold decides; none: default.
 *
 * Limit buckets: a limit rule counts the packet against one bucket per rule
 * and key (fp_ref__limit_key). No `by`: one bucket. by src: the L3 (4, 6)
 * and the source address; by dst: the L3 and the destination; by flow: the
 * L3, both addresses, the proto when known and the ports when the packet has
 * them. An IPv4 address fills bytes 0..3 of 16, the rest zero; a frame
 * without L3 has L3 0 and zero addresses (all such frames share a bucket);
 * what the packet lacks is zero.
 */
#ifndef FP_RULES_MATCH_REF_H
#define FP_RULES_MATCH_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rule.h"
#include <fastpath/filter_abi.h>

/* What the reference parser found in one frame. */
struct fp_ref_pkt {
	uint16_t ethertype;        /* after the tags; 0: no L2, a tag cut short, a third tag */
	uint8_t n_vlan;            /* 0..2 tags parsed */
	uint16_t vlan[2];          /* VIDs, outer first */
	uint8_t l3;                /* 0 none, 4, 6 */
	bool proto_known;
	uint8_t proto;
	bool frag;
	uint32_t len;              /* len term value (IPv6: payload length + 40, up to 65575) */
	uint8_t ttl;
	uint8_t src[16], dst[16];  /* v4 in [0..3] */
	bool has_ports;
	uint16_t sport, dport;     /* host order */
	bool has_tcp_flags;
	uint8_t tcp_flags;
	bool has_dns;              /* a readable first question of a query */
	uint8_t qname_len;         /* wire length incl. root */
	uint8_t qname[FP_DNS_NAME_MAX]; /* wire format, lowercased */
	uint16_t qtype;
};

/* Parses one Ethernet frame. Never fails: absent parts are marked absent. */
void fp_ref__parse(const uint8_t *frame, size_t len, struct fp_ref_pkt *out);

/*
 * Decodes the first question of a DNS message (payload = the UDP payload).
 * Returns 0 with name (wire format, lowercased), its wire length and qtype
 * filled, or -1 when the message has no readable question of a query
 * (see the rules above).
 */
int fp_dns__question(const uint8_t *payload, size_t len, uint8_t name[FP_DNS_NAME_MAX],
		     uint8_t *name_len, uint16_t *qtype);

/* True when every term of the rule holds for the packet. */
bool fp_ref__rule_matches(const struct fp_rule *rule, const struct fp_ref_pkt *pkt);

/* The bucket a limit rule counts the packet against (see above), as the
 * filter's struct fp_flt_lim_key but for the rule's ident, left 0 (the
 * filter's is a hash of the rule's canonical text: fp_rule_ident). */
void fp_ref__limit_key(const struct fp_rule *rule, const struct fp_ref_pkt *pkt,
		       struct fp_flt_lim_key *out);

/* Index of the first matching rule, or -1 when the default decides. */
long fp_ref__classify(const struct fp_ruleset *set, const uint8_t *frame, size_t len);

#endif /* FP_RULES_MATCH_REF_H */
