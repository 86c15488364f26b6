// SPDX-License-Identifier: BSD-2-Clause
/* `filter list` and `filter stats`: the live rules and their counters. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>

#include "cli/filter_cli.h"

static void rule_id(const char *text, char *id, size_t len)
{
	struct fp_rule r;
	struct fp_diags d = { 0 };

	if (fp_rule__parse(text, 0, &r, &d) == 0)
		snprintf(id, len, "%s", r.id);
	else
		snprintf(id, len, "?");
	fp_diags__free(&d);
}

int filter_do_list(struct cli *cli, int argc, char **argv)
{
	struct fp_filter_view v;
	struct fp_filter *f;
	int ret = cli_nargs(cli, argc, argv, 1, 1);

	if (ret)
		return ret;
	ret = filter_open(cli, argv[1], &f);
	if (ret)
		return ret;
	ret = fp_filter__view(f, &v);
	fp_filter__close(f);
	if (ret)
		return cli_fail(cli, "reading the rules of %s failed: %s", argv[1], strerror(-ret));
	out_list_begin("rules");
	for (size_t i = 0; i < v.n_rules; i++) {
		char id[FP_RULE_ID_MAX];

		rule_id(v.rules[i].text, id, sizeof(id));
		out_row_begin();
		out_u64("pos", i + 1);
		out_str("id", id);
		out_u64("packets", v.rules[i].total.packets);
		out_u64("bytes", v.rules[i].total.bytes);
		out_str("rule", v.rules[i].text);
		out_row_end();
	}
	out_row_begin();
	out_null("pos");
	out_str("id", "default");
	out_u64("packets", v.dflt.packets);
	out_u64("bytes", v.dflt.bytes);
	out_strf("rule", "default %s", v.default_verdict == XDP_DROP ? "drop" : "pass");
	out_row_end();
	out_list_end();
	fp_filter_view__free(&v);
	return CLI_OK;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Largest share of one CPU in a rule's packets, in percent (skew). */
static double cpu_skew(const struct fp_filter_rule_info *r)
{
	uint64_t max = 0;

	if (!r->total.packets)
		return 0;
	for (uint32_t c = 0; c < r->ncpu; c++)
		if (r->per_cpu[c].packets > max)
			max = r->per_cpu[c].packets;
	return 100.0 * max / r->total.packets;
}

static void rate_fields(uint64_t pkts, uint64_t bytes, uint64_t pkts0, uint64_t bytes0,
			bool have_then, double dt)
{
	if (have_then && dt > 0) {
		out_double("pps", (pkts - pkts0) / dt);
		out_double("bps", 8.0 * (bytes - bytes0) / dt);
	} else {
		out_null("pps");
		out_null("bps");
	}
}

static void rule_row(const char *id, const struct fp_rule_cnt *c, const struct fp_rule_cnt *then,
		     double dt, const struct fp_filter_rule_info *skew)
{
	out_row_begin();
	out_str("id", id);
	out_u64("packets", c->packets);
	out_u64("bytes", c->bytes);
	out_u64("drops", c->drops);
	out_u64("samples", c->samples);
	rate_fields(c->packets, c->bytes, then ? then->packets : 0, then ? then->bytes : 0,
		    then != NULL, dt);
	if (skew)
		out_double("cpu_max_pct", cpu_skew(skew));
	else
		out_null("cpu_max_pct");
	out_row_end();
}

static void emit_stats(const char *ifname, const struct fp_filter_view *v,
		       const struct fp_filter_view *prev, double dt)
{
	bool same_gen = prev && prev->state.serial == v->state.serial && prev->n_rules == v->n_rules;

	out_obj_begin();
	out_str("iface", ifname);
	out_u64("generation", v->state.serial);
	out_u64("samples", v->smp.sampled);
	out_u64("samples_lost", v->smp.lost);
	out_list_begin("rules");
	for (size_t i = 0; i < v->n_rules; i++) {
		char id[FP_RULE_ID_MAX];

		rule_id(v->rules[i].text, id, sizeof(id));
		rule_row(id, &v->rules[i].total, same_gen ? &prev->rules[i].total : NULL, dt,
			 &v->rules[i]);
	}
	rule_row("default", &v->dflt, same_gen ? &prev->dflt : NULL, dt, NULL);
	out_list_end();
	out_list_begin("stage");
	for (int s = 0; s < FP_FLT_ST_MAX; s++) {
		out_row_begin();
		out_str("stage", "filter");
		out_str("decision", fp_filter_stat__name(s));
		out_u64("packets", v->stage[s].packets);
		out_u64("bytes", v->stage[s].bytes);
		rate_fields(v->stage[s].packets, v->stage[s].bytes,
			    prev ? prev->stage[s].packets : 0, prev ? prev->stage[s].bytes : 0,
			    prev != NULL, dt);
		out_row_end();
	}
	out_list_end();
	out_obj_end();
}

int filter_do_stats(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "watch", optional_argument, NULL, 'w' },
		{ "interval", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	struct fp_filter_view prev = { 0 }, cur;
	double period = 0, interval_ms = 1000, t_prev = 0;
	bool watch = false, tty = isatty(1) && !out_is_json(), have_prev = false;
	struct fp_filter *f;
	int c, ret;

	optind = 0; /* 0: GNU getopt re-initializes fully (main.c used it already) */
	while ((c = getopt_long(argc, argv, "w::i:", opts, NULL)) != -1) {
		char *end;

		if (c == 'w') {
			watch = true;
			period = 1;
			/* a number after --watch is its SECONDS, also a bad one ("0") */
			if (!optarg && optind < argc && argv[optind][0] != '-' &&
			    (strtod(argv[optind], &end), end != argv[optind] && !*end))
				optarg = argv[optind++];
			if (optarg) {
				period = strtod(optarg, &end);
				if (*end || period <= 0 || period > 3600)
					return cli_usage(cli, "--watch takes seconds (0 < S <= 3600), not '%s'",
							 optarg);
			}
		} else if (c == 'i') {
			interval_ms = strtod(optarg, &end);
			if (*end || interval_ms < 0 || interval_ms > 60000)
				return cli_usage(cli, "--interval takes milliseconds 0..60000");
		} else {
			return cli_usage(cli, "unknown option");
		}
	}
	if (argc - optind != 1)
		return cli_usage(cli, "expected IFACE");
	ret = filter_open(cli, argv[optind], &f);
	if (ret)
		return ret;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!watch && interval_ms > 0) {
		/* two readings give current rates */
		if (fp_filter__view(f, &prev) == 0) {
			have_prev = true;
			t_prev = now_s();
			usleep(interval_ms * 1000);
		}
	} else {
		t_prev = now_s();
	}
	if (tty && watch)
		fputs("\033[?25l", stdout); /* hide the cursor while refreshing */
	do {
		double t = now_s();

		ret = fp_filter__view(f, &cur);
		if (ret) {
			ret = cli_fail(cli, "reading counters of %s failed: %s", argv[optind],
				       strerror(-ret));
			break;
		}
		if (tty && watch)
			fputs("\033[H\033[2J", stdout);
		emit_stats(argv[optind], &cur, have_prev ? &prev : NULL, t - t_prev);
		have_prev = true;
		fflush(stdout);
		fp_filter_view__free(&prev);
		prev = cur;
		t_prev = t;
		if (watch)
			for (double slept = 0; slept < period && !stop; slept += 0.1)
				usleep(100000);
	} while (watch && !stop);
	if (tty && watch)
		fputs("\033[?25h", stdout);
	fp_filter_view__free(&prev);
	fp_filter__close(f);
	return ret;
}

static const struct cli_verb stats_cmd = {
	"stats", "IFACE [--watch [SECONDS]] [--interval MS]",
	"per-stage and per-rule packets, bytes, drops, samples, rates", filter_do_stats,
	"       Counters are per rule of the live generation (from zero at each apply), stage\n"
	"       counters since load. Rates: two readings --interval MS apart (default 1000,\n"
	"       0 for none), or between redraws with --watch.\n"
	"         --watch [SECONDS]   redraw every SECONDS (default 1) until Ctrl-C; with -j one\n"
	"                             JSON object a line\n"
	"       Example: fastpath -j stats eth0 --watch 5 >> stats.jsonl\n",
};

/* `fastpath stats IFACE`: the same view as `fastpath filter stats IFACE`. */
int cmd_stats(struct cli *cli, int argc, char **argv)
{
	return cli_run(cli, &stats_cmd, argc, argv);
}
