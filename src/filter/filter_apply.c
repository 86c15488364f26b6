// SPDX-License-Identifier: BSD-2-Clause
/*
 * Applying a rule set (the spare generation written aside, then one flip), reading
 * the live generation back, and running the program on single frames.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "filter/compile.h"
#include "filter/filter_internal.h"

/* Writes n values of vsz bytes at entry `first` of an mmapable array of
 * `max` entries (elements are padded to 8 bytes). */
static int mmap_fill(int fd, size_t first, const void *vals, size_t n, size_t vsz, size_t max)
{
	size_t stride = (vsz + 7) & ~(size_t)7, len = stride * max;
	uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (m == MAP_FAILED)
		return -errno;
	for (size_t i = 0; i < n; i++)
		memcpy(m + (first + i) * stride, (const uint8_t *)vals + i * vsz, vsz);
	munmap(m, len);
	return 0;
}

/*
 * fp_flt_state, mapped: `apply` writes gen, serial and applied_ns and a
 * dump writes dump, each only its own fields, where a whole-value update
 * from one could undo what the other wrote meanwhile.
 */
static struct fp_flt_state *state_map(struct fp_filter *f, size_t *len)
{
	void *m;

	*len = (size_t)sysconf(_SC_PAGESIZE);
	m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, f->state_fd, 0);
	return m == MAP_FAILED ? NULL : m;
}

/* Zeroes generation gen's counters of rules 0..n-1 and of the default. */
static int counters_clear(int fd, __u32 gen, __u32 n)
{
	int ncpu = libbpf_num_possible_cpus();
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 count = n + 1, *keys;
	void *zeros;
	int ret = 0;

	if (ncpu <= 0)
		return -EINVAL;
	keys = calloc(count, sizeof(*keys));
	zeros = calloc((size_t)count * ncpu, sizeof(struct fp_rule_cnt));
	if (!keys || !zeros) {
		ret = -ENOMEM;
		goto out;
	}
	for (__u32 i = 0; i < n; i++)
		keys[i] = gen * FP_FLT_CNT_ENTRIES + i;
	keys[n] = gen * FP_FLT_CNT_ENTRIES + FP_MAX_RULES;
	if (bpf_map_update_batch(fd, keys, zeros, &count, &opts))
		ret = -errno;
out:
	free(keys);
	free(zeros);
	return ret;
}

/*
 * Waits until no packet still reads the spare generation: it was live
 * before the last flip, and a program that started then may still run.
 * MEMBARRIER_CMD_GLOBAL returns after an RCU grace period, which XDP
 * programs (run under rcu_read_lock) cannot outlast.
 */
static int wait_readers(void)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0)
		return 0;
	if (errno != EINVAL)
		return -errno;
	/* nohz_full kernels refuse it: a grace period is far shorter than this */
	usleep(200000);
	return 0;
}

/* Writes the image into generation gen of every rule map. */
static int write_gen(struct fp_filter *f, const struct fp_flt_image *img, __u32 gen)
{
	const int *fd = f->gen_fd;
	const __u32 *per = f->gen_n;
	int ret;

	if (bpf_map_update_elem(fd[GM_GCFG], &gen, &img->cfg, 0))
		return -errno;
	ret = mmap_fill(fd[GM_CLS], gen * per[GM_CLS], img->cls_ent, FP_CLS_ENTRIES,
			sizeof(struct fp_flt_cls_ent), 2 * per[GM_CLS]);
	if (!ret)
		ret = mmap_fill(fd[GM_RULES], gen * per[GM_RULES], img->rules, img->cfg.n_rules,
				sizeof(struct fp_flt_rule), 2 * per[GM_RULES]);
	if (!ret)
		ret = mmap_fill(fd[GM_TEXT], gen * per[GM_TEXT], img->text, img->cfg.n_rules,
				sizeof(struct fp_flt_text), 2 * per[GM_TEXT]);
	if (!ret)
		ret = mmap_fill(fd[GM_CMASK], gen * per[GM_CMASK], img->cmask, FP_CM_ENTRIES, 8,
				2 * per[GM_CMASK]);
	if (!ret)
		ret = mmap_fill(fd[GM_PRE], gen * per[GM_PRE], img->pre_map, FP_PRE_ENTRIES,
				sizeof(struct fp_flt_pre), 2 * per[GM_PRE]);
	if (!ret)
		ret = mmap_fill(fd[GM_KEYS], gen * per[GM_KEYS], img->key_slots,
				1u << img->cfg.key_bits, sizeof(struct fp_flt_key_slot),
				2 * per[GM_KEYS]);
	if (!ret)
		ret = mmap_fill(fd[GM_ADDR], gen * per[GM_ADDR], img->addr_slots,
				1u << img->cfg.addr_bits, sizeof(struct fp_flt_addr_slot),
				2 * per[GM_ADDR]);
	if (!ret)
		ret = mmap_fill(fd[GM_QNAME], gen * per[GM_QNAME], img->qn_slots,
				1u << img->cfg.qn_bits, sizeof(struct fp_flt_qname_slot),
				2 * per[GM_QNAME]);
	if (!ret)
		ret = mmap_fill(fd[GM_QNAMES], gen * per[GM_QNAMES], img->qn_names,
				img->n_qname + 1, sizeof(struct fp_flt_qname_val),
				2 * per[GM_QNAMES]);
	if (!ret)
		ret = mmap_fill(fd[GM_ABLOOM], gen * per[GM_ABLOOM], img->abloom, FP_ABLOOM_WORDS,
				sizeof(*img->abloom), 2 * per[GM_ABLOOM]);
	if (!ret)
		ret = counters_clear(fd[GM_CNT], gen, img->cfg.n_rules);
	return ret;
}

int fp_filter__apply(struct fp_filter *f, const struct fp_ruleset *set, char *err, size_t errlen)
{
	struct fp_flt_image img;
	struct fp_flt_state st, *live;
	struct timespec ts;
	__u32 zero = 0, spare;
	size_t len;
	int ret;

	ret = fp_flt_image__build(set, &img, err, errlen);
	if (ret)
		return ret;
	if (bpf_map_lookup_elem(f->state_fd, &zero, &st)) {
		ret = -errno;
		snprintf(err, errlen, "reading the filter state failed: %s", strerror(-ret));
		goto out;
	}
	if (img.cfg.key_bits > f->flat_bits || img.cfg.addr_bits > f->flat_bits) {
		unsigned need = img.cfg.key_bits > img.cfg.addr_bits ? img.cfg.key_bits :
								       img.cfg.addr_bits;

		snprintf(err, errlen, "the rule set needs tables of 2^%u slots (%zu tuple keys, "
			 "%zu address prefixes); this filter was loaded with --table-bits %u: "
			 "unload it and load with --table-bits %u", need, img.n_keys, img.n_addr,
			 f->flat_bits, need);
		ret = -E2BIG;
		goto out;
	}
	spare = (st.gen & 1) ^ 1;
	ret = wait_readers();
	if (ret) {
		snprintf(err, errlen, "waiting for packets in flight failed: %s", strerror(-ret));
		goto out;
	}
	/* the live counters' bases folded, in case the last apply was killed
	 * before it folded them: the spare's counts are about to be zeroed */
	if (st.serial) {
		ret = fp_flt_cnt__fold(f, st.gen & 1);
		if (ret) {
			snprintf(err, errlen, "reading the counters failed: %s; the live set is "
				 "unchanged", strerror(-ret));
			goto out;
		}
	}
	/* the spare generation: nothing reads it until the flip */
	ret = write_gen(f, &img, spare);
	if (!ret)
		ret = fp_flt_cnt__carry(f, &img, spare, st.serial != 0);
	if (ret) {
		snprintf(err, errlen, "writing the new rule set failed: %s; the live set is "
			 "unchanged", strerror(-ret));
		goto out;
	}
	/* the flip: one write of gen; every packet after it sees the whole new
	 * set. serial after it: at the first apply a packet between the two
	 * still counts as "no rules" */
	live = state_map(f, &len);
	if (!live) {
		ret = -errno;
		snprintf(err, errlen, "flipping to the new rule set failed: %s", strerror(-ret));
		goto out;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	__atomic_store_n(&live->gen, spare, __ATOMIC_RELEASE);
	__atomic_store_n(&live->serial, st.serial + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&live->applied_ns, (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec,
			 __ATOMIC_RELEASE);
	munmap(live, len);
	/* the counts packets made in the old generation until now join the kept
	 * rules' bases, once none can still count there. If this fails the bases
	 * stay pending (readers add those counts) and the next apply folds them */
	if (st.serial && wait_readers() == 0)
		fp_flt_cnt__fold(f, spare);
	ret = 0;
out:
	fp_flt_image__free(&img);
	return ret;
}

static int run_prog(struct fp_filter *f, int prog_fd, const void *frame, size_t len,
		    uint32_t *verdict, uint32_t *rule)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = len, .repeat = 1);
	struct fp_flt_last *l = &f->last;
	struct timespec ts;
	__u32 zero = 0;
	int ret;

	if (len < 14)
		return -EINVAL;
	/* seq 0, no bucket, and the clock the limiter reads in test mode */
	memset(l, 0, sizeof(*l));
	if (f->test_clock) {
		l->now_ns = f->test_now_ns;
	} else {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		l->now_ns = (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	}
	if (bpf_map_update_elem(f->last_fd, &zero, l, 0))
		return -errno;
	ret = bpf_prog_test_run_opts(prog_fd, &opts);
	if (ret)
		return -errno;
	*verdict = opts.retval;
	if (bpf_map_lookup_elem(f->last_fd, &zero, l))
		return -errno;
	*rule = l->seq ? l->rule : FP_FLT_NO_RULE;
	return 0;
}

void fp_filter__set_test_clock(struct fp_filter *f, __u64 now_ns)
{
	f->test_clock = true;
	f->test_now_ns = now_ns;
}

const struct fp_flt_last *fp_filter__last(const struct fp_filter *f)
{
	return &f->last;
}

int fp_filter__run(struct fp_filter *f, const void *frame, size_t len, uint32_t *verdict,
		   uint32_t *rule)
{
	/* the program the interface would run: the filter's fused entry */
	return run_prog(f, fp_pipeline__attached_fd(f->pl), frame, len, verdict, rule);
}

int fp_filter__run_staged(struct fp_filter *f, const void *frame, size_t len,
			  uint32_t *verdict, uint32_t *rule)
{
	if (!fp_pipeline__is_test(f->pl))
		return -EINVAL;
	return run_prog(f, fp_pipeline__entry_fd(f->pl), frame, len, verdict, rule);
}

/*
 * Sums the first `nsum` u64 fields of a per-CPU value (vsz bytes per CPU)
 * into `total` (zeroed first); copies the CPUs' values to per_cpu if given.
 * A missing entry reads as zeros.
 */
static int read_percpu(int fd, __u32 idx, size_t vsz, size_t nsum, void *total, void *per_cpu,
		       int ncpu)
{
	uint8_t *v = calloc(ncpu, vsz);

	if (!v)
		return -ENOMEM;
	memset(total, 0, vsz);
	if (bpf_map_lookup_elem(fd, &idx, v) == 0) {
		for (int c = 0; c < ncpu; c++) {
			for (size_t k = 0; k < nsum; k++) {
				uint64_t x, t;

				memcpy(&x, v + c * vsz + 8 * k, 8);
				memcpy(&t, (uint8_t *)total + 8 * k, 8);
				t += x;
				memcpy((uint8_t *)total + 8 * k, &t, 8);
			}
		}
		if (per_cpu)
			memcpy(per_cpu, v, ncpu * vsz);
	}
	free(v);
	return 0;
}

int fp_filter__state(struct fp_filter *f, struct fp_flt_state *st)
{
	__u32 zero = 0;

	memset(st, 0, sizeof(*st));
	return bpf_map_lookup_elem(f->state_fd, &zero, st) ? -errno : 0;
}

static int view_once(struct fp_filter *f, struct fp_filter_view *v)
{
	int ncpu = libbpf_num_possible_cpus(), ret = 0;
	struct fp_flt_cnt_reader cnt = { 0 };
	struct fp_flt_gencfg cfg;
	__u32 zero = 0, gen;

	memset(v, 0, sizeof(*v));
	if (ncpu <= 0)
		return -EINVAL;
	bpf_map_lookup_elem(f->state_fd, &zero, &v->state);
	fp_filter__meta(f, &v->meta);
	for (__u32 s = 0; s < FP_FLT_ST_MAX; s++)
		read_percpu(f->stats_fd, s, sizeof(struct fp_counter), 2, &v->stage[s], NULL, ncpu);
	if (f->smp_fd >= 0)
		read_percpu(f->smp_fd, 0, sizeof(struct fp_smp_stats), 2, &v->smp, NULL, ncpu);
	if (!v->state.serial)
		return 0; /* no rule set applied yet */
	gen = v->state.gen & 1;
	if (bpf_map_lookup_elem(f->gen_fd[GM_GCFG], &gen, &cfg)) {
		ret = -errno;
		goto out;
	}
	v->has_rules = true;
	v->default_verdict = cfg.default_verdict;
	v->n_rules = cfg.n_rules;
	v->rules = calloc(cfg.n_rules + 1, sizeof(*v->rules));
	if (!v->rules) {
		ret = -ENOMEM;
		goto out;
	}
	ret = fp_flt_cnt__reader_open(f, gen, &cnt);
	if (ret)
		goto out;
	for (__u32 i = 0; i < cfg.n_rules; i++) {
		struct fp_filter_rule_info *r = &v->rules[i];
		struct fp_flt_text t;

		r->ncpu = ncpu;
		r->per_cpu = calloc(ncpu, sizeof(*r->per_cpu));
		if (!r->per_cpu) {
			ret = -ENOMEM;
			goto out;
		}
		__u32 ti = gen * FP_MAX_RULES + i;

		if (bpf_map_lookup_elem(f->gen_fd[GM_TEXT], &ti, &t) == 0)
			memcpy(r->text, t.text, sizeof(r->text));
		r->text[sizeof(r->text) - 1] = 0;
		ret = fp_flt_cnt__read(&cnt, i, &r->total, r->per_cpu);
		if (ret)
			goto out;
	}
	ret = fp_flt_cnt__read(&cnt, FP_MAX_RULES, &v->dflt, NULL);
out:
	fp_flt_cnt__reader_close(&cnt);
	if (ret)
		fp_filter_view__free(v);
	return ret;
}

/*
 * A reader that stalls while an apply flips the generation it is reading and
 * the next apply rewrites it (now the spare: zeroed counters, new texts)
 * would see a torn view: counters lower than a moment before. Every flip
 * bumps state.serial, so a view whose serial moved while it was read is
 * read again (a few times at most: applies take ~0.1 s, a read ~1 ms).
 */
int fp_filter__view(struct fp_filter *f, struct fp_filter_view *v)
{
	struct fp_flt_state after;
	__u32 zero = 0;
	int ret;

	for (int tries = 0;; tries++) {
		ret = view_once(f, v);
		if (ret || tries == 8 || bpf_map_lookup_elem(f->state_fd, &zero, &after) ||
		    after.serial == v->state.serial)
			return ret;
		fp_filter_view__free(v);
	}
}

void fp_filter_view__free(struct fp_filter_view *v)
{
	if (!v)
		return;
	for (size_t i = 0; v->rules && i < v->n_rules; i++)
		free(v->rules[i].per_cpu);
	free(v->rules);
	v->rules = NULL;
	v->n_rules = 0;
}

int fp_filter__ruleset(struct fp_filter *f, struct fp_ruleset *set, char *err, size_t errlen)
{
	struct fp_filter_view v;
	struct fp_diags d = { 0 };
	int ret = fp_filter__view(f, &v);

	memset(set, 0, sizeof(*set));
	if (ret) {
		snprintf(err, errlen, "reading the live rule set failed: %s", strerror(-ret));
		return ret;
	}
	set->default_action = v.has_rules && v.default_verdict == XDP_DROP ? FP_ACT_DROP : FP_ACT_PASS;
	set->rules = calloc(v.n_rules + 1, sizeof(*set->rules));
	if (!set->rules) {
		fp_filter_view__free(&v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < v.n_rules; i++) {
		ret = fp_rule__parse(v.rules[i].text, i + 1, &set->rules[i], &d);
		if (ret) {
			snprintf(err, errlen, "live rule %zu does not parse back (%s): %s", i + 1,
				 d.n ? d.v[0].msg : "?", v.rules[i].text);
			fp_diags__free(&d);
			fp_ruleset__free(set);
			fp_filter_view__free(&v);
			return -EPROTO;
		}
		set->rules[i].line = i + 1;
		set->n++;
	}
	fp_filter_view__free(&v);
	return 0;
}

const char *fp_filter_stat__name(enum fp_flt_stat s)
{
	static const char *const names[FP_FLT_ST_MAX] = {
		[FP_FLT_ST_RULE_PASS] = "rule_pass",       [FP_FLT_ST_RULE_DROP] = "rule_drop",
		[FP_FLT_ST_LIMIT_PASS] = "limit_pass",     [FP_FLT_ST_LIMIT_DROP] = "limit_drop",
		[FP_FLT_ST_DEFAULT_PASS] = "default_pass", [FP_FLT_ST_DEFAULT_DROP] = "default_drop",
		[FP_FLT_ST_NO_RULES] = "no_rules",
	};
	return s < FP_FLT_ST_MAX ? names[s] : "?";
}
