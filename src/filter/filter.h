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
/* The interface's fp_meta (share NUL-terminated). */
int fp_filter__meta(const struct fp_filter *f, struct fp_meta *meta);

/* The pin root in effect for an optional --bpffs value. */
const char *fp_bpffs_root(const char *opt);

/* Loads entry + filter on ifname, pins under ROOT/ifname, attaches. */
int fp_filter__load(const char *ifname, const struct fp_filter_load_opts *o,
		    struct fp_filter **out, char *err, size_t errlen);
/* Opens what `load` pinned. -ENOENT when fastpath is not loaded there. */
int fp_filter__open(const char *ifname, const char *bpffs, struct fp_filter **out,
		    char *err, size_t errlen);

/* What an unload did (fp_filter__unload fills it). */
#define FP_UNLOAD_MAX_PINS 64
struct fp_unload_report {
	bool detached;               /* fastpath's program was detached ... */
	char ifname[16];             /* ... from this interface (its name now; IF_NAMESIZE) */
	__u32 ifindex, prog_id;
	__u32 xdp_flags;             /* the mode it ran in (XDP_FLAGS_*_MODE) */
	__u32 other_id;              /* another program attached there, left alone (0: none) */
	unsigned n_pins;             /* pins removed */
	char share[16];              /* the interface's share ("": none) */
	char share_removed[16];      /* a share left without members, removed ("": none) */
	char pins[FP_UNLOAD_MAX_PINS][64]; /* their names (the first FP_UNLOAD_MAX_PINS) */
};

/*
 * Detaches fastpath's program by the ifindex and program id pinned at load
 * (so a renamed interface is found under its new name) and removes the pins,
 * under the pin root's lock. Refuses incomplete pins (-ENOENT) unless force:
 * then it detaches a program named fp_entry* from ifname and the pinned
 * ifindex (never another program) and removes whatever pins remain, also
 * when the pin directory is gone. 1: done, but another program than
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
	struct fp_meta meta;
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

/* Sets fp_flt_state.dump (FP_FLT_DUMP_*) for a dump starting or stopping. */
int fp_filter__set_dump(struct fp_filter *f, __u32 flags);
int fp_filter__entry_fd(const struct fp_filter *f);
const char *fp_filter_stat__name(enum fp_flt_stat s);

#endif
