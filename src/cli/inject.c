// SPDX-License-Identifier: BSD-2-Clause
/*
 * `fastpath inject IFACE -r FILE`: sends the frames of a pcap or pcapng
 * file out of IFACE through an AF_XDP socket's TX ring (src/xsk, a
 * session that only transmits: nothing is steered), paced to --pps or as
 * fast as the ring takes them, --loop times. The whole file is read and
 * checked first (Ethernet link type, whole frames no larger than the MTU
 * allows), so a bad frame is refused with its number before anything is
 * sent. Reports sent (completed by the kernel), failed, and the rate.
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
#include <pcap/pcap.h>

#include <fastpath/xsk.h>
#include "cli/cli.h"
#include "cli/cli_num.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

struct frames {
	uint8_t **data;
	uint32_t *len;
	size_t n, cap;
};

static void frames_free(struct frames *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->data[i]);
	free(f->data);
	free(f->len);
}

/* Reads every frame of path; max: the largest frame IFACE sends. */
static int read_frames(struct cli *cli, const char *path, const char *ifname, unsigned mtu,
		       struct frames *f)
{
	char perr[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	uint32_t max = mtu + 14;
	pcap_t *p;
	int rc, ret = CLI_OK;

	p = pcap_open_offline(path, perr);
	if (!p)
		return cli_fail(cli, "cannot read %s: %s", path, perr);
	if (pcap_datalink(p) != DLT_EN10MB) {
		const char *name = pcap_datalink_val_to_name(pcap_datalink(p));

		pcap_close(p);
		return cli_fail(cli, "%s: link type %s (%d); inject sends Ethernet frames (EN10MB)",
				path, name ? name : "?", pcap_datalink(p));
	}
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		size_t k = f->n + 1;

		if (h->caplen < h->len) {
			ret = cli_fail(cli, "%s: frame %zu was cut to %u of its %u bytes (snaplen): "
				       "it cannot be sent as it was", path, k, h->caplen, h->len);
			break;
		}
		if (h->caplen < 14 || h->caplen > max || h->caplen > 2048) {
			ret = cli_fail(cli, "%s: frame %zu is %u bytes; %s sends 14..%u (MTU %u + the "
				       "Ethernet header)", path, k, h->caplen, ifname,
				       max < 2048 ? max : 2048, mtu);
			break;
		}
		if (f->n == f->cap) {
			size_t cap = f->cap ? f->cap * 2 : 1024;
			uint8_t **d = realloc(f->data, cap * sizeof(*d));
			uint32_t *l = d ? realloc(f->len, cap * sizeof(*l)) : NULL;

			if (d)
				f->data = d;
			if (!l) {
				ret = cli_fail(cli, "out of memory reading %s", path);
				break;
			}
			f->len = l;
			f->cap = cap;
		}
		f->data[f->n] = malloc(h->caplen);
		if (!f->data[f->n]) {
			ret = cli_fail(cli, "out of memory reading %s", path);
			break;
		}
		memcpy(f->data[f->n], data, h->caplen);
		f->len[f->n++] = h->caplen;
	}
	if (ret == CLI_OK && rc == PCAP_ERROR)
		ret = cli_fail(cli, "%s: after frame %zu: %s", path, f->n, pcap_geterr(p));
	if (ret == CLI_OK && !f->n)
		ret = cli_fail(cli, "%s holds no frames", path);
	pcap_close(p);
	return ret;
}

/* Sleeps (then spins the last 50 us) until time t. */
static void wait_until(double t)
{
	double d = t - cli_now_s();

	if (d > 60e-6) {
		struct timespec ts = { .tv_sec = (time_t)(d - 50e-6),
				       .tv_nsec = (long)(((d - 50e-6) - (time_t)(d - 50e-6)) * 1e9) };

		nanosleep(&ts, NULL);
	}
	while (cli_now_s() < t && !stop)
		;
}

static int inject_run(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "read", required_argument, NULL, 'r' }, { "pps", required_argument, NULL, 'p' },
		{ "loop", required_argument, NULL, 'l' }, { "queue", required_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct fp_xsk_opts o = { .bpffs = cli->bpffs, .queue = 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct frames f = { 0 };
	struct fp_xsk_stats s;
	struct fp_xsk *x = NULL;
	const char *path = NULL, *ifname;
	uint64_t v, pps = 0, loops = 1, queued = 0, total;
	double t0 = 0, tlast = 0, rate;
	char err[512];
	unsigned mtu;
	int c, ret;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":r:", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			path = optarg;
			break;
		case 'p':
			if (cli_parse_u64(optarg, 100000000, &pps) || !pps)
				return cli_usage(cli, "--pps takes packets per second from 1, not '%s'",
						 optarg);
			break;
		case 'l':
			if (cli_parse_u64(optarg, 1000000000, &loops) || !loops)
				return cli_usage(cli, "--loop takes a count from 1, not '%s'", optarg);
			break;
		case 'q':
			if (cli_parse_u64(optarg, INT32_MAX, &v))
				return cli_usage(cli, "--queue takes a queue number, not '%s'", optarg);
			o.queue = (int)v;
			break;
		case ':':
			if (optopt == 'r' || !strcmp(argv[optind - 1], "--read"))
				return cli_usage(cli, "-r needs FILE, a pcap or pcapng capture");
			return cli_bad_option(cli, argv, c);
		default:
			return cli_bad_option(cli, argv, c);
		}
	}
	if (argc - optind != 1)
		return cli_usage(cli, "expected IFACE");
	if (!path)
		return cli_usage(cli, "say what to send: -r FILE (pcap or pcapng)");
	ifname = argv[optind];
	if (strlen(ifname) >= IF_NAMESIZE || !if_nametoindex(ifname))
		return cli_fail(cli, "no interface '%s' (see `ip link`)", ifname);
	ret = fp_xsk__open(ifname, &o, &x, err, sizeof(err));
	if (ret)
		return ret == -ERANGE || ret == -EINVAL ? cli_usage(cli, "%s", err)
							: cli_fail(cli, "%s", err);
	mtu = fp_xsk__mtu(x);
	ret = read_frames(cli, path, ifname, mtu ? mtu : 1500, &f);
	if (ret)
		goto out;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	total = f.n * loops;
	t0 = cli_now_s();
	for (uint64_t i = 0; i < total && !stop; i++) {
		size_t k = i % f.n;

		if (pps)
			wait_until(t0 + (double)i / pps);
		/* a full ring: the kernel is still sending; try again */
		while ((ret = fp_xsk__tx(x, 0, f.data[k], f.len[k])) == -EAGAIN && !stop)
			;
		if (ret && ret != -EAGAIN) {
			ret = cli_fail(cli, "sending frame %zu failed: %s", k + 1, strerror(-ret));
			goto out;
		}
		if (!ret) {
			queued++;
			tlast = cli_now_s();
		}
		if (pps)
			fp_xsk__tx_flush(x); /* a paced frame goes now */
	}
	fp_xsk__tx_flush(x);
	/* what is queued goes out within milliseconds: wait for it (bounded) */
	for (double end = cli_now_s() + 2; fp_xsk__tx_pending(x) && cli_now_s() < end;)
		;
	fp_xsk__stats(x, &s);
	rate = queued > 1 && tlast > t0 ? (queued - 1) / (tlast - t0) : 0;
	if (out_is_json()) {
		out_obj_begin();
		out_str("iface", ifname);
		out_str("file", path);
		out_str("mode", fp_xsk__zerocopy(x) ? "zero-copy" : "copy");
		out_u64("frames", f.n);
		out_u64("sent", s.sent);
		out_u64("failed", total - s.sent);
		out_u64("pps_asked", pps);
		out_double("pps", rate);
		out_double("seconds", tlast - t0);
		out_bool("interrupted", stop);
		out_obj_end();
	} else {
		fprintf(stdout, "%llu sent, %llu failed, %.0f pps%s (%s, %.3f s)%s\n",
			(unsigned long long)s.sent, (unsigned long long)(total - s.sent), rate,
			pps ? "" : " (as fast as possible)",
			fp_xsk__zerocopy(x) ? "zero-copy" : "copy mode", tlast - t0,
			stop ? ", interrupted" : "");
	}
	ret = s.sent == total || stop ? CLI_OK : cli_fail(cli, "%llu of %llu frames were not sent",
							     (unsigned long long)(total - s.sent),
							     (unsigned long long)total);
out:
	fp_xsk__close(x);
	frames_free(&f);
	return ret;
}

static const struct cli_verb inject_cmd = {
	"inject",
	"IFACE -r FILE [--pps N] [--loop N] [--queue N]",
	"send the frames of a pcap out of IFACE through AF_XDP TX", inject_run,
	"       Sends every frame of FILE (pcap or pcapng, Ethernet) in order through an AF_XDP\n"
	"       socket's TX ring; nothing is steered away from the stack meanwhile.\n"
	"         -r FILE           the capture; checked whole first: another link type, a\n"
	"                           frame cut short or larger than the MTU is refused with its\n"
	"                           number before anything is sent\n"
	"         --pps N           paced to N frames per second (else as fast as the ring takes)\n"
	"         --loop N          the file N times (default 1)\n"
	"         --queue N         the TX queue's socket (default 0)\n"
	"       Reports sent (completed by the kernel), failed, and the rate achieved.\n"
	"       Example: fastpath inject eth0 -r flood.pcap --pps 100000 --loop 10\n",
};

int cmd_inject(struct cli *cli, int argc, char **argv)
{
	return cli_run(cli, &inject_cmd, argc, argv);
}
