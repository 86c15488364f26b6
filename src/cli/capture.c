// SPDX-License-Identifier: BSD-2-Clause
/*
 * `fastpath capture IFACE --match TERMS -w FILE|-`: the packets the terms
 * match are taken away from the kernel's stack into AF_XDP sockets (the
 * steer stage, src/xsk) and written to pcap or pcapng in batches; every
 * other packet goes on to the stack. Ends on SIGINT, SIGTERM, SIGHUP,
 * --count, --duration or its reader going away, then reports received,
 * written, lost (with the socket's causes) and passed on (no socket).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <net/if.h>

#include <fastpath/xsk.h>
#include "cli/cli.h"
#include "cli/cli_num.h"
#include "cli/pkt_out.h"
#include "rules/rule.h"

#define CAP_BUF      (256 * 1024) /* FILE buffer of -w FILE */
#define CAP_BATCH    256          /* fp_xsk__rx's most */
#define CAP_RING     16384        /* RX and fill ring entries per queue */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

struct cap_out {
	struct pkt_out out;
	uint64_t written, past, limit;
};

static int cap_write(void *ctx, const struct fp_xsk_pkt *p)
{
	struct cap_out *k = ctx;
	uint32_t cap = p->len < k->out.snaplen ? p->len : k->out.snaplen;

	if (k->limit && k->written >= k->limit) {
		k->past++; /* taken from the stack in the last batch, past --count */
		return 0;
	}
	if (pkt_out_write(&k->out, p->ts_ns, p->data, cap, p->len, FP_PCAPNG_NO_VERDICT, NULL))
		return 1;
	k->written++;
	return 0;
}

static void report(const char *ifname, const char *path, bool zerocopy,
		   const struct fp_xsk_stats *s, const struct cap_out *k, bool to_stderr)
{
	uint64_t lost = s->steered > s->received ? s->steered - s->received : 0;

	if (to_stderr) {
		fprintf(stderr, "%llu received, %llu written, %llu lost (rx ring full %llu, "
			"dropped %llu, fill ring empty %llu), %llu passed on with no socket",
			(unsigned long long)s->received, (unsigned long long)k->written,
			(unsigned long long)lost, (unsigned long long)s->rx_ring_full,
			(unsigned long long)s->rx_dropped, (unsigned long long)s->rx_fill_ring_empty,
			(unsigned long long)s->no_socket);
		if (k->past)
			fprintf(stderr, ", %llu past --count", (unsigned long long)k->past);
		fputc('\n', stderr);
		return;
	}
	out_obj_begin();
	out_str("iface", ifname);
	out_str("file", path);
	out_str("mode", zerocopy ? "zero-copy" : "copy");
	out_u64("received", s->received);
	out_u64("written", k->written);
	out_u64("lost", lost);
	out_u64("rx_ring_full", s->rx_ring_full);
	out_u64("rx_dropped", s->rx_dropped);
	out_u64("rx_fill_ring_empty", s->rx_fill_ring_empty);
	out_u64("passed_no_socket", s->no_socket);
	out_u64("unmatched", s->unmatched);
	out_u64("past_count", k->past);
	out_obj_end();
}

static int capture_run(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "write", required_argument, NULL, 'w' }, { "match", required_argument, NULL, 'm' },
		{ "queue", required_argument, NULL, 'q' }, { "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' }, { "snaplen", required_argument, NULL, 'S' },
		{ "format", required_argument, NULL, 'f' }, { "copy", no_argument, NULL, 'C' },
		{ "ring", required_argument, NULL, 'R' }, { "busy-poll", required_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 },
	};
	struct fp_xsk_opts o = { .bpffs = cli->bpffs, .queue = 0, .frames = 2 * CAP_RING };
	struct cap_out k = { 0 };
	struct fp_xsk_stats s;
	struct fp_xsk *x = NULL;
	const char *path = NULL, *ifname;
	struct timespec t0, t;
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t v, duration = 0, snaplen = 65535;
	bool ng = false, gone = false, zerocopy, opened;
	char err[512];
	int c, n, ret, rx_err = 0;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":w:", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if ((ret = pkt_out_check_path(cli, optarg)))
				return ret;
			path = optarg;
			break;
		case 'm': {
			struct fp_rule r;

			if ((ret = cli_parse_match(cli, optarg, &r)))
				return ret;
			o.match = optarg;
			break;
		}
		case 'q':
			if ((ret = cli_opt_queue(cli, optarg, FP_XSK_ALL_QUEUES, &o.queue)))
				return ret;
			break;
		case 'c':
			if ((ret = cli_opt_count(cli, optarg, &k.limit)))
				return ret;
			break;
		case 'd':
			if ((ret = cli_opt_duration(cli, optarg, &duration)))
				return ret;
			break;
		case 'S':
			if (cli_parse_u64(optarg, 65535, &snaplen) || snaplen < 14)
				return cli_usage(cli, "--snaplen takes 14..65535 bytes, not '%s'", optarg);
			break;
		case 'f':
			if (strcmp(optarg, "pcap") && strcmp(optarg, "pcapng"))
				return cli_usage(cli, "--format takes pcap or pcapng, not '%s'", optarg);
			ng = !strcmp(optarg, "pcapng");
			break;
		case 'C':
			o.copy = true;
			break;
		case 'R':
			/* the umem holds as many TX frames again (unused here) */
			if (cli_parse_u64(optarg, 1u << 18, &v) || v < 64 || (v & (v - 1)))
				return cli_usage(cli, "--ring takes a power of two 64..262144, not '%s'",
						 optarg);
			o.frames = 2 * (uint32_t)v;
			break;
		case 'B':
			if (cli_parse_u64(optarg, 1000000, &v) || !v)
				return cli_usage(cli, "--busy-poll takes microseconds 1..1000000, not '%s'",
						 optarg);
			o.busy_poll_us = (unsigned)v;
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
	if (!o.match)
		return cli_usage(cli, "say which packets to take: --match TERMS (e.g. 'udp dport 53')");
	if (!path)
		return cli_usage(cli, "say where to write: -w FILE, or -w - for stdout");
	ifname = argv[optind];
	if (strlen(ifname) >= IF_NAMESIZE || !if_nametoindex(ifname))
		return cli_fail(cli, "no interface '%s' (see `ip link`)", ifname);
	sigaction(SIGINT, &sa, NULL); /* no SA_RESTART: poll returns at once */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	ret = pkt_out_open(&k.out, path, ng, ifname, (uint32_t)snaplen, CAP_BUF, &opened);
	if (ret)
		return cli_fail(cli, opened ? "writing %s failed: %s" : "cannot write %s: %s", path,
				strerror(-ret));
	ret = fp_xsk__open(ifname, &o, &x, err, sizeof(err));
	if (ret) {
		ret = ret == -ERANGE || ret == -EINVAL ? cli_usage(cli, "%s", err)
						       : cli_fail(cli, "%s", err);
		goto out;
	}
	{ /* on stderr in every mode: scripts wait for it */
		if (o.queue == FP_XSK_ALL_QUEUES)
			fprintf(stderr, "capturing on %s, %u queues (%s)\n", ifname,
				fp_xsk__n_queues(x), fp_xsk__zerocopy(x) ? "zero-copy" : "copy mode");
		else
			fprintf(stderr, "capturing on %s queue %d (%s)\n", ifname, o.queue,
				fp_xsk__zerocopy(x) ? "zero-copy" : "copy mode");
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop && !k.out.err && !(k.limit && k.written >= k.limit)) {
		n = fp_xsk__rx(x, PKT_OUT_FLUSH_MS, CAP_BATCH, cap_write, &k);
		if (n < 0) {
			rx_err = n;
			break;
		}
		if (pkt_out_tick(&k.out, n == 0))
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (duration && cli_ms_between(&t0, &t) >= duration * 1000)
			break;
	}
	/* no more steering, then what the rings still hold: written, or past
	 * --count, never lost (bounded: the rings hold at most that much). A
	 * packet redirected just before the stop reaches its ring at the end
	 * of that NAPI poll: the drain ends only after 20 ms bring nothing. */
	fp_xsk__stop(x);
	for (unsigned i = 0; i < 2 * o.frames * fp_xsk__n_queues(x) / CAP_BATCH && !k.out.err &&
			     (n = fp_xsk__rx(x, 20, CAP_BATCH, cap_write, &k)) > 0; i++)
		;
	fp_xsk__stats(x, &s);
	zerocopy = fp_xsk__zerocopy(x);
	fp_xsk__close(x); /* the queue goes back to the stack before the file closes */
	x = NULL;
	ret = pkt_out_close(&k.out, &gone);
	if (ret)
		return cli_fail(cli, "writing %s failed: %s", path, strerror(-ret));
	if (rx_err)
		return cli_fail(cli, "receiving on %s failed: %s", ifname, strerror(-rx_err));
	if (gone)
		fprintf(stderr, "the reader of %s went away: stopped\n", path);
	/* with -w - the document would mix with the packets: text on stderr */
	report(ifname, path, zerocopy, &s, &k, !strcmp(path, "-") || !out_is_json());
	return CLI_OK;
out:
	fp_xsk__close(x);
	pkt_out_close(&k.out, &gone);
	return ret;
}

static const struct cli_verb capture_cmd = {
	"capture",
	"IFACE --match TERMS -w FILE|- [--queue N|all] [--count N] [--duration S] "
	"[--snaplen N] [--format pcap|pcapng] [--ring N] [--busy-poll US] [--copy]",
	"take matching packets away from the stack into AF_XDP, to pcap", capture_run,
	"       The pipeline's steer stage redirects the packets the terms match to an AF_XDP\n"
	"       socket of their RX queue; everything else goes on to the stack. Unlike dump,\n"
	"       which copies samples and leaves packets on their way, capture takes them.\n"
	"         --match TERMS     the terms of the rule language: 'udp dport 9000',\n"
	"                           'src 198.51.100.0/24 tcp', 'qname *.example.com'\n"
	"         -w FILE|-         where to write (- streams: | tshark -r -)\n"
	"         --queue N|all     the RX queue (default 0), or one socket on every queue\n"
	"         --count N, --duration S   stop after N packets or S seconds (or Ctrl-C,\n"
	"                           SIGTERM, SIGHUP, or the reader of - going away)\n"
	"         --snaplen N       bytes kept of each packet (14..65535, default 65535)\n"
	"         --format F        pcap (default, ns timestamps) or pcapng\n"
	"         --ring N          RX ring entries per queue (power of two, default 16384;\n"
	"                           the umem takes 2N 2 KiB frames): room for bursts\n"
	"         --busy-poll US    run the queue's NAPI from this process (SO_PREFER_BUSY_POLL,\n"
	"                           SO_BUSY_POLL US) instead of sleeping: spins a CPU\n"
	"         --copy            copy mode even where the driver offers zero-copy\n"
	"       At exit (-j: a JSON document): received, written, lost (with the socket's\n"
	"       causes: rx ring full, dropped, fill ring empty) and the matching packets\n"
	"       passed on to the stack because no socket was there. Killed (-9), the\n"
	"       kernel closes the socket and the stack gets the packets again at once.\n"
	"       Example: fastpath capture eth0 --match 'udp dport 53' -w - | tshark -r -\n",
};

int cmd_capture(struct cli *cli, int argc, char **argv)
{
	return cli_run(cli, &capture_cmd, argc, argv);
}
