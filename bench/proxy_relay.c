// SPDX-License-Identifier: BSD-2-Clause
/*
 * proxy_relay: a bare TCP relay, bench/proxy_rate.sh's floor (issue 20): one
 * thread, one epoll, one backend connection a client, bytes moved both ways
 * as they come with no HTTP work at all (no parsing, no ACL, no joining of
 * heads and bodies). A bench tool, not a product.
 *
 *   proxy_relay [--splice] [--max-conns N] LISTEN_IP:PORT BACKEND_IP:PORT
 *
 * copy (default): recv into a 64 KiB buffer, send it out. --splice: socket
 * -> pipe (256 KiB, as fastpath's splice path) -> socket, never through
 * user space. Sockets are edge-triggered and each remembers what its last
 * event said (readable, writable), so no call is made on a socket that has
 * nothing new; a direction moves until one side would block (EAGAIN, or a
 * short recv: the socket is empty, and its next bytes bring an event). A
 * FIN read is passed on as shutdown(SHUT_WR) once its bytes are out; an
 * error on either side closes both; past N sessions (4096) a new client is
 * closed at once. Runs until killed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUF_SZ (1u << 16)
#define PIPE_SZ (1u << 18)

struct end { /* one socket of a session */
	struct sess *s;
	int fd;
	bool rd, wr, hup, up; /* readable, writable, FIN or hangup seen, connected */
};

struct dir {
	struct end *src, *dst;
	int pipe[2];     /* --splice */
	char *buf;       /* copy */
	size_t off, len; /* copy: buf[off, len) unsent; splice: len in the pipe */
	bool eof, shut;
};

struct sess {
	struct end e[2];   /* [0] the client, [1] the backend */
	struct dir d[2];   /* [0] client -> backend, [1] backend -> client */
	bool dead;         /* closed in this epoll batch: freed after it, */
	struct sess *next; /* on the list of the batch's dead */
};

static bool use_splice;
static struct sess *dead;
static int ep, nsess, max_sess = 4096;

/* IPv4:PORT into a; -1 if it is not one */
static int parse_addr(const char *s, struct sockaddr_in *a)
{
	char ip[64], *end;
	const char *colon = strrchr(s, ':');
	long port;

	if (!colon || (size_t)(colon - s) >= sizeof(ip))
		return -1;
	memcpy(ip, s, colon - s);
	ip[colon - s] = 0;
	port = strtol(colon + 1, &end, 10);
	*a = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	return *end || port < 1 || port > 65535 || inet_pton(AF_INET, ip, &a->sin_addr) != 1 ? -1 : 0;
}

static void sess_close(struct sess *s)
{
	for (int i = 0; i < 2; i++) {
		if (s->d[i].pipe[0] >= 0) {
			close(s->d[i].pipe[0]);
			close(s->d[i].pipe[1]);
		}
		free(s->d[i].buf);
		if (s->e[i].fd >= 0)
			close(s->e[i].fd); /* closing drops it from the epoll set */
	}
	nsess--;
	/* the batch may still hold an event for its other socket: freed after it */
	s->dead = true;
	s->next = dead;
	dead = s;
}

/* Moves d's bytes until one side would block: 0, or -1 on an error. */
static int pump(struct dir *d)
{
	for (;;) {
		ssize_t n;

		if (d->len > d->off) { /* bytes held: out first */
			if (!d->dst->wr)
				return 0;
			if (use_splice)
				n = splice(d->pipe[0], NULL, d->dst->fd, NULL, d->len,
					   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			else
				n = send(d->dst->fd, d->buf + d->off, d->len - d->off, MSG_NOSIGNAL);
			if (n < 0)
				return errno == EAGAIN ? (d->dst->wr = false, 0) : -1;
			if (use_splice)
				d->len -= (size_t)n;
			else if ((d->off += (size_t)n) == d->len)
				d->off = d->len = 0;
			continue;
		}
		if (d->eof) { /* a shutdown while connecting would drop the connection */
			if (d->shut || !d->dst->up)
				return 0;
			d->shut = true;
			return shutdown(d->dst->fd, SHUT_WR);
		}
		if (!d->src->rd)
			return 0;
		if (use_splice)
			n = splice(d->src->fd, NULL, d->pipe[1], NULL, PIPE_SZ,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		else
			n = recv(d->src->fd, d->buf, BUF_SZ, 0);
		if (n < 0)
			return errno == EAGAIN ? (d->src->rd = false, 0) : -1;
		/* a short recv emptied it (a short splice may be the pipe's
		 * slots), but a FIN seen is still to be read */
		if (!use_splice && n > 0 && n < (ssize_t)BUF_SZ && !d->src->hup)
			d->src->rd = false;
		d->eof = !n;
		d->len = (size_t)n;
	}
}

static void sess_open(int cfd, const struct sockaddr_in *backend)
{
	int one = 1;
	struct sess *s;

	if (nsess >= max_sess || !(s = calloc(1, sizeof(*s))))
		return (void)close(cfd);
	nsess++;
	s->e[0] = (struct end){ .s = s, .fd = cfd, .up = true };
	s->e[1] = (struct end){ .s = s };
	s->e[1].fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	for (int i = 0; i < 2; i++) {
		s->d[i].src = &s->e[i];
		s->d[i].dst = &s->e[!i];
		s->d[i].pipe[0] = s->d[i].pipe[1] = -1;
	}
	if (s->e[1].fd < 0)
		goto fail;
	for (int i = 0; i < 2; i++) {
		struct dir *d = &s->d[i];

		setsockopt(s->e[i].fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (use_splice) {
			if (pipe2(d->pipe, O_NONBLOCK | O_CLOEXEC))
				goto fail;
			(void)fcntl(d->pipe[1], F_SETPIPE_SZ, PIPE_SZ); /* past the budget: 64 KiB */
		} else if (!(d->buf = malloc(BUF_SZ))) {
			goto fail;
		}
	}
	if (connect(s->e[1].fd, (const void *)backend, sizeof(*backend)) && errno != EINPROGRESS)
		goto fail;
	for (int i = 0; i < 2; i++) { /* the connection's EPOLLOUT says it is up */
		struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
					  .data.ptr = &s->e[i] };

		if (epoll_ctl(ep, EPOLL_CTL_ADD, s->e[i].fd, &ev))
			goto fail;
	}
	return;
fail:
	sess_close(s);
}

int main(int argc, char **argv)
{
	struct sockaddr_in la, ba;
	struct epoll_event evs[256];
	int lfd, one = 1, a = 1;

	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "--splice"))
			use_splice = true;
		else if (!strcmp(argv[a], "--max-conns") && a + 1 < argc && atoi(argv[a + 1]) > 0)
			max_sess = atoi(argv[++a]);
		else
			break;
	}
	if (argc - a != 2 || parse_addr(argv[a], &la) || parse_addr(argv[a + 1], &ba)) {
		fprintf(stderr, "usage: proxy_relay [--splice] [--max-conns N] LISTEN_IP:PORT BACKEND_IP:PORT\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (lfd < 0 || ep < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&la, sizeof(la)) || listen(lfd, 4096) ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &(struct epoll_event){ .events = EPOLLIN | EPOLLET })) {
		fprintf(stderr, "proxy_relay: listen on %s: %s\n", argv[a], strerror(errno));
		return 1;
	}
	for (;;) {
		int n = epoll_wait(ep, evs, 256, -1);

		if (n < 0 && errno != EINTR) {
			perror("proxy_relay: epoll_wait");
			return 1;
		}
		for (int i = 0; i < n; i++) {
			struct end *e = evs[i].data.ptr;
			uint32_t ev = evs[i].events;

			if (!e) { /* the listener: every pending client */
				int cfd;

				while ((cfd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0)
					sess_open(cfd, &ba);
				continue;
			}
			if (e->s->dead) /* closed earlier in this batch */
				continue;
			e->rd |= !!(ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP));
			e->hup |= !!(ev & (EPOLLRDHUP | EPOLLHUP));
			e->wr |= !!(ev & (EPOLLOUT | EPOLLHUP));
			e->up |= !!(ev & EPOLLOUT);
			if ((ev & EPOLLERR) || pump(&e->s->d[0]) || pump(&e->s->d[1]) ||
			    (e->s->d[0].shut && e->s->d[1].shut))
				sess_close(e->s);
		}
		while (dead) {
			struct sess *s = dead;

			dead = s->next;
			free(s);
		}
	}
}
