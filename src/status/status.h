/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What fastpath has loaded where, read from the pins alone (daemonless):
 * the interfaces under the pin root, each one's pipeline (attached or not,
 * XDP mode, every stage of the stage table that is loaded there, enabled or
 * not, with its counters), the filter's rule set when the filter is one of
 * them, and whether the program is still attached. Used by `fastpath
 * status` and the exporter. A pipeline without a filter is a pipeline, not
 * a broken filter.
 *
 * Functions return 0 or a negative errno; nothing prints.
 */
#ifndef FP_STATUS_STATUS_H
#define FP_STATUS_STATUS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fastpath/filter_abi.h>
#include "filter/filter.h"
#include "pipeline/pipeline.h"

enum fp_iface_state {
	FP_IFACE_OK = 0,     /* the interface exists and runs our entry program */
	FP_IFACE_MISSING,    /* no interface of that name and ifindex (stale pins) */
	FP_IFACE_DETACHED,   /* the interface exists but runs another program or none */
	FP_IFACE_BROKEN,     /* the pins cannot be read (see error, err) */
	FP_IFACE_RENAMED,    /* our program runs at the ifindex of the load, under
			      * another name now (renamed_to) */
	FP_IFACE_ORPHAN,     /* fp_status__orphans: our program attached, no pins */
};

/* One stage of the table loaded on an interface (plain data: the exporter
 * renders it, tests make it by hand). */
struct fp_stage_status {
	char name[16];            /* the stage table's name */
	unsigned slot;            /* enum fp_stage */
	bool enabled;             /* its bit in fp_ctl.enabled (fp_pipeline__enabled) */
	bool running;             /* it takes packets now: enabled, its slot filled
				   * (a tap stage, the dump: only while a dump
				   * asks for the chain slot, dump --match) */
	bool abi_ok;              /* its pins are of this fastpath's ABI */
	uint32_t prog_id;         /* the program in its chain slot (0: empty) */
	struct fp_stage_counts counts; /* counts.have false: it counts nothing */
};

struct fp_iface_status {
	char name[NAME_MAX + 1];
	enum fp_iface_state state;
	int error;                /* FP_IFACE_BROKEN: negative errno */
	char err[256];            /* FP_IFACE_BROKEN: what failed, what to do */
	struct fp_meta meta;      /* the pipeline's: ifindex, xdp_flags, loaded_ns */
	bool attached;            /* one of our programs runs on it (the entry or
				   * a stage's fused entry) */
	uint32_t attached_id;     /* the program attached there (0: none) */
	char fused_stage[16];     /* the stage whose fused entry is attached ("": plain) */
	unsigned n_stages;        /* stage[0 .. n_stages - 1]: loaded, in slot order */
	struct fp_stage_status stage[FP_STAGE_CHAIN];
	bool has_filter;          /* the filter stage is loaded: the fields below */
	char share[16];           /* the filter's --share NAME ("": its own rules) */
	struct fp_flt_state flt;  /* serial = generation, applied_ns */
	bool has_rules;           /* a rule set was applied */
	uint8_t default_verdict;  /* XDP_PASS / XDP_DROP */
	size_t n_rules;
	uint32_t stages;          /* bit s: the stage of slot s runs (stage[].running) */
	char renamed_to[16];      /* FP_IFACE_RENAMED: the interface's name now */
	uint32_t prog_id;         /* the pinned entry program (0: unknown); orphans:
				   * the program attached */
};

/*
 * The interfaces with pins under the root in effect for bpffs (a directory
 * holding fp_meta), sorted by name. A missing root gives none (0). Free
 * with fp_status__free_list.
 */
int fp_status__list(const char *bpffs, char ***names, size_t *n);
void fp_status__free_list(char **names, size_t n);

/*
 * Reads one interface's status: its pipeline (fp_pipeline__open and
 * __info), then the filter's rule set when the filter is loaded there.
 * Unreadable pins are not an error of this call: they give state
 * FP_IFACE_BROKEN. When view is not NULL and the filter is loaded and
 * readable, *view holds its rules and counters (free it with
 * fp_filter_view__free); otherwise *view is zeroed. Returns -EINVAL or
 * -ENOMEM only.
 */
int fp_status__read(const char *bpffs, const char *ifname, struct fp_iface_status *st,
		    struct fp_filter_view *view);

/*
 * Orphans: interfaces of this network namespace that run a program named
 * fp_entry* (fastpath's) whose id no pin directory under the root holds,
 * e.g. left by a load that was killed, or pins removed by hand. Each gets
 * state FP_IFACE_ORPHAN, name, meta.ifindex, meta.xdp_flags and prog_id.
 * Free *v with free().
 */
int fp_status__orphans(const char *bpffs, struct fp_iface_status **v, size_t *n);

/* "ok", "iface missing", "detached", "broken", "renamed", "orphan". */
const char *fp_iface_state__name(enum fp_iface_state s);
/* "native", "skb", or "unknown" from fp_meta.xdp_flags. */
const char *fp_xdp_mode__name(uint32_t xdp_flags);
/* The name of the stage table's stage in slot (enum fp_stage), else NULL. */
const char *fp_stage__name(unsigned slot);

#endif /* FP_STATUS_STATUS_H */
