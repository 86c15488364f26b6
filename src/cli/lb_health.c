// SPDX-License-Identifier: BSD-2-Clause
/*
 * `fastpath lb health IFACE`: the health checker in the foreground (a
 * systemd unit runs it: systemd/fastpath-lb-health@.service). One line a
 * probe with -v or --count, else one line a change (JSON Lines with -j).
 * Unless --direct, it attaches the encapsulating tc program and the
 * probes' routing at start (lb_hc_user.h) and removes them at exit.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/lb_cli.h"
#include "lb/lb_hc_user.h"
#include "lb/lb_health.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct show {
	bool every;  /* each probe, not only the changes */
};

static void emit(const struct fp_lb_health_event *e, void *arg)
{
	const struct show *s = arg;

	if (!s->every && !e->change)
		return;
	out_line_begin();
	out_str("vip", e->vip);
	out_str("backend", e->backend);
	if (e->port)
		out_u64("port", e->port);
	else
		out_null("port");
	out_str("probe", e->skipped ? "skipped" : e->ok ? "ok" : "fail");
	out_str("why", e->why[0] ? e->why : NULL);
	out_str("change", e->change);
	out_str("state", e->be_state);
	out_bool("healthy", e->state.up);
	out_u64("ok_run", e->state.ok_run);
	out_u64("fail_run", e->state.fail_run);
	out_line_end();
}

int lb_do_health(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' }, { "rise", required_argument, NULL, 'r' },
		{ "fall", required_argument, NULL, 'f' }, { "timeout", required_argument, NULL, 't' },
		{ "port", required_argument, NULL, 'p' }, { "http", required_argument, NULL, 'h' },
		{ "expect", required_argument, NULL, 'e' }, { "count", required_argument, NULL, 'n' },
		{ "direct", no_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	struct fp_lb_health_opts o = { .rise = 2, .fall = 3, .timeout_ms = 1000, .expect = 200 };
	struct show s = { .every = cli->verbose > 0 };
	double interval = 2;
	bool direct = false;
	int claim;
	long count = 0;
	struct fp_lb *lb;
	char *end, err[512];
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		unsigned long x = 0;

		if (c == 'i') {
			interval = strtod(optarg, &end);
			if (*end || !(interval >= 0.05 && interval <= 3600))
				return cli_usage(cli, "--interval takes seconds 0.05..3600, not '%s'",
						 optarg);
			continue;
		}
		if (c == 'd') {
			direct = true;
			continue;
		}
		if (c == 'h') {
			if (optarg[0] != '/')
				return cli_usage(cli, "--http takes a path (/healthz), not '%s'", optarg);
			o.http_path = optarg;
			continue;
		}
		if (c == ':')
			return cli_usage(cli, "%s needs a value", argv[optind - 1]);
		if (c == '?')
			return cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
		errno = 0;
		x = strtoul(optarg, &end, 10);
		if (*end || errno || optarg[0] < '0' || optarg[0] > '9')
			return cli_usage(cli, "%s takes a number, not '%s'", argv[optind - 1], optarg);
		switch (c) {
		case 'r': case 'f':
			if (x < 1 || x > 100)
				return cli_usage(cli, "--%s takes 1..100", c == 'r' ? "rise" : "fall");
			*(c == 'r' ? &o.rise : &o.fall) = (__u32)x;
			break;
		case 't':
			if (x < 1 || x > 60000)
				return cli_usage(cli, "--timeout takes milliseconds 1..60000");
			o.timeout_ms = (__u32)x;
			break;
		case 'p':
			if (x < 1 || x > 65535)
				return cli_usage(cli, "--port takes 1..65535");
			o.port = (__u16)x;
			break;
		case 'e':
			if (x < 100 || x > 599)
				return cli_usage(cli, "--expect takes an HTTP status 100..599");
			o.expect = (int)x;
			break;
		case 'n':
			if (x < 1)
				return cli_usage(cli, "--count takes a number >= 1");
			count = (long)x;
			s.every = true;
			break;
		}
	}
	if (cli_operands(cli, argc, argv, optind, 1, "IFACE"))
		return CLI_USAGE;
	if ((ret = lb_cli_open(cli, argv[optind], &lb)))
		return ret;
	if ((claim = fp_lb_health_claim(argv[optind], err, sizeof(err))) < 0) {
		fp_lb__close(lb);
		return cli_fail(cli, "%s", err);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* a reader of our output that goes away (a pipe, a restarted journal)
	 * must not kill the checker before it removes its tc filter */
	signal(SIGPIPE, SIG_IGN);
	if (!direct && (ret = fp_lb_hc_up(lb, &o.hc, err, sizeof(err)))) {
		fp_lb__close(lb);
		close(claim);
		return cli_fail(cli, "%s", err);
	}
	if (o.hc && o.hc->no6[0])
		out_warn("%s", o.hc->no6);
	for (long round = 0; !stop; round++) {
		struct timespec t0, t1;
		double left;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = fp_lb_health_round(lb, &o, emit, &s, err, sizeof(err));
		if (ret)
			break;
		fflush(stdout);
		if (count && round + 1 >= count)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		left = interval - ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
		if (left > 0 && !stop)
			usleep((useconds_t)(left * 1e6));
	}
	if (o.hc) {
		fp_lb_hc_down(o.hc->ifname, o.hc->dir);
		fp_lb_hc_close(o.hc);
	}
	fp_lb__close(lb);
	close(claim);
	return ret ? cli_fail(cli, "%s", err) : CLI_OK;
}
