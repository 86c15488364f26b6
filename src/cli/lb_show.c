// SPDX-License-Identifier: BSD-2-Clause
/* `fastpath lb list` and `lb stats`: what the lb's maps hold and count. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/lb_cli.h"
#include "lb/lb.h"
#include "lb/lb_health.h"

const char *lb_be_state(unsigned flags)
{
	if (flags & FP_LB_BE_DOWN)
		return "down";
	if (flags & FP_LB_BE_DRAIN)
		return "drain";
	return "up";
}

static void vip_of(const struct fp_lb_vip_info *v, int nv, __u32 index, char *buf, size_t len)
{
	snprintf(buf, len, "?");
	for (int i = 0; i < nv; i++)
		if (v[i].vip.index == index)
			fp_lb_vip_str(&v[i].key, buf, len);
}

static void emit_settings(struct fp_lb *lb, const char *ifname)
{
	struct fp_lb_meta m;
	char s4[64], s6[64];

	memset(&m, 0, sizeof(m));
	fp_lb__meta(lb, &m);
	fp_lb_addr_str(&m.src4, 4, s4, sizeof(s4));
	fp_lb_addr_str(m.src6, 6, s6, sizeof(s6));
	out_str("iface", ifname);
	out_u64("abi", m.abi_version);
	out_u64("conns", m.conns);
	out_strf("src4", "%s/%u", s4, m.src4_len);
	out_strf("src6", "%s/%u", s6, m.src6_len);
	out_u64("serial", m.serial);
}

int lb_do_list(struct cli *cli, int argc, char **argv)
{
	struct fp_lb_vip_info *v = NULL;
	struct fp_lb_be_info *b = NULL;
	struct fp_lb *lb;
	int nv = 0, nb = 0, ret = cli_nargs(cli, argc, argv, 1, 1);
	char s[80];

	if (ret)
		return ret;
	if ((ret = lb_cli_open(cli, argv[1], &lb)))
		return ret;
	ret = fp_lb__vips(lb, &v, &nv);
	if (!ret)
		ret = fp_lb__backends(lb, ~0u, true, &b, &nb);
	if (ret) {
		fp_lb__close(lb);
		free(v);
		return cli_fail(cli, "reading the lb's maps on %s failed: %s", argv[1],
				strerror(-ret));
	}
	out_obj_begin();
	emit_settings(lb, argv[1]);
	out_list_begin("vips");
	for (int i = 0; i < nv; i++) {
		out_row_begin();
		fp_lb_vip_str(&v[i].key, s, sizeof(s));
		out_str("vip", s);
		out_u64("index", v[i].vip.index);
		out_str("hash", v[i].vip.flags & FP_LB_VIP_HASH_SRC ? "src" : "5tuple");
		out_bool("port_any", v[i].vip.flags & FP_LB_VIP_PORT_ANY);
		out_u64("table_size", v[i].vip.table_size);
		out_u64("table_id", v[i].table_id);
		out_u64("serial", v[i].vip.serial);
		out_u64("backends", v[i].n_backends);
		out_row_end();
	}
	out_list_end();
	out_list_begin("backends");
	for (int i = 0; i < nb; i++) {
		out_row_begin();
		vip_of(v, nv, b[i].be.vip_index, s, sizeof(s));
		out_str("vip", s);
		fp_lb_addr_str(b[i].be.addr, b[i].be.family, s, sizeof(s));
		out_str("backend", s);
		out_u64("index", b[i].index);
		out_str("state", lb_be_state(b[i].be.flags));
		/* down by the health checker (it brings it up again), or by an operator */
		if (b[i].be.flags & FP_LB_BE_DOWN)
			out_str("down_by", fp_lb_health_took_down(lb, b[i].index, b[i].be.gen) ?
				"health" : "operator");
		else
			out_null("down_by");
		out_u64("weight", b[i].be.weight);
		out_u64("gen", b[i].be.gen);
		out_u64("slots", b[i].slots);
		out_row_end();
	}
	out_list_end();
	out_obj_end();
	free(v);
	free(b);
	fp_lb__close(lb);
	return CLI_OK;
}

/* ---- stats -------------------------------------------------------------- */

struct snap {
	double t;
	int nv, nb;
	struct fp_lb_vip_info *v;
	struct fp_lb_be_info *b;
	struct fp_lb_stats *vs, *bs;
	__u64 c[FP_LB_C_MAX];
};

static void snap_free(struct snap *s)
{
	free(s->v);
	free(s->b);
	free(s->vs);
	free(s->bs);
	memset(s, 0, sizeof(*s));
}

static int snap_take(struct fp_lb *lb, struct snap *s)
{
	struct timespec ts;
	int ret;

	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->t = ts.tv_sec + ts.tv_nsec / 1e9;
	ret = fp_lb__vips(lb, &s->v, &s->nv);
	if (!ret)
		ret = fp_lb__backends(lb, ~0u, false, &s->b, &s->nb);
	if (!ret) {
		s->vs = calloc(s->nv + 1, sizeof(*s->vs));
		s->bs = calloc(s->nb + 1, sizeof(*s->bs));
		ret = s->vs && s->bs ? 0 : -ENOMEM;
	}
	for (int i = 0; !ret && i < s->nv; i++)
		fp_lb__vip_stats(lb, s->v[i].vip.index, &s->vs[i]);
	for (int i = 0; !ret && i < s->nb; i++)
		fp_lb__be_stats(lb, s->b[i].index, &s->bs[i]);
	if (!ret)
		ret = fp_lb__counters(lb, s->c);
	if (ret)
		snap_free(s);
	return ret;
}

/* The counters of one row, and its packet rate against the row of the
 * same key in the reading before (prev NULL: none). */
static void emit_stats(const struct fp_lb_stats *x, const struct fp_lb_stats *prev, double dt)
{
	out_u64("packets", x->packets);
	out_u64("bytes", x->bytes);
	out_u64("new_flows", x->new_flows);
	out_u64("conn_hits", x->conn_hits);
	out_u64("conn_misses", x->conn_misses);
	if (prev && dt > 0 && x->packets >= prev->packets)
		out_double("pps", (x->packets - prev->packets) / dt);
	else if (prev)
		out_null("pps");
}

static const struct fp_lb_stats *prev_vip(const struct snap *p, __u32 index)
{
	for (int i = 0; p && i < p->nv; i++)
		if (p->v[i].vip.index == index)
			return &p->vs[i];
	return NULL;
}

static const struct fp_lb_stats *prev_be(const struct snap *p, const struct fp_lb_be_info *b)
{
	for (int i = 0; p && i < p->nb; i++)
		if (p->b[i].index == b->index && p->b[i].be.gen == b->be.gen)
			return &p->bs[i];
	return NULL;
}

static void emit_snap(struct fp_lb *lb, const char *ifname, const struct snap *s,
		      const struct snap *p)
{
	double dt = p ? s->t - p->t : 0;
	char str[80];

	out_obj_begin();
	out_str("iface", ifname);
	(void)lb;
	out_list_begin("vips");
	for (int i = 0; i < s->nv; i++) {
		out_row_begin();
		fp_lb_vip_str(&s->v[i].key, str, sizeof(str));
		out_str("vip", str);
		out_u64("index", s->v[i].vip.index);
		emit_stats(&s->vs[i], p ? prev_vip(p, s->v[i].vip.index) : NULL, dt);
		out_row_end();
	}
	out_list_end();
	out_list_begin("backends");
	for (int i = 0; i < s->nb; i++) {
		out_row_begin();
		vip_of(s->v, s->nv, s->b[i].be.vip_index, str, sizeof(str));
		out_str("vip", str);
		fp_lb_addr_str(s->b[i].be.addr, s->b[i].be.family, str, sizeof(str));
		out_str("backend", str);
		out_str("state", lb_be_state(s->b[i].be.flags));
		emit_stats(&s->bs[i], p ? prev_be(p, &s->b[i]) : NULL, dt);
		out_row_end();
	}
	out_list_end();
	out_list_begin("counters");
	for (unsigned c = 0; c < FP_LB_C_MAX; c++) {
		out_row_begin();
		out_str("cause", fp_lb_counter_name(c));
		out_u64("packets", s->c[c]);
		out_row_end();
	}
	out_list_end();
	out_obj_end();
}

int lb_do_stats(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "watch", optional_argument, NULL, 'w' }, { "count", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct snap cur, prev;
	struct fp_lb *lb;
	double period = 1;
	long count = 0;
	bool watch = false, have_prev = false;
	char *end;
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (c == 'w') {
			watch = true;
			/* a number after --watch is its SECONDS */
			if (!optarg && optind < argc && argv[optind][0] >= '0' &&
			    argv[optind][0] <= '9' && (strtod(argv[optind], &end), !*end))
				optarg = argv[optind++];
			if (optarg) {
				period = strtod(optarg, &end);
				if (*end || !(period > 0 && period <= 3600))
					return cli_usage(cli, "--watch takes seconds (0 < S <= 3600), "
							 "not '%s'", optarg);
			}
		} else if (c == 'n') {
			count = strtol(optarg, &end, 10);
			if (*end || count < 1)
				return cli_usage(cli, "--count takes a number >= 1, not '%s'", optarg);
		} else if (c == ':') {
			return cli_usage(cli, "%s needs a value", argv[optind - 1]);
		} else {
			return cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (cli_operands(cli, argc, argv, optind, 1, "IFACE"))
		return CLI_USAGE;
	if (count && !watch)
		return cli_usage(cli, "--count goes with --watch");
	if ((ret = lb_cli_open(cli, argv[optind], &lb)))
		return ret;
	for (long round = 0;; round++) {
		ret = snap_take(lb, &cur);
		if (ret) {
			fp_lb__close(lb);
			if (have_prev)
				snap_free(&prev);
			return cli_fail(cli, "reading the lb's counters on %s failed: %s",
					argv[optind], strerror(-ret));
		}
		if (watch && !out_is_json() && isatty(1))
			printf("\033[H\033[2J");
		emit_snap(lb, argv[optind], &cur, have_prev ? &prev : NULL);
		fflush(stdout);
		if (have_prev)
			snap_free(&prev);
		prev = cur;
		have_prev = true;
		if (!watch || (count && round + 1 >= count))
			break;
		usleep((useconds_t)(period * 1e6));
	}
	snap_free(&prev);
	fp_lb__close(lb);
	return CLI_OK;
}
