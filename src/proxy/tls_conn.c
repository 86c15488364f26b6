// SPDX-License-Identifier: BSD-2-Clause
/*
 * A TLS connection the proxy does not terminate (conn.h): decided once, on
 * the server name of its ClientHello, then moved as it is. The hello (and
 * whatever came with it) was read to be decided, so it is copied to the
 * backend; every later client byte is spliced through a pipe, and the
 * backend's bytes go back as for HTTP (b2c in conn.c). A connection
 * refused is closed without an answer (no TLS alert: the proxy has no
 * TLS), after its write side is shut and the rest of the client's bytes
 * read for a moment, as a refused HTTP request's.
 */
#include "proxy/conn.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "proxy/tls_sni.h"

/* conn.c's step results */
enum { MOVED = 1, BLOCKED = 0, FAILED = -1 };

#define SPLICE_CHUNK (1u << 16)

/* Closed without an answer: the write side shut, then lingering (conn.c). */
static int tls_close(struct px_conn *c)
{
	c->final_len = c->final_off = 0;
	c->st = PX_FINAL;
	return MOVED;
}

int px_tls_head(struct px_server *s, struct px_conn *c)
{
	struct fp_px_view v = { .tls = true, .family = c->family };
	struct fp_tls_hello h;
	struct fp_px_verdict vd;
	struct px_rule_stats *st;
	size_t cap = s->cfg->limits.max_head;
	int r = fp_tls__client_hello(c->in, c->in_len, &h);
	long line;

	if (!r && c->in_len == cap)
		r = -EMSGSIZE;
	if (!r) {
		ssize_t n = c->client_eof ? 0 : recv(c->cfd, c->in + c->in_len, cap - c->in_len,
						     MSG_DONTWAIT);

		if (n > 0) {
			c->in_len += (size_t)n;
			return MOVED;
		}
		if (n < 0 && errno == EAGAIN)
			return BLOCKED;
		s->tls_refused++; /* the client left in the middle of its hello */
		c->dead = true;
		return FAILED;
	}
	if (r < 0) {
		s->tls_refused++;
		px_log(s, c, "TLS", 3, NULL, 0, r == -EMSGSIZE ? 431 : 400, -1);
		return tls_close(c);
	}
	memcpy(v.addr, c->addr, sizeof(v.addr));
	if (h.has_sni) {
		v.sni = h.sni;
		v.sni_len = h.sni_len;
	}
	fp_px_policy__decide(&s->pol->pol, &v, px_over_rate, s, &vd);
	st = &s->pol->stats[vd.rule < 0 ? s->pol->pol.n : (size_t)vd.rule];
	st->requests++;
	line = vd.rule >= 0 ? (long)s->pol->pol.rules[vd.rule].line : 0;
	if (vd.action != FP_PX_ALLOW) {
		/* the log says the rule's status; the client only sees the close */
		st->closed++;
		px_log(s, c, "TLS", 3, h.has_sni ? h.sni : NULL, h.sni_len, vd.status ? vd.status : 403, line);
		return tls_close(c);
	}
	st->allowed++;
	if (px_backend_connect(s, c)) {
		s->refused[px_refused_slot(502)]++;
		px_log(s, c, "TLS", 3, h.has_sni ? h.sni : NULL, h.sni_len, 502, line);
		return tls_close(c);
	}
	px_log(s, c, "TLS", 3, h.has_sni ? h.sni : NULL, h.sni_len, 0, line);
	s->backends[c->backend].requests++;
	c->st = PX_TUNNEL;
	return MOVED;
}

int px_tunnel_step(struct px_server *s, struct px_conn *c)
{
	struct fp_px_backend_stats *bs;
	bool moved = false;
	ssize_t n;

	if (c->bfd < 0 || c->connecting || c->client_eof)
		return BLOCKED;
	bs = &s->backends[c->backend];
	while (c->in_len) { /* the hello and what came with it: read already */
		n = send(c->bfd, c->in, c->in_len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0)
			return errno == EAGAIN ? moved : FAILED;
		memmove(c->in, c->in + n, c->in_len - (size_t)n);
		c->in_len -= (size_t)n;
		bs->bytes_copied += (uint64_t)n;
		moved = true;
	}
	while (c->cp_bytes) {
		n = splice(c->cp[0], NULL, c->bfd, NULL, c->cp_bytes, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
		if (n < 0)
			return errno == EAGAIN ? moved : FAILED;
		c->cp_bytes -= (size_t)n;
		bs->bytes_spliced += (uint64_t)n;
		moved = true;
	}
	if (c->cp[0] < 0 && pipe2(c->cp, O_NONBLOCK | O_CLOEXEC))
		return FAILED;
	n = splice(c->cfd, NULL, c->cp[1], NULL, SPLICE_CHUNK, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
	if (n > 0) {
		c->cp_bytes += (size_t)n;
		return MOVED;
	}
	if (n < 0 && errno == EAGAIN)
		return moved;
	if (n < 0)
		return FAILED;
	/* the client is done sending: so is the backend's side; it answers, then closes */
	c->client_eof = true;
	shutdown(c->bfd, SHUT_WR);
	return MOVED;
}
