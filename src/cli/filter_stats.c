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

#include "cli/cli_num.h"
#include "cli/filter_cli.h"
#include "pipeline/pipeline.h"
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

/*
 * One reading of the pipeline's stage table: opened afresh each time, so a
 * --watch follows a reload of the pipeline or of any stage.
 */
struct stages_reading {
	struct fp_pipeline_info in;
};

/* 0, -ENOENT (no pipeline; err says how to load one) or another -errno. */
static int read_stages(const struct cli *cli, const char *ifname, struct stages_reading *r,
		       char *err, size_t errlen)
{
	struct fp_pipeline *pl;
	int ret = fp_pipeline__open(ifname, cli->bpffs, &pl, err, errlen);

	if (ret)
		return ret;
	memset(r, 0, sizeof(*r));
	ret = fp_pipeline__info(pl, &r->in);
	if (ret)
		snprintf(err, errlen, "cannot read the pipeline pinned for %s: %s", ifname,
			 strerror(-ret));
	fp_pipeline__close(pl);
	return ret;
}

/* Every loaded stage in slot order: enabled, packets in and out by verdict
 * ("-" when the stage counts nothing), the rate in (against the reading
 * before, of the same load of the pipeline and of the stage). */
static void emit_stages(const struct stages_reading *cur, const struct stages_reading *prev,
			double dt)
{
	bool same_pl = prev && prev->in.meta.loaded_ns == cur->in.meta.loaded_ns;

	out_list_begin("stages");
	for (unsigned s = 0; s < FP_STAGE_CHAIN; s++) {
		const struct fp_slot_info *si = &cur->in.slot[s];
		const struct fp_slot_info *then = same_pl ? &prev->in.slot[s] : NULL;

		if (!si->stage || !si->loaded)
			continue;
		out_row_begin();
		out_str("stage", si->stage->name);
		out_u64("slot", s);
		out_bool("enabled", si->enabled);
		cli_out_stage_counts(&si->counts);
		/* a stage reloaded since (counters from 0) has no rate yet */
		if (then && then->loaded && then->counts.have && si->counts.have &&
		    si->counts.in >= then->counts.in && dt > 0)
			out_double("pps", (si->counts.in - then->counts.in) / dt);
		else
			out_null("pps");
		out_row_end();
	}
	out_list_end();
}

/*
 * The report: with st (`fastpath stats`), the stage block first and
 * filter_loaded; then, when v is there, the filter's keys and rule table.
 */
static void emit_stats(const char *ifname, const struct fp_filter_view *v,
		       const struct fp_filter_view *prev, double dt,
		       const struct stages_reading *st, const struct stages_reading *st_prev)
{
	const struct fp_rule_cnt **then;
	bool same_dflt;
	char share[sizeof(v->meta.share)];

	out_obj_begin();
	out_str("iface", ifname);
	if (st) {
		out_bool("filter_loaded", v != NULL);
		emit_stages(st, st_prev, dt);
	}
	if (!v) {
		out_obj_end();
		return;
	}
	then = rules_then(v, prev);
	same_dflt = prev && prev->has_rules && prev->default_verdict == v->default_verdict;
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

/*
 * The notice of a --watch of `fastpath stats` when the pipeline or the
 * filter on it came or went between two readings ("": neither).
 */
static void stages_notice(const char *ifname, bool had_pl, bool has_pl, bool had_f,
			  const struct fp_filter *f, const char *fnote, char *notice, size_t len)
{
	notice[0] = 0;
	if (had_pl && !has_pl)
		snprintf(notice, len, "%s: fastpath was unloaded; waiting for a load "
			 "(Ctrl-C to stop)", ifname);
	else if (!had_pl && has_pl)
		snprintf(notice, len, "%s: fastpath was loaded again; showing the new load "
			 "(counters and generations start over)", ifname);
	else if (had_f && !f)
		snprintf(notice, len, "%s: the filter was unloaded; showing the other stages",
			 ifname);
	else if (f && (!had_f || fnote[0]))
		snprintf(notice, len, "%s: the filter was loaded; showing its rules (its "
			 "counters and generations start over)", ifname);
}

/* all: `fastpath stats`, every stage of the pipeline and the filter's
 * rules when it is loaded; else `filter stats`, the filter only. */
static int do_stats(struct cli *cli, int argc, char **argv, bool all)
{
	static const struct option opts[] = {
		{ "watch", optional_argument, NULL, 'w' },
		{ "interval", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	struct fp_filter_view prev = { 0 }, cur;
	struct stages_reading st_prev, st_cur;
	double period = 0, interval_ms = 1000, t_prev = 0;
	bool watch = false, tty = isatty(1) && !out_is_json(), have_prev = false;
	bool have_st_prev = false, has_pl = true;
	struct fp_filter *f = NULL;
	const char *ifname;
	char err[512];
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
	ifname = argv[optind];
	if (all) {
		/* the pipeline must be there; the filter may not be */
		ret = read_stages(cli, ifname, &st_prev, err, sizeof(err));
		if (ret)
			return cli_fail(cli, "%s", err);
		ret = fp_filter__open(ifname, cli->bpffs, &f, err, sizeof(err));
		if (ret && ret != -ENOENT)
			return cli_fail(cli, "%s", err);
	} else {
		ret = filter_open(cli, ifname, &f);
		if (ret)
			return ret;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!watch && interval_ms > 0) {
		/* two readings give current rates */
		have_st_prev = all;
		if (f && fp_filter__view(f, &prev) == 0)
			have_prev = true;
		t_prev = cli_now_s();
		usleep(interval_ms * 1000);
	} else {
		t_prev = cli_now_s();
	}
	if (tty && watch)
		fputs("\033[?25l", stdout); /* hide the cursor while refreshing */
	do {
		double t = cli_now_s();
		char notice[256] = "";
		bool had_pl = has_pl, had_f = f != NULL, shown;

		if (all) {
			ret = read_stages(cli, ifname, &st_cur, err, sizeof(err));
			if (ret && (ret != -ENOENT || !watch)) {
				ret = cli_fail(cli, "%s", err);
				break;
			}
			has_pl = !ret;
			if (!has_pl)
				have_st_prev = false;
		}
		if (watch) {
			char fnote[256];

			ret = follow_load(cli, ifname, &f, fnote, sizeof(fnote));
			if (ret)
				break;
			if (fnote[0] || !f) { /* another load: no rates against the old one */
				fp_filter_view__free(&prev);
				have_prev = false;
			}
			if (all)
				stages_notice(ifname, had_pl, has_pl, had_f, f, fnote, notice,
					      sizeof(notice));
			else
				snprintf(notice, sizeof(notice), "%s", fnote);
			if (notice[0] && !tty)
				fprintf(stderr, "fastpath: %s\n", notice);
		}
		shown = all ? has_pl : f != NULL;
		if (shown) {
			if (f && (ret = fp_filter__view(f, &cur))) {
				ret = cli_fail(cli, "reading counters of %s failed: %s", ifname,
					       strerror(-ret));
				break;
			}
			if (tty && watch)
				fputs("\033[H\033[2J", stdout);
			emit_stats(ifname, f ? &cur : NULL, have_prev ? &prev : NULL, t - t_prev,
				   all ? &st_cur : NULL, have_st_prev ? &st_prev : NULL);
			if (f) {
				have_prev = true;
				fp_filter_view__free(&prev);
				prev = cur;
			}
			if (all) {
				st_prev = st_cur;
				have_st_prev = true;
			}
			t_prev = t;
		} else if (tty) {
			fputs("\033[H\033[2J", stdout);
		}
		if (tty && watch && (notice[0] || !shown))
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

int filter_do_stats(struct cli *cli, int argc, char **argv)
{
	return do_stats(cli, argc, argv, false);
}

static int stats_all(struct cli *cli, int argc, char **argv)
{
	return do_stats(cli, argc, argv, true);
}

static const struct cli_verb stats_cmd = {
	"stats", "IFACE [--watch [SECONDS]] [--interval MS]",
	"every stage's packets in and out, then the filter's per-rule counters", stats_all,
	"       First every loaded stage of the pipeline in slot order: enabled, packets in\n"
	"       and out by verdict (aborted, drop, pass, tx, redirect), packets/s in; then,\n"
	"       when the filter is loaded, its rules (else filter_loaded: no, not an error).\n"
	"       Counters are per rule since load: an apply, add or del keeps the counters of\n"
	"       every rule it leaves unchanged (same id and text); a new or changed rule\n"
	"       starts from 0. Stage counters since load. Rates: two readings --interval MS\n"
	"       apart (default 1000, 0 for none), or between redraws with --watch.\n"
	"         --watch [SECONDS]   redraw every SECONDS (default 1) until Ctrl-C; with -j one\n"
	"                             JSON object a line. Follows an unload and a new load\n"
	"                             (waits while none), saying so on stderr\n"
	"       Example: fastpath -j stats eth0 --watch 5 >> stats.jsonl\n",
};

/* `fastpath stats IFACE`: the stages of the pipeline, then what
 * `fastpath filter stats IFACE` shows when the filter is loaded. */
int cmd_stats(struct cli *cli, int argc, char **argv)
{
	return cli_run(cli, &stats_cmd, argc, argv);
}
