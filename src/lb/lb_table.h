/* SPDX-License-Identifier: BSD-2-Clause */
/* A VIP's Maglev table in an inner map (lb_table.c), for lb_edit.c. */
#ifndef FP_LB_TABLE_H
#define FP_LB_TABLE_H

#include "lb/lb_internal.h"

/* Every lb_backends entry (FP_LB_MAX_BACKENDS, malloc'ed). */
int fp_lb_read_backends(struct fp_lb *lb, struct fp_lb_backend **out);
/* The table of VIP vip_index from the entries all[] (FP_LB_MAX_BACKENDS):
 * backend indexes, FP_LB_NO_BACKEND everywhere when none takes new flows
 * (*active: those that do). */
int fp_lb_build_table(const struct fp_lb_backend *all, __u32 vip_index, __u32 size,
		      __u32 *table, __u32 *active, char *err, size_t errlen);
/* A new inner map (BPF_F_INNER_MAP ARRAY of size) holding table: its fd. */
int fp_lb_table_map(const __u32 *table, __u32 size, char *err, size_t errlen);
/* One update of lb_tables[vip_index]. */
int fp_lb_switch_table(struct fp_lb *lb, __u32 vip_index, int table_fd, char *err,
		       size_t errlen);
__u32 fp_lb_map_id(int fd);
/* Zeroes a per-CPU fp_lb_stats entry (a reused index starts from 0). */
int fp_lb_zero_stats(int fd, __u32 index);
/* fp_lb_meta.serial + 1. */
void fp_lb_bump_serial(struct fp_lb *lb);

#endif
