/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef FP_PIPELINE_INTERNAL_H
#define FP_PIPELINE_INTERNAL_H

#include <limits.h>
#include <net/if.h>
#include "pipeline/pipeline.h"

struct entry_bpf;

struct fp_pipeline {
	char ifname[IF_NAMESIZE];
	char root[PATH_MAX];
	char dir[PATH_MAX];          /* ROOT/IFACE ("" in a test pipeline) */
	bool test;
	int entry_fd, stages_fd, scratch_fd, ctl_fd, meta_fd;
	struct fp_ctl *ctl;          /* fp_ctl, mmapped */
	struct entry_bpf *skel;      /* when this process loaded the entry */
	int lock_fd;                 /* the root lock while held (-1: not) */
	int attached_fd;             /* test pipelines: the "attached" program */
	/* test pipelines: what fills each slot and the stages' fused entries */
	int slot_fd[FP_STAGE_MAX];
	int fused_fd[FP_STAGE_MAX];
	struct { const char *name; void *obj; void (*destroy)(void *); } kept[FP_STAGE_MAX];
};

/* pipeline_attach.c */
bool fp_errno_is_perm(int err);
void fp_perm_msg(char *err, size_t errlen, const char *what, const char *root);
int fp_root_lock(const char *root, char *err, size_t errlen);
int fp_mkdirs(const char *path);
__u32 fp_prog_id(int fd);
int fp_prog_name(__u32 id, char *name, size_t len);
bool fp_prog_is_ours(__u32 id);
void fp_xdp_ids(unsigned ifindex, __u32 ids[3]);
bool fp_xdp_busy(unsigned ifindex);
void fp_xdp_hint(unsigned ifindex, const char *ifname, char *buf, size_t len);
int fp_pins_of_ifindex(const char *root, unsigned ifindex, char *name, size_t len);
/* Removes every pin of dir and of its subdirectories, then dir; each into
 * r (may be NULL) as "sub/name". */
int fp_unpin_tree(const char *dir, struct fp_unload_report *r, char *err, size_t errlen);
extern const __u32 fp_xdp_mode_flag[3];
/* fp_pipeline__unload with the root lock held already (held: its fd; -1:
 * take it). */
int fp_pipeline__unload_held(const char *ifname, const char *bpffs, bool force, int held,
			     struct fp_unload_report *r, char *err, size_t errlen);

/* pipeline_stage.c: attaches the best entry (the fused entry of the first
 * loaded stage that has one, other than `going`, else fp_entry) in place of
 * the one attached, if that one is ours. */
int fp_pipeline__sync_attach(struct fp_pipeline *pl, const struct fp_stage_ops *going,
			      char *err, size_t errlen);

#endif
