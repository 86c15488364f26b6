// SPDX-License-Identifier: BSD-2-Clause
/*
 * One proxied connection (conn.h): the client's bytes framed into
 * requests, each decided; an allowed head copied to the backend, its body
 * spliced for exactly its framed length; the backend's bytes spliced back
 * unparsed. Every step is non-blocking; px_conn_pump() repeats them until
 * each would block (the epoll set is edge-triggered). The bytes themselves
 * are moved by pump.c.
 *
 * A refused request is answered after the backend has finished the
 * responses of the requests before it: the proxy shuts the backend's write
 * side, splices the rest of its bytes to the client, and writes its own
 * answer when the backend closes. Then it shuts its write side and reads
 * the client until EOF (or a second) before closing, so the answer is not
 * lost to a reset.
 */
#include "proxy/conn.h"
#include "proxy/tls_sni.h"
#include "proxy/pump.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#define LINGER_MS 1000

const int px_refused_status[8] = { 400, 414, 431, 505, 408, 503, 502, 0 };

int px_refused_slot(int status)
{
	for (int i = 0; i < 7; i++)
		if (px_refused_status[i] == status)
			return i;
	return 7;
}

uint64_t px_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static const char *reason(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 408: return "Request Timeout";
	case 414: return "URI Too Long";
	case 429: return "Too Many Requests";
	case 431: return "Request Header Fields Too Large";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	}
	return status < 500 ? "Client Error" : "Server Error";
}

/* The final answer; retry_after > 0 adds Retry-After. */
static void set_final(struct px_conn *c, int status, const char *why, unsigned retry_after)
{
	char body[160], extra[48] = "";

	snprintf(body, sizeof(body), "%d %s: %s\n", status, reason(status), why);
	if (retry_after)
		snprintf(extra, sizeof(extra), "Retry-After: %u\r\n", retry_after);
	c->final_len = (size_t)snprintf(c->final, sizeof(c->final),
		"HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n%s"
		"Connection: close\r\n\r\n%s", status, reason(status), strlen(body), extra, body);
	if (c->final_len >= sizeof(c->final))
		c->final_len = sizeof(c->final) - 1;
	c->final_off = 0;
}

/* The challenge: 302 to the same target, setting the signed cookie. */
static int set_challenge(struct px_server *s, struct px_conn *c, const char *target, size_t tlen)
{
	char val[FP_PX_COOKIE_VALUE_LEN + 1];
	static const char body[] = "302 Found: a cookie is set; send it with the request again\n";
	int n;

	fp_px_cookie__sign(s->cfg->cookie_key, c->family, c->addr, (uint64_t)time(NULL), val);
	n = snprintf(c->final, sizeof(c->final),
		     "HTTP/1.1 302 Found\r\nLocation: %.*s\r\nSet-Cookie: " FP_PX_COOKIE_NAME
		     "=%s; Max-Age=%d; Path=/; HttpOnly\r\nCache-Control: no-store\r\n"
		     "Content-Type: text/plain\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
		     (int)tlen, target, val, FP_PX_COOKIE_LIFETIME_S, sizeof(body) - 1, body);
	if (n < 0 || (size_t)n >= sizeof(c->final))
		return -1; /* the target does not fit: the caller answers 414 */
	c->final_len = (size_t)n;
	c->final_off = 0;
	return 0;
}

/* final is set: the backend finishes earlier responses, then final goes. */
static void refuse_after_set(struct px_server *s, struct px_conn *c)
{
	c->st = PX_DRAIN;
	if (c->bfd >= 0 && !c->connecting)
		shutdown(c->bfd, SHUT_WR);
	else if (c->bfd >= 0) {
		close(c->bfd);
		c->bfd = -1;
	}
	(void)s;
}

static void refuse_after(struct px_server *s, struct px_conn *c, int status, const char *why,
			 unsigned retry_after)
{
	set_final(c, status, why, retry_after);
	refuse_after_set(s, c);
}

void px_log(struct px_server *s, const struct px_conn *c, const char *method, size_t mlen,
	    const char *path, size_t plen, int status, long rule_line)
{
	char addr[INET6_ADDRSTRLEN], when[32];
	struct timespec t;
	struct tm tm;

	if (!s->log)
		return;
	clock_gettime(CLOCK_REALTIME, &t);
	gmtime_r(&t.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	inet_ntop(c->family == 6 ? AF_INET6 : AF_INET, c->addr, addr, sizeof(addr));
	fprintf(s->log, "%s.%03ldZ %s %.*s %.*s ", when, t.tv_nsec / 1000000, addr,
		method ? (int)mlen : 1, method ? method : "-", path ? (int)(plen > 512 ? 512 : plen) : 1,
		path ? path : "-");
	if (status)
		fprintf(s->log, "%d", status);
	else
		fprintf(s->log, "forward"); /* the backend is known once a connect succeeds */
	if (rule_line > 0)
		fprintf(s->log, " rule=line:%ld\n", rule_line);
	else if (rule_line == 0)
		fprintf(s->log, " rule=default\n");
	else
		fprintf(s->log, " rule=-\n");
}

void px_conn_refuse(struct px_server *s, struct px_conn *c, int status, const char *why)
{
	px_log(s, c, NULL, 0, NULL, 0, status, -1);
	s->refused[px_refused_slot(status)]++;
	refuse_after(s, c, status, why, 0);
}

/* ---- the backend ------------------------------------------------------- */

/* Starts a connect to the next backend in turn; 0, or -errno when every
 * backend failed at once. */
static int backend_connect(struct px_server *s, struct px_conn *c)
{
	const struct fp_px_config *cfg = s->cfg;
	/* transparent without backends: one, the client's original destination */
	unsigned n = cfg->n_backends ? cfg->n_backends : 1;

	while (c->tries < n) {
		unsigned b = s->rr++ % n;
		const struct sockaddr_storage *to = cfg->n_backends ? &cfg->backends[b] : &c->orig;
		socklen_t tl = cfg->n_backends ? cfg->backend_len[b] : c->orig_len;
		int fd, one = 1;

		c->tries++;
		s->backends[b].connects++;
		fd = socket(to->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		/* a head and its body go in separate sends: no Nagle wait for the
		 * backend's (delayed) ACK between them (HAProxy sets it too) */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(fd, (const struct sockaddr *)to, tl) && errno != EINPROGRESS) {
			s->backends[b].connect_failures++;
			close(fd);
			continue;
		}
		struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
					  .data.ptr = px_backend_tag(c) };

		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev)) {
			close(fd);
			return -errno;
		}
		c->bfd = fd;
		c->backend = (int)b;
		c->connecting = true;
		return 0;
	}
	return -ECONNREFUSED;
}

/* A pending connect: true once it is settled (connected, or failed and the
 * next backend tried, or every one failed and the request refused). */
static bool backend_settle(struct px_server *s, struct px_conn *c)
{
	struct sockaddr_storage peer;
	socklen_t pl = sizeof(peer), el = sizeof(int);
	int e = 0;

	if (!c->connecting)
		return true;
	getsockopt(c->bfd, SOL_SOCKET, SO_ERROR, &e, &el);
	if (!e && !getpeername(c->bfd, (struct sockaddr *)&peer, &pl)) {
		c->connecting = false;
		c->tries = 0;
		c->b_readable = true;
		px_sockmap_attach(s, c); /* before any request goes (sockmap only) */
		return true;
	}
	if (!e)
		return false; /* still in progress */
	s->backends[c->backend].connect_failures++;
	close(c->bfd);
	c->bfd = -1;
	c->connecting = false;
	if (backend_connect(s, c)) {
		s->refused[px_refused_slot(502)]++;
		refuse_after(s, c, 502, "no backend accepted the connection", 0);
		return true;
	}
	return false;
}

/* ---- deciding a request ------------------------------------------------- */

static bool over_rate(void *ctx, size_t rule, const struct fp_px_view *v)
{
	struct px_server *s = ctx;
	const struct fp_px_rule *r = &s->pol->pol.rules[rule];
	struct px_bucket *b = &s->pol->buckets[rule * PX_BUCKETS];
	struct timespec t;
	uint64_t now;

	if (r->by == FP_PX_BY_CLIENT) {
		uint32_t h = 2166136261u;

		for (int i = 0; i < (v->family == 6 ? 16 : 4); i++)
			h = (h ^ v->addr[i]) * 16777619u;
		b += h % PX_BUCKETS;
	}
	clock_gettime(CLOCK_MONOTONIC, &t);
	now = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
	if (!b->last_ns) {
		b->tokens = r->burst;
	} else {
		double add = (double)(now - b->last_ns) * 1e-9 * r->rate_count / r->rate_period_s;

		b->tokens = fmin((double)r->burst, b->tokens + add);
	}
	b->last_ns = now;
	if (b->tokens >= 1.0) {
		b->tokens -= 1.0;
		return false;
	}
	return true;
}

bool px_over_rate(void *ctx, size_t rule, const struct fp_px_view *v)
{
	return over_rate(ctx, rule, v);
}

int px_backend_connect(struct px_server *s, struct px_conn *c)
{
	c->tries = 0;
	return backend_connect(s, c);
}

static void count_status(struct px_rule_stats *st, int status)
{
	for (int i = 0; i < PX_STATUS_SLOTS; i++) {
		if (st->status[i] == status || !st->status[i]) {
			st->status[i] = (uint16_t)status;
			st->status_n[i]++;
			return;
		}
	}
}

/* A complete head of hl bytes in c->in: decide it, and forward or refuse. */
static void decide(struct px_server *s, struct px_conn *c, int hl)
{
	const struct fp_http_req *q = &s->req;
	struct fp_px_view v = { .buf = c->in, .req = q, .family = c->family };
	struct fp_px_verdict vd;
	struct px_rule_stats *st;
	long n = fp_http__normalise_path(c->in + q->path.off, q->path.len, s->path, sizeof(s->path));
	char line[64];
	size_t line_end;

	if (n < 0) {
		px_conn_refuse(s, c, 400, "path refused (an encoded / or \\, a control character, "
			       "or a broken %-encoding)");
		return;
	}
	memcpy(v.addr, c->addr, sizeof(v.addr));
	if (s->cfg->cookie_key)
		v.cookie_ok = fp_px_cookie__request_ok(s->cfg->cookie_key, c->family, c->addr, c->in,
						       q, (uint64_t)time(NULL));
	v.path = s->path;
	v.path_len = (size_t)n;
	fp_px_policy__decide(&s->pol->pol, &v, over_rate, s, &vd);
	st = &s->pol->stats[vd.rule < 0 ? s->pol->pol.n : (size_t)vd.rule];
	st->requests++;
	if (vd.action != FP_PX_ALLOW) {
		const struct fp_px_rule *r = vd.rule >= 0 ? &s->pol->pol.rules[vd.rule] : NULL;
		int status = vd.action == FP_PX_CHALLENGE ? 302 : vd.status;
		unsigned retry = 0;

		if (status == 302 && (!s->cfg->cookie_key ||
				      set_challenge(s, c, c->in + q->target.off, q->target.len)))
			status = s->cfg->cookie_key ? 414 : 403;

		count_status(st, status);
		if (r && r->action == FP_PX_LIMIT)
			retry = (r->rate_period_s + r->rate_count - 1) / r->rate_count;
		px_log(s, c, c->in + q->method.off, q->method.len, s->path, (size_t)n, status,
		       r ? (long)r->line : 0);
		if (r)
			snprintf(line, sizeof(line), "refused by the policy (line %u)", r->line);
		else
			snprintf(line, sizeof(line), "refused by the policy's default");
		if (status == 302) {
			refuse_after_set(s, c); /* final holds the 302 */
		} else {
			refuse_after(s, c, status, line, retry ? retry : 0);
		}
		return;
	}
	st->allowed++;
	if (c->bfd < 0 && !c->backend_eof) {
		c->tries = 0;
		if (backend_connect(s, c)) {
			px_conn_refuse(s, c, 502, "no backend accepted the connection");
			return;
		}
	}
	if (c->bfd < 0) {
		px_conn_refuse(s, c, 502, "the backend closed the connection");
		return;
	}
	/* the request line with the normalised path, then the headers as sent */
	line_end = (size_t)((const char *)memchr(c->in + q->method.off, '\n',
						 (size_t)hl - q->method.off) - c->in) + 1;
	if (px_out_append(c, c->in + q->method.off, q->method.len + 1) ||
	    px_out_append(c, s->path, (size_t)n) ||
	    (q->query.len && (px_out_append(c, "?", 1) ||
			      px_out_append(c, c->in + q->query.off, q->query.len))) ||
	    px_out_append(c, q->version_minor ? " HTTP/1.1\r\n" : " HTTP/1.0\r\n", 11) ||
	    px_out_append(c, c->in + line_end, (size_t)hl - line_end)) {
		px_conn_refuse(s, c, 503, "out of memory");
		return;
	}
	px_log(s, c, c->in + q->method.off, q->method.len, s->path, (size_t)n, 0,
	       vd.rule >= 0 ? (long)s->pol->pol.rules[vd.rule].line : 0);
	s->backends[c->backend].requests++;
	if (q->method.len == 4 && !memcmp(c->in + q->method.off, "HEAD", 4))
		c->b_no_hold = true; /* its response announces a body it does not have */
	s->backends[c->backend].bytes_copied += (uint64_t)hl;
	c->last = !q->keep_alive;
	px_consume_in(c, (size_t)hl);
	if (q->body == FP_HTTP_BODY_LENGTH) {
		c->st = PX_BODY_LEN;
		c->body_left = q->content_length;
		px_body_start(c);
	} else if (q->body == FP_HTTP_BODY_CHUNKED) {
		c->st = PX_BODY_CHUNKED;
		fp_http_chunked__init(&c->ch, &s->cfg->limits);
		px_body_start(c);
	} else {
		c->st = PX_HEAD;
		c->deadline_ms = px_now_ms() + s->cfg->header_timeout_ms;
	}
}

static int chunked_step(struct px_server *s, struct px_conn *c)
{
	char peek[512];
	uint64_t got;
	long n;
	int r;

	if (c->ch.state == FP_CHUNKED_DONE) {
		c->st = PX_HEAD;
		c->deadline_ms = px_now_ms() + s->cfg->header_timeout_ms;
		return MOVED;
	}
	if (c->ch.state == FP_CHUNKED_DATA) {
		r = px_body_bytes(s, c, c->ch.data_left, &got);
		if (r == MOVED)
			fp_http_chunked__data(&c->ch, got);
		return r;
	}
	/* control bytes: parsed here, copied to the backend */
	if (c->in_len) {
		n = fp_http_chunked__feed(&c->ch, c->in, c->in_len);
		if (n < 0)
			return FAILED;
		if (px_out_append(c, c->in, (size_t)n))
			return FAILED;
		s->backends[c->backend].bytes_copied += (uint64_t)n;
		px_consume_in(c, (size_t)n);
		return MOVED;
	}
	if (!c->c_readable)
		return BLOCKED;
	ssize_t p = recv(c->cfd, peek, sizeof(peek), MSG_PEEK | MSG_DONTWAIT);

	if (p == 0) {
		c->client_eof = true;
		return FAILED;
	}
	if (p < 0)
		return errno == EAGAIN ? px_client_drained(c) : FAILED;
	n = fp_http_chunked__feed(&c->ch, peek, (size_t)p);
	if (n < 0 || recv(c->cfd, peek, (size_t)n, MSG_DONTWAIT) != n)
		return FAILED;
	if (px_out_append(c, peek, (size_t)n))
		return FAILED;
	s->backends[c->backend].bytes_copied += (uint64_t)n;
	return MOVED;
}

/* The next head: parse what is buffered, read more when it is not whole. */
static int head_step(struct px_server *s, struct px_conn *c)
{
	size_t cap = s->cfg->limits.max_head;
	int r;

	if (c->last) {
		/* a request that closes: no more are read; the backend answers and closes */
		if (c->bfd >= 0 && !c->client_eof) {
			shutdown(c->bfd, SHUT_WR);
			c->client_eof = true;
		}
		return BLOCKED;
	}
	if (c->in_len && (uint8_t)c->in[0] == FP_TLS_CONTENT_HANDSHAKE && c->backend < 0)
		return px_tls_head(s, c); /* TLS, decided on its server name */
	r = c->in_len ? fp_http__parse_head(c->in, c->in_len, &s->cfg->limits, &s->req) : 0;
	if (r > 0) {
		decide(s, c, r);
		return MOVED;
	}
	if (r < 0) {
		px_conn_refuse(s, c, -r, s->req.why);
		return MOVED;
	}
	if (c->client_eof || !c->c_readable)
		return BLOCKED;
	ssize_t n = recv(c->cfd, c->in + c->in_len, cap - c->in_len, MSG_DONTWAIT);

	if (n > 0) {
		/* a short read emptied the socket: the next bytes bring an event
		 * (not so an EOF whose event came with these bytes: hup) */
		if ((size_t)n < cap - c->in_len && !c->c_hup)
			c->c_readable = false;
		c->in_len += (size_t)n;
		return MOVED;
	}
	if (n < 0 && errno == EAGAIN)
		return px_client_drained(c);
	/* EOF (or an error) between requests: the backend finishes, then we close */
	c->client_eof = true;
	if (c->in_len || c->bfd < 0) {
		c->dead = true;
		return FAILED;
	}
	if (!c->connecting)
		shutdown(c->bfd, SHUT_WR);
	return MOVED;
}

static int c2b(struct px_server *s, struct px_conn *c)
{
	bool empty = true;
	uint64_t got;
	int r;

	if (c->st == PX_TUNNEL)
		return px_tunnel_step(s, c);
	if (c->st == PX_HEAD && !c->out_len)
		return head_step(s, c);
	if (c->st != PX_HEAD && c->st != PX_BODY_LEN && c->st != PX_BODY_CHUNKED)
		return BLOCKED;
	if (c->bfd < 0 || c->connecting)
		return BLOCKED;
	/* order: copied bytes, then spliced bytes, then more */
	r = px_flush_out(s, c, &empty);
	if (r == FAILED || !empty)
		return r;
	if (c->out_len) {
		c->out_len = c->out_off = 0;
		return MOVED;
	}
	r = px_drain_cp(s, c);
	if (r == FAILED || c->cp_bytes)
		return r;
	if (c->st == PX_BODY_LEN) {
		if (!c->body_left) {
			c->st = PX_HEAD;
			c->deadline_ms = px_now_ms() + s->cfg->header_timeout_ms;
			return MOVED;
		}
		r = px_body_bytes(s, c, c->body_left, &got);
		if (r == MOVED)
			c->body_left -= got;
		return r;
	}
	if (c->st == PX_BODY_CHUNKED)
		return chunked_step(s, c);
	return head_step(s, c);
}

/* The final answer once the backend is done; then linger, then close. */
static int final_step(struct px_server *s, struct px_conn *c)
{
	char sink[4096];

	if (c->st == PX_DRAIN) {
		if (c->bfd >= 0 && (!c->backend_eof || c->bp_bytes))
			return BLOCKED;
		c->st = PX_FINAL;
	}
	if (c->st == PX_FINAL) {
		while (c->final_off < c->final_len) {
			ssize_t n = send(c->cfd, c->final + c->final_off, c->final_len - c->final_off,
					 MSG_NOSIGNAL | MSG_DONTWAIT);

			if (n < 0)
				return errno == EAGAIN ? BLOCKED : FAILED;
			c->final_off += (size_t)n;
		}
		shutdown(c->cfd, SHUT_WR);
		c->st = PX_LINGER;
		c->deadline_ms = px_now_ms() + LINGER_MS;
	}
	for (;;) {
		ssize_t n = recv(c->cfd, sink, sizeof(sink), MSG_DONTWAIT);

		if (n > 0)
			continue;
		if (n < 0 && errno == EAGAIN)
			return BLOCKED;
		c->dead = true;
		return FAILED;
	}
	(void)s;
}

void px_conn_pump(struct px_server *s, struct px_conn *c)
{
	int a, b;

	do {
		if (c->connecting && !backend_settle(s, c))
			return;
		a = px_b2c(s, c);
		if (a == FAILED)
			c->dead = true;
		if (c->st == PX_DRAIN || c->st == PX_FINAL || c->st == PX_LINGER) {
			if (final_step(s, c) == FAILED)
				c->dead = true;
			b = BLOCKED;
		} else {
			b = c2b(s, c);
			if (b == FAILED)
				c->dead = true;
		}
		/* the backend is gone and everything it sent is out: done */
		if (c->backend_eof && !c->bp_bytes && c->st < PX_DRAIN)
			c->dead = true;
	} while (!c->dead && (a == MOVED || b == MOVED));
}
