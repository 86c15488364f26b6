// SPDX-License-Identifier: BSD-2-Clause
/*
 * lb_cost: ns per packet of the lb stage behind fp_entry, by
 * BPF_PROG_TEST_RUN, for an established flow (connection-table hit) and a
 * new one (Maglev over a 65,537-slot table and a table insert), on IPv4
 * TCP to a VIP of three backends, encapsulated (IPIP) with a fib lookup.
 *
 *   build/bench/lb_cost [-a] [-e [-k TIMES] [-L FILE]] [-f FLOWS] [-r REPEAT]
 *
 * -e: the established flow's whole way only (and the not-VIP frame and the
 * prelude it is corrected by), one line "established NS notvip NS raw NS"
 * (raw: with the prelude, not corrected; builds compare by it as well, the
 * prelude being the same): quick enough to alternate builds round by
 * round, and to profile (perf record). -k TIMES: that whole way timed TIMES
 * times in the one process, the least printed as raw. -L FILE: the JITed
 * code's line table of fp_lb, fp_entry and the prelude written to FILE
 * (a line "ADDRESS PROGRAM FILE:LINE" where each source line's code
 * starts), so that perf samples (`perf script -F ip,sym`) map to source
 * lines: bpftool here has no disassembler (`prog dump jited` fails).
 *
 * A repeated run (BPF_PROG_TEST_RUN repeat) works on one buffer, and the
 * lb moves the frame's head: the second run would see the encapsulated
 * frame (live frames reset the pointers, not the bytes written over). So:
 * - repeat 1,000,000 (steady state, caches warm) times the paths that do
 *   not move the frame: not a VIP; an established flow up to the fib
 *   lookup and through it (a backend with no route: dropped after it); the
 *   whole way of an established flow, through tests/stage/lb_restore.bpf.c,
 *   a prelude that puts the moved frame back before each run (its own
 *   cost, timed on a frame not for a VIP, is taken off); through the same
 *   prelude, a new flow each run (N runs), then the same N flows again,
 *   established: the goal's pair (new vs established over the same flows,
 *   each a cold bucket; one established flow repeated has every line in L1);
 * - one run per frame (the mean of the kernel's per-run durations, caches
 *   cold after each syscall) times the whole way, encapsulation and XDP_TX
 *   included: N new flows, the same N again established, one flow N
 *   times; a frame not for a VIP timed both ways shows the one-run
 *   harness's share, which is taken off.
 * Needs root (BPF, a network namespace of its own).
 * Prints a markdown table.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "common/pkt.h"
#include "common/lb_fixture.h"
#include "common/lb_frames.h"
#include "lb/maglev.h"
#include "entry.skel.h"
#include "lb.skel.h"
#include "lb_restore.skel.h"

#define VIP_TX   "198.51.100.10" /* backends behind lb0: XDP_TX */
#define VIP_NOROUTE "198.51.100.30" /* one backend with no route */

/* -a: a variant of the lb with parts taken out (bench/lb_ablate.sh) takes
 * other paths than the ones checked; its figures are printed anyway. */
static int ablation;

/* A run did not take the path it times: an error, or a note with -a. */
static int off_path(const char *what)
{
	fprintf(stderr, "lb_cost: %s took another path than the one timed%s\n", what,
		ablation ? " (-a: going on)" : "");
	return !ablation;
}

/* ns per run of `repeat` runs of a frame from 192.0.2.7:60000 to vip:80, TTL ttl. */
static double repeated(struct lb_fixture *f, const char *vip, uint8_t ttl, unsigned repeat)
{
	static struct pkt b;
	uint32_t ns;

	lbt_frame(&b, "192.0.2.7", vip, 60000, 80, 6, 0, ttl, 20); /* not a port of the N flows */
	return lbf_time(f, 0, b.buf, b.len, repeat, &ns) ? -1 : (double)ns;
}

static int vip_with_backends(struct lb_fixture *f, const char *vip, uint32_t index,
			     const char *const be[3], uint32_t first)
{
	uint32_t idx[3] = { first, first + 1, first + 2 };

	if (lbf_vip(f, vip, 80, 6, 0, index, FP_MAGLEV_DEFAULT_SIZE, 0))
		return -1;
	for (int i = 0; i < 3; i++)
		if (lbf_backend(f, idx[i], be[i], index, FP_LB_BE_USED, 1))
			return -1;
	return lbf_table(f, index, FP_MAGLEV_DEFAULT_SIZE, idx, NULL, 3);
}

/*
 * ns per run of `repeat` runs of a frame through the lb_restore prelude
 * (tests/stage/lb_restore.bpf.c), which puts a frame the lb moved back as
 * it was and tail-calls fp_entry: the whole way, repeated, caches warm.
 */
static double restored(struct lb_fixture *f, struct lb_restore_bpf *r, const char *vip, uint8_t ttl,
		       unsigned repeat, int new_flows)
{
	static struct pkt b;
	static char sink[4096];
	struct xdp_md ctx = { .ingress_ifindex = f->ifindex[0] };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_out = sink, .data_size_out = sizeof(sink),
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = repeat);

	lbt_frame(&b, "192.0.2.7", vip, 60000, 80, 6, 0, ttl, 20);
	if (b.len < sizeof(r->bss->orig))
		return -1;
	memcpy(r->bss->orig, b.buf, sizeof(r->bss->orig));
	r->bss->orig_len = (uint32_t)b.len;
	r->bss->new_flows = new_flows;
	ctx.data_end = (uint32_t)b.len;
	o.data_in = b.buf;
	o.data_size_in = (uint32_t)b.len;
	if (bpf_prog_test_run_opts(bpf_program__fd(r->progs.lb_restore), &o) || o.retval == XDP_ABORTED)
		return -1;
	return (double)o.duration;
}

static struct lb_restore_bpf *restore_open(struct lb_fixture *f)
{
	struct lb_restore_bpf *r = lb_restore_bpf__open_and_load();
	int entry = bpf_program__fd(f->entry->progs.fp_entry);
	uint32_t zero = 0;

	if (r && bpf_map_update_elem(bpf_map__fd(r->maps.next), &zero, &entry, 0)) {
		lb_restore_bpf__destroy(r);
		return NULL;
	}
	return r;
}

/* Mean ns of one run each over n frames (sports from sport0). */
static double per_frame_mean(struct lb_fixture *f, const char *vip, uint16_t sport0, unsigned n,
			     int one_flow)
{
	static struct pkt b;
	uint64_t sum = 0;

	for (unsigned i = 0; i < n; i++) {
		uint32_t ns;
		lbt_frame(&b, "192.0.2.7", vip, (uint16_t)(sport0 + (one_flow ? 0 : i)), 80, 6, 0, 64,
			  20);
		if (lbf_time(f, 0, b.buf, b.len, 1, &ns))
			return -1;
		sum += ns;
	}
	return (double)sum / n;
}

/* prog's JITed line table: "ADDRESS NAME FILE:LINE" a line (-L). */
static int prog_lines(FILE *o, int fd, const char *name)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), nl, rec, btf_id;
	struct bpf_line_info *li;
	struct btf *btf;
	__u64 *jl;
	int err = 0;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	nl = info.nr_line_info;
	rec = info.line_info_rec_size;
	btf_id = info.btf_id;
	if (!nl || info.nr_jited_line_info != nl || rec < sizeof(*li))
		return -ENOENT; /* no BTF lines, or their JIT addresses hidden */
	li = calloc(nl, rec);
	jl = calloc(nl, sizeof(*jl));
	if (!li || !jl) {
		free(li);
		free(jl);
		return -ENOMEM;
	}
	memset(&info, 0, sizeof(info));
	info.nr_line_info = nl;
	info.line_info_rec_size = rec;
	info.line_info = (__u64)(unsigned long)li;
	info.nr_jited_line_info = nl;
	info.jited_line_info_rec_size = sizeof(*jl);
	info.jited_line_info = (__u64)(unsigned long)jl;
	len = sizeof(info);
	btf = NULL;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		err = -errno;
	else if (!(btf = btf__load_from_kernel_by_id(btf_id)))
		err = -errno;
	for (__u32 i = 0; !err && i < nl; i++) {
		const struct bpf_line_info *l = (const void *)((const char *)li + (size_t)i * rec);
		const char *file = btf__name_by_offset(btf, l->file_name_off), *base;

		base = file ? strrchr(file, '/') : NULL;
		fprintf(o, "%llx\t%s\t%s:%u\n", (unsigned long long)jl[i], name,
			base ? base + 1 : file ? file : "?", BPF_LINE_INFO_LINE_NUM(l->line_col));
	}
	btf__free(btf);
	free(li);
	free(jl);
	return err;
}

static int write_lines(const char *path, struct lb_fixture *f, struct lb_restore_bpf *r)
{
	FILE *o = fopen(path, "w");
	int err;

	if (!o)
		return fprintf(stderr, "lb_cost: %s: %s\n", path, strerror(errno)), -1;
	err = prog_lines(o, bpf_program__fd(f->lb->progs.fp_lb), "fp_lb");
	if (!err)
		err = prog_lines(o, bpf_program__fd(f->entry->progs.fp_entry), "fp_entry");
	if (!err)
		err = prog_lines(o, bpf_program__fd(r->progs.lb_restore), "lb_restore");
	if (fclose(o) && !err)
		err = -errno;
	if (err)
		fprintf(stderr, "lb_cost: %s: the JITed line tables: %s\n", path, strerror(-err));
	return err;
}

int main(int argc, char **argv)
{
	static const char *const be_tx[3] = { "10.0.0.2", "10.0.0.4", "10.0.0.5" };
	unsigned flows = 50000, repeat = 1000000;
	struct fp_lb_stats st;
	struct lb_fixture f;
	double fresh, again, warm, notvip1, harness;
	double notvip, with_fib, r_notvip, r_est, r_notvip_new, r_new, r_est_many;
	struct lb_restore_bpf *r;
	uint64_t tx0, restores0, new0, hits0, est_hits, est_evicted, evicted;
	uint32_t runs0;
	unsigned times = 1;
	const char *lines = NULL;
	int opt, only_est = 0;

	while ((opt = getopt(argc, argv, "aef:k:L:r:")) != -1) {
		if (opt == 'a')
			ablation = 1;
		else if (opt == 'e')
			only_est = 1;
		else if (opt == 'f')
			flows = (unsigned)atoi(optarg);
		else if (opt == 'k')
			times = (unsigned)atoi(optarg);
		else if (opt == 'L')
			lines = optarg;
		else if (opt == 'r')
			repeat = (unsigned)atoi(optarg);
		else
			return fprintf(stderr, "usage: lb_cost [-a] [-e [-k TIMES] [-L FILE]] [-f FLOWS] [-r REPEAT]\n"), 2;
	}
	if (flows < 1 || flows > 60000 || repeat < 1 || times < 1 || times > 100)
		return fprintf(stderr, "lb_cost: flows 1..60000, repeat >= 1, times 1..100\n"), 2;
	if (lbf_open_sized(&f, FP_LB_CONNS_DEFAULT) /* the product's default, as the lab's */)
		return fprintf(stderr, "lb_cost: the fixture did not open (root?)\n"), 1;
	if (system("for a in 10.0.0.4 10.0.0.5; do ip neigh add $a lladdr 02:00:00:00:0b:04 "
		   "dev lb0 nud permanent || exit 1; done") ||
	    vip_with_backends(&f, VIP_TX, 1, be_tx, 10) ||
	    lbf_vip(&f, VIP_NOROUTE, 80, 6, 0, 2, 13, 0) ||
	    lbf_backend(&f, 20, "203.0.113.9", 2, FP_LB_BE_USED, 1) ||
	    lbf_table(&f, 2, 13, (const uint32_t[]){ 20 }, NULL, 1))
		return fprintf(stderr, "lb_cost: setting up the VIPs failed\n"), 1;

	/* steady state: the paths that leave the frame as it was */
	notvip = repeated(&f, "198.51.100.99", 64, repeat);
	with_fib = repeated(&f, VIP_NOROUTE, 64, repeat);
	if (notvip < 0 || with_fib < 0)
		return fprintf(stderr, "lb_cost: a repeated run failed\n"), 1;
	if (lbf_counter(&f, FP_LB_C_FIB_FAIL) != repeat && off_path("a repeated run"))
		return 1;
	/* the whole way repeated: a new flow in the first run, established after */
	r = restore_open(&f);
	if (!r)
		return fprintf(stderr, "lb_cost: the restore prelude did not load\n"), 1;
	r_notvip = restored(&f, r, "198.51.100.99", 64, repeat, 0);
	tx0 = lbf_counter(&f, FP_LB_C_FORWARD_TX);
	restores0 = r->bss->restores;
	r_est = restored(&f, r, VIP_TX, 64, repeat, 0);
	if (r_notvip < 0 || r_est < 0)
		return fprintf(stderr, "lb_cost: a restored run failed\n"), 1;
	if ((lbf_counter(&f, FP_LB_C_FORWARD_TX) - tx0 != repeat ||
	     r->bss->restores - restores0 != repeat - 1) && off_path("the restored established flow"))
		return 1;
	if (only_est) {
		/* -k: the whole way timed TIMES times in this one process,
		 * the least kept (what moves between runs a few ms apart is
		 * the host; what moves between processes is also where their
		 * maps and stacks lie) */
		for (unsigned k = 1; k < times; k++) {
			double again = restored(&f, r, VIP_TX, 64, repeat, 0);

			if (again < 0)
				return fprintf(stderr, "lb_cost: a restored run failed\n"), 1;
			if (again < r_est)
				r_est = again;
		}
		if (lines && write_lines(lines, &f, r))
			return 1;
		printf("established %.1f notvip %.1f raw %.1f\n", r_est - (r_notvip - notvip), notvip,
		       r_est);
		lb_restore_bpf__destroy(r);
		lbf_close(&f);
		return 0;
	}
	/* a new flow each run (FLOWS runs: the table holds them all, nothing evicted) */
	r_notvip_new = restored(&f, r, "198.51.100.99", 64, flows, 1);
	st = lbf_vip_stats(&f, 1);
	tx0 = lbf_counter(&f, FP_LB_C_FORWARD_TX);
	runs0 = r->bss->runs;
	r_new = restored(&f, r, VIP_TX, 64, flows, 1);
	new0 = st.new_flows;
	st = lbf_vip_stats(&f, 1);
	if (r_notvip_new < 0 || r_new < 0)
		return fprintf(stderr, "lb_cost: the new flows' restored run failed\n"), 1;
	if ((st.new_flows - new0 != flows || lbf_counter(&f, FP_LB_C_FORWARD_TX) - tx0 != flows) &&
	    off_path("the restored new flows"))
		return 1;
	/* the same flows again, established: the runs' numbers rewound, so each
	 * run is the flow that run made above (its bucket as cold as it was) */
	r->bss->runs = runs0;
	new0 = st.new_flows;
	hits0 = st.conn_hits;
	r_est_many = restored(&f, r, VIP_TX, 64, flows, 1);
	st = lbf_vip_stats(&f, 1);
	est_hits = st.conn_hits - hits0;
	est_evicted = st.new_flows - new0;
	if (r_est_many < 0)
		return fprintf(stderr, "lb_cost: the established flows' restored run failed\n"), 1;
	if ((est_hits + est_evicted != flows || est_evicted > flows / 500 ||
	     lbf_counter(&f, FP_LB_C_FORWARD_TX) - tx0 != 2ull * flows) &&
	    off_path("the restored established flows"))
		return 1;
	lb_restore_bpf__destroy(r);
	notvip1 = per_frame_mean(&f, "198.51.100.99", 1024, flows, 1);
	/* new flows, then the same flows established, one run per frame */
	fresh = per_frame_mean(&f, VIP_TX, 1024, flows, 0);
	again = per_frame_mean(&f, VIP_TX, 1024, flows, 0);
	/* one established flow over and over (caches warm, as a busy flow's) */
	warm = per_frame_mean(&f, VIP_TX, 1024, flows, 1);
	if (fresh < 0 || again < 0 || notvip1 < 0 || warm < 0)
		return fprintf(stderr, "lb_cost: test run failed\n"), 1;
	st = lbf_vip_stats(&f, 1);
	/* the restored established flow: one new flow and repeat - 1 hits
	 * before these; and the restored new (and evicted) flows */
	st.new_flows -= 1 + flows + est_evicted;
	st.conn_hits -= repeat - 1;
	st.conn_hits -= est_hits;
	/* A flow whose bucket filled up (more than FP_LB_WAYS of the flows
	 * hashed there) is a miss again: a new flow instead of a hit. A few
	 * of those are the table's (lb_abi.h, lb_conns), and said below. */
	evicted = st.conn_hits < 2ull * flows ? 2ull * flows - st.conn_hits : 0;
	if ((st.new_flows != flows + evicted || evicted > flows / 500 ||
	     lbf_counter(&f, FP_LB_C_FORWARD_TX) != 5ull * flows + repeat) && off_path("per frame"))
		return fprintf(stderr, "lb_cost: not every frame took the path measured (new %llu, hits %llu, tx %llu)\n", (unsigned long long)st.new_flows, (unsigned long long)st.conn_hits, (unsigned long long)lbf_counter(&f, FP_LB_C_FORWARD_TX)), 1;
	harness = notvip1 - notvip;

	printf("| lb stage, IPv4 TCP, 3 backends, table 65,537 | ns per packet |\n|---|---|\n");
	printf("| **steady state, repeat %u** | |\n", repeat);
	printf("| not a VIP: on down the chain | %.0f |\n", notvip);
	printf("| established flow through the fib lookup (no route: dropped after it) | %.0f |\n", with_fib);
	printf("| established flow, the whole way (encapsulation, next hop, XDP_TX), less the prelude | %.0f |\n",
	       r_est - (r_notvip - notvip));
	printf("| (the restore prelude: %.0f on a frame not for a VIP) | |\n", r_notvip - notvip);
	printf("| new flow, the whole way (Maglev, insert, encapsulation, next hop, XDP_TX), a new one "
	       "each of %u runs, less the prelude | %.0f |\n", flows, r_new - (r_notvip_new - notvip));
	printf("| (the prelude making a new flow a run: %.0f) | |\n", r_notvip_new - notvip);
	printf("| established flows: the same %u again, the whole way, one a run, less the prelude | %.0f |\n",
	       flows, r_est_many - (r_notvip_new - notvip));
	printf("| (of them found evicted by a full bucket, so new again: %llu) | |\n",
	       (unsigned long long)est_evicted);
	printf("| **new / established over the same %u flows, repeated (the goal's ratio: at most 2x)** | **%.2fx** |\n",
	       flows, (r_new - (r_notvip_new - notvip)) / (r_est_many - (r_notvip_new - notvip)));
	printf("| new / one established flow repeated (its lines all in L1: a best case) | %.2fx |\n",
	       (r_new - (r_notvip_new - notvip)) / (r_est - (r_notvip - notvip)));
	printf("| **whole way, one run per frame, caches cold (mean of %u)** | |\n", flows);
	printf("| not a VIP (the one-run harness: %.0f more than repeated) | %.0f |\n", harness,
	       notvip1);
	printf("| new flow: Maglev, insert, encapsulation, fib, XDP_TX, less the harness | %.0f |\n",
	       fresh - harness);
	printf("| established flow (the same flows again), less the harness | %.0f |\n",
	       again - harness);
	printf("| one established flow over and over, less the harness | %.0f |\n", warm - harness);
	printf("| new / established (%u flows each) | %.2fx |\n", flows,
	       (fresh - harness) / (again - harness));
	printf("| (established frames whose flow a full bucket had evicted: %llu of %u) | |\n",
	       (unsigned long long)evicted, 2 * flows);
	lbf_close(&f);
	return 0;
}
