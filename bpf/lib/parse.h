/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one packet parser: Ethernet, up to two VLAN tags, IPv4 (options,
 * fragments), IPv6 (extension headers), TCP, UDP, the DNS question.
 * It fills struct fp_pkt with what the rule model defines (see
 * src/rules/match_ref.h: the reference parser of the same semantics).
 * Every read is bounds-checked against the frame and the IP datagram end.
 */
#ifndef FP_BPF_PARSE_H
#define FP_BPF_PARSE_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <fastpath/abi.h>

#define FP_V6_EXT_MAX 8 /* more extension headers than this: no upper layer */
/* Deepest header start the walk reads (a bound the verifier needs on the
 * offset): past every frame XDP sees (a page at most), so it never decides
 * what a packet matches; an upper layer beyond it counts as not reached. */
#define FP_PARSE_OFF_MAX 16383
#define FP_DNS_PORT   53

/* Bytes at off..off+n lie within the frame (pointer check the verifier sees). */
#define FP_IN_FRAME(data, data_end, off, n) \
	((void *)(data) + (off) + (n) <= (void *)(data_end))

/*
 * Header fields are read as whole (possibly unaligned) words: the verifier
 * allows unaligned packet and map-value access where the CPU does (x86-64:
 * no strict alignment), and one load and a byte swap beat the byte loads,
 * shifts and ors clang emits for an unaligned memcpy (about 90 x86
 * instructions fewer to parse an IPv6 header).
 */
static __always_inline __u16 rd16(const __u8 *p)
{
	return bpf_ntohs(*(const __u16 *)p);
}

/* An IPv4 address into a 16-byte field: bytes 4..15 zero (abi.h, fp_have). */
static __always_inline void copy4z(__u8 *to, const __u8 *from)
{
	*(__u32 *)to = *(const __u32 *)from;
	((__u32 *)to)[1] = 0;
	((__u64 *)to)[1] = 0;
}

static __always_inline void copy16(__u8 *to, const __u8 *from)
{
	((__u64 *)to)[0] = ((const __u64 *)from)[0];
	((__u64 *)to)[1] = ((const __u64 *)from)[1];
}

/* L2: Ethernet and up to two tags. Returns the ethertype, or 0 when there is
 * no L3 to look at. *off is left at the L3 header. */
static __always_inline __u16 parse_l2(void *data, void *data_end, struct fp_pkt *pkt, __u32 *off)
{
	__u8 *p = data;
	__u16 type;

	if (!FP_IN_FRAME(data, data_end, 0, ETH_HLEN))
		return 0;
	pkt->have |= FP_HAVE_L2;
	type = rd16(p + 12);
	*off = ETH_HLEN;
#pragma unroll
	for (int i = 0; i < 2; i++) {
		if (type != ETH_P_8021Q && type != ETH_P_8021AD)
			return type;
		if (!FP_IN_FRAME(data, data_end, *off, 4))
			return 0;
		p = data + *off;
		pkt->vlan[i] = rd16(p) & 0x0fff;
		pkt->n_vlan = i + 1;
		type = rd16(p + 2);
		*off += 4;
	}
	if (type == ETH_P_8021Q || type == ETH_P_8021AD)
		return 0; /* a third tag */
	return type;
}

/* IPv4. Returns the L4 offset when an L4 header may follow, else 0. */
static __always_inline __u32 parse_ipv4(void *data, void *data_end, struct fp_pkt *pkt, __u32 off)
{
	__u8 *ip;
	__u32 ihl, tot, frame_len = data_end - data;
	__u16 frag;

	if (off > 64 || !FP_IN_FRAME(data, data_end, off, 20))
		return 0;
	ip = data + off;
	if ((ip[0] >> 4) != 4)
		return 0;
	ihl = (ip[0] & 0x0f) * 4;
	tot = rd16(ip + 2);
	if (ihl < 20 || off + ihl > frame_len || tot < ihl)
		return 0;
	pkt->have |= FP_HAVE_L3 | FP_HAVE_PROTO;
	pkt->l3 = 4;
	pkt->l3_off = off;
	pkt->len = tot;
	pkt->ttl = ip[8];
	pkt->proto = ip[9];
	copy4z(pkt->src, ip + 12);
	copy4z(pkt->dst, ip + 16);
	pkt->ip_end = off + tot < frame_len ? off + tot : frame_len;
	frag = rd16(ip + 6);
	if (frag & 0x3fff)
		pkt->have |= FP_HAVE_FRAG;
	if (frag & 0x1fff)
		return 0; /* not the first fragment: no L4 header */
	return off + ihl;
}

/*
 * IPv6 and its extension headers. Returns the L4 offset or 0. FP_HAVE_L3
 * without FP_HAVE_PROTO (the rule term undetermined-transport) exactly when
 * the walk gives up: more than FP_V6_EXT_MAX extension headers, or one not
 * whole within the datagram. A later fragment names the protocol.
 */
static __always_inline __u32 parse_ipv6(void *data, void *data_end, struct fp_pkt *pkt, __u32 off)
{
	__u32 frame_len = data_end - data, end;
	__u8 *ip, *h, nexthdr;

	if (off > 64 || !FP_IN_FRAME(data, data_end, off, 40))
		return 0;
	ip = data + off;
	if ((ip[0] >> 4) != 6)
		return 0;
	end = off + 40 + rd16(ip + 4);
	pkt->have |= FP_HAVE_L3;
	pkt->l3 = 6;
	pkt->l3_off = off;
	pkt->len = (__u32)rd16(ip + 4) + 40;
	pkt->ttl = ip[7];
	copy16(pkt->src, ip + 8);
	copy16(pkt->dst, ip + 24);
	pkt->ip_end = end < frame_len ? end : frame_len;
	nexthdr = ip[6];
	off += 40;

#pragma unroll
	for (int i = 0; i <= FP_V6_EXT_MAX; i++) {
		__u32 hlen;

		if (nexthdr != 0 && nexthdr != 43 && nexthdr != 44 && nexthdr != 60)
			break;
		if (i == FP_V6_EXT_MAX)
			return 0; /* too many extension headers: no upper layer */
		if (off > FP_PARSE_OFF_MAX || off + 8 > pkt->ip_end ||
		    !FP_IN_FRAME(data, data_end, off, 8))
			return 0;
		h = data + off;
		if (nexthdr == 44) {
			__u16 fo = rd16(h + 2); /* offset in bits 15..3, M in bit 0 */

			if (fo & 0xfff9)
				pkt->have |= FP_HAVE_FRAG;
			nexthdr = h[0];
			if (fo & 0xfff8) {
				pkt->proto = nexthdr;
				pkt->have |= FP_HAVE_PROTO;
				return 0; /* not the first fragment: no L4 header */
			}
			hlen = 8;
		} else {
			nexthdr = h[0];
			hlen = ((__u32)h[1] + 1) * 8;
			if (off + hlen > pkt->ip_end)
				return 0;
		}
		off += hlen;
	}
	if (off > FP_PARSE_OFF_MAX)
		return 0; /* too deep to read: no upper layer */
	pkt->proto = nexthdr;
	pkt->have |= FP_HAVE_PROTO;
	return off;
}

/* TCP / UDP headers within the datagram. */
static __always_inline void parse_l4(void *data, void *data_end, struct fp_pkt *pkt, __u32 off)
{
	__u8 *l4;

	if (off > FP_PARSE_OFF_MAX)
		return;
	if (pkt->proto == IPPROTO_TCP) {
		__u32 doff;

		if (off + 20 > pkt->ip_end || !FP_IN_FRAME(data, data_end, off, 20))
			return;
		l4 = data + off;
		doff = (l4[12] >> 4) * 4;
		if (doff < 20 || off + doff > pkt->ip_end)
			return;
		pkt->have |= FP_HAVE_PORTS | FP_HAVE_TCP;
		pkt->tcp_flags = l4[13];
	} else if (pkt->proto == IPPROTO_UDP) {
		if (off + 8 > pkt->ip_end || !FP_IN_FRAME(data, data_end, off, 8))
			return;
		l4 = data + off;
		pkt->have |= FP_HAVE_PORTS;
	} else {
		return;
	}
	pkt->l4_off = off;
	pkt->sport = rd16(l4);
	pkt->dport = rd16(l4 + 2);
}

/* A-Z to a-z in 8 bytes at once. Length bytes (<= 63) are never letters. */
static __always_inline __u64 fp_lower8(__u64 w)
{
	__u64 h = w & 0x7f7f7f7f7f7f7f7fULL;
	__u64 ge_a = h + 0x3f3f3f3f3f3f3f3fULL;  /* bit 7 set where h >= 'A' */
	__u64 gt_z = h + 0x2525252525252525ULL;  /* bit 7 set where h > 'Z' */
	__u64 m = ge_a & ~gt_z & ~w & 0x8080808080808080ULL;

	return w | (m >> 2);
}

/*
 * The DNS header at off and the `copied` bytes after it (5..255) straight
 * from the frame, by 8-byte words, the last one overlapping the one before
 * (no byte of the copy is left out, none past it written). 1: a query,
 * copied into pkt->qname; 0: a response or no question; -1: not within the
 * frame's linear part (then bpf_xdp_load_bytes). Two helper calls cost the
 * water torture ~10 ns.
 */
static __always_inline int dns_read_direct(struct xdp_md *ctx, struct fp_pkt *pkt, __u32 off,
					   __u32 copied)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *h, *q;
	__u32 last;

	if (off > FP_PARSE_OFF_MAX || copied < 8 || copied > 255)
		return -1;
	h = data + off;
	if ((void *)(h + 12) > data_end)
		return -1;
	if ((h[2] & 0x80) || rd16(h + 4) == 0)
		return 0; /* a response, or no question */
	q = h + 12;
	/* the loop bounds last, a value of its own (not copied), so the
	 * verifier's states after the loop do not differ by where it ended */
	last = copied - 8;
	for (__u32 i = 0; i < 31; i++) {
		__u8 *w = q + 8 * i;

		if (8 * i >= last)
			break;
		if ((void *)(w + 8) > data_end)
			return -1;
		*(__u64 *)(pkt->qname + 8 * i) = *(const __u64 *)w;
	}
	q += last;
	if ((void *)(q + 8) > data_end)
		return -1;
	*(__u64 *)(pkt->qname + last) = *(const __u64 *)q;
	return 1;
}

/*
 * The first question of a DNS query to UDP port 53: copies the name (wire
 * format, A-Z lowered), the offsets of its labels and the qtype into pkt.
 * Any fault (response, no question, pointer, long label, long name, cut
 * short) leaves FP_HAVE_DNS clear. Work is per 8 bytes and per label of the
 * name, not per byte and not per byte copied.
 *
 * Not part of fp_parse: it costs a DNS packet about 25 ns, so a stage calls
 * fp_parse_dns when its terms (qname, qtype) need the question, and the
 * first stage that does parses it for the rest. A global function: the
 * verifier checks it once, on its own, in each stage that calls it.
 */
__attribute__((noinline)) int fp_parse_dns(struct xdp_md *ctx, struct fp_pkt *pkt)
{
	__u32 off, avail, copied, pos = 0, n;
	__u8 hdr[12], t[2];
	int direct;

	if (!ctx || !pkt)
		return 0;
	if ((pkt->have & FP_HAVE_DNS_PARSED) || !(pkt->have & FP_HAVE_PORTS) ||
	    pkt->proto != IPPROTO_UDP || pkt->dport != FP_DNS_PORT)
		return 0;
	pkt->have |= FP_HAVE_DNS_PARSED;
	off = pkt->l4_off + 8;
	if (off + 12 > pkt->ip_end)
		return 0;
	avail = pkt->ip_end - off - 12;
	if (avail > 259)
		avail = 259; /* longest name (255) + qtype + qclass */
	if (avail < 5)
		return 0;
	copied = avail > 255 ? 255 : avail;
	direct = dns_read_direct(ctx, pkt, off, copied);
	if (!direct)
		return 0;
	if (direct < 0) {
		if (bpf_xdp_load_bytes(ctx, off, hdr, sizeof(hdr)))
			return 0;
		if ((hdr[2] & 0x80) || rd16(hdr + 4) == 0)
			return 0; /* a response, or no question */
		if (bpf_xdp_load_bytes(ctx, off + 12, pkt->qname, copied))
			return 0;
	}
	off += 12;
	/* the labels: length bytes (<= 63) are read before any lowering */
	for (n = 0; n < FP_DNS_LABELS_MAX; n++) {
		__u8 b;

		if (pos >= avail || pos > 254)
			return 0; /* cut short, or 255 bytes without a root */
		b = pkt->qname[pos & 0xff];
		if (b > 63)
			return 0; /* compression pointer or extended label */
		pkt->label_off[n & (FP_DNS_LABELS_MAX - 1)] = pos;
		if (b == 0)
			break;
		pos += 1 + b;
	}
	if (n == FP_DNS_LABELS_MAX || pos + 1 + 4 > avail)
		return 0; /* no root, or no room for qtype and qclass */
	/* root at pos: qtype follows, in the copy unless the name is near 255 */
	if (pos + 3 <= copied) {
		pkt->qtype = rd16(pkt->qname + ((pos + 1) & 0xff));
	} else {
		if (bpf_xdp_load_bytes(ctx, off + pos + 1, t, 2))
			return 0;
		pkt->qtype = rd16(t);
	}
	pkt->qname_len = pos + 1;
	pkt->n_labels = n + 1;
	for (__u32 i = 0; i < 32; i++) {
		__u64 *w = (__u64 *)(pkt->qname + 8 * i);

		if (8 * i > pos)
			break;
		*w = fp_lower8(*w);
	}
	pkt->have |= FP_HAVE_DNS;
	return 0;
}

/*
 * Parses the whole frame into pkt, per-CPU scratch that still holds the last
 * packet's parse: every field this packet does not set must read zero
 * (abi.h, enum fp_have). Five word stores clear bytes 0..39, the fields
 * before src (they replace the four narrow resets of have, l3, n_vlan and
 * dump_mark this needed anyway); src and dst cost IPv4 two stores each
 * (copy4z), IPv6 nothing (written whole), a frame without IP four.
 */
static __always_inline void fp_parse(struct xdp_md *ctx, struct fp_pkt *pkt)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 *w = (__u64 *)pkt;
	__u32 off = 0, l4 = 0;
	__u16 type;

	w[0] = 0;
	w[1] = 0;
	w[2] = 0;
	w[3] = 0;
	w[4] = 0;
	pkt->pkt_len = data_end - data;
	type = parse_l2(data, data_end, pkt, &off);
	pkt->ethertype = type;
	if (type == ETH_P_IP)
		l4 = parse_ipv4(data, data_end, pkt, off);
	else if (type == ETH_P_IPV6)
		l4 = parse_ipv6(data, data_end, pkt, off);
	if (!l4) {
		if (!(pkt->have & FP_HAVE_L3)) {
			w[5] = 0; /* src[2..15], dst */
			w[6] = 0;
			w[7] = 0;
			w[8] = 0;
		}
		return;
	}
	parse_l4(data, data_end, pkt, l4);
}

#endif
