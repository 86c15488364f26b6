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
#include <sys/time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "lb/lb_internal.h"

/* The route to addr: its egress interface and type (RTN_*). */
static int route_get(int af, const __u8 addr[16], unsigned *oif, __u8 *type)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		char attrs[64];
	} req;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 1 };
	int alen = af == 4 ? 4 : 16, fd, ret = -ENOENT;
	char buf[8192];
	struct rtattr *rta;
	ssize_t n;

	*oif = 0;
	*type = RTN_UNSPEC;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
	req.nh.nlmsg_type = RTM_GETROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.rt.rtm_family = af == 4 ? AF_INET : AF_INET6;
	req.rt.rtm_dst_len = alen * 8;
	rta = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
	rta->rta_type = RTA_DST;
	rta->rta_len = RTA_LENGTH(alen);
	memcpy(RTA_DATA(rta), addr, alen);
	req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		goto out;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0) {
		ret = -errno;
		goto out;
	}
	for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (unsigned)n);
	     nh = NLMSG_NEXT(nh, n)) {
		if (nh->nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr *e = NLMSG_DATA(nh);

			ret = e->error ? e->error : -ENOENT;
			break;
		}
		if (nh->nlmsg_type != RTM_NEWROUTE)
			continue;
		{
			struct rtmsg *rt = NLMSG_DATA(nh);
			int len = (int)RTM_PAYLOAD(nh);

			*type = rt->rtm_type;

			for (struct rtattr *a = RTM_RTA(rt); RTA_OK(a, len); a = RTA_NEXT(a, len))
				if (a->rta_type == RTA_OIF) {
					memcpy(oif, RTA_DATA(a), sizeof(*oif));
					ret = 0;
				}
		}
		break;
	}
out:
	close(fd);
	return ret;
}

int fp_lb_route_oif(int af, const __u8 addr[16], unsigned *oif)
{
	__u8 type;

	return route_get(af, addr, oif, &type);
}

int fp_lb_route_is_local(int af, const __u8 addr[16])
{
	unsigned oif;
	__u8 type;
	int ret = route_get(af, addr, &oif, &type);

	return ret ? ret : type == RTN_LOCAL;
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
