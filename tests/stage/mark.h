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
