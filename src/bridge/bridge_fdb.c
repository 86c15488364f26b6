// SPDX-License-Identifier: BSD-2-Clause
/*
 * A bridge's FDB from user space: `bridge fdb` lists it (and drops what
 * has aged out, as the stage would on its next lookup), `bridge fdb
 * add|del` edit static entries, `bridge del` forgets a port's entries. A
 * learned entry that goes leaves its port's learning count, as the stage
 * does, so the per-port limit stays true.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>

#include "bridge/bridge_internal.h"

static __u64 monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* An entry was removed or changed its port: the FDB's generation
 * changes, as the stage's does, so that no CPU's remembered destination
 * outlives it (bridge.bpf.c, struct br_last). */
static void fdb_changed(const struct fp_bridge *b)
{
	if (b->learn)
		__atomic_fetch_add(&b->learn[0].gen, 1, __ATOMIC_SEQ_CST);
}

/* One learned entry of port ifindex is gone: off its count, as the stage
 * does (atomically, never below zero). */
static void unlearned(const struct fp_bridge *b, __u32 ifindex)
{
	struct fp_br_port p;
	__u32 *n, cur;

	if (bpf_map_lookup_elem(b->fd[BR_PINFO], &ifindex, &p) || !p.slot ||
	    p.slot > FP_BR_PORTS_MAX)
		return; /* its port left: its count went with it */
	n = &b->learn[p.slot].learned;
	cur = __atomic_load_n(n, __ATOMIC_RELAXED);
	while (cur && !__atomic_compare_exchange_n(n, &cur, cur - 1, false, __ATOMIC_RELAXED,
						   __ATOMIC_RELAXED))
		;
}

/* Removes an entry (what it was into *was); a learned one leaves its
 * port's count. -ENOENT if there is none. */
static int fdb_remove(const struct fp_bridge *b, const struct fp_br_key *k, struct fp_br_fdb *was)
{
	struct fp_br_fdb v;

	if (bpf_map_lookup_and_delete_elem(b->fd[BR_FDB], k, &v))
		return -errno;
	fdb_changed(b);
	if (!(v.flags & FP_BR_FDB_STATIC))
		unlearned(b, v.ifindex);
	if (was)
		*was = v;
	return 0;
}

/* Every key of a map (a snapshot: deletes while walking restart nothing). */
static int map_keys(int fd, void *keys, size_t key_size, int max)
{
	char prev[64], next[64];
	bool first = true;
	int n = 0;

	while (n < max && bpf_map_get_next_key(fd, first ? NULL : prev, next) == 0) {
		memcpy((char *)keys + (size_t)n * key_size, next, key_size);
		memcpy(prev, next, key_size);
		first = false;
		n++;
	}
	return n;
}

int fp_bridge__fdb(const struct fp_bridge *b, struct fp_bridge_fdb_entry *out, int max,
		   int *aged_out)
{
	struct fp_br_key *keys = calloc(FP_BR_FDB_MAX, sizeof(*keys));
	struct fp_br_cfg cfg;
	__u64 now = monotonic_ns();
	int n, live = 0, aged = 0;

	if (!keys)
		return -ENOMEM;
	if (fp_bridge__config(b, &cfg)) {
		free(keys);
		return -errno;
	}
	n = map_keys(b->fd[BR_FDB], keys, sizeof(*keys), FP_BR_FDB_MAX);
	for (int i = 0; i < n; i++) {
		struct fp_br_fdb v;
		__u64 age;

		if (bpf_map_lookup_elem(b->fd[BR_FDB], &keys[i], &v))
			continue; /* gone meanwhile */
		age = now > v.seen_ns ? now - v.seen_ns : 0;
		if (!(v.flags & FP_BR_FDB_STATIC) && v.seen_ns < now && age > cfg.ageing_ns) {
			if (fdb_remove(b, &keys[i], NULL) == 0)
				aged++;
			continue;
		}
		if (live < max) {
			out[live].key = keys[i];
			out[live].val = v;
			out[live].age_ns = age;
		}
		live++;
	}
	free(keys);
	if (aged_out)
		*aged_out = aged;
	return live;
}

int fp_bridge__fdb_add(const struct fp_bridge *b, const __u8 mac[6], __u16 vlan,
		       const char *ifname, char *err, size_t errlen)
{
	struct fp_br_key k = { .vlan = vlan };
	struct fp_br_fdb v = { .flags = FP_BR_FDB_STATIC, .seen_ns = monotonic_ns() };
	struct fp_br_port p;

	v.ifindex = if_nametoindex(ifname);
	if (!v.ifindex) {
		snprintf(err, errlen, "no interface '%s' (see `ip link`)", ifname);
		return -ENODEV;
	}
	if (bpf_map_lookup_elem(b->fd[BR_PINFO], &v.ifindex, &p)) {
		snprintf(err, errlen, "%s is not a port of bridge %s (`fastpath bridge add %s %s`)",
			 ifname, b->name, b->name, ifname);
		return -ENOENT;
	}
	{
		struct fp_br_cfg cfg;

		if (!fp_bridge__config(b, &cfg) && !(cfg.flags & FP_BR_VLAN_AWARE) && vlan) {
			snprintf(err, errlen, "bridge %s is not VLAN-aware: give no vlan", b->name);
			return -EINVAL;
		}
		if (!fp_bridge__config(b, &cfg) && (cfg.flags & FP_BR_VLAN_AWARE) && !vlan) {
			snprintf(err, errlen, "bridge %s is VLAN-aware: give the entry's vlan N",
				 b->name);
			return -EINVAL;
		}
		if (vlan && !fp_br_vlan_allowed(&p, vlan)) {
			snprintf(err, errlen, "VLAN %u is not allowed on %s", vlan, ifname);
			return -EINVAL;
		}
	}
	if (mac[0] & 1) {
		snprintf(err, errlen, "%02x:%02x:%02x:%02x:%02x:%02x is a multicast address: "
			 "a station's address is unicast", mac[0], mac[1], mac[2], mac[3], mac[4],
			 mac[5]);
		return -EINVAL;
	}
	memcpy(k.mac, mac, 6);
	{
		struct fp_br_fdb cur;

		/* a learned entry it replaces leaves its port's count */
		if (!bpf_map_lookup_elem(b->fd[BR_FDB], &k, &cur) &&
		    !(cur.flags & FP_BR_FDB_STATIC))
			fdb_remove(b, &k, NULL);
	}
	if (bpf_map_update_elem(b->fd[BR_FDB], &k, &v, 0)) {
		int ret = -errno;

		snprintf(err, errlen, "adding the entry failed: %s%s", strerror(-ret),
			 ret == -E2BIG ? " (the FDB is full: 65536 entries)" : "");
		return ret;
	}
	fdb_changed(b); /* (a static entry put over another: its port may change) */
	return 0;
}

int fp_bridge__fdb_del(const struct fp_bridge *b, const __u8 mac[6], __u16 vlan, char *err,
		       size_t errlen)
{
	struct fp_br_key k = { .vlan = vlan };

	int ret;

	memcpy(k.mac, mac, 6);
	ret = fdb_remove(b, &k, NULL);
	if (ret == -ENOENT)
		snprintf(err, errlen, "bridge %s has no entry for %02x:%02x:%02x:%02x:%02x:%02x"
			 " in vlan %u (`fastpath bridge fdb %s`)", b->name, mac[0], mac[1],
			 mac[2], mac[3], mac[4], mac[5], vlan, b->name);
	else if (ret)
		snprintf(err, errlen, "removing the entry failed: %s", strerror(-ret));
	return ret;
}

void fp_bridge__forget_port(const struct fp_bridge *b, __u32 ifindex)
{
	struct fp_br_key *keys = calloc(FP_BR_FDB_MAX, sizeof(*keys));
	int n;

	bpf_map_delete_elem(b->fd[BR_PORTS], &ifindex);
	bpf_map_delete_elem(b->fd[BR_PINFO], &ifindex);
	if (!keys)
		return;
	n = map_keys(b->fd[BR_HOST], keys, sizeof(*keys), FP_BR_HOST_MAX);
	for (int i = 0; i < n; i++) {
		__u32 owner;

		if (!bpf_map_lookup_elem(b->fd[BR_HOST], &keys[i], &owner) && owner == ifindex)
			bpf_map_delete_elem(b->fd[BR_HOST], &keys[i]);
	}
	n = map_keys(b->fd[BR_FDB], keys, sizeof(*keys), FP_BR_FDB_MAX);
	for (int i = 0; i < n; i++) {
		struct fp_br_fdb v;

		if (!bpf_map_lookup_elem(b->fd[BR_FDB], &keys[i], &v) && v.ifindex == ifindex)
			bpf_map_delete_elem(b->fd[BR_FDB], &keys[i]);
	}
	fdb_changed(b);
	free(keys);
}

int fp_bridge__address(const struct fp_bridge *b, __u8 mac[6])
{
	struct fp_br_key *keys = calloc(FP_BR_HOST_MAX, sizeof(*keys));
	int n = keys ? map_keys(b->fd[BR_HOST], keys, sizeof(*keys), FP_BR_HOST_MAX) : -ENOMEM;
	int found = 0;

	for (int i = 0; i < n && !found; i++) {
		__u32 owner;

		/* the ports' own addresses are theirs; the bridge's has no port */
		if (!bpf_map_lookup_elem(b->fd[BR_HOST], &keys[i], &owner) && owner == 0) {
			memcpy(mac, keys[i].mac, 6);
			found = 1;
		}
	}
	free(keys);
	return n < 0 ? n : found;
}
