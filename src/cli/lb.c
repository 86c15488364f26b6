// SPDX-License-Identifier: BSD-2-Clause
/*
 * `fastpath lb`: load and unload the lb stage, its VIPs and their backends
 * (src/lb). Syntax errors exit 2 before anything is touched; an edit the
 * maps refuse (an unknown VIP, a limit) exits 1 and changes nothing.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/audit.h"
#include "cli/cli.h"
#include "cli/cli_num.h"
#include "cli/lb_cli.h"
#include "lb/lb.h"
#include "lb/maglev.h"
#include "pipeline/pipeline.h"

void lb_cli_audit(const struct cli *cli, const char *verb, const char *ifname,
		  const char *note, const char *error, double ms)
{
	char v[32];

	snprintf(v, sizeof(v), "lb %s", verb);
	cli_audit(cli, &(struct cli_audit){ .verb = v, .iface = ifname, .note = note,
					    .error = error, .ms = ms });
}

/* A library error: input the maps refuse as such (-EINVAL) is a usage
 * error, anything else a runtime failure. */
static int lib_fail(const struct cli *cli, int ret, const char *err)
{
	if (ret == -EINVAL)
		return cli_usage(cli, "%s", err);
	return cli_fail(cli, "%s", err);
}

int lb_cli_open(const struct cli *cli, const char *ifname, struct fp_lb **lb)
{
	char err[512];
	int ret = fp_lb__open(ifname, cli->bpffs, lb, err, sizeof(err));

	return ret ? cli_fail(cli, "%s", err) : CLI_OK;
}

/* "--opt" value as an unsigned number, or a usage error. */
static int parse_u32(const struct cli *cli, const char *opt, const char *s, __u32 *v)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (!*s || *end || errno || s[0] == '-' || x > 0xffffffffull)
		return cli_usage(cli, "%s '%s' is not a number", opt, s);
	*v = (__u32)x;
	return CLI_OK;
}

/* ---- load, unload ------------------------------------------------------- */

static int do_load(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' }, { "conns", required_argument, NULL, 'c' },
		{ "src4", required_argument, NULL, '4' }, { "src6", required_argument, NULL, '6' },
		{ NULL, 0, NULL, 0 },
	};
	struct fp_lb_load_opts o = { .bpffs = cli->bpffs };
	struct fp_lb_meta m;
	struct fp_lb *lb;
	struct timespec t0;
	char err[512], s4[64], s6[64];
	__u8 a[16], l;
	int c, ret, fwd4 = -1, fwd6 = -1;
	double ms;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "skb") || !strcmp(optarg, "generic"))
				o.skb_mode = true;
			else if (strcmp(optarg, "native") && strcmp(optarg, "drv"))
				return cli_usage(cli, "--mode takes native or skb, not '%s'", optarg);
			break;
		case 'c':
			if ((ret = parse_u32(cli, "--conns", optarg, &o.conns)))
				return ret;
			if (o.conns < FP_LB_CONNS_MIN || o.conns > FP_LB_CONNS_MAX)
				return cli_usage(cli, "--conns %u: give %u..%u", o.conns,
						 FP_LB_CONNS_MIN, FP_LB_CONNS_MAX);
			break;
		case '4':
		case '6':
			if (fp_lb_parse_prefix(optarg, c - '0', a, &l, err, sizeof(err)))
				return cli_usage(cli, "%s", err);
			*(c == '4' ? &o.src4 : &o.src6) = optarg;
			break;
		case ':':
			return cli_usage(cli, "%s needs a value", argv[optind - 1]);
		default:
			return cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (cli_operands(cli, argc, argv, optind, 1, "IFACE"))
		return CLI_USAGE;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = fp_lb__load(argv[optind], &o, err, sizeof(err));
	ms = cli_ms_since(&t0);
	lb_cli_audit(cli, "load", argv[optind], ret ? NULL : "loaded", ret ? err : NULL, ms);
	if (ret)
		return lib_fail(cli, ret, err);
	if ((ret = lb_cli_open(cli, argv[optind], &lb)))
		return ret;
	fp_lb__meta(lb, &m);
	fp_lb_forwarding(argv[optind], &fwd4, &fwd6);
	if ((fwd4 == 0 || fwd6 == 0) && !out_is_json())
		out_warn("IP forwarding is off on this host for %s: the kernel refuses the lb's "
			 "next hops until it is on (counted as fib_fail): sysctl -w %s", fwd4 == 0 &&
			 fwd6 == 0 ? "IPv4 and IPv6" : fwd4 == 0 ? "IPv4" : "IPv6",
			 fwd4 == 0 && fwd6 == 0 ? "net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1" :
			 fwd4 == 0 ? "net.ipv4.ip_forward=1" : "net.ipv6.conf.all.forwarding=1");
	fp_lb_addr_str(&m.src4, 4, s4, sizeof(s4));
	fp_lb_addr_str(m.src6, 6, s6, sizeof(s6));
	out_obj_begin();
	out_str("iface", argv[optind]);
	out_bool("loaded", true);
	out_u64("abi", m.abi_version);
	out_u64("conns", m.conns);
	out_strf("src4", "%s/%u", s4, m.src4_len);
	out_strf("src6", "%s/%u", s6, m.src6_len);
	out_double("load_ms", ms);
	if (fwd4 >= 0)
		out_bool("ipv4_forwarding", fwd4 > 0);
	if (fwd6 >= 0)
		out_bool("ipv6_forwarding", fwd6 > 0);
	out_obj_end();
	fp_lb__close(lb);
	return CLI_OK;
}

static int do_unload(struct cli *cli, int argc, char **argv)
{
	struct fp_unload_report r;
	struct timespec t0;
	char err[512];
	int ret = cli_nargs(cli, argc, argv, 1, 1);

	if (ret)
		return ret;
	memset(&r, 0, sizeof(r));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = fp_lb__unload(argv[1], cli->bpffs, &r, err, sizeof(err));
	lb_cli_audit(cli, "unload", argv[1], ret ? NULL : "unloaded", ret ? err : NULL, cli_ms_since(&t0));
	if (ret < 0)
		return cli_fail(cli, "%s", err);
	cli_report_unload(argv[1], &r, true, ret > 0 ? err : NULL);
	return CLI_OK;
}

/* ---- vip ---------------------------------------------------------------- */

static void emit_vip(const char *ifname, const char *vs, const struct fp_lb_vip *v)
{
	out_obj_begin();
	out_str("iface", ifname);
	out_str("vip", vs);
	out_u64("index", v->index);
	out_str("hash", v->flags & FP_LB_VIP_HASH_SRC ? "src" : "5tuple");
	out_bool("port_any", v->flags & FP_LB_VIP_PORT_ANY);
	out_u64("table_size", v->table_size);
	out_obj_end();
}

static int do_vip_add(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hash", required_argument, NULL, 'h' }, { "port-any", no_argument, NULL, 'p' },
		{ "table-size", required_argument, NULL, 't' }, { NULL, 0, NULL, 0 },
	};
	struct fp_lb_vip_key k;
	struct fp_lb_vip v;
	struct fp_lb *lb;
	struct timespec t0;
	__u32 flags = 0, hash = 0, size = FP_MAGLEV_DEFAULT_SIZE;
	char err[512], vs[80];
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			if (fp_lb_parse_hash(optarg, &hash))
				return cli_usage(cli, "--hash takes 5tuple or src, not '%s'", optarg);
			break;
		case 'p':
			flags |= FP_LB_VIP_PORT_ANY;
			break;
		case 't':
			if ((ret = parse_u32(cli, "--table-size", optarg, &size)))
				return ret;
			if (size < 5 || size > FP_MAGLEV_MAX_SIZE || !fp_maglev_is_prime(size))
				return cli_usage(cli, "--table-size %u: give a prime 5..%u (default "
						 "%u)", size, FP_MAGLEV_MAX_SIZE,
						 FP_MAGLEV_DEFAULT_SIZE);
			break;
		case ':':
			return cli_usage(cli, "%s needs a value", argv[optind - 1]);
		default:
			return cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (cli_operands(cli, argc, argv, optind, 2, "IFACE VIP"))
		return CLI_USAGE;
	if (fp_lb_parse_vip(argv[optind + 1], &k, err, sizeof(err)))
		return cli_usage(cli, "%s", err);
	if ((ret = lb_cli_open(cli, argv[optind], &lb)))
		return ret;
	fp_lb_vip_str(&k, vs, sizeof(vs));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = fp_lb__vip_add(lb, &k, flags | hash, size, &v, err, sizeof(err));
	lb_cli_audit(cli, "vip add", argv[optind], ret ? NULL : vs, ret ? err : NULL, cli_ms_since(&t0));
	if (!ret)
		emit_vip(argv[optind], vs, &v);
	fp_lb__close(lb);
	return ret ? lib_fail(cli, ret, err) : CLI_OK;
}

static int do_vip_del(struct cli *cli, int argc, char **argv)
{
	struct fp_lb_vip_key k;
	struct fp_lb *lb;
	struct timespec t0;
	char err[512], vs[80];
	int ret = cli_nargs(cli, argc, argv, 2, 2);

	if (ret)
		return ret;
	if (fp_lb_parse_vip(argv[2], &k, err, sizeof(err)))
		return cli_usage(cli, "%s", err);
	if ((ret = lb_cli_open(cli, argv[1], &lb)))
		return ret;
	fp_lb_vip_str(&k, vs, sizeof(vs));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = fp_lb__vip_del(lb, &k, err, sizeof(err));
	lb_cli_audit(cli, "vip del", argv[1], ret ? NULL : vs, ret ? err : NULL, cli_ms_since(&t0));
	fp_lb__close(lb);
	if (ret)
		return lib_fail(cli, ret, err);
	out_obj_begin();
	out_str("iface", argv[1]);
	out_str("vip", vs);
	out_bool("deleted", true);
	out_obj_end();
	return CLI_OK;
}

static const struct cli_verb vip_verbs[] = {
	{ "add", "IFACE VIP [--hash 5tuple|src] [--port-any] [--table-size P]",
	  "add a VIP (ADDR:PORT/tcp|udp, [ADDR]:PORT/tcp for IPv6; with --port-any "
	  "ADDR/tcp: every port) with an empty Maglev table of P slots (a prime, "
	  "default 65537); --hash src keeps a client on one backend", do_vip_add,
	  "Examples:\n"
	  "  fastpath lb vip add eth0 198.51.100.10:80/tcp\n"
	  "  fastpath lb vip add eth0 [2001:db8::10]:443/tcp --hash src\n"
	  "  fastpath lb vip add eth0 198.51.100.11/udp --port-any --table-size 251" },
	{ "del", "IFACE VIP", "delete a VIP and its backends", do_vip_del,
	  "Example:\n  fastpath lb vip del eth0 198.51.100.10:80/tcp" },
	{ NULL },
};

static int do_vip(struct cli *cli, int argc, char **argv)
{
	cli->object = "lb vip";
	return cli_dispatch(cli, vip_verbs, argc - 1, argv + 1);
}

/* ---- backend ------------------------------------------------------------ */

static int backend_op(struct cli *cli, int argc, char **argv, enum fp_lb_be_op op)
{
	static const struct option opts[] = {
		{ "weight", required_argument, NULL, 'w' }, { NULL, 0, NULL, 0 },
	};
	struct fp_lb_be_result r;
	struct fp_lb_vip_key k;
	struct fp_lb *lb;
	struct timespec t0;
	__u32 weight = 1;
	char err[512], vs[80], bs[64], note[160];
	__u8 addr[16], af;
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (c == 'w' && op == FP_LB_OP_ADD) {
			if ((ret = parse_u32(cli, "--weight", optarg, &weight)))
				return ret;
			if (weight < 1 || weight > FP_MAGLEV_MAX_WEIGHT)
				return cli_usage(cli, "--weight %u: give 1..%u (`backend drain` "
						 "takes its new flows away)", weight,
						 FP_MAGLEV_MAX_WEIGHT);
		} else if (c == 'w') {
			/* getopt took its value: argv[optind - 1] is that, not the option */
			return cli_usage(cli, "--weight goes with `backend add` (to change a "
					 "weight: backend del, backend add --weight W)");
		} else if (c == ':') {
			return cli_usage(cli, "%s needs a value", argv[optind - 1]);
		} else {
			return cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (cli_operands(cli, argc, argv, optind, 3, "IFACE VIP BACKEND_ADDR"))
		return CLI_USAGE;
	if (fp_lb_parse_vip(argv[optind + 1], &k, err, sizeof(err)) ||
	    fp_lb_parse_addr(argv[optind + 2], addr, &af, err, sizeof(err)))
		return cli_usage(cli, "%s", err);
	if ((ret = lb_cli_open(cli, argv[optind], &lb)))
		return ret;
	fp_lb_vip_str(&k, vs, sizeof(vs));
	fp_lb_addr_str(addr, af, bs, sizeof(bs));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = fp_lb__backend(lb, &k, af, addr, op, weight, &r, err, sizeof(err));
	snprintf(note, sizeof(note), "%s %s", vs, bs);
	{
		char v[32];

		snprintf(v, sizeof(v), "backend %s", fp_lb_op_name(op));
		lb_cli_audit(cli, v, argv[optind], ret ? NULL : note, ret ? err : NULL, cli_ms_since(&t0));
	}
	fp_lb__close(lb);
	if (ret)
		return lib_fail(cli, ret, err);
	if (r.note[0] && !out_is_json())
		out_warn("%s", r.note);
	out_obj_begin();
	out_str("iface", argv[optind]);
	out_str("vip", vs);
	out_str("backend", bs);
	out_str("op", fp_lb_op_name(op));
	out_str("state", op == FP_LB_OP_DEL ? "deleted" :
		op == FP_LB_OP_DRAIN ? "drain" : op == FP_LB_OP_DOWN ? "down" : "up");
	out_bool("changed", r.changed);
	out_u64("index", r.index);
	out_u64("gen", r.gen);
	out_u64("table_id", r.table_id);
	out_u64("active_backends", r.active);
	if (op == FP_LB_OP_ADD) {
		out_u64("weight", weight);
		if (r.egress_ifindex)
			out_u64("egress_ifindex", r.egress_ifindex);
		else
			out_null("egress_ifindex");
		out_bool("egress_redirect", r.egress_added);
		out_bool("neigh_warmed", r.warmed);
		out_str("note", r.note[0] ? r.note : NULL);
	}
	out_obj_end();
	return CLI_OK;
}

static int do_be_add(struct cli *c, int n, char **v) { return backend_op(c, n, v, FP_LB_OP_ADD); }
static int do_be_del(struct cli *c, int n, char **v) { return backend_op(c, n, v, FP_LB_OP_DEL); }
static int do_be_drain(struct cli *c, int n, char **v) { return backend_op(c, n, v, FP_LB_OP_DRAIN); }
static int do_be_down(struct cli *c, int n, char **v) { return backend_op(c, n, v, FP_LB_OP_DOWN); }
static int do_be_up(struct cli *c, int n, char **v) { return backend_op(c, n, v, FP_LB_OP_UP); }

static const struct cli_verb backend_verbs[] = {
	{ "add", "IFACE VIP BACKEND_ADDR [--weight W]",
	  "add a backend to a VIP (weight 1..65535, default 1): a new Maglev table is "
	  "switched in; the route's egress port and neighbour entry are prepared", do_be_add,
	  "Examples:\n"
	  "  fastpath lb backend add eth0 198.51.100.10:80/tcp 10.0.0.11\n"
	  "  fastpath lb backend add eth0 198.51.100.10:80/tcp 10.0.0.12 --weight 2\n"
	  "  fastpath lb backend add eth0 [2001:db8::10]:443/tcp 2001:db8:1::11" },
	{ "del", "IFACE VIP BACKEND_ADDR", "remove a backend (its flows move)", do_be_del,
	  "Example:\n  fastpath lb backend del eth0 198.51.100.10:80/tcp 10.0.0.11" },
	{ "drain", "IFACE VIP BACKEND_ADDR",
	  "no new flows to the backend; its established flows stay", do_be_drain,
	  "Example:\n  fastpath lb backend drain eth0 198.51.100.10:80/tcp 10.0.0.11" },
	{ "down", "IFACE VIP BACKEND_ADDR",
	  "take the backend out: its flows move to the table's next choice", do_be_down,
	  "Example:\n  fastpath lb backend down eth0 198.51.100.10:80/tcp 10.0.0.11" },
	{ "up", "IFACE VIP BACKEND_ADDR", "back in service after drain or down", do_be_up,
	  "Example:\n  fastpath lb backend up eth0 198.51.100.10:80/tcp 10.0.0.11" },
	{ NULL },
};

static int do_backend(struct cli *cli, int argc, char **argv)
{
	cli->object = "lb backend";
	return cli_dispatch(cli, backend_verbs, argc - 1, argv + 1);
}

static const struct cli_verb lb_verbs[] = {
	{ "load", "IFACE [--mode native|skb] [--conns N] [--src4 PREFIX/LEN] [--src6 PREFIX/LEN]",
	  "load the lb stage into IFACE's pipeline (loaded first if absent); --conns sizes "
	  "the connection table in flows (default 1048576, rounded up to a power of two); --src4/--src6: the outer source ranges "
	  "whose host bits the flow hash fills (default 172.16.0.0/16, 100::/96)", do_load,
	  "Examples:\n"
	  "  fastpath lb load eth0\n"
	  "  fastpath lb load eth0 --conns 4000000 --src4 10.255.0.0/16" },
	{ "unload", "IFACE", "remove the lb stage (and the pipeline, if the lb's load made it "
	  "and no stage is left)", do_unload, "Example:\n  fastpath lb unload eth0" },
	{ "vip", "{ add | del } IFACE VIP ...", "add or delete a VIP (`fastpath lb vip help`)",
	  do_vip, NULL },
	{ "backend", "{ add | del | drain | down | up } IFACE VIP BACKEND_ADDR",
	  "change a VIP's backends (`fastpath lb backend help`)", do_backend, NULL },
	{ "apply", "IFACE FILE [--dry-run] [--load [--mode native|skb]]",
	  "make the lb equal to a configuration FILE (`lb save` writes one; fastpath-lb(8), "
	  "CONFIGURATION FILE): the whole file is checked first, then only what differs is "
	  "edited, VIP by VIP; an edit that fails undoes the ones before it. --dry-run prints "
	  "the edits and stops; --load loads the lb first (with the file's load line) when it "
	  "is not loaded", lb_do_apply,
	  "Examples:\n"
	  "  fastpath lb apply --dry-run eth0 /etc/fastpath/lb-eth0.conf\n"
	  "  fastpath lb apply --load eth0 /etc/fastpath/lb-eth0.conf\n"
	  "  systemctl enable --now fastpath-lb@eth0" },
	{ "save", "IFACE [FILE]",
	  "write the lb's settings, VIPs and backends as a configuration file that `lb apply` "
	  "makes the same lb from (to stdout without FILE; FILE is replaced whole or not at "
	  "all); a backend the health checker took down is written as up", lb_do_save,
	  "Example:\n  fastpath lb save eth0 /etc/fastpath/lb-eth0.conf" },
	{ "list", "IFACE", "the settings, VIPs and backends (state, weight, table slots)",
	  lb_do_list, "Example:\n  fastpath -j lb list eth0" },
	{ "stats", "IFACE [--watch [SECONDS]] [--count N]",
	  "packets, bytes, new flows, connection-table hits and misses per VIP and "
	  "backend, and the packets not forwarded by cause", lb_do_stats,
	  "Examples:\n  fastpath lb stats eth0\n  fastpath lb stats eth0 --watch 2" },
	{ "health", "IFACE [--interval S] [--rise N] [--fall N] [--timeout MS] [--port P] "
	  "[--http PATH [--expect CODE]] [--direct] [--count N]",
	  "probe every backend (TCP connect to the VIP's port, or an HTTP GET) every S "
	  "seconds (default 2), as clients reach it: to the VIP, encapsulated to the backend "
	  "(a tc egress program on IFACE takes probes marked 0x46500000 + backend index; "
	  "--direct: to the backend's own address instead); "
	  "down after N failures in a row (--fall, default 3), up after "
	  "N successes (--rise, default 2); state pinned, so a restart changes nothing; "
	  "prints each change (each probe with -v or --count)", lb_do_health,
	  "Examples:\n"
	  "  fastpath lb health eth0 --interval 1 --fall 3 --rise 2\n"
	  "  fastpath -j lb health eth0 --http /healthz --expect 200\n"
	  "  systemctl enable --now fastpath-lb-health@eth0" },
	{ NULL },
};

int cmd_lb(struct cli *cli, int argc, char **argv)
{
	/* `lb vip add --help` is the help of `vip add`, not of `vip` */
	if (argc >= 1 && (!strcmp(argv[0], "vip") || !strcmp(argv[0], "backend")))
		return argv[0][0] == 'v' ? do_vip(cli, argc, argv) : do_backend(cli, argc, argv);
	return cli_dispatch(cli, lb_verbs, argc, argv);
}
