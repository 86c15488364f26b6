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
#include "util/htab.h"

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

/* Largest share of one CPU in a rule's packets since the last apply, in
 * percent (skew; the counts carried from before are not per CPU). */
static double cpu_skew(const struct fp_filter_rule_info *r)
{
	uint64_t max = 0, sum = 0;

	for (uint32_t c = 0; c < r->ncpu; c++) {
		sum += r->per_cpu[c].packets;
		if (r->per_cpu[c].packets > max)
			max = r->per_cpu[c].packets;
	}
	return sum ? 100.0 * max / sum : 0;
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

/*
 * Each rule's counters in the reading before (NULL: none): the rule of the
 * same text, which keeps its counters across an apply that kept it, so its
 * rate goes on; a rule new or changed since has no rate yet.
 */
static const struct fp_rule_cnt **rules_then(const struct fp_filter_view *v,
					      const struct fp_filter_view *prev)
{
	const struct fp_rule_cnt **then = calloc(v->n_rules + 1, sizeof(*then));
	struct fp_htab by_text = { 0 };

	if (!then || !prev)
		return then;
	if (prev->state.serial == v->state.serial && prev->n_rules == v->n_rules) {
		for (size_t i = 0; i < v->n_rules; i++)
			then[i] = &prev->rules[i].total;
		return then;
	}
	if (fp_htab__init(&by_text, sizeof(uint64_t), prev->n_rules * 2 + 16))
		return then;
	for (size_t i = 0; i < prev->n_rules; i++) {
		uint64_t h = fp_hash_bytes(prev->rules[i].text, strlen(prev->rules[i].text));

		fp_htab__add(&by_text, &h, i);
	}
	for (size_t i = 0; i < v->n_rules; i++) {
		uint64_t h = fp_hash_bytes(v->rules[i].text, strlen(v->rules[i].text));
		uint32_t *at = fp_htab__find(&by_text, &h);

		if (at && !strcmp(prev->rules[*at].text, v->rules[i].text))
			then[i] = &prev->rules[*at].total;
	}
	fp_htab__free(&by_text);
	return then;
}

static void emit_stats(const char *ifname, const struct fp_filter_view *v,
		       const struct fp_filter_view *prev, double dt)
{
	const struct fp_rule_cnt **then = rules_then(v, prev);
	bool same_dflt = prev && prev->has_rules && prev->default_verdict == v->default_verdict;

	char share[sizeof(v->meta.share)];

	out_obj_begin();
	out_str("iface", ifname);
	/* a share's: the rule rows are every member's, the stage rows this one's */
	snprintf(share, sizeof(share), "%.*s", (int)sizeof(share) - 1, v->meta.share);
	out_str("share", share[0] ? share : NULL);
	out_u64("generation", v->state.serial);
	out_u64("samples", v->smp.sampled);
	out_u64("samples_lost", v->smp.lost);
	out_list_begin("rules");
	for (size_t i = 0; i < v->n_rules; i++) {
		char id[FP_RULE_ID_MAX];

		rule_id(v->rules[i].text, id, sizeof(id));
		rule_row(id, &v->rules[i].total, then ? then[i] : NULL, dt, &v->rules[i]);
	}
	rule_row("default", &v->dflt, same_dflt ? &prev->dflt : NULL, dt, NULL);
	free(then);
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

/*
 * --watch across an unload and a new load: the descriptors of f keep the
 * old load's maps alive, detached, and would show them as if live. Each
 * refresh checks that the pins are still those of f's load; if not, f is
 * closed and the new load opened. While fastpath is not loaded, the watch
 * waits for a load (as `tail -F` waits for a file), since a reload takes a
 * second or more and an operator watching it wants to see the new one.
 * Returns 0 (*f NULL while not loaded) or CLI_FAIL.
 * *notice gets what changed, for the operator.
 */
static int follow_load(const struct cli *cli, const char *ifname, struct fp_filter **f,
		       char *notice, size_t len)
{
	char err[512];
	int ret;

	notice[0] = 0;
	if (*f) {
		ret = fp_filter__pins_current(*f, ifname, cli->bpffs);
		if (ret == 1)
			return 0;
		if (ret < 0 && ret != -ENOENT)
			return cli_fail(cli, "checking the pins of %s failed: %s", ifname,
					strerror(-ret));
		fp_filter__close(*f);
		*f = NULL;
		if (ret == -ENOENT)
			snprintf(notice, len, "%s: fastpath was unloaded; waiting for a load "
				 "(Ctrl-C to stop)", ifname);
	}
	ret = fp_filter__open(ifname, cli->bpffs, f, err, sizeof(err));
	if (ret == -ENOENT) /* not loaded, or a load still pinning */
		return 0;
	if (ret)
		return cli_fail(cli, "%s", err);
	snprintf(notice, len, "%s: fastpath was loaded again; showing the new load (counters "
		 "and generations start over)", ifname);
	return 0;
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
		char notice[256] = "";

		if (watch) {
			ret = follow_load(cli, argv[optind], &f, notice, sizeof(notice));
			if (ret)
				break;
			if (notice[0]) { /* another load: no rates against the old one */
				fp_filter_view__free(&prev);
				have_prev = false;
			}
			if (notice[0] && !tty)
				fprintf(stderr, "fastpath: %s\n", notice);
		}
		if (f) {
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
			fp_filter_view__free(&prev);
			prev = cur;
			t_prev = t;
		} else if (tty) {
			fputs("\033[H\033[2J", stdout);
		}
		if (tty && watch && (notice[0] || !f))
			printf("\n%s\n", notice[0] ? notice :
			       "fastpath is not loaded here; waiting for a load (Ctrl-C to stop)");
		fflush(stdout);
		ret = CLI_OK;
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
	"       Counters are per rule since load: an apply, add or del keeps the counters of\n"
	"       every rule it leaves unchanged (same id and text); a new or changed rule\n"
	"       starts from 0. Stage counters since load. Rates: two readings --interval MS\n"
	"       apart (default 1000, 0 for none), or between redraws with --watch.\n"
	"         --watch [SECONDS]   redraw every SECONDS (default 1) until Ctrl-C; with -j one\n"
	"                             JSON object a line. Follows an unload and a new load\n"
	"                             (waits while none), saying so on stderr\n"
	"       Example: fastpath -j stats eth0 --watch 5 >> stats.jsonl\n",
};

/* `fastpath stats IFACE`: the same view as `fastpath filter stats IFACE`. */
int cmd_stats(struct cli *cli, int argc, char **argv)
{
	return cli_run(cli, &stats_cmd, argc, argv);
}
