// SPDX-License-Identifier: BSD-2-Clause
/*
 * `fastpath forward IFACE_IN IFACE_OUT --match TERMS`: a user-space
 * forwarder on the xsk sessions (the way xdpsock's l2fwd is): the packets
 * the terms match on IFACE_IN are taken from the stack (steer stage) and
 * sent out of IFACE_OUT (or IFACE_IN again) through AF_XDP TX, the MACs
 * swapped with --swap-mac (in place); everything unmatched stays on the
 * stack. No copy in user space: IFACE_OUT's socket shares IFACE_IN's umem
 * (XDP_SHARED_UMEM), a received frame goes on the TX ring as it is and
 * back to the fill ring once sent. Where sharing is refused, each frame
 * is copied into a TX frame of IFACE_OUT's own umem, and the report says so.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <net/if.h>

#include <fastpath/xsk.h>
#include "cli/cli.h"
#include "cli/cli_num.h"
#include "rules/rule.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

/* Sends one frame, without a copy (its own frame on a TX ring sharing its
 * umem) or copied, spinning a bounded while on a full ring; 0 or -errno. */
static int send_one(struct fp_xsk *out, struct fp_xsk *in, bool zc, unsigned qi,
		    const struct fp_xsk_pkt *p)
{
	int ret;

	for (int i = 0; i < 100000; i++) {
		ret = zc ? fp_xsk__forward(out, in, p) : fp_xsk__tx(out, qi, p->data, p->len);
		if (ret != -EAGAIN)
			return ret;
	}
	return -EAGAIN;
}

static void swap_mac(uint8_t *d)
{
	uint8_t t[6];

	memcpy(t, d, 6);
	memcpy(d, d + 6, 6);
	memcpy(d + 6, t, 6);
}

static int forward_run(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "match", required_argument, NULL, 'm' }, { "swap-mac", no_argument, NULL, 's' },
		{ "queue", required_argument, NULL, 'q' }, { "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' }, { NULL, 0, NULL, 0 },
	};
	struct fp_xsk_opts in_o = { .bpffs = cli->bpffs, .queue = 0 };
	struct fp_xsk_opts out_o = { .bpffs = cli->bpffs, .queue = 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct fp_xsk *in = NULL, *out = NULL, *tx;
	struct fp_xsk_stats si, so;
	struct fp_xsk_pkt pkts[64];
	uint64_t limit = 0, duration = 0, queued = 0, failed = 0;
	const char *ifin, *ifout;
	bool swap = false, same, zc = true;
	const char *path;
	double t0, end;
	char err[512], why[512] = "";
	int c, n, ret;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm': {
			struct fp_rule r;

			if ((ret = cli_parse_match(cli, optarg, &r)))
				return ret;
			in_o.match = optarg;
			break;
		}
		case 's':
			swap = true;
			break;
		case 'q':
			if ((ret = cli_opt_queue(cli, optarg, FP_XSK_ALL_QUEUES, &in_o.queue)))
				return ret;
			break;
		case 'c':
			if ((ret = cli_opt_count(cli, optarg, &limit)))
				return ret;
			break;
		case 'd':
			if ((ret = cli_opt_duration(cli, optarg, &duration)))
				return ret;
			break;
		default:
			if (optopt)
				return cli_usage(cli, "option '%s' needs an argument or is unknown",
						 argv[optind - 1]);
			return cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return cli_usage(cli, "expected IFACE_IN IFACE_OUT");
	if (!in_o.match)
		return cli_usage(cli, "say which packets to forward: --match TERMS");
	ifin = argv[optind];
	ifout = argv[optind + 1];
	for (int i = 0; i < 2; i++) {
		const char *name = argv[optind + i];

		if (strlen(name) >= IF_NAMESIZE || !if_nametoindex(name))
			return cli_fail(cli, "no interface '%s' (see `ip link`)", name);
	}
	same = !strcmp(ifin, ifout);
	ret = fp_xsk__open(ifin, &in_o, &in, err, sizeof(err));
	if (ret)
		return ret == -ERANGE || ret == -EINVAL ? cli_usage(cli, "%s", err)
							: cli_fail(cli, "%s", err);
	if (!same) {
		/* the output socket on the input's umem; a umem of its own (and
		 * a copy per frame) only where the kernel refuses that */
		out_o.share = in;
		ret = fp_xsk__open(ifout, &out_o, &out, why, sizeof(why));
		if (ret) {
			zc = false;
			out_o.share = NULL;
			ret = fp_xsk__open(ifout, &out_o, &out, err, sizeof(err));
		}
		if (ret) {
			ret = cli_fail(cli, "%s", err);
			goto done;
		}
	}
	tx = same ? in : out;
	path = !zc ? "copied" : same ? "same umem" : "shared umem";
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* on stderr in every mode: scripts wait for it */
	if (!zc)
		fprintf(stderr, "no shared umem (%s): each frame is copied\n", why);
	fprintf(stderr, "forwarding %s -> %s (%s, %s)\n", ifin, ifout,
		fp_xsk__zerocopy(in) ? "zero-copy" : "copy mode", path);
	t0 = cli_now_s();
	while (!stop && !(limit && queued + failed >= limit) &&
	       !(duration && cli_now_s() - t0 >= duration)) {
		n = fp_xsk__rx_batch(in, 100, pkts, 64);
		if (n < 0)
			break;
		for (int i = 0; i < n && !(limit && queued + failed >= limit); i++) {
			if (swap && pkts[i].len >= 12)
				swap_mac(pkts[i].data); /* in place: the frame is sent as it is */
			if (send_one(tx, in, zc, 0, &pkts[i]))
				failed++; /* left to rx_release, which recycles it */
			else
				queued++;
		}
		fp_xsk__tx_flush(tx); /* the batch goes now */
		fp_xsk__rx_release(in);
	}
	for (end = cli_now_s() + 2; fp_xsk__tx_pending(tx) && cli_now_s() < end;)
		;
	fp_xsk__stats(in, &si);
	if (!same)
		fp_xsk__stats(out, &so);
	else
		so = si;
	if (out_is_json()) {
		out_obj_begin();
		out_str("in", ifin);
		out_str("out", ifout);
		out_str("mode", fp_xsk__zerocopy(in) ? "zero-copy" : "copy");
		out_str("path", path);
		if (!zc)
			out_str("no_shared_umem", why);
		out_u64("received", si.received);
		out_u64("forwarded", so.sent);
		out_u64("failed", failed + (queued - so.sent));
		out_u64("lost", si.steered > si.received ? si.steered - si.received : 0);
		out_u64("passed_no_socket", si.no_socket);
		out_obj_end();
	} else {
		fprintf(stderr, "%llu received, %llu forwarded, %llu failed, %llu lost\n",
			(unsigned long long)si.received, (unsigned long long)so.sent,
			(unsigned long long)(failed + (queued - so.sent)),
			(unsigned long long)(si.steered > si.received ? si.steered - si.received : 0));
	}
	ret = CLI_OK;
done:
	fp_xsk__close(out); /* it may be on in's umem: first */
	fp_xsk__close(in);
	return ret;
}

static const struct cli_verb forward_cmd = {
	"forward",
	"IFACE_IN IFACE_OUT --match TERMS [--swap-mac] [--queue N|all] [--count N] [--duration S]",
	"forward matching packets from one interface to another through AF_XDP", forward_run,
	"       The packets the terms match on IFACE_IN are taken from the stack (the steer\n"
	"       stage) and sent out of IFACE_OUT (IFACE_IN again if both are the same) through\n"
	"       AF_XDP TX; everything unmatched stays on the stack. No copy in user space:\n"
	"       IFACE_OUT's socket shares IFACE_IN's umem (a copy per frame only where the\n"
	"       kernel refuses that: said at start). veth gives copy mode (kernel copies).\n"
	"         --match TERMS     the terms of the rule language ('udp dport 9000')\n"
	"         --swap-mac        swap the source and destination MAC of each frame\n"
	"         --queue N|all     IFACE_IN's RX queue (default 0), or every queue\n"
	"         --count N, --duration S   stop after N frames or S seconds (or a signal)\n"
	"       Reports the mode and path, received, forwarded (completed by the kernel),\n"
	"       failed, lost.\n"
	"       Example: fastpath forward eth0 eth1 --match 'udp dport 4789'\n",
};

int cmd_forward(struct cli *cli, int argc, char **argv)
{
	return cli_run(cli, &forward_cmd, argc, argv);
}
