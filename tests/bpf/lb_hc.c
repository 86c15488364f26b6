// SPDX-License-Identifier: BSD-2-Clause
/*
 * The health checker's tc egress program (src/lb/lb_hc.bpf.c) on real
 * frames through BPF_PROG_TEST_RUN (SCHED_CLS, the skb's mark set in its
 * context): a probe marked FP_LB_HC_MARK + i comes out with the outer
 * header to backend i in front, compared byte by byte with the frame
 * written out here (IPv4 in IPv4 with its checksum, IPv6 in IPv6, IPv4 in
 * IPv6 with the ethertype changed), the probe's own datagram untouched,
 * the mark cleared and TC_ACT_REDIRECT (bpf_redirect_neigh); an unmarked
 * frame, or a mark outside the range, goes on untouched (TC_ACT_OK); a
 * mark whose backend is unset, or a marked frame that is not IP, is
 * dropped and counted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common/pkt.h"
#include "lb/lb_hc.h"
#include "lb_hc.skel.h"

static struct lb_hc_bpf *skel;

#define VIP4 "198.51.100.10"
#define VIP6 "2001:db8:100::10"

static int setup(void **state)
{
	skel = lb_hc_bpf__open_and_load();
	return 0; /* not root, or no BPF: every case skips */
}

static int teardown(void **state)
{
	lb_hc_bpf__destroy(skel);
	return 0;
}

static void set_real(uint32_t idx, int fam, const char *dst, const char *src, uint32_t ifindex)
{
	struct fp_lb_hc_real r = { .family = (uint8_t)fam, .ifindex = ifindex };

	assert_int_equal(inet_pton(fam == 4 ? AF_INET : AF_INET6, dst, r.dst), 1);
	assert_int_equal(inet_pton(fam == 4 ? AF_INET : AF_INET6, src, r.src), 1);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(skel->maps.lb_hc_reals), &idx, &r, 0), 0);
}

static uint64_t counter(enum fp_lb_hc_counter c)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t v[ncpu > 0 ? ncpu : 1], sum = 0;
	uint32_t k = c;

	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(skel->maps.lb_hc_counters), &k, v), 0);
	for (int i = 0; i < ncpu; i++)
		sum += v[i];
	return sum;
}

/* A probe's SYN from `src` to VIP:8080 as the stack hands it to tc egress. */
static void probe(struct pkt *b, const char *src, const char *dst)
{
	static const uint8_t dmac[6] = { 2, 0, 0, 0, 0, 9 }, smac[6] = { 2, 0, 0, 0, 0, 1 };

	pkt_init(b);
	pkt_eth_mac(b, dmac, smac, 0);
	if (strchr(src, ':'))
		pkt_ipv6(b, &(struct pkt_ipv6_opts){ .src = src, .dst = dst, .hop_limit = 64,
						     .tclass = 0xb8, .flow = 0x12345 });
	else
		pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = src, .dst = dst, .ttl = 64,
						     .tos = 0x2e, .id = 0x1234, .df = true });
	pkt_tcp(b, 40000, 8080, PKT_SYN);
	pkt_bytes(b, "probe", 5);
	assert_int_equal(pkt_finish(b), 0);
}

/* Runs the program on frame with mark; the verdict, out and the mark after. */
static int run(const struct pkt *b, uint32_t mark, uint8_t *out, uint32_t *out_len,
	       uint32_t *mark_after)
{
	struct __sk_buff ctx = { .mark = mark }, ctx_out = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = b->buf, .data_size_in = (uint32_t)b->len,
		    .data_out = out, .data_size_out = PKT_MAX, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .ctx_out = &ctx_out, .ctx_size_out = sizeof(ctx_out));

	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.fp_lb_hc), &o), 0);
	*out_len = o.data_size_out;
	*mark_after = ctx_out.mark;
	return (int)o.retval;
}

static uint16_t csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* The frame the program must make: the probe's Ethernet header (its
 * ethertype the outer header's), the outer header written field by field,
 * then the probe's datagram as it was. */
static size_t expect(const struct pkt *b, int fam, const char *dst, const char *src, uint8_t *w)
{
	size_t in_len = b->len - 14, ol = fam == 4 ? 20 : 40;
	uint8_t next = b->ip_ver == 4 ? 4 : 41, tos;
	uint8_t *h = w + 14;

	memcpy(w, b->buf, 12);
	w[12] = fam == 4 ? 0x08 : 0x86;
	w[13] = fam == 4 ? 0x00 : 0xdd;
	tos = b->ip_ver == 4 ? b->buf[15] : (uint8_t)(b->buf[14] << 4 | b->buf[15] >> 4);
	memset(h, 0, ol);
	if (fam == 4) {
		uint16_t tot = (uint16_t)(in_len + 20), c;

		h[0] = 0x45;
		h[1] = tos;
		h[2] = tot >> 8;
		h[3] = tot & 0xff;
		h[6] = 0x40;            /* DF */
		h[8] = 64;              /* TTL */
		h[9] = next;
		inet_pton(AF_INET, src, h + 12);
		inet_pton(AF_INET, dst, h + 16);
		c = csum(h, 20);
		h[10] = c >> 8;
		h[11] = c & 0xff;
	} else {
		h[0] = 0x60 | tos >> 4;
		h[1] = (uint8_t)(tos << 4);
		h[4] = (uint8_t)(in_len >> 8);
		h[5] = in_len & 0xff;
		h[6] = next;
		h[7] = 64;              /* hop limit */
		inet_pton(AF_INET6, src, h + 8);
		inet_pton(AF_INET6, dst, h + 24);
	}
	memcpy(h + ol, b->buf + 14, in_len);
	return 14 + ol + in_len;
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

static void check_encap(const char *probe_src, const char *vip, uint32_t idx, int fam,
			const char *be, const char *osrc)
{
	static uint8_t out[PKT_MAX], want[PKT_MAX];
	uint64_t c0 = counter(FP_LB_HC_C_ENCAP);
	uint32_t out_len, mark;
	size_t want_len;
	struct pkt b;

	if (!skel)
		skip();
	set_real(idx, fam, be, osrc, 7);
	probe(&b, probe_src, vip);
	want_len = expect(&b, fam, be, osrc, want);
	assert_int_equal(run(&b, FP_LB_HC_MARK + idx, out, &out_len, &mark), TC_ACT_REDIRECT);
	assert_frame(out, out_len, want, want_len);
	assert_int_equal(mark, 0); /* not taken again on the way out */
	assert_int_equal(counter(FP_LB_HC_C_ENCAP), c0 + 1);
	if (fam == 4) /* the outer checksum, on its own */
		assert_int_equal(csum(out + 14, 20), 0);
}

static void test_ipip_v4(void **state)
{
	check_encap("10.8.0.2", VIP4, 5, 4, "10.8.0.11", "10.8.0.2");
}

static void test_ip6ip6(void **state)
{
	check_encap("fd00:8::2", VIP6, 9, 6, "fd00:8::11", "fd00:8::2");
}

static void test_ipip_4in6(void **state)
{
	check_encap("10.8.0.2", VIP4, FP_LB_MAX_BACKENDS - 1, 6, "fd00:8::13", "fd00:8::2");
}

/* Unmarked, or marked outside the range: untouched, TC_ACT_OK, mark kept. */
static void test_unmarked_untouched(void **state)
{
	static const uint32_t marks[] = { 0, 7, FP_LB_HC_MARK - 1, FP_LB_HC_MARK + FP_LB_MAX_BACKENDS,
					  FP_LB_HC_MARK | 0x80000000u };
	static uint8_t out[PKT_MAX];
	uint64_t c0, c1, c2;
	uint32_t out_len, mark;
	struct pkt b;

	if (!skel)
		skip();
	set_real(0, 4, "10.8.0.11", "10.8.0.2", 7);
	c0 = counter(FP_LB_HC_C_ENCAP);
	c1 = counter(FP_LB_HC_C_UNSET);
	c2 = counter(FP_LB_HC_C_ERROR);
	probe(&b, "10.8.0.2", VIP4);
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		assert_int_equal(run(&b, marks[i], out, &out_len, &mark), TC_ACT_OK);
		assert_frame(out, out_len, b.buf, b.len);
		assert_int_equal(mark, marks[i]);
	}
	assert_int_equal(counter(FP_LB_HC_C_ENCAP), c0);
	assert_int_equal(counter(FP_LB_HC_C_UNSET), c1);
	assert_int_equal(counter(FP_LB_HC_C_ERROR), c2);
}

/* A mark whose backend is unset: dropped (the probe fails), never sent bare. */
static void test_unset_dropped(void **state)
{
	static uint8_t out[PKT_MAX];
	uint32_t out_len, mark, idx = 100;
	struct fp_lb_hc_real zero = { 0 };
	uint64_t c0;
	struct pkt b;

	if (!skel)
		skip();
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(skel->maps.lb_hc_reals), &idx, &zero, 0), 0);
	c0 = counter(FP_LB_HC_C_UNSET);
	probe(&b, "10.8.0.2", VIP4);
	assert_int_equal(run(&b, FP_LB_HC_MARK + idx, out, &out_len, &mark), TC_ACT_SHOT);
	assert_int_equal(counter(FP_LB_HC_C_UNSET), c0 + 1);
}

/* A marked frame that is not IP (ARP): dropped as an error. */
static void test_not_ip_dropped(void **state)
{
	static uint8_t out[PKT_MAX];
	static const uint8_t arp[28] = { 0, 1, 8, 0, 6, 4, 0, 1 };
	uint32_t out_len, mark;
	uint64_t c0;
	struct pkt b;

	if (!skel)
		skip();
	set_real(1, 4, "10.8.0.11", "10.8.0.2", 7);
	pkt_init(&b);
	pkt_eth(&b, PKT_ETH_ARP);
	pkt_bytes(&b, arp, sizeof(arp));
	assert_int_equal(pkt_finish(&b), 0);
	c0 = counter(FP_LB_HC_C_ERROR);
	assert_int_equal(run(&b, FP_LB_HC_MARK + 1, out, &out_len, &mark), TC_ACT_SHOT);
	assert_int_equal(counter(FP_LB_HC_C_ERROR), c0 + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipip_v4),
		cmocka_unit_test(test_ip6ip6),
		cmocka_unit_test(test_ipip_4in6),
		cmocka_unit_test(test_unmarked_untouched),
		cmocka_unit_test(test_unset_dropped),
		cmocka_unit_test(test_not_ip_dropped),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
