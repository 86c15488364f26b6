/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A `fastpath dump` session: selects packets (drops only, one rule, terms
 * matched at the head of the pipeline), samples 1 in N of them into the
 * ring buffer, and hands each sample to a callback with its rule id. Counts
 * what the kernel sampled and lost, so nothing is lost silently. Sampling
 * is tied to the process's life: an exit watch (dump_exit.bpf.c, on a link
 * the process holds) switches it off when the process ends, however it
 * ends; a dump started over a dead one's state takes it over.
 */
#ifndef FP_DUMP_DUMP_H
#define FP_DUMP_DUMP_H

#include <stdbool.h>
#include <stdint.h>

#include <fastpath/dump_abi.h>
#include "filter/filter.h"
#include "pipeline/pipeline.h"
#include "rules/rule.h"

struct fp_dump;

/* The dump stage's programs and maps on a pipeline (dump_stage.c). */
extern const struct fp_stage_ops fp_stage_dump;
struct fp_dump_fds {
	int prog_fd;                 /* fp_dump, the slot-0 marker */
	int ring_fd, smp_fd, cfg_fd; /* fp_ring, fp_smp_stats, fp_dump_cfg */
};
int fp_dump_stage__fds(struct fp_pipeline *pl, struct fp_dump_fds *d, char *err, size_t errlen);
void fp_dump_fds__close(struct fp_dump_fds *d);

struct fp_dump_opts {
	bool drops_only;
	const char *rule_id;         /* only this rule's packets (NULL: any) */
	uint32_t sample_n;           /* 1 in N; 0: each rule's own rate, else all */
	uint32_t snaplen;            /* 0: FP_SNAPLEN_DEFAULT */
	const struct fp_rule *match; /* terms checked before any stage (NULL: none) */
	uint32_t stages;             /* only these stages' decisions (bit = slot; 0: all) */
};

/* One sample: header, bytes, the deciding filter rule's id (NULL: the
 * default, or a stage other than the filter),
 * and the wall-clock time in ns. Return non-zero to stop polling. */
typedef int (*fp_dump_cb)(void *ctx, const struct fp_sample *s, const uint8_t *data,
			  const char *rule_id, uint64_t realtime_ns);

/* f: the interface's filter, for its rules' ids (NULL: none loaded). */
int fp_dump__start(struct fp_pipeline *pl, struct fp_filter *f, const struct fp_dump_opts *o, fp_dump_cb cb, void *ctx,
		   struct fp_dump **out, char *err, size_t errlen);
/* Waits up to timeout_ms for samples; returns how many were handled or -errno. */
int fp_dump__poll(struct fp_dump *d, int timeout_ms);
/* Stops selecting, then hands over every sample still in the ring. */
int fp_dump__drain(struct fp_dump *d);
/* Kernel-side counts since start: samples tried, and lost to a full ring. */
void fp_dump__counts(struct fp_dump *d, uint64_t *sampled, uint64_t *lost);
/* After start: whether it cleared what a dump whose process died had left
 * switched on (*pid: that process, 0 if unknown). */
bool fp_dump__took_over(const struct fp_dump *d, uint32_t *pid);
/* After start: 0 when the dump is tied to this process's life (an exit
 * watch switches it off however the process ends), else why it is not
 * (-errno): a kill -9 then leaves sampling on until the next dump takes
 * over or `pipeline unload`. */
int fp_dump__watch_error(const struct fp_dump *d);
/* Stops (if not yet) and frees. NULL-safe. */
void fp_dump__stop(struct fp_dump *d);

/* Whether a dump runs on f: 1 (*pid: its process), 0 (none), or -errno.
 * A dump whose process is gone (or a zombie) does not run even if it left
 * sampling on; *pid then names that process (0 if unknown). */
int fp_dump__running(struct fp_pipeline *pl, uint32_t *pid);

/* Fills a dump match from a rule's terms. */
void fp_match__from_rule(const struct fp_rule *r, struct fp_match *m);

#endif
