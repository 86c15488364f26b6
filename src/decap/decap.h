/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The decap stage's user half: the backend side of the lb. `decap load`
 * puts the stage in slot FP_STAGE_DECAP of the interface's pipeline (the
 * pipeline is loaded with it when there is none, and goes with it) and
 * fills decap_addrs with the interface's addresses and any given ones;
 * `decap unload` removes it; fp_decap__view reads its counters.
 * Pins: ROOT/IFACE/decap/{fp_decap, decap_meta, decap_addrs, decap_cnt}.
 *
 * Functions return 0 or a negative errno and leave a message in err
 * saying what failed and what to do. Nothing here prints.
 */
#ifndef FP_DECAP_DECAP_H
#define FP_DECAP_DECAP_H

#include <stdbool.h>
#include <stddef.h>
#include <fastpath/decap_abi.h>

#include "pipeline/pipeline.h"

extern const struct fp_stage_ops fp_stage_decap;

/* An address as text (IPv4 or IPv6) into a key; -EINVAL if it is neither. */
int fp_decap_addr__parse(const char *text, struct fp_decap_addr *a);
/* The key as text (buf of at least 46 bytes). */
const char *fp_decap_addr__str(const struct fp_decap_addr *a, char *buf, size_t len);

/* A cause's name ("4in4", "not_ours", ...); NULL past FP_DECAP_C_MAX. */
const char *fp_decap_counter__name(unsigned cause);
/* The XDP action of a cause: XDP_PASS (decapsulated or untouched) or XDP_DROP. */
unsigned fp_decap_counter__action(unsigned cause);
/* Whether a cause is a decapsulation. */
bool fp_decap_counter__decap(unsigned cause);

struct fp_decap_load_opts {
	const char *bpffs;                  /* pin root; NULL: the default */
	bool skb_mode;                      /* a pipeline loaded for it: generic XDP */
	const struct fp_decap_addr *addrs;  /* more outer destinations (--addr) */
	unsigned n_addrs;
};

/* What a load did. */
struct fp_decap_loaded {
	bool pipeline_created;              /* no pipeline was there: loaded with it */
	unsigned n_iface, n_given;          /* addresses of the interface, given */
};

/*
 * Loads the stage on ifname (and the pipeline when there is none) and
 * fills its addresses: the interface's IPv4 and IPv6 addresses now (they
 * are read once; --addr adds others) and o->addrs. -EEXIST when it is
 * loaded already, -ENODEV without such an interface, -E2BIG past
 * FP_DECAP_MAX_ADDRS addresses; nothing is left changed on failure.
 */
int fp_decap__load(const char *ifname, const struct fp_decap_load_opts *o,
		   struct fp_decap_loaded *done, char *err, size_t errlen);

/* Removes the stage (and the pipeline a stage's load made, when no other
 * stage is on it: *r says). -ENOENT when it is not loaded. */
int fp_decap__unload(const char *ifname, const char *bpffs, struct fp_unload_report *r,
		     char *err, size_t errlen);

/* What is pinned for the stage on an interface. */
struct fp_decap_view {
	struct fp_decap_meta meta;
	bool enabled;                              /* in the chain (pipeline enable) */
	struct fp_counter cnt[FP_DECAP_C_MAX];     /* summed over the CPUs */
	unsigned n_addrs;
	struct fp_decap_addr addrs[FP_DECAP_MAX_ADDRS];
	__u32 addr_src[FP_DECAP_MAX_ADDRS];       /* FP_DECAP_ADDR_* */
};
/* Reads it; -ENOENT (err: how to load it) when the stage is not loaded,
 * -EPROTO when its pins are of another ABI. */
int fp_decap__view(const char *ifname, const char *bpffs, struct fp_decap_view *v,
		   char *err, size_t errlen);

/* Sums decap_cnt (a map fd) over the CPUs into cnt[FP_DECAP_C_MAX]. */
int fp_decap__read_counters(int cnt_fd, struct fp_counter *cnt);

#endif
