// SPDX-License-Identifier: BSD-2-Clause
/*
 * fastpath gen IFACE [OPTIONS]: the traffic generator (src/gen/gen.h).
 * Builds or reads the template, fills in MACs, runs, and reports what was
 * SENT; the receiver's counters say what arrived.
 */
#include "cli/cli.h"
#include "cli/cli_num.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"

#define GEN_ARGS "IFACE [--dst-mac M] [--src-mac M] [--src IP] [--dst IP] [--sport N] " \
	"[--pps N] [--duration S] [--count N] [--threads N] [--cpu N] " \
	"[--template PCAP | --udp PORT | --syn PORT | --dns NAME] [--rand-src CIDR] [--rand-sport] [--rand-label]"

static volatile sig_atomic_t gen_stop;

static void on_signal(int sig)
{
	(void)sig;
	gen_stop = 1;
}

struct gen_args {
	const char *ifname, *template, *qname, *src, *dst, *src_mac, *dst_mac, *rand_src;
	enum fp_gen_kind kind;
	int port, sport, threads, cpu, templates;
	uint64_t pps, count;
	double duration;
	bool duration_set, rand_label, rand_sport;
};

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char end;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &end) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		if (v[i] > 255)
			return -EINVAL;
		mac[i] = (uint8_t)v[i];
	}
	return 0;
}

/* "IFACE/address" or the like from /sys/class/net. */
static int read_sys(const char *ifname, const char *what, char *buf, size_t size)
{
	char path[PATH_MAX];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, what);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)size, f))
		ret = -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return ret;
}

/* The veth peer's MAC, when the peer is in this namespace (its iflink must
 * point back at IFACE, so an unrelated interface with that index is not
 * taken for it). */
static int peer_mac(const char *ifname, int ifindex, uint8_t mac[6])
{
	char buf[64], peer[IF_NAMESIZE];
	uint64_t link;

	if (read_sys(ifname, "iflink", buf, sizeof(buf)) || cli_parse_u64(buf, INT_MAX, &link) ||
	    (int)link == ifindex || !if_indextoname((unsigned)link, peer))
		return -ENOENT;
	if (read_sys(peer, "iflink", buf, sizeof(buf)) || atoi(buf) != ifindex)
		return -ENOENT;
	if (read_sys(peer, "address", buf, sizeof(buf)))
		return -ENOENT;
	return parse_mac(buf, mac);
}

static int parse_args(struct cli *cli, int argc, char **argv, struct gen_args *a)
{
	enum { O_DMAC = 256, O_SMAC, O_SRC, O_DST, O_SPORT, O_PPS, O_DUR, O_COUNT, O_THREADS,
	       O_CPU, O_TMPL, O_UDP, O_SYN, O_DNS, O_RSRC, O_RLABEL, O_RSPORT };
	static const struct option opts[] = {
		{ "dst-mac", required_argument, NULL, O_DMAC },
		{ "src-mac", required_argument, NULL, O_SMAC },
		{ "src", required_argument, NULL, O_SRC },
		{ "dst", required_argument, NULL, O_DST },
		{ "sport", required_argument, NULL, O_SPORT },
		{ "pps", required_argument, NULL, O_PPS },
		{ "duration", required_argument, NULL, O_DUR },
		{ "count", required_argument, NULL, O_COUNT },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "template", required_argument, NULL, O_TMPL },
		{ "udp", required_argument, NULL, O_UDP },
		{ "syn", required_argument, NULL, O_SYN },
		{ "dns", required_argument, NULL, O_DNS },
		{ "rand-src", required_argument, NULL, O_RSRC },
		{ "rand-label", no_argument, NULL, O_RLABEL },
		{ "rand-sport", no_argument, NULL, O_RSPORT },
		{ 0 },
	};
	uint64_t v;
	char *end;
	int c;

	*a = (struct gen_args){ .kind = FP_GEN_UDP, .port = 9, .sport = 12345, .threads = 1,
				.duration = 5 };
	optind = 0; /* 0: glibc re-reads the optstring (main's "+" must not stick) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case O_DMAC: a->dst_mac = optarg; break;
		case O_SMAC: a->src_mac = optarg; break;
		case O_SRC: a->src = optarg; break;
		case O_DST: a->dst = optarg; break;
		case O_RSRC: a->rand_src = optarg; break;
		case O_RLABEL: a->rand_label = true; break;
		case O_RSPORT: a->rand_sport = true; break;
		case O_TMPL: a->template = optarg; a->templates++; break;
		case O_DNS: a->qname = optarg; a->kind = FP_GEN_DNS; a->port = 53; a->templates++; break;
		case O_UDP: case O_SYN: case O_SPORT:
			if (cli_parse_u64(optarg, 65535, &v))
				return cli_usage(cli, "'%s': a port is 0..65535", optarg);
			if (c == O_SPORT) {
				a->sport = (int)v;
				break;
			}
			a->kind = c == O_UDP ? FP_GEN_UDP : FP_GEN_SYN;
			a->port = (int)v;
			a->templates++;
			break;
		case O_PPS:
			if (cli_parse_u64(optarg, 1000000000ull, &a->pps) || !a->pps)
				return cli_usage(cli, "--pps '%s': give 1..1000000000", optarg);
			break;
		case O_COUNT:
			if (cli_parse_u64(optarg, UINT64_MAX, &a->count) || !a->count)
				return cli_usage(cli, "--count '%s': give a positive number", optarg);
			break;
		case O_THREADS: case O_CPU:
			if (cli_parse_u64(optarg, 1024, &v) || (c == O_THREADS && !v))
				return cli_usage(cli, "--%s '%s': give a number%s",
						 c == O_CPU ? "cpu" : "threads", optarg,
						 c == O_CPU ? " from 0" : " from 1");
			*(c == O_CPU ? &a->cpu : &a->threads) = (int)v;
			break;
		case O_DUR:
			errno = 0;
			a->duration = strtod(optarg, &end);
			if (errno || *end || !(a->duration > 0) || a->duration > FP_GEN_DURATION_MAX)
				return cli_usage(cli, "--duration '%s': give 0 < S <= %d seconds",
						 optarg, FP_GEN_DURATION_MAX);
			a->duration_set = true;
			break;
		case ':':
			return cli_usage(cli, "option '%s' needs an argument", argv[optind - 1]);
		default:
			return cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cli_usage(cli, optind >= argc ? "missing IFACE" : "unexpected argument '%s'",
				 argv[optind + (optind < argc)]);
	a->ifname = argv[optind];
	if (a->templates > 1)
		return cli_usage(cli, "give one of --template, --udp, --syn, --dns");
	if (a->template && (a->src || a->dst || a->qname))
		return cli_usage(cli, "--src and --dst build a template; --template sends the "
				 "capture's frame as it is (only --src-mac/--dst-mac rewrite it)");
	if (a->count && !a->duration_set)
		a->duration = FP_GEN_DURATION_MAX; /* the count ends it; still bounded */
	return 0;
}

static int parse_cidr4(const char *s, uint8_t net[4], int *plen)
{
	char buf[64], *slash;
	uint64_t v = 32;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (slash) {
		*slash = 0;
		if (cli_parse_u64(slash + 1, 32, &v))
			return -EINVAL;
	}
	if (inet_pton(AF_INET, buf, net) != 1)
		return -EINVAL;
	*plen = (int)v;
	return 0;
}

/* Builds or reads the template and fills in the MAC addresses. */
static int make_frame(struct cli *cli, const struct gen_args *a, int ifindex, uint8_t *frame,
		      size_t *len)
{
	struct fp_gen_frame_opts fo = { .kind = a->kind, .sport = (uint16_t)a->sport,
					.dport = (uint16_t)a->port, .qname = a->qname };
	const char *src = a->src ? a->src : "198.18.0.1", *dst = a->dst ? a->dst : "198.18.0.2";
	bool have_dst = false;
	char buf[64], err[256];
	int ret;

	if (a->src_mac ? parse_mac(a->src_mac, fo.src_mac) :
	    read_sys(a->ifname, "address", buf, sizeof(buf)) || parse_mac(buf, fo.src_mac))
		return a->src_mac ? cli_usage(cli, "--src-mac '%s': give aa:bb:cc:dd:ee:ff", a->src_mac)
				  : cli_fail(cli, "%s: cannot read its MAC; give --src-mac", a->ifname);
	if (a->dst_mac) {
		if (parse_mac(a->dst_mac, fo.dst_mac))
			return cli_usage(cli, "--dst-mac '%s': give aa:bb:cc:dd:ee:ff", a->dst_mac);
		have_dst = true;
	} else {
		have_dst = !peer_mac(a->ifname, ifindex, fo.dst_mac);
	}

	if (a->template) {
		ret = fp_gen__read_pcap(a->template, frame, len, err, sizeof(err));
		if (ret)
			return cli_fail(cli, "%s", err);
		if (a->dst_mac)
			memcpy(frame, fo.dst_mac, 6);
		if (a->src_mac)
			memcpy(frame + 6, fo.src_mac, 6);
		return 0;
	}
	if (!have_dst)
		return cli_usage(cli, "cannot read the MAC of %s's peer (not a veth, or its peer is "
				 "in another namespace); give --dst-mac", a->ifname);
	fo.family = strchr(src, ':') ? 6 : 4;
	if (inet_pton(fo.family == 4 ? AF_INET : AF_INET6, src, fo.src) != 1 ||
	    inet_pton(fo.family == 4 ? AF_INET : AF_INET6, dst, fo.dst) != 1)
		return cli_usage(cli, "--src %s --dst %s: give two IPv4 or two IPv6 addresses", src, dst);
	ret = fp_gen__build_frame(&fo, frame, len, err, sizeof(err));
	if (ret)
		return cli_usage(cli, "%s", err);
	return 0;
}

static void report(const struct cli *cli, const struct gen_args *a, size_t len,
		   const struct fp_gen_result *r)
{
	out_obj_begin();
	out_str("iface", a->ifname);
	out_u64("frame_len", len);
	out_u64("threads", (uint64_t)r->threads);
	out_u64("sent", r->sent);
	out_u64("paced", r->paced);
	if (r->refused != UINT64_MAX)
		out_u64("refused", r->refused);
	else
		out_null("refused");
	out_double("seconds", r->seconds);
	out_double("pps", r->seconds > 0 ? (double)r->sent / r->seconds : 0);
	out_double("mbps", r->seconds > 0 ? (double)r->sent * (double)len * 8 / r->seconds / 1e6 : 0);
	out_bool("interrupted", r->interrupted);
	out_obj_end();
	(void)cli;
}

static int gen_main(struct cli *cli, int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESETHAND };
	static uint8_t frame[FP_GEN_FRAME_MAX];
	struct fp_gen_opts o = { 0 };
	struct fp_gen_result r;
	struct fp_gen *g = NULL;
	struct gen_args a;
	char err[256] = "";
	size_t len = 0;
	int ret, ifindex;

	/* No verb: usage errors read "gen: MSG; see 'fastpath gen help'". */
	cli->cmd = NULL;
	ret = parse_args(cli, argc, argv, &a);
	if (ret)
		return ret;
	ifindex = (int)if_nametoindex(a.ifname);
	if (!ifindex)
		return cli_fail(cli, "%s: no such interface in this namespace", a.ifname);
	ret = make_frame(cli, &a, ifindex, frame, &len);
	if (ret)
		return ret;
	o = (struct fp_gen_opts){ .ifindex = ifindex, .frame = frame, .len = len, .pps = a.pps,
				  .count = a.count, .duration = a.duration, .threads = a.threads,
				  .cpu = a.cpu, .rand_label = a.rand_label,
				  .rand_sport = a.rand_sport };
	if (a.rand_src) {
		if (parse_cidr4(a.rand_src, o.rand_net, &o.rand_plen))
			return cli_usage(cli, "--rand-src '%s': give an IPv4 prefix such as 10.0.0.0/8",
					 a.rand_src);
		o.rand_src = true;
	}
	ret = fp_gen__open(&o, &g, err, sizeof(err));
	if (ret)
		return ret == -EINVAL ? cli_usage(cli, "%s", err) : cli_fail(cli, "%s", err);

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ret = fp_gen__run(g, &gen_stop, &r, err, sizeof(err));
	fp_gen__close(g);
	if (ret && !r.sent)
		return cli_fail(cli, "%s", err);
	if (ret)
		out_warn("%s", err);
	report(cli, &a, len, &r);
	return ret ? CLI_FAIL : CLI_OK;
}

int cmd_gen(struct cli *cli, int argc, char **argv)
{
	static const struct cli_verb gen = {
		"gen", GEN_ARGS,
		"send a template frame out of IFACE through BPF_PROG_TEST_RUN live frames "
		"(XDP_TX), paced to --pps; reports what was sent",
		gen_main,
		"       The frame (one of):\n"
		"         --udp PORT        60 B UDP to PORT (default, port 9), from --sport (12345)\n"
		"         --syn PORT        a TCP SYN to PORT\n"
		"         --dns NAME        a DNS query (type A) for NAME to port 53\n"
		"         --template PCAP   the first packet of a pcap/pcapng file, as it is\n"
		"       Addresses: --src/--dst IP (198.18.0.1 -> 198.18.0.2; two IPv6 make IPv6),\n"
		"         --src-mac (IFACE's), --dst-mac (a veth's peer in this namespace, else give it)\n"
		"       Per frame: --rand-src CIDR (random IPv4 source), --rand-sport (random TCP or\n"
		"         UDP source port, IPv4), --rand-label (random first DNS label: a water-torture\n"
		"         flood)\n"
		"       How much: --pps N (all threads; unpaced without it), --duration S (default 5),\n"
		"         --count N, --threads N from --cpu N (default 0)\n"
		"       It reports frames sent, not frames that arrived: read the receiver's counters.\n"
		"       Example: fastpath gen veth0 --dns x.victim.example --rand-label --pps 100000\n",
	};

	return cli_run(cli, &gen, argc, argv);
}
