/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The steer stage's user half: its entry in the stage table, its maps on
 * a pipeline, and one queue's capture terms. What a capture is (the
 * AF_XDP sockets, the rings) is src/xsk; this is only the stage.
 * Functions return 0 or a negative errno; with `err`, a message too.
 */
#ifndef FP_STEER_STEER_H
#define FP_STEER_STEER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <fastpath/steer_abi.h>
#include "pipeline/pipeline.h"

struct fp_rule;

extern const struct fp_stage_ops fp_stage_steer;

struct fp_steer_fds {
	int cfg_fd;            /* fp_steer_cfg */
	int xsk_fd;            /* fp_steer_xsk */
	int cnt_fd;            /* fp_steer_cnt */
};

/* Loads the stage on pl unless it is there (*loaded: this call did). */
int fp_steer__ensure(struct fp_pipeline *pl, bool *loaded, char *err, size_t errlen);
/* The stage's maps on pl, its ABI checked first (-EPROTO: another one). */
int fp_steer__fds(struct fp_pipeline *pl, struct fp_steer_fds *s, char *err, size_t errlen);
void fp_steer_fds__close(struct fp_steer_fds *s);

/* Queue q's capture: switched on with r's terms for process pid, or off. */
int fp_steer__set(const struct fp_steer_fds *s, __u32 q, const struct fp_rule *r, __u32 pid);
int fp_steer__clear(const struct fp_steer_fds *s, __u32 q);
int fp_steer__cfg(const struct fp_steer_fds *s, __u32 q, struct fp_steer_cfg *cfg);
/* Queue q's counters summed over the CPUs. */
int fp_steer__counts(const struct fp_steer_fds *s, __u32 q, struct fp_steer_counts *c);

/* Whether pid is a live process (not a zombie). */
bool fp_steer_pid_alive(__u32 pid);

#endif
