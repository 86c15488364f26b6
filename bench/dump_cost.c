// SPDX-License-Identifier: BSD-2-Clause
/*
 * dump_cost: what sampling costs the filter. ns per packet by
 * BPF_PROG_TEST_RUN of the pipeline on a flood packet whose rule carries
 * `sample 1/1000`, without a dump (nothing sampled) and with `fastpath dump`
 * running (1 in 1000 packets copied to the ring), interleaved over rounds,
 * median. Goal: within 5%.
 *
 *   build/bench/dump_cost [-r|--repeat N] [-n|--rounds N]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common/pkt.h"
#include "dump/dump.h"
#include "filter/filter.h"

static const char RULES[] =
	"drop src 203.0.113.0/24 id block\n"
	"drop udp dport 11211 sample 1/1000 id flood\n"
	"limit 1000/s tcp flags syn,!ack by src id syn\n"
	"drop udp dport 53 qname *.example.com id torture\n"
	"default pass\n";

static int discard(void *ctx, const struct fp_sample *s, const uint8_t *d, const char *id,
		   uint64_t ts)
{
	(*(unsigned long *)ctx)++;
	return 0;
}

static double cost(int fd, const struct pkt *p, unsigned repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p->buf, .data_size_in = p->len,
		    .repeat = repeat);

	if (bpf_prog_test_run_opts(fd, &o))
		return -1;
	return o.duration;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	unsigned repeat = 1000000, rounds = 5;
	double off[64], on[64];
	unsigned long got = 0;
	struct fp_ruleset set;
	struct fp_diags d = { 0 };
	struct fp_filter *f;
	struct pkt p;
	char err[512];
	int c;

	static const struct option opts[] = {
		{ "repeat", required_argument, NULL, 'r' },
		{ "rounds", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};

	while ((c = getopt_long(argc, argv, "r:n:h", opts, NULL)) != -1) {
		if (c == 'r') {
			repeat = strtoul(optarg, NULL, 10);
		} else if (c == 'n') {
			rounds = strtoul(optarg, NULL, 10);
		} else {
			fprintf(c == 'h' ? stdout : stderr,
				"usage: dump_cost [-r|--repeat N] [-n|--rounds N]\n"
				"  ns/packet of the filter on a flood packet whose rule has sample 1/1000,\n"
				"  without and with a dump running (BPF_PROG_TEST_RUN repeat N, rounds\n"
				"  interleaved, median); needs root\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (rounds < 1 || rounds > 64)
		rounds = 5;
	if (fp_ruleset__parse(RULES, strlen(RULES), &set, &d) ||
	    fp_filter__open_test(&f, err, sizeof(err)) || fp_filter__apply(f, &set, err, sizeof(err))) {
		fprintf(stderr, "dump_cost: setup failed: %s\n", err);
		return 1;
	}
	pkt_init(&p);
	pkt_eth(&p, 0);
	pkt_ipv4(&p, &(struct pkt_ipv4_opts){ .src = "198.18.0.1", .dst = "198.18.0.2", .ttl = 64 });
	pkt_udp(&p, 12345, 11211);
	pkt_bytes(&p, "fastpath-gen\0\0\0\0\0\0", 18);
	pkt_finish(&p);

	for (unsigned r = 0; r < rounds; r++) {
		struct fp_dump_opts o = { 0 };
		struct fp_dump *dm;

		off[r] = cost(fp_pipeline__attached_fd(fp_filter__pipeline(f)), &p, repeat);
		if (fp_dump__start(fp_filter__pipeline(f), f, &o, discard, &got, &dm, err, sizeof(err))) {
			fprintf(stderr, "dump_cost: %s\n", err);
			return 1;
		}
		on[r] = cost(fp_pipeline__attached_fd(fp_filter__pipeline(f)), &p, repeat);
		fp_dump__drain(dm);
		fp_dump__stop(dm);
	}
	qsort(off, rounds, sizeof(double), cmp);
	qsort(on, rounds, sizeof(double), cmp);
	printf("| filter, flood packet of a `sample 1/1000` rule | ns/packet (median of %u) | ratio |\n"
	       "|---|---:|---:|\n"
	       "| no dump running (nothing sampled) | %.1f | 1.00 |\n"
	       "| `fastpath dump` running (1 in 1000 to the ring) | %.1f | %.3f |\n\n"
	       "%lu samples reached the ring (expected about %u).\n",
	       rounds, off[rounds / 2], on[rounds / 2], on[rounds / 2] / off[rounds / 2], got,
	       repeat / 1000 * rounds);
	fp_filter__close(f);
	fp_ruleset__free(&set);
	return 0;
}
