// SPDX-License-Identifier: BSD-2-Clause
/*
 * A steered AF_XDP session's rings (include/fastpath/xsk.h): RX batches
 * handed out and their frames given back to the fill ring, TX frames
 * reserved, kicked and reclaimed from the completion ring, and the
 * statistics of the sockets and of the steer stage.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <linux/if_xdp.h>

#include "xsk/xsk_internal.h"

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec;
}

static __u64 frame_of(__u64 addr)
{
	addr = xsk_umem__extract_addr(addr);
	return addr - addr % XSK_FRAME_SIZE;
}

/* Takes what the RX rings hold, round robin from x->next, into pkts. */
static unsigned take(struct fp_xsk *x, struct fp_xsk_pkt *pkts, unsigned max)
{
	uint64_t ts = 0;
	unsigned got = 0;

	for (unsigned k = 0; k < x->n && got < max; k++) {
		struct xsk_queue *q = &x->q[(x->next + k) % x->n];
		__u32 idx, n;

		if (q->peeked)
			continue;
		n = xsk_ring_cons__peek(&q->rx, max - got, &idx);
		if (!n)
			continue;
		if (!ts)
			ts = now_ns();
		q->peeked = n;
		q->peek_idx = idx;
		for (__u32 i = 0; i < n; i++) {
			const struct xdp_desc *d = xsk_ring_cons__rx_desc(&q->rx, idx + i);

			pkts[got].data = xsk_umem__get_data(q->area, xsk_umem__add_offset_to_addr(d->addr));
			pkts[got].len = d->len;
			pkts[got].queue = q->qid;
			pkts[got].ts_ns = ts;
			pkts[got].addr = d->addr;
			q->frame[frame_of(d->addr) / XSK_FRAME_SIZE] |= FRAME_TAKEN;
			got++;
		}
	}
	x->next = x->n ? (x->next + 1) % x->n : 0;
	x->received += got;
	return got;
}

static uint64_t mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Busy polling: each recvfrom runs the queue's NAPI in this thread (the
 * kernel's SO_PREFER_BUSY_POLL), until a packet or timeout_ms (< 0: no end). */
static int busy_wait(struct fp_xsk *x, int timeout_ms, struct fp_xsk_pkt *pkts, unsigned max)
{
	uint64_t end = timeout_ms < 0 ? UINT64_MAX : mono_ms() + (uint64_t)timeout_ms;
	unsigned got;

	for (unsigned spin = 1;; spin++) {
		for (unsigned i = 0; i < x->n; i++)
			if (recvfrom(xsk_socket__fd(x->q[i].xsk), NULL, 0, MSG_DONTWAIT, NULL, NULL) < 0 &&
			    errno == EINTR)
				return 0;
		got = take(x, pkts, max);
		if (got)
			return (int)got;
		if (!(spin % 256) && mono_ms() >= end)
			return 0;
	}
}

int fp_xsk__rx_batch(struct fp_xsk *x, int timeout_ms, struct fp_xsk_pkt *pkts, unsigned max)
{
	struct pollfd pfd[FP_STEER_QUEUES];
	unsigned got;

	fp_xsk__rx_release(x);
	if (!max)
		return 0;
	got = take(x, pkts, max);
	if (got || !timeout_ms)
		return (int)got;
	if (x->busy_poll)
		return busy_wait(x, timeout_ms, pkts, max);
	/* frames still waiting for the fill ring: look again soon */
	for (unsigned i = 0; i < x->n; i++)
		if (x->q[i].n_refill && (timeout_ms < 0 || timeout_ms > 1))
			timeout_ms = 1;
	for (unsigned i = 0; i < x->n; i++)
		pfd[i] = (struct pollfd){ .fd = xsk_socket__fd(x->q[i].xsk), .events = POLLIN };
	if (poll(pfd, x->n, timeout_ms) < 0)
		return errno == EINTR ? 0 : -errno;
	return (int)take(x, pkts, max);
}

/* Wakes the driver to take the fill ring's frames, if it asks to (copy
 * mode wakes on its own; a need_wakeup driver asks). */
static void fill_wakeup(struct xsk_queue *o)
{
	if (xsk_ring_prod__needs_wakeup(&o->fill))
		recvfrom(xsk_socket__fd(o->xsk), NULL, 0, MSG_DONTWAIT, NULL, NULL);
}

/* Gives o's waiting RX frames to its fill ring, as many as it has room
 * for now. A frame never gets lost on the way: what does not fit waits
 * in o->refill for the next call (the kernel's consumer index of the
 * fill ring lags what it has taken; the first version dropped a whole
 * batch whenever a reserve failed, and a long capture ran out of frames:
 * every later packet was lost as "fill ring empty"). */
static void refill(struct xsk_queue *o)
{
	__u32 n = o->n_refill, idx;

	if (!n)
		return;
	n = xsk_prod_nb_free(&o->fill, n);
	if (n > o->n_refill)
		n = o->n_refill;
	if (!n || xsk_ring_prod__reserve(&o->fill, n, &idx) != n)
		return;
	for (__u32 i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&o->fill, idx + i) = o->refill[--o->n_refill];
	xsk_ring_prod__submit(&o->fill, n);
	fill_wakeup(o);
}

void fp_xsk__rx_release(struct fp_xsk *x)
{
	for (unsigned i = 0; i < x->n; i++) {
		struct xsk_queue *q = &x->q[i];

		/* the frames not on a TX ring go back to the fill ring now,
		 * the others after their completion (reclaim) */
		for (__u32 k = 0; k < q->peeked; k++) {
			__u64 a = frame_of(xsk_ring_cons__rx_desc(&q->rx, q->peek_idx + k)->addr);
			__u8 *f = &q->frame[a / XSK_FRAME_SIZE];

			*f &= ~FRAME_TAKEN;
			if (!*f)
				q->refill[q->n_refill++] = a;
		}
		if (q->peeked)
			xsk_ring_cons__release(&q->rx, q->peeked);
		q->peeked = 0;
		refill(q);
	}
}

int fp_xsk__rx(struct fp_xsk *x, int timeout_ms, unsigned max, fp_xsk_rx_fn fn, void *ctx)
{
	struct fp_xsk_pkt pkts[256];
	int n, done = 0;

	if (max > 256)
		max = 256;
	n = fp_xsk__rx_batch(x, timeout_ms, pkts, max);
	for (int i = 0; i < n; i++) {
		done++;
		if (fn(ctx, &pkts[i]))
			break;
	}
	fp_xsk__rx_release(x);
	return n < 0 ? n : done;
}

/* Frames the kernel finished sending go back to their owner: a TX frame
 * to its free list, a forwarded RX frame to its fill ring. */
static void reclaim(struct fp_xsk *x, struct xsk_queue *q)
{
	struct xsk_queue *o = q->own;
	__u32 idx, n = xsk_ring_cons__peek(&q->comp, q->tx_inflight, &idx), nrx = 0;

	if (!n)
		return;
	for (__u32 i = 0; i < n; i++) {
		__u64 a = frame_of(*xsk_ring_cons__comp_addr(&q->comp, idx + i));
		__u8 *f = a / XSK_FRAME_SIZE < o->rx_frames ? &o->frame[a / XSK_FRAME_SIZE] : NULL;

		if (!f) {
			o->free_tx[o->n_free_tx++] = a;
			continue;
		}
		*f &= ~FRAME_ON_TX;
		if (!*f) { /* else rx_release gives it back */
			o->refill[o->n_refill++] = a;
			nrx++;
		}
	}
	if (nrx)
		refill(o);
	xsk_ring_cons__release(&q->comp, n);
	q->tx_inflight -= n;
	x->sent += n;
}

static int kick(struct xsk_queue *q)
{
	q->unkicked = 0;
	if (sendto(xsk_socket__fd(q->xsk), NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
	    errno != EAGAIN && errno != EBUSY && errno != ENOBUFS && errno != ENETDOWN)
		return -errno;
	return 0;
}

int fp_xsk__tx(struct fp_xsk *x, unsigned qi, const void *data, uint32_t len)
{
	struct xsk_queue *q;
	struct xdp_desc *d;
	__u32 idx;

	if (qi >= x->n)
		return -EINVAL;
	q = &x->q[qi];
	if (len > XSK_FRAME_SIZE)
		return -EMSGSIZE;
	reclaim(x, q);
	if (!q->own->n_free_tx || xsk_ring_prod__reserve(&q->tx, 1, &idx) != 1) {
		kick(q);
		return -EAGAIN;
	}
	d = xsk_ring_prod__tx_desc(&q->tx, idx);
	d->addr = q->own->free_tx[--q->own->n_free_tx];
	d->len = len;
	d->options = 0;
	memcpy(xsk_umem__get_data(q->area, d->addr), data, len);
	xsk_ring_prod__submit(&q->tx, 1);
	q->tx_inflight++;
	/* copy mode sends only when kicked, at most 32 frames a kick */
	if (++q->unkicked >= 32)
		return kick(q);
	return 0;
}

int fp_xsk__forward(struct fp_xsk *out, struct fp_xsk *from, const struct fp_xsk_pkt *p)
{
	struct xsk_queue *src = NULL, *q = NULL;
	struct xdp_desc *d;
	__u32 idx;

	for (unsigned k = 0; k < from->n && !src; k++)
		if (from->q[k].qid == p->queue)
			src = &from->q[k];
	for (unsigned k = 0; src && k < out->n && !q; k++)
		if (out->q[k].own == src)
			q = &out->q[k];
	if (!q)
		return -EXDEV;
	reclaim(out, q); /* frames back to the fill ring as they complete */
	if (xsk_ring_prod__reserve(&q->tx, 1, &idx) != 1) {
		kick(q);
		return -EAGAIN;
	}
	d = xsk_ring_prod__tx_desc(&q->tx, idx);
	d->addr = p->addr; /* the frame itself: no copy */
	d->len = p->len;
	d->options = 0;
	src->frame[frame_of(p->addr) / XSK_FRAME_SIZE] |= FRAME_ON_TX;
	xsk_ring_prod__submit(&q->tx, 1);
	q->tx_inflight++;
	if (++q->unkicked >= 32)
		return kick(q);
	return 0;
}

int fp_xsk__tx_flush(struct fp_xsk *x)
{
	int ret = 0;

	for (unsigned i = 0; i < x->n; i++) {
		if (x->q[i].unkicked && !ret)
			ret = kick(&x->q[i]);
		reclaim(x, &x->q[i]);
	}
	return ret;
}

unsigned fp_xsk__tx_pending(struct fp_xsk *x)
{
	unsigned n = 0;

	for (unsigned i = 0; i < x->n; i++) {
		reclaim(x, &x->q[i]);
		if (x->q[i].tx_inflight)
			kick(&x->q[i]);
		n += x->q[i].tx_inflight;
	}
	return n;
}

int fp_xsk__stats(struct fp_xsk *x, struct fp_xsk_stats *s)
{
	int ret = 0;

	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < x->n; i++) {
		struct xsk_queue *q = &x->q[i];
		struct xdp_statistics st = { 0 };
		struct fp_steer_counts c;
		socklen_t len = sizeof(st);

		reclaim(x, q);
		if (getsockopt(xsk_socket__fd(q->xsk), SOL_XDP, XDP_STATISTICS, &st, &len))
			ret = -errno;
		s->rx_dropped += st.rx_dropped;
		s->rx_ring_full += st.rx_ring_full;
		s->rx_fill_ring_empty += st.rx_fill_ring_empty_descs;
		s->rx_invalid_descs += st.rx_invalid_descs;
		s->tx_invalid_descs += st.tx_invalid_descs;
		if (!ret && !x->tx_only && (ret = fp_steer__counts(&x->fds, q->qid, &c)) == 0) {
			s->steered += c.redirected - q->base.redirected;
			s->no_socket += c.no_socket - q->base.no_socket;
			s->unmatched += c.unmatched - q->base.unmatched;
		}
	}
	s->received = x->received;
	s->sent = x->sent;
	return ret;
}
