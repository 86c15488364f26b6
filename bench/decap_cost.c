// SPDX-License-Identifier: BSD-2-Clause
/*
 * decap_cost [ROUNDS] [REPEAT]: what the decap stage costs a packet, by
 * BPF_PROG_TEST_RUN through a test pipeline (fp_entry, then the slots):
 *   - a packet that is not a tunnel (UDP to this host), without the decap
 *     stage and with it: what every other packet pays for it;
 *   - a tunnel packet for another address (one hash lookup more);
 *   - a 4in4 packet for this host, decapsulated (bpf_xdp_adjust_head and
 *     the L2 move). A test run with repeat > 1 does not reset the frame,
 *     so the second run would see the inner packet: these are single runs
 *     (repeat 1, the kernel's own duration of each, which carries ~20-30
 *     ns of timer overhead), compared with single runs of the plain frame.
 * Prints one line per case: the median over ROUNDS (default 5) of the mean
 * ns per packet (REPEAT runs, default 1,000,000; single runs: REPEAT / 10).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <fastpath/decap_abi.h>
#include "common/pkt.h"
#include "decap/decap.h"
#include "pipeline/pipeline.h"
#include "decap.skel.h"

static double run_repeat(int fd, const struct pkt *b, unsigned repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = b->buf, .data_size_in = b->len,
		    .repeat = repeat);

	if (bpf_prog_test_run_opts(fd, &o))
		return -1;
	return o.duration;
}

/* The mean of n single runs' own durations. */
static double run_single(int fd, const struct pkt *b, unsigned n)
{
	static __u8 out[PKT_MAX];
	double sum = 0;

	for (unsigned i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = b->buf, .data_size_in = b->len,
			    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);

		if (bpf_prog_test_run_opts(fd, &o))
			return -1;
		sum += o.duration;
	}
	return sum / n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void frame(struct pkt *b, const char *outer_dst)
{
	static const char payload[18];
	struct pkt in;

	pkt_init(&in);
	pkt_eth(&in, 0);
	pkt_ipv4(&in, &(struct pkt_ipv4_opts){ .src = "203.0.113.5", .dst = "198.51.100.10",
					       .ttl = 64 });
	pkt_udp(&in, 40000, 53);
	pkt_bytes(&in, payload, sizeof(payload));
	pkt_finish(&in);
	if (!outer_dst) {
		*b = in;
		return;
	}
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "10.1.0.1", .dst = outer_dst, .proto = 4,
					     .ttl = 64 });
	pkt_bytes(b, in.buf + in.l3, in.len - (size_t)in.l3);
	pkt_finish(b);
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 5;
	unsigned repeat = argc > 2 ? (unsigned)atoi(argv[2]) : 1000000;
	struct fp_pipeline *bare = NULL, *pl = NULL;
	struct fp_decap_addr a;
	struct decap_bpf *skel;
	struct pkt plain, ours, other;
	__u32 src = FP_DECAP_ADDR_GIVEN;
	char err[512];
	enum { BARE, OTHER, NOT_OURS, SINGLE_PLAIN, SINGLE_DECAP, N };
	static const char *const names[N] = {
		"plain UDP, no decap stage (repeat)", "plain UDP, decap stage: other (repeat)",
		"4in4 for another host: not_ours (repeat)", "plain UDP, decap stage (single runs)",
		"4in4 for this host: decapsulated (single runs)",
	};
	double *v[N];

	if (rounds < 1 || repeat < 10) {
		fprintf(stderr, "usage: decap_cost [ROUNDS >= 1] [REPEAT >= 10]\n");
		return 2;
	}
	if (fp_pipeline__open_test(&bare, err, sizeof(err)) ||
	    fp_pipeline__open_test(&pl, err, sizeof(err)) ||
	    fp_stage_decap.load(pl, err, sizeof(err))) {
		fprintf(stderr, "decap_cost: %s\n", err);
		return 1;
	}
	skel = fp_pipeline__kept(pl, "decap");
	fp_decap_addr__parse("10.1.0.2", &a);
	if (!skel || bpf_map_update_elem(bpf_map__fd(skel->maps.decap_addrs), &a, &src, 0)) {
		fprintf(stderr, "decap_cost: cannot set the stage's address\n");
		return 1;
	}
	frame(&plain, NULL);
	frame(&ours, "10.1.0.2");
	frame(&other, "10.1.0.99");
	for (int k = 0; k < N; k++)
		v[k] = calloc(rounds, sizeof(double));
	for (unsigned r = 0; r < rounds; r++) { /* interleaved: the host's drift hits all */
		v[BARE][r] = run_repeat(fp_pipeline__entry_fd(bare), &plain, repeat);
		v[OTHER][r] = run_repeat(fp_pipeline__entry_fd(pl), &plain, repeat);
		v[NOT_OURS][r] = run_repeat(fp_pipeline__entry_fd(pl), &other, repeat);
		v[SINGLE_PLAIN][r] = run_single(fp_pipeline__entry_fd(pl), &plain, repeat / 10);
		v[SINGLE_DECAP][r] = run_single(fp_pipeline__entry_fd(pl), &ours, repeat / 10);
	}
	for (int k = 0; k < N; k++) {
		qsort(v[k], rounds, sizeof(double), cmp);
		printf("%-48s %7.1f ns (min %.1f, max %.1f)\n", names[k], v[k][rounds / 2], v[k][0],
		       v[k][rounds - 1]);
		free(v[k]);
	}
	fp_pipeline__close(pl);
	fp_pipeline__close(bare);
	return 0;
}
