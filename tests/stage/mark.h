/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tests' mark stage (mark.bpf.c), shared by its BPF and user sides:
 * the fact it hands to later stages and the counters it keeps.
 */
#ifndef FP_TESTS_STAGE_MARK_H
#define FP_TESTS_STAGE_MARK_H

#include <linux/types.h>

/*
 * fact[slot] of a marked packet: MARK_MAGIC, the slot, and the stage's
 * place in this packet's visit (1 for the first stage that marked it):
 * the stages before it each set their bit in fp_pkt.facts.
 */
#define MARK_MAGIC 0x6d000000u /* 'm' */
#define MARK_FACT(slot, order) (MARK_MAGIC | ((__u32)(order) << 8) | (__u32)(slot))
#define MARK_FACT_SLOT(f) ((f) & 0xff)
#define MARK_FACT_ORDER(f) (((f) >> 8) & 0xff)

/*
 * The stage's own ABI: the layout of what it pins (mark_meta, mark_cnt).
 * A change here bumps MARK_ABI and reloads the mark stage only, never the
 * pipeline or another stage. mark_meta's first word is the ABI, as in
 * every stage's meta map (`pipeline show` reads it without knowing the
 * rest).
 */
#define MARK_ABI 1
#define MARK_SLOT 5 /* where the test CLI plugs it in (a free slot) */
struct mark_meta {
	__u32 abi_version;
	__u32 slot;
};

/* The reason it offers the dump with its decision. */
#define MARK_REASON(slot) (0x6d61726bu + (slot)) /* "mark" + slot */

/* Packets in, and out by XDP action (XDP_ABORTED .. XDP_REDIRECT), per
 * CPU: what `pipeline show` reads as the stage's counters. */
#define MARK_ACTIONS 5
struct mark_counts {
	__u64 in;
	__u64 out[MARK_ACTIONS];
};

#endif
