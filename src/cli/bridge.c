// SPDX-License-Identifier: BSD-2-Clause
/*
 * `fastpath bridge`: a layer-2 switch in XDP between member ports, in the
 * words of bridge(8) where they fit: create and destroy a bridge, add and
 * delete its ports, read and edit its forwarding database (fdb), show it,
 * and its per-port counters (stats; bridge_show.c). The work is in src/bridge.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/bridge_cli.h"
#include "bridge/bridge.h"
#include "pipeline/pipeline.h"

int bridge_name_arg(const struct cli *cli, const char *name)
{
	char err[256];

	if (fp_bridge__check_name(name, err, sizeof(err)))
		return cli_usage(cli, "%s", err);
	return CLI_OK;
}

/* A number in [min, max] for an option; a usage error otherwise. */
int bridge_num_arg(const struct cli *cli, const char *opt, const char *s, unsigned long min,
		   unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || *v < min || *v > max)
		return cli_usage(cli, "%s takes a number from %lu to %lu, not '%s'", opt, min, max,
				 s);
	return CLI_OK;
}

void bridge_mac_str(const __u8 *m, char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* ---- create, destroy ------------------------------------------------------ */

static int do_create(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ageing", required_argument, NULL, 'a' },
		{ "vlan-aware", no_argument, NULL, 'V' },
		{ "address", required_argument, NULL, 'm' },
		{ 0 },
	};
	struct fp_bridge_opts o = { .bpffs = cli->bpffs };
	unsigned long v;
	char err[512];
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if ((ret = bridge_num_arg(cli, "--ageing", optarg, 1, 1000000, &v)))
				return ret;
			o.ageing_s = (__u32)v;
			break;
		case 'V':
			o.vlan_aware = true;
			break;
		case 'm':
			if (fp_mac_parse(optarg, o.address) || (o.address[0] & 1))
				return cli_usage(cli, "--address takes a unicast MAC such as "
						 "02:00:00:00:00:01, not '%s'", optarg);
			o.have_address = true;
			break;
		case ':':
			return cli_usage(cli, "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return cli_usage(cli, "expected NAME");
	if ((ret = bridge_name_arg(cli, argv[optind])))
		return ret;
	ret = fp_bridge__create(argv[optind], &o, err, sizeof(err));
	if (ret)
		return cli_fail(cli, "%s", err);
	out_obj_begin();
	out_str("bridge", argv[optind]);
	out_bool("created", true);
	out_u64("ageing_s", o.ageing_s ? o.ageing_s : FP_BR_AGEING_DEFAULT_S);
	out_bool("vlan_aware", o.vlan_aware);
	out_obj_end();
	return CLI_OK;
}

static int do_destroy(struct cli *cli, int argc, char **argv)
{
	char err[512];
	int ret = cli_nargs(cli, argc, argv, 1, 1), n = 0;

	if (ret || (ret = bridge_name_arg(cli, argv[1])))
		return ret;
	ret = fp_bridge__destroy(cli->bpffs, argv[1], &n, err, sizeof(err));
	if (ret)
		return cli_fail(cli, "%s%s", err, n ? " (some ports were taken out)" : "");
	out_obj_begin();
	out_str("bridge", argv[1]);
	out_bool("destroyed", true);
	out_u64("ports_removed", (unsigned)n);
	out_obj_end();
	return CLI_OK;
}

/* ---- ports ------------------------------------------------------------------ */

static int do_add(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'M' },
		{ "pvid", required_argument, NULL, 'P' },
		{ "vlans", required_argument, NULL, 'L' },
		{ "tagged", no_argument, NULL, 'T' },
		{ "untagged", no_argument, NULL, 'U' },
		{ "flood-limit", required_argument, NULL, 'F' },
		{ "learn-limit", required_argument, NULL, 'l' },
		{ 0 },
	};
	struct fp_bridge_port_opts o = { .bpffs = cli->bpffs };
	bool untagged = false;
	unsigned long v;
	char err[512];
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'M':
			if (!strcmp(optarg, "skb"))
				o.skb_mode = true;
			else if (strcmp(optarg, "native"))
				return cli_usage(cli, "--mode takes native or skb, not '%s'", optarg);
			break;
		case 'P':
			if ((ret = bridge_num_arg(cli, "--pvid", optarg, 1, 4094, &v)))
				return ret;
			o.pvid = (__u16)v;
			break;
		case 'L':
			if (fp_vlan_list_parse(optarg, o.vlans, err, sizeof(err)))
				return cli_usage(cli, "--vlans: %s", err);
			o.have_vlans = true;
			break;
		case 'T':
			o.tagged = true;
			break;
		case 'F':
			if ((ret = bridge_num_arg(cli, "--flood-limit", optarg, 1, 100000000, &v)))
				return ret;
			o.flood_limit = (__u32)v;
			break;
		case 'l':
			if ((ret = bridge_num_arg(cli, "--learn-limit", optarg, 0, FP_BR_FDB_MAX, &v)))
				return ret;
			o.learn_limit = (__u32)v;
			o.have_learn_limit = true;
			break;
		case 'U':
			untagged = true;
			break;
		case ':':
			return cli_usage(cli, "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o.tagged && untagged)
		return cli_usage(cli, "--tagged and --untagged: give one (the port's egress mode)");
	if (argc - optind != 2)
		return cli_usage(cli, "expected NAME IFACE");
	if ((ret = bridge_name_arg(cli, argv[optind])))
		return ret;
	ret = fp_bridge__add_port(argv[optind], argv[optind + 1], &o, err, sizeof(err));
	if (ret)
		return cli_fail(cli, "%s", err);
	out_obj_begin();
	out_str("bridge", argv[optind]);
	out_str("port", argv[optind + 1]);
	out_bool("added", true);
	out_obj_end();
	return CLI_OK;
}

static int do_del(struct cli *cli, int argc, char **argv)
{
	bool gone = false;
	char err[512];
	int ret = cli_nargs(cli, argc, argv, 2, 2);

	if (ret || (ret = bridge_name_arg(cli, argv[1])))
		return ret;
	ret = fp_bridge__del_port(cli->bpffs, argv[1], argv[2], &gone, err, sizeof(err));
	if (ret < 0)
		return cli_fail(cli, "%s", err);
	out_obj_begin();
	out_str("bridge", argv[1]);
	out_str("port", argv[2]);
	out_bool("deleted", true);
	out_bool("pipeline_unloaded", gone);
	out_obj_end();
	return CLI_OK;
}

/* ---- fdb ------------------------------------------------------------------ */

static void port_name(__u32 ifindex, char *buf)
{
	if (!if_indextoname(ifindex, buf))
		snprintf(buf, IF_NAMESIZE, "#%u", ifindex);
}

static int fdb_show(struct cli *cli, const char *name)
{
	struct fp_bridge_fdb_entry *e = calloc(FP_BR_FDB_MAX, sizeof(*e));
	struct fp_bridge *b = NULL;
	char err[512];
	int n, aged = 0, ret;

	if (!e)
		return cli_fail(cli, "out of memory");
	ret = fp_bridge__open(cli->bpffs, name, &b, err, sizeof(err));
	if (ret) {
		free(e);
		return cli_fail(cli, "%s", err);
	}
	n = fp_bridge__fdb(b, e, FP_BR_FDB_MAX, &aged);
	if (n < 0) {
		fp_bridge__close(b);
		free(e);
		return cli_fail(cli, "reading bridge %s's fdb failed: %s", name, strerror(-n));
	}
	out_list_begin("fdb");
	for (int i = 0; i < n && i < FP_BR_FDB_MAX; i++) {
		char mac[24], port[IF_NAMESIZE];

		bridge_mac_str(e[i].key.mac, mac, sizeof(mac));
		port_name(e[i].val.ifindex, port);
		out_row_begin();
		out_str("mac", mac);
		out_u64("vlan", e[i].key.vlan);
		out_str("port", port);
		out_u64("ifindex", e[i].val.ifindex);
		out_double("age_s", (double)e[i].age_ns / 1e9);
		out_str("state", e[i].val.flags & FP_BR_FDB_STATIC ? "static" : "learned");
		out_row_end();
	}
	out_list_end();
	fp_bridge__close(b);
	free(e);
	return CLI_OK;
}

/* fdb add|del NAME MAC [vlan N] [IFACE] */
static int fdb_edit(struct cli *cli, bool add, int argc, char **argv)
{
	struct fp_bridge *b = NULL;
	unsigned long vlan = 0;
	const char *ifname = NULL;
	char err[512];
	__u8 mac[6];
	int i = 3, ret;

	if (argc < 4)
		return cli_usage(cli, "expected fdb %s NAME MAC [vlan N] %s", add ? "add" : "del",
				 add ? "IFACE" : "[IFACE]");
	if ((ret = bridge_name_arg(cli, argv[2])))
		return ret;
	if (fp_mac_parse(argv[3], mac))
		return cli_usage(cli, "'%s' is not a MAC address (aa:bb:cc:dd:ee:ff)", argv[3]);
	i = 4;
	if (i < argc && !strcmp(argv[i], "vlan")) {
		if (i + 1 >= argc)
			return cli_usage(cli, "vlan needs a number");
		if ((ret = bridge_num_arg(cli, "vlan", argv[i + 1], 1, 4094, &vlan)))
			return ret;
		i += 2;
	}
	if (i < argc)
		ifname = argv[i++];
	if (i < argc)
		return cli_usage(cli, "unexpected '%s'", argv[i]);
	if (add && !ifname)
		return cli_usage(cli, "expected IFACE: the port behind which the address is");
	ret = fp_bridge__open(cli->bpffs, argv[2], &b, err, sizeof(err));
	if (ret)
		return cli_fail(cli, "%s", err);
	if (add) {
		ret = fp_bridge__fdb_add(b, mac, (__u16)vlan, ifname, err, sizeof(err));
	} else {
		struct fp_bridge_fdb_entry *e = calloc(FP_BR_FDB_MAX, sizeof(*e));
		int n = e ? fp_bridge__fdb(b, e, FP_BR_FDB_MAX, NULL) : -ENOMEM;

		ret = 0;
		/* with IFACE: only the entry behind that port */
		for (int k = 0; ifname && k < n && k < FP_BR_FDB_MAX; k++) {
			char port[IF_NAMESIZE];

			if (memcmp(e[k].key.mac, mac, 6) || e[k].key.vlan != vlan)
				continue;
			port_name(e[k].val.ifindex, port);
			if (strcmp(port, ifname)) {
				snprintf(err, sizeof(err), "%s is behind %s, not %s: nothing removed",
					 argv[3], port, ifname);
				ret = -ENOENT;
			}
		}
		free(e);
		if (!ret)
			ret = fp_bridge__fdb_del(b, mac, (__u16)vlan, err, sizeof(err));
	}
	fp_bridge__close(b);
	if (ret)
		return cli_fail(cli, "%s", err);
	out_obj_begin();
	out_str("bridge", argv[2]);
	out_str("mac", argv[3]);
	out_u64("vlan", vlan);
	out_str("port", ifname);
	out_bool(add ? "added" : "deleted", true);
	out_obj_end();
	return CLI_OK;
}

static int do_fdb(struct cli *cli, int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "add") || !strcmp(argv[1], "del")) && argc > 2)
		return fdb_edit(cli, argv[1][0] == 'a', argc, argv);
	if (argc != 2)
		return cli_usage(cli, "expected NAME, or add|del NAME MAC [vlan N] IFACE");
	if (bridge_name_arg(cli, argv[1]))
		return CLI_USAGE;
	return fdb_show(cli, argv[1]);
}

static const struct cli_verb bridge_verbs[] = {
	{ "create", "NAME [--ageing S] [--vlan-aware] [--address MAC]",
	  "make a bridge: its forwarding database (learned entries age out after S seconds, "
	  "300 by default) and port map; --vlan-aware: frames are switched within their VLAN "
	  "only; MAC: an address of the host's own on it", do_create,
	  "Examples: fastpath bridge create br0 --ageing 120\n"
	  "          fastpath bridge create br1 --vlan-aware\n" },
	{ "destroy", "NAME", "take every port out of the bridge and remove it", do_destroy,
	  "Example:  fastpath bridge destroy br0\n" },
	{ "add", "NAME IFACE [--pvid N] [--vlans LIST] [--tagged | --untagged] "
	  "[--flood-limit PPS] [--learn-limit N] [--mode { native | skb }]",
	  "make IFACE a port of the bridge: the bridge stage in slot 4 of its pipeline "
	  "(loaded if there is none); refused for a port of any bridge already. VLAN-aware "
	  "bridges: untagged frames in are of VLAN N (1), LIST the VLANs allowed (with N), "
	  "frames leave tagged or untagged (the default). --flood-limit: flooded frames "
	  "(broadcast, multicast, unknown) from IFACE past PPS a second are dropped. "
	  "--learn-limit: IFACE learns at most N FDB entries (4096 by default, 0: no limit); "
	  "past it new sources are not learned (counted as learn_limited)", do_add,
	  "Examples: fastpath bridge add br0 eth1 --learn-limit 1000\n"
	  "          fastpath bridge add br1 eth2 --pvid 10\n"
	  "          fastpath bridge add br1 eth3 --vlans 10,20-30 --tagged\n" },
	{ "del", "NAME IFACE", "take IFACE out of the bridge (its pipeline goes too when the "
	  "bridge loaded it and no other stage is on it)", do_del,
	  "Example:  fastpath bridge del br0 eth1\n" },
	{ "fdb", "NAME | { add | del } NAME MAC [vlan N] IFACE",
	  "the forwarding database: MAC, VLAN, port, age and state (static or learned; aged "
	  "entries are removed as they are read), or add and delete static entries", do_fdb,
	  "Examples: fastpath -j bridge fdb br0\n"
	  "          fastpath bridge fdb add br0 02:00:00:00:00:0a eth1\n" },
	{ "apply", "NAME FILE [--dry-run]",
	  "make the bridge equal to a configuration FILE (`bridge save` writes one; "
	  "fastpath-bridge(8), CONFIGURATION FILE), creating it if it is not there: the whole "
	  "file is checked first, then only what differs is edited (a port whose options "
	  "changed is taken out and added again); an edit that fails undoes the ones before "
	  "it. --dry-run prints the edits and stops", bridge_do_apply,
	  "Examples: fastpath bridge apply --dry-run br0 /etc/fastpath/bridge-br0.conf\n"
	  "          systemctl enable --now fastpath-bridge@br0\n" },
	{ "save", "NAME [FILE]",
	  "write the bridge's settings, ports and static FDB entries as a configuration file "
	  "that `bridge apply` makes the same bridge from (to stdout without FILE; FILE is "
	  "replaced whole or not at all); learned entries are not configuration", bridge_do_save,
	  "Example:  fastpath bridge save br0 /etc/fastpath/bridge-br0.conf\n" },
	{ "show", "[NAME]", "a bridge's settings and ports; without NAME, the bridges", bridge_do_show,
	  "Example:  fastpath bridge show br0\n" },
	{ "stats", "NAME [--watch [S]]", "per port: frames in, forwarded, flooded, passed to "
	  "the host, dropped by cause, FDB entries learned, moved and aged, sources not "
	  "learned (learn_limited: the port at its limit; learn_full: the FDB full)", bridge_do_stats,
	  "Example:  fastpath bridge stats br0 --watch\n" },
	{ NULL },
};

int cmd_bridge(struct cli *cli, int argc, char **argv)
{
	return cli_dispatch(cli, bridge_verbs, argc, argv);
}
