/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The health checker's encapsulated probes, host side (lb_hc.c; the
 * mechanism: lb_hc.h). fp_lb_hc_up attaches the tc program to the lb's
 * interface and sets up the routing of marked probes; fp_lb_hc_set
 * points a probe mark at a backend; fp_lb_hc_down undoes everything
 * (the checker at exit, `lb unload`, and after a checker killed -9).
 */
#ifndef FP_LB_HC_USER_H
#define FP_LB_HC_USER_H

#include <linux/types.h>
#include "lb/lb.h"
#include "lb/lb_hc.h"

#define FP_LB_HC_TABLE_STR "18000"

struct fp_lb_hc {
	char ifname[16];
	char dir[4096];
	int reals_fd, counters_fd;
	char no6[160];         /* why IPv6 probes are not set up ("": they are) */
};

int fp_lb_hc_up(struct fp_lb *lb, struct fp_lb_hc **out, char *err, size_t errlen);
/* Frees the handle; what it set up stays (fp_lb_hc_down removes it). */
void fp_lb_hc_close(struct fp_lb_hc *hc);
/* Probes marked FP_LB_HC_MARK + index, to the VIP vip, go encapsulated
 * to addr. Fails (why: a message) when the backend has no route, the VIP
 * is this host's own, or marked probes to it are not routed as set up. */
int fp_lb_hc_set(struct fp_lb_hc *hc, __u32 index, int vip_af, const __u8 vip[16], int af,
		 const __u8 addr[16], char *why, size_t whylen);
/* Detaches, unroutes and unpins (dir: ROOT/IFACE/lb, or NULL); what is
 * not there is skipped. 0, or the tc detach's error. */
int fp_lb_hc_down(const char *ifname, const char *dir);

#endif
