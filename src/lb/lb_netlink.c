// SPDX-License-Identifier: BSD-2-Clause
/*
 * The few rtnetlink requests the lb's user half makes (lb_internal.h):
 * building one, sending it and reading the answer, and the route the
 * kernel picks to an address (`ip route get`). The health checker's
 * policy routing (lb_hc.c) and a backend add's route checks (lb_route.c)
 * share them.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "lb/lb_internal.h"

void *fp_lb_nl_begin(struct fp_lb_nl_req *r, int type, int flags, size_t hdr)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_len = NLMSG_LENGTH(hdr);
	r->nh.nlmsg_type = type;
	r->nh.nlmsg_flags = NLM_F_REQUEST | flags;
	r->nh.nlmsg_seq = 1;
	return NLMSG_DATA(&r->nh);
}

void fp_lb_nl_attr(struct fp_lb_nl_req *r, int type, const void *data, int len)
{
	struct rtattr *a = (struct rtattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	a->rta_type = type;
	a->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(a), data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

void fp_lb_nl_u32(struct fp_lb_nl_req *r, int type, __u32 v)
{
	fp_lb_nl_attr(r, type, &v, 4);
}

int fp_lb_nl_talk(struct fp_lb_nl_req *r, void *reply, size_t rlen)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 2 };
	char buf[8192];
	int fd, ret = -EIO;
	ssize_t n;

	if (!reply)
		r->nh.nlmsg_flags |= NLM_F_ACK;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (sendto(fd, r, r->nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
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
			ret = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
			break;
		}
		if (reply) {
			memcpy(reply, nh, nh->nlmsg_len < rlen ? nh->nlmsg_len : rlen);
			ret = 0;
			break;
		}
	}
out:
	close(fd);
	return ret;
}

int fp_lb_nl_route_get(int fam, const __u8 dst[16], __u32 mark, struct fp_lb_route *out)
{
	struct fp_lb_nl_req r;
	struct rtmsg *rt = fp_lb_nl_begin(&r, RTM_GETROUTE, 0, sizeof(*rt));
	union { struct nlmsghdr nh; char b[1024]; } a;
	int len, ret;

	memset(out, 0, sizeof(*out));
	rt->rtm_family = fam == 4 ? AF_INET : AF_INET6;
	rt->rtm_dst_len = fam == 4 ? 32 : 128;
	rt->rtm_flags = RTM_F_LOOKUP_TABLE; /* RTA_TABLE: the table that answered */
	fp_lb_nl_attr(&r, RTA_DST, dst, fam == 4 ? 4 : 16);
	if (mark)
		fp_lb_nl_u32(&r, RTA_MARK, mark);
	if ((ret = fp_lb_nl_talk(&r, &a, sizeof(a))))
		return ret;
	if (a.nh.nlmsg_type != RTM_NEWROUTE)
		return -ENOENT;
	rt = NLMSG_DATA(&a.nh);
	out->type = rt->rtm_type;
	len = (int)RTM_PAYLOAD(&a.nh);
	for (struct rtattr *x = RTM_RTA(rt); RTA_OK(x, len); x = RTA_NEXT(x, len)) {
		if (x->rta_type == RTA_OIF)
			memcpy(&out->oif, RTA_DATA(x), 4);
		if (x->rta_type == RTA_TABLE)
			memcpy(&out->table, RTA_DATA(x), 4);
	}
	return 0;
}
