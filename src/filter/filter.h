/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The filter stage's user half: load the pipeline on an interface (pinned,
 * daemonless), apply rule sets atomically, read rules and counters, and run
 * the real program on packets with BPF_PROG_TEST_RUN.
 *
 * Functions return 0 or a negative errno; the ones taking `err` also leave a
 * message there saying what failed and what to do. Nothing here prints.
 */
#ifndef FP_FILTER_FILTER_H
#define FP_FILTER_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fastpath/filter_abi.h>
#include <fastpath/dump_abi.h>
#include "pipeline/pipeline.h"
#include "rules/rule.h"

struct fp_filter;

struct fp_filter_load_opts {
	const char *bpffs;   /* pin root; NULL: $FASTPATH_BPFFS or /sys/fs/bpf/fastpath */
	bool skb_mode;       /* generic XDP instead of native */
	unsigned table_bits; /* flat tables of 2^N slots per generation; 0: the default */
	const char *share;   /* one rule set for every interface loaded with this name
			      * (NULL: the interface's own); see filter_share.c */
};

/* Shares: names of 1..FP_SHARE_NAME_MAX of [A-Za-z0-9_-]. */
#define FP_SHARE_NAME_MAX 15
int fp_share__check_name(const char *name, char *err, size_t errlen);
/* Under the pin root's lock: removes every share without a member; the
 * first one removed into removed (may be NULL). Returns how many. */
int fp_share__gc(const char *root, char *removed, size_t len);
/* The filter on its interface: its own meta (fp_flt_meta) with the
 * pipeline's ifindex and mode. */
struct fp_filter_meta {
	__u32 abi_version;           /* FP_FILTER_ABI of the filter's loader */
	__u32 ifindex;
	__u32 xdp_flags;             /* XDP_FLAGS_DRV_MODE or XDP_FLAGS_SKB_MODE */
	__u32 flat_bits;
	__u64 loaded_ns;             /* the filter's load (CLOCK_REALTIME) */
	char share[16];              /* NUL-terminated; "": its own rule set */
};
int fp_filter__meta(const struct fp_filter *f, struct fp_filter_meta *meta);

/* The filter stage's entry in the pipeline's stage table (filter_stage.c). */
extern const struct fp_stage_ops fp_stage_filter;
/* Its pipeline (owned by f). */
struct fp_pipeline *fp_filter__pipeline(const struct fp_filter *f);
/* The program the interface runs (the filter's fused entry while it is the
 * first fused stage), for test runs of the whole path (benches). */
int fp_filter__entry_fd(const struct fp_filter *f);

/* Loads the filter stage on ifname (and the pipeline first when there is
 * none), pins under ROOT/ifname/filter, attaches its fused entry. */
int fp_filter__load(const char *ifname, const struct fp_filter_load_opts *o,
		    struct fp_filter **out, char *err, size_t errlen);
/* Opens what `load` pinned. -ENOENT when fastpath is not loaded there. */
int fp_filter__open(const char *ifname, const char *bpffs, struct fp_filter **out,
		    char *err, size_t errlen);

/*
 * Removes the filter stage (fp_pipeline__remove_stage): and with it the
 * pipeline, when the filter's load made it and no other chain stage is
 * left, as before stages existed. force: `pipeline unload --force` (the
 * pins incomplete or unreadable). 1: done, but another program than
 * fastpath's is attached to the interface and stays (err says which).
 * r may be NULL.
 */
int fp_filter__unload(const char *ifname, const char *bpffs, bool force,
		      struct fp_unload_report *r, char *err, size_t errlen);

/* Whether the pinned entry program is the one attached where it was loaded. */
struct fp_filter_attach {
	__u32 prog_id;               /* the pinned entry program's id */
	__u32 ifindex;               /* fp_meta.ifindex */
	__u32 xdp_flags;             /* fp_meta.xdp_flags */
	char ifname[16];             /* the name of ifindex now; "" if no such interface */
	__u32 attached_id;           /* the program attached there in that mode (0: none) */
	bool attached;               /* attached_id == prog_id */
};
int fp_filter__attachment(const struct fp_filter *f, struct fp_filter_attach *a);

/* Permission errors (-EACCES, -EPERM) and the one message for them:
 * "permission denied WHAT: run as root (or grant ... and access to ROOT)". */
bool fp_errno_is_perm(int err);
void fp_perm_msg(char *err, size_t errlen, const char *what, const char *root);

/* A program's id from its fd, name from its id, and whether a program id is
 * fastpath's entry (named fp_entry*). 0 / negative errno / false if unknown. */
__u32 fp_prog_id(int fd);
int fp_prog_name(__u32 id, char *name, size_t len);
bool fp_prog_is_ours(__u32 id);
/* 1 and the pin directory's name when one under root was loaded on ifindex. */
int fp_pins_of_ifindex(const char *root, unsigned ifindex, char *name, size_t len);
/* Whether the pins of ifname are still the load f was opened from: 1 yes,
 * 0 another load replaced it, -ENOENT fastpath is not loaded there now. */
int fp_filter__pins_current(const struct fp_filter *f, const char *ifname, const char *bpffs);
/* A private, unattached instance for BPF_PROG_TEST_RUN (filter test, tests). */
int fp_filter__open_test(struct fp_filter **out, char *err, size_t errlen);
void fp_filter__close(struct fp_filter *f);

/* Replaces the whole rule set: built aside, then one flip. */
int fp_filter__apply(struct fp_filter *f, const struct fp_ruleset *set,
		     char *err, size_t errlen);

/* Runs the pipeline on one frame (>= 14 bytes): XDP verdict and the rule
 * index that decided (FP_FLT_NO_RULE for the default). */
int fp_filter__run(struct fp_filter *f, const void *frame, size_t len,
		   uint32_t *verdict, uint32_t *rule);

/* The time the next runs' packets arrive, for the limiter of a filter from
 * fp_filter__open_test (`filter test`: the capture's timestamps, which
 * should not go back); until called, CLOCK_MONOTONIC as live. */
void fp_filter__set_test_clock(struct fp_filter *f, __u64 now_ns);

/* What the last run recorded (fp_filter__open_test only): the rule
 * (FP_FLT_NO_RULE: the default) and verdict, seq 0 when the filter decided
 * nothing (no rule set), and lim, the limiter bucket a limit rule's decision
 * counted against (zero when no limit rule decided). */
const struct fp_flt_last *fp_filter__last(const struct fp_filter *f);

/* The same through the generic entry program and the filter's stage slot,
 * the path a packet takes behind a dump stage (-EINVAL unless this process
 * loaded the programs). */
int fp_filter__run_staged(struct fp_filter *f, const void *frame, size_t len,
			  uint32_t *verdict, uint32_t *rule);

struct fp_filter_rule_info {
	char text[FP_RULE_TEXT];     /* canonical, id explicit */
	struct fp_rule_cnt total;    /* summed over CPUs */
	uint32_t ncpu;
	struct fp_rule_cnt *per_cpu; /* ncpu entries */
};

struct fp_filter_view {
	struct fp_flt_state state;
	struct fp_filter_meta meta;
	bool has_rules;              /* a rule set was applied */
	uint8_t default_verdict;     /* XDP_PASS / XDP_DROP */
	size_t n_rules;
	struct fp_filter_rule_info *rules;
	struct fp_rule_cnt dflt;     /* packets the default decided */
	struct fp_counter stage[FP_FLT_ST_MAX];
	struct fp_smp_stats smp;     /* samples tried / lost to a full ring (all time) */
};

/* Reads fp_flt_state alone (generation, serial): what a caller needs of a
 * change without reading every rule as fp_filter__view does. */
int fp_filter__state(struct fp_filter *f, struct fp_flt_state *st);

/* Reads the live generation: rules, their counters, stage counters. */
int fp_filter__view(struct fp_filter *f, struct fp_filter_view *v);
void fp_filter_view__free(struct fp_filter_view *v);

/* Rebuilds the live rule set as a struct (for add/del). */
int fp_filter__ruleset(struct fp_filter *f, struct fp_ruleset *set, char *err, size_t errlen);

const char *fp_filter_stat__name(enum fp_flt_stat s);

#endif
