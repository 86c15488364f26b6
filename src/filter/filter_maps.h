/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The filter stage's maps. Rule data lives in inner maps, one set per
 * generation (slot 0 or 1 of each outer map): `apply` builds a whole new set
 * aside, puts it in the spare slot, then flips fp_flt_state.gen.
 */
#ifndef FP_FILTER_MAPS_H
#define FP_FILTER_MAPS_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <fastpath/abi.h>

#define FP_FLT_LIM_ENTRIES 262144 /* limiter buckets (LRU: oldest keys go first) */

/* Which generation is live. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_flt_state);
} fp_flt_state SEC(".maps");

#define FP_OUTER(name, inner)                         \
	struct {                                      \
		__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS); \
		__uint(max_entries, 2);               \
		__type(key, __u32);                   \
		__array(values, inner);               \
	} name SEC(".maps")

/* Inner maps give sizes, not BTF types: clang 14 leaves types used only
 * inside an outer map's template as forward declarations. */
struct fp_flt_gcfg_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct fp_flt_gencfg));
};
struct fp_flt_cls_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_CLS_ENTRIES);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
};
struct fp_flt_cmask_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_CM_ENTRIES);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u64));
};
struct fp_flt_pre_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_PRE_ENTRIES);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct fp_flt_pre));
};
/* Flat hash tables (abi.h): sized per generation, hence BPF_F_INNER_MAP. */
struct fp_flt_keys_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << FP_FLAT_MIN_BITS);
	__uint(map_flags, BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct fp_flt_key_slot));
};
struct fp_flt_addr_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << FP_FLAT_MIN_BITS);
	__uint(map_flags, BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct fp_flt_addr_slot));
};
struct fp_flt_qname_inner {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(struct fp_flt_qname_key));
	__uint(value_size, sizeof(struct fp_flt_qname_val));
};
struct fp_flt_rules_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_MAX_RULES);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct fp_flt_rule));
};
struct fp_flt_cnt_inner {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FP_FLT_CNT_ENTRIES);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct fp_rule_cnt));
};
struct fp_flt_text_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_MAX_RULES);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct fp_flt_text));
};

FP_OUTER(fp_flt_gcfg, struct fp_flt_gcfg_inner);   /* how to classify */
FP_OUTER(fp_flt_cls, struct fp_flt_cls_inner);     /* port/len/ttl/vlan -> class */
FP_OUTER(fp_flt_keys, struct fp_flt_keys_inner);   /* tuple key -> rule index */
FP_OUTER(fp_flt_addr, struct fp_flt_addr_inner);   /* masked address -> class */
FP_OUTER(fp_flt_qname, struct fp_flt_qname_inner); /* DNS name hash -> class */
FP_OUTER(fp_flt_rules, struct fp_flt_rules_inner); /* rule index -> action */
FP_OUTER(fp_flt_cnt, struct fp_flt_cnt_inner);     /* rule index -> counters */
FP_OUTER(fp_flt_text, struct fp_flt_text_inner);   /* rule index -> text (user only) */
FP_OUTER(fp_flt_cmask, struct fp_flt_cmask_inner); /* field class -> tuples to probe */
FP_OUTER(fp_flt_pre, struct fp_flt_pre_inner);     /* address /16 -> class, lengths to probe */

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

/* Hashes of every suffix of the current packet's DNS name. */
struct fp_flt_qh {
	__u64 h[FP_DNS_LABELS_MAX];
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_flt_qh);
} fp_flt_qh SEC(".maps");

#endif
