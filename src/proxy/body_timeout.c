// SPDX-License-Identifier: BSD-2-Clause
/*
 * A body that stops arriving (conn.h): a client that sends a request head
 * and then a body slower than one byte in body_timeout_ms holds a backend
 * connection (and the backend's worker) for as long as it likes; the
 * header timeout does not cover it.
 *
 * Progress is the kernel's count of bytes received on the client's socket
 * (TCP_INFO tcpi_bytes_received), so the pumps need no clock of their own.
 * The clock does not run while the proxy holds body bytes the backend has
 * not taken (a slow backend is not the client's fault). On expiry the
 * backend connection is closed (the backend sees a body cut short); the
 * client gets 408 when nothing has come back from the backend since the
 * body began, else (a response under way) the connection is just closed.
 * Nothing is buffered while waiting: memory stays what the connection had.
 */
#include "proxy/conn.h"

#include <string.h>
#include <unistd.h>
#include <linux/tcp.h>
#include <netinet/in.h>

static uint64_t bytes_received(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return 0;
	return ti.tcpi_bytes_received;
}

/* The backend's count when the body begins, not at the timer's first look:
 * a response that came between the two would look like none at all. */
void px_body_start(struct px_conn *c)
{
	c->body_brx = bytes_received(c->bfd);
}

void px_body_check(struct px_server *s, struct px_conn *c, uint64_t now)
{
	uint64_t rx;

	if (c->st != PX_BODY_LEN && c->st != PX_BODY_CHUNKED) {
		c->body_since = 0;
		return;
	}
	if (!s->cfg->body_timeout_ms || now - c->body_checked < 250)
		return; /* the timer runs after every batch of events: a syscall at most 4 times a second */
	c->body_checked = now;
	rx = bytes_received(c->cfd);
	if (!c->body_since) { /* the body began since the last look */
		c->body_since = now;
		c->body_rx = rx;
		return;
	}
	if (rx != c->body_rx || c->cp_bytes || c->out_off < c->out_len || c->connecting) {
		c->body_since = now;
		c->body_rx = rx;
		return;
	}
	if (now - c->body_since < s->cfg->body_timeout_ms)
		return;
	s->body_timeouts++;
	c->body_since = 0;
	if (c->bp_bytes || bytes_received(c->bfd) != c->body_brx) {
		c->dead = true; /* a response is under way: no status can follow it */
		return;
	}
	if (c->bfd >= 0)
		close(c->bfd);
	c->bfd = -1;
	px_conn_refuse(s, c, 408, "the request body stopped arriving");
	px_conn_pump(s, c);
}
