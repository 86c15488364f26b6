// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the lb stage does not forward, and what it tells, on real frames
 * through fp_entry (the fixture of tests/common/lb_fixture.h):
 * - not for a VIP (another address, another port, ICMP echo, ARP): on
 *   down the chain untouched; fragments and malformed packets to a VIP:
 *   dropped, each under its counter, never forwarded;
 * - the chain: a packet not for a VIP reaches the next stage (the tests'
 *   mark stage in slot 4); a forwarded one, or one passed to the stack
 *   encapsulated, does not;
 * - the decision offered to the dump: reason, ident, serial;
 * - per-VIP and per-backend statistics.
 * The choice of backend: lb_flows.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <fastpath/lb_abi.h>
#include "common/pkt.h"
#include "common/lb_fixture.h"
#include "common/lb_frames.h"
#include "entry.skel.h"
#include "lb.skel.h"
#include "mark.skel.h"
#include "stage/mark.h"
#include "common/lb_cases.h"

static void assert_dropped(const struct pkt *b, enum fp_lb_counter c)
{
	uint64_t c0 = lbf_counter(&F, c);

	assert_int_equal(lbf_run(&F, 0, b->buf, b->len, NULL, NULL), XDP_DROP);
	assert_int_equal(lbf_counter(&F, c), c0 + 1);
}

static void test_not_for_a_vip(void **state)
{
	struct pkt b;

	three_backends(0, 80);
	lbt_frame(&b, CLIENT4, "198.51.100.11", 40000, 80, 6, 0, 64, 20);
	assert_not_vip(&b);                                  /* another address */
	lbt_frame(&b, CLIENT4, VIP4, 40000, 81, 6, 0, 64, 20);
	assert_not_vip(&b);                                  /* another port */
	lbt_frame(&b, CLIENT4, VIP4, 40000, 80, 17, 0, 64, 20);
	assert_not_vip(&b);                                  /* another protocol */
	lbt_frame(&b, CLIENT6, VIP6, 40000, 80, 6, 1, 64, 20);
	assert_not_vip(&b);                                  /* IPv6, no VIP */
	pkt_init(&b);                                        /* ICMP echo to the VIP */
	pkt_eth(&b, 0);
	pkt_ipv4(&b, &(struct pkt_ipv4_opts){ .src = CLIENT4, .dst = VIP4, .ttl = 64 });
	pkt_icmp(&b, 8, 0);
	pkt_bytes(&b, "ping", 4);
	assert_int_equal(pkt_finish(&b), 0);
	assert_not_vip(&b);
	pkt_init(&b);                                        /* ARP */
	pkt_eth(&b, PKT_ETH_ARP);
	pkt_bytes(&b, "\x00\x01\x08\x00\x06\x04\x00\x01 arp request bytes", 28);
	assert_int_equal(pkt_finish(&b), 0);
	assert_not_vip(&b);
}

static void test_fragments_dropped(void **state)
{
	struct pkt b;

	three_backends(0, 80);
	/* the first fragment has the ports: the VIP's, dropped */
	pkt_init(&b);
	pkt_eth(&b, 0);
	pkt_ipv4(&b, &(struct pkt_ipv4_opts){ .src = CLIENT4, .dst = VIP4, .ttl = 64, .mf = true });
	pkt_tcp(&b, 40000, 80, PKT_ACK);
	pkt_bytes(&b, "first fragment..", 16);
	assert_int_equal(pkt_finish(&b), 0);
	assert_dropped(&b, FP_LB_C_FRAGMENT);
	/* a later one has no port: a port-any VIP knows it as its own ... */
	pkt_init(&b);
	pkt_eth(&b, 0);
	pkt_ipv4(&b, &(struct pkt_ipv4_opts){ .src = CLIENT4, .dst = VIP4, .ttl = 64, .proto = 6,
					      .frag_off = 3 });
	pkt_bytes(&b, "a later fragment", 16);
	assert_int_equal(pkt_finish(&b), 0);
	assert_not_vip(&b); /* ... a VIP of one port cannot: it is not the lb's */
	three_backends(FP_LB_VIP_PORT_ANY, 0);
	assert_dropped(&b, FP_LB_C_FRAGMENT);
	/* IPv6: a first fragment behind a fragment header */
	assert_int_equal(lbf_vip(&F, VIP6, 80, 17, 0, 3, TSIZE, 0), 0);
	pkt_init(&b);
	pkt_eth(&b, 0);
	pkt_ipv6(&b, &(struct pkt_ipv6_opts){ .src = CLIENT6, .dst = VIP6, .hop_limit = 64 });
	pkt_ipv6_frag(&b, 0, true, 77);
	pkt_udp(&b, 40000, 80);
	pkt_bytes(&b, "first fragment..", 16);
	assert_int_equal(pkt_finish(&b), 0);
	assert_dropped(&b, FP_LB_C_FRAGMENT);
}

static void test_malformed_dropped(void **state)
{
	struct pkt b;

	three_backends(0, 80);
	/* the TCP header cut short by the frame's end */
	lbt_frame(&b, CLIENT4, VIP4, 40000, 80, 6, 0, 64, 0);
	pkt_truncate(&b, (size_t)b.l4 + 10);
	assert_dropped(&b, FP_LB_C_MALFORMED);
	/* ... by the datagram's length */
	lbt_frame(&b, CLIENT4, VIP4, 40000, 80, 6, 0, 64, 0);
	pkt_set16(&b, (size_t)b.l3 + 2, 20 + 12);
	assert_dropped(&b, FP_LB_C_MALFORMED);
	/* a data offset below the header */
	lbt_frame(&b, CLIENT4, VIP4, 40000, 80, 6, 0, 64, 20);
	pkt_set8(&b, (size_t)b.l4 + 12, 2 << 4);
	assert_dropped(&b, FP_LB_C_MALFORMED);
	/* a datagram longer than the frame (its tail lost) */
	lbt_frame(&b, CLIENT4, VIP4, 40000, 80, 6, 0, 64, 20);
	pkt_set16(&b, (size_t)b.l3 + 2, (uint16_t)(b.len - (size_t)b.l3 + 8));
	assert_dropped(&b, FP_LB_C_MALFORMED);
}

/* A dump marked as running (its tap slot empty: each stage goes on by
 * itself), so that fp_stage_end writes the verdict's slot and action. */
static void dump_running(int on)
{
	struct fp_ctl ctl = { .enabled = 1u << FP_STAGE_LB, .dump = on ? FP_CTL_DUMP_ACTIVE : 0 };
	__u32 zero = 0;

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(F.entry->maps.fp_ctl), &zero, &ctl, 0), 0);
}

/* What the dump is offered, read from this CPU's parse. */
static struct fp_verdict last_verdict(void)
{
	int n = libbpf_num_possible_cpus();
	struct fp_pkt *all = calloc(n, sizeof(*all));
	struct fp_verdict v;
	__u32 zero = 0;

	assert_non_null(all);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(F.entry->maps.fp_scratch), &zero, all), 0);
	v = all[F.cpu].verdict;
	free(all);
	return v;
}

static void test_verdict_and_stats(void **state)
{
	struct fp_lb_stats v0, b0, v1, b1;
	struct fp_verdict v;
	uint16_t next = 32000, p;
	struct pkt b;
	int be;

	three_backends(0, 80);
	p = port_for(BA, &next);   /* the backend of XDP_TX */
	v0 = lbf_vip_stats(&F, 2);
	be = sent_to(CLIENT4, p, 80, NULL);
	assert_int_equal(be, BA);
	b0 = lbf_be_stats(&F, be);
	dump_running(1);
	assert_int_equal(sent_to(CLIENT4, p, 80, NULL), be);
	dump_running(0);
	v = last_verdict();
	assert_int_equal(v.reason, FP_LB_C_FORWARD_TX);
	assert_int_equal(v.slot, FP_STAGE_LB);
	assert_int_equal(v.action, XDP_TX);
	assert_int_equal(v.ident, (uint64_t)2 << 32 | (uint32_t)be);
	assert_int_equal(v.serial, 0x0005); /* the VIP's serial, low 16 bits */
	v1 = lbf_vip_stats(&F, 2);
	b1 = lbf_be_stats(&F, be);
	lbt_frame(&b, CLIENT4, VIP4, p, 80, 6, 0, 64, 20);
	assert_int_equal(v1.packets, v0.packets + 2);
	assert_int_equal(v1.bytes, v0.bytes + 2 * (b.len - 14));
	assert_int_equal(v1.new_flows, v0.new_flows + 1);
	assert_int_equal(v1.conn_hits, v0.conn_hits + 1);
	assert_int_equal(b1.packets, b0.packets + 1);
	assert_int_equal(b1.conn_hits, b0.conn_hits + 1);
	/* not a VIP: reason NOT_VIP, no VIP, no backend */
	lbt_frame(&b, CLIENT4, "198.51.100.99", 40000, 80, 6, 0, 64, 20);
	assert_int_equal(lbf_run(&F, 0, b.buf, b.len, NULL, NULL), XDP_PASS);
	v = last_verdict();
	assert_int_equal(v.reason, FP_LB_C_NOT_VIP);
	assert_int_equal(v.ident, ~0ull);
	assert_int_equal(v.serial, 0);
}

/* How many packets the mark stage in slot 4 has seen. */
static uint64_t mark_seen(struct mark_bpf *m)
{
	int n = libbpf_num_possible_cpus();
	struct mark_counts *all = calloc(n, sizeof(*all));
	uint64_t sum = 0;
	__u32 zero = 0;

	assert_non_null(all);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(m->maps.mark_cnt), &zero, all), 0);
	for (int c = 0; c < n; c++)
		sum += all[c].in;
	free(all);
	return sum;
}

static void test_chain_after_lb(void **state)
{
	static const char *names[] = { "fp_stages", "fp_scratch", "fp_ctl" };
	struct fp_ctl ctl = { .enabled = 1u << FP_STAGE_LB | 1u << 4 };
	struct mark_bpf *m;
	uint16_t next = 33000;
	__u32 slot = 4, zero = 0;
	uint64_t seen;
	struct pkt b;
	int fd, act;

	three_backends(0, 80);
	m = mark_bpf__open();
	assert_non_null(m);
	m->rodata->slot = 4;
	for (int i = 0; i < 3; i++)
		assert_int_equal(bpf_map__reuse_fd(bpf_object__find_map_by_name(m->obj, names[i]),
						   bpf_map__fd(bpf_object__find_map_by_name(
							   F.entry->obj, names[i]))),
				 0);
	assert_int_equal(mark_bpf__load(m), 0);
	fd = bpf_program__fd(m->progs.fp_mark);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(F.entry->maps.fp_stages), &slot, &fd, 0), 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(F.entry->maps.fp_ctl), &zero, &ctl, 0), 0);

	/* not for a VIP: on to slot 4 */
	seen = mark_seen(m);
	lbt_frame(&b, CLIENT4, "198.51.100.99", 40000, 80, 6, 0, 64, 20);
	assert_int_equal(lbf_run(&F, 0, b.buf, b.len, NULL, NULL), XDP_PASS);
	assert_int_equal(mark_seen(m), seen + 1);
	/* forwarded (XDP_TX), and passed to the stack encapsulated: the chain ends */
	assert_int_equal(sent_to(CLIENT4, port_for(BA, &next), 80, &act), BA);
	assert_int_equal(act, XDP_TX);
	assert_int_equal(sent_to(CLIENT4, port_for(BC, &next), 80, &act), BC);
	assert_int_equal(act, XDP_PASS);
	assert_int_equal(mark_seen(m), seen + 1);

	assert_int_equal(bpf_map_delete_elem(bpf_map__fd(F.entry->maps.fp_stages), &slot), 0);
	ctl.enabled = 1u << FP_STAGE_LB;
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(F.entry->maps.fp_ctl), &zero, &ctl, 0), 0);
	mark_bpf__destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_for_a_vip),
		cmocka_unit_test(test_fragments_dropped),
		cmocka_unit_test(test_malformed_dropped),
		cmocka_unit_test(test_verdict_and_stats),
		cmocka_unit_test(test_chain_after_lb),
	};

	return cmocka_run_group_tests_name("lb_verdicts", tests, lbc_setup, lbc_teardown);
}
