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
 * - a source found right is not looked up again for half a second;
 * - a destination found is remembered while the FDB's generation stays:
 *   a move, a removal or an ageing is seen by the very next frame.
 * The safety limits (storm control, learning limits) are in
 * bridge_limits.c; the fixture is tests/stage/bridge_fixture.h.
 */

#include "stage/bridge_fixture.h"

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

/* A destination found is remembered (per CPU) while the FDB's generation
 * stays: a change behind the stage's back that moves no generation is
 * not seen; a move the stage learns, a removal or a change by the CLI
 * (which moves it) and an ageing are, by the very next frame. */
static void test_last_destination_remembered(void **state)
{
	struct fp_br_key k = key(mac_b);
	struct fp_br_fdb v = { .ifindex = port[2], .seen_ns = mono_ns() };

	fdb_put(mac_b, port[1], 0, mono_ns());
	assert_result(run_on(0, mac_b, mac_a), XDP_REDIRECT, FP_BR_ST_FORWARD, port[1]);
	/* b put behind port 2 without a new generation: still port 1 */
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_fdb), &k, &v, 0), 0);
	assert_result(run_on(0, mac_b, mac_a), XDP_REDIRECT, FP_BR_ST_FORWARD, port[1]);
	fdb_changed();
	assert_result(run_on(0, mac_b, mac_a), XDP_REDIRECT, FP_BR_ST_FORWARD, port[2]);
	/* b speaks on port 1: moved by the stage, the next frame follows */
	run_on(1, mac_bcast, mac_b);
	assert_int_equal(stats().n[FP_BR_ST_MOVED], 1);
	assert_result(run_on(0, mac_b, mac_a), XDP_REDIRECT, FP_BR_ST_FORWARD, port[1]);
	/* back behind port 2: a frame to b from port 2 is a hairpin */
	run_on(2, mac_bcast, mac_b);
	assert_result(run_on(2, mac_b, mac_c), XDP_DROP, FP_BR_ST_DROP_HAIRPIN, port[2]);
	/* removed by the CLI (a new generation): flooded at once */
	assert_int_equal(bpf_map_delete_elem(bpf_map__fd(br->maps.fp_br_fdb), &k), 0);
	fdb_changed();
	assert_result(run_on(0, mac_b, mac_a), XDP_REDIRECT, FP_BR_ST_FLOOD, 0);
	/* remembered, then aged: a shorter ageing time is seen at once */
	fdb_put(mac_b, port[1], 0, mono_ns() - 2000000000ull);
	assert_result(run_on(0, mac_b, mac_a), XDP_REDIRECT, FP_BR_ST_FORWARD, port[1]);
	{
		struct fp_br_cfg cfg = { .abi_version = FP_BRIDGE_ABI, .ageing_ns = 1000000000ull,
					 .host_bits = fp_br_host_bit(mac_host) };
		__u32 zero = 0;

		assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_cfg), &zero, &cfg, 0),
				 0);
	}
	assert_result(run_on(0, mac_b, mac_a), XDP_REDIRECT, FP_BR_ST_FLOOD, 0);
	assert_int_equal(stats().n[FP_BR_ST_AGED], 1);
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
		cmocka_unit_test_setup(test_last_source_remembered, reset),
		cmocka_unit_test_setup(test_last_destination_remembered, reset),
	};

	return cmocka_run_group_tests_name("bridge", tests, setup, teardown);
}
