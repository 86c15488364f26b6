// SPDX-License-Identifier: BSD-2-Clause
/* `fastpath bridge show` and `bridge stats`: a bridge's settings and ports,
 * and its per-port counters (once, or refreshed with --watch). */
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

static int show_one(struct cli *cli, const char *name)
{
	struct fp_br_port *ports = calloc(FP_BR_PORTS_MAX, sizeof(*ports));
	struct fp_bridge *b = NULL;
	struct fp_br_cfg cfg;
	char err[512];
	int n, ret;

	if (!ports)
		return cli_fail(cli, "out of memory");
	ret = fp_bridge__open(cli->bpffs, name, &b, err, sizeof(err));
	if (ret) {
		free(ports);
		return cli_fail(cli, "%s", err);
	}
	if (fp_bridge__config(b, &cfg)) {
		fp_bridge__close(b);
		free(ports);
		return cli_fail(cli, "reading bridge %s's config failed", name);
	}
	n = fp_bridge__ports(b, ports, FP_BR_PORTS_MAX);
	out_obj_begin();
	out_str("bridge", name);
	out_u64("ageing_s", cfg.ageing_ns / 1000000000ull);
	out_bool("vlan_aware", cfg.flags & FP_BR_VLAN_AWARE);
	out_bool("stp", false);
	out_list_begin("ports");
	for (int i = 0; i < n && i < FP_BR_PORTS_MAX; i++) {
		char mac[24], now[IF_NAMESIZE];

		bridge_mac_str(ports[i].mac, mac, sizeof(mac));
		out_row_begin();
		out_str("port", if_indextoname(ports[i].ifindex, now) ? now : ports[i].ifname);
		out_u64("ifindex", ports[i].ifindex);
		out_str("mac", mac);
		out_bool("present", if_indextoname(ports[i].ifindex, now) != NULL);
		if (ports[i].flood_limit)
			out_u64("flood_limit", ports[i].flood_limit);
		else
			out_null("flood_limit");
		if (ports[i].learn_limit)
			out_u64("learn_limit", ports[i].learn_limit);
		else
			out_null("learn_limit");
		{
			int learned = fp_bridge__learned(b, &ports[i]);

			if (learned >= 0)
				out_u64("learned", (__u64)learned);
			else
				out_null("learned");
		}
		if (cfg.flags & FP_BR_VLAN_AWARE) {
			char list[512];

			fp_vlan_list_format(ports[i].vlans, list, sizeof(list));
			out_u64("pvid", ports[i].pvid);
			out_str("egress", ports[i].flags & FP_BR_PORT_TAGGED ? "tagged" : "untagged");
			out_str("vlans", list);
		}
		out_row_end();
	}
	out_list_end();
	out_obj_end();
	fp_bridge__close(b);
	free(ports);
	return CLI_OK;
}

int bridge_do_show(struct cli *cli, int argc, char **argv)
{
	char names[64][16];
	int n;

	if (argc > 2)
		return cli_usage(cli, "expected [NAME]");
	if (argc == 2)
		return bridge_name_arg(cli, argv[1]) ? CLI_USAGE : show_one(cli, argv[1]);
	n = fp_bridge__list(fp_bpffs_root(cli->bpffs), names, 64);
	out_list_begin("bridges");
	for (int i = 0; i < n && i < 64; i++) {
		out_row_begin();
		out_str("bridge", names[i]);
		out_row_end();
	}
	out_list_end();
	return CLI_OK;
}

struct port_stats {
	char port[IF_NAMESIZE];
	struct fp_br_stats s;
	bool have;
};

static const struct {
	const char *key;
	int stat;
} stat_cols[] = {
	{ "in", FP_BR_ST_IN },
	{ "forwarded", FP_BR_ST_FORWARD },
	{ "flooded", FP_BR_ST_FLOOD },
	{ "to_host", FP_BR_ST_HOST },
	{ "not_member", FP_BR_ST_NOT_MEMBER },
	{ "not_eth", FP_BR_ST_NOT_ETH },
	{ "drop_hairpin", FP_BR_ST_DROP_HAIRPIN },
	{ "drop_bad_src", FP_BR_ST_DROP_BAD_SRC },
	{ "drop_no_bridge", FP_BR_ST_DROP_NO_BRIDGE },
	{ "learned", FP_BR_ST_LEARNED },
	{ "moved", FP_BR_ST_MOVED },
	{ "aged", FP_BR_ST_AGED },
	{ "drop_vlan", FP_BR_ST_DROP_VLAN },
	{ "drop_vlan_out", FP_BR_ST_DROP_VLAN_OUT },
	{ "drop_storm", FP_BR_ST_DROP_STORM },
	{ "learn_limited", FP_BR_ST_LEARN_LIMITED },
	{ "learn_full", FP_BR_ST_LEARN_FULL },
};
#define N_STAT_COLS (int)(sizeof(stat_cols) / sizeof(stat_cols[0]))

static int read_stats(const struct fp_bridge *b, struct port_stats *ps, int max)
{
	struct fp_br_port ports[FP_BR_PORTS_MAX];
	int n = fp_bridge__ports(b, ports, FP_BR_PORTS_MAX);

	for (int i = 0; i < n && i < max; i++) {
		if (!if_indextoname(ports[i].ifindex, ps[i].port))
			snprintf(ps[i].port, sizeof(ps[i].port), "%.*s", IF_NAMESIZE - 1,
				 ports[i].ifname);
		ps[i].have = fp_bridge__port_stats(b, ps[i].port, &ps[i].s) == 0;
	}
	return n < max ? n : max;
}

static void emit_stats_row(const struct port_stats *p, const struct port_stats *prev, double dt)
{
	out_str("port", p->port);
	for (int c = 0; c < N_STAT_COLS; c++) {
		if (p->have)
			out_u64(stat_cols[c].key, p->s.n[stat_cols[c].stat]);
		else
			out_null(stat_cols[c].key);
	}
	if (prev && p->have && prev->have && dt > 0)
		out_double("in_pps", (double)(p->s.n[FP_BR_ST_IN] - prev->s.n[FP_BR_ST_IN]) / dt);
}

static volatile sig_atomic_t stop_watch;
static void on_signal(int sig) { (void)sig; stop_watch = 1; }

int bridge_do_stats(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "watch", optional_argument, NULL, 'w' },
		{ 0 },
	};
	static struct port_stats now[FP_BR_PORTS_MAX], prev[FP_BR_PORTS_MAX];
	struct fp_bridge *b = NULL;
	unsigned long secs = 1;
	bool watch = false;
	char err[512];
	int c, n, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			watch = true;
			if (optarg && (ret = bridge_num_arg(cli, "--watch", optarg, 1, 3600, &secs)))
				return ret;
			break;
		default:
			return cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return cli_usage(cli, "expected NAME");
	if ((ret = bridge_name_arg(cli, argv[optind])))
		return ret;
	ret = fp_bridge__open(cli->bpffs, argv[optind], &b, err, sizeof(err));
	if (ret)
		return cli_fail(cli, "%s", err);
	n = read_stats(b, now, FP_BR_PORTS_MAX);
	if (!watch) {
		out_list_begin("ports");
		for (int i = 0; i < n; i++) {
			out_row_begin();
			emit_stats_row(&now[i], NULL, 0);
			out_row_end();
		}
		out_list_end();
		fp_bridge__close(b);
		return CLI_OK;
	}
	/* --watch: one line a port each interval, with the rate of frames in */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	while (!stop_watch) {
		int np;

		memcpy(prev, now, sizeof(now));
		np = n;
		sleep((unsigned)secs);
		if (stop_watch)
			break;
		n = read_stats(b, now, FP_BR_PORTS_MAX);
		for (int i = 0; i < n; i++) {
			const struct port_stats *was = NULL;

			for (int j = 0; j < np; j++)
				if (!strcmp(prev[j].port, now[i].port))
					was = &prev[j];
			out_line_begin();
			emit_stats_row(&now[i], was, (double)secs);
			out_line_end();
		}
	}
	fp_bridge__close(b);
	return CLI_OK;
}
