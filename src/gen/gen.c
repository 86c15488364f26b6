// SPDX-License-Identifier: BSD-2-Clause
/*
 * The generator's user half: load gen.bpf.c with the template's layout,
 * seed the per-CPU pacer, run one long BPF_PROG_TEST_RUN (live frames,
 * batch 256) per pinned thread, and stop them on count, time or *stop.
 *
 * Threads are stopped by SIGUSR1: the kernel's test-run loop checks for a
 * pending signal between batches and returns -EINTR. A thread may be
 * between two syscalls when the signal comes, so the monitor repeats it
 * every millisecond until the thread has left.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gen/gen.h"
#include "gen/gen_internal.h"
#include "gen.skel.h"
#include "util/verbose.h"

#define POLL_NS     1000000ull   /* monitor period: 1 ms */
#define TRAIN_NS    200000.0     /* at most one train of frames per 200 us */
/* A sender this far behind skips ahead; less behind, it catches up. At 1 ms
 * every stall of the sender's CPU over 1 ms (another task, on a busy
 * machine several per second) lost its frames for good: --pps 10000 sent
 * 33-49% of the rate asked with the machine at load 7. */
#define MAXLAG_NS   100000000ull

struct gen_thread {
	struct fp_gen *g;
	pthread_t tid;
	int cpu;
	uint64_t quota;
	atomic_int done;
	int err;                  /* negative errno of a failed run */
	uint64_t t_start, t_end;  /* CLOCK_MONOTONIC ns */
};

struct fp_gen {
	struct gen_bpf *skel;
	struct fp_gen_opts o;
	uint8_t frame[FP_GEN_FRAME_MAX];
	int prog_fd, map_fd, ncpu;
	atomic_int stop_all;
	struct gen_thread *th;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	nanosleep(&ts, NULL);
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return fp_verbose__libbpf_print(level, fmt, ap); /* -v, -vv */
}

static int check_opts(const struct fp_gen_opts *o, int ncpu, char *err, size_t errlen)
{
	if (o->ifindex <= 0)
		return snprintf(err, errlen, "no interface given"), -EINVAL;
	if (o->len < 14 || o->len > FP_GEN_FRAME_MAX)
		return snprintf(err, errlen, "template of %zu bytes: need 14 to %d",
				o->len, FP_GEN_FRAME_MAX), -EINVAL;
	if (!(o->duration > 0) || o->duration > FP_GEN_DURATION_MAX)
		return snprintf(err, errlen, "--duration %g: give 0 < S <= %d seconds",
				o->duration, FP_GEN_DURATION_MAX), -EINVAL;
	if (o->threads < 1 || o->cpu < 0 || o->cpu + o->threads > ncpu)
		return snprintf(err, errlen, "--threads %d --cpu %d: CPUs %d..%d do not all "
				"exist (this machine has %d)", o->threads, o->cpu, o->cpu,
				o->cpu + o->threads - 1, ncpu), -EINVAL;
	if (o->rand_src && (o->rand_plen < 0 || o->rand_plen > 32))
		return snprintf(err, errlen, "--rand-src: prefix length %d out of 0..32",
				o->rand_plen), -EINVAL;
	return 0;
}

/* Sets the program's rewrite constants from the template's layout. */
static int set_rewrites(struct fp_gen *g, char *err, size_t errlen)
{
	struct gen_bpf__rodata *ro = g->skel->rodata;
	struct fp_gen_layout l;

	gen_layout(g->frame, g->o.len, &l);
	if (g->o.rand_src) {
		uint32_t mask = g->o.rand_plen ? ~0u << (32 - g->o.rand_plen) : 0;
		uint32_t net = (uint32_t)g->o.rand_net[0] << 24 | g->o.rand_net[1] << 16 |
			       g->o.rand_net[2] << 8 | g->o.rand_net[3];

		if (l.family != 4) {
			snprintf(err, errlen, "--rand-src needs an IPv4 template");
			return -EINVAL;
		}
		ro->rand_src = 1;
		ro->rand_base = net & mask;
		ro->rand_hostmask = ~mask;
		ro->ip_off = l.ip_off;
		ro->l4_csum_off = l.l4_csum_off;
		ro->l4_udp = l.proto == 17;
	}
	if (g->o.rand_sport) {
		if (l.family != 4 || !l.l4_off || (l.proto != 6 && l.proto != 17)) {
			snprintf(err, errlen, "--rand-sport needs an IPv4 TCP or UDP template");
			return -EINVAL;
		}
		ro->rand_sport = 1;
		ro->l4_off = l.l4_off;
		ro->l4_csum_off = l.l4_csum_off;
		ro->l4_udp = l.proto == 17;
	}
	if (g->o.rand_label) {
		if (l.family != 4 || !l.label_off) {
			snprintf(err, errlen, "--rand-label needs an IPv4 UDP template holding a DNS "
				 "question (first label of 1 to 63 bytes)");
			return -EINVAL;
		}
		/* The label changes on every frame: no UDP checksum (allowed on IPv4). */
		g->frame[l.l4_csum_off] = g->frame[l.l4_csum_off + 1] = 0;
		ro->rand_label = 1;
		ro->label_off = l.label_off;
		ro->label_len = l.label_len;
		ro->ip_off = l.ip_off;
		ro->l4_csum_off = l.l4_csum_off;
		ro->l4_udp = 1;
	}
	/* last: the template as it leaves (the label's checksum zeroed) */
	ro->head_len = (g->o.len < FP_GEN_HEAD ? g->o.len : FP_GEN_HEAD) & ~7u;
	memcpy((void *)ro->head, g->frame, ro->head_len);
	return 0;
}

int fp_gen__open(const struct fp_gen_opts *o, struct fp_gen **out, char *err, size_t errlen)
{
	struct fp_gen *g;
	int ret, ncpu = libbpf_num_possible_cpus();
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	if (ncpu < 0)
		return snprintf(err, errlen, "cannot count CPUs: %s", strerror(-ncpu)), ncpu;
	ret = check_opts(o, online > 0 && online < ncpu ? (int)online : ncpu, err, errlen);
	if (ret)
		return ret;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->o = *o;
	g->ncpu = ncpu;
	memcpy(g->frame, o->frame, o->len);
	g->o.frame = g->frame;

	libbpf_set_print(quiet);
	g->skel = gen_bpf__open();
	if (!g->skel) {
		ret = -errno;
		snprintf(err, errlen, "opening the generator program failed: %s", strerror(-ret));
		goto fail;
	}
	ret = set_rewrites(g, err, errlen);
	if (ret)
		goto fail;
	ret = gen_bpf__load(g->skel);
	if (ret) {
		snprintf(err, errlen, "loading the generator program failed: %s (run as root; "
			 "FASTPATH_DEBUG=1 shows the verifier log)", strerror(-ret));
		goto fail;
	}
	g->prog_fd = bpf_program__fd(g->skel->progs.fp_gen);
	g->map_fd = bpf_map__fd(g->skel->maps.fp_gen_cpu);
	*out = g;
	return 0;
fail:
	fp_gen__close(g);
	return ret;
}

void fp_gen__close(struct fp_gen *g)
{
	if (!g)
		return;
	gen_bpf__destroy(g->skel);
	free(g->th);
	free(g);
}

/* Reads the per-CPU state into v (ncpu entries). */
static int read_cpus(struct fp_gen *g, struct fp_gen_cpu *v)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(g->map_fd, &zero, v) ? -errno : 0;
}

static int seed_cpus(struct fp_gen *g)
{
	struct fp_gen_cpu *v = calloc((size_t)g->ncpu, sizeof(*v));
	int nt = g->o.threads, ret = 0;
	__u32 zero = 0;

	if (!v)
		return -ENOMEM;
	for (int i = 0; i < nt; i++) {
		struct fp_gen_cpu *c = &v[g->th[i].cpu];

		c->quota = g->th[i].quota;
		if (g->o.pps) {
			double pps = (double)g->o.pps / nt, train = pps * TRAIN_NS / 1e9, iv;

			c->train = train < 1 ? 1 : train > FP_GEN_TRAIN_MAX ? FP_GEN_TRAIN_MAX :
				   (uint32_t)train;
			iv = 1e9 * (double)(1u << FP_GEN_SHIFT) * c->train / pps;
			c->interval = iv < 1 ? 1 : (uint64_t)iv;
			c->maxlag = MAXLAG_NS << FP_GEN_SHIFT;
		}
	}
	if (bpf_map_update_elem(g->map_fd, &zero, v, 0))
		ret = -errno;
	free(v);
	return ret;
}

static void on_usr1(int sig) { (void)sig; }

static void *worker(void *arg)
{
	struct gen_thread *t = arg;
	struct fp_gen *g = t->g;
	struct xdp_md ctx = { .data_end = (__u32)g->o.len, .ingress_ifindex = (__u32)g->o.ifindex };
	struct fp_gen_cpu *v = calloc((size_t)g->ncpu, sizeof(*v));
	sigset_t set;
	cpu_set_t cpus;

	/* Only SIGUSR1 reaches this thread; SIGINT and the like go to the caller. */
	sigfillset(&set);
	sigdelset(&set, SIGUSR1);
	pthread_sigmask(SIG_SETMASK, &set, NULL);
	CPU_ZERO(&cpus);
	CPU_SET(t->cpu, &cpus);
	if (!v) {
		t->err = -ENOMEM;
		goto out;
	}
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		t->err = -errno;
		goto out;
	}
	t->t_start = now_ns();
	while (!atomic_load(&g->stop_all)) {
		LIBBPF_OPTS(bpf_test_run_opts, run,
			.data_in = g->frame,
			.data_size_in = (__u32)g->o.len,
			.ctx_in = &ctx,
			.ctx_size_in = sizeof(ctx),
			/* quota is enforced in the program; with a pacer the run ends by signal */
			.repeat = t->quota && !g->o.pps && t->quota < 0xffffffffull ?
				  (__u32)t->quota : 0xffffffffu,
			.batch_size = FP_GEN_BATCH,
			.flags = BPF_F_TEST_XDP_LIVE_FRAMES,
		);

		if (bpf_prog_test_run_opts(g->prog_fd, &run)) {
			if (errno == EINTR)
				continue;
			t->err = -errno;
			break;
		}
		if (t->quota && !read_cpus(g, v) && v[t->cpu].sent >= t->quota)
			break;
	}
	t->t_end = now_ns();
out:
	free(v);
	atomic_store(&t->done, 1);
	return NULL;
}

/* When the first frame left, over every CPU (CLOCK_MONOTONIC ns, 0: none yet). */
static uint64_t first_sent(const struct fp_gen *g, const struct fp_gen_cpu *v)
{
	uint64_t first = 0;

	for (int c = 0; c < g->ncpu; c++)
		if (v[c].sent && v[c].first_ns && (!first || v[c].first_ns < first))
			first = v[c].first_ns;
	return first;
}

/* Sums the counters; true when every thread's quota is sent. */
static bool collect(struct fp_gen *g, struct fp_gen_cpu *v, struct fp_gen_result *r)
{
	bool all = true;

	if (read_cpus(g, v))
		return false;
	r->sent = r->paced = 0;
	for (int c = 0; c < g->ncpu; c++) {
		r->sent += v[c].sent;
		r->paced += v[c].paced;
	}
	for (int i = 0; i < g->o.threads; i++)
		if (!g->th[i].quota || v[g->th[i].cpu].sent < g->th[i].quota)
			all = false;
	return all;
}

static bool all_done(struct fp_gen *g)
{
	for (int i = 0; i < g->o.threads; i++)
		if (!atomic_load(&g->th[i].done))
			return false;
	return true;
}

int fp_gen__run(struct fp_gen *g, volatile sig_atomic_t *stop, struct fp_gen_result *r,
		char *err, size_t errlen)
{
	struct sigaction sa = { .sa_handler = on_usr1 };   /* no SA_RESTART */
	struct fp_gen_cpu *v = calloc((size_t)g->ncpu, sizeof(*v));
	int nt = g->o.threads, started = 0, ret = 0, have_rf;
	uint64_t t0, deadline, first = UINT64_MAX, last = 0, rf0 = 0, rf1 = 0, sent0 = 0, total;
	struct gen_refused rf;

	memset(r, 0, sizeof(*r));
	r->threads = nt;
	have_rf = gen_refused_open(&rf, g->o.ifindex) == 0 && gen_refused_read(&rf, &rf0) == 0;
	free(g->th);
	g->th = calloc((size_t)nt, sizeof(*g->th));
	if (!v || !g->th) {
		free(v);
		return -ENOMEM;
	}
	/* paced for a duration: at most pps x duration frames, however the
	 * sender's CPU was shared (it catches up after a stall) */
	total = g->o.count;
	if (!total && g->o.pps && g->o.duration > 0)
		total = (uint64_t)((double)g->o.pps * g->o.duration + 0.5);
	for (int i = 0; i < nt; i++) {
		g->th[i].g = g;
		g->th[i].cpu = g->o.cpu + i;
		g->th[i].quota = total ? total / nt + ((uint64_t)i < total % nt) : 0;
	}
	ret = seed_cpus(g);
	if (ret) {
		snprintf(err, errlen, "seeding the generator's counters failed: %s", strerror(-ret));
		goto out;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	atomic_store(&g->stop_all, 0);

	t0 = now_ns();
	deadline = t0 + (uint64_t)(g->o.duration * 1e9);
	for (; started < nt; started++) {
		ret = -pthread_create(&g->th[started].tid, NULL, worker, &g->th[started]);
		if (ret) {
			snprintf(err, errlen, "starting thread %d failed: %s", started, strerror(-ret));
			break;
		}
	}
	while (!ret) {
		if (stop && *stop) {
			r->interrupted = true;
			break;
		}
		if (now_ns() >= deadline || collect(g, v, r) || all_done(g))
			break;
		/* --duration counts from the first frame: a test run's setup (tens
		 * of ms for the live-frames page pool) is not time spent sending */
		if (!sent0 && (sent0 = first_sent(g, v)))
			deadline = sent0 + (uint64_t)(g->o.duration * 1e9);
		sleep_ns(POLL_NS);
	}
	atomic_store(&g->stop_all, 1);
	for (;;) {
		bool busy = false;

		for (int i = 0; i < started; i++)
			if (!atomic_load(&g->th[i].done)) {
				pthread_kill(g->th[i].tid, SIGUSR1);
				busy = true;
			}
		if (!busy)
			break;
		sleep_ns(POLL_NS);
	}
	for (int i = 0; i < started; i++) {
		struct gen_thread *t = &g->th[i];

		pthread_join(t->tid, NULL);
		if (t->err && !ret) {
			ret = t->err;
			snprintf(err, errlen, "sending on CPU %d failed: %s%s", t->cpu,
				 strerror(-ret), ret == -EOPNOTSUPP || ret == -EINVAL ?
				 " (live frames need kernel >= 5.18 and an up interface)" : "");
		}
		if (t->t_start && t->t_start < first)
			first = t->t_start;
		if (t->t_end > last)
			last = t->t_end;
	}
	collect(g, v, r);
	if (first_sent(g, v))
		first = first_sent(g, v); /* the rate is over the time frames were sent */
	r->seconds = last > first ? (double)(last - first) / 1e9 : 0;
	r->refused = have_rf && gen_refused_read(&rf, &rf1) == 0 ? rf1 - rf0 : UINT64_MAX;
out:
	gen_refused_close(&rf);
	free(v);
	return ret;
}
