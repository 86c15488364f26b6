// SPDX-License-Identifier: BSD-2-Clause
/*
 * The lb stage's way out, on real frames through fp_entry (BPF_PROG_TEST_RUN,
 * the fib lookups answered by routes and static neighbours in a namespace
 * of the test's own, tests/common/lb_fixture.h):
 * - a client's packet to a VIP leaves encapsulated, compared byte by byte
 *   with the frame written out here (outer header, checksums, the client's
 *   TTL one lower, its L4 untouched): IPv4 in IPv4, IPv6 in IPv6, IPv4 in
 *   IPv6; TCP and UDP; no tag, one, two;
 * - XDP_TX when the route leaves by the ingress port, XDP_REDIRECT through
 *   lb_tx_ports to another, a drop when that port is not in lb_tx_ports;
 *   no neighbour: passed to the stack encapsulated; no route: dropped;
 * - the next hop kept a second: a neighbour's new MAC shows after that;
 * - TTL 1 (or 0) answered with ICMP time exceeded, bytes and checksums, a
 *   short datagram quoted but for its bytes past a multiple of four;
 *   TTL 2 leaves with 1; at
 *   most 1,000 answers a CPU a second, the rest dropped unanswered;
 * - too big once encapsulated: the ICMP "fragmentation needed" (IPv4, DF)
 *   and ICMPv6 "packet too big" answers, bytes and checksums; without DF
 *   dropped;
 * - an outer source family unset in lb_meta: dropped as an error.
 */
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

#include <fastpath/lb_abi.h>
#include "common/pkt.h"
#include "common/lb_fixture.h"
#include "common/lb_frames.h"
#include "lb.skel.h"

static struct lb_fixture F;
static const uint8_t lb0_mac[6] = { 2, 0, 0, 0, 0x0a, 1 }, lb1_mac[6] = { 2, 0, 0, 0, 0x0a, 2 };
static const uint8_t be4_mac[6] = { 2, 0, 0, 0, 0x0b, 2 }, be6_mac[6] = { 2, 0, 0, 0, 0x0b, 6 };
static const uint8_t be_lb1_mac[6] = { 2, 0, 0, 0, 0x0c, 2 };
static const uint8_t client_mac[6] = { 2, 0, 0, 0, 0, 1 }, us_mac[6] = { 2, 0, 0, 0, 0, 2 };

#define VIP4 "198.51.100.10"
#define VIP6 "2001:db8:100::10"
#define CLIENT4 "192.0.2.7"
#define CLIENT6 "2001:db8:200::7"

static int setup(void **state)
{
	int rc = lbf_open(&F);

	if (rc == -EPERM)
		return 0; /* not root: every case skips */
	return rc;
}

static int teardown(void **state)
{
	lbf_close(&F);
	return 0;
}

/* One VIP (index 1, the given address, TCP and UDP port 80) served by one
 * backend (entry 3) at `be`. */
static void one_backend(const char *vip, const char *be)
{
	uint32_t b = 3;

	if (!F.lb)
		skip();
	assert_int_equal(lbf_reset(&F), 0);
	assert_int_equal(lbf_vip(&F, vip, 80, 6, 0, 1, 13, 7), 0);
	assert_int_equal(lbf_vip(&F, vip, 80, 17, 0, 1, 13, 7), 0);
	assert_int_equal(lbf_backend(&F, 3, be, 1, FP_LB_BE_USED, 1), 0);
	assert_int_equal(lbf_table(&F, 1, 13, &b, NULL, 1), 0);
}

static void assert_frame(const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len)
{
	if (got_len != want_len || memcmp(got, want, want_len)) {
		fprintf(stderr, "got %zu bytes:\n", got_len);
		pkt_hexdump(stderr, got, got_len);
		fprintf(stderr, "want %zu bytes:\n", want_len);
		pkt_hexdump(stderr, want, want_len);
		fail_msg("the frame is not the one expected");
	}
}

/* Sends the client's frame and checks the encapsulated frame, its action
 * and counter. */
static void check_encap(const char *client, const char *vip, uint8_t proto, int n_vlan,
			const char *be, int action, enum fp_lb_counter counter,
			const uint8_t *dmac, const uint8_t *smac)
{
	static uint8_t out[4096], want[4096];
	struct fp_lb_flow fl = lbf_flow(client, vip, 40000, 80, proto, 0);
	uint32_t hash = fp_lb_flow_hash(&fl);
	uint8_t osrc[16], bea[16];
	uint64_t c0 = lbf_counter(&F, counter);
	size_t out_len, want_len, l3;
	struct pkt b;

	lbt_frame(&b, client, vip, 40000, 80, proto, n_vlan, 64, 100);
	lbt_outer_src(lbf_addr(be, bea), hash, osrc);
	want_len = lbt_expect_encap(&b, dmac, smac, be, osrc, hash, want);
	assert_int_equal(lbf_run(&F, 0, b.buf, b.len, out, &out_len), action);
	assert_frame(out, out_len, want, want_len);
	assert_int_equal(lbf_counter(&F, counter), c0 + 1);
	/* checked on their own as well: the outer IPv4 header's checksum ... */
	l3 = (size_t)b.l3;
	if (lbf_addr(be, bea) == 4)
		assert_int_equal(lbf_csum(out + l3, 20, 0), 0);
	/* ... and the client's L4 header and payload, byte for byte */
	assert_memory_equal(out + out_len - (b.len - (size_t)b.l4), b.buf + b.l4,
			    b.len - (size_t)b.l4);
}

static void test_ipip_v4(void **state)
{
	one_backend(VIP4, "10.0.0.2");
	for (int v = 0; v <= 2; v++) {
		check_encap(CLIENT4, VIP4, 6, v, "10.0.0.2", XDP_TX, FP_LB_C_FORWARD_TX, be4_mac,
			    lb0_mac);
		check_encap(CLIENT4, VIP4, 17, v, "10.0.0.2", XDP_TX, FP_LB_C_FORWARD_TX, be4_mac,
			    lb0_mac);
	}
}

static void test_ip6ip6(void **state)
{
	one_backend(VIP6, "2001:db8::2");
	for (int v = 0; v <= 2; v++) {
		check_encap(CLIENT6, VIP6, 6, v, "2001:db8::2", XDP_TX, FP_LB_C_FORWARD_TX,
			    be6_mac, lb0_mac);
		check_encap(CLIENT6, VIP6, 17, v, "2001:db8::2", XDP_TX, FP_LB_C_FORWARD_TX,
			    be6_mac, lb0_mac);
	}
}

static void test_ip4ip6(void **state)
{
	one_backend(VIP4, "2001:db8::2");
	for (int v = 0; v <= 2; v++) {
		check_encap(CLIENT4, VIP4, 6, v, "2001:db8::2", XDP_TX, FP_LB_C_FORWARD_TX,
			    be6_mac, lb0_mac);
		check_encap(CLIENT4, VIP4, 17, v, "2001:db8::2", XDP_TX, FP_LB_C_FORWARD_TX,
			    be6_mac, lb0_mac);
	}
}

/* The route leaves by lb1: redirected through lb_tx_ports, lb1's MACs. */
static void test_redirect_other_port(void **state)
{
	one_backend(VIP4, "10.1.0.2");
	check_encap(CLIENT4, VIP4, 6, 1, "10.1.0.2", XDP_REDIRECT, FP_LB_C_FORWARD_REDIRECT,
		    be_lb1_mac, lb1_mac);
}

/* No neighbour yet: encapsulated, addressed as it came, to the stack. */
static void test_no_neighbour_passes_encapsulated(void **state)
{
	one_backend(VIP4, "10.0.0.3");
	check_encap(CLIENT4, VIP4, 17, 0, "10.0.0.3", XDP_PASS, FP_LB_C_NO_NEIGH, us_mac,
		    client_mac);
}

/* The next hop is the kernel's for a second at most (lb_hops, lb_maps.h):
 * a neighbour changed shows after that, not at once; another backend
 * address in the same entry is looked up afresh. */
static void test_next_hop_cached_a_second(void **state)
{
	static uint8_t out[4096], first[6], cached[6], later[6];
	static const uint8_t moved[6] = { 2, 0, 0, 0, 0x0b, 0x99 };
	size_t out_len;
	struct pkt b;
	int act;

	one_backend(VIP4, "10.0.0.2");
	lbt_frame(&b, CLIENT4, VIP4, 40000, 80, 6, 0, 64, 10);
	assert_int_equal(lbf_run(&F, 0, b.buf, b.len, out, &out_len), XDP_TX);
	memcpy(first, out, 6);
	assert_int_equal(system("ip neigh replace 10.0.0.2 lladdr 02:00:00:00:0b:99 dev lb0 nud permanent"), 0);
	act = lbf_run(&F, 0, b.buf, b.len, out, &out_len);
	memcpy(cached, out, 6);
	usleep(1100 * 1000);
	lbf_run(&F, 0, b.buf, b.len, out, &out_len);
	memcpy(later, out, 6);
	assert_int_equal(system("ip neigh replace 10.0.0.2 lladdr 02:00:00:00:0b:02 dev lb0 nud permanent"), 0);
	assert_int_equal(act, XDP_TX);
	assert_memory_equal(first, be4_mac, 6);
	assert_memory_equal(cached, be4_mac, 6);
	assert_memory_equal(later, moved, 6);
	/* the same entry, another address: its own lookup, its own way out */
	one_backend(VIP4, "10.1.0.2");
	check_encap(CLIENT4, VIP4, 6, 0, "10.1.0.2", XDP_REDIRECT, FP_LB_C_FORWARD_REDIRECT,
		    be_lb1_mac, lb1_mac);
}

static void check_drop(const char *client, const char *vip, uint8_t ttl, enum fp_lb_counter c)
{
	uint64_t c0 = lbf_counter(&F, c);
	struct pkt b;

	lbt_frame(&b, client, vip, 40000, 80, 6, 0, ttl, 100);
	assert_int_equal(lbf_run(&F, 0, b.buf, b.len, NULL, NULL), XDP_DROP);
	assert_int_equal(lbf_counter(&F, c), c0 + 1);
}

static void test_port_not_in_tx_ports(void **state)
{
	one_backend(VIP4, "10.2.0.2");
	check_drop(CLIENT4, VIP4, 64, FP_LB_C_NO_PORT);
}

static void test_no_route(void **state)
{
	one_backend(VIP4, "203.0.113.99");
	check_drop(CLIENT4, VIP4, 64, FP_LB_C_FIB_FAIL);
}

static void test_source_unset_is_error(void **state)
{
	struct fp_lb_meta m;
	__u32 zero = 0;
	int fd;

	one_backend(VIP6, "2001:db8::2");
	fd = bpf_map__fd(F.lb->maps.lb_meta);
	assert_int_equal(bpf_map_lookup_elem(fd, &zero, &m), 0);
	m.flags = FP_LB_META_SRC4;
	assert_int_equal(bpf_map_update_elem(fd, &zero, &m, 0), 0);
	check_drop(CLIENT6, VIP6, 64, FP_LB_C_ERROR);
}

/*
 * The ICMP answer (type, code, the word after the checksum) for client
 * frame b (n_vlan tags): Ethernet back to the client (tags kept), IP from
 * the VIP, ICMP, the client's datagram up to 64 bytes (IPv4) or 128
 * (IPv6), a shorter one less its bytes past a multiple of four.
 */
static size_t expect_icmp(const struct pkt *b, uint8_t type, uint8_t code, uint32_t word,
			  uint8_t *out)
{
	const uint8_t *ip = b->buf + b->l3;
	size_t l2 = (size_t)b->l3, o = l2, dgram = b->len - l2;
	size_t q = b->ip_ver == 4 ? 64 : 128;

	if (dgram < q)
		q = dgram & ~(size_t)3;
	memcpy(out, client_mac, 6);
	memcpy(out + 6, us_mac, 6);
	memcpy(out + 12, b->buf + 12, l2 - 12);                /* tags, ethertype */
	if (b->ip_ver == 4) {
		uint8_t *h = out + o, *icmp = h + 20;

		memset(h, 0, 28);
		h[0] = 0x45;
		lbt_put16(h + 2, (uint16_t)(20 + 8 + q));
		h[8] = 64;
		h[9] = 1;
		memcpy(h + 12, ip + 16, 4);                         /* from the VIP */
		memcpy(h + 16, ip + 12, 4);
		lbt_put16(h + 10, lbf_csum(h, 20, 0));
		icmp[0] = type;
		icmp[1] = code;
		lbt_put16(icmp + 4, (uint16_t)(word >> 16));
		lbt_put16(icmp + 6, (uint16_t)word);
		memcpy(icmp + 8, ip, q);
		lbt_put16(icmp + 2, lbf_csum(icmp, 8 + q, 0));
		return o + 28 + q;
	} else {
		uint8_t *h = out + o, *icmp = h + 40, ph[40];

		memset(h, 0, 48);
		h[0] = 0x60;
		lbt_put16(h + 4, (uint16_t)(8 + q));
		h[6] = 58;
		h[7] = 64;
		memcpy(h + 8, ip + 24, 16);
		memcpy(h + 24, ip + 8, 16);
		icmp[0] = type;
		icmp[1] = code;
		lbt_put16(icmp + 4, (uint16_t)(word >> 16));
		lbt_put16(icmp + 6, (uint16_t)word);
		memcpy(icmp + 8, ip, q);
		memset(ph, 0, sizeof(ph));
		memcpy(ph, h + 8, 32);
		ph[35] = (uint8_t)(8 + q);
		ph[39] = 58;
		{
			uint16_t c = lbf_csum(ph, 40, 0);

			lbt_put16(icmp + 2, lbf_csum(icmp, 8 + q, (uint16_t)~c));
		}
		return o + 48 + q;
	}
}

/* The too-big answer on a path of MTU 1500 through an outer header of
 * `outer` bytes: "fragmentation needed" / "packet too big" with the MTU left. */
static size_t expect_too_big(const struct pkt *b, int outer, uint8_t *out)
{
	return b->ip_ver == 4 ? expect_icmp(b, 3, 4, (uint32_t)(1500 - outer), out)
			      : expect_icmp(b, 2, 0, (uint32_t)(1500 - outer), out);
}

/* Frame b is answered (XDP_TX) with exactly want, counted once under c;
 * an IPv4 answer's IP and ICMP checksums also verified on their own. */
static void check_answer(const struct pkt *b, const uint8_t *want, size_t want_len,
			 enum fp_lb_counter c)
{
	static uint8_t out[4096];
	uint64_t c0 = lbf_counter(&F, c);
	size_t out_len;

	assert_int_equal(lbf_run(&F, 0, b->buf, b->len, out, &out_len), XDP_TX);
	assert_frame(out, out_len, want, want_len);
	assert_int_equal(lbf_counter(&F, c), c0 + 1);
	if (b->ip_ver == 4) {
		assert_int_equal(lbf_csum(out + b->l3, 20, 0), 0);
		assert_int_equal(lbf_csum(out + b->l3 + 20, out_len - (size_t)b->l3 - 20, 0), 0);
	}
}

/* TTL (hop limit) 1 or 0 as it came: answered from the VIP with "time
 * exceeded" / "hop limit exceeded", the datagram quoted (a short one but
 * for its bytes past a multiple of four). */
static void check_time_exceeded(const char *client, const char *vip, uint8_t ttl,
				size_t payload, int n_vlan)
{
	static uint8_t want[4096];
	size_t want_len;
	struct pkt b;

	lbt_frame(&b, client, vip, 40000, 80, 6, n_vlan, ttl, payload);
	want_len = b.ip_ver == 4 ? expect_icmp(&b, 11, 0, 0, want) : expect_icmp(&b, 3, 0, 0, want);
	check_answer(&b, want, want_len, FP_LB_C_TTL_EXPIRED);
}

static void test_ttl(void **state)
{
	static uint8_t out[4096];
	size_t out_len;
	struct pkt b;

	one_backend(VIP4, "10.0.0.2");
	check_time_exceeded(CLIENT4, VIP4, 1, 100, 0);
	check_time_exceeded(CLIENT4, VIP4, 0, 100, 1);
	check_time_exceeded(CLIENT4, VIP4, 1, 0, 0);     /* a SYN's 40 bytes, all quoted */
	check_time_exceeded(CLIENT4, VIP4, 1, 3, 0);     /* 43: 40 quoted */
	lbt_frame(&b, CLIENT4, VIP4, 40000, 80, 6, 0, 2, 10);
	assert_int_equal(lbf_run(&F, 0, b.buf, b.len, out, &out_len), XDP_TX);
	assert_int_equal(out[14 + 20 + 8], 1);                   /* inner TTL */
	assert_int_equal(lbf_csum(out + 14 + 20, 20, 0), 0);     /* inner checksum */
	one_backend(VIP6, "2001:db8::2");
	check_time_exceeded(CLIENT6, VIP6, 1, 100, 0);
	check_time_exceeded(CLIENT6, VIP6, 1, 0, 2);     /* 60 bytes, all quoted */
	check_time_exceeded(CLIENT6, VIP6, 1, 21, 0);    /* 81: 80 quoted */
}

/* lb_icmp_budget's value (src/lb/lb_maps.h, BPF-only) */
struct icmp_budget {
	uint64_t window;
	uint32_t sent, pad;
};

static uint64_t coarse_window(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &t); /* bpf_ktime_get_coarse_ns's clock */
	return ((uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec) >> 30;
}

/* A CPU answers at most 1,000 packets (time exceeded, too big) a window
 * of 2^30 ns; past that, dropped unanswered and still counted. Retried
 * when the window turns during the run. */
static void test_icmp_answers_limited(void **state)
{
	int ncpu = libbpf_num_possible_cpus(), fd = bpf_map__fd(F.lb->maps.lb_icmp_budget), tries;
	struct icmp_budget *v = calloc((size_t)ncpu, sizeof(*v));
	unsigned tx = 0, drop = 0;
	uint64_t c0, w;
	uint32_t zero = 0;
	struct pkt b;

	assert_non_null(v);
	one_backend(VIP4, "10.0.0.2");
	lbt_frame(&b, CLIENT4, VIP4, 40000, 80, 17, 0, 1, 10);
	for (tries = 0; tries < 5; tries++) {
		w = coarse_window();
		for (int c = 0; c < ncpu; c++)
			v[c] = (struct icmp_budget){ .window = w };
		assert_int_equal(bpf_map_update_elem(fd, &zero, v, 0), 0);
		c0 = lbf_counter(&F, FP_LB_C_TTL_EXPIRED);
		tx = drop = 0;
		for (int i = 0; i < 1100; i++) {
			int rc = lbf_run(&F, 0, b.buf, b.len, NULL, NULL);

			tx += rc == XDP_TX;
			drop += rc == XDP_DROP;
		}
		if (coarse_window() == w)
			break;
	}
	assert_true(tries < 5);
	assert_int_equal(tx, 1000);
	assert_int_equal(drop, 100);
	assert_int_equal(lbf_counter(&F, FP_LB_C_TTL_EXPIRED), c0 + 1100);
	/* the next cases' answers a fresh budget (window 0 is long gone) */
	memset(v, 0, (size_t)ncpu * sizeof(*v));
	assert_int_equal(bpf_map_update_elem(fd, &zero, v, 0), 0);
	free(v);
}

static void check_too_big(const char *client, const char *vip, const char *be, int n_vlan,
			  size_t fits, int outer)
{
	static uint8_t want[4096];
	uint64_t tx0 = lbf_counter(&F, FP_LB_C_FORWARD_TX);
	size_t want_len, hdrs;
	struct pkt b;

	one_backend(vip, be);
	/* the largest datagram that fits once encapsulated goes through ... */
	lbt_frame(&b, client, vip, 40000, 80, 6, n_vlan, 64, 0);
	hdrs = b.len - (size_t)b.l3;
	lbt_frame(&b, client, vip, 40000, 80, 6, n_vlan, 64, fits - hdrs);
	assert_int_equal(b.len - (size_t)b.l3, fits);
	assert_int_equal(lbf_run(&F, 0, b.buf, b.len, NULL, NULL), XDP_TX);
	assert_int_equal(lbf_counter(&F, FP_LB_C_FORWARD_TX), tx0 + 1);
	/* ... one byte more is answered */
	lbt_frame(&b, client, vip, 40000, 80, 6, n_vlan, 64, fits - hdrs + 1);
	want_len = expect_too_big(&b, outer, want);
	check_answer(&b, want, want_len, FP_LB_C_TOO_BIG);
}

static void test_too_big_v4(void **state)
{
	check_too_big(CLIENT4, VIP4, "10.0.0.2", 0, 1480, 20);
	check_too_big(CLIENT4, VIP4, "10.0.0.2", 2, 1480, 20);
	check_too_big(CLIENT4, VIP4, "2001:db8::2", 1, 1460, 40); /* 4 in 6 */
}

static void test_too_big_v6(void **state)
{
	check_too_big(CLIENT6, VIP6, "2001:db8::2", 0, 1460, 40);
	check_too_big(CLIENT6, VIP6, "2001:db8::2", 1, 1460, 40);
}

/* IPv4 without DF: a router would fragment it; fragments to a VIP are
 * dropped, so it is dropped and counted as too big, unanswered. */
static void test_too_big_no_df_dropped(void **state)
{
	uint64_t c0 = lbf_counter(&F, FP_LB_C_TOO_BIG);
	struct pkt b;

	one_backend(VIP4, "10.0.0.2");
	lbt_frame(&b, CLIENT4, VIP4, 40000, 80, 17, 0, 64, 1480);
	pkt_set8(&b, (size_t)b.l3 + 6, 0);  /* DF off ... */
	b.buf[b.l3 + 10] = b.buf[b.l3 + 11] = 0;
	lbt_put16(b.buf + b.l3 + 10, lbf_csum(b.buf + b.l3, 20, 0)); /* ... checksum right */
	assert_int_equal(lbf_run(&F, 0, b.buf, b.len, NULL, NULL), XDP_DROP);
	assert_int_equal(lbf_counter(&F, FP_LB_C_TOO_BIG), c0 + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipip_v4),
		cmocka_unit_test(test_ip6ip6),
		cmocka_unit_test(test_ip4ip6),
		cmocka_unit_test(test_redirect_other_port),
		cmocka_unit_test(test_no_neighbour_passes_encapsulated),
		cmocka_unit_test(test_next_hop_cached_a_second),
		cmocka_unit_test(test_port_not_in_tx_ports),
		cmocka_unit_test(test_no_route),
		cmocka_unit_test(test_ttl),
		cmocka_unit_test(test_icmp_answers_limited),
		cmocka_unit_test(test_source_unset_is_error),
		cmocka_unit_test(test_too_big_v4),
		cmocka_unit_test(test_too_big_v6),
		cmocka_unit_test(test_too_big_no_df_dropped),
	};

	return cmocka_run_group_tests_name("lb_forward", tests, setup, teardown);
}
