// SPDX-License-Identifier: BSD-2-Clause
/*
 * The lb stage's choice of backend, on real frames through fp_entry (the
 * fixture of tests/common/lb_fixture.h; the backend a packet went to is
 * read back from its outer destination):
 * - the connection table keeps a flow on its backend after the VIP's table
 *   is switched; a DOWN backend's flow moves; a DRAIN backend keeps its
 *   flow and gets no new one; an entry of another gen is a miss;
 * - a SYN takes the table's choice even over a recorded 5-tuple;
 * - a hit reads its entry and writes nothing (but its way's used bit);
 * - a full bucket replaces its oldest unused way; a torn way is a miss;
 * - port-any and hash-src VIPs;
 * - an ICMP error about a VIP flow's reply reaches the flow's backend.
 * What the lb does not forward, and what it tells: lb_verdicts.c.
 */
#include <errno.h>
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
#include "common/lb_cases.h"

static void set_backend(uint32_t idx, uint8_t flags, uint32_t gen)
{
	assert_int_equal(lbf_backend(&F, idx, be_addr[idx - BA], 2, flags, gen), 0);
}

static void set_table(const uint32_t *be, size_t n)
{
	assert_int_equal(lbf_table(&F, 2, TSIZE, be, NULL, n), 0);
}

static void test_conn_survives_table_switch(void **state)
{
	uint16_t next = 20000, p;
	struct fp_lb_stats s0, s1;
	int x, y, fresh;

	three_backends(0, 80);
	p = port_for(BA, &next);
	x = sent_to(CLIENT4, p, 80, NULL);
	assert_int_equal(x, BA);
	/* the set changes: a table without BA (BA itself still alive) */
	set_table((const uint32_t[]){ BB, BC }, 2);
	s0 = lbf_vip_stats(&F, 2);
	assert_int_equal(sent_to(CLIENT4, p, 80, NULL), BA);   /* held by lb_conns */
	s1 = lbf_vip_stats(&F, 2);
	assert_int_equal(s1.conn_hits, s0.conn_hits + 1);
	assert_int_equal(s1.new_flows, s0.new_flows);
	/* a new flow follows the new table */
	fresh = port_for(BB, &next);
	y = sent_to(CLIENT4, fresh, 80, NULL);
	assert_int_equal(y, BB);
	assert_int_equal(lbf_vip_stats(&F, 2).new_flows, s1.new_flows + 1);
}

static void test_down_backend_flow_moves(void **state)
{
	uint16_t next = 21000, p, q;
	struct fp_lb_flow fl;
	struct fp_lb_conn c;

	three_backends(0, 80);
	p = port_for(BA, &next);
	q = port_for(BB, &next);
	assert_int_equal(sent_to(CLIENT4, p, 80, NULL), BA);
	assert_int_equal(sent_to(CLIENT4, q, 80, NULL), BB);
	/* BA down, and the table rebuilt without it */
	set_backend(BA, FP_LB_BE_USED | FP_LB_BE_DOWN, 1);
	set_table((const uint32_t[]){ BB, BC }, 2);
	fl = lbf_flow(CLIENT4, VIP4, p, 80, 6, 0);
	assert_int_equal(sent_to(CLIENT4, p, 80, NULL), (int)table_choice(&fl));
	assert_int_equal(lbf_conn(&F, &fl, &c), 0);
	assert_int_equal(c.backend, table_choice(&fl));
	/* the other backends' flows stay where they were */
	assert_int_equal(sent_to(CLIENT4, q, 80, NULL), BB);
	/* down and still in the table (before the user half rebuilds it): no backend */
	set_backend(BB, FP_LB_BE_USED | FP_LB_BE_DOWN, 1);
	{
		uint64_t c0 = lbf_counter(&F, FP_LB_C_NO_BACKEND);
		uint16_t r = port_for(BB, &next);
		int act;

		assert_int_equal(sent_to(CLIENT4, r, 80, &act), -1);
		assert_int_equal(act, XDP_DROP);
		assert_int_equal(lbf_counter(&F, FP_LB_C_NO_BACKEND), c0 + 1);
	}
}

static void test_drain_keeps_flows_takes_no_new(void **state)
{
	uint16_t next = 22000, p, r;
	uint64_t c0;
	int act;

	three_backends(0, 80);
	p = port_for(BA, &next);
	assert_int_equal(sent_to(CLIENT4, p, 80, NULL), BA);
	set_backend(BA, FP_LB_BE_USED | FP_LB_BE_DRAIN, 1);
	/* established: stays; new, table not yet rebuilt: no backend */
	assert_int_equal(sent_to(CLIENT4, p, 80, NULL), BA);
	r = port_for(BA, &next);
	c0 = lbf_counter(&F, FP_LB_C_NO_BACKEND);
	assert_int_equal(sent_to(CLIENT4, r, 80, &act), -1);
	assert_int_equal(act, XDP_DROP);
	assert_int_equal(lbf_counter(&F, FP_LB_C_NO_BACKEND), c0 + 1);
	/* rebuilt without it: the new flow goes elsewhere, the old one stays */
	set_table((const uint32_t[]){ BB, BC }, 2);
	act = sent_to(CLIENT4, r, 80, NULL);
	assert_true(act == BB || act == BC);
	assert_int_equal(sent_to(CLIENT4, p, 80, NULL), BA);
}

/* A SYN is a new connection: the table picks its backend even when the
 * connection table still holds its 5-tuple (a client reusing a source
 * port), so a drained backend gets no new connection that way; the
 * entry then follows the new choice (Katran does the same). */
static void test_syn_takes_the_table(void **state)
{
	static uint8_t out[4096];
	uint16_t next = 22500, p;
	struct fp_lb_flow fl;
	struct fp_lb_conn c;
	size_t out_len;
	struct pkt b;
	uint8_t a[16];

	three_backends(0, 80);
	p = port_for(BA, &next);
	assert_int_equal(sent_to(CLIENT4, p, 80, NULL), BA);
	/* BA drains, and the table is rebuilt without it */
	set_backend(BA, FP_LB_BE_USED | FP_LB_BE_DRAIN, 1);
	set_table((const uint32_t[]){ BB, BC }, 2);
	assert_int_equal(sent_to(CLIENT4, p, 80, NULL), BA); /* established: stays */
	/* the port's next connection: a SYN */
	lbt_frame_flags(&b, CLIENT4, VIP4, p, 80, 6, 0, 64, 0, PKT_SYN);
	assert_int_not_equal(lbf_run(&F, 0, b.buf, b.len, out, &out_len), XDP_DROP);
	fl = lbf_flow(CLIENT4, VIP4, p, 80, 6, 0);
	assert_int_equal(lbf_addr(be_addr[table_choice(&fl) - BA], a), 4);
	assert_memory_equal(out + 14 + 16, a, 4);
	assert_int_equal(lbf_conn(&F, &fl, &c), 0);
	assert_int_equal(c.backend, table_choice(&fl));
	/* and the connection's next packets follow it */
	assert_int_equal(sent_to(CLIENT4, p, 80, NULL), (int)table_choice(&fl));
}

static void test_gen_mismatch_is_miss(void **state)
{
	uint16_t next = 23000, p;
	struct fp_lb_stats s0, s1, b0, b1;
	struct fp_lb_flow fl;
	struct fp_lb_conn c;

	three_backends(0, 80);
	p = port_for(BA, &next);
	fl = lbf_flow(CLIENT4, VIP4, p, 80, 6, 0);
	assert_int_equal(sent_to(CLIENT4, p, 80, NULL), BA);
	assert_int_equal(lbf_conn(&F, &fl, &c), 0);
	assert_int_equal(c.gen, 1);
	/* the entry reused (a backend deleted and another added in its place):
	 * the recorded flow is stale, so the table decides again */
	set_backend(BA, FP_LB_BE_USED, 2);
	set_table((const uint32_t[]){ BB, BC }, 2);
	s0 = lbf_vip_stats(&F, 2);
	b0 = lbf_be_stats(&F, table_choice(&fl));
	assert_int_equal(sent_to(CLIENT4, p, 80, NULL), (int)table_choice(&fl));
	s1 = lbf_vip_stats(&F, 2);
	b1 = lbf_be_stats(&F, table_choice(&fl));
	assert_int_equal(s1.conn_misses, s0.conn_misses + 1);
	assert_int_equal(s1.new_flows, s0.new_flows + 1);
	/* the miss counts for the backend the table gave the flow, too */
	assert_int_equal(b1.conn_misses, b0.conn_misses + 1);
	assert_int_equal(b1.new_flows, b0.new_flows + 1);
	assert_int_equal(lbf_conn(&F, &fl, &c), 0);
	assert_int_equal(c.backend, table_choice(&fl));
}

/* An established flow's packet reads its entry and writes nothing to it
 * (Katran likewise writes on a miss only): the entry holds the flow's hash,
 * recorded with it, and the hit takes the outer source's host bits (the
 * fixture's --src4 is a /24) from there rather than hashing again. */
static void test_hit_reads_the_entry_only(void **state)
{
	static uint8_t out[4096];
	uint16_t next = 23500, p;
	struct fp_lb_conn c, c2;
	struct fp_lb_flow fl;
	size_t out_len;
	struct pkt b;

	three_backends(0, 80);
	p = port_for(BA, &next);
	fl = lbf_flow(CLIENT4, VIP4, p, 80, 6, 0);
	lbt_frame(&b, CLIENT4, VIP4, p, 80, 6, 0, 64, 20);
	assert_int_not_equal(lbf_run(&F, 0, b.buf, b.len, out, &out_len), XDP_DROP);
	assert_int_equal(out[14 + 15], fp_lb_flow_hash(&fl) & 0xff);
	assert_int_equal(lbf_conn(&F, &fl, &c), 0);
	assert_int_equal(c.backend, BA);
	assert_int_equal(c.hash, fp_lb_flow_hash(&fl));
	/* hits leave the entry as it was */
	usleep(2000);
	assert_int_not_equal(lbf_run(&F, 0, b.buf, b.len, out, &out_len), XDP_DROP);
	assert_int_equal(lbf_conn(&F, &fl, &c2), 0);
	assert_memory_equal(&c, &c2, sizeof(c));
	/* and take the hash from it */
	c.hash ^= 0x5a;
	assert_int_equal(lbf_conn_put(&F, &fl, &c), 0);
	assert_int_not_equal(lbf_run(&F, 0, b.buf, b.len, out, &out_len), XDP_DROP);
	assert_int_equal(out[14 + 16], 10); /* still BA, 10.0.0.2 */
	assert_int_equal(out[14 + 19], 2);
	assert_int_equal(out[14 + 15], c.hash & 0xff);
}

/* Five flows of one bucket (lb_conns has FP_LB_WAYS ways a bucket): the
 * first four fill it in order; two of them are hit again; the fifth takes
 * the oldest way no packet used since (second chance), not a used one. */
static void test_full_bucket_replaces_unused_oldest(void **state)
{
	struct fp_lb_flow fl[5];
	struct fp_lb_conn c;
	uint16_t port[5];
	uint32_t bi = 0;
	int n = 0;

	three_backends(0, 80);
	for (uint16_t p = 24000; n < 5 && p < 64000; p++) {
		struct fp_lb_flow x = lbf_flow(CLIENT4, VIP4, p, 80, 6, 0);

		if (n && lbf_conn_bucket(&F, &x) != bi)
			continue;
		bi = lbf_conn_bucket(&F, &x);
		fl[n] = x;
		port[n++] = p;
	}
	assert_int_equal(n, 5);
	for (int i = 0; i < 4; i++)
		assert_true(sent_to(CLIENT4, port[i], 80, NULL) >= BA);
	for (int i = 0; i < 4; i++)
		assert_int_equal(lbf_conn(&F, &fl[i], &c), 0);
	assert_true(sent_to(CLIENT4, port[0], 80, NULL) >= BA); /* hits: used */
	assert_true(sent_to(CLIENT4, port[1], 80, NULL) >= BA);
	assert_true(sent_to(CLIENT4, port[4], 80, NULL) >= BA);
	assert_int_equal(lbf_conn(&F, &fl[2], &c), -ENOENT);    /* the unused oldest */
	assert_int_equal(lbf_conn(&F, &fl[0], &c), 0);
	assert_int_equal(lbf_conn(&F, &fl[1], &c), 0);
	assert_int_equal(lbf_conn(&F, &fl[3], &c), 0);
	assert_int_equal(lbf_conn(&F, &fl[4], &c), 0);
}

/* A way read half written (here: its backend changed, its check not) is a
 * miss: the flow takes the table's choice again and is recorded anew, and
 * never goes to the backend the torn way names. */
static void test_torn_way_is_a_miss(void **state)
{
	uint16_t next = 24500, p = 0;
	struct fp_lb_stats s0, s1;
	struct fp_lb_bucket b;
	struct fp_lb_flow fl;
	struct fp_lb_conn c;
	uint32_t bi;
	int w;

	three_backends(0, 80);
	p = port_for(BA, &next);
	fl = lbf_flow(CLIENT4, VIP4, p, 80, 6, 0);
	assert_int_equal(sent_to(CLIENT4, p, 80, NULL), BA);
	bi = lbf_conn_bucket(&F, &fl);
	assert_int_equal(lbf_bucket(&F, bi, &b), 0);
	for (w = 0; w < FP_LB_WAYS && memcmp(&b.flow[w], &fl, sizeof(fl)); w++)
		;
	assert_true(w < FP_LB_WAYS);
	b.way[w].backend = BB;
	assert_int_equal(lbf_bucket_put(&F, bi, &b), 0);
	s0 = lbf_vip_stats(&F, 2);
	assert_int_equal(sent_to(CLIENT4, p, 80, NULL), BA);
	s1 = lbf_vip_stats(&F, 2);
	assert_int_equal(s1.conn_misses, s0.conn_misses + 1);
	assert_int_equal(s1.new_flows, s0.new_flows + 1);
	assert_int_equal(lbf_conn(&F, &fl, &c), 0);
	assert_int_equal(c.backend, BA);
	assert_int_equal(c.gen, 1);
}

static void test_port_any_vip(void **state)
{
	int a, b;

	three_backends(FP_LB_VIP_PORT_ANY, 0);
	a = sent_to(CLIENT4, 30000, 80, NULL);
	b = sent_to(CLIENT4, 30000, 8443, NULL);
	assert_true(a >= BA && b >= BA);
}

static void test_hash_src_vip(void **state)
{
	struct fp_lb_flow src_only = lbf_flow(CLIENT4, NULL, 0, 0, 0, 1);
	struct fp_lb_conn c;
	int first;

	three_backends(FP_LB_VIP_HASH_SRC, 80);
	first = sent_to(CLIENT4, 31000, 80, NULL);
	assert_true(first >= BA);
	assert_int_equal((uint32_t)first, table_choice(&src_only));
	for (uint16_t p = 31001; p < 31020; p++)
		assert_int_equal(sent_to(CLIENT4, p, 80, NULL), first);
	/* one connection entry for the client, keyed on its address alone */
	assert_int_equal(lbf_conn(&F, &src_only, &c), 0);
	assert_int_equal(c.backend, first);
}

/* An ICMP error from a router about the backend's reply (VIP:80 -> client)
 * reaches the backend of the client's flow, not the table's choice. */
static void check_icmp_error(int v6)
{
	const char *client = v6 ? CLIENT6 : CLIENT4, *vip = v6 ? VIP6 : VIP4;
	const char *router = v6 ? "2001:db8:300::1" : "203.0.113.1";
	static const uint32_t one[1] = { 5 };
	static uint8_t out[4096];
	struct fp_lb_flow fl = lbf_flow(client, vip, 40000, 80, 6, 0);
	uint8_t want_dst[16], want_src[16], got_dst[16];
	uint64_t c0;
	size_t out_len;
	struct pkt reply, b, c;

	assert_int_equal(lbf_reset(&F), 0);
	assert_int_equal(lbf_vip(&F, vip, 80, 6, 0, 4, TSIZE, 0), 0);
	assert_int_equal(lbf_backend(&F, 4, "2001:db8::2", 4, FP_LB_BE_USED, 1), 0);
	assert_int_equal(lbf_backend(&F, 5, "10.1.0.2", 4, FP_LB_BE_USED, 1), 0);
	assert_int_equal(lbf_table(&F, 4, TSIZE, (const uint32_t[]){ 4 }, NULL, 1), 0);
	/* the client's flow goes to entry 4, then the table moves to entry 5 */
	lbt_frame(&c, client, vip, 40000, 80, 6, 0, 64, 20);
	assert_int_equal(lbf_run(&F, 0, c.buf, c.len, NULL, NULL), XDP_TX);
	assert_int_equal(lbf_table(&F, 4, TSIZE, one, NULL, 1), 0);
	/* the backend's reply, quoted by a router's error sent to the VIP */
	lbt_frame(&reply, vip, client, 80, 40000, 6, 0, 60, 20);
	pkt_init(&b);
	pkt_eth(&b, 0);
	if (v6) {
		pkt_ipv6(&b, &(struct pkt_ipv6_opts){ .src = router, .dst = vip, .hop_limit = 64 });
		pkt_icmp6(&b, 2, 0);
	} else {
		pkt_ipv4(&b, &(struct pkt_ipv4_opts){ .src = router, .dst = vip, .ttl = 64 });
		pkt_icmp(&b, 3, 4);
	}
	pkt_bytes(&b, reply.buf + reply.l3, (size_t)(reply.l4 - reply.l3) + 8);
	assert_int_equal(pkt_finish(&b), 0);
	c0 = lbf_counter(&F, FP_LB_C_ICMP_FLOW);
	assert_int_equal(lbf_run(&F, 0, b.buf, b.len, out, &out_len), XDP_TX);
	assert_int_equal(lbf_counter(&F, FP_LB_C_ICMP_FLOW), c0 + 1);
	/* IPv6 outer (entry 4, not the table's 5), from the flow's outer source */
	assert_int_equal(out[12] << 8 | out[13], 0x86dd);
	memcpy(got_dst, out + 14 + 24, 16);
	lbf_addr("2001:db8::2", want_dst);
	assert_memory_equal(got_dst, want_dst, 16);
	lbt_outer_src(6, fp_lb_flow_hash(&fl), want_src);
	assert_memory_equal(out + 14 + 8, want_src, 16);
	/* the ICMP message itself travels untouched */
	assert_memory_equal(out + out_len - (b.len - (size_t)b.l4), b.buf + b.l4,
			    b.len - (size_t)b.l4);
	/* an error quoting something else to the VIP is not the lb's */
	b.buf[b.l4 + 8 + (v6 ? 40 : 20)] ^= 0xff;           /* the quote's source port */
	if (!v6) {
		b.buf[b.l4 + 2] = b.buf[b.l4 + 3] = 0;
		lbt_put16(b.buf + b.l4 + 2, lbf_csum(b.buf + b.l4, b.len - (size_t)b.l4, 0));
	}
	assert_not_vip(&b);
}

static void test_icmp_error_reaches_flow_backend(void **state)
{
	if (!F.lb)
		skip();
	check_icmp_error(0);
	check_icmp_error(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conn_survives_table_switch),
		cmocka_unit_test(test_down_backend_flow_moves),
		cmocka_unit_test(test_drain_keeps_flows_takes_no_new),
		cmocka_unit_test(test_syn_takes_the_table),
		cmocka_unit_test(test_gen_mismatch_is_miss),
		cmocka_unit_test(test_hit_reads_the_entry_only),
		cmocka_unit_test(test_full_bucket_replaces_unused_oldest),
		cmocka_unit_test(test_torn_way_is_a_miss),
		cmocka_unit_test(test_port_any_vip),
		cmocka_unit_test(test_hash_src_vip),
		cmocka_unit_test(test_icmp_error_reaches_flow_backend),
	};

	return cmocka_run_group_tests_name("lb_flows", tests, lbc_setup, lbc_teardown);
}
