// SPDX-License-Identifier: BSD-2-Clause
/*
 * Applying a rule set (a new generation built aside, then one flip), reading
 * the live generation back, and running the program on single frames.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "filter/compile.h"
#include "filter/filter_internal.h"

/* Creates one inner map shaped like the outer map's template. */
static int inner_create(enum bpf_map_type type, const char *name, __u32 ksz, __u32 vsz,
			__u32 max, __u32 flags)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = flags);

	return bpf_map_create(type, name, ksz, vsz, max ? max : 1, &opts);
}

/* Writes n values of vsz bytes into an mmapable array (elements are padded
 * to 8 bytes). */
static int mmap_fill(int fd, const void *vals, size_t n, size_t vsz, size_t max)
{
	size_t stride = (vsz + 7) & ~(size_t)7, len = stride * max;
	uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (m == MAP_FAILED)
		return -errno;
	for (size_t i = 0; i < n; i++)
		memcpy(m + i * stride, (const uint8_t *)vals + i * vsz, vsz);
	munmap(m, len);
	return 0;
}

static int batch_fill(int fd, const void *keys, const void *vals, size_t n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 count = n;

	if (!n)
		return 0;
	return bpf_map_update_batch(fd, keys, vals, &count, &opts) ? -errno : 0;
}

/* The new generation's inner maps, filled from the image. */
static int build_inner(const struct fp_flt_image *img, int fd[O_MAX])
{
	__u32 zero = 0;
	int ret;

	fd[O_GCFG] = inner_create(BPF_MAP_TYPE_ARRAY, "fp_flt_gcfg", 4,
				  sizeof(struct fp_flt_gencfg), 1, 0);
	fd[O_CLS] = inner_create(BPF_MAP_TYPE_ARRAY, "fp_flt_cls", 4, 4, FP_CLS_ENTRIES,
				 BPF_F_MMAPABLE);
	fd[O_KEYS] = inner_create(BPF_MAP_TYPE_ARRAY, "fp_flt_keys", 4,
				  sizeof(struct fp_flt_key_slot), 1u << img->cfg.key_bits,
				  BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	fd[O_ADDR] = inner_create(BPF_MAP_TYPE_ARRAY, "fp_flt_addr", 4,
				  sizeof(struct fp_flt_addr_slot), 1u << img->cfg.addr_bits,
				  BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	fd[O_QNAME] = inner_create(BPF_MAP_TYPE_HASH, "fp_flt_qname",
				   sizeof(struct fp_flt_qname_key),
				   sizeof(struct fp_flt_qname_val), img->n_qname, 0);
	fd[O_RULES] = inner_create(BPF_MAP_TYPE_ARRAY, "fp_flt_rules", 4,
				   sizeof(struct fp_flt_rule), FP_MAX_RULES, BPF_F_MMAPABLE);
	fd[O_CNT] = inner_create(BPF_MAP_TYPE_PERCPU_ARRAY, "fp_flt_cnt", 4,
				 sizeof(struct fp_rule_cnt), FP_FLT_CNT_ENTRIES, 0);
	fd[O_TEXT] = inner_create(BPF_MAP_TYPE_ARRAY, "fp_flt_text", 4,
				  sizeof(struct fp_flt_text), FP_MAX_RULES, BPF_F_MMAPABLE);
	fd[O_CMASK] = inner_create(BPF_MAP_TYPE_ARRAY, "fp_flt_cmask", 4, 8, FP_CM_ENTRIES,
				   BPF_F_MMAPABLE);
	fd[O_PRE] = inner_create(BPF_MAP_TYPE_ARRAY, "fp_flt_pre", 4, sizeof(struct fp_flt_pre),
				 FP_PRE_ENTRIES, BPF_F_MMAPABLE);
	for (int i = 0; i < O_MAX; i++)
		if (fd[i] < 0)
			return -errno;

	if (bpf_map_update_elem(fd[O_GCFG], &zero, &img->cfg, 0))
		return -errno;
	ret = mmap_fill(fd[O_CLS], img->cls, FP_CLS_ENTRIES, 4, FP_CLS_ENTRIES);
	if (!ret)
		ret = mmap_fill(fd[O_RULES], img->rules, img->cfg.n_rules,
				sizeof(struct fp_flt_rule), FP_MAX_RULES);
	if (!ret)
		ret = mmap_fill(fd[O_TEXT], img->text, img->cfg.n_rules,
				sizeof(struct fp_flt_text), FP_MAX_RULES);
	if (!ret)
		ret = mmap_fill(fd[O_CMASK], img->cmask, FP_CM_ENTRIES, 8, FP_CM_ENTRIES);
	if (!ret)
		ret = mmap_fill(fd[O_PRE], img->pre, FP_PRE_ENTRIES, sizeof(struct fp_flt_pre),
				FP_PRE_ENTRIES);
	if (!ret)
		ret = mmap_fill(fd[O_KEYS], img->key_slots, 1u << img->cfg.key_bits,
				sizeof(struct fp_flt_key_slot), 1u << img->cfg.key_bits);
	if (!ret)
		ret = mmap_fill(fd[O_ADDR], img->addr_slots, 1u << img->cfg.addr_bits,
				sizeof(struct fp_flt_addr_slot), 1u << img->cfg.addr_bits);
	if (!ret)
		ret = batch_fill(fd[O_QNAME], img->qn_key, img->qn_val, img->n_qname);
	return ret;
}

int fp_filter__apply(struct fp_filter *f, const struct fp_ruleset *set, char *err, size_t errlen)
{
	struct fp_flt_image img;
	struct fp_flt_state st;
	struct timespec ts;
	int fd[O_MAX], ret;
	__u32 zero = 0, spare;

	for (int i = 0; i < O_MAX; i++)
		fd[i] = -1;
	ret = fp_flt_image__build(set, &img, err, errlen);
	if (ret)
		return ret;
	if (bpf_map_lookup_elem(f->state_fd, &zero, &st)) {
		ret = -errno;
		snprintf(err, errlen, "reading the filter state failed: %s", strerror(-ret));
		goto out;
	}
	spare = (st.gen & 1) ^ 1;
	ret = build_inner(&img, fd);
	if (ret) {
		snprintf(err, errlen, "building the new rule maps failed: %s%s", strerror(-ret),
			 ret == -ENOMEM || ret == -EPERM ? " (memlock or memory limit?)" : "");
		goto out;
	}
	/* the spare generation: nothing reads it until the flip */
	for (int i = 0; i < O_MAX; i++) {
		if (bpf_map_update_elem(f->outer_fd[i], &spare, &fd[i], 0)) {
			ret = -errno;
			snprintf(err, errlen, "installing the new rule maps failed: %s",
				 strerror(-ret));
			goto out;
		}
	}
	/* the flip: one write; every packet after it sees the whole new set */
	clock_gettime(CLOCK_REALTIME, &ts);
	st.gen = spare;
	st.serial++;
	st.applied_ns = (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	if (bpf_map_update_elem(f->state_fd, &zero, &st, 0)) {
		ret = -errno;
		snprintf(err, errlen, "flipping to the new rule set failed: %s", strerror(-ret));
		goto out;
	}
	/* Wait until no packet still uses the old generation: an update of a
	 * map-in-map returns only after running programs finished. So the next
	 * apply may replace the old generation safely. */
	bpf_map_update_elem(f->outer_fd[O_GCFG], &spare, &fd[O_GCFG], 0);
	ret = 0;
out:
	for (int i = 0; i < O_MAX; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	fp_flt_image__free(&img);
	return ret;
}

int fp_filter__run(struct fp_filter *f, const void *frame, size_t len, uint32_t *verdict,
		   uint32_t *rule)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = len, .repeat = 1);
	struct fp_flt_last before = { 0 }, after = { 0 };
	__u32 zero = 0;
	int ret;

	if (len < 14)
		return -EINVAL;
	bpf_map_lookup_elem(f->last_fd, &zero, &before);
	ret = bpf_prog_test_run_opts(f->entry_fd, &opts);
	if (ret)
		return -errno;
	*verdict = opts.retval;
	bpf_map_lookup_elem(f->last_fd, &zero, &after);
	*rule = after.seq != before.seq ? after.rule : FP_FLT_NO_RULE;
	return 0;
}

static int inner_fd(struct fp_filter *f, enum fp_outer o, __u32 gen)
{
	__u32 id;

	if (bpf_map_lookup_elem(f->outer_fd[o], &gen, &id))
		return -errno;
	return bpf_map_get_fd_by_id(id);
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

int fp_filter__view(struct fp_filter *f, struct fp_filter_view *v)
{
	int ncpu = libbpf_num_possible_cpus(), gcfg = -1, cnt = -1, text = -1, ret = 0;
	struct fp_flt_gencfg cfg;
	__u32 zero = 0;

	memset(v, 0, sizeof(*v));
	if (ncpu <= 0)
		return -EINVAL;
	bpf_map_lookup_elem(f->state_fd, &zero, &v->state);
	bpf_map_lookup_elem(f->meta_fd, &zero, &v->meta);
	for (__u32 s = 0; s < FP_FLT_ST_MAX; s++)
		read_percpu(f->stats_fd, s, sizeof(struct fp_counter), 2, &v->stage[s], NULL, ncpu);
	read_percpu(f->smp_fd, 0, sizeof(struct fp_smp_stats), 2, &v->smp, NULL, ncpu);
	gcfg = inner_fd(f, O_GCFG, v->state.gen & 1);
	if (gcfg < 0)
		return 0; /* no rule set applied yet */
	if (bpf_map_lookup_elem(gcfg, &zero, &cfg)) {
		ret = -errno;
		goto out;
	}
	cnt = inner_fd(f, O_CNT, v->state.gen & 1);
	text = inner_fd(f, O_TEXT, v->state.gen & 1);
	if (cnt < 0 || text < 0) {
		ret = -ENOENT;
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
	for (__u32 i = 0; i < cfg.n_rules; i++) {
		struct fp_filter_rule_info *r = &v->rules[i];
		struct fp_flt_text t;

		r->ncpu = ncpu;
		r->per_cpu = calloc(ncpu, sizeof(*r->per_cpu));
		if (!r->per_cpu) {
			ret = -ENOMEM;
			goto out;
		}
		if (bpf_map_lookup_elem(text, &i, &t) == 0)
			memcpy(r->text, t.text, sizeof(r->text));
		r->text[sizeof(r->text) - 1] = 0;
		read_percpu(cnt, i, sizeof(struct fp_rule_cnt), 4, &r->total, r->per_cpu, ncpu);
	}
	read_percpu(cnt, FP_MAX_RULES, sizeof(struct fp_rule_cnt), 4, &v->dflt, NULL, ncpu);
out:
	if (gcfg >= 0)
		close(gcfg);
	if (cnt >= 0)
		close(cnt);
	if (text >= 0)
		close(text);
	if (ret)
		fp_filter_view__free(v);
	return ret;
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
