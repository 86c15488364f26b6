/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The decap stage's maps (src/decap), shared by its BPF and user halves;
 * pinned under ROOT/IFACE/decap/. The backend side of the lb: packets the
 * lb encapsulated (IPv4 in IPv4, IPv6 in IPv6, IPv4 in IPv6; IPv6 in IPv4
 * too) and addressed to this host lose their outer header and go to the
 * stack. Bump FP_DECAP_ABI whenever a layout here changes: only the decap
 * stage is then reloaded.
 *
 *   decap_meta   ARRAY[1]  struct fp_decap_meta
 *   decap_addrs  HASH      struct fp_decap_addr -> __u32 (FP_DECAP_ADDR_*):
 *                          the outer destinations this host takes
 *   decap_cnt    PERCPU_ARRAY[FP_DECAP_C_MAX] struct fp_counter, by cause
 */
#ifndef FASTPATH_DECAP_ABI_H
#define FASTPATH_DECAP_ABI_H

#include <fastpath/abi.h>

#define FP_DECAP_ABI 1
#define FP_DECAP_MAX_ADDRS 256 /* decap_addrs entries (the interface's and --addr) */

struct fp_decap_meta {
	__u32 abi_version;     /* FP_DECAP_ABI of the loader (first, as in every meta) */
	__u32 ifindex;
	__u64 loaded_ns;       /* CLOCK_REALTIME at load */
};
FP_ABI_ASSERT(sizeof(struct fp_decap_meta) == 16);

/* An outer destination: IPv4 in addr[0..3], addr[4..15] zero (as fp_pkt.dst). */
struct fp_decap_addr {
	__u8 family;           /* 4 or 6 */
	__u8 pad[3];
	__u8 addr[16];
};
FP_ABI_ASSERT(sizeof(struct fp_decap_addr) == 20);

/* decap_addrs values: where the address came from */
enum { FP_DECAP_ADDR_IFACE = 1,  /* the interface's, at load */
       FP_DECAP_ADDR_GIVEN = 2 }; /* `decap load --addr` */

/*
 * decap_cnt, by cause. Every packet the stage sees is counted once: the
 * decapsulated ones by encapsulation, the others by why they went on
 * untouched or were dropped. Numbers are never reused.
 */
enum fp_decap_counter {
	FP_DECAP_C_4IN4      = 0, /* IPv4 in IPv4 (protocol 4): decapsulated, passed */
	FP_DECAP_C_6IN6      = 1, /* IPv6 in IPv6 (next header 41): decapsulated */
	FP_DECAP_C_4IN6      = 2, /* IPv4 in IPv6 (next header 4): decapsulated */
	FP_DECAP_C_6IN4      = 3, /* IPv6 in IPv4 (protocol 41): decapsulated */
	FP_DECAP_C_NOT_OURS  = 4, /* a tunnel packet for another address: passed */
	FP_DECAP_C_FRAGMENT  = 5, /* a fragment of an outer packet for us: dropped */
	FP_DECAP_C_MALFORMED = 6, /* for us, but the inner header is cut short
				   * or of the wrong version: dropped */
	FP_DECAP_C_EXTHDR    = 7, /* for us, IPv6 extension headers before the
				   * inner packet: passed untouched */
	FP_DECAP_C_OTHER     = 8, /* not a tunnel packet: passed */
	FP_DECAP_C_ECN       = 9, /* for us, outer ECN CE on a Not-ECT inner
				   * packet: dropped (RFC 6040) */
	FP_DECAP_C_MAX       = 10,
};

#endif /* FASTPATH_DECAP_ABI_H */
