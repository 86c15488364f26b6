// SPDX-License-Identifier: BSD-2-Clause
/*
 * filter_cost: ns per packet of the fastpath pipeline by BPF_PROG_TEST_RUN
 * (repeat 1,000,000) at 1, 10, 1,000 and 10,000 rules of realistic mixed
 * rule sets (bench/rulegen.h), on a mix of packets, side by side with the
 * anchors run the same way in the same process: a bare XDP_DROP program and
 * xdp-filter's own objects (-f all and -f udp) with one equivalent port rule.
 *
 *   build/bench/filter_cost [--repeat N] [--rounds N] [--write-rules DIR] [--pipeline]
 *
 * --pipeline: the pipeline's own cost instead (pipeline_cost()): bare
 * XDP_DROP, the entry alone, the filter at 10,000 rules fused with the
 * entry, the same behind the plain entry's tail call, and fused with a
 * tail-called no-op stage (the tests' mark stage) in slot 5.
 *
 * Prints markdown tables (bench/run.sh puts them in docs/benchmarks.md).
 * --write-rules DIR only writes DIR/N.rules and DIR/N.nft for N in the sizes
 * and exits. Needs root (BPF).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "common/pkt.h"
#include "filter/filter.h"
#include "rules/rule.h"
#include "rulegen.h"
#include "targets.h"
#include "stage/mark.h"
#include "mark.skel.h"

static const size_t sizes[] = { 1, 10, 1000, 10000 };
#define N_SIZES (sizeof(sizes) / sizeof(sizes[0]))

enum { P_FLOOD, P_TCP, P_DNS, P_TORTURE, N_PKTS };
static const char *pkt_names[N_PKTS] = {
	"UDP flood (drop)", "TCP legit (pass)", "DNS legit (pass)", "DNS torture (drop)",
};
static struct pkt pkts[N_PKTS];

static unsigned repeat = 1000000, rounds = 5;

static void build_packets(void)
{
	struct pkt *b;

	b = &pkts[P_FLOOD];    /* what `fastpath gen --udp 11211` sends: 60 bytes */
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "198.18.0.1", .dst = RG_VICTIM, .ttl = 64 });
	pkt_udp(b, 12345, RG_FLOOD_PORT);
	pkt_bytes(b, "fastpath-gen\0\0\0\0\0\0", 18);
	pkt_finish(b);

	b = &pkts[P_TCP];      /* an established HTTP exchange, 100 bytes of payload */
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "172.16.5.10", .dst = RG_VICTIM, .ttl = 61 });
	pkt_tcp(b, 40123, 80, PKT_ACK | PKT_PSH);
	pkt_bytes(b, "GET / HTTP/1.1\r\nHost: victim.example\r\nUser-Agent: curl/7.88.1\r\n"
		     "Accept: */*\r\n\r\n0123456789abcdefghij", 100);
	pkt_finish(b);

	b = &pkts[P_DNS];
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "172.16.5.53", .dst = RG_VICTIM, .ttl = 62 });
	pkt_udp(b, 41000, 53);
	pkt_dns_query(b, "www.example.com", 1);
	pkt_finish(b);

	b = &pkts[P_TORTURE];  /* what `fastpath gen --dns x7k2.victim.example --rand-label` sends */
	pkt_init(b);
	pkt_eth(b, 0);
	pkt_ipv4(b, &(struct pkt_ipv4_opts){ .src = "198.18.0.1", .dst = RG_VICTIM, .ttl = 64 });
	pkt_udp(b, 12345, 53);
	pkt_dns_query(b, "x7k2q9.victim.example", 1);
	pkt_finish(b);
}

/* The kernel's average ns per run of one BPF_PROG_TEST_RUN; also the verdict. */
static double one_run(int prog_fd, const struct pkt *p, uint32_t *verdict)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p->buf, .data_size_in = (__u32)p->len,
		    .repeat = repeat);

	if (bpf_prog_test_run_opts(prog_fd, &o)) {
		fprintf(stderr, "filter_cost: BPF_PROG_TEST_RUN: %s\n", strerror(errno));
		exit(1);
	}
	*verdict = o.retval;
	return o.duration;
}

struct row {
	char name[64];
	int fd;
	struct fp_pipeline *pl;  /* set: stage_fd fills slot stage_slot while this row runs */
	int stage_fd;
	unsigned stage_slot;
	double ns[N_PKTS], mean;
	uint32_t verdict[N_PKTS];
};

#define MAX_ROWS   8
#define MAX_ROUNDS 16

/* Every run of every round, kept in round order for paired differences. */
static double runs[MAX_ROWS][N_PKTS][MAX_ROUNDS];

/*
 * Every program on every packet, `rounds` times, the programs interleaved
 * within each round: a slow spell of the machine then hits all rows alike
 * instead of the one measured during it. Each cell is the median.
 */
static void measure_all(struct row *rows, size_t n)
{
	double v[MAX_ROUNDS];
	unsigned nr = rounds < MAX_ROUNDS ? rounds : MAX_ROUNDS;

	for (unsigned r = 0; r < nr; r++)
		for (size_t i = 0; i < n; i++) {
			if (rows[i].pl && fp_pipeline__fill_slot(rows[i].pl, rows[i].stage_slot,
								 rows[i].stage_fd)) {
				fprintf(stderr, "filter_cost: filling slot %u failed\n",
					rows[i].stage_slot);
				exit(1);
			}
			for (int k = 0; k < N_PKTS; k++)
				runs[i][k][r] = one_run(rows[i].fd, &pkts[k], &rows[i].verdict[k]);
			if (rows[i].pl)
				fp_pipeline__empty_slot(rows[i].pl, rows[i].stage_slot);
		}
	for (size_t i = 0; i < n; i++) {
		rows[i].mean = 0;
		for (int k = 0; k < N_PKTS; k++) {
			memcpy(v, runs[i][k], nr * sizeof(v[0]));
			rows[i].ns[k] = median(v, nr);
			rows[i].mean += rows[i].ns[k] / N_PKTS;
		}
	}
}

static const char *vname(uint32_t v)
{
	return v == XDP_DROP ? "drop" : v == XDP_PASS ? "pass" : "other";
}

/* ---- --pipeline: the pipeline's own cost ------------------------------- */

#define STAGE_SLOT 5   /* a later slot than the filter's, as lb/steer/bridge */

/*
 * Row j minus row i, round by round (they ran within the same round, one
 * after the other), averaged over the packets in `mask` (bit = packet):
 * the median over rounds and its min and max.
 */
static void paired_diff(size_t i, size_t j, unsigned mask, double *med, double *lo, double *hi)
{
	unsigned nr = rounds < MAX_ROUNDS ? rounds : MAX_ROUNDS, np = 0;
	double d[MAX_ROUNDS] = { 0 };

	for (int k = 0; k < N_PKTS; k++)
		np += mask >> k & 1;
	for (unsigned r = 0; r < nr; r++) {
		d[r] = 0;
		for (int k = 0; k < N_PKTS; k++)
			if (mask >> k & 1)
				d[r] += (runs[j][k][r] - runs[i][k][r]) / np;
	}
	*lo = *hi = d[0];
	for (unsigned r = 1; r < nr; r++) {
		*lo = d[r] < *lo ? d[r] : *lo;
		*hi = d[r] > *hi ? d[r] : *hi;
	}
	*med = median(d, nr);
}

static void print_diff(const char *what, size_t i, size_t j, unsigned mask)
{
	double med, lo, hi;

	paired_diff(i, j, mask, &med, &lo, &hi);
	printf("| %s | **%+.1f** | %+.1f to %+.1f |\n", what, med, lo, hi);
}

static __u64 mark_runs(struct mark_bpf *m)
{
	int ncpu = libbpf_num_possible_cpus();
	struct mark_counts *all = calloc((size_t)ncpu, sizeof(*all));
	__u32 zero = 0;
	__u64 n = 0;

	if (all && !bpf_map_lookup_elem(bpf_map__fd(m->maps.mark_cnt), &zero, all))
		for (int c = 0; c < ncpu; c++)
			n += all[c].in;
	free(all);
	return n;
}

static int pipeline_cost(void)
{
	enum { R_BARE, R_ENTRY, R_FUSED, R_SLOT, R_FUSED_STAGE, R_SLOT_STAGE, N_ROWS };
	const unsigned passed = 1u << P_TCP | 1u << P_DNS, dropped = 1u << P_FLOOD | 1u << P_TORTURE;
	struct row rows[N_ROWS] = { 0 };
	struct fp_pipeline *empty = NULL, *pl;
	struct fp_filter *f = NULL;
	struct mark_bpf *m;
	char err[256] = "";
	int fused;

	if (fp_pipeline__open_test(&empty, err, sizeof(err))) {
		fprintf(stderr, "filter_cost: the entry alone: %s\n", err);
		return 1;
	}
	fused = fastpath_with(10000, &f);
	pl = fp_filter__pipeline(f);
	m = mark_bpf__open();
	if (!m)
		return fprintf(stderr, "filter_cost: opening the mark stage failed\n"), 1;
	m->rodata->slot = STAGE_SLOT;
	if (fp_pipeline__reuse_maps(pl, m->obj) || mark_bpf__load(m))
		return fprintf(stderr, "filter_cost: loading the mark stage failed\n"), 1;

	rows[R_BARE] = (struct row){ .name = "bare XDP_DROP", .fd = bare_drop() };
	rows[R_ENTRY] = (struct row){ .name = "entry alone (parse, no stage)",
				      .fd = fp_pipeline__entry_fd(empty) };
	rows[R_FUSED] = (struct row){ .name = "entry + filter fused, 10,000 rules", .fd = fused };
	rows[R_SLOT] = (struct row){ .name = "entry, tail call to filter slot, 10,000 rules",
				     .fd = fp_pipeline__entry_fd(pl) };
	rows[R_FUSED_STAGE] = rows[R_FUSED];
	rows[R_SLOT_STAGE] = rows[R_SLOT];
	snprintf(rows[R_FUSED_STAGE].name, sizeof(rows[0].name),
		 "entry + filter fused + no-op stage (slot %d)", STAGE_SLOT);
	snprintf(rows[R_SLOT_STAGE].name, sizeof(rows[0].name),
		 "entry, filter slot + no-op stage (slot %d)", STAGE_SLOT);
	for (int i = R_FUSED_STAGE; i <= R_SLOT_STAGE; i++) {
		rows[i].pl = pl;
		rows[i].stage_fd = bpf_program__fd(m->progs.fp_mark);
		rows[i].stage_slot = STAGE_SLOT;
	}
	measure_all(rows, N_ROWS);
	/* the no-op stage must have run: on the passed packets of its rows */
	if (mark_runs(m) < 4ull * repeat) {
		fprintf(stderr, "filter_cost: the no-op stage ran %llu times, expected >= %llu\n",
			(unsigned long long)mark_runs(m), 4ull * repeat);
		return 1;
	}

	printf("ns per packet, BPF_PROG_TEST_RUN repeat %u, median of %u rounds with the programs "
	       "interleaved; mix = mean of the four packets\n\n", repeat,
	       rounds < MAX_ROUNDS ? rounds : MAX_ROUNDS);
	printf("| program |");
	for (int i = 0; i < N_PKTS; i++)
		printf(" %s |", pkt_names[i]);
	printf(" mix | vs bare |\n|---|");
	for (int i = 0; i < N_PKTS + 2; i++)
		printf("---:|");
	printf("\n");
	for (int i = 0; i < N_ROWS; i++) {
		printf("| %s |", rows[i].name);
		for (int k = 0; k < N_PKTS; k++)
			printf(" %.1f (%s) |", rows[i].ns[k], vname(rows[i].verdict[k]));
		printf(" **%.1f** | %.2fx |\n", rows[i].mean, rows[i].mean / rows[R_BARE].mean);
	}
	printf("\nDifferences paired by round (ns per packet; median over rounds, and the range):\n\n"
	       "| what | median | rounds |\n|---|---:|---:|\n");
	print_diff("the entry alone over bare XDP_DROP (parse + walk of empty slots), mix",
		   R_BARE, R_ENTRY, 0xf);
	print_diff("a tail call to the filter's slot over the fused entry, mix",
		   R_FUSED, R_SLOT, 0xf);
	print_diff("no-op stage behind the fused filter, packets the filter passes (TCP, DNS)",
		   R_FUSED, R_FUSED_STAGE, passed);
	print_diff("no-op stage behind the fused filter, packets it drops (never reach it)",
		   R_FUSED, R_FUSED_STAGE, dropped);
	print_diff("no-op stage behind the filter's slot, packets the filter passes",
		   R_SLOT, R_SLOT_STAGE, passed);
	mark_bpf__destroy(m);
	fp_filter__close(f);
	fp_pipeline__close(empty);
	return 0;
}


static int write_rules(const char *dir)
{
	char path[512];

	mkdir(dir, 0755);
	for (size_t i = 0; i < N_SIZES; i++) {
		struct rg_buf text, nft;
		FILE *f;

		rg_ruleset(sizes[i], &text, &nft);
		for (int k = 0; k < 2; k++) {
			snprintf(path, sizeof(path), "%s/%zu.%s", dir, sizes[i], k ? "nft" : "rules");
			f = fopen(path, "w");
			if (!f || fwrite(k ? nft.p : text.p, 1, k ? nft.len : text.len, f) !=
				  (k ? nft.len : text.len)) {
				fprintf(stderr, "filter_cost: writing %s: %s\n", path, strerror(errno));
				return 1;
			}
			fclose(f);
		}
		free(text.p);
		free(nft.p);
	}
	return 0;
}

static void print_row(const struct row *r, const struct row *bare, const struct row *all,
		      const struct row *udp)
{
	printf("| %s |", r->name);
	for (int i = 0; i < N_PKTS; i++)
		printf(" %.1f (%s) |", r->ns[i], vname(r->verdict[i]));
	printf(" **%.1f** | %.2fx | %.2fx | %.2fx |\n", r->mean, r->mean / bare->mean,
	       all ? r->mean / all->mean : 0, udp ? r->mean / udp->mean : 0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "repeat", required_argument, NULL, 'r' },
		{ "rounds", required_argument, NULL, 'n' },
		{ "write-rules", required_argument, NULL, 'w' },
		{ "pipeline", no_argument, NULL, 'p' },
		{ 0 },
	};
	struct row rows[MAX_ROWS] = { 0 };
	struct fp_filter *fps[N_SIZES] = { 0 };
	struct bpf_object *o_all = NULL, *o_udp = NULL;
	bool have_all, have_udp;
	size_t n = 0, i_all = 0, i_udp = 0, i_fp;
	bool pipeline = false;
	int c, fd;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'r': repeat = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'n': rounds = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'w': return write_rules(optarg);
		case 'p': pipeline = true; break;
		default:
			fprintf(stderr, "usage: filter_cost [--repeat N] [--rounds N] "
				"[--write-rules DIR] [--pipeline]\n");
			return 2;
		}
	}
	if (!repeat || !rounds) {
		fprintf(stderr, "filter_cost: --repeat and --rounds must be positive\n");
		return 2;
	}
	tg_prog = "filter_cost";
	libbpf_set_print(NULL);
	build_packets();
	if (pipeline)
		return pipeline_cost();

	rows[n++] = (struct row){ .name = "bare XDP_DROP", .fd = bare_drop() };
	fd = xdpfilt("all", &o_all);
	if ((have_all = fd >= 0)) {
		i_all = n;
		rows[n++] = (struct row){ .name = "xdp-filter -f all, 1 port rule", .fd = fd };
	}
	fd = xdpfilt("udp", &o_udp);
	if ((have_udp = fd >= 0)) {
		i_udp = n;
		rows[n++] = (struct row){ .name = "xdp-filter -f udp, 1 port rule", .fd = fd };
	}
	i_fp = n;
	for (size_t i = 0; i < N_SIZES; i++) {
		rows[n].fd = fastpath_with(sizes[i], &fps[i]);
		snprintf(rows[n].name, sizeof(rows[n].name), "fastpath, %zu rule%s", sizes[i],
			 sizes[i] > 1 ? "s" : "");
		n++;
	}
	measure_all(rows, n);

	printf("ns per packet, BPF_PROG_TEST_RUN repeat %u, median of %u rounds with the programs "
	       "interleaved; mix = mean of the four packets\n\n", repeat,
	       rounds < MAX_ROUNDS ? rounds : MAX_ROUNDS);
	printf("| program |");
	for (int i = 0; i < N_PKTS; i++)
		printf(" %s |", pkt_names[i]);
	printf(" mix | vs bare | vs xdp-filter all | vs xdp-filter udp |\n|---|");
	for (int i = 0; i < N_PKTS + 4; i++)
		printf("---:|");
	printf("\n");
	for (size_t i = 0; i < n; i++)
		print_row(&rows[i], &rows[0], have_all ? &rows[i_all] : NULL,
			  have_udp ? &rows[i_udp] : NULL);
	printf("\nfastpath cost at 10,000 rules / cost at 10 rules (mix): **%.3f** (goal <= 1.3); "
	       "UDP flood packet alone: %.3f\n", rows[i_fp + 3].mean / rows[i_fp + 1].mean,
	       rows[i_fp + 3].ns[P_FLOOD] / rows[i_fp + 1].ns[P_FLOOD]);
	for (size_t i = 0; i < N_SIZES; i++)
		fp_filter__close(fps[i]);
	bpf_object__close(o_all);
	bpf_object__close(o_udp);
	return 0;
}
