// SPDX-License-Identifier: BSD-2-Clause
/*
 * fastpath proxy's event loop (server.h): the listener, the connections'
 * epoll set, timeouts (a head not complete in time: 408), the connection
 * limit (503), SIGHUP and the control socket (reload; stats: stats_json.c).
 *
 * The control socket is a unix stream socket: a client writes one line,
 * "stats" or "reload", and reads one JSON document back, then the proxy
 * closes it. A reload parses the policy file again and swaps it whole
 * between two requests (the loop is one thread: a request is decided on
 * one policy), or keeps the old one and answers the errors.
 */
#include "proxy/server.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <jansson.h>

#include "proxy/conn.h"
#include "proxy/tls_sni.h"
#include "proxy/pump.h"

static char tag_listen, tag_ctl, tag_sig; /* epoll data of the non-connection fds */

static struct px_policy *policy_wrap(struct fp_px_policy *pol, uint64_t gen)
{
	struct px_policy *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->buckets = calloc(pol->n ? pol->n * PX_BUCKETS : 1, sizeof(*p->buckets));
	p->stats = calloc(pol->n + 1, sizeof(*p->stats));
	if (!p->buckets || !p->stats) {
		free(p->buckets);
		free(p->stats);
		free(p);
		return NULL;
	}
	p->pol = *pol;
	p->generation = gen;
	memset(pol, 0, sizeof(*pol));
	return p;
}

static void policy_free(struct px_policy *p)
{
	if (!p)
		return;
	fp_px_policy__free(&p->pol);
	free(p->buckets);
	free(p->stats);
	free(p);
}

/* ---- connections --------------------------------------------------------- */

static void conn_close(struct px_server *s, struct px_conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	if (c->cfd >= 0)
		close(c->cfd);
	if (c->bfd >= 0)
		close(c->bfd);
	px_pump_close(s, c);
	free(c->in);
	free(c);
	s->n_conns--;
}

static void send_now_and_close(int fd, int status, const char *text)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
			 "Content-Length: %zu\r\nConnection: close\r\n\r\n%s", status, text,
			 strlen(text) + 1 + 4, text);

	buf[n++] = '\n';
	(void)!send(fd, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

static void accept_all(struct px_server *s)
{
	for (;;) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		int fd = accept4(s->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct px_conn *c;
		int one = 1;

		if (fd < 0)
			return; /* EAGAIN, or EMFILE: the next event retries */
		s->accepted++;
		if (s->n_conns >= s->cfg->max_conns) {
			s->refused[px_refused_slot(503)]++;
			send_now_and_close(fd, 503, "503 too many connections");
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (!c || !(c->in = malloc(s->cfg->limits.max_head))) {
			free(c);
			s->refused[px_refused_slot(503)]++;
			send_now_and_close(fd, 503, "503 out of memory");
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c->cfd = fd;
		c->bfd = -1;
		c->backend = -1;
		c->cp[0] = c->cp[1] = c->bp[0] = c->bp[1] = -1;
		c->st = PX_HEAD;
		c->c_readable = true;
		c->deadline_ms = px_now_ms() + s->cfg->header_timeout_ms;
		if (s->cfg->transparent && !s->cfg->n_backends && px_tproxy_accepted(s, c)) {
			free(c->in);
			free(c);
			s->refused[px_refused_slot(502)]++;
			send_now_and_close(fd, 502, "502 a transparent proxy's own address: "
					   "no original destination");
			continue;
		}
		if (ss.ss_family == AF_INET6) {
			const struct sockaddr_in6 *a = (const void *)&ss;

			if (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr)) {
				c->family = 4;
				memcpy(c->addr, &a->sin6_addr.s6_addr[12], 4);
			} else {
				c->family = 6;
				memcpy(c->addr, &a->sin6_addr, 16);
			}
		} else {
			c->family = 4;
			memcpy(c->addr, &((const struct sockaddr_in *)&ss)->sin_addr, 4);
		}
		struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
					  .data.ptr = c };

		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev)) {
			free(c->in);
			free(c);
			close(fd);
			continue;
		}
		c->next = s->conns;
		if (s->conns)
			s->conns->prev = c;
		s->conns = c;
		s->n_conns++;
		px_conn_pump(s, c);
		if (c->dead)
			conn_close(s, c);
	}
}

/*
 * epoll_wait, after a bounded busy poll (--busy-poll USEC): for up to USEC
 * after the last event, poll with a null timeout instead of sleeping, so
 * that the load's CPU finds the proxy running when its bytes arrive (no
 * wakeup of an idle CPU: an IPI, and in a VM a trip through the
 * hypervisor, on the sender's CPU). Off (0) by default: it spends the
 * proxy's CPU while traffic comes, never on an idle server past USEC.
 */
static uint64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + (uint64_t)t.tv_nsec / 1000;
}

static int wait_events(struct px_server *s, struct epoll_event *evs, int max, int timeout_ms)
{
	unsigned busy = s->cfg->busy_poll_us;
	int n;

	while (busy) {
		uint64_t now;

		n = epoll_wait(s->ep, evs, max, 0);
		now = now_us();
		if (n) {
			s->busy_seen_us = now;
			return n;
		}
		if (now - s->busy_seen_us >= busy)
			break;
	}
	n = epoll_wait(s->ep, evs, max, timeout_ms);
	if (n > 0 && busy)
		s->busy_seen_us = now_us();
	return n;
}

/* 408 for heads not complete in time; the end of a linger */
static void expire(struct px_server *s)
{
	uint64_t now = px_now_ms();
	struct px_conn *c, *next;

	for (c = s->conns; c; c = next) {
		next = c->next;
		px_body_check(s, c, now);
		if (c->dead) {
			conn_close(s, c);
			continue;
		}
		if (now < c->deadline_ms)
			continue;
		if (c->st == PX_LINGER) {
			conn_close(s, c);
			continue;
		}
		if (c->st == PX_TUNNEL && c->in_map) {
			/* a TLS tunnel's backend closing is seen by polling, as an idle head's */
			px_b2c_sockmap(s, c);
			px_conn_pump(s, c);
			if (c->dead)
				conn_close(s, c);
			continue;
		}
		if (c->st != PX_HEAD || c->last || c->bp_bytes || c->out_len)
			continue;
		if (c->in_len && (uint8_t)c->in[0] == FP_TLS_CONTENT_HANDSHAKE && c->backend < 0) {
			s->tls_refused++; /* a ClientHello not whole in time: no HTTP 408 to TLS */
			conn_close(s, c);
			continue;
		}
		if (c->in_map && px_b2c_sockmap(s, c) >= 0 && now < c->deadline_ms)
			continue; /* a response still moving in the kernel */
		c->deadline_ms = UINT64_MAX;
		px_conn_refuse(s, c, 408, "the request head did not arrive in time");
		px_conn_pump(s, c);
		if (c->dead)
			conn_close(s, c);
	}
}

/* ---- reload (the stats answer: stats_json.c) -------------------------------- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 > cap) {
			char *b = realloc(buf, cap = cap ? cap * 2 : 65536);

			if (!b || cap > (32u << 20)) {
				free(b ? b : buf);
				fclose(f);
				errno = b ? EFBIG : ENOMEM;
				return NULL;
			}
			buf = b;
		}
		size_t r = fread(buf + n, 1, cap - n, f);

		n += r;
		if (!r)
			break;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* Reparses the policy: the JSON answer ({"reloaded":true,...} or the errors). */
static json_t *reload(struct px_server *s)
{
	struct fp_px_policy pol;
	struct fp_diags d = { 0 };
	size_t len = 0;
	char *text = slurp(s->cfg->policy_path, &len);
	json_t *o = json_object();
	struct px_policy *p;
	int err;

	if (!text) {
		json_object_set_new(o, "error", json_sprintf("cannot read %s: %s", s->cfg->policy_path,
							     strerror(errno)));
		return o;
	}
	err = fp_px_policy__parse(text, len, &pol, &d);
	free(text);
	if (!err && !s->cfg->cookie_key) {
		/* the key is read once, at start: no key then, no challenge now */
		for (size_t i = 0; i < pol.n; i++)
			if (pol.rules[i].action == FP_PX_CHALLENGE || pol.rules[i].limit_challenge)
				err = -EOPNOTSUPP;
		if (err)
			fp_px_policy__free(&pol);
	}
	if (err) {
		json_t *errs = json_array();

		for (size_t i = 0; d.v && i < d.n && i < d.cap; i++)
			json_array_append_new(errs, json_sprintf("%s:%u:%u: %s", s->cfg->policy_path,
								 d.v[i].line, d.v[i].col, d.v[i].msg));
		json_object_set_new(o, "error", json_sprintf("%s: %s; the policy in use is kept",
			s->cfg->policy_path, err == -EOPNOTSUPP ? "a challenge, but the proxy started without a cookie key"
			: err == -EINVAL ? "errors" : strerror(-err)));
		json_object_set_new(o, "errors", errs);
		fp_diags__free(&d);
		return o;
	}
	p = policy_wrap(&pol, s->pol->generation + 1);
	if (!p) {
		fp_px_policy__free(&pol);
		json_object_set_new(o, "error", json_string("out of memory; the policy in use is kept"));
		return o;
	}
	policy_free(s->pol);
	s->pol = p;
	json_object_set_new(o, "reloaded", json_true());
	json_object_set_new(o, "generation", json_integer((json_int_t)p->generation));
	json_object_set_new(o, "rules", json_integer((json_int_t)p->pol.n));
	return o;
}

static void control(struct px_server *s)
{
	for (;;) {
		int fd = accept4(s->ctl, NULL, NULL, SOCK_CLOEXEC);
		char line[64] = "";
		struct timeval tv = { 1, 0 };
		json_t *o;
		char *txt;
		ssize_t n;

		if (fd < 0)
			return;
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		n = recv(fd, line, sizeof(line) - 1, 0);
		line[n > 0 ? n : 0] = 0;
		line[strcspn(line, "\r\n")] = 0;
		if (!strcmp(line, "stats"))
			o = px_stats_json(s);
		else if (!strcmp(line, "reload"))
			o = reload(s);
		else
			o = json_pack("{s:s}", "error", "unknown command (stats, reload)");
		txt = json_dumps(o, JSON_COMPACT);
		if (txt) {
			(void)!send(fd, txt, strlen(txt), MSG_NOSIGNAL);
			(void)!send(fd, "\n", 1, MSG_NOSIGNAL);
		}
		free(txt);
		json_decref(o);
		/* no reset that could discard the answer: shut, drain, close */
		shutdown(fd, SHUT_WR);
		while (recv(fd, line, sizeof(line), 0) > 0)
			;
		close(fd);
	}
}

/* ---- setup ---------------------------------------------------------------- */

static int listen_on(const struct sockaddr_storage *ss, socklen_t len, bool transparent)
{
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if ((transparent && px_tproxy_listen(fd, ss->ss_family)) ||
	    bind(fd, (const struct sockaddr *)ss, len) || listen(fd, 4096)) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

static int control_listen(const char *path)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(un.sun_path))
		return -ENAMETOOLONG;
	strcpy(un.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&un, sizeof(un)) || chmod(path, 0600) || listen(fd, 16)) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

static int ep_add(int ep, int fd, void *tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = tag };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int fp_px_server__run(const struct fp_px_config *cfg, struct fp_px_policy *pol, char *err,
		      size_t errlen)
{
	struct px_server *s = calloc(1, sizeof(*s));
	struct rlimit rl;
	sigset_t mask;
	int ret = 0;
	bool stop = false, kwait = false;

	if (!s)
		return -ENOMEM;
	s->cfg = cfg;
	s->lfd = s->ctl = s->sigfd = s->ep = -1;
	s->pol = policy_wrap(pol, 1);
	if (!s->pol) {
		ret = -ENOMEM;
		goto out;
	}
	/* four descriptors a connection (client, backend, two pipes of two) */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	s->lfd = listen_on(&cfg->listen, cfg->listen_len, cfg->transparent);
	if (s->lfd < 0) {
		ret = s->lfd;
		snprintf(err, errlen, "cannot listen: %s%s", strerror(-ret),
			 cfg->transparent && ret == -EPERM ?
			 " (--transparent needs CAP_NET_ADMIN for IP_TRANSPARENT)" : "");
		goto out;
	}
	s->ctl = control_listen(cfg->control_path);
	if (s->ctl < 0) {
		ret = s->ctl;
		snprintf(err, errlen, "cannot make the control socket %s: %s", cfg->control_path,
			 strerror(-ret));
		goto out;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	s->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->sigfd < 0 || s->ep < 0 || (ret = ep_add(s->ep, s->lfd, &tag_listen)) ||
	    (ret = ep_add(s->ep, s->ctl, &tag_ctl)) || (ret = ep_add(s->ep, s->sigfd, &tag_sig))) {
		ret = ret ? ret : -errno;
		snprintf(err, errlen, "cannot set up the event loop: %s", strerror(-ret));
		goto out;
	}
	if (cfg->data_path == FP_PX_DATA_SOCKMAP && (ret = px_sockmap_setup(s, err, errlen)))
		goto out;
	if (cfg->access_log) {
		s->log = strcmp(cfg->access_log, "-") ? fopen(cfg->access_log, "ae") : stdout;
		if (!s->log) {
			ret = -errno;
			snprintf(err, errlen, "cannot open the access log %s: %s", cfg->access_log,
				 strerror(-ret));
			goto out;
		}
		setvbuf(s->log, NULL, _IOLBF, 0);
	}
	if (cfg->ready_fd >= 0)
		(void)!write(cfg->ready_fd, "ready\n", 6);

	while (!stop) {
		struct epoll_event evs[256];
		int n = wait_events(s, evs, 256, kwait ? 1 : 200);

		for (int i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;

			if (p == &tag_listen) {
				accept_all(s);
			} else if (p == &tag_ctl) {
				control(s);
			} else if (p == &tag_sig) {
				struct signalfd_siginfo si;

				while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
					if (si.ssi_signo == SIGHUP) {
						json_t *o = reload(s);
						char *t = json_dumps(o, JSON_COMPACT);

						fprintf(stderr, "fastpath proxy: SIGHUP: %s\n", t ? t : "");
						free(t);
						json_decref(o);
					} else {
						stop = true;
					}
				}
			} else {
				bool backend;
				struct px_conn *c = px_conn_of(p, &backend);

				if (evs[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
					if (backend)
						c->b_readable = true;
					else
						c->c_readable = true;
				}
				if (evs[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
					if (backend)
						c->b_hup = true;
					else
						c->c_hup = true;
				}
				if (c->dead)
					continue;
				px_conn_pump(s, c);
				if (c->dead) {
					/* later events of this batch may name it: close after */
					c->deadline_ms = 0;
				}
			}
		}
		/* close the dead (after the batch: events may still point at them);
		 * poll those whose bytes the kernel is still moving (sockmap) */
		kwait = false;
		for (struct px_conn *c = s->conns, *next; c; c = next) {
			next = c->next;
			if (c->kwait && !c->dead)
				px_conn_pump(s, c);
			if (c->dead)
				conn_close(s, c);
			else
				kwait |= c->kwait;
		}
		expire(s);
	}
out:
	while (s->conns)
		conn_close(s, s->conns);
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->ctl >= 0) {
		close(s->ctl);
		unlink(cfg->control_path);
	}
	if (s->sigfd >= 0)
		close(s->sigfd);
	if (s->ep >= 0)
		close(s->ep);
	if (s->log && s->log != stdout)
		fclose(s->log);
	else if (s->log)
		fflush(s->log);
	px_sockmap_teardown(s);
	policy_free(s->pol);
	free(s);
	return ret;
}
