/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The dump stage's maps (src/dump): the sample ring, its header, what a
 * running `fastpath dump` asks for. Bump FP_DUMP_ABI when a layout changes.
 */
#ifndef FASTPATH_DUMP_ABI_H
#define FASTPATH_DUMP_ABI_H

#include <fastpath/abi.h>
#include <fastpath/terms.h>

#define FP_DUMP_ABI 1

/* fp_dump_meta: the dump stage on an interface (ROOT/IFACE/dump/meta). */
struct fp_dump_meta {
	__u32 abi_version;     /* FP_DUMP_ABI (first, as in every meta) */
	__u32 pad;
	__u64 loaded_ns;
};

#define FP_SNAPLEN_DEFAULT 256
#define FP_SNAPLEN_MAX     2048  /* bytes of a packet a sample can carry */
#define FP_RING_BYTES      (4u << 20) /* fp_ring size */

/* One sampled packet in fp_ring: this header, then cap_len bytes. */
struct fp_sample {
	__u64 ts_ns;           /* bpf_ktime_get_ns (CLOCK_MONOTONIC) */
	__u64 ident;           /* the stage's fp_verdict.ident (the filter: the
				* deciding rule's ident, 0 default) */
	__u32 ifindex;
	__u32 rx_queue;
	__u32 pkt_len;         /* original length */
	__u32 cap_len;         /* bytes that follow */
	__u32 rule;            /* fp_verdict.reason (the filter: rule index in its
				* generation, FP_NO_REASON default) */
	__u8  verdict;         /* XDP action the stage gave */
	__u8  why;             /* enum fp_sample_why */
	__u16 serial;          /* the stage's serial (the filter's generation), low bits */
	__u8  stage;           /* the deciding stage's slot (enum fp_stage) */
	__u8  pad[7];
};
FP_ABI_ASSERT(sizeof(struct fp_sample) == 48);

enum fp_sample_why {
	FP_SMP_RULE  = 1,      /* selected by a dump, at the stage's own rate (a rule's) */
	FP_SMP_DUMP  = 2,      /* selected by a dump, at its --sample rate */
	FP_SMP_MATCH = 3,      /* the dump stage's --match terms held */
};

/* fp_smp_stats (per CPU): samples tried, and those the full ring refused. */
struct fp_smp_stats {
	__u64 sampled;
	__u64 lost;
	__u64 skip;            /* dump --sample: packets to let go before the next */
};

/* fp_dump_cfg: what a running `fastpath dump` wants (active = 0: nothing). */
struct fp_dump_cfg {
	__u32 active;
	__u32 sample_n;        /* 1/N of the selected packets; 0: each rule's own, else all */
	__u32 snaplen;         /* <= FP_SNAPLEN_MAX */
	__u32 drops_only;      /* only packets a stage dropped */
	__u64 rule_ident;      /* only decisions of this ident (a filter rule's; 0: any) */
	__u32 stages;          /* only decisions of these slots (bit s; 0: every stage) */
	__u32 pad;
	__u32 use_match;       /* the dump stage marks packets that match `match` */
	__u32 owner_pid;       /* the dump process (a second dump is refused) */
	struct fp_match match;
};

#endif /* FASTPATH_DUMP_ABI_H */
