/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The steer stage's maps (src/steer): which packets of each RX queue a
 * running capture takes (one rule's terms, struct fp_match, the same
 * engine as the dump's --match), the AF_XDP socket of each queue (an
 * XSKMAP, key = the RX queue), and its counters per queue. Bump
 * FP_STEER_ABI when a layout changes.
 */
#ifndef FASTPATH_STEER_ABI_H
#define FASTPATH_STEER_ABI_H

#include <fastpath/abi.h>
#include <fastpath/terms.h>

#define FP_STEER_ABI    1
#define FP_STEER_QUEUES 64      /* RX queues a capture can take (0..63) */

/* fp_steer_meta: the stage on an interface (its first word: the ABI). */
struct fp_steer_meta {
	__u32 abi_version;     /* FP_STEER_ABI */
	__u32 pad;
	__u64 loaded_ns;
};
FP_ABI_ASSERT(sizeof(struct fp_steer_meta) == 16);

/* fp_steer_cfg[queue]: what the capture on that queue takes (active = 0:
 * nothing; the stage then passes every packet of the queue on). */
struct fp_steer_cfg {
	__u32 active;
	__u32 owner_pid;       /* the capture's process (a second one is refused
				* while it lives) */
	__u64 started_ns;      /* CLOCK_REALTIME when it started */
	struct fp_match match;
};

/* fp_steer_cnt[queue], per CPU: what the stage did with the queue's packets. */
struct fp_steer_counts {
	__u64 redirected;      /* matched, handed to the queue's socket */
	__u64 no_socket;       /* matched, but no socket on the queue: passed on */
	__u64 unmatched;       /* not matched, or no capture on the queue: passed on */
	__u64 pad;
};
FP_ABI_ASSERT(sizeof(struct fp_steer_counts) == 32);

#endif /* FASTPATH_STEER_ABI_H */
