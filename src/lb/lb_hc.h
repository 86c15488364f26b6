/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The health checker's encapsulated probes (lb_hc.bpf.c, lb_hc.c), shared
 * by the BPF and user halves. A probe is a TCP connection to VIP:port from
 * a socket marked (SO_MARK) FP_LB_HC_MARK + the backend's lb_backends
 * index. A policy-routing rule sends marked packets out of the lb's
 * interface (table FP_LB_HC_TABLE: a default route through a dummy
 * gateway with a permanent neighbour entry, so no VIP route is needed and
 * the VIP stays non-local); at the interface's tc egress, lb_hc.bpf.c
 * puts the outer header to the backend in front (as the lb stage's:
 * IPv4 in IPv4, IPv6 in IPv6, IPv4 in IPv6), clears the mark, and hands
 * the packet to the neighbour layer toward the backend. The backend
 * decapsulates and answers the lb host from the VIP directly, as it
 * answers clients. Unmarked packets, and marks outside the range, are
 * never touched.
 *
 * Pins, under ROOT/IFACE/lb/ while a checker runs:
 *   lb_hc_reals    ARRAY[FP_LB_MAX_BACKENDS] struct fp_lb_hc_real, by
 *                  lb_backends index (family 0: no probe for it)
 *   lb_hc_counters PERCPU_ARRAY[FP_LB_HC_C_MAX] __u64
 */
#ifndef FP_LB_HC_H
#define FP_LB_HC_H

#include <linux/types.h>
#include <fastpath/lb_abi.h>

/* Marks FP_LB_HC_MARK .. FP_LB_HC_MARK + FP_LB_MAX_BACKENDS - 1 ("FP"). */
#define FP_LB_HC_MARK      0x46500000u
#define FP_LB_HC_MARK_MASK 0xffffc000u
#define FP_LB_HC_TABLE     18000u      /* the routing table (and rule priority) */
#define FP_LB_HC_TC_HANDLE 0x4650u     /* the tc filter's handle and priority */
#define FP_LB_HC_TC_PRIO   0x4650u
/* The dummy gateway: RFC 7600's IPv4 dummy address, and a link-local
 * IPv6 one; never on the wire (the probe's MACs come from the route to
 * the backend). */
#define FP_LB_HC_GW4       "192.0.0.8"
#define FP_LB_HC_GW6       "fe80::c000:8"

#if FP_LB_MAX_BACKENDS > (~FP_LB_HC_MARK_MASK + 1)
#error "FP_LB_HC_MARK_MASK leaves too few bits for a backend index"
#endif

/* Where the probes of one (VIP, backend) pair go. */
struct fp_lb_hc_real {
	__u8  dst[16];         /* the backend (IPv4 in dst[0..3]) */
	__u8  src[16];         /* the outer source: this host's address toward it */
	__u32 ifindex;         /* the route's egress interface */
	__u8  family;          /* 4 or 6 (the outer header); 0: unset */
	__u8  pad[3];
};

enum fp_lb_hc_counter {
	FP_LB_HC_C_ENCAP = 0,  /* encapsulated and sent toward the backend */
	FP_LB_HC_C_UNSET,      /* marked, but no backend at that index: dropped */
	FP_LB_HC_C_ERROR,      /* not IP, or the room could not be made: dropped */
	FP_LB_HC_C_MAX,
};

#endif
