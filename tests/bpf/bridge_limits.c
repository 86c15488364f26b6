// SPDX-License-Identifier: BSD-2-Clause
/*
 * The bridge stage's safety limits on crafted frames, through the
 * pipeline's entry with BPF_PROG_TEST_RUN (the fixture of
 * tests/stage/bridge_fixture.h: three member ports, the decision read from
 * the verdict, the FDB and the counters):
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
#include "stage/bridge_fixture.h"

/* ---- cases --------------------------------------------------------------- */

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
		cmocka_unit_test_setup(test_storm_control, reset),
		cmocka_unit_test_setup(test_learn_limit, reset),
		cmocka_unit_test_setup(test_learn_full_evicts_nothing, reset),
		cmocka_unit_test_setup(test_learn_counts_follow, reset),
		cmocka_unit_test_setup(test_sweep_gives_share_back, reset),
	};

	return cmocka_run_group_tests_name("bridge_limits", tests, setup, teardown);
}
