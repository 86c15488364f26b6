// SPDX-License-Identifier: BSD-2-Clause
/*
 * The health checker's probes and hysteresis (lb_health.h). A probe is a
 * TCP connection (and the HTTP GET if asked) to VIP:port, as a client
 * makes it, from a socket marked FP_LB_HC_MARK + the backend's index: the
 * tc program lb_hc.bpf.c encapsulates it to that backend as the lb stage
 * encapsulates clients' packets, and the backend answers this host from
 * the VIP directly. So it proves what a client needs: the route to the
 * backend, its decapsulation, the VIP on it, and the server. With --direct
 * (opts.hc NULL) it goes to the backend's own address, unencapsulated:
 * the server alone.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "lb/lb_hc_user.h"
#include "lb/lb_health.h"
#include "lb/lb_internal.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ll + ts.tv_nsec / 1000000;
}

/* Waits for events on fd until the deadline: 0, or -ETIMEDOUT. */
static int wait_fd(int fd, short ev, long long deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	long long left = deadline - now_ms();
	int n;

	if (left <= 0)
		return -ETIMEDOUT;
	n = poll(&p, 1, (int)left);
	if (n < 0)
		return -errno;
	return n ? 0 : -ETIMEDOUT;
}

static int http_check(int fd, const struct fp_lb_health_opts *o, const char *host,
		      long long deadline, char *why, size_t whylen)
{
	char req[512], buf[256];
	size_t got = 0;
	int code, ret;

	snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: %s\r\nUser-Agent: fastpath-lb-health"
		 "\r\nConnection: close\r\n\r\n", o->http_path, host);
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req)) {
		snprintf(why, whylen, "sending the request: %s", strerror(errno));
		return -EIO;
	}
	while (got < sizeof(buf) - 1 && !memchr(buf, '\n', got)) {
		ssize_t n;

		if ((ret = wait_fd(fd, POLLIN, deadline))) {
			snprintf(why, whylen, "no answer within %u ms", o->timeout_ms);
			return ret;
		}
		n = recv(fd, buf + got, sizeof(buf) - 1 - got, 0);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = 0;
	if (sscanf(buf, "HTTP/%*d.%*d %d", &code) != 1) {
		snprintf(why, whylen, "not an HTTP answer");
		return -EPROTO;
	}
	if (code != o->expect) {
		snprintf(why, whylen, "HTTP status %d, expected %d", code, o->expect);
		return -EPROTO;
	}
	return 0;
}

/* A probe's segments stay small enough for an outer header on a
 * 1500-byte path (the lb host has no route MTU for the VIP). */
#define HC_PROBE_MSS 1200

int fp_lb_probe(int af, const __u8 addr[16], __u16 port, __u32 mark,
		const struct fp_lb_health_opts *o, const char *host, char *why, size_t whylen)
{
	int mss = HC_PROBE_MSS;
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(port) };
	long long deadline = now_ms() + o->timeout_ms;
	int fd, ret = 0, soerr = 0;
	socklen_t sl = sizeof(soerr);

	why[0] = 0;
	memcpy(&s4.sin_addr, addr, 4);
	memcpy(&s6.sin6_addr, addr, 16);
	fd = socket(af == 4 ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (mark && (setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)) ||
		     setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof(mss)))) {
		ret = -errno;
		snprintf(why, whylen, "marking the probe socket: %s", strerror(-ret));
		close(fd);
		return ret;
	}
	if (connect(fd, af == 4 ? (struct sockaddr *)&s4 : (struct sockaddr *)&s6,
		    af == 4 ? sizeof(s4) : sizeof(s6)) && errno != EINPROGRESS) {
		ret = -errno;
	} else if ((ret = wait_fd(fd, POLLOUT, deadline)) == 0) {
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
		ret = -soerr;
	}
	if (ret == -ETIMEDOUT)
		snprintf(why, whylen, "no connection within %u ms", o->timeout_ms);
	else if (ret)
		snprintf(why, whylen, "connect: %s", strerror(-ret));
	else if (o->http_path)
		ret = http_check(fd, o, host, deadline, why, whylen);
	close(fd);
	return ret;
}

/* ROOT/IFACE/lb/lb_health: opened, or made and pinned by the first checker. */
static int health_map(struct fp_lb *lb, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/lb_health", lb->dir);
	fd = bpf_obj_get(path);
	if (fd >= 0)
		return fd;
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "lb_health", sizeof(__u32),
			    sizeof(struct fp_lb_health), FP_LB_MAX_BACKENDS, NULL);
	if (fd < 0 || bpf_obj_pin(fd, path)) {
		int e = errno;

		snprintf(err, errlen, "cannot make the health state %s: %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	return fd;
}

int fp_lb_health_round(struct fp_lb *lb, const struct fp_lb_health_opts *o,
		       void (*cb)(const struct fp_lb_health_event *e, void *arg), void *arg,
		       char *err, size_t errlen)
{
	struct fp_lb_vip_info *v = NULL;
	struct fp_lb_be_info *b = NULL;
	int nv = 0, nb = 0, hfd, ret;

	ret = fp_lb__vips(lb, &v, &nv);
	if (!ret)
		ret = fp_lb__backends(lb, ~0u, false, &b, &nb);
	if (ret) {
		snprintf(err, errlen, "reading the lb's maps failed: %s", strerror(-ret));
		free(v);
		return ret;
	}
	hfd = health_map(lb, err, errlen);
	if (hfd < 0) {
		free(v);
		free(b);
		return hfd;
	}
	for (int i = 0; i < nb; i++) {
		const struct fp_lb_vip_info *vi = NULL;
		struct fp_lb_health_event e;
		struct fp_lb_health *h = &e.state;
		struct timespec ts;
		char host[64];

		for (int j = 0; j < nv; j++)
			if (v[j].vip.index == b[i].be.vip_index)
				vi = &v[j];
		if (!vi)
			continue;
		memset(&e, 0, sizeof(e));
		fp_lb_vip_str(&vi->key, e.vip, sizeof(e.vip));
		fp_lb_addr_str(b[i].be.addr, b[i].be.family, e.backend, sizeof(e.backend));
		fp_lb_addr_str(vi->key.addr, vi->key.family, host, sizeof(host));
		e.port = vi->key.port && vi->key.proto == IPPROTO_TCP ? vi->key.port : o->port;
		if (bpf_map_lookup_elem(hfd, &b[i].index, h) || h->gen != b[i].be.gen) {
			memset(h, 0, sizeof(*h)); /* a new backend: up until proven down */
			h->gen = b[i].be.gen;
			h->up = 1;
		}
		if (!e.port) {
			e.skipped = true;
			snprintf(e.why, sizeof(e.why), "no TCP port to probe (give --port)");
		} else {
			int pr;

			if (o->hc) { /* to the VIP, encapsulated to this backend */
				pr = fp_lb_hc_set(o->hc, b[i].index, vi->key.family, vi->key.addr,
						  b[i].be.family, b[i].be.addr, e.why, sizeof(e.why));
				if (!pr)
					pr = fp_lb_probe(vi->key.family, vi->key.addr, e.port,
							 FP_LB_HC_MARK + b[i].index, o, host, e.why,
							 sizeof(e.why));
			} else {
				pr = fp_lb_probe(b[i].be.family, b[i].be.addr, e.port, 0, o, host,
						 e.why, sizeof(e.why));
			}
			/* A signal cut the probe short (the checker is stopping): it
			 * says nothing of the backend, so the round ends unrecorded. */
			if (pr == -EINTR)
				break;
			e.ok = !pr;
			h->probes++;
			h->fails += !e.ok;
			h->ok_run = e.ok ? h->ok_run + 1 : 0;
			h->fail_run = e.ok ? 0 : h->fail_run + 1;
			clock_gettime(CLOCK_REALTIME, &ts);
			h->last_ns = (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
		}
		e.be_state = b[i].be.flags & FP_LB_BE_DOWN ? "down" :
			     b[i].be.flags & FP_LB_BE_DRAIN ? "drain" : "up";
		if (!e.skipped && h->up && h->fail_run >= o->fall) {
			h->up = 0;
			e.change = "down";
			/* an operator's drain or down is theirs: only an up backend is taken down */
			if (!(b[i].be.flags & (FP_LB_BE_DOWN | FP_LB_BE_DRAIN))) {
				char m[256];

				if (!fp_lb__backend(lb, &vi->key, b[i].be.family, b[i].be.addr,
						    FP_LB_OP_DOWN, 0, NULL, m, sizeof(m))) {
					h->by_health = 1;
					e.be_state = "down";
				}
			}
		} else if (!e.skipped && !h->up && h->ok_run >= o->rise) {
			h->up = 1;
			e.change = "up";
			if (h->by_health && (b[i].be.flags & FP_LB_BE_DOWN)) {
				char m[256];

				if (!fp_lb__backend(lb, &vi->key, b[i].be.family, b[i].be.addr,
						    FP_LB_OP_UP, 0, NULL, m, sizeof(m)))
					e.be_state = "up";
			}
			h->by_health = 0;
		}
		bpf_map_update_elem(hfd, &b[i].index, h, 0);
		if (cb)
			cb(&e, arg);
	}
	close(hfd);
	free(v);
	free(b);
	return 0;
}

int fp_lb_health_claim(const char *ifname, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), n;

	if (fd < 0)
		return -errno;
	/* an abstract name: per network namespace, gone with the process */
	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "fastpath-lb-health/%s", ifname);
	if (bind(fd, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
							  1 + n))) {
		int e = errno;

		close(fd);
		if (e == EADDRINUSE)
			snprintf(err, errlen, "a health checker already runs on %s (one per interface: "
				 "a second would undo the first's probe setup at exit)", ifname);
		else
			snprintf(err, errlen, "claiming %s's health checker: %s", ifname, strerror(e));
		return -e;
	}
	return fd;
}

bool fp_lb_health_took_down(struct fp_lb *lb, __u32 index, __u32 gen)
{
	char path[PATH_MAX];
	struct fp_lb_health h;
	int fd, got;

	snprintf(path, sizeof(path), "%s/lb_health", lb->dir);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return false; /* no checker has run */
	got = !bpf_map_lookup_elem(fd, &index, &h);
	close(fd);
	return got && h.gen == gen && h.by_health;
}

int fp_lb_health_disown(struct fp_lb *lb, __u32 index)
{
	char path[PATH_MAX];
	struct fp_lb_health h;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/lb_health", lb->dir);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	if (!bpf_map_lookup_elem(fd, &index, &h) && h.by_health) {
		h.by_health = 0;
		ret = bpf_map_update_elem(fd, &index, &h, 0) ? -errno : 0;
	}
	close(fd);
	return ret;
}
