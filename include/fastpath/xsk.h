/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Steered AF_XDP sessions (libfastpath, over libxdp's xsk API).
 *
 * A session takes the packets of one or every RX queue of an interface
 * that a match expression of the rule language selects ("udp dport 9000",
 * "src 198.51.100.0/24 tcp", "qname *.example.com") into user space, one
 * AF_XDP socket per queue; every other packet goes on to the kernel's
 * stack. The pipeline's steer stage (slot 3) does the steering: fastpath's
 * pipeline owns the interface's XDP program, so libxdp never loads one.
 * A session killed outright leaves no redirect behind: the kernel removes
 * a closed socket from the stage's map and the stage then passes the
 * matching packets on.
 *
 *   struct fp_xsk *x;
 *   char err[256];
 *   if (fp_xsk__open("eth0", &(struct fp_xsk_opts){ .match = "udp dport 53" },
 *                    &x, err, sizeof(err)))
 *           errx(1, "%s", err);
 *   while (running)
 *           fp_xsk__rx(x, 100, 64, on_packet, ctx);   // or fp_xsk__rx_batch
 *   fp_xsk__close(x);
 *
 * Functions return 0 (or a count) or a negative errno; those taking `err`
 * also leave a message there saying what failed. Nothing here prints.
 * A session is used by one thread at a time.
 */
#ifndef FASTPATH_XSK_H
#define FASTPATH_XSK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fp_xsk;

#define FP_XSK_ALL_QUEUES (-1)

struct fp_xsk_opts {
	const char *bpffs;     /* pin root; NULL: $FASTPATH_BPFFS or /sys/fs/bpf/fastpath */
	const char *match;     /* the terms of the rule language; NULL: a session
				* that only transmits (nothing steered, no pipeline) */
	int queue;             /* an RX queue, or FP_XSK_ALL_QUEUES */
	bool copy;             /* copy mode even where zero-copy is offered */
	uint32_t frames;       /* umem frames per queue, half for RX (0: 4096) */
	/* Transmit from this session's umem (XDP_SHARED_UMEM): one socket
	 * per socket of `share`, socket i on queue `queue` + i (0 + i with
	 * FP_XSK_ALL_QUEUES), with fill and completion rings of its own, so
	 * that fp_xsk__forward sends share's received frames without a
	 * copy. Transmit only (match must be NULL); the mode (zero-copy or
	 * copy) is share's. Close this session before `share`. */
	struct fp_xsk *share;
	/* Busy polling (SO_PREFER_BUSY_POLL, SO_BUSY_POLL of this many us,
	 * SO_BUSY_POLL_BUDGET 64): fp_xsk__rx_batch, with nothing in the
	 * rings, runs the driver's NAPI itself (recvfrom) until a packet
	 * comes or the timeout ends, instead of sleeping in poll: no wakeup
	 * per NAPI round, but the CPU spins while it waits. 0: off. */
	unsigned busy_poll_us;
};

/* One received packet: valid until the next fp_xsk__rx_release (or, once
 * given to fp_xsk__forward, until the kernel has sent it). data may be
 * edited in place (e.g. the MACs, before forwarding it). */
struct fp_xsk_pkt {
	uint8_t *data;
	uint32_t len;
	uint32_t queue;        /* the RX queue it came from */
	uint64_t ts_ns;        /* CLOCK_REALTIME when its batch was taken */
	uint64_t addr;         /* its place in the umem (for fp_xsk__forward) */
};

/*
 * Opens a session on ifname. Errors: -EINVAL (the match expression; err
 * gives "match: column N: ..."), -ENODEV (no such interface), -ERANGE (a
 * queue the interface does not have), -EBUSY (another capture takes that
 * queue; err names its process), or what loading the pipeline or binding
 * the socket gave. On failure nothing is left switched on.
 */
int fp_xsk__open(const char *ifname, const struct fp_xsk_opts *o, struct fp_xsk **out,
		 char *err, size_t errlen);

/* Receives up to max packets (waiting up to timeout_ms for the first):
 * fills pkts and returns how many; release them with fp_xsk__rx_release
 * before the next call. */
int fp_xsk__rx_batch(struct fp_xsk *x, int timeout_ms, struct fp_xsk_pkt *pkts, unsigned max);
void fp_xsk__rx_release(struct fp_xsk *x);

/* The same with a callback per packet (non-zero: stop after this one).
 * Returns how many packets were handed over. */
typedef int (*fp_xsk_rx_fn)(void *ctx, const struct fp_xsk_pkt *p);
int fp_xsk__rx(struct fp_xsk *x, int timeout_ms, unsigned max, fp_xsk_rx_fn fn, void *ctx);

/* Queues a frame (copied into a TX frame) for transmission on the
 * session's socket of queue index qi (0 .. fp_xsk__n_queues - 1); the
 * kernel is kicked every 32 frames, when the ring is full, and by
 * fp_xsk__tx_flush. -EAGAIN when the TX ring or frames are all in use
 * (call again), -EMSGSIZE when the frame does not fit one umem frame. */
int fp_xsk__tx(struct fp_xsk *x, unsigned qi, const void *data, uint32_t len);
/* Sends a received packet p of session `from` without a copy: its frame
 * goes on the TX ring of out's socket that shares the umem of p's queue
 * (out opened with .share = from, or out == from: back out of the queue
 * it came in on), and back to from's fill ring once the kernel has sent
 * it, not at fp_xsk__rx_release. The kernel is kicked as by fp_xsk__tx.
 * -EAGAIN: out's TX ring is full (kick, reclaim, call again, or leave
 * the frame to fp_xsk__rx_release, which then recycles it); -EXDEV: out
 * has no socket on that umem. */
int fp_xsk__forward(struct fp_xsk *out, struct fp_xsk *from, const struct fp_xsk_pkt *p);
/* Kicks the kernel to send what is queued (after a batch, or a paced frame). */
int fp_xsk__tx_flush(struct fp_xsk *x);
/* Frames sent so far that the kernel has not completed yet. */
unsigned fp_xsk__tx_pending(struct fp_xsk *x);

struct fp_xsk_stats {
	uint64_t received;             /* packets handed to the caller */
	uint64_t sent;                 /* frames the kernel completed */
	/* XDP_STATISTICS of the sockets, summed */
	uint64_t rx_dropped;           /* dropped by the kernel for other reasons */
	uint64_t rx_ring_full;         /* dropped: the RX ring was full */
	uint64_t rx_fill_ring_empty;   /* times the fill ring had no frame */
	uint64_t rx_invalid_descs, tx_invalid_descs;
	/* the steer stage, for the session's queues since it opened */
	uint64_t steered;              /* matched, redirected to a socket */
	uint64_t no_socket;            /* matched, passed on: no socket yet (or gone) */
	uint64_t unmatched;            /* passed on: not matched */
};
int fp_xsk__stats(struct fp_xsk *x, struct fp_xsk_stats *s);

unsigned fp_xsk__n_queues(const struct fp_xsk *x);
unsigned fp_xsk__queue_id(const struct fp_xsk *x, unsigned qi);
/* The interface's MTU (0: unknown). */
unsigned fp_xsk__mtu(const struct fp_xsk *x);
/* Whether the driver gave zero-copy (else copy mode), as the bound
 * sockets report it (XDP_OPTIONS); veth gives copy mode. */
bool fp_xsk__zerocopy(const struct fp_xsk *x);
/* Whether the session transmits from another session's umem (.share). */
bool fp_xsk__shares_umem(const struct fp_xsk *x);

/* Stops steering: the session's sockets leave the stage's map, so the
 * matching packets go on to the stack (counted no_socket); what the RX
 * rings already hold can still be received. For a clean end: stop, take
 * the rest, read the statistics, close. */
void fp_xsk__stop(struct fp_xsk *x);

/* Stops steering (the map entries and terms of its queues go first),
 * closes the sockets, and removes the steer stage if this session loaded
 * it and no other capture runs. NULL-safe. */
void fp_xsk__close(struct fp_xsk *x);

#endif /* FASTPATH_XSK_H */
