// SPDX-License-Identifier: BSD-2-Clause
/*
 * `fastpath decap`: the lb's backend side. load puts the decap stage on an
 * interface's pipeline with the interface's addresses (and --addr ones),
 * unload removes it, stats shows its counters by cause.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>

#include "cli/audit.h"
#include "cli/cli.h"
#include "cli/cli_num.h"
#include "decap/decap.h"

static void audit(const struct cli *cli, const char *verb, const char *ifname,
		  const char *note, const char *error, double ms)
{
	cli_audit(cli, &(struct cli_audit){ .verb = verb, .iface = ifname, .note = note,
					    .error = error, .ms = ms });
}

/* ---- load, unload -------------------------------------------------------- */

/* An address a tunnel packet to this host can have: not unspecified, not
 * multicast or broadcast. */
static bool unicast(const struct fp_decap_addr *a)
{
	static const __u8 zero[16];

	if (!memcmp(a->addr, zero, a->family == 4 ? 4 : 16))
		return false;
	if (a->family == 4)
		return (a->addr[0] & 0xf0) != 0xe0 && memcmp(a->addr, "\xff\xff\xff\xff", 4);
	return a->addr[0] != 0xff;
}

static int do_load(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "addr", required_argument, NULL, 'a' },
		{ "mode", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct fp_decap_addr given[FP_DECAP_MAX_ADDRS];
	struct fp_decap_load_opts o = { .bpffs = cli->bpffs, .addrs = given };
	struct fp_decap_loaded done;
	struct fp_decap_view v;
	char err[512], note[160];
	double t0 = cli_now_s(), ms;
	const char *ifname;
	int c, ret;

	optind = 0; /* 0: GNU getopt re-initializes fully (main.c used it already) */
	while ((c = getopt_long(argc, argv, ":a:m:", opts, NULL)) != -1) {
		if (c == ':')
			return cli_usage(cli, "%s needs a value", argv[optind - 1]);
		if (c == 'a') {
			if (o.n_addrs >= FP_DECAP_MAX_ADDRS)
				return cli_usage(cli, "more than %d --addr", FP_DECAP_MAX_ADDRS);
			if (fp_decap_addr__parse(optarg, &given[o.n_addrs]))
				return cli_usage(cli, "--addr '%s' is not an IPv4 or IPv6 address",
						 optarg);
			if (!unicast(&given[o.n_addrs]))
				return cli_usage(cli, "--addr %s is not a unicast address (decap takes "
						 "tunnel packets addressed to this host)", optarg);
			o.n_addrs++;
		} else if (c == 'm') {
			if (!strcmp(optarg, "skb") || !strcmp(optarg, "generic"))
				o.skb_mode = true;
			else if (!strcmp(optarg, "native") || !strcmp(optarg, "drv"))
				o.skb_mode = false;
			else
				return cli_usage(cli, "--mode takes native or skb, not '%s'", optarg);
		} else {
			return cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (cli_operands(cli, argc, argv, optind, 1, "IFACE"))
		return CLI_USAGE;
	ifname = argv[optind];
	ret = fp_decap__load(ifname, &o, &done, err, sizeof(err));
	ms = (cli_now_s() - t0) * 1e3;
	if (ret) {
		audit(cli, "load", ifname, NULL, err, ms);
		return cli_fail(cli, "%s", err);
	}
	snprintf(note, sizeof(note), "decap loaded: %u addresses of the interface, %u given%s",
		 done.n_iface, done.n_given, done.pipeline_created ? ", pipeline loaded with it" : "");
	audit(cli, "load", ifname, note, NULL, ms);
	ret = fp_decap__view(ifname, cli->bpffs, &v, err, sizeof(err));
	if (ret)
		return cli_fail(cli, "decap is loaded on %s, but reading it back failed: %s",
				ifname, err);
	out_obj_begin();
	out_str("iface", ifname);
	out_bool("loaded", true);
	out_bool("pipeline_created", done.pipeline_created);
	out_double("load_ms", ms);
	out_list_begin("addrs");
	for (unsigned i = 0; i < v.n_addrs; i++) {
		char a[64];

		out_row_begin();
		out_str("addr", fp_decap_addr__str(&v.addrs[i], a, sizeof(a)));
		out_str("source", v.addr_src[i] & FP_DECAP_ADDR_GIVEN ? "given" : "iface");
		out_row_end();
	}
	out_list_end();
	out_obj_end();
	return CLI_OK;
}

static int do_unload(struct cli *cli, int argc, char **argv)
{
	struct fp_unload_report r;
	double t0 = cli_now_s();
	char err[512], note[160];
	int ret = cli_nargs(cli, argc, argv, 1, 1);

	if (ret)
		return ret;
	memset(&r, 0, sizeof(r));
	err[0] = 0;
	ret = fp_decap__unload(argv[1], cli->bpffs, &r, err, sizeof(err));
	snprintf(note, sizeof(note), "decap unloaded, %u pins removed%s", ret >= 0 ? r.n_pins : 0,
		 r.stage_only ? "" : ", the pipeline with it");
	audit(cli, "unload", argv[1], ret >= 0 ? note : NULL, ret < 0 ? err : NULL,
	      (cli_now_s() - t0) * 1e3);
	if (ret < 0)
		return cli_fail(cli, "%s", err);
	if (ret > 0 && !out_is_json())
		out_warn("%s", err);
	cli_report_unload(argv[1], &r, true, ret > 0 ? err : NULL);
	return CLI_OK;
}

/* ---- stats --------------------------------------------------------------- */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* One reading: the addresses, then a row per cause with its rate against
 * prev (NULL: none, or another load). */
static void emit_stats(const char *ifname, const struct fp_decap_view *v,
		       const struct fp_decap_view *prev, double dt)
{
	__u64 decap = 0;

	for (unsigned k = 0; k < FP_DECAP_C_MAX; k++)
		if (fp_decap_counter__decap(k))
			decap += v->cnt[k].packets;
	out_obj_begin();
	out_str("iface", ifname);
	out_bool("enabled", v->enabled);
	out_u64("decapsulated", decap);
	out_list_begin("addrs");
	for (unsigned i = 0; i < v->n_addrs; i++) {
		char a[64];

		out_row_begin();
		out_str("addr", fp_decap_addr__str(&v->addrs[i], a, sizeof(a)));
		out_str("source", v->addr_src[i] & FP_DECAP_ADDR_GIVEN ? "given" : "iface");
		out_row_end();
	}
	out_list_end();
	out_list_begin("counters");
	for (unsigned k = 0; k < FP_DECAP_C_MAX; k++) {
		out_row_begin();
		out_str("cause", fp_decap_counter__name(k));
		out_str("action", fp_decap_counter__decap(k) ? "decap" :
			fp_decap_counter__action(k) == XDP_DROP ? "drop" : "pass");
		out_u64("packets", v->cnt[k].packets);
		out_u64("bytes", v->cnt[k].bytes);
		if (prev && dt > 0 && v->cnt[k].packets >= prev->cnt[k].packets) {
			out_double("pps", (v->cnt[k].packets - prev->cnt[k].packets) / dt);
			out_double("bps", 8.0 * (v->cnt[k].bytes - prev->cnt[k].bytes) / dt);
		} else {
			out_null("pps");
			out_null("bps");
		}
		out_row_end();
	}
	out_list_end();
	out_obj_end();
}

static int do_stats(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "watch", optional_argument, NULL, 'w' }, { NULL, 0, NULL, 0 },
	};
	struct fp_decap_view *cur = calloc(1, sizeof(*cur)), *prev = calloc(1, sizeof(*prev));
	bool watch = false, have_prev = false, tty = isatty(1) && !out_is_json(), waiting = false;
	double period = 1, t_prev = 0;
	const char *ifname;
	char err[512];
	int c, ret = CLI_OK;

	if (!cur || !prev) {
		free(cur);
		free(prev);
		return cli_fail(cli, "out of memory");
	}
	optind = 0; /* 0: GNU getopt re-initializes fully (main.c used it already) */
	while ((c = getopt_long(argc, argv, "w::", opts, NULL)) != -1) {
		char *end;

		if (c != 'w') {
			ret = cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
			goto out;
		}
		watch = true;
		/* a number after --watch is its SECONDS */
		if (!optarg && optind < argc && argv[optind][0] != '-' &&
		    (strtod(argv[optind], &end), end != argv[optind] && !*end))
			optarg = argv[optind++];
		if (optarg) {
			period = strtod(optarg, &end);
			if (*end || period <= 0 || period > 3600) {
				ret = cli_usage(cli, "--watch takes seconds (0 < S <= 3600), not '%s'",
						optarg);
				goto out;
			}
		}
	}
	if ((ret = cli_operands(cli, argc, argv, optind, 1, "IFACE")))
		goto out;
	ifname = argv[optind];
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	do {
		double t = cli_now_s();

		ret = fp_decap__view(ifname, cli->bpffs, cur, err, sizeof(err));
		if (ret && (!watch || (ret != -ENOENT))) {
			ret = cli_fail(cli, "%s", err);
			goto out;
		}
		if (ret) { /* --watch across an unload: wait for a load */
			if (!waiting)
				fprintf(stderr, "fastpath: %s: decap is not loaded; waiting for a load "
					"(Ctrl-C to stop)\n", ifname);
			waiting = true;
			have_prev = false;
		} else {
			/* a new load starts its counters over: no rate against the old */
			if (have_prev && prev->meta.loaded_ns != cur->meta.loaded_ns)
				have_prev = false;
			waiting = false;
			if (tty && watch)
				fputs("\033[H\033[2J", stdout);
			emit_stats(ifname, cur, have_prev ? prev : NULL, t - t_prev);
			fflush(stdout);
			*prev = *cur;
			have_prev = true;
			t_prev = t;
		}
		ret = CLI_OK;
		if (watch)
			for (double slept = 0; slept < period && !stop; slept += 0.1)
				usleep(100000);
	} while (watch && !stop);
out:
	free(cur);
	free(prev);
	return ret;
}

static const struct cli_verb decap_verbs[] = {
	{ "load", "IFACE [--addr ADDR]... [--mode { native | skb }]",
	  "strip the outer header of IP-in-IP packets (4in4, 6in6, 4in6, 6in4) addressed to "
	  "this host and pass the inner packet to the stack: the lb's backend side", do_load,
	  "The outer destinations taken are IFACE's IPv4 and IPv6 addresses at load (read\n"
	  "once) and every --addr ADDR. Other packets go on untouched; an outer fragment or\n"
	  "an inner header cut short is dropped. Loads the pipeline too when there is none.\n"
	  "Examples: fastpath decap load eth0\n"
	  "          fastpath decap load eth0 --addr 10.0.0.2 --addr 2001:db8::2\n" },
	{ "unload", "IFACE", "remove the decap stage (and the pipeline its load brought, when "
	  "no other stage is on it)", do_unload,
	  "Example:  fastpath -j decap unload eth0   (lists every pin removed)\n" },
	{ "stats", "IFACE [--watch [SECONDS]]", "the addresses taken and packets by cause: "
	  "decapsulated (4in4, 6in6, 4in6, 6in4), not ours, fragment, malformed, extension "
	  "headers, other, ECN CE on a Not-ECT packet", do_stats,
	  "Rates (pps, bps) between redraws with --watch; with -j one JSON object a line.\n"
	  "Example:  fastpath decap stats eth0 --watch 2\n"
	  "          fastpath -j decap stats eth0 | jq '.counters[] | select(.cause == \"4in4\")'\n" },
	{ NULL },
};

int cmd_decap(struct cli *cli, int argc, char **argv)
{
	return cli_dispatch(cli, decap_verbs, argc, argv);
}
