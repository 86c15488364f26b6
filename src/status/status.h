/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What fastpath has loaded where, read from the pins alone (daemonless):
 * the interfaces under the pin root, each one's XDP mode, filled stage
 * slots, rule set and whether its program is still attached. Used by
 * `fastpath status` and the exporter.
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

enum fp_iface_state {
	FP_IFACE_OK = 0,     /* the interface exists and runs our entry program */
	FP_IFACE_MISSING,    /* no interface of that name and ifindex (stale pins) */
	FP_IFACE_DETACHED,   /* the interface exists but runs another program or none */
	FP_IFACE_BROKEN,     /* the pins cannot be read (see error, err) */
	FP_IFACE_RENAMED,    /* our program runs at the ifindex of the load, under
			      * another name now (renamed_to) */
	FP_IFACE_ORPHAN,     /* fp_status__orphans: our program attached, no pins */
};

struct fp_iface_status {
	char name[NAME_MAX + 1];
	enum fp_iface_state state;
	int error;                /* FP_IFACE_BROKEN: negative errno */
	char err[256];            /* FP_IFACE_BROKEN: what failed, what to do */
	struct fp_filter_meta meta;     /* ifindex, xdp_flags, loaded_ns */
	struct fp_flt_state flt;  /* serial = generation, applied_ns */
	bool has_rules;           /* a rule set was applied */
	uint8_t default_verdict;  /* XDP_PASS / XDP_DROP */
	size_t n_rules;
	uint32_t stages;          /* bit s: slot s of fp_stages holds a program */
	char renamed_to[16];      /* FP_IFACE_RENAMED: the interface's name now */
	uint32_t prog_id;         /* the pinned entry program (0: unknown) */
};

/*
 * The interfaces with pins under the root in effect for bpffs (a directory
 * holding fp_meta), sorted by name. A missing root gives none (0). Free
 * with fp_status__free_list.
 */
int fp_status__list(const char *bpffs, char ***names, size_t *n);
void fp_status__free_list(char **names, size_t n);

/*
 * Reads one interface's status. Unreadable pins are not an error of this
 * call: they give state FP_IFACE_BROKEN. When view is not NULL and the state
 * is not broken, *view holds the rules and counters (free it with
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
/* "dump", "filter", "lb", "steer", "bridge" (enum fp_stage), else NULL. */
const char *fp_stage__name(unsigned slot);

#endif /* FP_STATUS_STATUS_H */
