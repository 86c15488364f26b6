// SPDX-License-Identifier: BSD-2-Clause
/*
 * The encapsulated probes' host side (lb_hc.h): the tc egress program on
 * the lb's interface and its pins, and the policy routing that sends
 * marked probes out of that interface. Marked packets only: a checker
 * killed before it cleans up leaves a rule, a route in its own table, a
 * permanent neighbour entry for the dummy gateway and a tc filter that
 * touch nothing else; the next checker replaces them, `lb unload` removes
 * them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/fib_rules.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lb/lb_hc_user.h"
#include "lb/lb_internal.h"
#include "lb_hc.skel.h"

static const char *const hc_pins[] = { "lb_hc_reals", "lb_hc_counters" };

static int af_of(int fam)
{
	return fam == 4 ? AF_INET : AF_INET6;
}

/* The fwmark rule to FP_LB_HC_TABLE (add or delete). */
static int hc_rule(int fam, int type)
{
	struct fp_lb_nl_req r;
	struct fib_rule_hdr *h = fp_lb_nl_begin(&r, type, type == RTM_NEWRULE ?
					  NLM_F_CREATE | NLM_F_EXCL : 0, sizeof(*h));

	h->family = af_of(fam);
	h->action = FR_ACT_TO_TBL;
	fp_lb_nl_u32(&r, FRA_FWMARK, FP_LB_HC_MARK);
	fp_lb_nl_u32(&r, FRA_FWMASK, FP_LB_HC_MARK_MASK);
	fp_lb_nl_u32(&r, FRA_TABLE, FP_LB_HC_TABLE);
	fp_lb_nl_u32(&r, FRA_PRIORITY, FP_LB_HC_TABLE);
	return fp_lb_nl_talk(&r, NULL, 0);
}

static void gw_of(int fam, __u8 gw[16])
{
	inet_pton(af_of(fam), fam == 4 ? FP_LB_HC_GW4 : FP_LB_HC_GW6, gw);
}

/* The default route of FP_LB_HC_TABLE through the dummy gateway on ifindex. */
static int hc_route(int fam, int type, unsigned ifindex)
{
	struct fp_lb_nl_req r;
	struct rtmsg *rt = fp_lb_nl_begin(&r, type, type == RTM_NEWROUTE ?
				    NLM_F_CREATE | NLM_F_REPLACE : 0, sizeof(*rt));
	__u8 gw[16];

	gw_of(fam, gw);
	rt->rtm_family = af_of(fam);
	rt->rtm_table = RT_TABLE_UNSPEC;
	rt->rtm_protocol = RTPROT_STATIC;
	rt->rtm_scope = RT_SCOPE_UNIVERSE;
	rt->rtm_type = RTN_UNICAST;
	rt->rtm_flags = RTNH_F_ONLINK;
	fp_lb_nl_u32(&r, RTA_TABLE, FP_LB_HC_TABLE);
	fp_lb_nl_attr(&r, RTA_GATEWAY, gw, fam == 4 ? 4 : 16);
	if (ifindex)
		fp_lb_nl_u32(&r, RTA_OIF, ifindex);
	return fp_lb_nl_talk(&r, NULL, 0);
}

/* The dummy gateway's permanent neighbour entry (its MAC is the
 * interface's own: a frame that left unencapsulated goes nowhere). */
static int hc_neigh(int fam, int type, unsigned ifindex, const __u8 mac[6])
{
	struct fp_lb_nl_req r;
	struct ndmsg *nd = fp_lb_nl_begin(&r, type, type == RTM_NEWNEIGH ?
				    NLM_F_CREATE | NLM_F_REPLACE : 0, sizeof(*nd));
	__u8 gw[16];

	gw_of(fam, gw);
	nd->ndm_family = af_of(fam);
	nd->ndm_ifindex = (int)ifindex;
	nd->ndm_state = NUD_PERMANENT;
	fp_lb_nl_attr(&r, NDA_DST, gw, fam == 4 ? 4 : 16);
	if (mac)
		fp_lb_nl_attr(&r, NDA_LLADDR, mac, 6);
	return fp_lb_nl_talk(&r, NULL, 0);
}

/* How a marked probe to dst (of family fam) is routed now: its egress
 * interface (0: none), whether FP_LB_HC_TABLE routed it, and its route
 * type (RTN_LOCAL: dst is this host's). -errno when there is no route. */
static int hc_marked_route(int fam, const __u8 dst[16], unsigned *oif, bool *ours, int *type)
{
	struct fp_lb_route rt;
	int ret = fp_lb_nl_route_get(fam, dst, FP_LB_HC_MARK, &rt);

	*oif = ret ? 0 : rt.oif;
	*ours = !ret && rt.table == FP_LB_HC_TABLE;
	*type = ret ? 0 : rt.type;
	return ret;
}

/* The interface marked probes of family fam leave by now (0: none). */
static unsigned hc_marked_oif(int fam, bool *ours)
{
	__u8 dst[16] = { 0 };
	unsigned oif;
	int type;

	/* a documentation address, so the main table's routes rarely answer */
	inet_pton(af_of(fam), fam == 4 ? "192.0.2.1" : "2001:db8::1", dst);
	return hc_marked_route(fam, dst, &oif, ours, &type) ? 0 : oif;
}

static int if_mac(const char *ifname, __u8 mac[6])
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr))
		ret = -errno;
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
	return ret;
}

/* ---- up and down --------------------------------------------------------- */

static void unpin(const char *dir)
{
	char path[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(hc_pins) / sizeof(hc_pins[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, hc_pins[i]);
		unlink(path);
	}
}

int fp_lb_hc_down(const char *ifname, const char *dir)
{
	unsigned ifindex = if_nametoindex(ifname);
	int ret = 0;

	if (ifindex) {
		struct bpf_tc_hook hook = { .sz = sizeof(hook), .ifindex = (int)ifindex,
					    .attach_point = BPF_TC_EGRESS };
		struct bpf_tc_opts o = { .sz = sizeof(o), .handle = FP_LB_HC_TC_HANDLE,
					 .priority = FP_LB_HC_TC_PRIO };
		int r = bpf_tc_detach(&hook, &o);

		if (r && r != -ENOENT && r != -EINVAL)
			ret = r;
	}
	for (int fam = 4; fam <= 6; fam += 2) {
		bool ours;
		unsigned oif = hc_marked_oif(fam, &ours);

		/* another interface's checker owns the table: leave it */
		if (ours && oif && oif != ifindex)
			continue;
		if (ifindex) {
			hc_route(fam, RTM_DELROUTE, ifindex);
			hc_neigh(fam, RTM_DELNEIGH, ifindex, NULL);
		}
		for (int i = 0; i < 16 && hc_rule(fam, RTM_DELRULE) == 0; i++)
			; /* every copy, should a crashed one have left more */
	}
	if (dir)
		unpin(dir);
	return ret;
}

int fp_lb_hc_up(struct fp_lb *lb, struct fp_lb_hc **out, char *err, size_t errlen)
{
	unsigned ifindex = if_nametoindex(lb->ifname);
	struct bpf_tc_hook hook = { .sz = sizeof(hook), .ifindex = (int)ifindex,
				    .attach_point = BPF_TC_EGRESS };
	struct bpf_tc_opts o = { .sz = sizeof(o), .handle = FP_LB_HC_TC_HANDLE,
				 .priority = FP_LB_HC_TC_PRIO, .flags = BPF_TC_F_REPLACE };
	struct lb_hc_bpf *skel = NULL;
	struct fp_lb_hc *hc;
	char path[PATH_MAX + 32];
	__u8 mac[6];
	int ret;

	*out = NULL;
	if (!ifindex) {
		snprintf(err, errlen, "no interface '%s'", lb->ifname);
		return -ENODEV;
	}
	for (int fam = 4; fam <= 6; fam += 2) {
		bool ours;
		unsigned oif = hc_marked_oif(fam, &ours);
		char other[IF_NAMESIZE] = "?";

		if (ours && oif && oif != ifindex) {
			if_indextoname(oif, other);
			snprintf(err, errlen, "the encapsulated probes (marks 0x%x/0x%x, table %u) "
				 "are set up for %s already: one lb interface per host has them "
				 "(stop its checker, or use --direct)", FP_LB_HC_MARK,
				 FP_LB_HC_MARK_MASK, FP_LB_HC_TABLE, other);
			return -EBUSY;
		}
	}
	hc = calloc(1, sizeof(*hc));
	if (!hc)
		return -ENOMEM;
	snprintf(hc->ifname, sizeof(hc->ifname), "%s", lb->ifname);
	snprintf(hc->dir, sizeof(hc->dir), "%s", lb->dir);
	hc->reals_fd = hc->counters_fd = -1;
	skel = lb_hc_bpf__open_and_load();
	if (!skel) {
		ret = -errno;
		snprintf(err, errlen, "loading the probes' tc program failed: %s (FASTPATH_DEBUG=1 "
			 "shows the verifier log)", strerror(-ret));
		goto fail;
	}
	hc->reals_fd = dup(bpf_map__fd(skel->maps.lb_hc_reals));
	hc->counters_fd = dup(bpf_map__fd(skel->maps.lb_hc_counters));
	unpin(lb->dir);
	snprintf(path, sizeof(path), "%s/lb_hc_reals", lb->dir);
	ret = bpf_obj_pin(hc->reals_fd, path) ? -errno : 0;
	snprintf(path, sizeof(path), "%s/lb_hc_counters", lb->dir);
	if (!ret)
		ret = bpf_obj_pin(hc->counters_fd, path) ? -errno : 0;
	if (ret) {
		snprintf(err, errlen, "pinning %s failed: %s", path, strerror(-ret));
		goto fail;
	}
	/* routing first: the program only ever sees packets the rule sends */
	if ((ret = if_mac(lb->ifname, mac))) {
		snprintf(err, errlen, "reading %s's MAC address failed: %s", lb->ifname,
			 strerror(-ret));
		goto fail;
	}
	for (int fam = 4; fam <= 6; fam += 2) {
		const char *what = "the dummy gateway's neighbour entry";

		ret = hc_neigh(fam, RTM_NEWNEIGH, ifindex, mac);
		if (!ret) {
			what = "the route of table " FP_LB_HC_TABLE_STR;
			ret = hc_route(fam, RTM_NEWROUTE, ifindex);
		}
		if (!ret) {
			what = "the fwmark rule";
			ret = hc_rule(fam, RTM_NEWRULE);
			ret = ret == -EEXIST ? 0 : ret;
		}
		if (ret && fam == 6) {
			/* IPv6 off on the interface: v4 probes still work */
			snprintf(hc->no6, sizeof(hc->no6), "no IPv6 probes on %s (%s: %s)",
				 lb->ifname, what, strerror(-ret));
			ret = 0;
		} else if (ret) {
			snprintf(err, errlen, "setting up the probes' routing on %s (IPv%d): %s: %s",
				 lb->ifname, fam, what, strerror(-ret));
			goto fail;
		}
	}
	ret = bpf_tc_hook_create(&hook);
	if (ret && ret != -EEXIST) {
		snprintf(err, errlen, "making the clsact qdisc on %s failed: %s", lb->ifname,
			 strerror(-ret));
		goto fail;
	}
	o.prog_fd = bpf_program__fd(skel->progs.fp_lb_hc);
	ret = bpf_tc_attach(&hook, &o);
	if (ret) {
		snprintf(err, errlen, "attaching the probes' tc program to %s's egress failed: %s",
			 lb->ifname, strerror(-ret));
		goto fail;
	}
	lb_hc_bpf__destroy(skel); /* the filter holds the program, the fds the maps */
	*out = hc;
	return 0;
fail:
	lb_hc_bpf__destroy(skel);
	fp_lb_hc_down(lb->ifname, lb->dir);
	fp_lb_hc_close(hc);
	return ret;
}

void fp_lb_hc_close(struct fp_lb_hc *hc)
{
	if (!hc)
		return;
	if (hc->reals_fd >= 0)
		close(hc->reals_fd);
	if (hc->counters_fd >= 0)
		close(hc->counters_fd);
	free(hc);
}

/* This host's address toward addr (the route's preferred source). */
static int src_toward(int af, const __u8 addr[16], __u8 src[16])
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(9) };
	struct sockaddr_storage me;
	socklen_t ml = sizeof(me);
	int fd, ret = 0;

	memcpy(&s4.sin_addr, addr, 4);
	memcpy(&s6.sin6_addr, addr, 16);
	fd = socket(af == 4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, af == 4 ? (struct sockaddr *)&s4 : (struct sockaddr *)&s6,
		    af == 4 ? sizeof(s4) : sizeof(s6)) ||
	    getsockname(fd, (struct sockaddr *)&me, &ml))
		ret = -errno;
	close(fd);
	if (ret)
		return ret;
	memset(src, 0, 16);
	if (af == 4)
		memcpy(src, &((struct sockaddr_in *)&me)->sin_addr, 4);
	else
		memcpy(src, &((struct sockaddr_in6 *)&me)->sin6_addr, 16);
	return 0;
}

int fp_lb_hc_set(struct fp_lb_hc *hc, __u32 index, int vip_af, const __u8 vip[16], int af,
		 const __u8 addr[16], char *why, size_t whylen)
{
	struct fp_lb_hc_real r = { .family = (__u8)af };
	unsigned oif;
	bool ours;
	int ret, type;

	if (vip_af == 6 && hc->no6[0]) {
		snprintf(why, whylen, "no IPv6 probes on %s (see the warning at start)", hc->ifname);
		return -EAFNOSUPPORT;
	}
	/* a VIP of this host's: the probe would be answered here, never leave */
	ret = hc_marked_route(vip_af, vip, &oif, &ours, &type);
	if (!ret && type == RTN_LOCAL) {
		snprintf(why, whylen, "the VIP is an address of this host: a probe to it never "
			 "leaves (remove it from the lb host)");
		return -EADDRINUSE;
	}
	if (!ret && (!ours || oif != if_nametoindex(hc->ifname))) {
		snprintf(why, whylen, "marked probes to the VIP miss table %u (rule gone or "
			 "overridden)", FP_LB_HC_TABLE);
		return -EHOSTUNREACH;
	}

	memcpy(r.dst, addr, af == 4 ? 4 : 16);
	ret = fp_lb_route_oif(af, addr, &r.ifindex);
	if (!ret && !r.ifindex)
		ret = -ENETUNREACH;
	if (!ret)
		ret = src_toward(af, addr, r.src);
	if (ret) {
		snprintf(why, whylen, "no route to the backend: %s", strerror(-ret));
		return ret;
	}
	if (bpf_map_update_elem(hc->reals_fd, &index, &r, 0)) {
		ret = -errno;
		snprintf(why, whylen, "writing lb_hc_reals failed: %s", strerror(-ret));
	}
	return ret;
}
