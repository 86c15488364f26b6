/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The lb's health checker (`fastpath lb health`): probes every backend of
 * every VIP (TCP connect, or an HTTP GET with an expected status), the way
 * clients' packets reach it: to the VIP, encapsulated to the backend by a
 * tc program on the lb's interface (lb_hc.h), so a backend that does not
 * decapsulate or does not own the VIP fails (--direct: to the backend's
 * own address, as a plain TCP check), and takes
 * a backend down after `fall` failed probes in a row, and up again after
 * `rise` good ones, through the same code as `backend down|up`. Its state
 * is pinned (ROOT/IFACE/lb/lb_health, per backend entry and generation),
 * so a restarted checker carries on where the last one stopped; it only
 * ever brings up a backend it took down itself (an operator's drain or
 * down stays).
 */
#ifndef FP_LB_HEALTH_H
#define FP_LB_HEALTH_H

#include <stdbool.h>
#include <linux/types.h>
#include "lb/lb.h"

/* lb_health value, by lb_backends index. */
struct fp_lb_health {
	__u32 gen;             /* the backend entry's gen it is about */
	__u8  up;              /* the checker's view */
	__u8  by_health;       /* the checker set DOWN (it may set UP again) */
	__u16 pad;
	__u32 ok_run, fail_run; /* probes in a row */
	__u64 probes, fails;
	__u64 last_ns;         /* CLOCK_REALTIME of the last probe */
};

struct fp_lb_hc;

struct fp_lb_health_opts {
	__u32 rise, fall;      /* >= 1 */
	__u32 timeout_ms;      /* a probe's budget */
	__u16 port;            /* probe port for --port-any and UDP VIPs (0: skip them) */
	const char *http_path; /* NULL: TCP connect; else GET this path */
	int expect;            /* the HTTP status expected (e.g. 200) */
	struct fp_lb_hc *hc;   /* encapsulated probes to the VIP (lb_hc_user.h);
				* NULL: --direct, to the backend's own address */
};

/* One probe's outcome and what it changed, for the caller to print. */
struct fp_lb_health_event {
	char vip[80], backend[64];
	__u16 port;
	bool ok, skipped;
	char why[96];          /* a failed probe's reason */
	const char *change;    /* NULL, "down" or "up" */
	struct fp_lb_health state;
	const char *be_state;  /* the backend's state after the round */
};

/* One round over every backend; cb gets each probe. A signal that cuts a
 * probe short (EINTR: the checker is stopping) ends the round there, that
 * probe neither counted nor reported. */
int fp_lb_health_round(struct fp_lb *lb, const struct fp_lb_health_opts *o,
		       void (*cb)(const struct fp_lb_health_event *e, void *arg), void *arg,
		       char *err, size_t errlen);

/* A probe alone: a TCP connection to addr:port from a socket marked
 * `mark` (0: none), then the HTTP GET if asked; 0 healthy, else -errno
 * (why: a message). */
int fp_lb_probe(int af, const __u8 addr[16], __u16 port, __u32 mark,
		const struct fp_lb_health_opts *o, const char *host, char *why, size_t whylen);

/* One checker per interface (and network namespace): an fd to keep open
 * while it runs, or -errno (err: a message). Released when the process
 * ends, however it ends. */
int fp_lb_health_claim(const char *ifname, char *err, size_t errlen);

/* Whether the checker took backend entry `index` (of generation gen) down
 * itself, so that it may bring it up again (`lb save` writes such a
 * backend as up: the operator's intent). */
bool fp_lb_health_took_down(struct fp_lb *lb, __u32 index, __u32 gen);
/* An operator's word on the entry (`lb apply`): its down or drain is the
 * operator's from now on, never lifted by the checker. */
int fp_lb_health_disown(struct fp_lb *lb, __u32 index);

#endif
