/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef FP_FILTER_INTERNAL_H
#define FP_FILTER_INTERNAL_H

#include "filter/filter.h"

/* The outer (per generation) maps, in one order everywhere. */
enum fp_outer { O_GCFG, O_CLS, O_KEYS, O_ADDR, O_QNAME, O_RULES, O_CNT, O_TEXT, O_CMASK, O_PRE, O_MAX };

struct fp_filter {
	int entry_fd, filter_fd;          /* programs */
	int stages_fd, meta_fd, state_fd, stats_fd, lim_fd, last_fd;
	int dump_fd;                      /* the dump stage program (slot 0 when active) */
	int ring_fd, smp_fd, dcfg_fd;     /* fp_ring, fp_smp_stats, fp_dump_cfg */
	int outer_fd[O_MAX];
	struct entry_bpf *entry_skel;     /* set when this process loaded them */
	struct filter_bpf *filter_skel;
	struct dump_bpf *dump_skel;
};

extern const char *const fp_outer_names[O_MAX];

#endif
