/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * src/lb/lb_conf.c, the lb's configuration file: every statement with its
 * options and defaults, comments and blank lines, and each class of error
 * with its NAME:LINE:COL (an unknown statement or option, a value missing
 * or out of range, a VIP or backend twice, a backend before its VIP, a v4
 * backend of a v6 VIP, load after a vip, the limits of a VIP's table, of
 * VIPs and of pairs, a control character), the result empty after one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "lb/lb_conf.h"
#include "lb/maglev.h"

static char err[512];

static void parse_ok(const char *text, struct fp_lb_conf *c)
{
	err[0] = 0;
	if (fp_lb_conf_parse(text, strlen(text), "t.conf", c, err, sizeof(err))) {
		print_error("refused: %s\n", err);
		fail();
	}
}

/* text is refused, the message starting with `where` and holding `needle` */
static void parse_bad(const char *text, const char *where, const char *needle)
{
	struct fp_lb_conf c;

	err[0] = 0;
	assert_int_equal(fp_lb_conf_parse(text, strlen(text), "t.conf", &c, err, sizeof(err)),
			 -EINVAL);
	assert_null(c.vips);
	assert_null(c.bes);
	assert_int_equal(c.n_vips + c.n_bes, 0);
	if (strncmp(err, where, strlen(where)) || !strstr(err, needle)) {
		print_error("message '%s' lacks '%s' ... '%s'\n", err, where, needle);
		fail();
	}
}

static void test_statements(void **state)
{
	struct fp_lb_conf c;

	(void)state;
	parse_ok("# a comment\n\n"
		 "load --conns 5000 --src4 10.255.0.0/16 --src6 2001:db8::/96\n"
		 "vip 198.51.100.10:80/tcp   # the web VIP\n"
		 "vip [2001:db8::10]:443/tcp --hash src --table-size 251\n"
		 "vip 198.51.100.11/udp --port-any --hash 5tuple\n"
		 "\tbackend 198.51.100.10:80/tcp 10.0.0.2\n"
		 "backend 198.51.100.10:80/tcp 10.0.0.3 --weight 3 --state drain\r\n"
		 "backend 198.51.100.10:80/tcp 2001:db8:1::4 --state down\n"
		 "backend [2001:db8::10]:443/tcp 2001:db8:1::5 --weight 65535",
		 &c);
	assert_true(c.has_load);
	assert_int_equal(c.conns, 5000);
	assert_string_equal(c.src4, "10.255.0.0/16");
	assert_string_equal(c.src6, "2001:db8::/96");
	assert_int_equal(c.n_vips, 3);
	assert_int_equal(c.vips[0].flags, 0);
	assert_int_equal(c.vips[0].table_size, FP_MAGLEV_DEFAULT_SIZE);
	assert_int_equal(c.vips[0].line, 4);
	assert_int_equal(c.vips[0].n_backends, 3);
	assert_int_equal(c.vips[1].flags, FP_LB_VIP_HASH_SRC);
	assert_int_equal(c.vips[1].table_size, 251);
	assert_int_equal(c.vips[2].flags, FP_LB_VIP_PORT_ANY);
	assert_int_equal(c.vips[2].key.port, 0);
	assert_int_equal(c.n_bes, 4);
	assert_int_equal(c.bes[0].weight, 1);
	assert_int_equal(c.bes[0].state, FP_LB_CONF_UP);
	assert_int_equal(c.bes[0].line, 7);
	assert_int_equal(c.bes[1].weight, 3);
	assert_int_equal(c.bes[1].state, FP_LB_CONF_DRAIN);
	assert_int_equal(c.bes[2].af, 6); /* a v6 backend of a v4 VIP: 4-in-6 */
	assert_int_equal(c.bes[2].state, FP_LB_CONF_DOWN);
	assert_int_equal(c.bes[3].vip, 1);
	assert_int_equal(c.bes[3].weight, 65535);
	fp_lb_conf_free(&c);
	assert_null(c.vips);

	parse_ok("", &c); /* an empty lb */
	assert_false(c.has_load);
	assert_int_equal(c.n_vips, 0);
	fp_lb_conf_free(&c);
	assert_string_equal(fp_lb_conf_state_name(FP_LB_CONF_DRAIN), "drain");
}

static void test_errors(void **state)
{
	(void)state;
	parse_bad("vip 198.51.100.10:80/tcp\nfrontend x\n", "t.conf:2:1:", "load, vip or backend");
	parse_bad("vip 198.51.100.10:80/tcp --hash dst\n", "t.conf:1:33:", "5tuple or src");
	parse_bad("vip 198.51.100.10:80/tcp --hash\n", "t.conf:1:26:", "--hash needs a value");
	parse_bad("vip 198.51.100.10:80/tcp --weight 2\n", "t.conf:1:26:", "not '--weight'");
	parse_bad("vip 198.51.100.10:80/sctp\n", "t.conf:1:5:", "not tcp or udp");
	parse_bad("vip 198.51.100.10:80/tcp --table-size 65536\n", "t.conf:1:39:", "not a prime");
	parse_bad("vip 198.51.100.10:80/tcp --table-size 3\n", "t.conf:1:39:", "5..");
	parse_bad("vip 198.51.100.10:80/tcp --port-any\n", "t.conf:1:5:", "without a port");
	parse_bad("vip 198.51.100.10/tcp\n", "t.conf:1:5:", "--port-any");
	/* an IPv6 VIP's port written without brackets reads as part of the address */
	parse_bad("vip 2001:db8::1:80/tcp\n", "t.conf:1:5:", "[ADDR]:PORT/PROTO");
	parse_bad("vip\n", "t.conf:1:", "needs a VIP");
	parse_bad("vip 198.51.100.10:80/tcp\n# x\nvip 198.51.100.10:80/tcp --hash src\n",
		  "t.conf:3:5:", "declared on line 1");
	parse_bad("backend 198.51.100.10:80/tcp 10.0.0.2\n", "t.conf:1:9:", "no vip line above");
	parse_bad("vip 198.51.100.10:80/tcp\nbackend 198.51.100.10:80/tcp\n", "t.conf:2:1:",
		  "needs a VIP and an address");
	parse_bad("vip 198.51.100.10:80/tcp\nbackend 198.51.100.10:80/tcp 10.0.0.256\n",
		  "t.conf:2:30:", "not an IPv4 or IPv6");
	parse_bad("vip 198.51.100.10:80/tcp\nbackend 198.51.100.10:80/tcp 224.0.0.1\n",
		  "t.conf:2:30:", "not a unicast");
	parse_bad("vip [2001:db8::1]:80/tcp\nbackend [2001:db8::1]:80/tcp 10.0.0.2\n",
		  "t.conf:2:30:", "needs IPv6 backends");
	parse_bad("vip 198.51.100.10:80/tcp\nbackend 198.51.100.10:80/tcp 10.0.0.2 --weight 0\n",
		  "t.conf:2:48:", "1..65535");
	parse_bad("vip 198.51.100.10:80/tcp\nbackend 198.51.100.10:80/tcp 10.0.0.2 --weight -1\n",
		  "t.conf:2:48:", "1..65535");
	parse_bad("vip 198.51.100.10:80/tcp\nbackend 198.51.100.10:80/tcp 10.0.0.2 --weight "
		  "99999999999999999999999\n", "t.conf:2:48:", "1..65535");
	parse_bad("vip 198.51.100.10:80/tcp\nbackend 198.51.100.10:80/tcp 10.0.0.2 --state off\n",
		  "t.conf:2:47:", "up, drain or down");
	parse_bad("vip 198.51.100.10:80/tcp\nbackend 198.51.100.10:80/tcp 10.0.0.2\n"
		  "backend 198.51.100.10:80/tcp 10.0.0.2 --weight 2\n",
		  "t.conf:3:30:", "declared on line 2");
	parse_bad("vip 198.51.100.10:80/tcp\nload\n", "t.conf:2:1:", "before the first vip");
	parse_bad("load\nload\n", "t.conf:2:1:", "a second load line");
	parse_bad("load --conns 100\n", "t.conf:1:14:", "1024..");
	parse_bad("load --src4 10.255.0.1/16\n", "t.conf:1:13:", "host bits");
	parse_bad("load --src6 2001:db8::/64\n", "t.conf:1:13:", "96..128");
	parse_bad("load --mode skb\n", "t.conf:1:6:", "--conns, --src4 and --src6");
	parse_bad("vip 198.51.100.10:80/tcp\x01\n", "t.conf:1:25:", "control character");
	parse_bad("vip 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", "t.conf:1:", "more than 16 words");
}

static void test_limits(void **state)
{
	size_t cap = 1 << 20, n = 0;
	char *t = malloc(cap);

	(void)state;
	assert_non_null(t);
	/* a table of 13 slots holds 3 backends (4 slots each) */
	n = (size_t)snprintf(t, cap, "vip 198.51.100.10:80/tcp --table-size 13\n");
	for (int i = 1; i <= 4; i++)
		n += (size_t)snprintf(t + n, cap - n, "backend 198.51.100.10:80/tcp 10.0.0.%d\n", i);
	parse_bad(t, "t.conf:5:1:", "table of 13 slots");
	/* FP_LB_MAX_VIPS + 1 VIPs */
	n = 0;
	for (unsigned i = 0; i <= FP_LB_MAX_VIPS; i++)
		n += (size_t)snprintf(t + n, cap - n, "vip 198.51.%u.%u:80/tcp\n", 100 + i / 250,
				      1 + i % 250);
	parse_bad(t, "t.conf:513:1:", "more than 512 VIPs");
	/* FP_LB_MAX_BACKENDS + 1 pairs over 5 VIPs */
	n = 0;
	for (unsigned i = 0; i <= FP_LB_MAX_BACKENDS; i++) {
		if (i % 4096 == 0)
			n += (size_t)snprintf(t + n, cap - n, "vip 198.51.100.%u:80/tcp\n", 1 + i / 4096);
		n += (size_t)snprintf(t + n, cap - n, "backend 198.51.100.%u:80/tcp 10.%u.%u.%u\n",
				      1 + i / 4096, i / 62500, i / 250 % 250, i % 250 + 1);
	}
	parse_bad(t, "t.conf:", "pairs, the most an lb holds");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statements),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
