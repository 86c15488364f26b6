/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fastpath proxy's event loop (server.c) and connections (conn.c): one
 * thread, one epoll set, edge-triggered. Every request is framed and
 * decided; an allowed request's head is copied to the backend (rewritten
 * with its normalised path), its body moved with splice() through a pipe
 * for exactly its framed length (chunked: only the size lines are read),
 * and the backend's bytes go back to the client with splice() (small
 * ones, under 16 KiB, with one recv() and one send()), unparsed.
 */
#ifndef FP_PROXY_SERVER_H
#define FP_PROXY_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "proxy/cookie.h"
#include "proxy/http.h"
#include "proxy/policy.h"

#define FP_PX_BACKENDS_MAX 64

/* How allowed bytes move (pump.c; fastpath-proxy(8) DATA PATHS). */
enum fp_px_data_path {
	FP_PX_DATA_SPLICE,  /* splice() through pipes, both ways */
	FP_PX_DATA_COPY,    /* read()/write() through the proxy's memory */
	FP_PX_DATA_SOCKMAP, /* responses by a BPF sk_skb verdict on a SOCKHASH; bodies spliced */
};

const char *fp_px_data_path__name(enum fp_px_data_path p);
/* "splice", "copy" or "sockmap"; -EINVAL otherwise */
int fp_px_data_path__parse(const char *name, enum fp_px_data_path *p);

struct fp_px_config {
	struct sockaddr_storage listen;
	socklen_t listen_len;
	struct sockaddr_storage backends[FP_PX_BACKENDS_MAX];
	socklen_t backend_len[FP_PX_BACKENDS_MAX];
	unsigned n_backends;
	const char *policy_path;   /* reread on SIGHUP / `proxy reload` */
	const char *control_path;  /* the unix socket of stats and reload */
	unsigned max_conns;        /* past it: 503 and close */
	unsigned header_timeout_ms; /* a head not complete by then: 408 */
	unsigned body_timeout_ms;  /* a body with no byte for this long: 408 or closed */
	struct fp_http_limits limits;
	int ready_fd;              /* >= 0: "ready\n" written there once listening */
	const struct fp_px_cookie_key *cookie_key; /* NULL: none (a policy with a challenge is refused) */
	const char *access_log;    /* NULL: none (the default); "-": stdout; else a file appended to */
	bool transparent;          /* IP_TRANSPARENT listener (TPROXY); with no backends,
				    * each connection goes to its original destination */
	enum fp_px_data_path data_path;
	unsigned busy_poll_us;     /* 0: off; else poll without sleeping this long after an event */
};

/* Counters of one rule (or the default: index n_rules). */
struct fp_px_rule_stats {
	uint64_t requests;
	uint64_t status[6];        /* 2xx..., see fp_px_status_slot(): 0 allowed,
				    * 1 403-class denies, 2 429, 3 other 4xx, 4 5xx */
};

struct fp_px_backend_stats {
	uint64_t requests;         /* requests forwarded */
	uint64_t connects, connect_failures;
	uint64_t bytes_spliced;    /* moved in the kernel (spliced, or redirected by sockmap),
				    * never in user space */
	uint64_t bytes_copied;     /* read into and written from the proxy's memory */
};

/*
 * Runs the proxy until SIGINT/SIGTERM: 0 on a clean stop, or a negative
 * errno (err filled) when it cannot start. pol is taken over (freed at the
 * end). Messages go to stderr.
 */
int fp_px_server__run(const struct fp_px_config *cfg, struct fp_px_policy *pol, char *err,
		      size_t errlen);

#endif /* FP_PROXY_SERVER_H */
