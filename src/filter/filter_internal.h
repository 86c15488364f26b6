/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef FP_FILTER_INTERNAL_H
#define FP_FILTER_INTERNAL_H

#include "filter/filter.h"
#include "pipeline/pipeline_internal.h"

/* The rule maps (two generations side by side), in one order everywhere. */
enum fp_gen_map { GM_GCFG, GM_CLS, GM_KEYS, GM_ADDR, GM_QNAME, GM_RULES, GM_CNT, GM_TEXT, GM_CMASK, GM_PRE, GM_QNAMES,
		   GM_CNT_BASE, GM_ABLOOM, GM_MAX };

struct fp_filter {
	struct fp_pipeline *pl;           /* the interface's pipeline (owned) */
	int fused_fd, filter_fd;          /* programs: fp_entry_filter, the slot's fp_filter */
	int fmeta_fd, state_fd, stats_fd, lim_fd, last_fd;
	int smp_fd;                       /* the dump's fp_smp_stats (-1: no dump stage) */
	int gen_fd[GM_MAX];
	__u32 gen_n[GM_MAX];              /* entries of one generation in each */
	unsigned flat_bits;               /* fp_flt_meta.flat_bits */
	struct filter_bpf *filter_skel;   /* set when this process loaded it */
	/* BPF_PROG_TEST_RUN (fp_filter__run): the limiter's clock (when
	 * test_clock is set; else CLOCK_MONOTONIC) and the last run's record */
	bool test_clock;
	__u64 test_now_ns;
	struct fp_flt_last last;
};

extern const char *const fp_gen_map_names[GM_MAX];

/* A share's maps (filter_share.c): the GM_* ones in their order, then
 * fp_flt_state and fp_flt_lim. Pinned under ROOT/FP_SHARE_DIR/NAME. */
#define FP_SHARE_DIR "shared"
enum { FP_SHARE_STATE = GM_MAX, FP_SHARE_LIM, FP_SHARE_MAPS };
extern const char *const fp_share_map_names[FP_SHARE_MAPS];
int fp_share__dir(const char *root, const char *name, char *dir, size_t len);
/* The share's pinned maps into fds (FP_SHARE_MAPS) and its table bits;
 * -ENOENT when there is no such share (err untouched), other errors with
 * err set. Close with fp_share__close. */
int fp_share__open(const char *root, const char *name, int *fds, unsigned *bits, char *err,
		   size_t errlen);
void fp_share__close(int *fds);
/* Pins fds (FP_SHARE_MAPS, fp_share_map_names' order) as the share name. */
int fp_share__pin(const int *fds, const char *root, const char *name, char *err, size_t errlen);
/* Removes the share's pins and directory. */
void fp_share__remove(const char *root, const char *name);
/* True (err set) when ifname is "shared" and ROOT/shared holds shares. */
bool fp_share__is_dir(const char *root, const char *ifname, char *err, size_t errlen);
/* How many interfaces under root are loaded with share name. */
int fp_share__members(const char *root, const char *name);

/* Removes every pin of dir, then dir. */
void fp_unpin_dir(const char *dir);
/* flock of the pin root (pipeline_attach.c). */
int fp_root_lock(const char *root, char *err, size_t errlen);
int fp_mkdirs(const char *path);
/* Counters kept across applies (filter_counters.c). */
struct fp_flt_image;
/* Writes generation spare's counter bases for img: a rule (or the default
 * verdict) the live generation has too starts from its live totals, pending
 * until folded; the rest from 0. have_live: a set was applied before. */
int fp_flt_cnt__carry(struct fp_filter *f, const struct fp_flt_image *img, __u32 spare,
		      bool have_live);
/* Adds the other generation's counts into gen's pending bases: only once no
 * packet can still count there (after an RCU grace period). */
int fp_flt_cnt__fold(struct fp_filter *f, __u32 gen);

struct fp_flt_cnt_reader {
	struct fp_filter *f;
	const struct fp_rule_cnt_base *base; /* fp_flt_cnt_base, mapped read-only */
	__u32 gen;
	int ncpu;
};
int fp_flt_cnt__reader_open(struct fp_filter *f, __u32 gen, struct fp_flt_cnt_reader *r);
/* A rule's (idx FP_MAX_RULES: the default's) total: base plus live counts
 * over CPUs; per_cpu (ncpu entries, optional) gets the live counts alone. */
int fp_flt_cnt__read(const struct fp_flt_cnt_reader *r, __u32 idx, struct fp_rule_cnt *total,
		     struct fp_rule_cnt *per_cpu);
void fp_flt_cnt__reader_close(struct fp_flt_cnt_reader *r);


#endif
