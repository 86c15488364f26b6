/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The filter stage's maps. Rule data lives in two generations (halves of
 * each map below): `apply` writes a whole new set into the spare half, then
 * flips fp_flt_state.gen.
 */
#ifndef FP_FILTER_MAPS_H
#define FP_FILTER_MAPS_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <fastpath/filter_abi.h>

#define FP_FLT_LIM_ENTRIES 262144 /* limiter buckets (LRU: oldest keys go first) */

/* The filter stage's ABI, table size and share (user-written). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_flt_meta);
} fp_flt_meta SEC(".maps");

/* Which generation is live. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_flt_state);
} fp_flt_state SEC(".maps");

/*
 * Every per-generation map holds both generations side by side: generation
 * g's entries start at g * (entries per generation).
 * Plain maps the program names directly: their lookups are inlined, where
 * a map-in-map costs a pointer load per map and inner arrays of varying
 * size are not inlined at all.
 */
#define FP_GEN_MAP(name, kind, entries, vsz, flags)  \
	struct {                                      \
		__uint(type, kind);                   \
		__uint(max_entries, 2 * (entries));   \
		__uint(map_flags, flags);             \
		__uint(key_size, sizeof(__u32));      \
		__uint(value_size, vsz);              \
	} name SEC(".maps")

/* mmapable for its alignment: the entries start on a page and are a whole
 * number of cache lines (abi.h), so each generation begins on a line and
 * gencfg's cache lines are the ones its layout plans */
FP_GEN_MAP(fp_flt_gcfg, BPF_MAP_TYPE_ARRAY, 1, sizeof(struct fp_flt_gencfg), BPF_F_MMAPABLE);
FP_GEN_MAP(fp_flt_cls, BPF_MAP_TYPE_ARRAY, FP_CLS_ENTRIES, sizeof(struct fp_flt_cls_ent),
	   BPF_F_MMAPABLE);
/* sized at load: 2 << flat_bits */
FP_GEN_MAP(fp_flt_keys, BPF_MAP_TYPE_ARRAY, 1u << FP_FLAT_BITS_DEFAULT,
	   sizeof(struct fp_flt_key_slot), BPF_F_MMAPABLE);
FP_GEN_MAP(fp_flt_addr, BPF_MAP_TYPE_ARRAY, 1u << FP_FLAT_BITS_DEFAULT,
	   sizeof(struct fp_flt_addr_slot), BPF_F_MMAPABLE);

/* A generation's region of fp_flt_keys and fp_flt_addr: 2^flat_bits slots
 * (set before load, with the maps' sizes). */
const volatile __u32 flat_bits = FP_FLAT_BITS_DEFAULT;
FP_GEN_MAP(fp_flt_rules, BPF_MAP_TYPE_ARRAY, FP_MAX_RULES, sizeof(struct fp_flt_rule),
	   BPF_F_MMAPABLE);
FP_GEN_MAP(fp_flt_cnt, BPF_MAP_TYPE_PERCPU_ARRAY, FP_FLT_CNT_ENTRIES, sizeof(struct fp_rule_cnt),
	   0);
/* what each rule counted before its generation went live (abi.h) */
FP_GEN_MAP(fp_flt_cnt_base, BPF_MAP_TYPE_ARRAY, FP_FLT_CNT_ENTRIES,
	   sizeof(struct fp_rule_cnt_base), BPF_F_MMAPABLE); /* user space only */
FP_GEN_MAP(fp_flt_text, BPF_MAP_TYPE_ARRAY, FP_MAX_RULES, sizeof(struct fp_flt_text),
	   BPF_F_MMAPABLE); /* user space only */
FP_GEN_MAP(fp_flt_cmask, BPF_MAP_TYPE_ARRAY, FP_CM_ENTRIES, sizeof(__u64), BPF_F_MMAPABLE);
FP_GEN_MAP(fp_flt_pre, BPF_MAP_TYPE_ARRAY, FP_PRE_ENTRIES, sizeof(struct fp_flt_pre),
	   BPF_F_MMAPABLE);

FP_GEN_MAP(fp_flt_abloom, BPF_MAP_TYPE_ARRAY, FP_ABLOOM_WORDS, sizeof(__u64), BPF_F_MMAPABLE);
FP_GEN_MAP(fp_flt_qname, BPF_MAP_TYPE_ARRAY, FP_QN_GEN_SLOTS, sizeof(struct fp_flt_qname_slot),
	   BPF_F_MMAPABLE);
FP_GEN_MAP(fp_flt_qnames, BPF_MAP_TYPE_ARRAY, FP_CM_QNAME_N, sizeof(struct fp_flt_qname_val),
	   BPF_F_MMAPABLE);

/* Limiter state, shared by generations: keyed by the rule's ident. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FP_FLT_LIM_ENTRIES);
	__type(key, struct fp_flt_lim_key);
	__type(value, struct fp_flt_lim_val);
} fp_flt_lim SEC(".maps");

/* How the stage decided (enum fp_flt_stat), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FP_FLT_ST_MAX);
	__type(key, __u32);
	__type(value, struct fp_counter);
} fp_flt_stats SEC(".maps");

/* The last decision, written only when record_last is set (filter test). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_flt_last);
} fp_flt_last SEC(".maps");

#endif
