/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the lb's BPF headers share: the state of one packet's decision,
 * bounds checks, byte-order helpers and Internet checksums.
 */
#ifndef FP_LB_PKT_H
#define FP_LB_PKT_H

#include <linux/bpf.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <fastpath/lb_abi.h>

#define LB_IPPROTO_ICMPV6 58
#define LB_AF_INET  2
#define LB_AF_INET6 10
#define LB_ETH_P_IP   0x0800
#define LB_ETH_P_IPV6 0x86dd
#define LB_L2_MAX   22  /* Ethernet and two tags: the deepest l3_off a VIP packet has */
#define LB_OUTER_TTL 64
#define LB_TCP_SYN  0x02
#define LB_TCP_ACK  0x10

/*
 * Header words are read and written in place (unaligned where the CPU
 * allows it, as bpf/lib/parse.h does), through types that may alias
 * anything: a 16-byte address copied as two u64 and then patched as a
 * u32 must not be reordered by the compiler (strict aliasing).
 */
typedef __u16 __attribute__((__may_alias__)) lb_w16;
typedef __u32 __attribute__((__may_alias__)) lb_w32;
typedef __u64 __attribute__((__may_alias__)) lb_w64;

/* Bytes at off..off+n lie within the frame (a pointer check the verifier sees). */
#define LB_IN_FRAME(data, data_end, off, n) ((void *)(data) + (off) + (n) <= (void *)(data_end))

/* Keeps a pointer in one register: clang would otherwise compute
 * data + off once for the bounds check and again for the access, and the
 * verifier does not carry the check over to the second copy. */
#define LB_OPAQUE(x) asm volatile("" : "+r"(x))

/* The decision on one packet, built up step by step. */
struct lb_state {
	struct fp_lb_flow flow;   /* client -> VIP (also for an ICMP error about it) */
	struct fp_lb_vip vip;     /* valid when vip_index != FP_LB_NO_BACKEND */
	struct fp_lb_backend be;  /* valid when be_index != FP_LB_NO_BACKEND */
	struct fp_lb_stats *vs;   /* the VIP's and the backend's stats on this CPU, */
	struct fp_lb_stats *bs;   /* looked up once (NULL until found) */
	struct fp_lb_meta *meta;  /* lb_meta's entry (NULL: none) */
	__u32 vip_index;
	__u32 be_index;
	__u32 hash;               /* fp_lb_flow_hash(&flow) */
	__u32 action;             /* the XDP action once decided */
	__u8  icmp;               /* the packet is an ICMP error about the flow */
	__u8  syn;                /* a TCP SYN without ACK: a new connection */
	__u8  pad[2];
};

/* A step's result: LB_GO goes on to the next step, anything else is the
 * fp_lb_counter that ends the packet (state.action says how). */
#define LB_GO FP_LB_C_MAX

static __always_inline __u16 lb_rd16(const void *p)
{
	return bpf_ntohs(*(const lb_w16 *)p);
}

/*
 * An address of the parse (fp_pkt's src / dst: IPv4 in bytes 0..3, 4..15
 * zero) as the two words a 16-byte copy or compare reads. fp_parse wrote
 * an IPv4 address as a u32 and a zero u32 (bpf/lib/parse.h, copy4z): a
 * u64 load over two younger stores cannot be forwarded from the store
 * buffer and waits for them to reach the cache, so the IPv4 word is read
 * as the u32 it was written as (the stores it spans are of this packet,
 * made a few hundred instructions before by fp_entry).
 */
static __always_inline void lb_addr_words(const __u8 *addr, __u8 family, __u64 *w0, __u64 *w1)
{
	if (family == 4) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		*w0 = *(const lb_w32 *)addr;
#else
		*w0 = (__u64)*(const lb_w32 *)addr << 32;
#endif
		*w1 = 0;
	} else {
		*w0 = ((const lb_w64 *)addr)[0];
		*w1 = ((const lb_w64 *)addr)[1];
	}
}

static __always_inline void lb_copy16(void *to, const void *from)
{
	((lb_w64 *)to)[0] = ((const lb_w64 *)from)[0];
	((lb_w64 *)to)[1] = ((const lb_w64 *)from)[1];
}

static __always_inline int lb_eq16(const void *a, const void *b)
{
	return ((const lb_w64 *)a)[0] == ((const lb_w64 *)b)[0] &&
	       ((const lb_w64 *)a)[1] == ((const lb_w64 *)b)[1];
}

/* Folds a 32-bit ones'-complement sum (bpf_csum_diff's) to a checksum. */
static __always_inline __u16 lb_csum_fold(__u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/* The checksum of an IPv4 header of 20 bytes (its check field zero), in
 * the byte order of memory: store it as it is. */
static __always_inline __u16 lb_ipv4_csum(const void *hdr)
{
	const lb_w16 *w = hdr;
	__u32 sum = 0;

#pragma unroll
	for (int i = 0; i < 10; i++)
		sum += w[i];
	return lb_csum_fold(sum);
}

#endif
