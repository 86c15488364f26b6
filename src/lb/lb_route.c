// SPDX-License-Identifier: BSD-2-Clause
/*
 * What a backend add asks the kernel: the egress interface of the route to
 * the backend (RTM_GETROUTE, as `ip route get` does; the BPF half then
 * redirects there when it is not the ingress interface), whether that
 * route is local (the backend would be this host), and a datagram
 * to the backend so the next hop's neighbour entry is resolved before the
 * first client packet (the BPF half's bpf_fib_lookup finds no MAC until
 * then and hands packets to the stack).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "lb/lb_internal.h"

/* The egress interface of the route to addr (-ENOENT when it names none). */
int fp_lb_route_oif(int af, const __u8 addr[16], unsigned *oif)
{
	struct fp_lb_route rt;
	int ret = fp_lb_nl_route_get(af, addr, 0, &rt);

	*oif = ret ? 0 : rt.oif;
	return ret ? ret : rt.oif ? 0 : -ENOENT;
}

int fp_lb_route_is_local(int af, const __u8 addr[16])
{
	struct fp_lb_route rt;
	int ret = fp_lb_nl_route_get(af, addr, 0, &rt);

	return ret ? ret : rt.type == RTN_LOCAL;
}

int fp_lb_warm_neigh(int af, const __u8 addr[16])
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(9) };
	struct sockaddr *sa = af == 4 ? (struct sockaddr *)&s4 : (struct sockaddr *)&s6;
	socklen_t sl = af == 4 ? sizeof(s4) : sizeof(s6);
	int fd, ret = 0;

	memcpy(&s4.sin_addr, addr, 4);
	memcpy(&s6.sin6_addr, addr, 16);
	fd = socket(af == 4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* discard port, empty payload: the send resolves the next hop */
	if (connect(fd, sa, sl) || send(fd, "", 0, MSG_DONTWAIT) < 0)
		ret = -errno;
	close(fd);
	return ret == -EAGAIN ? 0 : ret;
}

/* /proc/sys value as a number, -1 when it cannot be read. */
static int sysctl_int(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

int fp_lb_forwarding(const char *ifname, int *v4, int *v6)
{
	char path[128];

	/* what bpf_fib_lookup checks: IPv4 the ingress device's forwarding,
	 * IPv6 the namespace's (conf/all) */
	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/forwarding", ifname);
	*v4 = sysctl_int(path);
	*v6 = sysctl_int("/proc/sys/net/ipv6/conf/all/forwarding");
	return *v4 < 0 && *v6 < 0 ? -ENOENT : 0;
}
