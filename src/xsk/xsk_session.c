// SPDX-License-Identifier: BSD-2-Clause
/*
 * Opening and closing a steered AF_XDP session (include/fastpath/xsk.h).
 * The order is what keeps a failure or a kill harmless: the steer stage
 * and the sockets first, then a queue's terms, then its socket in the
 * stage's XSKMAP; closing goes the other way. libxdp never touches the
 * XDP program (XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD): the pipeline owns it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/if_xdp.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>

#include "xsk/xsk_internal.h"
#include "rules/rule.h"

/* RX queues of ifname (the rx-N entries in sysfs), or -errno. */
static int rx_queues(const char *ifname)
{
	char path[128];
	struct dirent *e;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, "rx-", 3);
	closedir(d);
	return n;
}

static int parse_match(const char *terms, struct fp_rule *r, char *err, size_t errlen)
{
	struct fp_diags dg = { 0 };
	char *text;
	int ret = 0;

	if (!terms || !*terms) {
		snprintf(err, errlen, "match: no terms given (e.g. 'udp dport 9000')");
		return -EINVAL;
	}
	if (asprintf(&text, "pass %s", terms) < 0)
		return -ENOMEM;
	if (fp_rule__parse(text, 1, r, &dg)) {
		/* the column in the caller's expression, not in "pass ..." */
		snprintf(err, errlen, "match: column %u: %s",
			 dg.n && dg.v[0].col > 5 ? dg.v[0].col - 5 : 1,
			 dg.n ? dg.v[0].msg : "bad terms");
		ret = -EINVAL;
	} else if (r->sport.n > 32 || r->dport.n > 32) {
		snprintf(err, errlen, "match: at most 32 port ranges per direction");
		ret = -EINVAL;
	}
	fp_diags__free(&dg);
	free(text);
	return ret;
}

/* What the kernel gave the bound socket: zero-copy or copy mode. */
static bool is_zerocopy(struct xsk_socket *xsk)
{
	struct xdp_options opts = { 0 };
	socklen_t len = sizeof(opts);

	return !getsockopt(xsk_socket__fd(xsk), SOL_XDP, XDP_OPTIONS, &opts, &len) &&
	       (opts.flags & XDP_OPTIONS_ZEROCOPY);
}

/* A transmit-only socket on queue q->qid of x->ifname that shares the
 * umem of the socket `own` (of another session, maybe on another
 * interface): fill and completion rings of its own (the kernel wants
 * both for another device or queue), the mode of `own`'s socket. */
static int queue_open_shared(struct fp_xsk *x, struct xsk_queue *q, struct xsk_queue *own,
			     char *err, size_t errlen)
{
	struct xsk_socket_config sc = {
		.rx_size = own->rx_frames, .tx_size = own->rx_frames,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
	};
	struct timespec t0, t;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ret = xsk_socket__create_shared(&q->xsk, x->ifname, q->qid, own->umem, NULL, &q->tx,
						&q->fill, &q->comp, &sc);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (ret != -EBUSY || t.tv_sec - t0.tv_sec >= 3)
			break;
		usleep(50000);
	}
	if (ret) {
		snprintf(err, errlen, "binding a socket on %s queue %u to the umem of queue %u "
			 "(shared umem) failed: %s", x->ifname, q->qid, own->qid, strerror(-ret));
		return ret;
	}
	q->shared = true;
	q->own = own;
	q->umem = own->umem;
	q->area = own->area;
	q->area_len = own->area_len;
	q->rx_frames = own->rx_frames;
	x->zerocopy = is_zerocopy(q->xsk);
	return 0;
}

static int queue_open(struct fp_xsk *x, struct xsk_queue *q, __u32 frames, bool copy,
		      char *err, size_t errlen)
{
	struct xsk_umem_config uc = {
		/* the fill ring holds every RX frame twice over: the kernel
		 * publishes what it took from the ring only when it has used
		 * up its cached view, so up to one ring's worth it has taken
		 * can still look occupied (xsk_ring.c keeps what does not fit) */
		.fill_size = frames, .comp_size = frames / 2,
		.frame_size = XSK_FRAME_SIZE, .frame_headroom = 0,
	};
	struct xsk_socket_config sc = {
		.rx_size = frames / 2, .tx_size = frames / 2,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
	};
	struct timespec t0, t;
	__u32 idx;
	int ret;

	q->area_len = (size_t)frames * XSK_FRAME_SIZE;
	q->area = mmap(NULL, q->area_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (q->area == MAP_FAILED) {
		q->area = NULL;
		return -errno;
	}
	ret = xsk_umem__create(&q->umem, q->area, q->area_len, &q->fill, &q->comp, &uc);
	if (ret) {
		snprintf(err, errlen, "creating the umem for queue %u failed: %s", q->qid,
			 strerror(-ret));
		return ret;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		/* zero-copy where the driver gives it, else copy mode */
		sc.bind_flags = XDP_USE_NEED_WAKEUP | (copy ? XDP_COPY : XDP_ZEROCOPY);
		ret = xsk_socket__create(&q->xsk, x->ifname, q->qid, q->umem, &q->rx, &q->tx, &sc);
		if (ret && !copy && ret != -EBUSY) {
			sc.bind_flags = XDP_USE_NEED_WAKEUP | XDP_COPY;
			ret = xsk_socket__create(&q->xsk, x->ifname, q->qid, q->umem, &q->rx,
						 &q->tx, &sc);
		}
		/* a socket closed a moment ago holds the queue for up to ~1 s */
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (ret != -EBUSY || t.tv_sec - t0.tv_sec >= 3)
			break;
		usleep(50000);
	}
	if (ret) {
		snprintf(err, errlen, "binding an AF_XDP socket to %s queue %u failed: %s%s",
			 x->ifname, q->qid, strerror(-ret),
			 ret == -EBUSY ? " (another AF_XDP socket holds the queue)" : "");
		return ret;
	}
	x->zerocopy = is_zerocopy(q->xsk);
	q->own = q;
	q->rx_frames = frames / 2;
	q->frame = calloc(q->rx_frames, 1);
	q->refill = calloc(q->rx_frames, sizeof(*q->refill));
	if (!q->frame || !q->refill)
		return -ENOMEM;
	if (xsk_ring_prod__reserve(&q->fill, q->rx_frames, &idx) != q->rx_frames) {
		snprintf(err, errlen, "filling the fill ring of queue %u failed", q->qid);
		return -ENOSPC;
	}
	for (__u32 i = 0; i < q->rx_frames; i++)
		*xsk_ring_prod__fill_addr(&q->fill, idx + i) = (__u64)i * XSK_FRAME_SIZE;
	xsk_ring_prod__submit(&q->fill, q->rx_frames);
	q->free_tx = calloc(frames - q->rx_frames, sizeof(*q->free_tx));
	if (!q->free_tx)
		return -ENOMEM;
	for (__u32 i = q->rx_frames; i < frames; i++)
		q->free_tx[q->n_free_tx++] = (__u64)i * XSK_FRAME_SIZE;
	return 0;
}

/* The socket runs the NAPI of its queue from recvfrom (and the kernel
 * defers that NAPI's own runs to it): see fp_xsk_opts.busy_poll_us. */
static int busy_poll_on(struct fp_xsk *x, struct xsk_queue *q, unsigned us, char *err,
			size_t errlen)
{
	int fd = xsk_socket__fd(q->xsk), one = 1, budget = 64, v = (int)us;

	if (setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &v, sizeof(v)) ||
	    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget, sizeof(budget))) {
		snprintf(err, errlen, "busy polling on %s queue %u: %s", x->ifname, q->qid,
			 strerror(errno));
		return -errno;
	}
	x->busy_poll = true;
	return 0;
}

/* A capture that runs on queue q: its pid (0: none, or its process is gone). */
static __u32 queue_owner(const struct fp_xsk *x, __u32 qid)
{
	struct fp_steer_cfg cfg;

	if (fp_steer__cfg(&x->fds, qid, &cfg) || !cfg.active)
		return 0;
	return fp_steer_pid_alive(cfg.owner_pid) ? cfg.owner_pid : 0;
}

/* Whether any queue has a live capture other than this session's. */
static bool others_run(const struct fp_xsk *x)
{
	for (__u32 q = 0; q < FP_STEER_QUEUES; q++) {
		__u32 pid = queue_owner(x, q);
		bool mine = false;

		for (unsigned i = 0; i < x->n; i++)
			mine |= x->q[i].qid == q && x->q[i].cfg_set;
		if (pid && !mine)
			return true;
	}
	return false;
}

int fp_xsk__open(const char *ifname, const struct fp_xsk_opts *o, struct fp_xsk **out,
		 char *err, size_t errlen)
{
	struct fp_pipeline_opts po = { .bpffs = o->bpffs };
	__u32 frames = o->frames ? o->frames : 4096;
	struct fp_rule rule;
	struct fp_xsk *x;
	bool created;
	int nq, ret;

	*out = NULL;
	err[0] = 0;
	/* no terms: a socket for transmitting only, nothing steered to it */
	ret = o->match ? parse_match(o->match, &rule, err, errlen) : 0;
	if (ret)
		return ret;
	if (o->share && o->match) {
		snprintf(err, errlen, "share: a session on another's umem only transmits (no match)");
		return -EINVAL;
	}
	if (frames < 64 || (frames & (frames - 1))) {
		snprintf(err, errlen, "frames: a power of two from 64, not %u", frames);
		return -EINVAL;
	}
	if (!ifname || strlen(ifname) >= IF_NAMESIZE || !if_nametoindex(ifname)) {
		snprintf(err, errlen, "no interface '%s'", ifname ? ifname : "");
		return -ENODEV;
	}
	nq = rx_queues(ifname);
	if (nq <= 0)
		nq = 1;
	if (o->share && (o->queue == FP_XSK_ALL_QUEUES ? 0 : o->queue) + (int)o->share->n > nq) {
		snprintf(err, errlen, "share: %s has %d queues, %u needed (one per queue of %s)",
			 ifname, nq, o->share->n, o->share->ifname);
		return -ERANGE;
	}
	if (o->queue != FP_XSK_ALL_QUEUES && (o->queue < 0 || o->queue >= nq ||
					       o->queue >= FP_STEER_QUEUES)) {
		snprintf(err, errlen, "queue %d: %s has RX queues 0..%d", o->queue, ifname,
			 (nq < FP_STEER_QUEUES ? nq : FP_STEER_QUEUES) - 1);
		return -ERANGE;
	}
	if (nq > FP_STEER_QUEUES)
		nq = FP_STEER_QUEUES;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->fds = (struct fp_steer_fds){ -1, -1, -1 };
	snprintf(x->ifname, sizeof(x->ifname), "%s", ifname);
	snprintf(x->bpffs, sizeof(x->bpffs), "%s", fp_bpffs_root(o->bpffs));
	x->n = o->share ? o->share->n : o->queue == FP_XSK_ALL_QUEUES ? (unsigned)nq : 1;
	x->q = calloc(x->n, sizeof(*x->q));
	if (!x->q) {
		free(x);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < x->n; i++)
		x->q[i].qid = o->queue == FP_XSK_ALL_QUEUES ? i : (unsigned)o->queue + (o->share ? i : 0);
	po.bpffs = x->bpffs;
	x->tx_only = !o->match;
	if (!x->tx_only)
		ret = fp_pipeline__open_or_load(ifname, &po, &x->pl, &created, err, errlen);
	if (!ret && !x->tx_only)
		ret = fp_steer__ensure(x->pl, &x->stage_loaded, err, errlen);
	if (!ret && !x->tx_only)
		ret = fp_steer__fds(x->pl, &x->fds, err, errlen);
	for (unsigned i = 0; i < x->n && !ret && !x->tx_only; i++) {
		__u32 pid = queue_owner(x, x->q[i].qid);

		if (pid) {
			snprintf(err, errlen, "a capture (pid %u) already takes %s queue %u: stop it "
				 "first, or take another queue", pid, ifname, x->q[i].qid);
			ret = -EBUSY;
		}
	}
	x->shared_umem = o->share != NULL;
	for (unsigned i = 0; i < x->n && !ret; i++)
		ret = o->share ? queue_open_shared(x, &x->q[i], &o->share->q[i], err, errlen)
			       : queue_open(x, &x->q[i], frames, o->copy, err, errlen);
	for (unsigned i = 0; i < x->n && !ret && o->busy_poll_us; i++)
		ret = busy_poll_on(x, &x->q[i], o->busy_poll_us, err, errlen);
	for (unsigned i = 0; i < x->n && !ret && !x->tx_only; i++) {
		struct xsk_queue *q = &x->q[i];

		fp_steer__counts(&x->fds, q->qid, &q->base);
		ret = fp_steer__set(&x->fds, q->qid, &rule, (__u32)getpid());
		q->cfg_set = ret == 0;
		if (!ret) {
			ret = xsk_socket__update_xskmap(q->xsk, x->fds.xsk_fd);
			q->in_map = ret == 0;
		}
		if (ret)
			snprintf(err, errlen, "steering %s queue %u to its socket failed: %s", ifname,
				 q->qid, strerror(-ret));
	}
	if (ret) {
		fp_xsk__close(x);
		return ret;
	}
	*out = x;
	return 0;
}

void fp_xsk__stop(struct fp_xsk *x)
{
	for (unsigned i = 0; x && i < x->n; i++) {
		struct xsk_queue *q = &x->q[i];

		if (q->in_map)
			bpf_map_delete_elem(x->fds.xsk_fd, &q->qid);
		q->in_map = false;
	}
}

void fp_xsk__close(struct fp_xsk *x)
{
	bool remove;

	if (!x)
		return;
	/* the reverse of open: the redirect, the terms, then the sockets */
	fp_xsk__stop(x);
	for (unsigned i = 0; i < x->n; i++) {
		struct xsk_queue *q = &x->q[i];

		if (q->cfg_set)
			fp_steer__clear(&x->fds, q->qid);
		q->cfg_set = false;
	}
	remove = x->stage_loaded && x->fds.cfg_fd >= 0 && !others_run(x);
	for (unsigned i = 0; i < x->n; i++) {
		struct xsk_queue *q = &x->q[i];

		if (q->xsk)
			xsk_socket__delete(q->xsk);
		if (q->umem && !q->shared)
			xsk_umem__delete(q->umem);
		if (q->area && !q->shared)
			munmap(q->area, q->area_len);
		free(q->free_tx);
		free(q->frame);
		free(q->refill);
	}
	fp_steer_fds__close(&x->fds);
	if (x->pl && !fp_pipeline__is_test(x->pl) && remove) {
		char err[256];
		bool gone;

		/* as the interface was: the stage, and a pipeline it brought */
		fp_pipeline__remove_stage(x->ifname, x->bpffs, &fp_stage_steer, &gone, NULL, err,
					  sizeof(err));
	}
	if (x->pl)
		fp_pipeline__close(x->pl);
	free(x->q);
	free(x);
}

unsigned fp_xsk__mtu(const struct fp_xsk *x)
{
	char path[128];
	unsigned mtu = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", x->ifname);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%u", &mtu) != 1)
			mtu = 0;
		fclose(f);
	}
	return mtu;
}

unsigned fp_xsk__n_queues(const struct fp_xsk *x) { return x->n; }
unsigned fp_xsk__queue_id(const struct fp_xsk *x, unsigned qi) { return qi < x->n ? x->q[qi].qid : 0; }
bool fp_xsk__zerocopy(const struct fp_xsk *x) { return x->zerocopy; }
bool fp_xsk__shares_umem(const struct fp_xsk *x) { return x->shared_umem; }
