// SPDX-License-Identifier: BSD-2-Clause
/*
 * The bridge stage (src/bridge/bridge.bpf.c) on crafted frames, through the
 * pipeline's entry with BPF_PROG_TEST_RUN: the stage in slot 4 against the
 * entry's maps, three member ports (veths in a network namespace of the
 * test's own, gone with the process), each frame run as received on one of
 * them (xdp_md.ingress_ifindex). The decision is read from the verdict the
 * stage leaves in the parse (reason: what it did; ident: the port it sent
 * the frame to) and from the FDB and the counters:
 * - learn: a source MAC is learned on the port it came in on;
 * - forward: a known destination is redirected to its port;
 * - flood: unknown unicast, broadcast, multicast go to the DEVMAP
 *   broadcast (ingress excluded);
 * - hairpin: a destination on the ingress port is dropped;
 * - move: a MAC seen on another port moves at once; a static one does not;
 * - refresh: a learned time is rewritten at most once a second;
 * - ageing: an entry older than the ageing time is unknown, removed and
 *   the frame flooded; a static entry never ages;
 * - host: a member's MAC (a bridge address) passes on down the chain;
 * - a destination whose port left the bridge passes; a multicast source
 *   is dropped;
 * - storm control: floods from a port past its flood limit are dropped
 *   and counted (a burst of 100 ms worth passes), forwarding is not
 *   limited, and another port's floods are not;
 * - learning limit: a MAC flood from one port learns up to its limit and
 *   no more (learn_limited), evicting none of the other ports' entries;
 *   a full table refuses (learn_full) and evicts nothing; each port's
 *   count follows learning, moves (refused into a port at its limit),
 *   ageing as a destination, and the sweep that gives a port at its
 *   limit its aged entries back.
 */

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

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int reuse_pipeline_maps(struct bpf_object *obj)
{
	static const char *names[] = { "fp_stages", "fp_scratch", "fp_ctl" };
	struct bpf_map *from[] = { entry->maps.fp_stages, entry->maps.fp_scratch,
				   entry->maps.fp_ctl };

	for (unsigned i = 0; i < 3; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, names[i]);

		if (m && bpf_map__reuse_fd(m, bpf_map__fd(from[i])))
			return -1;
	}
	return 0;
}

static int setup(void **state)
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
	if (!br || reuse_pipeline_maps(br->obj) || bridge_bpf__load(br))
		return -1;
	chain_fill(bpf_map__fd(entry->maps.fp_stages), FP_STAGE_BRIDGE,
		   bpf_program__fd(br->progs.fp_bridge));
	chain_set_ctl(bpf_map__fd(entry->maps.fp_ctl), 1u << FP_STAGE_BRIDGE, 0);
	return 0;
}

static int teardown(void **state)
{
	bridge_bpf__destroy(br);
	entry_bpf__destroy(entry);
	return 0;
}

/* ---- the bridge's state, as its user half sets it ------------------------ */

static struct fp_br_key key(const __u8 *mac)
{
	struct fp_br_key k = { .vlan = 0 };

	memcpy(k.mac, mac, 6);
	return k;
}

static void clear_map(int fd, size_t key_size)
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
static void set_port(int i, __u32 learn_limit, __u32 flood_limit)
{
	struct fp_br_port p = { .ifindex = port[i], .slot = (__u16)(i + 1),
				.learn_limit = learn_limit, .flood_limit = flood_limit };

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_pinfo), &port[i], &p, 0),
			 0);
}

/* Port i's count of learned entries. */
static __u32 learned(int i)
{
	struct fp_br_learn l;
	__u32 slot = (__u32)i + 1;

	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(br->maps.fp_br_learn), &slot, &l), 0);
	return l.learned;
}

static void set_learned(int i, __u32 n)
{
	struct fp_br_learn l = { .learned = n };
	__u32 slot = (__u32)i + 1;

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_learn), &slot, &l, 0), 0);
}

/* The stage's remembered last source (per CPU) forgotten, as half a
 * second does. */
static void forget_last(void)
{
	int ncpu = libbpf_num_possible_cpus();
	void *z = calloc(ncpu, bpf_map__value_size(br->maps.fp_br_last));
	__u32 zero = 0;

	assert_non_null(z);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_last), &zero, z, 0), 0);
	free(z);
}

/* Three members, an empty FDB, zero counters, 300 s ageing, one host address. */
static int reset(void **state)
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

static void fdb_put(const __u8 *mac, __u32 ifindex, __u32 flags, __u64 seen_ns)
{
	struct fp_br_key k = key(mac);
	struct fp_br_fdb v = { .ifindex = ifindex, .flags = flags, .seen_ns = seen_ns };

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_fdb), &k, &v, 0), 0);
}

/* The entry of mac; false if there is none. */
static bool fdb_get(const __u8 *mac, struct fp_br_fdb *v)
{
	struct fp_br_key k = key(mac);

	return bpf_map_lookup_elem(bpf_map__fd(br->maps.fp_br_fdb), &k, v) == 0;
}

static struct fp_br_stats stats(void)
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

static void frame(struct pkt *b, const __u8 *dst, const __u8 *src)
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
static struct result run_on(int in, const __u8 *dst, const __u8 *src)
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

static void assert_result(struct result r, __u32 action, __u32 reason, __u32 to)
{
	if (r.action != action || r.reason != reason || r.to != to)
		fail_msg("action %u reason %u to %u; want action %u reason %u to %u", r.action,
			 r.reason, r.to, action, reason, to);
}

/* ---- cases --------------------------------------------------------------- */

static void test_learn(void **state)
{
	struct fp_br_fdb v;
	__u64 before = mono_ns();

	assert_false(fdb_get(mac_a, &v));
	assert_result(run_on(0, mac_bcast, mac_a), XDP_REDIRECT, FP_BR_ST_FLOOD, 0);
	assert_true(fdb_get(mac_a, &v));
	assert_int_equal(v.ifindex, port[0]);
	assert_int_equal(v.flags, 0);
	/* the stage's clock is CLOCK_MONOTONIC_COARSE: up to a tick behind */
	assert_true(v.seen_ns >= before - COARSE_SLACK_NS && v.seen_ns <= mono_ns());
	assert_int_equal(stats().n[FP_BR_ST_LEARNED], 1);
	assert_int_equal(stats().n[FP_BR_ST_IN], 1);
	/* the same station again: nothing new learned */
	run_on(0, mac_bcast, mac_a);
	assert_int_equal(stats().n[FP_BR_ST_LEARNED], 1);
}

static void test_forward(void **state)
{
	run_on(1, mac_bcast, mac_b); /* b on port 1 */
	assert_result(run_on(0, mac_b, mac_a), XDP_REDIRECT, FP_BR_ST_FORWARD, port[1]);
	/* and the answer back: a was learned on port 0 by the frame before */
	assert_result(run_on(1, mac_a, mac_b), XDP_REDIRECT, FP_BR_ST_FORWARD, port[0]);
	assert_int_equal(stats().n[FP_BR_ST_FORWARD], 2);
}

static void test_flood(void **state)
{
	/* unknown unicast, broadcast, multicast */
	assert_result(run_on(0, mac_c, mac_a), XDP_REDIRECT, FP_BR_ST_FLOOD, 0);
	assert_result(run_on(0, mac_bcast, mac_a), XDP_REDIRECT, FP_BR_ST_FLOOD, 0);
	assert_result(run_on(0, mac_mcast, mac_a), XDP_REDIRECT, FP_BR_ST_FLOOD, 0);
	assert_int_equal(stats().n[FP_BR_ST_FLOOD], 3);
	assert_int_equal(stats().n[FP_BR_ST_FORWARD], 0);
}

static void test_hairpin_drop(void **state)
{
	run_on(0, mac_bcast, mac_a); /* a on port 0 */
	assert_result(run_on(0, mac_a, mac_c), XDP_DROP, FP_BR_ST_DROP_HAIRPIN, port[0]);
	assert_int_equal(stats().n[FP_BR_ST_DROP_HAIRPIN], 1);
}

static void test_move(void **state)
{
	struct fp_br_fdb v;

	run_on(0, mac_bcast, mac_a);
	run_on(2, mac_bcast, mac_a); /* a is now behind port 2 */
	assert_true(fdb_get(mac_a, &v));
	assert_int_equal(v.ifindex, port[2]);
	assert_int_equal(stats().n[FP_BR_ST_MOVED], 1);
	assert_result(run_on(1, mac_a, mac_b), XDP_REDIRECT, FP_BR_ST_FORWARD, port[2]);
}

static void test_static_stays(void **state)
{
	struct fp_br_fdb v;

	fdb_put(mac_a, port[0], FP_BR_FDB_STATIC, 1);
	run_on(2, mac_bcast, mac_a); /* a frame with a's address on another port */
	assert_true(fdb_get(mac_a, &v));
	assert_int_equal(v.ifindex, port[0]);
	assert_int_equal(v.seen_ns, 1);
	assert_int_equal(stats().n[FP_BR_ST_MOVED], 0);
	/* a static entry never ages: seen 1 ns after boot, still forwarded */
	assert_result(run_on(1, mac_a, mac_b), XDP_REDIRECT, FP_BR_ST_FORWARD, port[0]);
}

static void test_refresh_once_a_second(void **state)
{
	struct fp_br_fdb v;
	__u64 now = mono_ns(), half = now - 500000000ull, two = now - 2000000000ull;

	fdb_put(mac_a, port[0], 0, half);
	run_on(0, mac_bcast, mac_a);
	assert_true(fdb_get(mac_a, &v));
	assert_int_equal(v.seen_ns, half); /* half a second old: left alone */
	fdb_put(mac_a, port[0], 0, two);
	forget_last(); /* (else the stage trusts what it found for half a second) */
	run_on(0, mac_bcast, mac_a);
	assert_true(fdb_get(mac_a, &v));
	assert_true(v.seen_ns >= now - COARSE_SLACK_NS); /* two seconds old: rewritten */
	assert_int_equal(stats().n[FP_BR_ST_LEARNED], 0);
}

static void test_ageing(void **state)
{
	struct fp_br_fdb v;
	__u64 now = mono_ns();

	/* d was last heard 301 s ago, b 299 s ago (ageing 300 s) */
	fdb_put(mac_d, port[1], 0, now - 301000000000ull);
	fdb_put(mac_b, port[1], 0, now - 299000000000ull);
	assert_result(run_on(0, mac_b, mac_a), XDP_REDIRECT, FP_BR_ST_FORWARD, port[1]);
	assert_result(run_on(0, mac_d, mac_a), XDP_REDIRECT, FP_BR_ST_FLOOD, 0);
	assert_false(fdb_get(mac_d, &v)); /* removed */
	assert_int_equal(stats().n[FP_BR_ST_AGED], 1);
	/* a shorter ageing time takes effect at once */
	{
		struct fp_br_cfg cfg = { .abi_version = FP_BRIDGE_ABI, .ageing_ns = 1000000000ull,
					 .host_bits = fp_br_host_bit(mac_host) };
		__u32 zero = 0;

		assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_cfg), &zero, &cfg, 0),
				 0);
	}
	assert_result(run_on(0, mac_b, mac_a), XDP_REDIRECT, FP_BR_ST_FLOOD, 0);
	assert_false(fdb_get(mac_b, &v));
}

static void test_host_passes(void **state)
{
	assert_result(run_on(0, mac_host, mac_a), XDP_PASS, FP_BR_ST_HOST, 0);
	assert_int_equal(stats().n[FP_BR_ST_HOST], 1);
	/* even when a frame from that address was seen on a port */
	run_on(1, mac_bcast, mac_host);
	assert_result(run_on(0, mac_host, mac_a), XDP_PASS, FP_BR_ST_HOST, 0);
}

static void test_port_gone_passes(void **state)
{
	__u32 gone = port[2];

	fdb_put(mac_c, port[2], 0, mono_ns());
	assert_int_equal(bpf_map_delete_elem(bpf_map__fd(br->maps.fp_br_ports), &gone), 0);
	assert_result(run_on(0, mac_c, mac_a), XDP_PASS, FP_BR_ST_NOT_MEMBER, port[2]);
}

static void test_bad_source_dropped(void **state)
{
	static const __u8 zero_mac[6];
	struct fp_br_fdb v;

	assert_result(run_on(0, mac_b, mac_mcast), XDP_DROP, FP_BR_ST_DROP_BAD_SRC, 0);
	assert_result(run_on(0, mac_b, zero_mac), XDP_DROP, FP_BR_ST_DROP_BAD_SRC, 0);
	assert_false(fdb_get(mac_mcast, &v));
	assert_int_equal(stats().n[FP_BR_ST_DROP_BAD_SRC], 2);
}

static void test_no_bridge_drops(void **state)
{
	struct fp_br_cfg cfg = { 0 }; /* a config never written */
	__u32 zero = 0;

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_cfg), &zero, &cfg, 0), 0);
	assert_result(run_on(0, mac_b, mac_a), XDP_DROP, FP_BR_ST_DROP_NO_BRIDGE, 0);
}

static void test_storm_control(void **state)
{
	__u64 t0, ms, flooded, dropped;

	set_port(0, 0, 10); /* 10 a second */
	run_on(1, mac_bcast, mac_b); /* b known, behind port 1 */
	t0 = mono_ns();
	for (int i = 0; i < 20; i++)
		run_on(0, mac_bcast, mac_a);
	ms = (mono_ns() - t0) / 1000000;
	flooded = stats().n[FP_BR_ST_FLOOD] - 1;
	dropped = stats().n[FP_BR_ST_DROP_STORM];
	/* a burst of 100 ms at 10/s is 2 frames; more only as time passes */
	if (flooded < 2 || flooded > 2 + ms / 100 + 1 || flooded + dropped != 20)
		fail_msg("flooded %llu, dropped %llu in %llu ms", (unsigned long long)flooded,
			 (unsigned long long)dropped, (unsigned long long)ms);
	/* known unicast is not limited; nor are another port's floods */
	assert_result(run_on(0, mac_b, mac_a), XDP_REDIRECT, FP_BR_ST_FORWARD, port[1]);
	for (int i = 0; i < 5; i++)
		assert_result(run_on(1, mac_bcast, mac_b), XDP_REDIRECT, FP_BR_ST_FLOOD, 0);
	/* after 300 ms, port 0 floods again */
	usleep(300000);
	assert_result(run_on(0, mac_bcast, mac_a), XDP_REDIRECT, FP_BR_ST_FLOOD, 0);
}

/* A source found right is not looked up again for half a second: its
 * entry removed behind the stage's back comes back only after that (or
 * at once from another port: the remembered source is per port). */
static void test_last_source_remembered(void **state)
{
	struct fp_br_fdb v;
	struct fp_br_key k = key(mac_a);

	run_on(0, mac_bcast, mac_a);
	assert_true(fdb_get(mac_a, &v));
	assert_int_equal(bpf_map_delete_elem(bpf_map__fd(br->maps.fp_br_fdb), &k), 0);
	run_on(0, mac_b, mac_a);
	assert_false(fdb_get(mac_a, &v));      /* trusted: not looked up */
	usleep(600000);
	run_on(0, mac_b, mac_a);
	assert_true(fdb_get(mac_a, &v) && v.ifindex == port[0]); /* learned again */
	assert_int_equal(stats().n[FP_BR_ST_LEARNED], 2);
	/* from another port at once */
	run_on(1, mac_b, mac_a);
	assert_true(fdb_get(mac_a, &v) && v.ifindex == port[1]);
}

/* Source MAC number i of a flood. */
static void flood_mac(__u8 mac[6], int i)
{
	const __u8 m[6] = { 0x02, 0xf1, 0, 0, (__u8)(i >> 8), (__u8)i };

	memcpy(mac, m, 6);
}

static void test_learn_limit(void **state)
{
	struct fp_br_fdb v;
	__u8 mac[6];

	set_port(0, 8, 0);
	run_on(1, mac_bcast, mac_b); /* b and c, the other ports' stations */
	run_on(2, mac_bcast, mac_c);
	for (int i = 0; i < 100; i++) {
		flood_mac(mac, i);
		run_on(0, mac_b, mac);
	}
	assert_int_equal(learned(0), 8);
	assert_int_equal(stats().n[FP_BR_ST_LEARNED], 2 + 8);
	assert_int_equal(stats().n[FP_BR_ST_LEARN_LIMITED], 92);
	for (int i = 0; i < 100; i++) {
		flood_mac(mac, i);
		if (fdb_get(mac, &v) != (i < 8))
			fail_msg("flood source %d: %s in the FDB", i, i < 8 ? "not" : "");
	}
	/* the others' entries stay, their frames still forwarded */
	assert_true(fdb_get(mac_b, &v) && v.ifindex == port[1]);
	assert_true(fdb_get(mac_c, &v) && v.ifindex == port[2]);
	assert_int_equal(learned(1), 1);
	assert_int_equal(learned(2), 1);
	assert_result(run_on(2, mac_b, mac_c), XDP_REDIRECT, FP_BR_ST_FORWARD, port[1]);
	/* a frame from a source not learned is still switched */
	flood_mac(mac, 50);
	assert_result(run_on(0, mac_b, mac), XDP_REDIRECT, FP_BR_ST_FORWARD, port[1]);
}

static void test_learn_full_evicts_nothing(void **state)
{
	int fd = bpf_map__fd(br->maps.fp_br_fdb);
	struct fp_br_fdb v, st = { .ifindex = port[2], .flags = FP_BR_FDB_STATIC, .seen_ns = 1 };
	__u8 mac[6];

	run_on(1, mac_bcast, mac_b);
	/* the rest of the table full of (static) entries */
	for (int i = 0; i < FP_BR_FDB_MAX - 1; i++) {
		struct fp_br_key k = { .mac = { 0x02, 0xee, 0, (__u8)(i >> 16), (__u8)(i >> 8), (__u8)i } };

		assert_int_equal(bpf_map_update_elem(fd, &k, &st, BPF_NOEXIST), 0);
	}
	for (int i = 0; i < 10; i++) {
		flood_mac(mac, i);
		run_on(0, mac_b, mac);
		assert_false(fdb_get(mac, &v));
	}
	assert_int_equal(stats().n[FP_BR_ST_LEARN_FULL], 10);
	assert_int_equal(learned(0), 0);
	assert_true(fdb_get(mac_b, &v) && v.ifindex == port[1]);
	assert_result(run_on(0, mac_b, mac_a), XDP_REDIRECT, FP_BR_ST_FORWARD, port[1]);
}

static void test_learn_counts_follow(void **state)
{
	struct fp_br_fdb v;
	__u64 old = mono_ns() - 301000000000ull;

	/* a move takes the count from the old port to the new */
	run_on(0, mac_bcast, mac_a);
	assert_int_equal(learned(0), 1);
	run_on(1, mac_bcast, mac_a);
	assert_int_equal(learned(0), 0);
	assert_int_equal(learned(1), 1);
	/* not into a port at its limit: the entry stays where it was */
	set_port(2, 1, 0);
	run_on(2, mac_bcast, mac_c);
	run_on(2, mac_bcast, mac_a);
	assert_true(fdb_get(mac_a, &v) && v.ifindex == port[1]);
	assert_int_equal(learned(1), 1);
	assert_int_equal(learned(2), 1);
	assert_int_equal(stats().n[FP_BR_ST_LEARN_LIMITED], 1);
	assert_int_equal(stats().n[FP_BR_ST_MOVED], 1);
	/* aged as a destination: off its port's count */
	fdb_put(mac_a, port[1], 0, old);
	assert_result(run_on(0, mac_a, mac_b), XDP_REDIRECT, FP_BR_ST_FLOOD, 0);
	assert_false(fdb_get(mac_a, &v));
	assert_int_equal(learned(1), 0);
	assert_int_equal(stats().n[FP_BR_ST_AGED], 1);
	/* (b, that frame's source, is learned on port 0) */
	assert_true(fdb_get(mac_b, &v) && v.ifindex == port[0]);
	assert_int_equal(learned(0), 1);
}

static void test_sweep_gives_share_back(void **state)
{
	struct fp_br_fdb v;
	__u64 old = mono_ns() - 301000000000ull;
	__u8 mac[6];

	/* port 0 at its limit of 3 with stations gone quiet 301 s ago */
	set_port(0, 3, 0);
	for (int i = 0; i < 3; i++) {
		flood_mac(mac, i);
		fdb_put(mac, port[0], 0, old);
	}
	set_learned(0, 3);
	fdb_put(mac_c, port[2], 0, old); /* another port's, aged too */
	set_learned(2, 1);
	fdb_put(mac_b, port[1], 0, mono_ns()); /* a live one */
	set_learned(1, 1);
	/* a's first frame is refused, and sweeps the aged entries out */
	run_on(0, mac_bcast, mac_a);
	assert_false(fdb_get(mac_a, &v));
	assert_int_equal(stats().n[FP_BR_ST_LEARN_LIMITED], 1);
	assert_int_equal(stats().n[FP_BR_ST_AGED], 4);
	assert_int_equal(learned(0), 0);
	assert_int_equal(learned(2), 0);
	assert_int_equal(learned(1), 1);
	assert_true(fdb_get(mac_b, &v));
	for (int i = 0; i < 3; i++) {
		flood_mac(mac, i);
		assert_false(fdb_get(mac, &v));
	}
	/* its next frame is learned */
	run_on(0, mac_bcast, mac_a);
	assert_true(fdb_get(mac_a, &v) && v.ifindex == port[0]);
	assert_int_equal(learned(0), 1);
	/* no second sweep within the second: aged entries wait */
	set_port(0, 1, 0);
	fdb_put(mac_d, port[0], 0, old);
	run_on(0, mac_bcast, mac_c);
	assert_true(fdb_get(mac_d, &v));
	assert_int_equal(stats().n[FP_BR_ST_AGED], 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_learn, reset),
		cmocka_unit_test_setup(test_forward, reset),
		cmocka_unit_test_setup(test_flood, reset),
		cmocka_unit_test_setup(test_hairpin_drop, reset),
		cmocka_unit_test_setup(test_move, reset),
		cmocka_unit_test_setup(test_static_stays, reset),
		cmocka_unit_test_setup(test_refresh_once_a_second, reset),
		cmocka_unit_test_setup(test_ageing, reset),
		cmocka_unit_test_setup(test_host_passes, reset),
		cmocka_unit_test_setup(test_port_gone_passes, reset),
		cmocka_unit_test_setup(test_bad_source_dropped, reset),
		cmocka_unit_test_setup(test_no_bridge_drops, reset),
		cmocka_unit_test_setup(test_storm_control, reset),
		cmocka_unit_test_setup(test_last_source_remembered, reset),
		cmocka_unit_test_setup(test_learn_limit, reset),
		cmocka_unit_test_setup(test_learn_full_evicts_nothing, reset),
		cmocka_unit_test_setup(test_learn_counts_follow, reset),
		cmocka_unit_test_setup(test_sweep_gives_share_back, reset),
	};

	return cmocka_run_group_tests_name("bridge", tests, setup, teardown);
}
