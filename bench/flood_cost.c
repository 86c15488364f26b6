// SPDX-License-Identifier: BSD-2-Clause
/*
 * flood_cost: ns per packet by BPF_PROG_TEST_RUN when the flood varies:
 * 1, 256, 4,096 or 65,536 distinct flows, each a random source address
 * (IPv4: over the whole space; IPv6: within 2001:db8::/32) and a random
 * source port, so that what a program touches per distinct flow shows as
 * cache misses; and DNS water torture, a new first label per flow. Programs: bare XDP_DROP, xdp-filter -f all and -f udp (one
 * port rule), fastpath with 10 and 10,000 rules (bench/rulegen.h).
 *
 *   build/bench/flood_cost [--repeat N] [--rounds N] [--method tail|frames]
 *
 * --method tail (the default): a rotator program runs first in every
 * repetition of one BPF_PROG_TEST_RUN (repeat N): it writes flow
 * (counter mod flows)'s source address and port into the frame, then tail
 * calls the program measured. The rotator's own cost (a map read, a mix, a
 * few stores, the tail call) is in every cell; the bare XDP_DROP row is it
 * plus the floor. A live-frames run (BPF_F_TEST_XDP_LIVE_FRAMES) does not
 * rotate either: its pages are filled from the one data_in.
 * --method frames: one BPF_PROG_TEST_RUN per distinct frame with repeat 1,
 * rotating over prebuilt frames; every cell then also holds the kernel's
 * per-call timer reads and whatever the syscall between two packets evicts.
 * Kept to compare the two (docs/benchmarks.md).
 *
 * Rounds interleave everything; each cell is the median over rounds, and
 * the ratios are paired per round (median and range). Needs root.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "common/pkt.h"
#include "rulegen.h"
#include "targets.h"

static const unsigned flows[] = { 1, 256, 4096, 65536 };
#define N_FLOWS (sizeof(flows) / sizeof(flows[0]))

enum { K_UDP4, K_UDP6, K_SYN4, K_DNS4, N_KINDS };
static const char *kind_names[N_KINDS] = {
	"UDP flood to the rule's port, IPv4 (drop)",
	"UDP flood to the rule's port, IPv6 /32 (drop)",
	"TCP SYN flood to port 80, IPv4 (no rule: pass)",
	"DNS water torture, x7k2q9.victim.example with a new first label per flow (drop)",
};
static struct pkt base[N_KINDS];

enum { T_BARE, T_XALL, T_XUDP, T_FP10, T_FP10K, N_TARGETS };
static const char *target_names[N_TARGETS] = {
	"bare XDP_DROP", "xdp-filter -f all, 1 port rule", "xdp-filter -f udp, 1 port rule",
	"fastpath, 10 rules", "fastpath, 10,000 rules",
};

#define MAX_ROUNDS 16
static unsigned repeat = 1000000, rounds = 5;
static int method_frames;

static void build_packets(void)
{
	pkt_init(&base[K_UDP4]);
	pkt_eth(&base[K_UDP4], 0);
	pkt_ipv4(&base[K_UDP4], &(struct pkt_ipv4_opts){ .src = "198.18.0.1", .dst = RG_VICTIM,
							 .ttl = 64 });
	pkt_udp(&base[K_UDP4], 12345, RG_FLOOD_PORT);
	pkt_bytes(&base[K_UDP4], "fastpath-gen\0\0\0\0\0\0", 18);
	pkt_finish(&base[K_UDP4]);

	pkt_init(&base[K_UDP6]);
	pkt_eth(&base[K_UDP6], 0);
	pkt_ipv6(&base[K_UDP6], &(struct pkt_ipv6_opts){ .src = "2001:db8::1", .dst = "2001:db8:ffff::2",
							 .hop_limit = 64 });
	pkt_udp(&base[K_UDP6], 12345, RG_FLOOD_PORT);
	pkt_bytes(&base[K_UDP6], "fastpath-gen\0\0\0\0\0\0", 18);
	pkt_finish(&base[K_UDP6]);

	pkt_init(&base[K_SYN4]);
	pkt_eth(&base[K_SYN4], 0);
	pkt_ipv4(&base[K_SYN4], &(struct pkt_ipv4_opts){ .src = "198.18.0.1", .dst = RG_VICTIM,
							 .ttl = 64 });
	pkt_tcp(&base[K_SYN4], 12345, 80, PKT_SYN);
	pkt_finish(&base[K_SYN4]);

	/* what `fastpath gen --dns x7k2.victim.example --rand-label` sends;
	 * the flows differ in the first label's six bytes */
	pkt_init(&base[K_DNS4]);
	pkt_eth(&base[K_DNS4], 0);
	pkt_ipv4(&base[K_DNS4], &(struct pkt_ipv4_opts){ .src = "198.18.0.1", .dst = RG_VICTIM,
							 .ttl = 64 });
	pkt_udp(&base[K_DNS4], 12345, 53);
	pkt_dns_query(&base[K_DNS4], "x7k2q9.victim.example", 1);
	pkt_finish(&base[K_DNS4]);
}

/* Where the rotator writes: the source address words after the first
 * (IPv4: all of it; IPv6: after the /32) and the source port; for the DNS
 * torture, the first label's six bytes (a word and a half-word). */
static unsigned src_off(int k, unsigned *nwords, unsigned *sport_off)
{
	if (k == K_DNS4) {
		*nwords = 1;
		*sport_off = 14 + 20 + 8 + 12 + 1 + 4;
		return 14 + 20 + 8 + 12 + 1;
	}
	if (k == K_UDP6) {
		*nwords = 3;
		*sport_off = 14 + 40;
		return 14 + 8 + 4;
	}
	*nwords = 1;
	*sport_off = 14 + 20;
	return 14 + 12;
}

/* ---- the rotator: raw BPF, so the bench needs no BPF object of its own */

#define I(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
					     .off = (o), .imm = (i) })
#define ALU32_IMM(op, d, i) I(BPF_ALU | (op) | BPF_K, d, 0, 0, i)
#define ALU32_REG(op, d, s) I(BPF_ALU | (op) | BPF_X, d, s, 0, 0)
#define ALU64_IMM(op, d, i) I(BPF_ALU64 | (op) | BPF_K, d, 0, 0, i)
#define ALU64_REG(op, d, s) I(BPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define LDX(sz, d, s, o)    I(BPF_LDX | (sz) | BPF_MEM, d, s, o, 0)
#define STX(sz, d, s, o)    I(BPF_STX | (sz) | BPF_MEM, d, s, o, 0)
#define ST(sz, d, o, i)     I(BPF_ST | (sz) | BPF_MEM, d, 0, o, i)
#define JMP_IMM(op, d, i, o) I(BPF_JMP | (op) | BPF_K, d, 0, o, i)
#define JMP_REG(op, d, s, o) I(BPF_JMP | (op) | BPF_X, d, s, o, 0)
#define CALL(f)             I(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()              I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

struct prog {
	struct bpf_insn v[96];
	int n;
};

static void emit(struct prog *p, struct bpf_insn in)
{
	if (p->n >= (int)(sizeof(p->v) / sizeof(p->v[0]))) {
		tg_err("rotator program too long\n");
		exit(1);
	}
	p->v[p->n++] = in;
}

static void emit_map(struct prog *p, int reg, int fd)
{
	emit(p, I(BPF_LD | BPF_DW | BPF_IMM, reg, BPF_PSEUDO_MAP_FD, 0, fd));
	emit(p, I(0, 0, 0, 0, 0));
}

/* w(reg) = a bijective 32-bit mix of w(reg) (w(tmp) clobbered). */
static void emit_mix(struct prog *p, int reg, int tmp, int32_t salt)
{
	emit(p, ALU32_IMM(BPF_XOR, reg, salt));
	emit(p, ALU32_IMM(BPF_MUL, reg, (int32_t)0x9e3779b1u));
	emit(p, ALU32_REG(BPF_MOV, tmp, reg));
	emit(p, ALU32_IMM(BPF_RSH, tmp, 15));
	emit(p, ALU32_REG(BPF_XOR, reg, tmp));
	emit(p, ALU32_IMM(BPF_MUL, reg, (int32_t)0x85ebca6bu));
	emit(p, ALU32_REG(BPF_MOV, tmp, reg));
	emit(p, ALU32_IMM(BPF_RSH, tmp, 13));
	emit(p, ALU32_REG(BPF_XOR, reg, tmp));
}

/*
 * cfg (array, 1 entry of { u64 counter; u64 mask }): flow = counter++ &
 * mask; the flow's words are mixes of it, so the same flow index always
 * gives the same source and port. Then a tail call into progs[0].
 */
static int rotator(int k, int cfg_fd, int progs_fd)
{
	struct prog p = { .n = 0 };
	unsigned nwords, sport_off, off = src_off(k, &nwords, &sport_off);
	int j_null, j_short, fd;

	emit(&p, ALU64_REG(BPF_MOV, BPF_REG_6, BPF_REG_1));
	emit(&p, ST(BPF_W, BPF_REG_10, -4, 0));
	emit_map(&p, BPF_REG_1, cfg_fd);
	emit(&p, ALU64_REG(BPF_MOV, BPF_REG_2, BPF_REG_10));
	emit(&p, ALU64_IMM(BPF_ADD, BPF_REG_2, -4));
	emit(&p, CALL(BPF_FUNC_map_lookup_elem));
	j_null = p.n;
	emit(&p, JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0));
	emit(&p, LDX(BPF_DW, BPF_REG_7, BPF_REG_0, 0));
	emit(&p, ALU64_REG(BPF_MOV, BPF_REG_8, BPF_REG_7));
	emit(&p, ALU64_IMM(BPF_ADD, BPF_REG_8, 1));
	emit(&p, STX(BPF_DW, BPF_REG_0, BPF_REG_8, 0));
	emit(&p, LDX(BPF_DW, BPF_REG_8, BPF_REG_0, 8));
	emit(&p, ALU64_REG(BPF_AND, BPF_REG_7, BPF_REG_8));     /* r7: the flow */
	emit(&p, LDX(BPF_W, BPF_REG_2, BPF_REG_6, 0));          /* xdp_md.data */
	emit(&p, LDX(BPF_W, BPF_REG_3, BPF_REG_6, 4));          /* data_end */
	emit(&p, ALU64_REG(BPF_MOV, BPF_REG_4, BPF_REG_2));
	emit(&p, ALU64_IMM(BPF_ADD, BPF_REG_4, (int32_t)(sport_off + 2)));
	j_short = p.n;
	emit(&p, JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, 0));
	for (unsigned w = 0; w <= nwords; w++) {
		/* words 0..nwords-1: the address; the last: the source port */
		emit(&p, ALU32_REG(BPF_MOV, BPF_REG_5, BPF_REG_7));
		emit_mix(&p, BPF_REG_5, BPF_REG_8, (int32_t)(0x5bd1e995u + 0x01000193u * w));
		if (w < nwords)
			emit(&p, STX(BPF_W, BPF_REG_2, BPF_REG_5, (int16_t)(off + 4 * w)));
		else
			emit(&p, STX(BPF_H, BPF_REG_2, BPF_REG_5, (int16_t)sport_off));
	}
	p.v[j_short].off = (int16_t)(p.n - j_short - 1);
	emit(&p, ALU64_REG(BPF_MOV, BPF_REG_1, BPF_REG_6));
	emit_map(&p, BPF_REG_2, progs_fd);
	emit(&p, ALU64_IMM(BPF_MOV, BPF_REG_3, 0));
	emit(&p, CALL(BPF_FUNC_tail_call));
	p.v[j_null].off = (int16_t)(p.n - j_null - 1);
	emit(&p, ALU64_IMM(BPF_MOV, BPF_REG_0, XDP_ABORTED)); /* no target: visible */
	emit(&p, EXIT());

	/* expected_attach_type as libbpf loads SEC("xdp"): a program array
	 * takes only programs of its owner's attach type */
	LIBBPF_OPTS(bpf_prog_load_opts, lo, .expected_attach_type = BPF_XDP);

	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "bench_rotate", "GPL", p.v, (size_t)p.n, &lo);
	if (fd < 0) {
		tg_err("loading the rotator: %s\n", strerror(errno));
		exit(1);
	}
	return fd;
}

#define FRAME_MAX 128 /* the kinds' frames are shorter */

struct bench {
	int cfg_fd, progs_fd, rot_fd[N_KINDS];
	int target_fd[N_TARGETS];
	int have[N_TARGETS];
	/* --method frames: every flow's frame of each kind */
	uint8_t (*frames[N_KINDS])[FRAME_MAX];
};

/* The frames the rotator would write, built in user space (--method frames). */
static void build_frames(struct bench *b)
{
	unsigned n = flows[N_FLOWS - 1];

	for (int k = 0; k < N_KINDS; k++) {
		unsigned nwords, sport_off, off = src_off(k, &nwords, &sport_off);

		if (base[k].len > FRAME_MAX) {
			tg_err("frame of %zu bytes\n", base[k].len);
			exit(1);
		}
		b->frames[k] = calloc(n, FRAME_MAX);
		if (!b->frames[k]) {
			tg_err("out of memory\n");
			exit(1);
		}
		for (unsigned f = 0; f < n; f++) {
			uint8_t *p = b->frames[k][f];

			memcpy(p, base[k].buf, base[k].len);
			for (unsigned w = 0; w <= nwords; w++) {
				uint32_t x = f ^ (0x5bd1e995u + 0x01000193u * w), t;

				x *= 0x9e3779b1u;
				t = x >> 15;
				x ^= t;
				x *= 0x85ebca6bu;
				x ^= x >> 13;
				if (w < nwords)
					memcpy(p + off + 4 * w, &x, 4);
				else
					memcpy(p + sport_off, &x, 2);
			}
		}
	}
}

static uint32_t last_verdict[N_KINDS][N_TARGETS];

/* ns per packet of target t on kind k over nflows flows. */
static double run_one(struct bench *b, int k, int t, unsigned nflows)
{
	if (method_frames) {
		/* repeat 1 per frame: `repeat` packets (at most 65,536, at least
		 * one pass) over the set in turn */
		unsigned total = repeat < 65536 ? repeat : 65536, sum = 0;

		if (total < nflows)
			total = nflows;
		for (unsigned i = 0; i < total; i++) {
			LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = b->frames[k][i % nflows],
				    .data_size_in = (__u32)base[k].len, .repeat = 1);

			if (bpf_prog_test_run_opts(b->target_fd[t], &o)) {
				tg_err("BPF_PROG_TEST_RUN: %s\n", strerror(errno));
				exit(1);
			}
			sum += o.duration;
			last_verdict[k][t] = o.retval;
		}
		return (double)sum / total;
	} else {
		__u64 cfg[2] = { 0, nflows - 1 };
		__u32 zero = 0;
		int fd = b->target_fd[t];
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = base[k].buf,
			    .data_size_in = (__u32)base[k].len, .repeat = repeat);

		if (bpf_map_update_elem(b->cfg_fd, &zero, cfg, 0) ||
		    bpf_map_update_elem(b->progs_fd, &zero, &fd, 0)) {
			tg_err("setting up the rotator for %s: %s\n", target_names[t], strerror(errno));
			exit(1);
		}
		if (bpf_prog_test_run_opts(b->rot_fd[k], &o)) {
			tg_err("BPF_PROG_TEST_RUN: %s\n", strerror(errno));
			exit(1);
		}
		last_verdict[k][t] = o.retval;
		return o.duration;
	}
}

static const char *vname(uint32_t v)
{
	return v == XDP_DROP ? "drop" : v == XDP_PASS ? "pass" : v == XDP_ABORTED ? "ABORTED" :
	       "other";
}

/* median and range of a[r] / b[r] over rounds */
static void paired(const double *a, const double *b, unsigned nr, double *med, double *lo,
		   double *hi)
{
	double v[MAX_ROUNDS];

	*lo = 1e9;
	*hi = 0;
	for (unsigned r = 0; r < nr; r++) {
		v[r] = a[r] / b[r];
		*lo = v[r] < *lo ? v[r] : *lo;
		*hi = v[r] > *hi ? v[r] : *hi;
	}
	*med = median(v, nr);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "repeat", required_argument, NULL, 'r' },
		{ "rounds", required_argument, NULL, 'n' },
		{ "method", required_argument, NULL, 'm' },
		{ 0 },
	};
	static double v[N_KINDS][N_FLOWS][N_TARGETS][MAX_ROUNDS];
	struct bench b = { 0 };
	struct bpf_object *o_all = NULL, *o_udp = NULL;
	struct fp_filter *fp10 = NULL, *fp10k = NULL;
	unsigned nr;
	int c;

	tg_prog = "flood_cost";
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'r': repeat = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'n': rounds = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'm':
			if (strcmp(optarg, "tail") && strcmp(optarg, "frames")) {
				fprintf(stderr, "flood_cost: --method '%s': give tail or frames\n", optarg);
				return 2;
			}
			method_frames = !strcmp(optarg, "frames");
			break;
		default:
			fprintf(stderr, "usage: flood_cost [--repeat N] [--rounds N] "
				"[--method tail|frames]\n");
			return 2;
		}
	}
	if (!repeat || !rounds) {
		fprintf(stderr, "flood_cost: --repeat and --rounds must be positive\n");
		return 2;
	}
	nr = rounds < MAX_ROUNDS ? rounds : MAX_ROUNDS;
	libbpf_set_print(NULL);
	build_packets();

	b.target_fd[T_BARE] = bare_drop();
	b.target_fd[T_XALL] = xdpfilt("all", &o_all);
	b.target_fd[T_XUDP] = xdpfilt("udp", &o_udp);
	b.target_fd[T_FP10] = fastpath_with(10, &fp10);
	b.target_fd[T_FP10K] = fastpath_with(10000, &fp10k);
	for (int t = 0; t < N_TARGETS; t++)
		b.have[t] = b.target_fd[t] >= 0;
	if (method_frames) {
		build_frames(&b);
	} else {
		b.cfg_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bench_rot_cfg", 4, 16, 1, NULL);
		b.progs_fd = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "bench_rot_progs", 4, 4, 1,
					    NULL);
		if (b.cfg_fd < 0 || b.progs_fd < 0) {
			tg_err("creating the rotator's maps: %s\n", strerror(errno));
			return 1;
		}
		for (int k = 0; k < N_KINDS; k++)
			b.rot_fd[k] = rotator(k, b.cfg_fd, b.progs_fd);
	}

	for (unsigned r = 0; r < nr; r++)
		for (int k = 0; k < N_KINDS; k++)
			for (unsigned f = 0; f < N_FLOWS; f++)
				for (int t = 0; t < N_TARGETS; t++)
					if (b.have[t])
						v[k][f][t][r] = run_one(&b, k, t, flows[f]);

	printf("ns per packet, BPF_PROG_TEST_RUN, %s; median of %u rounds, everything "
	       "interleaved in each round; ratios paired by round (median, range)\n",
	       method_frames ? "one run of repeat 1 per frame (--method frames)" :
	       "rotator + tail call, repeat per cell as given", nr);
	if (!method_frames)
		printf("(repeat %u; each cell includes the rotator: see the bare row)\n", repeat);
	for (int k = 0; k < N_KINDS; k++) {
		printf("\n%s:\n\n| program |", kind_names[k]);
		for (unsigned f = 0; f < N_FLOWS; f++)
			printf(" %u flow%s |", flows[f], flows[f] > 1 ? "s" : "");
		printf(" verdict |\n|---|");
		for (unsigned f = 0; f <= N_FLOWS; f++)
			printf("---:|");
		printf("\n");
		for (int t = 0; t < N_TARGETS; t++) {
			if (!b.have[t])
				continue;
			printf("| %s |", target_names[t]);
			for (unsigned f = 0; f < N_FLOWS; f++) {
				double m[MAX_ROUNDS];

				memcpy(m, v[k][f][t], sizeof(m));
				printf(" %.1f |", median(m, nr));
			}
			printf(" %s |\n", vname(last_verdict[k][t]));
		}
		for (int ref = T_XALL; ref <= T_XUDP; ref++) {
			if (!b.have[ref])
				continue;
			for (int t = T_FP10; t <= T_FP10K; t++) {
				printf("| %s / %s |", target_names[ref],
				       t == T_FP10 ? "fastpath 10" : "fastpath 10,000");
				for (unsigned f = 0; f < N_FLOWS; f++) {
					double med, lo, hi;

					paired(v[k][f][ref], v[k][f][t], nr, &med, &lo, &hi);
					printf(" **%.2fx** (%.2f-%.2f) |", med, lo, hi);
				}
				printf(" |\n");
			}
		}
	}
	printf("\nfastpath, DNS water torture / UDP flood (IPv4), paired by round (issue 21's goal: "
	       "<= 2x at 10,000 rules):\n\n| program |");
	for (unsigned f = 0; f < N_FLOWS; f++)
		printf(" %u flow%s |", flows[f], flows[f] > 1 ? "s" : "");
	printf("\n|---|");
	for (unsigned f = 0; f < N_FLOWS; f++)
		printf("---:|");
	printf("\n");
	for (int t = T_FP10; t <= T_FP10K; t++) {
		if (!b.have[t])
			continue;
		printf("| %s |", target_names[t]);
		for (unsigned f = 0; f < N_FLOWS; f++) {
			double med, lo, hi;

			paired(v[K_DNS4][f][t], v[K_UDP4][f][t], nr, &med, &lo, &hi);
			printf(" **%.2fx** (%.2f-%.2f) |", med, lo, hi);
		}
		printf("\n");
	}
	fp_filter__close(fp10);
	fp_filter__close(fp10k);
	bpf_object__close(o_all);
	bpf_object__close(o_udp);
	return 0;
}
