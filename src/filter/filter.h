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

#include <fastpath/abi.h>
#include "rules/rule.h"

struct fp_filter;

struct fp_filter_load_opts {
	const char *bpffs;   /* pin root; NULL: $FASTPATH_BPFFS or /sys/fs/bpf/fastpath */
	bool skb_mode;       /* generic XDP instead of native */
	unsigned table_bits; /* flat tables of 2^N slots per generation; 0: the default */
};

/* The pin root in effect for an optional --bpffs value. */
const char *fp_bpffs_root(const char *opt);

/* Loads entry + filter on ifname, pins under ROOT/ifname, attaches. */
int fp_filter__load(const char *ifname, const struct fp_filter_load_opts *o,
		    struct fp_filter **out, char *err, size_t errlen);
/* Opens what `load` pinned. -ENOENT when fastpath is not loaded there. */
int fp_filter__open(const char *ifname, const char *bpffs, struct fp_filter **out,
		    char *err, size_t errlen);
/* Detaches and removes the pins. 1: done, but another program than
 * fastpath's is attached to the interface and stays (err says which). */
int fp_filter__unload(const char *ifname, const char *bpffs, char *err, size_t errlen);
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
