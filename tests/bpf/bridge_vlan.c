// SPDX-License-Identifier: BSD-2-Clause
/*
 * The bridge stage on a VLAN-aware bridge, on crafted frames through the
 * pipeline's entry (BPF_PROG_TEST_RUN), three member ports (veths in a
 * network namespace of the test's own):
 *   port 0  access, VLAN 10 (PVID 10, untagged)
 *   port 1  trunk, VLANs 10 and 20 (tagged; PVID 1)
 *   port 2  access, VLAN 20 (PVID 20, untagged)
 * - ingress: an untagged frame is of its port's PVID and leaves the stage
 *   with that tag pushed (the bytes out); a tagged frame of a VLAN its
 *   port does not allow is dropped; the FDB is keyed by MAC and VLAN, so a
 *   MAC known in VLAN 10 is unknown in VLAN 20 (flooded, not forwarded);
 * - egress (live frames, so the DEVMAP runs each port's fp_bridge_out and
 *   the frames reach the veths' far ends, where a tap program keeps them):
 *   a flood of VLAN 10 from the trunk reaches port 0 untagged (tag popped)
 *   and never port 2 (counted there as drop_vlan_out); an untagged frame
 *   from port 0 reaches the trunk tagged with VID 10.
 */
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <fastpath/abi.h>
#include <fastpath/bridge_abi.h>
#include "common/pkt.h"
#include "stage/mark_util.h"
#include "entry.skel.h"
#include "bridge.skel.h"
#include "frame_tap.skel.h"

#define N_PORTS 3
static struct entry_bpf *entry;
static struct bridge_bpf *br;
static struct frame_tap_bpf *tap[N_PORTS];
static int cpu = -1;
static __u32 port[N_PORTS], peer[N_PORTS];

struct tap_rec {
	__u64 frames;
	__u32 len;
	__u32 pad;
	__u8 head[64];
};

static const __u8 mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const __u8 mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };
static const __u8 mac_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static void set_vlan(struct fp_br_port *p, unsigned vid)
{
	p->vlans[vid >> 6] |= 1ull << (vid & 63);
}

static int setup(void **state)
{
	char cmd[256], name[16];

	if (unshare(CLONE_NEWNET)) {
		perror("unshare(CLONE_NEWNET)");
		return -1;
	}
	/* no IPv6 here: the ports' own ND and MLD would reach the taps */
	if (system("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
		   "net.ipv6.conf.default.disable_ipv6=1"))
		return -1;
	for (int i = 0; i < N_PORTS; i++) {
		snprintf(cmd, sizeof(cmd), "ip link add bvt%d type veth peer name bvp%d && "
			 "ip link set bvt%d up && ip link set bvp%d up", i, i, i, i);
		if (system(cmd))
			return -1;
		snprintf(name, sizeof(name), "bvt%d", i);
		port[i] = if_nametoindex(name);
		snprintf(name, sizeof(name), "bvp%d", i);
		peer[i] = if_nametoindex(name);
		if (!port[i] || !peer[i])
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
	/* the far ends keep what arrives (and have NAPI: an XDP program) */
	for (int i = 0; i < N_PORTS; i++) {
		tap[i] = frame_tap_bpf__open_and_load();
		if (!tap[i] || bpf_xdp_attach((int)peer[i], bpf_program__fd(tap[i]->progs.fp_frame_tap),
					      XDP_FLAGS_DRV_MODE, NULL))
			return -1;
	}
	{
		struct fp_br_cfg cfg = { .abi_version = FP_BRIDGE_ABI, .flags = FP_BR_VLAN_AWARE,
					 .ageing_ns = 300000000000ull };
		struct fp_br_port p[N_PORTS] = {
			{ .ifindex = port[0], .pvid = 10, .slot = 1 },
			{ .ifindex = port[1], .pvid = 1, .flags = FP_BR_PORT_TAGGED, .slot = 2 },
			{ .ifindex = port[2], .pvid = 20, .slot = 3 },
		};
		__u32 zero = 0;

		set_vlan(&p[0], 10);
		set_vlan(&p[1], 1);
		set_vlan(&p[1], 10);
		set_vlan(&p[1], 20);
		set_vlan(&p[2], 20);
		for (int i = 0; i < N_PORTS; i++) {
			struct bpf_devmap_val v = { .ifindex = port[i] };

			v.bpf_prog.fd = bpf_program__fd(br->progs.fp_bridge_out);
			if (bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_pinfo), &port[i], &p[i], 0) ||
			    bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_ports), &port[i], &v, 0))
				return -1;
		}
		if (bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_cfg), &zero, &cfg, 0))
			return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	for (int i = 0; i < N_PORTS; i++)
		frame_tap_bpf__destroy(tap[i]);
	bridge_bpf__destroy(br);
	entry_bpf__destroy(entry);
	return 0;
}

/* An empty FDB and zero counters before each case. */
static int reset(void **state)
{
	int ncpu = libbpf_num_possible_cpus(), fd = bpf_map__fd(br->maps.fp_br_fdb);
	struct fp_br_stats *z = calloc(ncpu, sizeof(*z));
	struct fp_br_key k;
	__u32 zero = 0;

	assert_non_null(z);
	while (bpf_map_get_next_key(fd, NULL, &k) == 0)
		assert_int_equal(bpf_map_delete_elem(fd, &k), 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_stats), &zero, z, 0), 0);
	free(z);
	{
		/* no source remembered from the case before (per CPU) */
		void *l = calloc(ncpu, bpf_map__value_size(br->maps.fp_br_last));

		assert_non_null(l);
		assert_int_equal(bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_last), &zero, l, 0),
				 0);
		free(l);
	}
	return 0;
}

static __u64 stat(int i)
{
	int ncpu = libbpf_num_possible_cpus();
	struct fp_br_stats *all = calloc(ncpu, sizeof(*all));
	__u32 zero = 0;
	__u64 sum = 0;

	assert_non_null(all);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(br->maps.fp_br_stats), &zero, all), 0);
	for (int c = 0; c < ncpu; c++)
		sum += all[c].n[i];
	free(all);
	return sum;
}

static struct tap_rec tapped(int i)
{
	struct tap_rec r;
	__u32 zero = 0;

	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(tap[i]->maps.tap), &zero, &r), 0);
	return r;
}

/* A UDP frame dst <- src, with an 802.1Q tag of vid unless vid is 0. */
static void frame(struct pkt *b, const __u8 *dst, const __u8 *src, __u16 vid)
{
	pkt_init(b);
	pkt_eth_mac(b, dst, src, 0);
	if (vid)
		pkt_vlan(b, PKT_ETH_8021Q, vid);
	pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "192.0.2.1", .dst = "192.0.2.2", .ttl = 64 });
	pkt_udp(b, 40000, 9);
	pkt_bytes(b, "a frame between two stations of one VLAN", 40);
	assert_int_equal(pkt_finish(b), 0);
}

struct result {
	__u32 action, reason;
	__u8 out[128];
	__u32 out_len;
};

/* Runs a frame as received on port[in]; live: for real, through the
 * DEVMAP to the veths (no bytes out). */
static struct result run_on(int in, const struct pkt *b, bool live)
{
	struct xdp_md ctx = { .ingress_ifindex = port[in], .data_end = (__u32)b->len };
	struct result r = { 0 };
	struct fp_pkt p;
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = b->buf, .data_size_in = b->len,
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = 1);

	if (live) {
		o.flags = BPF_F_TEST_XDP_LIVE_FRAMES;
	} else {
		o.data_out = r.out;
		o.data_size_out = sizeof(r.out);
	}
	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(entry->progs.fp_entry), &o), 0);
	assert_int_equal(sched_getcpu(), cpu);
	r.action = o.retval;
	r.out_len = o.data_size_out;
	chain_scratch(bpf_map__fd(entry->maps.fp_scratch), cpu, &p);
	r.reason = p.verdict.reason;
	return r;
}

static __u16 be16_at(const __u8 *b, int off)
{
	return (__u16)(b[off] << 8 | b[off + 1]);
}

/* ---- ingress ------------------------------------------------------------- */

static void test_untagged_gets_pvid_tag(void **state)
{
	struct result r;
	struct pkt b;

	frame(&b, mac_bcast, mac_a, 0);
	r = run_on(0, &b, false);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_int_equal(r.reason, FP_BR_ST_FLOOD);
	assert_int_equal(r.out_len, b.len + 4);
	assert_memory_equal(r.out, b.buf, 12);            /* the MACs */
	assert_int_equal(be16_at(r.out, 12), 0x8100);      /* the tag pushed ... */
	assert_int_equal(be16_at(r.out, 14) & 0xfff, 10);  /* ... of the PVID */
	assert_memory_equal(r.out + 16, b.buf + 12, b.len - 12); /* the rest as it was */
}

static void test_vlan_not_allowed_dropped(void **state)
{
	struct result r;
	struct pkt b;

	frame(&b, mac_bcast, mac_a, 20); /* port 0 is VLAN 10 only */
	r = run_on(0, &b, false);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(r.reason, FP_BR_ST_DROP_VLAN);
	frame(&b, mac_bcast, mac_a, 30); /* nor is 30 on the trunk */
	assert_int_equal(run_on(1, &b, false).reason, FP_BR_ST_DROP_VLAN);
	assert_int_equal(stat(FP_BR_ST_DROP_VLAN), 2);
	assert_int_equal(stat(FP_BR_ST_LEARNED), 0);
}

static void test_fdb_per_vlan(void **state)
{
	struct fp_br_key k = { .vlan = 10 };
	struct fp_br_fdb v;
	struct result r;
	struct pkt b;

	frame(&b, mac_bcast, mac_a, 0); /* a in VLAN 10, behind port 0 */
	run_on(0, &b, false);
	memcpy(k.mac, mac_a, 6);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(br->maps.fp_br_fdb), &k, &v), 0);
	assert_int_equal(v.ifindex, port[0]);
	/* from the trunk in VLAN 10: forwarded to port 0, still tagged here */
	frame(&b, mac_a, mac_b, 10);
	r = run_on(1, &b, false);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_int_equal(r.reason, FP_BR_ST_FORWARD);
	assert_int_equal(r.out_len, b.len);
	/* in VLAN 20 a is unknown: flooded, not sent to port 0's entry */
	frame(&b, mac_a, mac_b, 20);
	r = run_on(1, &b, false);
	assert_int_equal(r.reason, FP_BR_ST_FLOOD);
}

/* ---- egress: the DEVMAP runs each port's program ------------------------- */

static void test_flood_pops_and_filters(void **state)
{
	struct tap_rec before[N_PORTS], after[N_PORTS];
	struct pkt b;

	for (int i = 0; i < N_PORTS; i++)
		before[i] = tapped(i);
	frame(&b, mac_bcast, mac_b, 10); /* VLAN 10 from the trunk */
	assert_int_equal(run_on(1, &b, true).action, 0); /* live runs return 0 */
	usleep(200000);
	for (int i = 0; i < N_PORTS; i++)
		after[i] = tapped(i);
	assert_int_equal(after[0].frames - before[0].frames, 1);  /* port 0: once ... */
	assert_int_equal(after[0].len, b.len - 4);                  /* ... untagged */
	assert_int_equal(be16_at(after[0].head, 12), 0x0800);
	assert_memory_equal(after[0].head, b.buf, 12);
	assert_int_equal(after[1].frames - before[1].frames, 0);  /* not back out */
	assert_int_equal(after[2].frames - before[2].frames, 0);  /* not VLAN 20's port */
	assert_int_equal(stat(FP_BR_ST_DROP_VLAN_OUT), 1);
}

static void test_untagged_reaches_trunk_tagged(void **state)
{
	struct tap_rec before[N_PORTS], after[N_PORTS];
	struct pkt b;

	for (int i = 0; i < N_PORTS; i++)
		before[i] = tapped(i);
	frame(&b, mac_bcast, mac_a, 0); /* untagged on the VLAN 10 access port */
	run_on(0, &b, true);
	usleep(200000);
	for (int i = 0; i < N_PORTS; i++)
		after[i] = tapped(i);
	assert_int_equal(after[1].frames - before[1].frames, 1);
	assert_int_equal(after[1].len, b.len + 4);
	assert_int_equal(be16_at(after[1].head, 12), 0x8100);
	assert_int_equal(be16_at(after[1].head, 14) & 0xfff, 10);
	assert_int_equal(be16_at(after[1].head, 16), 0x0800);
	assert_int_equal(after[0].frames - before[0].frames, 0);
	assert_int_equal(after[2].frames - before[2].frames, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_untagged_gets_pvid_tag, reset),
		cmocka_unit_test_setup(test_vlan_not_allowed_dropped, reset),
		cmocka_unit_test_setup(test_fdb_per_vlan, reset),
		cmocka_unit_test_setup(test_flood_pops_and_filters, reset),
		cmocka_unit_test_setup(test_untagged_reaches_trunk_tagged, reset),
	};

	return cmocka_run_group_tests_name("bridge_vlan", tests, setup, teardown);
}
