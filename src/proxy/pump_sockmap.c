// SPDX-License-Identifier: BSD-2-Clause
/*
 * The sockmap data path (pump.h): once a connection's backend is
 * connected, its socket goes into px_backends, whose BPF verdict program
 * (proxy_sockmap.bpf.c) redirects every byte it receives out of the
 * client's socket, in the kernel. The proxy then never reads the backend:
 * responses do not cross into user space. Requests still come up (each is
 * decided), so the client socket is only a redirect target (px_clients,
 * no program) and is read as before; bodies are spliced.
 *
 * What the proxy cannot see it counts: px_bytes holds, per backend socket,
 * the bytes redirected; the client socket's bytes acked plus its send
 * queue, less their value at attach, is what has reached the socket. Their
 * difference is bp_bytes, the bytes on their way, so that a refusal's
 * answer (written by the proxy) never overtakes a response and a socket is
 * not closed while the kernel still holds bytes for it (closing drops the
 * redirect's queue). Those are only asked when they matter (the backend
 * closed or is to close, a refusal is pending, or the header deadline
 * passed); a backend closing on its own while the client is idle is seen
 * at the deadline.
 */
#include "proxy/pump.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <linux/tcp.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "proxy_sockmap.skel.h"

int px_sockmap_setup(struct px_server *s, char *err, size_t errlen)
{
	struct proxy_sockmap_bpf *k = proxy_sockmap_bpf__open();
	unsigned n = s->cfg->max_conns;
	int ret;

	if (!k) {
		ret = -errno;
		snprintf(err, errlen, "cannot open the sockmap program: %s", strerror(-ret));
		return ret;
	}
	bpf_map__set_max_entries(k->maps.px_backends, n);
	bpf_map__set_max_entries(k->maps.px_clients, n);
	bpf_map__set_max_entries(k->maps.px_bytes, n);
	bpf_map__set_map_flags(k->maps.px_bytes, BPF_F_NO_PREALLOC);
	ret = proxy_sockmap_bpf__load(k);
	if (!ret && bpf_prog_attach(bpf_program__fd(k->progs.px_verdict),
				    bpf_map__fd(k->maps.px_backends), BPF_SK_SKB_VERDICT, 0))
		ret = -errno;
	if (ret) {
		snprintf(err, errlen, "cannot load the sockmap program (--data-path sockmap): %s",
			 strerror(-ret));
		proxy_sockmap_bpf__destroy(k);
		return ret;
	}
	s->skel = k;
	return 0;
}

void px_sockmap_teardown(struct px_server *s)
{
	if (!s->skel)
		return;
	bpf_prog_detach2(bpf_program__fd(s->skel->progs.px_verdict),
			 bpf_map__fd(s->skel->maps.px_backends), BPF_SK_SKB_VERDICT);
	proxy_sockmap_bpf__destroy(s->skel);
	s->skel = NULL;
}

/* Bytes written into fd's send path so far (acked, plus queued). Read in
 * this order an ACK between the two can only make it smaller: a wait is
 * longer, never cut short. */
static int written(int fd, uint64_t *out)
{
	struct tcp_info ti;
	socklen_t l = sizeof(ti);
	int q = 0;

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) || ioctl(fd, SIOCOUTQ, &q))
		return -errno;
	if (ti.tcpi_state != BPF_TCP_ESTABLISHED && ti.tcpi_state != BPF_TCP_CLOSE_WAIT)
		return -EPIPE; /* nothing more will reach this client */
	*out = ti.tcpi_bytes_acked + (uint64_t)q;
	return 0;
}

void px_sockmap_attach(struct px_server *s, struct px_conn *c)
{
	uint64_t cookie, zero = 0, fd;
	socklen_t l = sizeof(cookie);
	int bytes, clients;

	if (!s->skel || c->in_map || c->bfd < 0)
		return;
	bytes = bpf_map__fd(s->skel->maps.px_bytes);
	clients = bpf_map__fd(s->skel->maps.px_clients);
	if (getsockopt(c->bfd, SOL_SOCKET, SO_COOKIE, &cookie, &l) || written(c->cfd, &c->kbase) ||
	    bpf_map_update_elem(bytes, &cookie, &zero, BPF_NOEXIST))
		return; /* this connection stays on splice */
	fd = (uint64_t)c->cfd;
	if (bpf_map_update_elem(clients, &cookie, &fd, BPF_NOEXIST))
		goto no_client;
	fd = (uint64_t)c->bfd;
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.px_backends), &cookie, &fd, BPF_NOEXIST))
		goto no_backend;
	c->kcookie = cookie;
	c->kseen = 0;
	c->kprogress_ms = px_now_ms();
	c->in_map = true;
	return;
no_backend:
	bpf_map_delete_elem(clients, &cookie);
no_client:
	bpf_map_delete_elem(bytes, &cookie);
}

/* px_bytes' count into the backend's bytes_spliced; the total */
static uint64_t fold_count(struct px_server *s, struct px_conn *c)
{
	uint64_t total;

	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.px_bytes), &c->kcookie, &total) ||
	    total < c->kseen)
		return c->kseen;
	s->backends[c->backend].bytes_spliced += total - c->kseen;
	c->kseen = total;
	return total;
}

void px_sockmap_detach(struct px_server *s, struct px_conn *c)
{
	fold_count(s, c);
	bpf_map_delete_elem(bpf_map__fd(s->skel->maps.px_backends), &c->kcookie);
	bpf_map_delete_elem(bpf_map__fd(s->skel->maps.px_clients), &c->kcookie);
	bpf_map_delete_elem(bpf_map__fd(s->skel->maps.px_bytes), &c->kcookie);
	c->in_map = false;
	c->kwait = false;
}

int px_b2c_sockmap(struct px_server *s, struct px_conn *c)
{
	uint64_t now = px_now_ms(), seen = c->kseen, total, w;
	int moved = BLOCKED;

	if (!c->backend_eof && c->st < PX_DRAIN && !c->client_eof && !c->last &&
	    now < c->deadline_ms)
		return BLOCKED; /* the kernel moves the bytes; nothing to ask */
	if (!c->backend_eof) {
		char b;
		ssize_t n = recv(c->bfd, &b, 1, MSG_PEEK | MSG_DONTWAIT);

		/* the verdict takes every byte: only EOF (0) or an error shows here */
		if (n == 0 || (n < 0 && errno != EAGAIN)) {
			c->backend_eof = true;
			moved = MOVED;
		}
	}
	total = fold_count(s, c);
	if (total != seen && c->st == PX_HEAD && !c->in_len)
		c->deadline_ms = now + s->cfg->header_timeout_ms; /* a response is moving */
	if (!c->backend_eof && c->st < PX_DRAIN)
		return moved;
	/* the bytes still on their way to the client socket */
	if (written(c->cfd, &w)) {
		c->bp_bytes = 0; /* the client is gone: nothing to wait for */
	} else {
		w -= c->kbase;
		if (total > w && w != c->kwritten) {
			c->kwritten = w;
			c->kprogress_ms = now;
		}
		c->bp_bytes = total > w ? (size_t)(total - w) : 0;
		if (c->bp_bytes && now - c->kprogress_ms > s->cfg->header_timeout_ms)
			c->bp_bytes = 0; /* no progress for that long: give up on them */
	}
	if (!c->bp_bytes && c->kwait)
		moved = MOVED;
	c->kwait = c->bp_bytes != 0;
	return moved;
}
