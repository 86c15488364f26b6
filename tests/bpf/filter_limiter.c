// SPDX-License-Identifier: BSD-2-Clause
/*
 * The limiter's buckets and clock, through the real pipeline
 * (BPF_PROG_TEST_RUN), read back from the fp_flt_lim map:
 * - a `by src` key holds the packet's own address and nothing of the packet
 *   before it on the CPU (fp_pkt is per-CPU scratch: an IPv4 source once got
 *   a new bucket after each IPv6 packet, its key's bytes 4..15 left from the
 *   IPv6 address); a frame without IP is keyed on zeros, not on the last IP
 *   packet's addresses;
 * - in test mode the limiter's time is the one user space sets (`filter
 *   test`: the capture's), so packets 1 s apart conform to `limit 1/s`.
 * All runs on one CPU, so that each packet does see the last one's scratch.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include <bpf/bpf.h>

#include "common/pkt.h"
#include "common/filter_fixture.h"
#include "filter/compile.h"
#include "filter/filter_internal.h"

enum { XDP_DROP_ = 1, XDP_PASS_ = 2 };

static struct fp_filter *filter;
static cpu_set_t was;

static int setup(void **state)
{
	cpu_set_t one;

	/* one CPU: one fp_pkt scratch for every run, as on a busy live CPU */
	if (sched_getaffinity(0, sizeof(was), &was))
		return -1;
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &was)) {
			CPU_SET(c, &one);
			break;
		}
	if (sched_setaffinity(0, sizeof(one), &one))
		return -1;
	return filter_fixture_open(&filter);
}

static int teardown(void **state)
{
	fp_filter__close(filter);
	sched_setaffinity(0, sizeof(was), &was);
	return 0;
}

/* Applies text (one rule) with empty buckets; *ident: the rule's ident. */
static void apply_one(const char *text, uint64_t *ident)
{
	struct fp_flt_lim_key k;
	struct fp_ruleset set;
	struct fp_diags d = { 0 };
	char err[512], canon[FP_RULE_TEXT];

	assert_int_equal(fp_ruleset__parse(text, strlen(text), &set, &d), 0);
	assert_int_equal(set.n, 1);
	if (fp_filter__apply(filter, &set, err, sizeof(err))) {
		fprintf(stderr, "apply: %s\n", err);
		fail();
	}
	assert_int_equal(fp_rule__format(&set.rules[0], canon, sizeof(canon)) > 0, 1);
	*ident = fp_rule_ident(canon);
	fp_ruleset__free(&set);
	while (bpf_map_get_next_key(filter->lim_fd, NULL, &k) == 0) {
		assert_int_equal(bpf_map_delete_elem(filter->lim_fd, &k), 0);
	}
}

/* The buckets of the rule, at most max of them. */
static size_t buckets(uint64_t ident, struct fp_flt_lim_key *out, size_t max)
{
	struct fp_flt_lim_key k, prev;
	size_t n = 0;
	int r = bpf_map_get_next_key(filter->lim_fd, NULL, &k);

	while (r == 0) {
		if (k.ident == ident) {
			assert_true(n < max);
			out[n++] = k;
		}
		prev = k;
		r = bpf_map_get_next_key(filter->lim_fd, &prev, &k);
	}
	return n;
}

static void run(struct pkt *b, uint32_t *verdict)
{
	uint32_t v, rule;

	assert_int_equal(fp_filter__run(filter, b->buf, b->len, &v, &rule), 0);
	assert_int_equal(rule, 0); /* the one rule decided */
	if (verdict)
		*verdict = v;
}

static void udp4(struct pkt *b, const char *src)
{
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = src, .dst = "198.51.100.1", .ttl = 64 });
	pkt_udp(b, 4000, 53);
	assert_int_equal(pkt_finish(b), 0);
}

static void tcp6(struct pkt *b, const char *src)
{
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv6(b, &(struct pkt_ipv6_opts){ .src = src, .dst = "2001:db8::1", .hop_limit = 64 });
	pkt_tcp(b, 5555, 443, PKT_SYN);
	assert_int_equal(pkt_finish(b), 0);
}

static void arp(struct pkt *b)
{
	static const uint8_t body[28] = { 0, 1, 8, 0, 6, 4, 0, 1 };

	pkt_init(b);
	pkt_eth(b, 0);
	pkt_next(b, PKT_ETH_ARP);
	pkt_bytes(b, body, sizeof(body));
	assert_int_equal(pkt_finish(b), 0);
}

static void icmp4(struct pkt *b)
{
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "192.0.2.9", .dst = "198.51.100.1", .ttl = 64 });
	pkt_icmp(b, 8, 0);
	assert_int_equal(pkt_finish(b), 0);
}

static const uint8_t zero16[16];

static void assert_v4_key(const struct fp_flt_lim_key *k, const uint8_t *addr4)
{
	assert_int_equal(k->l3, 4);
	assert_memory_equal(k->src, addr4, 4);
	assert_memory_equal(k->src + 4, zero16, 12);
}

/* IPv6 sources whose bytes 4..15 differ, each followed by one IPv4 source:
 * that source has one bucket, its key the address and zeros. */
static void test_ipv4_after_ipv6_one_bucket(void **state)
{
	static const char *const v6[] = { "2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff",
					  "2001:db8:1111:2222:3333:4444:5555:6666",
					  "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff" };
	struct fp_flt_lim_key keys[16];
	uint8_t a4[4];
	uint64_t ident;
	struct pkt b6, b4;
	size_t n, n4 = 0;

	if (!filter)
		skip();
	apply_one("limit 1000/s burst 100 by src id per-src\n", &ident);
	inet_pton(AF_INET, "192.0.2.77", a4);
	udp4(&b4, "192.0.2.77");
	for (size_t i = 0; i < 3; i++) {
		tcp6(&b6, v6[i]);
		run(&b6, NULL);
		run(&b4, NULL);
		/* what the limiter recorded for this run is the key it used */
		assert_int_equal(fp_filter__last(filter)->lim.ident, ident);
		assert_v4_key(&fp_filter__last(filter)->lim, a4);
	}
	n = buckets(ident, keys, 16);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(keys[i].by, FP_FLT_BY_SRC);
		assert_memory_equal(keys[i].dst, zero16, 16);
		if (keys[i].l3 == 4 || memcmp(keys[i].src, a4, 4) == 0) {
			assert_v4_key(&keys[i], a4);
			n4++;
		}
	}
	assert_int_equal(n4, 1);      /* one bucket for the IPv4 source */
	assert_int_equal(n, 1 + 3);   /* and one for each IPv6 source */
}

/* A frame without IP after IP packets: one bucket keyed on zeros (l3 0, no
 * address), by src and by flow alike; not the last IP packet's. */
static void test_non_ip_keyed_on_zeros(void **state)
{
	static const char *const rules[] = { "limit 1000/s burst 100 by src id s\n",
					     "limit 1000/s burst 100 by flow id f\n" };
	struct fp_flt_lim_key keys[8], want;
	struct pkt b4, b6, ba;
	uint64_t ident;
	size_t n;

	if (!filter)
		skip();
	udp4(&b4, "192.0.2.5");
	tcp6(&b6, "2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff");
	arp(&ba);
	for (size_t r = 0; r < 2; r++) {
		apply_one(rules[r], &ident);
		run(&b4, NULL);
		run(&ba, NULL);
		run(&b6, NULL);
		run(&ba, NULL);
		memset(&want, 0, sizeof(want));
		want.ident = ident;
		want.by = r ? FP_FLT_BY_FLOW : FP_FLT_BY_SRC;
		assert_memory_equal(&fp_filter__last(filter)->lim, &want, sizeof(want));
		n = buckets(ident, keys, 8);
		assert_int_equal(n, 3); /* the IPv4, the IPv6 and the non-IP bucket */
		for (size_t i = 0; i < n; i++)
			if (keys[i].l3 == 0)
				assert_memory_equal(&keys[i], &want, sizeof(want));
	}
}

/* by flow: an IPv6 packet whose upper layer is unknown (an extension
 * header longer than the datagram), after a TCP one: no proto, no ports. */
static void test_flow_key_without_upper_layer(void **state)
{
	struct fp_flt_lim_key want = { .by = FP_FLT_BY_FLOW, .l3 = 6 };
	struct pkt b6, bx;
	uint64_t ident;

	if (!filter)
		skip();
	apply_one("limit 1000/s burst 100 by flow id f\n", &ident);
	tcp6(&b6, "2001:db8::7");
	pkt_init(&bx);
	pkt_eth(&bx, 0);
	pkt_ipv6(&bx, &(struct pkt_ipv6_opts){ .src = "2001:db8::7", .dst = "2001:db8::1",
					       .hop_limit = 64 });
	pkt_ipv6_ext(&bx, PKT_IP6_DEST, 0);
	pkt_udp(&bx, 5555, 443);
	assert_int_equal(pkt_finish(&bx), 0);
	pkt_set8(&bx, bx.l3 + 40 + 1, 200); /* its length: past the datagram */
	run(&b6, NULL);
	assert_int_equal(fp_filter__last(filter)->lim.proto, 6);
	assert_int_equal(fp_filter__last(filter)->lim.dport, 443);
	run(&bx, NULL);
	want.ident = ident;
	inet_pton(AF_INET6, "2001:db8::7", want.src);
	inet_pton(AF_INET6, "2001:db8::1", want.dst);
	assert_memory_equal(&fp_filter__last(filter)->lim, &want, sizeof(want));
}

/* n ICMP packets `gap_ns` apart on the test clock: how many were dropped. */
static unsigned drops_at(uint64_t gap_ns, unsigned n)
{
	uint64_t ident;
	unsigned drops = 0;
	uint32_t v;
	struct pkt b;

	apply_one("limit 1/s burst 1 icmp id ping\n", &ident);
	icmp4(&b);
	for (unsigned i = 0; i < n; i++) {
		fp_filter__set_test_clock(filter, 5000000000ull + i * gap_ns);
		run(&b, &v);
		drops += v == XDP_DROP_;
	}
	return drops;
}

/*
 * GCRA at 1/s, burst 1 (tau 0): the first packet conforms and sets the
 * theoretical arrival time to t + 1 s; a later one conforms when it comes no
 * earlier than that, and moves it 1 s on. 1 s apart: every packet conforms.
 * 10 ms apart (all within 190 ms): only the first. 500 ms apart: every
 * other one, the first included: 10 of 20 dropped.
 */
static void test_clock_from_user_space(void **state)
{
	if (!filter)
		skip();
	assert_int_equal(drops_at(1000000000ull, 20), 0);
	assert_int_equal(drops_at(10000000ull, 20), 19);
	assert_int_equal(drops_at(500000000ull, 20), 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_after_ipv6_one_bucket),
		cmocka_unit_test(test_non_ip_keyed_on_zeros),
		cmocka_unit_test(test_flow_key_without_upper_layer),
		cmocka_unit_test(test_clock_from_user_space),
	};
	return cmocka_run_group_tests_name("filter_limiter", tests, setup, teardown);
}
