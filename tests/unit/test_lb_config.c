/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * src/lb/lb_config.c, the lb's words: VIPs of both families with and
 * without a port (read back to the same string), every malformed VIP with
 * a message naming the bad part, backend addresses, outer source prefixes
 * (length bounds per family, host bits refused) and hash modes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "lb/lb.h"

static char err[512];

static void vip_ok(const char *s, int family, unsigned port, int proto, const char *back)
{
	struct fp_lb_vip_key k;
	char out[80];

	err[0] = 0;
	if (fp_lb_parse_vip(s, &k, err, sizeof(err))) {
		print_error("'%s' refused: %s\n", s, err);
		fail();
	}
	assert_int_equal(k.family, family);
	assert_int_equal(k.port, port);
	assert_int_equal(k.proto, proto);
	fp_lb_vip_str(&k, out, sizeof(out));
	assert_string_equal(out, back);
}

static void vip_bad(const char *s, const char *needle)
{
	struct fp_lb_vip_key k;

	err[0] = 0;
	assert_int_equal(fp_lb_parse_vip(s, &k, err, sizeof(err)), -EINVAL);
	if (!strstr(err, needle)) {
		print_error("'%s': message '%s' lacks '%s'\n", s, err, needle);
		fail();
	}
}

static void test_vip_v4(void **state)
{
	struct fp_lb_vip_key k;

	(void)state;
	vip_ok("198.51.100.10:80/tcp", 4, 80, IPPROTO_TCP, "198.51.100.10:80/tcp");
	vip_ok("198.51.100.10:53/udp", 4, 53, IPPROTO_UDP, "198.51.100.10:53/udp");
	vip_ok("10.0.0.1:65535/tcp", 4, 65535, IPPROTO_TCP, "10.0.0.1:65535/tcp");
	/* no port: the --port-any VIP, port 0 (and :0 is the same key) */
	vip_ok("198.51.100.10/tcp", 4, 0, IPPROTO_TCP, "198.51.100.10/tcp");
	vip_ok("198.51.100.10:0/udp", 4, 0, IPPROTO_UDP, "198.51.100.10/udp");
	assert_int_equal(fp_lb_parse_vip("192.0.2.1:80/tcp", &k, err, sizeof(err)), 0);
	assert_memory_equal(k.addr, "\xc0\x00\x02\x01\0\0\0\0\0\0\0\0\0\0\0\0", 16);
}

static void test_vip_v6(void **state)
{
	struct fp_lb_vip_key k;

	(void)state;
	vip_ok("[2001:db8::1]:443/tcp", 6, 443, IPPROTO_TCP, "[2001:db8::1]:443/tcp");
	vip_ok("[2001:DB8:0::10]:53/udp", 6, 53, IPPROTO_UDP, "[2001:db8::10]:53/udp");
	vip_ok("[2001:db8::1]/tcp", 6, 0, IPPROTO_TCP, "[2001:db8::1]/tcp");
	vip_ok("2001:db8::1/udp", 6, 0, IPPROTO_UDP, "[2001:db8::1]/udp");
	assert_int_equal(fp_lb_parse_vip("[::ffff:1.2.3.4]:80/tcp", &k, err, sizeof(err)), 0);
	assert_int_equal(k.family, 6);
}

static void test_vip_errors(void **state)
{
	(void)state;
	vip_bad("198.51.100.10:80", "no protocol");
	vip_bad("198.51.100.10:80/sctp", "'sctp' is not tcp or udp");
	vip_bad("198.51.100.10:80/", "'' is not tcp or udp");
	vip_bad("/tcp", "no address");
	vip_bad("198.51.100.300:80/tcp", "'198.51.100.300' is not an IPv4 or IPv6");
	vip_bad("example.com:80/tcp", "'example.com' is not");
	vip_bad("198.51.100.10:65536/tcp", "port '65536'");
	vip_bad("198.51.100.10:-1/tcp", "port '-1'");
	vip_bad("198.51.100.10:/tcp", "port ''");
	vip_bad("198.51.100.10:8x/tcp", "port '8x'");
	vip_bad("[2001:db8::1:80/tcp", "[ADDR]:PORT");
	vip_bad("[2001:db8::1]80/tcp", "[ADDR]:PORT");
	vip_bad("[198.51.100.1]:80/tcp", "not an IPv4 or IPv6");
	vip_bad("0.0.0.0:80/tcp", "not a unicast");
	vip_bad("224.0.0.1:80/udp", "not a unicast");
	vip_bad("255.255.255.255:80/udp", "not a unicast");
	vip_bad("[::]:80/tcp", "not a unicast");
	vip_bad("[ff02::1]:80/tcp", "not a unicast");
}

static void test_addr(void **state)
{
	__u8 a[16], af;

	(void)state;
	assert_int_equal(fp_lb_parse_addr("10.0.0.11", a, &af, err, sizeof(err)), 0);
	assert_int_equal(af, 4);
	assert_memory_equal(a, "\x0a\x00\x00\x0b\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	assert_int_equal(fp_lb_parse_addr("2001:db8::11", a, &af, err, sizeof(err)), 0);
	assert_int_equal(af, 6);
	assert_int_equal(fp_lb_parse_addr("[2001:db8::11]", a, &af, err, sizeof(err)), 0);
	assert_int_equal(af, 6);
	assert_int_equal(fp_lb_parse_addr("10.0.0", a, &af, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "backend '10.0.0' is not an IPv4 or IPv6 address"));
	assert_int_equal(fp_lb_parse_addr("10.0.0.1:80", a, &af, err, sizeof(err)), -EINVAL);
	assert_int_equal(fp_lb_parse_addr("0.0.0.0", a, &af, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a unicast"));
	assert_int_equal(fp_lb_parse_addr("ff02::2", a, &af, err, sizeof(err)), -EINVAL);
}

static void test_prefix(void **state)
{
	__u8 a[16], len;

	(void)state;
	assert_int_equal(fp_lb_parse_prefix("172.16.0.0/16", 4, a, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 16);
	assert_memory_equal(a, "\xac\x10\x00\x00", 4);
	assert_int_equal(fp_lb_parse_prefix("10.1.2.3/32", 4, a, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 32);
	assert_int_equal(fp_lb_parse_prefix("100::/96", 6, a, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 96);
	assert_int_equal(a[0], 1);
	assert_int_equal(fp_lb_parse_prefix("2001:db8::1/128", 6, a, &len, err, sizeof(err)), 0);
	/* lengths out of the ABI's bounds */
	assert_int_equal(fp_lb_parse_prefix("10.0.0.0/8", 4, a, &len, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "16..32"));
	assert_int_equal(fp_lb_parse_prefix("10.0.0.0/33", 4, a, &len, err, sizeof(err)), -EINVAL);
	assert_int_equal(fp_lb_parse_prefix("2001:db8::/64", 6, a, &len, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "96..128"));
	/* host bits, a wrong family, no length, junk */
	assert_int_equal(fp_lb_parse_prefix("172.16.0.1/16", 4, a, &len, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "host bits"));
	assert_int_equal(fp_lb_parse_prefix("100::/96", 4, a, &len, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not an IPv4 address"));
	assert_int_equal(fp_lb_parse_prefix("172.16.0.0", 4, a, &len, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "PREFIX/LEN"));
	assert_int_equal(fp_lb_parse_prefix("172.16.0.0/", 4, a, &len, err, sizeof(err)), -EINVAL);
	assert_int_equal(fp_lb_parse_prefix("172.16.0.0/1x", 4, a, &len, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(fp_lb_parse_prefix("172.16.0.0/-16", 4, a, &len, err, sizeof(err)),
			 -EINVAL);
}

static void test_hash_and_names(void **state)
{
	__u32 f = 99;

	(void)state;
	assert_int_equal(fp_lb_parse_hash("5tuple", &f), 0);
	assert_int_equal(f, 0);
	assert_int_equal(fp_lb_parse_hash("src", &f), 0);
	assert_int_equal(f, FP_LB_VIP_HASH_SRC);
	assert_int_equal(fp_lb_parse_hash("dst", &f), -EINVAL);
	for (unsigned c = 0; c < FP_LB_C_MAX; c++)
		assert_non_null(fp_lb_counter_name(c));
	assert_null(fp_lb_counter_name(FP_LB_C_MAX));
	assert_string_equal(fp_lb_counter_name(FP_LB_C_NO_NEIGH), "no_neigh");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vip_v4),
		cmocka_unit_test(test_vip_v6),
		cmocka_unit_test(test_vip_errors),
		cmocka_unit_test(test_addr),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_hash_and_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
