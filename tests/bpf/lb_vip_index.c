// SPDX-License-Identifier: BSD-2-Clause
/*
 * The VIP index packets find VIPs by (lb_vip_index: an array the program
 * indexes with its own hash, probing at most FP_LB_VIP_PROBES slots,
 * rebuilt aside and switched in with one write; src/lb/lb_vip_index.c), on
 * real frames through fp_entry:
 * - 512 VIPs (FP_LB_MAX_VIPS; IPv4 and IPv6, exact ports and port-any):
 *   some lie past their home slot (checked in the array), and each one's
 *   packet reaches that VIP (its index's statistics), other ports do not;
 * - a VIP deleted is a miss, also one whose slot other VIPs probed past,
 *   and the VIPs around it are still found;
 * - while another CPU switches the VIPs back and forth between an exact
 *   VIP and the address's port-any VIP, no packet sees neither.
 * Which VIP a packet is for otherwise: lb_verdicts.c.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <fastpath/lb_abi.h>
#include "common/lb_cases.h"

#define NVIP FP_LB_MAX_VIPS

/* VIP i: even ones IPv4, odd ones IPv6; port 1000 + i, every 50th port-any. */
static void vip_key(int i, struct fp_lb_vip_key *k, char *text, size_t len)
{
	memset(k, 0, sizeof(*k));
	if (i % 2 == 0)
		snprintf(text, len, "198.51.%d.%d", 100 + i / 250, i % 250 + 1);
	else
		snprintf(text, len, "2001:db8:100::%x", i);
	k->family = (__u8)lbf_addr(text, k->addr);
	k->port = i % 50 == 0 ? 0 : (__u16)(1000 + i);
	k->proto = 6;
}

/* All NVIP VIPs into lb_vips (VIP i has index i), then one publish. */
static void add_all(void)
{
	int fd = bpf_map__fd(F.lb->maps.lb_vips);

	assert_int_equal(lbf_reset(&F), 0);
	for (int i = 0; i < NVIP; i++) {
		struct fp_lb_vip_key k;
		struct fp_lb_vip v = { .index = (__u32)i, .table_size = TSIZE };
		char t[64];

		vip_key(i, &k, t, sizeof(t));
		v.flags = k.port ? 0 : FP_LB_VIP_PORT_ANY;
		assert_int_equal(bpf_map_update_elem(fd, &k, &v, 0), 0);
	}
	assert_int_equal(lbf_publish_vips(&F), 0);
}

/* The index's entries as the program sees them now (FP_LB_VIP_ENTRIES). */
static void read_index(struct fp_lb_vip_slot *e)
{
	__u32 zero = 0, id = 0;
	int fd;

	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(F.lb->maps.lb_vip_index), &zero, &id), 0);
	fd = bpf_map_get_fd_by_id(id);
	assert_true(fd >= 0);
	for (__u32 i = 0; i < FP_LB_VIP_ENTRIES; i++)
		assert_int_equal(bpf_map_lookup_elem(fd, &i, &e[i]), 0);
	close(fd);
}

/* Entry of the slot holding k (0: none), and its home's entry in *home. */
static __u32 where(const struct fp_lb_vip_slot *e, const struct fp_lb_vip_key *k, __u32 *home)
{
	__u64 a[2];

	memcpy(a, k->addr, sizeof(a));
	*home = 1 + fp_lb_vip_home(fp_lb_vip_hash_addr(a[0], a[1]), k->port, k->proto, k->family,
				   e[0].seed);
	for (__u32 i = 1; i < FP_LB_VIP_ENTRIES; i++)
		if (!memcmp(&e[i].key, k, sizeof(*k)))
			return i;
	return 0;
}

/* Whether the packet to text:port/tcp was taken as VIP index's: its miss
 * counted there (no table: then dropped), not passed on as no VIP's. */
static int reaches(const char *text, __u16 port, __u32 index)
{
	__u64 nv = lbf_counter(&F, FP_LB_C_NOT_VIP);
	struct fp_lb_stats s0 = lbf_vip_stats(&F, index), s1;
	struct pkt b;

	lbt_frame(&b, strchr(text, ':') ? CLIENT6 : CLIENT4, text, 40000, port, 6, 0, 64, 20);
	lbf_run(&F, 0, b.buf, b.len, NULL, NULL);
	s1 = lbf_vip_stats(&F, index);
	return lbf_counter(&F, FP_LB_C_NOT_VIP) == nv && s1.conn_misses == s0.conn_misses + 1;
}

static int passes(const char *text, __u16 port)
{
	__u64 nv = lbf_counter(&F, FP_LB_C_NOT_VIP);
	struct pkt b;

	lbt_frame(&b, strchr(text, ':') ? CLIENT6 : CLIENT4, text, 40000, port, 6, 0, 64, 20);
	return lbf_run(&F, 0, b.buf, b.len, NULL, NULL) == XDP_PASS &&
	       lbf_counter(&F, FP_LB_C_NOT_VIP) == nv + 1;
}

static void test_full_index_probed(void **state)
{
	struct fp_lb_vip_slot *e = calloc(FP_LB_VIP_ENTRIES, sizeof(*e));
	int displaced = 0;

	if (!F.lb)
		skip();
	assert_non_null(e);
	add_all();
	read_index(e);
	for (int i = 0; i < NVIP; i++) {
		struct fp_lb_vip_key k;
		__u32 home, at;
		char t[64];

		vip_key(i, &k, t, sizeof(t));
		at = where(e, &k, &home);
		assert_true(at >= home && at < home + FP_LB_VIP_PROBES);
		assert_int_equal(e[at].vip.index, i);
		displaced += at != home;
		assert_true(reaches(t, k.port ? k.port : 7, (__u32)i));
		if (k.port)
			assert_true(passes(t, 999)); /* another port of the address */
		else
			assert_true(reaches(t, 999, (__u32)i));
	}
	/* the test covers probing: at this load some VIPs lie past their home */
	assert_true(displaced > 0);
	free(e);
}

static void test_deleted_is_a_miss(void **state)
{
	struct fp_lb_vip_slot *e = calloc(FP_LB_VIP_ENTRIES, sizeof(*e));
	bool gone[NVIP] = { false };
	int victim = -1;

	if (!F.lb)
		skip();
	assert_non_null(e);
	add_all();
	read_index(e);
	/* a VIP in whose place another one's probing went on (its successor
	 * slot holds one displaced from at or before it) */
	for (int i = 0; i < NVIP && victim < 0; i++) {
		struct fp_lb_vip_key k, k2;
		__u32 home, at, h2;
		char t[64];

		vip_key(i, &k, t, sizeof(t));
		at = where(e, &k, &home);
		if (at + 1 >= FP_LB_VIP_ENTRIES || !e[at + 1].key.family)
			continue;
		k2 = e[at + 1].key;
		where(e, &k2, &h2);
		if (h2 <= at)
			victim = i;
	}
	assert_true(victim >= 0);
	gone[victim] = true;
	for (int i = 3; i < NVIP; i += 37) /* and a few more */
		gone[i] = true;
	for (int i = 0; i < NVIP; i++) {
		struct fp_lb_vip_key k;
		char t[64];

		vip_key(i, &k, t, sizeof(t));
		if (gone[i])
			assert_int_equal(lbf_vip_del(&F, t, k.port, 6), 0);
	}
	for (int i = 0; i < NVIP; i++) {
		struct fp_lb_vip_key k;
		char t[64];

		vip_key(i, &k, t, sizeof(t));
		if (gone[i])
			assert_true(passes(t, k.port ? k.port : 7));
		else
			assert_true(reaches(t, k.port ? k.port : 7, (__u32)i));
	}
	free(e);
}

/* The writer: VIP4:80 (index 3) or else VIP4 port-any (index 4), in
 * turn, on another CPU than the packets'. */
struct flipper {
	int cpu, rounds, failed;
	volatile int stop;
};

static void *flip(void *arg)
{
	struct flipper *fl = arg;
	struct fp_lb_vip_key exact = { .port = 80, .proto = 6 }, any = { .proto = 6 };
	struct fp_lb_vip v3 = { .index = 3, .table_size = TSIZE },
			 v4 = { .index = 4, .flags = FP_LB_VIP_PORT_ANY, .table_size = TSIZE };
	int fd = bpf_map__fd(F.lb->maps.lb_vips);
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(fl->cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
	exact.family = any.family = (__u8)lbf_addr(VIP4, exact.addr);
	memcpy(any.addr, exact.addr, 16);
	for (int r = 1; r <= fl->rounds && !fl->stop; r++) {
		/* one out and the other in, then one publish: the index goes
		 * from the one to the other in one switch */
		int to_any = r % 2, rc;

		bpf_map_delete_elem(fd, to_any ? &exact : &any);
		rc = to_any ? bpf_map_update_elem(fd, &any, &v4, 0)
			    : bpf_map_update_elem(fd, &exact, &v3, 0);
		if (rc || lbf_publish_vips(&F)) {
			fl->failed = 1;
			break;
		}
	}
	fl->stop = 1;
	return NULL;
}

static void test_switch_whole(void **state)
{
	int ncpu = libbpf_num_possible_cpus();
	struct flipper fl = { .rounds = 400 };
	__u64 nv0, runs = 0;
	pthread_t t;
	struct pkt b;

	if (!F.lb)
		skip();
	if (ncpu < 2)
		skip();
	fl.cpu = F.cpu == 0 ? 1 : 0;
	assert_int_equal(lbf_reset(&F), 0);
	assert_int_equal(lbf_vip(&F, VIP4, 80, 6, 0, 3, TSIZE, 0), 0);
	lbt_frame(&b, CLIENT4, VIP4, 40000, 80, 6, 0, 64, 20);
	nv0 = lbf_counter(&F, FP_LB_C_NOT_VIP);
	assert_int_equal(pthread_create(&t, NULL, flip, &fl), 0);
	while (!fl.stop && runs < 2000000) {
		lbf_time(&F, 0, b.buf, b.len, 100, NULL);
		runs += 100;
	}
	fl.stop = 1;
	pthread_join(t, NULL);
	assert_false(fl.failed);
	assert_true(runs > 0);
	/* every packet found VIP4:80 or VIP4's port-any VIP: never neither */
	assert_int_equal(lbf_counter(&F, FP_LB_C_NOT_VIP), nv0);
	assert_true(lbf_vip_stats(&F, 3).conn_misses + lbf_vip_stats(&F, 4).conn_misses > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_index_probed),
		cmocka_unit_test(test_deleted_is_a_miss),
		cmocka_unit_test(test_switch_whole),
	};

	return cmocka_run_group_tests(tests, lbc_setup, lbc_teardown);
}
