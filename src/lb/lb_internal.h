/* SPDX-License-Identifier: BSD-2-Clause */
/* The lb's user half inside: the handle over the pinned maps. */
#ifndef FP_LB_INTERNAL_H
#define FP_LB_INTERNAL_H

#include <linux/netlink.h>

#include "lb/lb.h"
#include "pipeline/pipeline.h"

extern const struct fp_stage_ops fp_stage_lb;

/* The maps by pin name, in this order (fp_lb.fd[]). */
enum lb_map {
	LB_META, LB_VIPS, LB_TABLES, LB_BACKENDS, LB_CONNS, LB_VIP_STATS, LB_BE_STATS,
	LB_COUNTERS, LB_TX_PORTS, LB_VIP_INDEX, LB_MAPS,
};
extern const char *const fp_lb_map_names[LB_MAPS];

struct fp_lb {
	struct fp_pipeline *pl;
	char ifname[16];
	char dir[4096];        /* ROOT/IFACE/lb */
	int fd[LB_MAPS];
	int lock_fd;           /* the flock of dir while an edit runs (-1: none) */
};

/* lb_stage.c: lb_counters summed over CPUs. */
int fp_lb_sum_counters(int fd, __u64 c[FP_LB_C_MAX]);

/* lb.c: the edit lock (an flock of ROOT/IFACE/lb). */
int fp_lb__lock(struct fp_lb *lb, char *err, size_t errlen);
void fp_lb__unlock(struct fp_lb *lb);

/* lb_netlink.c: an rtnetlink request (header, then attributes), sent by
 * fp_lb_nl_talk: 0 or the kernel's -errno; with reply, the first answer
 * is copied there (RTM_GET*), else the kernel's ACK is awaited. */
struct fp_lb_nl_req {
	struct nlmsghdr nh;
	char body[256];
};
void *fp_lb_nl_begin(struct fp_lb_nl_req *r, int type, int flags, size_t hdr);
void fp_lb_nl_attr(struct fp_lb_nl_req *r, int type, const void *data, int len);
void fp_lb_nl_u32(struct fp_lb_nl_req *r, int type, __u32 v);
int fp_lb_nl_talk(struct fp_lb_nl_req *r, void *reply, size_t rlen);
/* The route the kernel picks to dst (family 4 or 6) for a packet with
 * mark (0: none), as `ip route get`: -errno when there is none. */
struct fp_lb_route {
	unsigned oif;          /* egress interface (0: the route names none) */
	int type;              /* RTN_* (RTN_LOCAL: dst is this host's) */
	__u32 table;           /* the table that answered */
};
int fp_lb_nl_route_get(int fam, const __u8 dst[16], __u32 mark, struct fp_lb_route *out);

/* lb_route.c: the egress interface of the route to addr (0 and a note when
 * there is none), and a datagram to addr so its next hop is resolved. */
int fp_lb_route_oif(int af, const __u8 addr[16], unsigned *oif);
/* 1 when addr is this host's (its route is local: 127.0.0.0/8, ::1, an
 * address of an interface), 0 when not, a negative errno when the kernel
 * has no route to it. */
int fp_lb_route_is_local(int af, const __u8 addr[16]);
int fp_lb_warm_neigh(int af, const __u8 addr[16]);

#endif
