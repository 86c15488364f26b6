/* SPDX-License-Identifier: BSD-2-Clause */
/* A steered AF_XDP session's insides, shared by xsk_session.c (open,
 * close) and xsk_ring.c (receive, transmit, statistics). */
#ifndef FP_XSK_INTERNAL_H
#define FP_XSK_INTERNAL_H

#include <stdbool.h>
#include <xdp/xsk.h>
#include <fastpath/xsk.h>
#include <fastpath/steer_abi.h>
#include "steer/steer.h"

#define XSK_FRAME_SIZE 2048u

/* An RX frame goes back to the fill ring when the last of these clears:
 * handed out by rx_batch (until rx_release), and sent by forward (until
 * its completion, which in copy mode may come before the release). */
#define FRAME_TAKEN 1u
#define FRAME_ON_TX 2u

/* One queue's socket and its umem: frames [0, rx_frames) for RX (in the
 * fill ring, the RX ring, handed out, or forwarded: on a TX ring), the
 * rest for TX (free_tx, or in flight). A socket on
 * another session's umem (.share) has own pointing to the queue that owns
 * the frames; every frame goes back to own's fill ring or free_tx. */
struct xsk_queue {
	__u32 qid;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	void *area;
	size_t area_len;
	struct xsk_ring_prod fill, tx;
	struct xsk_ring_cons comp, rx;
	__u32 rx_frames;
	__u64 *free_tx;        /* TX frame addresses not in flight */
	__u32 n_free_tx, tx_inflight;
	__u32 unkicked;        /* TX frames queued since the last kick */
	__u32 peeked, peek_idx; /* RX descriptors handed out, not yet released */
	struct xsk_queue *own;  /* the queue whose umem and frames this uses (or itself) */
	__u8 *frame;            /* per RX frame: FRAME_TAKEN | FRAME_ON_TX */
	__u64 *refill;          /* RX frames waiting for room in the fill ring */
	__u32 n_refill;
	bool shared;            /* on another session's umem: nothing of it to free */
	bool in_map, cfg_set;
	struct fp_steer_counts base; /* the stage's counts when the session opened */
};

struct fp_xsk {
	char ifname[16];
	char bpffs[256];
	struct fp_pipeline *pl;
	struct fp_steer_fds fds;
	bool stage_loaded;      /* this session loaded the steer stage */
	bool tx_only;           /* no terms: nothing steered, no pipeline */
	bool zerocopy;
	bool shared_umem;       /* opened with .share */
	bool busy_poll;         /* rx_batch spins on recvfrom (busy polling) */
	unsigned n;
	struct xsk_queue *q;
	unsigned next;          /* the queue rx_batch starts at (round robin) */
	__u64 received, sent;
};

#endif
