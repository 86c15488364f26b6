// SPDX-License-Identifier: BSD-2-Clause
/*
 * Transparent mode (conn.h): the listener takes connections that an nft
 * `tproxy` rule diverts to it without rewriting them, so an accepted
 * socket's local address is where the client was going. With no
 * --backend, that address is the backend of the connection (conn.c's
 * connect takes it as the one backend: one try, the counters of
 * "original-destination"). The
 * proxy connects from its own address: the destination sees the proxy,
 * not the client (see fastpath-proxy(8), TRANSPARENT MODE).
 */
#include "proxy/conn.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

int px_tproxy_listen(int fd, int family)
{
	int one = 1;

	if (family == AF_INET6)
		return setsockopt(fd, SOL_IPV6, IPV6_TRANSPARENT, &one, sizeof(one)) ? -errno : 0;
	return setsockopt(fd, SOL_IP, IP_TRANSPARENT, &one, sizeof(one)) ? -errno : 0;
}

static uint16_t port_of(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)ss)->sin6_port
					 : ((const struct sockaddr_in *)ss)->sin_port;
}

static bool any_addr(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)ss)->sin6_addr);
	return ((const struct sockaddr_in *)ss)->sin_addr.s_addr == htonl(INADDR_ANY);
}

static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, 16);
	return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
	       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
}

/* Whether addr is one of this host's (a plain bind to it succeeds). */
static bool local_addr(const struct sockaddr_storage *addr, socklen_t len)
{
	struct sockaddr_storage a = *addr;
	int fd = socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool local;

	if (fd < 0)
		return false;
	if (a.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&a)->sin6_port = 0;
	else
		((struct sockaddr_in *)&a)->sin_port = 0;
	local = !bind(fd, (struct sockaddr *)&a, len);
	close(fd);
	return local;
}

int px_tproxy_accepted(const struct px_server *s, struct px_conn *c)
{
	const struct sockaddr_storage *l = &s->cfg->listen;

	c->orig_len = sizeof(c->orig);
	if (getsockname(c->cfd, (struct sockaddr *)&c->orig, &c->orig_len))
		return -1;
	/* the listener itself: a client that connected to the proxy directly */
	if (port_of(&c->orig) == port_of(l) &&
	    (same_addr(&c->orig, l) || (any_addr(l) && local_addr(&c->orig, c->orig_len))))
		return -1;
	return 0;
}
