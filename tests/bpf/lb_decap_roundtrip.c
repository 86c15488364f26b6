// SPDX-License-Identifier: BSD-2-Clause
/*
 * The lb and the backend's decap stage, end to end on real frames: a
 * client's frame through the lb (the fixture of tests/common/
 * lb_fixture.h), the encapsulated frame it makes through a test pipeline
 * holding the decap stage (whose address is the backend's), and what
 * comes out is the client's frame as a router would have forwarded it:
 * the same VLAN tags, ethertype and datagram byte for byte, but the TTL /
 * hop limit lowered by one (and the IPv4 header checksum with it). For
 * 4in4, 6in6 and 4in6, TCP and UDP, with 0..2 VLAN tags, and payloads of
 * 0..1000 bytes.
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

#include <fastpath/decap_abi.h>
#include <fastpath/lb_abi.h>
#include "common/pkt.h"
#include "common/lb_fixture.h"
#include "common/lb_frames.h"
#include "decap/decap.h"
#include "pipeline/pipeline.h"
#include "decap.skel.h"
#include "lb.skel.h"

#define VIP4 "198.51.100.10"
#define VIP6 "2001:db8:100::10"
#define CLIENT4 "192.0.2.7"
#define CLIENT6 "2001:db8:200::7"
#define BE4 "10.0.0.2"    /* lb0's neighbour: XDP_TX */
#define BE6 "2001:db8::2"

static struct lb_fixture F;
static struct fp_pipeline *pl;
static struct decap_bpf *dskel;

static int setup(void **state)
{
	char err[512];
	int rc = lbf_open(&F);

	if (rc == -EPERM)
		return 0; /* not root: every case skips */
	if (rc)
		return rc;
	if (fp_pipeline__open_test(&pl, err, sizeof(err)) ||
	    fp_stage_decap.load(pl, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	dskel = fp_pipeline__kept(pl, "decap");
	return dskel ? 0 : -1;
}

static int teardown(void **state)
{
	if (pl)
		fp_pipeline__close(pl);
	lbf_close(&F);
	return 0;
}

/* VIP (TCP and UDP port 80, index 1) served by one backend at be, which is
 * also the decap stage's only address. */
static void one_backend(const char *vip, const char *be)
{
	struct fp_decap_addr a;
	__u32 b = 3, src = FP_DECAP_ADDR_GIVEN;
	int fd;

	if (!F.lb)
		skip();
	assert_int_equal(lbf_reset(&F), 0);
	assert_int_equal(lbf_vip(&F, vip, 80, 6, 0, 1, 13, 7), 0);
	assert_int_equal(lbf_vip(&F, vip, 80, 17, 0, 1, 13, 7), 0);
	assert_int_equal(lbf_backend(&F, 3, be, 1, FP_LB_BE_USED, 1), 0);
	assert_int_equal(lbf_table(&F, 1, 13, &b, NULL, 1), 0);
	fd = bpf_map__fd(dskel->maps.decap_addrs);
	/* only this backend's address */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(fp_decap_addr__parse(i ? BE6 : BE4, &a), 0);
		bpf_map_delete_elem(fd, &a);
	}
	assert_int_equal(fp_decap_addr__parse(be, &a), 0);
	assert_int_equal(bpf_map_update_elem(fd, &a, &src, 0), 0);
}

static void round_trip(const char *client, const char *vip, uint8_t proto, int n_vlan,
		       size_t payload, uint16_t sport)
{
	static uint8_t mid[4096], out[4096];
	struct pkt in, want;
	size_t mid_len;
	int act;
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_out = out, .data_size_out = sizeof(out),
		    .repeat = 1);

	lbt_frame(&in, client, vip, sport, 80, proto, n_vlan, 64, payload);
	/* the frame a router would have forwarded: built anew, TTL 63 */
	lbt_frame(&want, client, vip, sport, 80, proto, n_vlan, 63, payload);
	act = lbf_run(&F, 0, in.buf, in.len, mid, &mid_len);
	assert_int_equal(act, XDP_TX);
	assert_true(mid_len > in.len);
	o.data_in = mid;
	o.data_size_in = (__u32)mid_len;
	assert_int_equal(bpf_prog_test_run_opts(fp_pipeline__entry_fd(pl), &o), 0);
	assert_int_equal(o.retval, XDP_PASS);
	/* the MACs are the lb's hop's (the decap keeps them); from the first
	 * tag or the ethertype on, the client's frame less one hop */
	if (o.data_size_out != want.len || memcmp(out + 12, want.buf + 12, want.len - 12)) {
		fprintf(stderr, "# in (%s, proto %u, %d tags, %zu bytes of payload):\n", client,
			proto, n_vlan, payload);
		pkt_hexdump(stderr, in.buf, in.len);
		fprintf(stderr, "# out of the decap (%u bytes):\n", o.data_size_out);
		pkt_hexdump(stderr, out, o.data_size_out);
		fprintf(stderr, "# want:\n");
		pkt_hexdump(stderr, want.buf, want.len);
		fail_msg("the decapsulated frame is not the client's, one hop on");
	}
}

static void all_shapes(const char *client, const char *vip)
{
	static const size_t payloads[] = { 0, 1, 20, 333, 1000 };
	uint16_t sport = 40000;

	for (int v = 0; v <= 2; v++)
		for (size_t p = 0; p < sizeof(payloads) / sizeof(payloads[0]); p++) {
			round_trip(client, vip, 6, v, payloads[p], sport++);
			round_trip(client, vip, 17, v, payloads[p], sport++);
		}
}

static void test_4in4(void **state)
{
	one_backend(VIP4, BE4);
	all_shapes(CLIENT4, VIP4);
}

static void test_6in6(void **state)
{
	one_backend(VIP6, BE6);
	all_shapes(CLIENT6, VIP6);
}

static void test_4in6(void **state)
{
	one_backend(VIP4, BE6);
	all_shapes(CLIENT4, VIP4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_4in4),
		cmocka_unit_test(test_6in6),
		cmocka_unit_test(test_4in6),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
