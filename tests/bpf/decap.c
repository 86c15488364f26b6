// SPDX-License-Identifier: BSD-2-Clause
/*
 * The decap stage on real frames, through a test pipeline (fp_entry, the
 * parse, then slot FP_STAGE_DECAP loaded as `decap load` loads it):
 * - each encapsulation (4in4, 6in6, 4in6, 6in4) comes out as exactly the
 *   frame the inner packet would be on its own: the same MACs, the inner
 *   ethertype, the inner datagram byte for byte; with one and two VLAN
 *   tags kept; an IPv4 outer header with options stripped whole;
 * - a tunnel packet for another address, a plain packet to this host's
 *   address and an IPv6 outer header with extension headers before the
 *   inner packet go on untouched (XDP_PASS, the same bytes out);
 * - an outer fragment, an inner header cut short, an inner length past
 *   the outer datagram, an inner header of the wrong version: XDP_DROP;
 * - an outer ECN CE mark reaches an ECN-capable inner packet (RFC 6040),
 *   a Not-ECT inner packet under CE is dropped;
 * - each of these counts once in its cause's counter, and no other;
 * - the verifier checks fp_decap well inside its budget.
 */
#include <arpa/inet.h>
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

#include <fastpath/decap_abi.h>
#include "common/pkt.h"
#include "decap/decap.h"
#include "pipeline/pipeline.h"
#include "decap.skel.h"

#define HEADROOM_LIMIT 800000u /* as tests/bpf/filter_verifier */

#define OURS4 "10.1.0.2"
#define OURS6 "fd00:1::2"
#define LB4 "10.1.0.1"
#define LB6 "fd00:1::1"
#define CLIENT4 "203.0.113.5"
#define CLIENT6 "2001:db8:c::5"
#define VIP4 "198.51.100.10"
#define VIP6 "2001:db8:100::10"

static struct fp_pipeline *pl;
static struct decap_bpf *skel;

static void add_addr(const char *text)
{
	struct fp_decap_addr a;
	__u32 src = FP_DECAP_ADDR_GIVEN;

	assert_int_equal(fp_decap_addr__parse(text, &a), 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(skel->maps.decap_addrs), &a, &src, 0), 0);
}

static int setup(void **state)
{
	char err[512];

	if (geteuid() != 0)
		return 0;
	if (fp_pipeline__open_test(&pl, err, sizeof(err)) ||
	    fp_stage_decap.load(pl, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	skel = fp_pipeline__kept(pl, "decap");
	if (!skel)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	fp_pipeline__close(pl);
	return 0;
}

/* ---- frames --------------------------------------------------------------- */

enum inner { IN_UDP4, IN_TCP6, IN_ICMP4, IN_ICMP6 };
static uint16_t inner_id = 77; /* IN_UDP4's IPv4 id (moves its checksum) */

/* L2: Ethernet and n_vlan tags (the second an 802.1Q inside an 802.1ad). */
static void l2(struct pkt *b, int n_vlan)
{
	pkt_eth(b, 0);
	if (n_vlan == 2)
		pkt_vlan(b, PKT_ETH_8021AD, 100);
	if (n_vlan >= 1)
		pkt_vlan(b, PKT_ETH_8021Q, 200);
}

/* The inner packet as a frame of its own: what decapsulation must give
 * (tos: its IPv4 TOS or IPv6 traffic class). */
static void inner_frame_tos(struct pkt *b, enum inner kind, int n_vlan, uint8_t tos)
{
	static const char payload[] = "decapsulated payload";

	pkt_init(b);
	l2(b, n_vlan);
	switch (kind) {
	case IN_UDP4:
		pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = CLIENT4, .dst = VIP4, .ttl = 61,
						     .id = inner_id, .tos = tos });
		pkt_udp(b, 40000, 53);
		break;
	case IN_ICMP4:
		pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = CLIENT4, .dst = VIP4, .ttl = 62,
						     .tos = tos });
		pkt_icmp(b, 8, 0);
		break;
	case IN_TCP6:
		pkt_ipv6(b, &(struct pkt_ipv6_opts){ .src = CLIENT6, .dst = VIP6,
						     .hop_limit = 60, .flow = 0x12345,
						     .tclass = tos });
		pkt_tcp(b, 40000, 80, PKT_SYN);
		break;
	case IN_ICMP6:
		pkt_ipv6(b, &(struct pkt_ipv6_opts){ .src = CLIENT6, .dst = VIP6,
						     .hop_limit = 59, .tclass = tos });
		pkt_icmp6(b, 128, 0);
		break;
	}
	pkt_bytes(b, payload, sizeof(payload));
	assert_int_equal(pkt_finish(b), 0);
}

static void inner_frame(struct pkt *b, enum inner kind, int n_vlan)
{
	inner_frame_tos(b, kind, n_vlan, 0);
}

struct outer {
	int ver;              /* 4 or 6 */
	const char *dst;      /* NULL: this host's */
	__u8 proto;           /* 0: from the inner packet's version */
	bool mf;              /* a first fragment */
	const uint8_t *opts;  /* IPv4 options */
	uint8_t opts_len;
	bool dest_opts;       /* IPv6: a destination options header first */
	uint8_t tos;          /* TOS / traffic class (ECN in the low 2 bits) */
};

/* in's IP datagram under an outer header, after the same L2 header. */
static void encap(struct pkt *b, const struct pkt *in, int n_vlan, const struct outer *o)
{
	__u8 proto = o->proto ? o->proto : in->ip_ver == 4 ? 4 : 41;

	pkt_init(b);
	l2(b, n_vlan);
	if (o->ver == 4) {
		pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = LB4, .dst = o->dst ? o->dst : OURS4,
						     .proto = proto, .ttl = 64, .mf = o->mf,
						     .tos = o->tos,
						     .options = o->opts,
						     .options_len = o->opts_len });
	} else {
		pkt_ipv6(b, &(struct pkt_ipv6_opts){ .src = LB6, .dst = o->dst ? o->dst : OURS6,
						     .next = o->dest_opts ? 0 : proto,
						     .hop_limit = 64, .tclass = o->tos });
		if (o->dest_opts) {
			pkt_ipv6_ext(b, PKT_IP6_DEST, 0);
			pkt_next(b, proto);
		}
	}
	pkt_bytes(b, in->buf + in->l3, in->len - (size_t)in->l3);
	assert_int_equal(pkt_finish(b), 0);
}

/* ---- running -------------------------------------------------------------- */

static void counters(struct fp_counter *c)
{
	assert_int_equal(fp_decap__read_counters(bpf_map__fd(skel->maps.decap_cnt), c), 0);
}

/*
 * Runs frame through the pipeline; checks the action, the frame out
 * (want: NULL = the frame in, untouched) and that exactly the counter of
 * `cause` moved, by one packet of the frame's length.
 */
static void run(const struct pkt *frame, __u32 action, const struct pkt *want, unsigned cause)
{
	struct fp_counter before[FP_DECAP_C_MAX], after[FP_DECAP_C_MAX];
	static __u8 out[PKT_MAX + 256];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame->buf, .data_size_in = frame->len,
		    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);
	const struct pkt *exp = want ? want : frame;

	counters(before);
	assert_int_equal(bpf_prog_test_run_opts(fp_pipeline__entry_fd(pl), &o), 0);
	counters(after);
	assert_int_equal(o.retval, action);
	if (action == XDP_PASS) {
		if (o.data_size_out != exp->len || memcmp(out, exp->buf, exp->len)) {
			fprintf(stderr, "# frame in:\n");
			pkt_hexdump(stderr, frame->buf, frame->len);
			fprintf(stderr, "# frame out (%u bytes):\n", o.data_size_out);
			pkt_hexdump(stderr, out, o.data_size_out);
			fprintf(stderr, "# expected:\n");
			pkt_hexdump(stderr, exp->buf, exp->len);
			fail_msg("the frame out is not the expected one");
		}
	}
	for (unsigned k = 0; k < FP_DECAP_C_MAX; k++) {
		__u64 dp = after[k].packets - before[k].packets;
		__u64 db = after[k].bytes - before[k].bytes;

		if (k == cause) {
			assert_int_equal(dp, 1);
			assert_int_equal(db, frame->len);
		} else if (dp) {
			fail_msg("counter %s moved by %llu (expected only %s)",
				 fp_decap_counter__name(k), (unsigned long long)dp,
				 fp_decap_counter__name(cause));
		}
	}
}

#define NEED_ROOT() do { if (geteuid() != 0) skip(); } while (0)

/* ---- cases ---------------------------------------------------------------- */

static void test_each_encapsulation_stripped(void **state)
{
	static const struct {
		int outer;
		enum inner in;
		unsigned cause;
	} cases[] = {
		{ 4, IN_UDP4, FP_DECAP_C_4IN4 },  { 4, IN_ICMP4, FP_DECAP_C_4IN4 },
		{ 6, IN_TCP6, FP_DECAP_C_6IN6 },  { 6, IN_ICMP6, FP_DECAP_C_6IN6 },
		{ 6, IN_UDP4, FP_DECAP_C_4IN6 },  { 6, IN_ICMP4, FP_DECAP_C_4IN6 },
		{ 4, IN_TCP6, FP_DECAP_C_6IN4 },
	};
	struct pkt in, enc;

	NEED_ROOT();
	add_addr(OURS4);
	add_addr(OURS6);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int v = 0; v <= 2; v++) { /* no tag, one, two: kept */
			inner_frame(&in, cases[i].in, v);
			encap(&enc, &in, v, &(struct outer){ .ver = cases[i].outer });
			run(&enc, XDP_PASS, &in, cases[i].cause);
		}
	}
}

static void test_ipv4_options_stripped_whole(void **state)
{
	static const uint8_t opts[8] = { 0x94, 0x04, 0, 0, 1, 1, 1, 0 }; /* router alert, NOPs */
	struct pkt in, enc;

	NEED_ROOT();
	add_addr(OURS4);
	inner_frame(&in, IN_UDP4, 1);
	encap(&enc, &in, 1, &(struct outer){ .ver = 4, .opts = opts, .opts_len = 8 });
	assert_int_equal(enc.buf[enc.l3] & 0x0f, 7); /* ihl 7: 28 bytes to strip */
	run(&enc, XDP_PASS, &in, FP_DECAP_C_4IN4);
}

static void test_not_ours_and_others_untouched(void **state)
{
	struct pkt in, enc, plain;

	NEED_ROOT();
	add_addr(OURS4);
	add_addr(OURS6);
	inner_frame(&in, IN_UDP4, 0);
	/* a tunnel packet for another host */
	encap(&enc, &in, 0, &(struct outer){ .ver = 4, .dst = "10.1.0.99" });
	run(&enc, XDP_PASS, NULL, FP_DECAP_C_NOT_OURS);
	encap(&enc, &in, 0, &(struct outer){ .ver = 6, .dst = "fd00:1::99" });
	run(&enc, XDP_PASS, NULL, FP_DECAP_C_NOT_OURS);
	/* an IPv4 address is not the IPv6 address with the same first bytes */
	encap(&enc, &in, 0, &(struct outer){ .ver = 6, .dst = "a01:2::" });
	run(&enc, XDP_PASS, NULL, FP_DECAP_C_NOT_OURS);
	/* plain traffic to this host: not a tunnel */
	pkt_init(&plain);
	pkt_eth(&plain, 0);
	pkt_ipv4(&plain, &(struct pkt_ipv4_opts){ .src = CLIENT4, .dst = OURS4, .ttl = 64 });
	pkt_udp(&plain, 1234, 53);
	assert_int_equal(pkt_finish(&plain), 0);
	run(&plain, XDP_PASS, NULL, FP_DECAP_C_OTHER);
	/* IPv6 extension headers before the inner packet: left to the stack */
	encap(&enc, &in, 0, &(struct outer){ .ver = 6, .dest_opts = true });
	run(&enc, XDP_PASS, NULL, FP_DECAP_C_EXTHDR);
}

static void test_malformed_dropped(void **state)
{
	struct pkt in, in6, enc;

	NEED_ROOT();
	add_addr(OURS4);
	add_addr(OURS6);
	inner_frame(&in, IN_UDP4, 0);
	inner_frame(&in6, IN_TCP6, 0);
	/* an outer fragment (the first, MF set) */
	encap(&enc, &in, 0, &(struct outer){ .ver = 4, .mf = true });
	run(&enc, XDP_DROP, NULL, FP_DECAP_C_FRAGMENT);
	/* the inner header cut short: 10 bytes of an IPv4 header */
	encap(&enc, &in, 0, &(struct outer){ .ver = 4 });
	pkt_truncate(&enc, (size_t)enc.l3 + 20 + 10);
	pkt_set16(&enc, (size_t)enc.l3 + 2, 30); /* the outer length agrees */
	run(&enc, XDP_DROP, NULL, FP_DECAP_C_MALFORMED);
	/* the inner IPv6 header cut short inside an IPv6 outer */
	encap(&enc, &in6, 0, &(struct outer){ .ver = 6 });
	pkt_truncate(&enc, (size_t)enc.l3 + 40 + 30);
	pkt_set16(&enc, (size_t)enc.l3 + 4, 30);
	run(&enc, XDP_DROP, NULL, FP_DECAP_C_MALFORMED);
	/* the inner length runs past the outer datagram */
	encap(&enc, &in, 0, &(struct outer){ .ver = 4 });
	pkt_set16(&enc, (size_t)enc.l3 + 20 + 2, (uint16_t)(in.len - in.l3 + 1));
	run(&enc, XDP_DROP, NULL, FP_DECAP_C_MALFORMED);
	/* protocol 4 with an IPv6 packet inside, and 41 with IPv4 */
	encap(&enc, &in6, 0, &(struct outer){ .ver = 4, .proto = 4 });
	run(&enc, XDP_DROP, NULL, FP_DECAP_C_MALFORMED);
	encap(&enc, &in, 0, &(struct outer){ .ver = 6, .proto = 41 });
	run(&enc, XDP_DROP, NULL, FP_DECAP_C_MALFORMED);
	/* an inner IPv4 header length below 20 */
	encap(&enc, &in, 0, &(struct outer){ .ver = 4 });
	pkt_set8(&enc, (size_t)enc.l3 + 20, 0x44);
	run(&enc, XDP_DROP, NULL, FP_DECAP_C_MALFORMED);
}

/* RFC 6040: an outer CE reaches an ECN-capable inner packet (the IPv4
 * checksum updated: the expected frame's is computed whole); a Not-ECT
 * inner packet under CE is dropped; without CE nothing changes. */
static void test_ecn_ce_carried(void **state)
{
	static const struct {
		int outer;
		enum inner in;
		uint8_t outer_tos, in_tos, want_tos;
		__u32 action;
		unsigned cause;
	} cases[] = {
		{ 4, IN_UDP4, 0x03, 0xb8 | 2, 0xb8 | 3, XDP_PASS, FP_DECAP_C_4IN4 },
		{ 4, IN_ICMP4, 0x03, 0x01, 0x03, XDP_PASS, FP_DECAP_C_4IN4 },
		{ 6, IN_TCP6, 0x03, 0x28 | 1, 0x28 | 3, XDP_PASS, FP_DECAP_C_6IN6 },
		{ 6, IN_UDP4, 0x03, 0x02, 0x03, XDP_PASS, FP_DECAP_C_4IN6 },
		{ 4, IN_TCP6, 0x03, 0x02, 0x03, XDP_PASS, FP_DECAP_C_6IN4 },
		{ 4, IN_UDP4, 0x03, 0x03, 0x03, XDP_PASS, FP_DECAP_C_4IN4 },
		{ 4, IN_UDP4, 0x02, 0x00, 0x00, XDP_PASS, FP_DECAP_C_4IN4 },   /* no CE */
		{ 6, IN_ICMP6, 0x01, 0x02, 0x02, XDP_PASS, FP_DECAP_C_6IN6 },  /* no CE */
		{ 4, IN_UDP4, 0x03, 0x00, 0, XDP_DROP, FP_DECAP_C_ECN },
		{ 6, IN_TCP6, 0x03, 0x00, 0, XDP_DROP, FP_DECAP_C_ECN },
	};
	struct pkt in, want, enc;

	NEED_ROOT();
	add_addr(OURS4);
	add_addr(OURS6);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		inner_frame_tos(&in, cases[i].in, 1, cases[i].in_tos);
		inner_frame_tos(&want, cases[i].in, 1, cases[i].want_tos);
		encap(&enc, &in, 1, &(struct outer){ .ver = cases[i].outer,
						     .tos = cases[i].outer_tos });
		run(&enc, cases[i].action, &want, cases[i].cause);
	}
	/* every carry of the checksum's incremental update: 256 checksums */
	for (unsigned id = 0; id < 256; id++) {
		inner_id = (uint16_t)(id * 257);
		inner_frame_tos(&in, IN_UDP4, 0, 0x02);
		inner_frame_tos(&want, IN_UDP4, 0, 0x03);
		encap(&enc, &in, 0, &(struct outer){ .ver = 4, .tos = 0x03 });
		run(&enc, XDP_PASS, &want, FP_DECAP_C_4IN4);
	}
	inner_id = 77;
}

static void test_disabled_stage_passes_everything(void **state)
{
	struct pkt in, enc;

	NEED_ROOT();
	add_addr(OURS4);
	inner_frame(&in, IN_UDP4, 0);
	encap(&enc, &in, 0, &(struct outer){ .ver = 4 });
	/* what `pipeline disable` does: the bit cleared, then the slot emptied */
	assert_int_equal(fp_pipeline__empty_slot(pl, FP_STAGE_DECAP), 0);
	{
		struct fp_counter before[FP_DECAP_C_MAX], after[FP_DECAP_C_MAX];
		static __u8 out[PKT_MAX];
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = enc.buf, .data_size_in = enc.len,
			    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);

		counters(before);
		assert_int_equal(bpf_prog_test_run_opts(fp_pipeline__entry_fd(pl), &o), 0);
		counters(after);
		assert_int_equal(o.retval, XDP_PASS);
		assert_int_equal(o.data_size_out, enc.len);
		assert_memory_equal(out, enc.buf, enc.len);
		assert_memory_equal(before, after, sizeof(before));
	}
	assert_int_equal(fp_pipeline__fill_slot(pl, FP_STAGE_DECAP,
						bpf_program__fd(skel->progs.fp_decap)), 0);
	run(&enc, XDP_PASS, &in, FP_DECAP_C_4IN4);
}

static void test_verifier_headroom(void **state)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	NEED_ROOT();
	assert_int_equal(bpf_obj_get_info_by_fd(bpf_program__fd(skel->progs.fp_decap), &info,
						&len), 0);
	fprintf(stderr, "# verified insns: fp_decap %u (limit %u)\n", info.verified_insns,
		HEADROOM_LIMIT);
	assert_true(info.verified_insns > 0);
	assert_true(info.verified_insns < HEADROOM_LIMIT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_encapsulation_stripped),
		cmocka_unit_test(test_ipv4_options_stripped_whole),
		cmocka_unit_test(test_not_ours_and_others_untouched),
		cmocka_unit_test(test_malformed_dropped),
		cmocka_unit_test(test_ecn_ce_carried),
		cmocka_unit_test(test_disabled_stage_passes_everything),
		cmocka_unit_test(test_verifier_headroom),
	};

	return cmocka_run_group_tests_name("decap", tests, setup, teardown);
}
