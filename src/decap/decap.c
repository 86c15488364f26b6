// SPDX-License-Identifier: BSD-2-Clause
/*
 * The decap stage's user half: load (the interface's addresses and the
 * given ones into decap_addrs), unload, and the view `decap stats` reads.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

#include "decap/decap.h"
#include "decap/decap_internal.h"

static const char *const cause_names[FP_DECAP_C_MAX] = {
	[FP_DECAP_C_4IN4] = "4in4",           [FP_DECAP_C_6IN6] = "6in6",
	[FP_DECAP_C_4IN6] = "4in6",           [FP_DECAP_C_6IN4] = "6in4",
	[FP_DECAP_C_NOT_OURS] = "not_ours",   [FP_DECAP_C_FRAGMENT] = "fragment",
	[FP_DECAP_C_MALFORMED] = "malformed", [FP_DECAP_C_EXTHDR] = "ext_headers",
	[FP_DECAP_C_OTHER] = "other",         [FP_DECAP_C_ECN] = "ecn_not_ect",
};

const char *fp_decap_counter__name(unsigned cause)
{
	return cause < FP_DECAP_C_MAX ? cause_names[cause] : NULL;
}

unsigned fp_decap_counter__action(unsigned cause)
{
	return cause == FP_DECAP_C_FRAGMENT || cause == FP_DECAP_C_MALFORMED ||
	       cause == FP_DECAP_C_ECN ? XDP_DROP : XDP_PASS;
}

bool fp_decap_counter__decap(unsigned cause)
{
	return cause <= FP_DECAP_C_6IN4;
}

int fp_decap_addr__parse(const char *text, struct fp_decap_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (text && inet_pton(AF_INET, text, a->addr) == 1) {
		a->family = 4;
		return 0;
	}
	if (text && inet_pton(AF_INET6, text, a->addr) == 1) {
		a->family = 6;
		return 0;
	}
	memset(a, 0, sizeof(*a));
	return -EINVAL;
}

const char *fp_decap_addr__str(const struct fp_decap_addr *a, char *buf, size_t len)
{
	if (!inet_ntop(a->family == 4 ? AF_INET : AF_INET6, a->addr, buf, len))
		snprintf(buf, len, "?");
	return buf;
}

/* Adds a to the list unless it is there; -E2BIG past the limit. */
static int add_addr(struct fp_decap_addr *list, __u32 *src, unsigned *n,
		    const struct fp_decap_addr *a, __u32 from)
{
	for (unsigned i = 0; i < *n; i++)
		if (!memcmp(&list[i], a, sizeof(*a))) {
			src[i] |= from;
			return 0;
		}
	if (*n >= FP_DECAP_MAX_ADDRS)
		return -E2BIG;
	list[*n] = *a;
	src[(*n)++] = from;
	return 0;
}

/* The interface's IPv4 and IPv6 addresses now, then the given ones. */
static int collect_addrs(const char *ifname, const struct fp_decap_load_opts *o,
			 struct fp_decap_addr *list, __u32 *src, unsigned *n,
			 struct fp_decap_loaded *done, char *err, size_t errlen)
{
	struct ifaddrs *ifa, *i;
	int ret = 0;

	*n = 0;
	if (getifaddrs(&ifa)) {
		ret = -errno;
		snprintf(err, errlen, "reading the addresses of %s failed: %s", ifname,
			 strerror(-ret));
		return ret;
	}
	for (i = ifa; i && !ret; i = i->ifa_next) {
		struct fp_decap_addr a = { 0 };

		if (!i->ifa_addr || strcmp(i->ifa_name, ifname))
			continue;
		if (i->ifa_addr->sa_family == AF_INET) {
			a.family = 4;
			memcpy(a.addr, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, 4);
		} else if (i->ifa_addr->sa_family == AF_INET6) {
			a.family = 6;
			memcpy(a.addr, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, 16);
		} else {
			continue;
		}
		ret = add_addr(list, src, n, &a, FP_DECAP_ADDR_IFACE);
		done->n_iface += !ret;
	}
	freeifaddrs(ifa);
	for (unsigned k = 0; o && k < o->n_addrs && !ret; k++) {
		ret = add_addr(list, src, n, &o->addrs[k], FP_DECAP_ADDR_GIVEN);
		done->n_given += !ret;
	}
	if (ret == -E2BIG)
		snprintf(err, errlen, "more than %d addresses for the decap stage on %s (its "
			 "own and --addr): give fewer", FP_DECAP_MAX_ADDRS, ifname);
	return ret;
}

int fp_decap__load(const char *ifname, const struct fp_decap_load_opts *o,
		   struct fp_decap_loaded *done, char *err, size_t errlen)
{
	struct fp_pipeline_opts po = { .bpffs = o ? o->bpffs : NULL,
				       .skb_mode = o && o->skb_mode };
	const char *root = fp_bpffs_root(po.bpffs);
	struct fp_decap_loaded local;
	struct fp_pipeline *pl = NULL;
	struct fp_decap_addr *list;
	char dir[PATH_MAX];
	unsigned n = 0, ifindex;
	bool created = false;
	__u32 *src;
	int ret;

	if (!done)
		done = &local;
	memset(done, 0, sizeof(*done));
	ifindex = if_nametoindex(ifname);
	if (!ifindex) {
		snprintf(err, errlen, "no interface '%s' (see `ip link`)", ifname);
		return -ENODEV;
	}
	/* the cheap refusal first, before the verifier's work */
	snprintf(dir, sizeof(dir), "%s/%s/%s", root, ifname, fp_stage_decap.name);
	if (access(dir, F_OK) == 0) {
		snprintf(err, errlen, "fastpath's decap is already loaded on %s (pins in %s); "
			 "`fastpath decap unload %s` first", ifname, dir, ifname);
		return -EEXIST;
	}
	list = calloc(FP_DECAP_MAX_ADDRS, sizeof(*list));
	src = calloc(FP_DECAP_MAX_ADDRS, sizeof(*src));
	ret = list && src ? 0 : -ENOMEM;
	if (!ret)
		ret = collect_addrs(ifname, o, list, src, &n, done, err, errlen);
	if (!ret && n == 0) {
		snprintf(err, errlen, "%s has no IPv4 or IPv6 address and none was given: the "
			 "decap stage would take no packet; add one (`ip addr add ADDR dev %s`) or "
			 "give --addr ADDR", ifname, ifname);
		ret = -EDESTADDRREQ;
	}
	if (!ret)
		ret = fp_pipeline__open_or_load(ifname, &po, &pl, &created, err, errlen);
	if (!ret)
		ret = decap_load_object(pl, ifindex, list, src, n, err, errlen);
	done->pipeline_created = created;
	fp_pipeline__close(pl);
	/* the pipeline this load made goes with it, unless another load's
	 * stage is on it by now */
	if (ret && created)
		fp_pipeline__unload_if_empty(ifname, po.bpffs);
	free(list);
	free(src);
	return ret;
}

int fp_decap__unload(const char *ifname, const char *bpffs, struct fp_unload_report *r,
		     char *err, size_t errlen)
{
	bool gone = false;
	int ret = fp_pipeline__remove_stage(ifname, bpffs, &fp_stage_decap, &gone, r, err, errlen);

	if (ret == -ENOENT) /* not "load it first", as the pipeline's message says */
		snprintf(err, errlen, "decap is not loaded on %s: nothing to unload (`fastpath "
			 "status` shows what is loaded where)", ifname);
	if (ret == 0 && gone && r && r->other_id) {
		snprintf(err, errlen, "%s has an XDP program that is not fastpath's (id %u), "
			 "left attached; fastpath's pins are removed", ifname, r->other_id);
		ret = 1;
	}
	return ret;
}

/* Opens a pin of the stage; -ENOENT if absent. */
static int stage_pin(const struct fp_pipeline *pl, const char *name, int *fd)
{
	return fp_pipeline__stage_pin(pl, &fp_stage_decap, name, fd);
}

int fp_decap__view(const char *ifname, const char *bpffs, struct fp_decap_view *v,
		   char *err, size_t errlen)
{
	int meta_fd = -1, addrs_fd = -1, cnt_fd = -1, ret;
	struct fp_decap_addr key, next;
	struct fp_pipeline *pl;
	__u32 zero = 0, abi = 0;

	memset(v, 0, sizeof(*v));
	ret = fp_pipeline__open(ifname, bpffs, &pl, err, errlen);
	if (ret) {
		if (ret == -ENOENT)
			snprintf(err, errlen, "fastpath is not loaded on %s; `fastpath decap load "
				 "%s` loads the decap stage", ifname, ifname);
		return ret;
	}
	if (!fp_pipeline__has_stage(pl, &fp_stage_decap)) {
		snprintf(err, errlen, "the decap stage is not loaded on %s; `fastpath decap load "
			 "%s` loads it", ifname, ifname);
		ret = -ENOENT;
		goto out;
	}
	ret = stage_pin(pl, "decap_meta", &meta_fd);
	if (!ret)
		ret = fp_read_abi(meta_fd, &abi);
	if (!ret && abi != FP_DECAP_ABI) {
		snprintf(err, errlen, "the decap stage on %s was loaded by another fastpath "
			 "version (decap ABI %u, this one reads %u); reload it: `fastpath decap "
			 "unload %s`, then `fastpath decap load %s`", ifname, abi, FP_DECAP_ABI,
			 ifname, ifname);
		ret = -EPROTO;
		goto out;
	}
	if (!ret && bpf_map_lookup_elem(meta_fd, &zero, &v->meta))
		ret = -errno;
	if (!ret)
		ret = stage_pin(pl, "decap_addrs", &addrs_fd);
	if (!ret)
		ret = stage_pin(pl, "decap_cnt", &cnt_fd);
	if (!ret)
		ret = fp_decap__read_counters(cnt_fd, v->cnt);
	if (ret) {
		snprintf(err, errlen, "reading the decap stage's pins on %s failed (%s): "
			 "`fastpath decap unload %s` and load again", ifname, strerror(-ret),
			 ifname);
		goto out;
	}
	v->enabled = fp_pipeline__enabled(pl, &fp_stage_decap);
	for (int r = bpf_map_get_next_key(addrs_fd, NULL, &next);
	     !r && v->n_addrs < FP_DECAP_MAX_ADDRS; r = bpf_map_get_next_key(addrs_fd, &key, &next)) {
		key = next;
		if (bpf_map_lookup_elem(addrs_fd, &key, &v->addr_src[v->n_addrs]))
			continue; /* deleted meanwhile */
		v->addrs[v->n_addrs++] = key;
	}
out:
	if (meta_fd >= 0)
		close(meta_fd);
	if (addrs_fd >= 0)
		close(addrs_fd);
	if (cnt_fd >= 0)
		close(cnt_fd);
	fp_pipeline__close(pl);
	return ret;
}
