/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the lb's choice tests share (tests/bpf/lb_flows.c and
 * lb_verdicts.c): the fixture, a VIP of three backends, and where a
 * client's packet went. Header-only; include cmocka.h first.
 */
#ifndef FP_TEST_LB_CASES_H
#define FP_TEST_LB_CASES_H

#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <fastpath/lb_abi.h>
#include "common/pkt.h"
#include "common/lb_fixture.h"
#include "common/lb_frames.h"
#include "lb.skel.h"

static struct lb_fixture F;

#define VIP4 "198.51.100.10"
#define VIP6 "2001:db8:100::10"
#define CLIENT4 "192.0.2.7"
#define CLIENT6 "2001:db8:200::7"
#define TSIZE 13

/* Backend entries of VIP 2 and where they are (each a different way out,
 * all of which forward: XDP_TX, XDP_REDIRECT, or encapsulated to the stack). */
enum { BA = 10, BB = 11, BC = 12 };
static const char *const be_addr[3] = { "10.0.0.2", "10.1.0.2", "10.0.0.3" };

static inline int lbc_setup(void **state)
{
	int rc = lbf_open(&F);

	return rc == -EPERM ? 0 : rc;
}

static inline int lbc_teardown(void **state)
{
	lbf_close(&F);
	return 0;
}

/* VIP4:80/tcp as VIP 2 (flags), backends BA, BB, BC (gen 1), table over all three. */
static inline void three_backends(uint32_t flags, uint16_t port)
{
	static const uint32_t all[3] = { BA, BB, BC };

	if (!F.lb)
		skip();
	assert_int_equal(lbf_reset(&F), 0);
	assert_int_equal(lbf_vip(&F, VIP4, port, 6, flags, 2, TSIZE, 0x10005), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(lbf_backend(&F, all[i], be_addr[i], 2, FP_LB_BE_USED, 1), 0);
	assert_int_equal(lbf_table(&F, 2, TSIZE, all, NULL, 3), 0);
}

/* The backend entry the client's TCP packet from sport (to VIP4:dport)
 * went to, or -1 when it was not forwarded (*action: the XDP action). */
static inline int sent_to(const char *client, uint16_t sport, uint16_t dport, int *action)
{
	static uint8_t out[4096];
	size_t out_len;
	struct pkt b;
	uint8_t a[16];
	int act;

	lbt_frame(&b, client, VIP4, sport, dport, 6, 0, 64, 20);
	act = lbf_run(&F, 0, b.buf, b.len, out, &out_len);
	if (action)
		*action = act;
	if (act == XDP_DROP || out_len < 14 + 20 || out[23] != 4 /* IPIP */)
		return -1;
	for (int i = 0; i < 3; i++) {
		lbf_addr(be_addr[i], a);
		if (!memcmp(out + 14 + 16, a, 4))
			return BA + i;
	}
	return -1;
}

/* The backend entry VIP 2's current table holds for a flow. */
static inline uint32_t table_choice(const struct fp_lb_flow *fl)
{
	uint32_t vip = 2, id, slot = fp_lb_flow_hash(fl) % TSIZE, be;
	int fd;

	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(F.lb->maps.lb_tables), &vip, &id), 0);
	fd = bpf_map_get_fd_by_id(id);
	assert_true(fd >= 0);
	assert_int_equal(bpf_map_lookup_elem(fd, &slot, &be), 0);
	close(fd);
	return be;
}

/* A source port whose flow (client CLIENT4 to VIP4:80) the current table
 * gives to entry `be`, not used before (ports from *next on). */
static inline uint16_t port_for(uint32_t be, uint16_t *next)
{
	for (int n = 0; n < 2000; n++) {
		uint16_t p = (*next)++;
		struct fp_lb_flow fl = lbf_flow(CLIENT4, VIP4, p, 80, 6, 0);

		if (table_choice(&fl) == be)
			return p;
	}
	fail_msg("no port maps to backend %u", be);
	return 0;
}

/* The frame is not the lb's: on down the chain (no stage after it: XDP_PASS), unchanged. */
static inline void assert_not_vip(const struct pkt *b)
{
	static uint8_t out[4096];
	uint64_t c0 = lbf_counter(&F, FP_LB_C_NOT_VIP);
	size_t out_len;

	assert_int_equal(lbf_run(&F, 0, b->buf, b->len, out, &out_len), XDP_PASS);
	assert_int_equal(out_len, b->len);
	assert_memory_equal(out, b->buf, b->len);
	assert_int_equal(lbf_counter(&F, FP_LB_C_NOT_VIP), c0 + 1);
}

#endif
