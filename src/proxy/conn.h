/* SPDX-License-Identifier: BSD-2-Clause */
/* Internal to src/proxy/: one proxied connection and the server state it
 * reaches (server.c owns both; conn.c moves the bytes). */
#ifndef FP_PROXY_CONN_H
#define FP_PROXY_CONN_H

#include <stdint.h>
#include <stdio.h>

#include "proxy/server.h"

#define PX_STATUS_SLOTS 4

struct px_rule_stats {
	uint64_t requests, allowed;
	uint16_t status[PX_STATUS_SLOTS]; /* refused with these statuses ... */
	uint64_t status_n[PX_STATUS_SLOTS]; /* ... this many times */
	uint64_t closed;          /* TLS connections closed on the decision (tls_conn.c) */
};

struct px_bucket {
	double tokens;
	uint64_t last_ns;
};

#define PX_BUCKETS 256 /* by client: addresses hashed into this many buckets */

/* A policy in use, its limit buckets and its rules' counters. */
struct px_policy {
	struct fp_px_policy pol;
	struct px_bucket *buckets;    /* PX_BUCKETS per rule */
	struct px_rule_stats *stats;  /* n + 1: the last is the default */
	uint64_t generation;
};

enum px_state {
	PX_HEAD,          /* reading (and deciding) the next request head */
	PX_BODY_LEN,      /* body_left bytes of a Content-Length body */
	PX_BODY_CHUNKED,  /* a chunked body (ch) */
	PX_TUNNEL,        /* an allowed TLS connection: every client byte on (tls_conn.c) */
	PX_DRAIN,         /* refused: the backend finishes earlier responses, then final */
	PX_FINAL,         /* writing final to the client */
	PX_LINGER,        /* final sent, write side shut: reading until EOF or deadline */
};

struct px_conn {
	struct px_conn *prev, *next;
	int cfd, bfd;
	int backend;              /* index, -1 before the first allowed request */
	unsigned tries;           /* backends tried for this connect */
	bool connecting, client_eof, backend_eof, last, dead;
	bool b_readable;          /* the backend may have bytes: an event since its last EAGAIN */
	bool c_readable;          /* the same of the client */
	bool b_hup, c_hup;        /* an event said the peer shut down: read until EOF */
	int cp[2], bp[2];         /* pipes client->backend, backend->client */
	size_t cp_bytes, bp_bytes;
	char *in;                 /* client bytes read but not used (limits.max_head) */
	size_t in_len;
	char *out;                /* bytes for the backend, copied (head, chunk lines) */
	size_t out_len, out_off, out_cap;
	enum px_state st;
	uint64_t body_left;
	struct fp_http_chunked ch;
	uint64_t deadline_ms;
	char final[1024];         /* a refusal, or a challenge's 302 (its Location) */
	size_t final_len, final_off;
	uint8_t family, addr[16];
	struct sockaddr_storage orig; /* transparent, no backends: where the client
				       * was going (tproxy.c) */
	socklen_t orig_len;
	uint64_t body_since;      /* body_timeout.c: when the client last sent body bytes */
	uint64_t body_rx, body_brx; /* ... its bytes received then, the backend's at the start */
	uint64_t body_checked;    /* ... the last look (at most 4 a second) */
	/* the data paths (pump.c): copy's buffer of bp_bytes from bb_off;
	 * splice's of small bursts (bb_left of bp_bytes), b_big while the
	 * backend's bursts are large (spliced), b_burst bytes of this one,
	 * b_small_bursts small ones in a row ... */
	char *bbuf;
	size_t bb_off, bb_left;
	bool b_big;
	bool b_hold, b_no_hold;   /* a response head held for its body (pump.c);
				   * never after a HEAD request */
	uint64_t hold_ms;
	unsigned b_small_bursts;
	uint64_t b_burst;
	/* ... sockmap's: in the maps under kcookie; kseen bytes redirected so
	 * far, kwritten reached the client socket (less kbase) at kprogress_ms;
	 * kwait: bytes still on their way, the server polls */
	bool in_map, kwait;
	uint64_t kcookie, kseen, kbase, kwritten, kprogress_ms;
};

struct px_server {
	const struct fp_px_config *cfg;
	struct px_policy *pol;
	int ep, lfd, ctl, sigfd;
	unsigned n_conns;
	uint64_t generation;
	unsigned rr;                       /* round robin: the next backend */
	struct px_conn *conns;
	struct fp_px_backend_stats backends[FP_PX_BACKENDS_MAX];
	uint64_t refused[8];               /* by px_refused_slot() */
	uint64_t accepted;
	uint64_t tls_refused;              /* not a ClientHello the proxy can read: closed */
	uint64_t body_timeouts;            /* bodies that stopped arriving (body_timeout.c) */
	FILE *log;                         /* the access log, or NULL */
	struct fp_http_req req;            /* scratch: the head being decided */
	char path[FP_HTTP_MAX_HEAD_DEFAULT * 2];
	struct proxy_sockmap_bpf *skel;    /* --data-path sockmap: the verdict and maps */
	uint64_t busy_seen_us;             /* --busy-poll: when an event was last seen */
};

/* The backend socket's epoll tag: c's address + 1, so that the event loop
 * tells its events from the client socket's (c). */
static inline void *px_backend_tag(struct px_conn *c)
{
	return (char *)c + 1;
}

static inline struct px_conn *px_conn_of(void *tag, bool *backend)
{
	*backend = (uintptr_t)tag & 1;
	return (struct px_conn *)((uintptr_t)tag & ~(uintptr_t)1);
}

/* A read of the client said EAGAIN: none until its next event. BLOCKED (0). */
static inline int px_client_drained(struct px_conn *c)
{
	c->c_readable = false;
	return 0;
}

/* stats_json.c: the control socket's "stats" answer (a new jansson object) */
struct json_t *px_stats_json(const struct px_server *s);

/* 400 414 431 505 408 503 502 other */
int px_refused_slot(int status);
extern const int px_refused_status[8];

uint64_t px_now_ms(void);
/* Moves what can move on c, both ways, until everything would block. */
void px_conn_pump(struct px_server *s, struct px_conn *c);
/* One access log line (when there is a log): what was decided on a
 * request of c. method/path may be NULL ("-"); status 0 = forwarded. */
void px_log(struct px_server *s, const struct px_conn *c, const char *method, size_t mlen,
	    const char *path, size_t plen, int status, long rule_line);
/* Answers status with a short body once earlier responses are through,
 * then closes. */
void px_conn_refuse(struct px_server *s, struct px_conn *c, int status, const char *why);

/* For tls_conn.c (conn.c): the rate check of limit rules, and a connect
 * to the next backend in turn (0, or -errno when none accepts at once). */
bool px_over_rate(void *ctx, size_t rule, const struct fp_px_view *v);
int px_backend_connect(struct px_server *s, struct px_conn *c);

/*
 * tls_conn.c: a connection whose first byte is a TLS handshake record.
 * px_tls_head() reads the ClientHello (in c->in), decides it on its server
 * name, then closes the connection or connects a backend and enters
 * PX_TUNNEL, where px_tunnel_step() moves every client byte to the
 * backend (the hello copied, the rest spliced). Both return conn.c's step
 * results (1 moved, 0 blocked, -1 failed).
 */
int px_tls_head(struct px_server *s, struct px_conn *c);

/*
 * tproxy.c: transparent mode. px_tproxy_listen() makes a listening socket
 * take connections TPROXY sends it (IP_TRANSPARENT); px_tproxy_accepted()
 * notes a connection's original destination (its local address), -1 when
 * that is the proxy's own listener (a direct connection: nowhere to go).
 * Without backends, conn.c's connect takes c->orig as the one backend.
 */
int px_tproxy_listen(int fd, int family);
int px_tproxy_accepted(const struct px_server *s, struct px_conn *c);

/*
 * body_timeout.c: called by the server's timer for a connection in a body
 * state (now in ms); a body the client stopped sending for
 * body_timeout_ms is answered 408 (no response started) or the connection
 * closed (c->dead). Another state: forgets the body's clock.
 */
void px_body_check(struct px_server *s, struct px_conn *c, uint64_t now);
/* Notes the backend's bytes received so far: a request's body begins. */
void px_body_start(struct px_conn *c);
int px_tunnel_step(struct px_server *s, struct px_conn *c);

#endif
