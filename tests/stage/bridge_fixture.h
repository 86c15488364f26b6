/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fixture of the bridge stage's BPF_PROG_TEST_RUN tests
 * (tests/bpf/bridge.c, bridge_limits.c): the stage in slot 4 behind the
 * pipeline's entry, three member ports (veths in a network namespace of the
 * test's own, gone with the process), the bridge's maps as its user half
 * sets them, and a frame run as received on one of the ports, its decision
 * read from the verdict the stage leaves in the parse. Each test file is a
 * program of its own; what it does not use of this is static inline.
 */
#ifndef FP_TESTS_BRIDGE_FIXTURE_H
#define FP_TESTS_BRIDGE_FIXTURE_H

#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <fastpath/abi.h>
#include <fastpath/bridge_abi.h>
#include "common/pkt.h"
#include "stage/mark_util.h"
#include "entry.skel.h"
#include "bridge.skel.h"

#define N_PORTS 3
#define COARSE_SLACK_NS 20000000ull /* CLOCK_MONOTONIC_COARSE lags a tick (<= 4 ms) */
static struct entry_bpf *entry;
static struct bridge_bpf *br;
static int cpu = -1;
static __u32 port[N_PORTS]; /* ifindexes of brt0..brt2 */

static const __u8 mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const __u8 mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };
static const __u8 mac_c[6] = { 0x02, 0, 0, 0, 0, 0x0c };
static const __u8 mac_d[6] = { 0x02, 0, 0, 0, 0, 0x0d };
static const __u8 mac_host[6] = { 0x02, 0, 0, 0, 0, 0x99 };
static const __u8 mac_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const __u8 mac_mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };

static inline __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline int setup(void **state)
{
	char cmd[256];

	/* the ports live in a namespace of this process's own */
	if (unshare(CLONE_NEWNET)) {
		perror("unshare(CLONE_NEWNET)");
		return -1;
	}
	for (int i = 0; i < N_PORTS; i++) {
		char name[16];

		snprintf(cmd, sizeof(cmd), "ip link add brt%d type veth peer name brp%d && "
			 "ip link set brt%d up && ip link set brp%d up", i, i, i, i);
		if (system(cmd)) {
			fprintf(stderr, "cannot make the test ports: %s\n", cmd);
			return -1;
		}
		snprintf(name, sizeof(name), "brt%d", i);
		port[i] = if_nametoindex(name);
		if (!port[i])
			return -1;
	}
	cpu = chain_pin_cpu();
	if (cpu < 0)
		return -1;
	entry = entry_bpf__open_and_load();
	if (!entry)
		return -1;
	br = bridge_bpf__open();
	if (!br || chain_share_maps(br->obj, entry->obj) || bridge_bpf__load(br))
		return -1;
	chain_fill(bpf_map__fd(entry->maps.fp_stages), FP_STAGE_BRIDGE,
		   bpf_program__fd(br->progs.fp_bridge));
	chain_set_ctl(bpf_map__fd(entry->maps.fp_ctl), 1u << FP_STAGE_BRIDGE, 0);
	return 0;
}

static inline int teardown(void **state)
{
	bridge_bpf__destroy(br);
	entry_bpf__destroy(entry);
	return 0;
}

/* ---- the bridge's state, as its user half sets it ------------------------ */

static inline struct fp_br_key key(const __u8 *mac)
{
	struct fp_br_key k = { .vlan = 0 };

	memcpy(k.mac, mac, 6);
	return k;
}

static inline void clear_map(int fd, size_t key_size)
{
	char k[64], next[64];
	void *prev = NULL;

	/* delete all: always restart from the first key */
	(void)prev;
	while (bpf_map_get_next_key(fd, NULL, next) == 0) {
		memcpy(k, next, key_size);
		assert_int_equal(bpf_map_delete_elem(fd, k), 0);
	}
}

/* Port i's info: its count at slot i + 1, the limits given. */
static inline void set_port(int i, __u32 learn_limit, __u32 flood_limit)
{
	struct fp_br_port p = { .ifindex = port[i], .slot = (__u16)(i + 1),
				.learn_limit = learn_limit, .flood_limit = flood_limit };

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_pinfo), &port[i], &p, 0),
			 0);
}

/* Port i's count of learned entries. */
static inline __u32 learned(int i)
{
	struct fp_br_learn l;
	__u32 slot = (__u32)i + 1;

	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(br->maps.fp_br_learn), &slot, &l), 0);
	return l.learned;
}

static inline void set_learned(int i, __u32 n)
{
	struct fp_br_learn l = { .learned = n };
	__u32 slot = (__u32)i + 1;

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_learn), &slot, &l, 0), 0);
}

/* The stage's remembered last source (per CPU) forgotten, as half a
 * second does. */
static inline void forget_last(void)
{
	int ncpu = libbpf_num_possible_cpus();
	void *z = calloc(ncpu, bpf_map__value_size(br->maps.fp_br_last));
	__u32 zero = 0;

	assert_non_null(z);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_last), &zero, z, 0), 0);
	free(z);
}

/* Three members, an empty FDB, zero counters, 300 s ageing, one host address. */
static inline int reset(void **state)
{
	struct fp_br_cfg cfg = { .abi_version = FP_BRIDGE_ABI,
				 .ageing_ns = FP_BR_AGEING_DEFAULT_S * 1000000000ull,
				 .host_bits = fp_br_host_bit(mac_host) };
	int ncpu = libbpf_num_possible_cpus();
	struct fp_br_stats *zero_st = calloc(ncpu, sizeof(*zero_st));
	struct fp_br_key hk = key(mac_host);
	__u32 zero = 0, owner = port[2];

	assert_non_null(zero_st);
	clear_map(bpf_map__fd(br->maps.fp_br_fdb), sizeof(struct fp_br_key));
	clear_map(bpf_map__fd(br->maps.fp_br_ports), sizeof(__u32));
	clear_map(bpf_map__fd(br->maps.fp_br_pinfo), sizeof(__u32));
	forget_last(); /* no source remembered from the case before */
	for (__u32 s = 0; s <= FP_BR_PORTS_MAX; s++) {
		struct fp_br_learn l = { 0 };

		assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_learn), &s, &l, 0),
				 0);
	}
	for (int i = 0; i < N_PORTS; i++)
		set_port(i, 0, 0);
	{
		struct fp_br_storm s = { 0 };

		assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_storm), &zero, &s,
						     0), 0);
	}
	for (int i = 0; i < N_PORTS; i++) {
		struct bpf_devmap_val v = { .ifindex = port[i] };

		assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_ports), &port[i],
						     &v, 0), 0);
	}
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_host), &hk, &owner, 0), 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_cfg), &zero, &cfg, 0), 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_stats), &zero, zero_st, 0),
			 0);
	free(zero_st);
	return 0;
}

/* The FDB's generation moves on, as the CLI's every change of the FDB
 * moves it (the stage's remembered destination is then looked up again). */
static inline void fdb_changed(void)
{
	struct fp_br_learn l;
	__u32 zero = 0;

	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(br->maps.fp_br_learn), &zero, &l), 0);
	l.gen++;
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_learn), &zero, &l, 0), 0);
}

/* An entry put in the FDB as the CLI does: the generation moves on. */
static inline void fdb_put(const __u8 *mac, __u32 ifindex, __u32 flags, __u64 seen_ns)
{
	struct fp_br_key k = key(mac);
	struct fp_br_fdb v = { .ifindex = ifindex, .flags = flags, .seen_ns = seen_ns };

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_fdb), &k, &v, 0), 0);
	fdb_changed();
}

/* The entry of mac; false if there is none. */
static inline bool fdb_get(const __u8 *mac, struct fp_br_fdb *v)
{
	struct fp_br_key k = key(mac);

	return bpf_map_lookup_elem(bpf_map__fd(br->maps.fp_br_fdb), &k, v) == 0;
}

static inline struct fp_br_stats stats(void)
{
	int ncpu = libbpf_num_possible_cpus();
	struct fp_br_stats *all = calloc(ncpu, sizeof(*all)), sum = { { 0 } };
	__u32 zero = 0;

	assert_non_null(all);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(br->maps.fp_br_stats), &zero, all), 0);
	for (int c = 0; c < ncpu; c++)
		for (int i = 0; i < FP_BR_ST_MAX; i++)
			sum.n[i] += all[c].n[i];
	free(all);
	return sum;
}

/* ---- frames ---------------------------------------------------------------- */

static inline void frame(struct pkt *b, const __u8 *dst, const __u8 *src)
{
	pkt_init(b);
	pkt_eth_mac(b, dst, src, 0);
	pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "192.0.2.1", .dst = "192.0.2.2", .ttl = 64 });
	pkt_udp(b, 40000, 9);
	pkt_bytes(b, "a frame between two stations", 28);
	assert_int_equal(pkt_finish(b), 0);
}

struct result {
	__u32 action;  /* the XDP action */
	__u32 reason;  /* enum fp_br_stat: what the stage did */
	__u32 to;      /* the port it redirected to (0: flooded or none) */
};

/* Runs a frame dst <- src as received on port in (an index of port[]). */
static inline struct result run_on(int in, const __u8 *dst, const __u8 *src)
{
	struct xdp_md ctx = { .ingress_ifindex = port[in] };
	struct result r;
	struct fp_pkt p;
	struct pkt b;

	frame(&b, dst, src);
	ctx.data_end = (__u32)b.len;
	{
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = b.buf, .data_size_in = b.len,
			    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = 1);

		assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(entry->progs.fp_entry), &o),
				 0);
		assert_int_equal(sched_getcpu(), cpu);
		r.action = o.retval;
	}
	chain_scratch(bpf_map__fd(entry->maps.fp_scratch), cpu, &p);
	assert_int_equal(p.verdict.slot, 0); /* no dump ran: the tap was not offered it */
	r.reason = p.verdict.reason;
	r.to = (__u32)p.verdict.ident;
	return r;
}

static inline void assert_result(struct result r, __u32 action, __u32 reason, __u32 to)
{
	if (r.action != action || r.reason != reason || r.to != to)
		fail_msg("action %u reason %u to %u; want action %u reason %u to %u", r.action,
			 r.reason, r.to, action, reason, to);
}

#endif
