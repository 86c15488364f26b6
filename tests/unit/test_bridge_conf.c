/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * src/bridge/bridge_conf.c, a bridge's configuration file: the statements
 * with their defaults filled in as `bridge add` keeps them (PVID 1 and in
 * the VLANs, learn limit 4096), comments, and each class of error with its
 * NAME:LINE:COL (unknown statement or option, values out of range, VLAN
 * options on a bridge that is not VLAN-aware, a port twice, an fdb entry
 * before its port, twice, or without its VLAN, the bridge line late or
 * twice), the result empty after one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "bridge/bridge_conf.h"

static char err[512];

static void parse_ok(const char *text, struct fp_bridge_conf *c)
{
	err[0] = 0;
	if (fp_bridge_conf_parse(text, strlen(text), "b.conf", c, err, sizeof(err))) {
		print_error("refused: %s\n", err);
		fail();
	}
}

static void parse_bad(const char *text, const char *where, const char *needle)
{
	struct fp_bridge_conf c;

	err[0] = 0;
	assert_int_equal(fp_bridge_conf_parse(text, strlen(text), "b.conf", &c, err, sizeof(err)),
			 -EINVAL);
	assert_null(c.ports);
	assert_null(c.fdbs);
	if (strncmp(err, where, strlen(where)) || !strstr(err, needle)) {
		print_error("message '%s' lacks '%s' ... '%s'\n", err, where, needle);
		fail();
	}
}

static int vlan(const struct fp_bridge_conf_port *p, unsigned v)
{
	return (int)((p->vlans[v >> 6] >> (v & 63)) & 1);
}

static void test_statements(void **state)
{
	struct fp_bridge_conf c;

	(void)state;
	parse_ok("# saved\nbridge --ageing 120 --vlan-aware --address 02:00:00:00:00:aa\n"
		 "port eth1 --pvid 10\n"
		 "port eth2 --vlans 10,20-22 --tagged --flood-limit 1000   # trunk\n"
		 "port eth3 --mode skb --learn-limit 0 --untagged\n"
		 "fdb 02:00:00:00:00:01 vlan 10 eth1\n", &c);
	assert_int_equal(c.ageing_s, 120);
	assert_true(c.vlan_aware);
	assert_true(c.have_address);
	assert_int_equal(c.address[5], 0xaa);
	assert_int_equal(c.bridge_line, 2);
	assert_int_equal(c.n_ports, 3);
	assert_int_equal(c.ports[0].pvid, 10);
	assert_true(vlan(&c.ports[0], 10) && !vlan(&c.ports[0], 1));
	assert_int_equal(c.ports[0].learn_limit, FP_BR_LEARN_LIMIT_DEFAULT);
	assert_int_equal(c.ports[1].pvid, 1); /* the PVID joins the list */
	assert_true(vlan(&c.ports[1], 1) && vlan(&c.ports[1], 10) && vlan(&c.ports[1], 22));
	assert_false(vlan(&c.ports[1], 23));
	assert_true(c.ports[1].tagged);
	assert_int_equal(c.ports[1].flood_limit, 1000);
	assert_true(c.ports[2].skb);
	assert_int_equal(c.ports[2].learn_limit, 0);
	assert_int_equal(c.n_fdbs, 1);
	assert_int_equal(c.fdbs[0].vlan, 10);
	assert_string_equal(c.fdbs[0].ifname, "eth1");
	assert_false(fp_bridge_conf_port_same(&c.ports[0], &c.ports[1]));
	assert_true(fp_bridge_conf_port_same(&c.ports[0], &c.ports[0]));
	fp_bridge_conf_free(&c);

	parse_ok("port eth1\nfdb 02:00:00:00:00:01 eth1\n", &c); /* no bridge line: defaults */
	assert_int_equal(c.ageing_s, FP_BR_AGEING_DEFAULT_S);
	assert_false(c.vlan_aware);
	assert_int_equal(c.ports[0].pvid, 1);
	assert_false(vlan(&c.ports[0], 1)); /* not VLAN-aware: no VLANs kept */
	assert_int_equal(fp_bridge_conf_find_port(&c, "eth1"), 0);
	assert_int_equal(fp_bridge_conf_find_port(&c, "eth2"), -1);
	fp_bridge_conf_free(&c);
}

static void test_errors(void **state)
{
	(void)state;
	parse_bad("switch br0\n", "b.conf:1:1:", "bridge, port or fdb");
	parse_bad("bridge --ageing 0\n", "b.conf:1:17:", "1..1000000");
	parse_bad("bridge --stp\n", "b.conf:1:8:", "not '--stp'");
	parse_bad("bridge --address 01:00:5e:00:00:01\n", "b.conf:1:18:", "unicast MAC");
	parse_bad("port eth1\nbridge\n", "b.conf:2:1:", "comes first");
	parse_bad("bridge\nbridge\n", "b.conf:2:1:", "a second bridge line");
	parse_bad("port\n", "b.conf:1:1:", "needs an interface");
	parse_bad("port eth1/x\n", "b.conf:1:6:", "not an interface name");
	parse_bad("port eth1xxxxxxxxxxxx\n", "b.conf:1:6:", "not an interface name");
	parse_bad("port eth1 --pvid 10\n", "b.conf:1:1:", "VLAN-aware");
	parse_bad("bridge --vlan-aware\nport eth1 --pvid 4095\n", "b.conf:2:18:", "1..4094");
	parse_bad("bridge --vlan-aware\nport eth1 --vlans 10,,20\n", "b.conf:2:19:", "--vlans");
	parse_bad("bridge --vlan-aware\nport eth1 --tagged --untagged\n", "b.conf:2:20:",
		  "give one");
	parse_bad("port eth1 --mode turbo\n", "b.conf:1:18:", "native or skb");
	parse_bad("port eth1 --flood-limit\n", "b.conf:1:11:", "needs a value");
	parse_bad("port eth1 --learn-limit 65537\n", "b.conf:1:25:", "0..65536");
	parse_bad("port eth1\nport eth1\n", "b.conf:2:6:", "on line 1 already");
	parse_bad("fdb 02:00:00:00:00:01 eth1\n", "b.conf:1:23:", "no port line above");
	parse_bad("port eth1\nfdb 02:00:00:00:00:01 vlan 3 eth1\n", "b.conf:2:23:",
		  "not VLAN-aware");
	parse_bad("bridge --vlan-aware\nport eth1\nfdb 02:00:00:00:00:01 eth1\n", "b.conf:3:23:",
		  "vlan N");
	parse_bad("port eth1\nfdb 02:00:00:00:00:01 eth1\nfdb 02:00:00:00:00:01 eth1\n",
		  "b.conf:3:5:", "on line 2 already");
	parse_bad("port eth1\nfdb 02:00:00:00:00:01 eth1 eth2\n", "b.conf:2:28:", "one port");
	parse_bad("port eth1\nfdb zz:00:00:00:00:01 eth1\n", "b.conf:2:5:", "not a unicast MAC");
	parse_bad("port eth1 \x7f\n", "b.conf:1:11:", "control character");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statements),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
