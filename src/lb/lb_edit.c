// SPDX-License-Identifier: BSD-2-Clause
/*
 * VIPs and backends: each edit under the lb's lock, checked whole before
 * the first write; a backend-set change builds the VIP's new table aside
 * and switches it in with one write, and an error leaves the old state.
 *
 * Order of writes (what a packet in flight may see): packets find VIPs
 * in lb_vip_index, rebuilt from lb_vips after each change of lb_vips and
 * switched in with one write (lb_vip_index.c); an index that cannot be
 * built puts lb_vips back as it was.
 *   vip add      empty table into lb_tables[i], then the lb_vips entry and
 *                the index
 *   vip del      the lb_vips entry and the index, then its backends, then
 *                the table
 *   backend add/drain/down/up   the entry (gen bumped on add; DOWN set, so
 *                the BPF half drops its connections), then the new table
 *   backend del  the new table (without it), then the entry is freed
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

#include "lb/lb_internal.h"
#include "lb/lb_table.h"
#include "lb/lb_vip_index.h"
#include "lb/maglev.h"

static void no_vip_msg(const struct fp_lb *lb, const struct fp_lb_vip_key *k, char *err,
		       size_t errlen)
{
	char v[80];

	fp_lb_vip_str(k, v, sizeof(v));
	snprintf(err, errlen, "no VIP %s on %s (`fastpath lb list %s` shows them)", v,
		 lb->ifname, lb->ifname);
}

/* Under the edit lock: VIP k's value and every lb_backends entry (*all
 * malloc'ed; the caller frees it). -ENOENT when there is no such VIP. */
static int vip_and_backends(struct fp_lb *lb, const struct fp_lb_vip_key *k,
			    struct fp_lb_vip *vip, struct fp_lb_backend **all, char *err,
			    size_t errlen)
{
	int ret;

	if (bpf_map_lookup_elem(lb->fd[LB_VIPS], k, vip)) {
		no_vip_msg(lb, k, err, errlen);
		return -ENOENT;
	}
	ret = fp_lb_read_backends(lb, all);
	if (ret)
		snprintf(err, errlen, "reading lb_backends failed: %s", strerror(-ret));
	return ret;
}

/* The new table of vip from all[] into a new inner map: its fd. */
static int new_table(const struct fp_lb_backend *all, const struct fp_lb_vip *vip,
		     __u32 *active, char *err, size_t errlen)
{
	__u32 *t = malloc((size_t)vip->table_size * sizeof(*t));
	int ret;

	if (!t)
		return -ENOMEM;
	ret = fp_lb_build_table(all, vip->index, vip->table_size, t, active, err, errlen);
	if (!ret)
		ret = fp_lb_table_map(t, vip->table_size, err, errlen);
	free(t);
	return ret;
}

int fp_lb__vip_add(struct fp_lb *lb, const struct fp_lb_vip_key *k, __u32 flags,
		   __u32 table_size, struct fp_lb_vip *out, char *err, size_t errlen)
{
	bool used[FP_LB_MAX_VIPS] = { false };
	struct fp_lb_vip_key cur, next, *prev = NULL;
	struct fp_lb_vip vip = { .flags = flags }, v;
	char vs[80];
	__u32 n = 0, active;
	int ret, fd = -1;

	fp_lb_vip_str(k, vs, sizeof(vs));
	if (!table_size)
		table_size = FP_MAGLEV_DEFAULT_SIZE;
	if (!fp_maglev_is_prime(table_size) || table_size < 5 || table_size > FP_MAGLEV_MAX_SIZE) {
		snprintf(err, errlen, "--table-size %u: give a prime 5..%u (default %u)",
			 table_size, FP_MAGLEV_MAX_SIZE, FP_MAGLEV_DEFAULT_SIZE);
		return -EINVAL;
	}
	if ((flags & FP_LB_VIP_PORT_ANY) && k->port) {
		snprintf(err, errlen, "VIP %s: --port-any takes every port; write the VIP without "
			 "a port", vs);
		return -EINVAL;
	}
	if (!(flags & FP_LB_VIP_PORT_ANY) && !k->port) {
		snprintf(err, errlen, "VIP %s: no port; give %s, or --port-any for every port", vs,
			 fp_lb_vip_form(k->family));
		return -EINVAL;
	}
	vip.table_size = table_size;
	ret = fp_lb__lock(lb, err, errlen);
	if (ret)
		return ret;
	if (!bpf_map_lookup_elem(lb->fd[LB_VIPS], k, &v)) {
		snprintf(err, errlen, "VIP %s exists on %s already (index %u); `fastpath lb vip "
			 "del %s %s` first", vs, lb->ifname, v.index, lb->ifname, vs);
		ret = -EEXIST;
		goto out;
	}
	while (!bpf_map_get_next_key(lb->fd[LB_VIPS], prev, &next)) {
		if (!bpf_map_lookup_elem(lb->fd[LB_VIPS], &next, &v) && v.index < FP_LB_MAX_VIPS)
			used[v.index] = true;
		n++;
		cur = next;
		prev = &cur;
	}
	if (n >= FP_LB_MAX_VIPS) {
		snprintf(err, errlen, "%s has %u VIPs, the most an lb holds (FP_LB_MAX_VIPS); "
			 "delete one first", lb->ifname, n);
		ret = -ENOSPC;
		goto out;
	}
	while (vip.index < FP_LB_MAX_VIPS && used[vip.index])
		vip.index++;
	{
		/* an empty table: no backend yet */
		struct fp_lb_backend *all = calloc(FP_LB_MAX_BACKENDS, sizeof(*all));

		if (!all) {
			ret = -ENOMEM;
			goto out;
		}
		fd = new_table(all, &vip, &active, err, errlen);
		free(all);
	}
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	fp_lb_zero_stats(lb->fd[LB_VIP_STATS], vip.index);
	ret = fp_lb_switch_table(lb, vip.index, fd, err, errlen);
	if (ret)
		goto out;
	if (bpf_map_update_elem(lb->fd[LB_VIPS], k, &vip, BPF_NOEXIST)) {
		ret = -errno;
		snprintf(err, errlen, "adding VIP %s failed: %s; nothing changed", vs,
			 strerror(-ret));
		bpf_map_delete_elem(lb->fd[LB_TABLES], &vip.index);
		goto out;
	}
	ret = fp_lb_vip_index_publish(lb->fd[LB_VIPS], lb->fd[LB_VIP_INDEX], err, errlen);
	if (ret) {
		bpf_map_delete_elem(lb->fd[LB_VIPS], k);
		bpf_map_delete_elem(lb->fd[LB_TABLES], &vip.index);
		goto out;
	}
	fp_lb_bump_serial(lb);
	if (out)
		*out = vip;
out:
	if (fd >= 0)
		close(fd);
	fp_lb__unlock(lb);
	return ret;
}

int fp_lb__vip_del(struct fp_lb *lb, const struct fp_lb_vip_key *k, char *err, size_t errlen)
{
	struct fp_lb_backend *all = NULL;
	struct fp_lb_vip vip;
	int ret = fp_lb__lock(lb, err, errlen);

	if (ret)
		return ret;
	ret = vip_and_backends(lb, k, &vip, &all, err, errlen);
	if (ret)
		goto out;
	if (bpf_map_delete_elem(lb->fd[LB_VIPS], k)) {
		ret = -errno;
		snprintf(err, errlen, "deleting the VIP failed: %s", strerror(-ret));
		goto out;
	}
	ret = fp_lb_vip_index_publish(lb->fd[LB_VIPS], lb->fd[LB_VIP_INDEX], err, errlen);
	if (ret) {
		bpf_map_update_elem(lb->fd[LB_VIPS], k, &vip, BPF_NOEXIST); /* as it was */
		goto out;
	}
	/* its backends are free again (gen kept: the next use bumps it) */
	for (__u32 i = 0; i < FP_LB_MAX_BACKENDS; i++)
		if ((all[i].flags & FP_LB_BE_USED) && all[i].vip_index == vip.index) {
			all[i].flags = 0;
			bpf_map_update_elem(lb->fd[LB_BACKENDS], &i, &all[i], 0);
		}
	bpf_map_delete_elem(lb->fd[LB_TABLES], &vip.index);
	fp_lb_bump_serial(lb);
out:
	free(all);
	fp_lb__unlock(lb);
	return ret;
}

static bool same_addr(const struct fp_lb_backend *b, __u8 af, const __u8 addr[16])
{
	return b->family == af && !memcmp(b->addr, addr, af == 4 ? 4 : 16);
}

/* Checks an add against the limits; the entry's index into *slot. */
static int add_checks(const struct fp_lb *lb, const struct fp_lb_backend *all,
		      const struct fp_lb_vip *vip, const char *vs, const char *bs, __u8 af,
		      __u32 weight, __u32 *slot, char *err, size_t errlen)
{
	__u32 mine = 0, total = 0;

	*slot = FP_LB_MAX_BACKENDS;
	if (weight < 1 || weight > FP_MAGLEV_MAX_WEIGHT) {
		snprintf(err, errlen, "--weight %u: give 1..%u (drain takes a backend's new flows "
			 "away)", weight, FP_MAGLEV_MAX_WEIGHT);
		return -EINVAL;
	}
	for (__u32 i = 0; i < FP_LB_MAX_BACKENDS; i++) {
		if (!(all[i].flags & FP_LB_BE_USED)) {
			if (*slot == FP_LB_MAX_BACKENDS)
				*slot = i;
			continue;
		}
		total++;
		mine += all[i].vip_index == vip->index;
	}
	if (mine >= FP_LB_MAX_VIP_BACKENDS) {
		snprintf(err, errlen, "VIP %s has %u backends, the most a VIP holds "
			 "(FP_LB_MAX_VIP_BACKENDS)", vs, mine);
		return -ENOSPC;
	}
	if ((mine + 1) * FP_MAGLEV_MIN_SLOTS_PER_BACKEND > vip->table_size) {
		snprintf(err, errlen, "VIP %s: its table of %u slots holds at most %u backends "
			 "(%u slots each); give the VIP a larger --table-size (vip del, vip add)",
			 vs, vip->table_size, vip->table_size / FP_MAGLEV_MIN_SLOTS_PER_BACKEND,
			 FP_MAGLEV_MIN_SLOTS_PER_BACKEND);
		return -ENOSPC;
	}
	if (total >= FP_LB_MAX_BACKENDS || *slot == FP_LB_MAX_BACKENDS) {
		snprintf(err, errlen, "%s has %u (VIP, backend) pairs, the most an lb holds "
			 "(FP_LB_MAX_BACKENDS); delete some first", lb->ifname, total);
		return -ENOSPC;
	}
	(void)bs;
	(void)af;
	return 0;
}

/* After an add: the egress port for XDP_REDIRECT and the neighbour entry. */
static void add_egress(struct fp_lb *lb, const struct fp_lb_backend *b,
		       struct fp_lb_be_result *res)
{
	struct fp_meta pm;
	unsigned oif = 0;
	int ret = fp_lb_route_oif(b->family, b->addr, &oif);

	if (ret) {
		snprintf(res->note, sizeof(res->note), "no route to the backend (%s): its packets "
			 "are dropped (fib_fail) until there is one", strerror(-ret));
		return;
	}
	res->egress_ifindex = oif;
	if (!fp_pipeline__meta(lb->pl, &pm) && pm.ifindex != oif) {
		if (bpf_map_update_elem(lb->fd[LB_TX_PORTS], &oif, &oif, 0))
			snprintf(res->note, sizeof(res->note), "egress ifindex %u cannot be a "
				 "redirect target (%s)", oif, strerror(errno));
		else
			res->egress_added = true;
	}
	res->warmed = fp_lb_warm_neigh(b->family, b->addr) == 0;
}

int fp_lb__backend(struct fp_lb *lb, const struct fp_lb_vip_key *k, __u8 af,
		   const __u8 addr[16], enum fp_lb_be_op op, __u32 weight,
		   struct fp_lb_be_result *res, char *err, size_t errlen)
{
	static const __u8 state[] = { [FP_LB_OP_ADD] = FP_LB_BE_USED,
				      [FP_LB_OP_DRAIN] = FP_LB_BE_USED | FP_LB_BE_DRAIN,
				      [FP_LB_OP_DOWN] = FP_LB_BE_USED | FP_LB_BE_DOWN,
				      [FP_LB_OP_UP] = FP_LB_BE_USED, [FP_LB_OP_DEL] = 0 };
	struct fp_lb_backend *all = NULL, old, *b;
	struct fp_lb_be_result r;
	struct fp_lb_vip vip;
	char vs[80], bs[64];
	__u32 i = FP_LB_MAX_BACKENDS;
	int ret, fd = -1;

	memset(&r, 0, sizeof(r));
	fp_lb_vip_str(k, vs, sizeof(vs));
	fp_lb_addr_str(addr, af, bs, sizeof(bs));
	if (k->family == 6 && af == 4) {
		snprintf(err, errlen, "backend %s of the IPv6 VIP %s: an IPv6 VIP needs IPv6 "
			 "backends (IPv6 is not carried in IPv4)", bs, vs);
		return -EINVAL;
	}
	if (op == FP_LB_OP_ADD && fp_lb_route_is_local(af, addr) == 1) {
		/* encapsulated to itself: the packets would come back to the lb
		 * host (or, routed by lo, be redirected into lo) */
		snprintf(err, errlen, "backend %s of VIP %s is an address of this host (`ip route "
			 "get %s` says local): the lb would send the VIP's packets back to "
			 "itself; give the backend's own address", bs, vs, bs);
		return -EADDRNOTAVAIL;
	}
	ret = fp_lb__lock(lb, err, errlen);
	if (ret)
		return ret;
	ret = vip_and_backends(lb, k, &vip, &all, err, errlen);
	if (ret)
		goto out;
	for (__u32 j = 0; j < FP_LB_MAX_BACKENDS; j++)
		if ((all[j].flags & FP_LB_BE_USED) && all[j].vip_index == vip.index &&
		    same_addr(&all[j], af, addr)) {
			i = j;
			break;
		}
	if (op == FP_LB_OP_ADD) {
		if (i < FP_LB_MAX_BACKENDS) {
			snprintf(err, errlen, "backend %s of VIP %s exists already (index %u); "
				 "`backend del` it first to change its weight", bs, vs, i);
			ret = -EEXIST;
			goto out;
		}
		ret = add_checks(lb, all, &vip, vs, bs, af, weight ? weight : 1, &i, err,
				 errlen);
		if (ret)
			goto out;
	} else if (i == FP_LB_MAX_BACKENDS) {
		snprintf(err, errlen, "VIP %s has no backend %s (`fastpath lb list %s` shows "
			 "them)", vs, bs, lb->ifname);
		ret = -ENOENT;
		goto out;
	}
	old = all[i];
	b = &all[i];
	if (op == FP_LB_OP_ADD) {
		memset(b, 0, sizeof(*b));
		memcpy(b->addr, addr, af == 4 ? 4 : 16);
		b->family = af;
		b->weight = (__u16)(weight ? weight : 1);
		b->vip_index = vip.index;
		b->gen = old.gen + 1; /* connections of the slot's last user are stale */
	}
	b->flags = state[op];
	r.index = i;
	r.gen = b->gen;
	if (op != FP_LB_OP_ADD && b->flags == old.flags) { /* nothing to change */
		__u32 id = 0;

		for (__u32 j = 0; j < FP_LB_MAX_BACKENDS; j++)
			r.active += all[j].flags == FP_LB_BE_USED && all[j].vip_index == vip.index;

		if (!bpf_map_lookup_elem(lb->fd[LB_TABLES], &vip.index, &id))
			r.table_id = id;
		goto done;
	}
	fd = new_table(all, &vip, &r.active, err, errlen);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	if (op == FP_LB_OP_ADD)
		fp_lb_zero_stats(lb->fd[LB_BE_STATS], i);
	if (op != FP_LB_OP_DEL && bpf_map_update_elem(lb->fd[LB_BACKENDS], &i, b, 0)) {
		ret = -errno;
		snprintf(err, errlen, "writing backend entry %u failed: %s; nothing changed", i,
			 strerror(-ret));
		goto out;
	}
	ret = fp_lb_switch_table(lb, vip.index, fd, err, errlen);
	if (ret) {
		bpf_map_update_elem(lb->fd[LB_BACKENDS], &i, &old, 0); /* as it was */
		goto out;
	}
	if (op == FP_LB_OP_DEL)
		bpf_map_update_elem(lb->fd[LB_BACKENDS], &i, b, 0);
	r.changed = true;
	r.table_id = fp_lb_map_id(fd);
	/* the serial (the dump's) follows the table; a failure to publish it
	 * leaves the packets the old serial, and the change is still made */
	vip.serial++;
	if (!bpf_map_update_elem(lb->fd[LB_VIPS], k, &vip, BPF_EXIST) &&
	    fp_lb_vip_index_publish(lb->fd[LB_VIPS], lb->fd[LB_VIP_INDEX], r.note, sizeof(r.note))) {
		vip.serial--;
		bpf_map_update_elem(lb->fd[LB_VIPS], k, &vip, BPF_EXIST);
	}
	fp_lb_bump_serial(lb);
	if (op == FP_LB_OP_ADD)
		add_egress(lb, b, &r);
done:
	if (res)
		*res = r;
out:
	if (fd >= 0)
		close(fd);
	free(all);
	fp_lb__unlock(lb);
	return ret;
}
