// SPDX-License-Identifier: BSD-2-Clause
/*
 * Rule counters that survive an apply. The program counts per CPU into the
 * live generation's fp_flt_cnt, without atomics, so user space never writes
 * a live slot; what a rule counted before its generation went live is kept
 * in fp_flt_cnt_base, which only user space writes (abi.h).
 *
 * An apply, for every rule of the new set whose ident (hash of id and
 * text) the live set has too, and for the default when its verdict stays:
 *   1. before the flip, the spare generation's base gets `prior` = the live
 *      rule's carried base and `pending` = 1 + its live index; the spare's
 *      own counters are zero;
 *   2. after the flip and a grace period (no packet still counts into the
 *      old generation), the fold: `carried` = prior + the old generation's
 *      counts, then `pending` = 0 (release).
 * A reader adds, while `pending` is set, the old generation's counts, which
 * still move until the fold: so a rule's total never goes down across an
 * apply, whenever it is read. An apply killed between flip and fold leaves
 * the bases pending (readers are still right); the next apply folds them
 * before it touches the old generation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "filter/compile.h"
#include "filter/filter_internal.h"
#include "util/htab.h"

#define N_SUM 4 /* packets, bytes, drops, samples: skip is sampling state */

static size_t base_len(void)
{
	return 2 * (size_t)FP_FLT_CNT_ENTRIES * sizeof(struct fp_rule_cnt_base);
}

static struct fp_rule_cnt_base *base_map(struct fp_filter *f, int prot)
{
	void *m = mmap(NULL, base_len(), prot, MAP_SHARED, f->gen_fd[GM_CNT_BASE], 0);

	return m == MAP_FAILED ? NULL : m;
}

static void cnt_add(struct fp_rule_cnt *to, const struct fp_rule_cnt *c)
{
	to->packets += c->packets;
	to->bytes += c->bytes;
	to->drops += c->drops;
	to->samples += c->samples;
}

/* fp_flt_cnt[idx] summed over CPUs into *sum (added); each CPU's value
 * copied to per_cpu if given. A missing entry adds nothing. */
static int live_add(struct fp_filter *f, __u32 idx, int ncpu, struct fp_rule_cnt *sum,
		    struct fp_rule_cnt *per_cpu)
{
	struct fp_rule_cnt *v = calloc(ncpu, sizeof(*v));

	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(f->gen_fd[GM_CNT], &idx, v) == 0) {
		for (int c = 0; c < ncpu; c++)
			cnt_add(sum, &v[c]);
		if (per_cpu)
			memcpy(per_cpu, v, ncpu * sizeof(*v));
	}
	free(v);
	return 0;
}

/*
 * Generation gen's counters of rules 0..n-1 summed over CPUs, in one batch
 * (one syscall for 10,000 rules, where a lookup each took ~20 us under load).
 * The batch starts after the key in in_batch: none for the first entry.
 */
static struct fp_rule_cnt *live_sums(struct fp_filter *f, __u32 gen, __u32 n, int ncpu)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	struct fp_rule_cnt *sums = calloc(n + 1, sizeof(*sums)), *v = NULL;
	__u32 *keys = NULL, in = gen * FP_FLT_CNT_ENTRIES - 1, out, done = 0;

	if (!sums || !n)
		return sums;
	keys = calloc(n, sizeof(*keys));
	v = calloc((size_t)n * ncpu, sizeof(*v));
	if (!keys || !v)
		goto fail;
	while (done < n) {
		__u32 count = n - done;

		if (bpf_map_lookup_batch(f->gen_fd[GM_CNT], gen || done ? &in : NULL, &out,
					 keys + done, v + (size_t)done * ncpu, &count, &opts) &&
		    errno != ENOENT)
			goto fail;
		if (!count)
			break;
		done += count;
		in = out;
	}
	for (__u32 i = 0; i < done; i++) {
		__u32 at = keys[i] - gen * FP_FLT_CNT_ENTRIES;

		if (at < n)
			for (int c = 0; c < ncpu; c++)
				cnt_add(&sums[at], &v[(size_t)i * ncpu + c]);
	}
	free(keys);
	free(v);
	return sums;
fail:
	free(keys);
	free(v);
	free(sums);
	return NULL;
}

static int gen_rules(struct fp_filter *f, __u32 gen, struct fp_flt_gencfg *cfg)
{
	return bpf_map_lookup_elem(f->gen_fd[GM_GCFG], &gen, cfg) ? -errno : 0;
}

int fp_flt_cnt__fold(struct fp_filter *f, __u32 gen)
{
	int ncpu = libbpf_num_possible_cpus(), ret;
	__u32 other = gen ^ 1, first = gen * FP_FLT_CNT_ENTRIES;
	struct fp_rule_cnt *old = NULL, dflt = { 0 };
	struct fp_flt_gencfg cfg, ocfg;
	struct fp_rule_cnt_base *base;

	if (ncpu <= 0)
		return -EINVAL;
	ret = gen_rules(f, gen, &cfg);
	if (!ret)
		ret = gen_rules(f, other, &ocfg);
	if (ret)
		return ret;
	if (cfg.n_rules > FP_MAX_RULES || ocfg.n_rules > FP_MAX_RULES)
		return -EPROTO;
	base = base_map(f, PROT_READ | PROT_WRITE);
	if (!base)
		return -errno;
	old = live_sums(f, other, ocfg.n_rules, ncpu);
	if (!old)
		ret = errno ? -errno : -ENOMEM;
	if (!ret)
		ret = live_add(f, other * FP_FLT_CNT_ENTRIES + FP_MAX_RULES, ncpu, &dflt, NULL);
	for (__u32 i = 0; i <= cfg.n_rules && !ret; i++) {
		__u32 idx = i < cfg.n_rules ? i : FP_MAX_RULES; /* the rules, then the default */
		struct fp_rule_cnt_base *b = &base[first + idx];
		__u32 from = b->pending;
		struct fp_rule_cnt sum = b->prior;

		if (!from)
			continue;
		if (from - 1 < ocfg.n_rules)
			cnt_add(&sum, &old[from - 1]);
		else if (from - 1 == FP_MAX_RULES)
			cnt_add(&sum, &dflt);
		sum.skip = 0;
		b->carried = sum;
		/* a reader that sees pending 0 sees the carried totals */
		__atomic_store_n(&b->pending, 0, __ATOMIC_RELEASE);
	}
	free(old);
	munmap(base, base_len());
	return ret;
}

int fp_flt_cnt__carry(struct fp_filter *f, const struct fp_flt_image *img, __u32 spare,
		      bool have_live)
{
	__u32 live = spare ^ 1, first = spare * FP_FLT_CNT_ENTRIES, lfirst = live * FP_FLT_CNT_ENTRIES;
	const struct fp_flt_rule *old = NULL;
	size_t old_len = 2 * (size_t)FP_MAX_RULES * sizeof(*old);
	struct fp_flt_gencfg cfg = { 0 };
	struct fp_rule_cnt_base *base;
	struct fp_htab by_ident = { 0 };
	int ret = 0;

	if (have_live) {
		ret = gen_rules(f, live, &cfg);
		if (ret)
			return ret;
		if (cfg.n_rules > FP_MAX_RULES)
			return -EPROTO;
	}
	base = base_map(f, PROT_READ | PROT_WRITE);
	if (!base)
		return -errno;
	if (have_live && cfg.n_rules) {
		void *m = mmap(NULL, old_len, PROT_READ, MAP_SHARED, f->gen_fd[GM_RULES], 0);

		if (m == MAP_FAILED) {
			ret = -errno;
			goto out;
		}
		old = (const struct fp_flt_rule *)m + (size_t)live * FP_MAX_RULES;
		ret = fp_htab__init(&by_ident, sizeof(__u64), cfg.n_rules * 2 + 16);
		for (__u32 i = 0; i < cfg.n_rules && !ret; i++)
			ret = fp_htab__add(&by_ident, &old[i].ident, i) < 0 ? -ENOMEM : 0;
		if (ret)
			goto out;
	}
	for (__u32 j = 0; j <= img->cfg.n_rules; j++) {
		bool dflt = j == img->cfg.n_rules;
		__u32 idx = dflt ? FP_MAX_RULES : j, from = FP_FLT_NO_RULE, *at;
		struct fp_rule_cnt_base *b = &base[first + idx];

		if (dflt && have_live && cfg.default_verdict == img->cfg.default_verdict)
			from = FP_MAX_RULES;
		else if (!dflt && old && (at = fp_htab__find(&by_ident, &img->rules[j].ident))) {
			from = *at;
			*at = FP_FLT_NO_RULE; /* one rule's counts go on in one rule only */
		}
		memset(b, 0, sizeof(*b));
		if (from == FP_FLT_NO_RULE)
			continue;
		/* the live base is folded: fp_filter__apply folds it first */
		b->prior = base[lfirst + from].carried;
		b->prior.skip = 0;
		b->carried = b->prior;
		b->pending = from + 1;
	}
out:
	fp_htab__free(&by_ident);
	if (old)
		munmap((void *)(old - (size_t)live * FP_MAX_RULES), old_len);
	munmap(base, base_len());
	return ret;
}

int fp_flt_cnt__reader_open(struct fp_filter *f, __u32 gen, struct fp_flt_cnt_reader *r)
{
	memset(r, 0, sizeof(*r));
	r->f = f;
	r->gen = gen;
	r->ncpu = libbpf_num_possible_cpus();
	if (r->ncpu <= 0)
		return -EINVAL;
	r->base = base_map(f, PROT_READ);
	return r->base ? 0 : -errno;
}

int fp_flt_cnt__read(const struct fp_flt_cnt_reader *r, __u32 idx, struct fp_rule_cnt *total,
		     struct fp_rule_cnt *per_cpu)
{
	const struct fp_rule_cnt_base *b = &r->base[r->gen * FP_FLT_CNT_ENTRIES + idx];
	__u32 from = __atomic_load_n(&b->pending, __ATOMIC_ACQUIRE);
	int ret;

	memset(total, 0, sizeof(*total));
	if (from && from <= FP_FLT_CNT_ENTRIES) {
		/* not folded yet: the old generation's counts are still moving */
		cnt_add(total, &b->prior);
		ret = live_add(r->f, (r->gen ^ 1) * FP_FLT_CNT_ENTRIES + from - 1, r->ncpu, total,
			       NULL);
		if (ret)
			return ret;
	} else {
		cnt_add(total, &b->carried);
	}
	return live_add(r->f, r->gen * FP_FLT_CNT_ENTRIES + idx, r->ncpu, total, per_cpu);
}

void fp_flt_cnt__reader_close(struct fp_flt_cnt_reader *r)
{
	if (r->base)
		munmap((void *)r->base, base_len());
	r->base = NULL;
}
