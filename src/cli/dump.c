// SPDX-License-Identifier: BSD-2-Clause
/*
 * `fastpath dump IFACE -w FILE|-`: sampled packets with their XDP verdict
 * and rule, to pcapng. Ends on SIGINT, SIGTERM, SIGHUP, --count, --duration
 * or its reader going away (-w - into a pipe) with every buffered sample
 * written, then reports sampled / written / lost. The file has its header
 * at once and whole blocks at most 100 ms old, so a dump killed outright
 * leaves a readable file; the kernel switches its sampling off then
 * (dump_exit.bpf.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_num.h"
#include "cli/filter_cli.h"
#include "cli/pkt_out.h"
#include "dump/dump.h"
#include "dump/pcapng.h"

static volatile sig_atomic_t stop;

#define DUMP_BUF (64 * 1024) /* FILE buffer and pcapng flush_at of -w FILE */

static void on_signal(int sig)
{
	stop = 1;
}

struct sink {
	struct pkt_out out;
	uint64_t written, skipped, limit;
};

static int on_sample(void *ctx, const struct fp_sample *s, const uint8_t *data,
		     const char *rule_id, uint64_t ts_ns)
{
	struct sink *k = ctx;
	char comment[128];

	if (k->limit && k->written >= k->limit) {
		k->skipped++;
		return 1;
	}
	const struct fp_stage_ops *st = fp_stage_by_slot(s->stage);

	if (s->stage == FP_STAGE_FILTER)
		snprintf(comment, sizeof(comment), "verdict=%s rule=%s stage=filter",
			 fp_pcapng_xdp_name(s->verdict), rule_id ? rule_id : "default");
	else
		snprintf(comment, sizeof(comment), "verdict=%s stage=%s reason=%u",
			 fp_pcapng_xdp_name(s->verdict), st ? st->name : "?", s->rule);
	if (pkt_out_write(&k->out, ts_ns, data, s->cap_len, s->pkt_len, s->verdict, comment))
		return 1;
	k->written++;
	return 0;
}

static int dump_run(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "write", required_argument, NULL, 'w' }, { "drops", no_argument, NULL, 'D' },
		{ "match", required_argument, NULL, 'm' }, { "rule", required_argument, NULL, 'r' },
		{ "sample", required_argument, NULL, 's' }, { "snaplen", required_argument, NULL, 'S' },
		{ "count", required_argument, NULL, 'c' }, { "duration", required_argument, NULL, 'd' },
		{ "stage", required_argument, NULL, 'T' }, { NULL, 0, NULL, 0 },
	};
	const struct fp_stage_ops *st;
	struct fp_pipeline *pl = NULL;
	struct fp_dump_opts o = { 0 };
	struct fp_rule match;
	struct fp_filter *f = NULL;
	struct fp_dump *d = NULL;
	struct sink k = { 0 };
	const char *path = NULL, *ifname;
	uint64_t v, duration = 0, sampled = 0, lost = 0;
	struct timespec t0, t;
	bool gone = false, opened;
	uint32_t dead;
	char err[512];
	int c, n, ret, lock;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":w:", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if ((ret = pkt_out_check_path(cli, optarg)))
				return ret;
			path = optarg;
			break;
		case 'D':
			o.drops_only = true;
			break;
		case 'r':
			o.rule_id = optarg;
			break;
		case 'm':
			if ((ret = cli_parse_match(cli, optarg, &match)))
				return ret;
			o.match = &match;
			break;
		case 's':
			if (strncmp(optarg, "1/", 2) || cli_parse_u64(optarg + 2, 1u << 30, &v) || !v)
				return cli_usage(cli, "--sample takes 1/N with N from 1, not '%s'", optarg);
			o.sample_n = v;
			break;
		case 'S':
			if (cli_parse_u64(optarg, FP_SNAPLEN_MAX, &v) || v < 14)
				return cli_usage(cli, "--snaplen takes 14..%u bytes, not '%s'",
						 FP_SNAPLEN_MAX, optarg);
			o.snaplen = v;
			break;
		case 'T':
			st = fp_stage_by_name(optarg);
			if (!st)
				return cli_usage(cli, "--stage '%s': no such stage (see `fastpath "
						 "pipeline show IFACE`)", optarg);
			o.stages |= 1u << st->slot;
			break;
		case 'c':
			if ((ret = cli_opt_count(cli, optarg, &k.limit)))
				return ret;
			break;
		case 'd':
			if ((ret = cli_opt_duration(cli, optarg, &duration)))
				return ret;
			break;
		case ':':
			if (optopt == 'w' || !strcmp(argv[optind - 1], "--write"))
				return cli_usage(cli, "-w needs FILE, or - for stdout");
			return cli_bad_option(cli, argv, c);
		default:
			return cli_bad_option(cli, argv, c);
		}
	}
	if (argc - optind != 1)
		return cli_usage(cli, "expected IFACE");
	if (!path)
		return cli_usage(cli, "say where to write: -w FILE, or -w - for stdout");
	ifname = argv[optind];
	/* the filter names its rules' ids; a pipeline without one dumps too */
	if (fp_filter__open(ifname, cli->bpffs, &f, err, sizeof(err)) == 0) {
		pl = fp_filter__pipeline(f);
	} else if ((ret = fp_pipeline__open(ifname, cli->bpffs, &pl, err, sizeof(err)))) {
		return cli_fail(cli, "%s", err);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGPIPE, SIG_IGN); /* a reader that went away: EPIPE, then a clean stop */
	ret = pkt_out_open(&k.out, path, true, ifname, o.snaplen ? o.snaplen : FP_SNAPLEN_DEFAULT,
			   DUMP_BUF, &opened);
	if (ret) {
		ret = cli_fail(cli, opened ? "writing %s failed: %s" : "cannot write %s: %s", path,
			       strerror(-ret));
		goto out;
	}
	lock = cli_lock_iface(cli, ifname);
	ret = fp_dump__start(pl, f, &o, on_sample, &k, &d, err, sizeof(err));
	if (lock >= 0)
		close(lock);
	if (ret) {
		ret = cli_fail(cli, "%s", err);
		goto out;
	}
	if (fp_dump__took_over(d, &dead)) {
		if (dead)
			out_warn("a dump (pid %u) ended without switching sampling off; this one took over",
				 dead);
		else
			out_warn("a dump ended without switching sampling off; this one took over");
	}
	if (fp_dump__watch_error(d))
		out_warn("cannot tie the dump to this process (%s): if it is killed with -9, "
			 "sampling stays on until the next dump or `pipeline unload`",
			 strerror(-fp_dump__watch_error(d)));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop && !k.out.err && !(k.limit && k.written >= k.limit)) {
		n = fp_dump__poll(d, PKT_OUT_FLUSH_MS);
		if (n < 0 && !k.out.err && !(k.limit && k.written >= k.limit))
			break;
		if (pkt_out_tick(&k.out, n == 0))
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (duration && (uint64_t)(t.tv_sec - t0.tv_sec) >= duration)
			break;
	}
	fp_dump__drain(d);
	fp_dump__counts(d, &sampled, &lost);
	ret = pkt_out_close(&k.out, &gone);
	if (ret) {
		ret = cli_fail(cli, "writing %s failed: %s", path, strerror(-ret));
		goto out;
	}
	if (gone)
		fprintf(stderr, "the reader of %s went away: stopped\n", path);
	if (!strcmp(path, "-") || !out_is_json()) {
		fprintf(stderr, "%llu sampled, %llu written, %llu lost", (unsigned long long)sampled,
			(unsigned long long)k.written, (unsigned long long)lost);
		if (k.skipped)
			fprintf(stderr, ", %llu past --count", (unsigned long long)k.skipped);
		fputc('\n', stderr);
	}
	if (out_is_json() && strcmp(path, "-")) {
		out_obj_begin();
		out_str("iface", ifname);
		out_str("file", path);
		out_u64("sampled", sampled);
		out_u64("written", k.written);
		out_u64("lost", lost);
		out_u64("past_count", k.skipped);
		out_obj_end();
	}
	ret = CLI_OK;
out:
	fp_dump__stop(d);
	pkt_out_close(&k.out, &gone);
	if (f)
		fp_filter__close(f);
	else
		fp_pipeline__close(pl);
	return ret;
}

static const struct cli_verb dump_cmd = {
	"dump",
	"IFACE -w FILE|- [--drops] [--match TERMS] [--rule ID] [--sample 1/N] [--snaplen N] "
	"[--stage NAME] [--count N] [--duration S]",
	"sampled packets with stage, verdict and rule, to pcapng", dump_run,
	"       While it runs, every stage of the pipeline offers its decisions; the dump copies\n"
	"       the ones it selects into a ring and writes them to pcapng with the XDP verdict\n"
	"       and a comment: verdict=drop rule=ID stage=filter (the filter), verdict=V\n"
	"       stage=NAME reason=N (another stage). It leaves the packets on their way.\n"
	"         -w FILE|-         where to write (- streams: | tshark -r -)\n"
	"         --drops           only packets a stage dropped\n"
	"         --stage NAME      only the decisions of that stage (repeat for more;\n"
	"                           `fastpath pipeline show IFACE` lists them)\n"
	"         --rule ID         only packets the rule with that id decided\n"
	"         --match TERMS     only packets the terms of the rule language match, before any\n"
	"                           stage sees them: --match 'udp dport 53 src 192.0.2.0/24'\n"
	"         --sample 1/N      1 in N of those (else each rule's own sample 1/N, else all)\n"
	"         --snaplen N       bytes kept of each (14..2048, default 256)\n"
	"         --count N, --duration S   stop after N packets or S seconds (or Ctrl-C,\n"
	"                           SIGTERM, SIGHUP, or the reader of - going away)\n"
	"       At exit: N sampled, N written, N lost (ring full); nothing lost silently.\n"
	"       Killed (-9), it leaves a readable file and the kernel switches sampling off.\n"
	"       Example: fastpath dump eth0 --drops --sample 1/100 -w drops.pcapng --duration 60\n",
};

int cmd_dump(struct cli *cli, int argc, char **argv)
{
	return cli_run(cli, &dump_cmd, argc, argv);
}
