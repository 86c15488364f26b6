// SPDX-License-Identifier: BSD-2-Clause
/*
 * The steer stage on real frames (BPF_PROG_TEST_RUN through the test
 * pipeline's fp_entry, the stage in slot FP_STAGE_STEER). A test run
 * cannot deliver to an AF_XDP socket, so what is checked is what a
 * capture without its socket sees (one killed with -9):
 * - no capture on the queue: every frame passes, counted unmatched;
 * - a capture's terms on queue 0, no socket: the frames they match pass
 *   on (XDP_PASS, counted no_socket), the others pass counted unmatched,
 *   and the counts add up to the frames run;
 * - qname terms (the DNS question parsed on demand);
 * - its match is the reference matcher's on random rules and frames;
 * - switched off again, nothing matches.
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

#include "common/pkt.h"
#include "common/rand.h"
#include "rules/match_ref.h"
#include "rules/rule.h"
#include "steer/steer.h"
#include "stage/mark_util.h"

static struct fp_pipeline *pl;
static struct fp_steer_fds fds = { -1, -1, -1 };
static int cpu = -1;

static int setup(void **state)
{
	char err[256] = "";
	bool loaded;

	cpu = chain_pin_cpu();
	if (cpu < 0 || fp_pipeline__open_test(&pl, err, sizeof(err)) ||
	    fp_steer__ensure(pl, &loaded, err, sizeof(err)) || !loaded ||
	    fp_steer__fds(pl, &fds, err, sizeof(err))) {
		fprintf(stderr, "steer setup: %s\n", err);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	fp_steer_fds__close(&fds);
	fp_pipeline__close(pl);
	return 0;
}

static void parse_terms(const char *terms, struct fp_rule *r)
{
	char text[512];
	struct fp_diags dg = { 0 };

	snprintf(text, sizeof(text), "pass %s", terms);
	assert_int_equal(fp_rule__parse(text, 1, r, &dg), 0);
	fp_diags__free(&dg);
}

static __u32 run(const struct pkt *b)
{
	return chain_run(fp_pipeline__entry_fd(pl), cpu, b->buf, b->len);
}

static struct fp_steer_counts counts(void)
{
	struct fp_steer_counts c;

	assert_int_equal(fp_steer__counts(&fds, 0, &c), 0);
	return c;
}

static void udp_frame(struct pkt *b, uint16_t dport)
{
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "198.51.100.7", .dst = "192.0.2.2", .ttl = 64 });
	pkt_udp(b, 40000, dport);
	pkt_finish(b);
}

static void tcp_frame(struct pkt *b, uint16_t dport)
{
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "198.51.100.7", .dst = "192.0.2.2", .ttl = 64 });
	pkt_tcp(b, 40000, dport, 0x10);
	pkt_finish(b);
}

static void test_no_capture_passes(void **state)
{
	struct fp_steer_counts a = counts(), b;
	struct pkt f;

	assert_int_equal(fp_steer__clear(&fds, 0), 0);
	udp_frame(&f, 9000);
	for (int i = 0; i < 10; i++)
		assert_int_equal(run(&f), XDP_PASS);
	b = counts();
	assert_int_equal(b.unmatched - a.unmatched, 10);
	assert_int_equal(b.no_socket - a.no_socket, 0);
	assert_int_equal(b.redirected - a.redirected, 0);
}

static void test_match_without_socket_passes_on(void **state)
{
	struct fp_steer_counts a = counts(), b;
	struct fp_rule r;
	struct pkt f;

	parse_terms("udp dport 9000", &r);
	assert_int_equal(fp_steer__set(&fds, 0, &r, getpid()), 0);
	for (int i = 0; i < 30; i++) {
		if (i % 3 == 0)
			udp_frame(&f, 9000);
		else if (i % 3 == 1)
			udp_frame(&f, 9001);
		else
			tcp_frame(&f, 9000);
		assert_int_equal(run(&f), XDP_PASS);
	}
	b = counts();
	assert_int_equal(b.no_socket - a.no_socket, 10);
	assert_int_equal(b.unmatched - a.unmatched, 20);
	assert_int_equal(b.redirected - a.redirected, 0);
	/* off again: the same frames are not matched */
	assert_int_equal(fp_steer__clear(&fds, 0), 0);
	udp_frame(&f, 9000);
	assert_int_equal(run(&f), XDP_PASS);
	a = counts();
	assert_int_equal(a.no_socket, b.no_socket);
	assert_int_equal(a.unmatched, b.unmatched + 1);
}

static void test_qname(void **state)
{
	struct fp_steer_counts a = counts(), b;
	static const char *const names[] = { "www.example.com", "example.com", "a.b.example.com",
					     "example.org" };
	struct fp_rule r;
	struct pkt f;

	parse_terms("udp dport 53 qname *.example.com", &r);
	assert_int_equal(fp_steer__set(&fds, 0, &r, getpid()), 0);
	for (unsigned i = 0; i < 4; i++) {
		pkt_init(&f);
		pkt_eth(&f, 0);
		pkt_ipv4(&f, &(struct pkt_ipv4_opts){ .src = "198.51.100.7", .dst = "192.0.2.2",
						      .ttl = 64 });
		pkt_udp(&f, 5353, 53);
		pkt_dns_query(&f, names[i], 1);
		pkt_finish(&f);
		assert_int_equal(run(&f), XDP_PASS);
	}
	b = counts();
	/* *.example.com: a name below example.com, not example.com itself */
	assert_int_equal(b.no_socket - a.no_socket, 2);
	assert_int_equal(b.unmatched - a.unmatched, 2);
	assert_int_equal(fp_steer__clear(&fds, 0), 0);
}

static void test_match_vs_reference(void **state)
{
	unsigned rules = 200, per = 200;
	uint64_t checked = 0, hits = 0;

	for (unsigned i = 0; i < rules; i++) {
		struct fp_rule rule;
		struct rng r;

		rng_seed(&r, 9100 + i);
		random_rule(&r, i, &rule);
		assert_int_equal(fp_steer__set(&fds, 0, &rule, getpid()), 0);
		for (unsigned p = 0; p < per; p++) {
			uint8_t frame[PKT_MAX];
			struct fp_steer_counts a = counts(), b;
			struct fp_ref_pkt ref;
			struct rng pr;
			size_t len;
			bool want;

			rng_seed2(&pr, 9100 + i, p);
			len = random_packet(&pr, frame, sizeof(frame));
			if (len < 14)
				continue;
			fp_ref__parse(frame, len, &ref);
			want = fp_ref__rule_matches(&rule, &ref);
			assert_int_equal(chain_run(fp_pipeline__entry_fd(pl), cpu, frame, len), XDP_PASS);
			b = counts();
			if (b.no_socket - a.no_socket != want || b.unmatched - a.unmatched != !want) {
				char text[FP_RULE_TEXT];

				fp_rule__format(&rule, text, sizeof(text));
				fprintf(stderr, "steer %s: reference %d, stage no_socket +%llu "
					"unmatched +%llu\n", text, want,
					(unsigned long long)(b.no_socket - a.no_socket),
					(unsigned long long)(b.unmatched - a.unmatched));
				pkt_hexdump(stderr, frame, len);
				fail();
			}
			checked++;
			hits += want;
		}
	}
	assert_int_equal(fp_steer__clear(&fds, 0), 0);
	fprintf(stderr, "steer match: %llu frames agree, %llu matched\n",
		(unsigned long long)checked, (unsigned long long)hits);
	assert_true(hits > checked / 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_capture_passes),
		cmocka_unit_test(test_match_without_socket_passes_on),
		cmocka_unit_test(test_qname),
		cmocka_unit_test(test_match_vs_reference),
	};
	return cmocka_run_group_tests_name("steer_stage", tests, setup, teardown);
}
