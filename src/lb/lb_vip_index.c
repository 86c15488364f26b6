// SPDX-License-Identifier: BSD-2-Clause
/*
 * The VIPs as packets find them (lb_vip_index, include/fastpath/lb_abi.h):
 * every lb_vips entry placed in a new inner array by fp_lb_vip_home, with
 * linear probing bounded by FP_LB_VIP_PROBES, and switched in with one
 * update of the outer map. The program hashes a key with a few multiplies
 * and reads at most FP_LB_VIP_PROBES slots of an array (inlined lookups),
 * where a HASH map's lookup runs the kernel's jhash (~7 ns a lookup, two
 * for a packet to no VIP). A fresh inner map each time: the old one stays
 * whole until the last packet reading it is done (the kernel frees it
 * after an RCU grace period).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

#include "lb/lb_vip_index.h"

#define SEED_TRIES 64

static __u64 addr_hash(const struct fp_lb_vip_key *k)
{
	__u64 a[2];

	memcpy(a, k->addr, sizeof(a));
	return fp_lb_vip_hash_addr(a[0], a[1]);
}

/* Places the n keys in e (FP_LB_VIP_ENTRIES, zeroed here) with seed:
 * 0, or -1 when one lies beyond FP_LB_VIP_PROBES of its home. */
static int place(struct fp_lb_vip_slot *e, const struct fp_lb_vip_key *keys,
		 const struct fp_lb_vip *vals, __u32 n, __u32 seed)
{
	memset(e, 0, FP_LB_VIP_ENTRIES * sizeof(*e));
	e[0].seed = seed;
	for (__u32 i = 0; i < n; i++) {
		const struct fp_lb_vip_key *k = &keys[i];
		__u32 at = 1 + fp_lb_vip_home(addr_hash(k), k->port, k->proto, k->family, seed);
		__u32 p = 0;

		while (p < FP_LB_VIP_PROBES && e[at + p].key.family)
			p++;
		if (p == FP_LB_VIP_PROBES)
			return -1;
		e[at + p].key = *k;
		e[at + p].vip = vals[i];
	}
	return 0;
}

int fp_lb_vip_index_build(const struct fp_lb_vip_key *keys, const struct fp_lb_vip *vals,
			  __u32 n, struct fp_lb_vip_slot *e, char *err, size_t errlen)
{
	/* seeds from a fixed sequence: the same VIPs give the same array */
	__u32 seed = 0;

	if (n > FP_LB_MAX_VIPS) {
		snprintf(err, errlen, "%u VIPs: the index holds at most %u (FP_LB_MAX_VIPS)", n,
			 FP_LB_MAX_VIPS);
		return -ENOSPC;
	}
	for (int t = 0; t < SEED_TRIES; t++, seed = seed * 0x9e3779b1u + 0x7f4a7c15u)
		if (!place(e, keys, vals, n, seed))
			return 0;
	snprintf(err, errlen, "the VIP index: %u VIPs do not fit within %u probes of their "
		 "slots under %d seeds (many VIPs whose addresses collide?)", n,
		 FP_LB_VIP_PROBES, SEED_TRIES);
	return -ENOSPC;
}

/* A new inner array holding e: its fd. */
static int index_map(const struct fp_lb_vip_slot *e, char *err, size_t errlen)
{
	__u32 keys[FP_LB_VIP_ENTRIES], count = FP_LB_VIP_ENTRIES;
	int fd, ret = 0;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "lb_vip_array", sizeof(__u32), sizeof(*e),
			    FP_LB_VIP_ENTRIES, NULL);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "creating the VIP index failed: %s", strerror(-ret));
		return ret;
	}
	for (__u32 i = 0; i < FP_LB_VIP_ENTRIES; i++)
		keys[i] = i;
	if (bpf_map_update_batch(fd, keys, e, &count, NULL))
		for (__u32 i = 0; i < FP_LB_VIP_ENTRIES && !ret; i++) /* no batch */
			if (bpf_map_update_elem(fd, &i, &e[i], 0))
				ret = -errno;
	if (ret) {
		snprintf(err, errlen, "filling the VIP index failed: %s", strerror(-ret));
		close(fd);
		return ret;
	}
	return fd;
}

int fp_lb_vip_index_publish(int vips_fd, int index_fd, char *err, size_t errlen)
{
	struct fp_lb_vip_key *keys = calloc(FP_LB_MAX_VIPS + 1, sizeof(*keys)), cur, *prev = NULL;
	struct fp_lb_vip *vals = calloc(FP_LB_MAX_VIPS + 1, sizeof(*vals));
	struct fp_lb_vip_slot *e = calloc(FP_LB_VIP_ENTRIES, sizeof(*e));
	__u32 n = 0, zero = 0;
	int ret = 0, fd = -1;

	if (!keys || !vals || !e) {
		ret = -ENOMEM;
		snprintf(err, errlen, "the VIP index: out of memory");
		goto out;
	}
	while (n <= FP_LB_MAX_VIPS && !bpf_map_get_next_key(vips_fd, prev, &keys[n])) {
		cur = keys[n];
		prev = &cur;
		if (!bpf_map_lookup_elem(vips_fd, &keys[n], &vals[n]))
			n++; /* (deleted meanwhile: skipped) */
	}
	ret = fp_lb_vip_index_build(keys, vals, n, e, err, errlen);
	if (ret)
		goto out;
	fd = index_map(e, err, errlen);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	if (bpf_map_update_elem(index_fd, &zero, &fd, BPF_ANY)) {
		ret = -errno;
		snprintf(err, errlen, "switching in the VIP index failed: %s", strerror(-ret));
	}
out:
	if (fd >= 0)
		close(fd);
	free(keys);
	free(vals);
	free(e);
	return ret;
}
