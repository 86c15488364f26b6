/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The filter stage's maps, keys and values (src/filter), shared by its BPF
 * and user halves. Bump FP_FILTER_ABI whenever a layout here changes: only
 * the filter is then reloaded, not the pipeline or another stage.
 */
#ifndef FASTPATH_FILTER_ABI_H
#define FASTPATH_FILTER_ABI_H

#include <fastpath/abi.h>
#include <fastpath/terms.h>

#define FP_FILTER_ABI 3

/* fp_flt_meta: the filter stage on an interface (ROOT/IFACE/filter/meta). */
struct fp_flt_meta {
	__u32 abi_version;     /* FP_FILTER_ABI of the loader (first, as in every meta) */
	__u32 flat_bits;       /* a generation's flat tables: 2^flat_bits slots */
	__u64 loaded_ns;       /* CLOCK_REALTIME at load */
	char share[16];        /* `load --share NAME`: the rule set's share ("": its own) */
};
FP_ABI_ASSERT(sizeof(struct fp_flt_meta) == 32);

#define FP_MAX_TUPLES  256   /* distinct term shapes in one set (fp_flt_key.tuple is a u8) */
#define FP_MAX_PLENS   33    /* distinct prefix lengths per address table */

/*
 * The one-index flip: which generation of rule maps is live. Each rule map
 * holds two generations side by side; generation g's entries of a map of
 * N entries per generation are [g * N, g * N + N). serial 0: no rule set
 * applied yet. Mmapable: `apply` writes gen, then serial and applied_ns.
 */
struct fp_flt_state {
	__u32 gen;             /* 0 or 1 */
	__u32 pad;
	__u64 serial;          /* applies so far (generation number shown to users) */
	__u64 applied_ns;      /* CLOCK_REALTIME of the last apply */
};
FP_ABI_ASSERT(sizeof(struct fp_flt_state) == 24);

/* Address class tables (fp_flt_addr key.tbl). */
enum fp_addr_tbl { FP_ADDR_SRC4 = 0, FP_ADDR_DST4 = 1, FP_ADDR_SRC6 = 2, FP_ADDR_DST6 = 3 };

/* One tuple: a set of fields (FP_T_* bits of src/rules/rule.h) rules share. */
struct fp_flt_tuple {
	/* struct fp_flt_key as four little-endian words with all bits of the
	 * tuple's fields set (flags: the TCP flags its rules look at; tuple
	 * byte clear): the stage builds a tuple's key from the packet's words
	 * with four ANDs */
	__u64 kmask[3];
	__u32 kmask3;
	__u32 fields;          /* FP_T_* */
};
FP_ABI_ASSERT(sizeof(struct fp_flt_tuple) == 32); /* half a cache line */

/* The costly fields first: the stage reads their cm_uses words for every
 * packet (only theirs: only they are skipped), and then they share
 * gencfg's first cache line with the header. */
enum fp_cm_field { FP_CMF_SRC, FP_CMF_DST, FP_CMF_QNAME, FP_CMF_SPORT, FP_CMF_DPORT,
		   FP_CMF_LEN, FP_CMF_TTL, FP_CMF_VLAN };
#define FP_CMF_N_COSTLY 3

/* Per generation: how to classify. */
struct fp_flt_gencfg {
	/* what every packet reads comes first, in the first cache lines */
	__u32 n_rules;
	__u32 n_tuples;        /* tuples[] sorted by tuple_min_rule */
	__u32 use;             /* FP_T_* bits any rule uses */
	__u8  default_verdict; /* XDP_PASS or XDP_DROP */
	__u8  n_plen[4];       /* per fp_addr_tbl */
	__u8  key_bits;        /* fp_flt_keys has 2^key_bits slots */
	__u8  addr_bits;       /* fp_flt_addr has 2^addr_bits slots */
	__u8  qn_bits;         /* fp_flt_qname has 2^qn_bits slots */
	__u32 qn_max_depth;    /* deepest node (FP_DNS_LABELS_MAX when >= 64) */
	/* by enum fp_cm_field: the tuples that use the field (bit 63: any
	 * tuple from 63 up does), and those that use qname or qtype; the
	 * stage skips a costly field no tuple left uses */
	__u64 dns_uses;
	__u64 cm_uses[FP_CMF_N_COSTLY];
	/* len and ttl: the values some rule covers lie in [span[0], span[1]]
	 * (empty: [1, 0]); a packet's value outside has class 0 and costs no
	 * lookup (the usual ttl and len rules cover a corner: ttl 0-3, len
	 * over 1200) */
	__u16 len_span[2];
	__u16 ttl_span[2];
	/* fp_flt_cmask's class-0 words (tuples without the field), by enum
	 * fp_cm_field: a packet lacking a field, or with a len or ttl outside
	 * its span, costs no lookup. The second cache line. */
	__u64 cm_zero[8];
	/* DNS name nodes by depth (labels, root included): bit d - 1 for depth d,
	 * bit 63 for 64 and deeper; [0] exact names, [1] wildcard suffixes. The
	 * stage hashes and probes only the suffixes of those depths. */
	__u64 qn_depth[2];
	__u8  plen[4][FP_MAX_PLENS];   /* per table, longest first */
	__u8  pad[44];
	/* aligned: a tuple the stage probes is one cache line (the map is
	 * mmapable and the size a multiple of 64, so each generation starts on a line) */
	struct fp_flt_tuple tuples[FP_MAX_TUPLES];
	__u32 tuple_min_rule[FP_MAX_TUPLES]; /* lowest rule index with an entry in each tuple */
};
FP_ABI_ASSERT(__builtin_offsetof(struct fp_flt_gencfg, tuples) % 64 == 0);
FP_ABI_ASSERT(sizeof(struct fp_flt_gencfg) % 64 == 0);

FP_ABI_ASSERT(__builtin_offsetof(struct fp_flt_gencfg, ttl_span) + 4 <= 64);
FP_ABI_ASSERT(__builtin_offsetof(struct fp_flt_gencfg, cm_zero) == 64);

/*
 * fp_flt_cls: per generation, one entry per value of sport, dport, len (each
 * 65536 values), ttl (256), vlan (4096): the value's class (0 = no rule
 * covers it) and that class's fp_flt_cmask word, so that a range field
 * costs the stage one lookup.
 */
struct fp_flt_cls_ent {
	__u64 mask;
	__u32 cls;
	__u32 hit;             /* FP_CLS_DPORT_L4 only (else FP_FLT_NO_RULE): see there */
};
FP_ABI_ASSERT(sizeof(struct fp_flt_cls_ent) == 16);
#define FP_CLS_SPORT   0
#define FP_CLS_DPORT   65536
#define FP_CLS_LEN     131072
#define FP_CLS_TTL     196608
#define FP_CLS_VLAN    196864
/* dport again, once per (IPv4, IPv6) x (TCP, UDP), entry (l3 == 6) * 2 +
 * (proto == UDP): the mask is the dport class's word ANDed with the
 * L3PROTO word, so a TCP or UDP packet's dport read does the work of the
 * L3PROTO read too (one cache line fewer on the packet's critical path).
 * The stage reads only these copies of dport; FP_CLS_DPORT's entries are
 * what they are made from.
 * A tuple whose fields are within ip/ip6, the protocol and dport (below
 * tuple 63: "drop udp dport 11211") has its key fixed by the entry, so the
 * compiler probes it once: the entry's hit is the lowest hit of those
 * tuples for its (l3, protocol, port), FP_FLT_NO_RULE if none, and they are
 * cleared from its mask. A packet that such a rule decides probes nothing. */
#define FP_CLS_DPORT_L4 200960
#define FP_CLS_ENTRIES (FP_CLS_DPORT_L4 + 4 * 65536)

/*
 * fp_flt_cmask: which tuples can still match once one field of the packet
 * is known, so that the stage probes only those. Entry [FP_CM_<field> +
 * class] has bit t (t < 63) set when tuple t does not use the field, or one
 * of its rules covers that class; bit 63 stands for tuples 63 and up
 * together. Class 0 (no rule covers the value, or the packet lacks the
 * field) has only the bits of tuples that do not use the field. L3PROTO
 * holds both terms' words ANDed, indexed by l3 * 257 + protocol number (l3:
 * 0 none, 1 IPv4, 2 IPv6; protocol 256: none known); undetermined-transport
 * is protocol 256 (with l3 1 or 2), and ether TYPE is in the l3 words its
 * type allows (ip: 0 and 1, ip6: 0 and 2, any other: 0), so an IP packet
 * never probes a tuple of non-IP ethertypes. A class beyond its
 * region (never built) reads as all tuples. The stage reads the range
 * fields' words from fp_flt_cls and the short prefixes' from fp_flt_pre;
 * their regions here are what those copies are made from.
 */
#define FP_CM_TUPLE_BITS    64
#define FP_CM_RANGE_N       65537                  /* sport, dport, len classes */
#define FP_CM_TTL_N         257
#define FP_CM_VLAN_N        4097
#define FP_CM_ADDR_N        (2 * FP_MAX_RULES + 1) /* address nodes of src and dst */
#define FP_CM_QNAME_N       (FP_MAX_RULES + 1)
#define FP_CM_L3PROTO_N     (3 * 257)
#define FP_CM_SPORT   0
#define FP_CM_DPORT   (FP_CM_SPORT + FP_CM_RANGE_N)
#define FP_CM_LEN     (FP_CM_DPORT + FP_CM_RANGE_N)
#define FP_CM_TTL     (FP_CM_LEN + FP_CM_RANGE_N)
#define FP_CM_VLAN    (FP_CM_TTL + FP_CM_TTL_N)
#define FP_CM_SRC     (FP_CM_VLAN + FP_CM_VLAN_N)
#define FP_CM_DST     (FP_CM_SRC + FP_CM_ADDR_N)
#define FP_CM_QNAME   (FP_CM_DST + FP_CM_ADDR_N)
#define FP_CM_L3PROTO (FP_CM_QNAME + FP_CM_QNAME_N)
#define FP_CM_ENTRIES (FP_CM_L3PROTO + FP_CM_L3PROTO_N)

/*
 * fp_flt_pre: the address prefilter, one entry per table and top 16 bits of
 * the address (/16 number tbl << 16 | addr[0] << 8 | addr[1]): the class of the
 * longest prefix of length <= 16 that holds the whole /16 (0: none), and
 * which longer prefix lengths have a prefix inside this /16 (bit i: the
 * i-th of fp_flt_gencfg.plen[tbl]). Most addresses of a flood need no hash
 * probe and no mask lookup at all; the rest probe only the lengths that
 * can hit. An IPv4 /16 holding exactly one longer prefix (a blocklist's
 * lone /32 or /24) keeps it in the entry (lplen != 0, probe 0): the
 * address's last 16 bits are compared instead of probed.
 * hit and lhit: the lowest hit (FP_FLT_HIT) of the tuples that cls and
 * lcls decide alone (fields within ip/ip6 and this direction's address,
 * below tuple 63), whose bits mask and lmask then leave out; FP_FLT_NO_RULE
 * when none (a blocklist flood then costs no key probe, as a port flood).
 * An IPv6 /16 whose prefixes longer than /32 all lie in one /32 names it
 * (lo: the address's bytes 2..3) and its /48 bitmap block (w48, below): an
 * address outside that /32, or in a /48 whose bit is clear, probes only
 * probe32, the lengths up to 32 (usually none). Why: a flood from random
 * sources within a /32 that holds /48 rules probed its own /48 in every
 * packet (a key, a hash, a bit of fp_flt_abloom: ~20 ns, 0.75x xdp-filter).
 */
struct fp_flt_pre {
	__u64 probe;
	__u64 mask;            /* cls's fp_flt_cmask word (SRC or DST region),
				* without the bits of the tuples hit decides */
	__u32 cls;
	__u16 lo;              /* the long prefix's address bytes 2..3, big-endian
				* value (addr[2] << 8 | addr[3]), masked to lplen */
	__u8  lplen;           /* its length, 17..32; 0: none inline */
	__u8  pad;
	union {
		__u64 lmask;   /* IPv4: its class's fp_flt_cmask word, as mask */
		__u64 probe32; /* IPv6 with w48: probe without the lengths over 32 */
	};
	__u32 lcls;            /* its class */
	__u32 lhit;            /* what lcls decides alone */
	__u32 hit;             /* what cls decides alone */
	__u32 w48;             /* IPv6: 1 + the /48 bitmap block of the /32 lo (below) */
};
FP_ABI_ASSERT(sizeof(struct fp_flt_pre) == 48);
#define FP_PRE_ADDRS (4u << 16) /* the /16s of the four tables */

/*
 * In the map, a /16 does not have an entry of its own: equal entries are
 * stored once, each table's most common one (usually "no rule") as its
 * entry 0. A generation's elements are, in order:
 *  - FP_PRE_BITS_N bitmap elements: bit (/16 number & 255) of element
 *    /16 number >> 8 (words w[0..3]) is set when the /16's entry is not 0;
 *  - FP_PRE_IDX_N index elements, giving the /16s with their bit set their
 *    entry's number (element /16 number >> 4, ent[/16 number & 15]);
 *  - per table up to 65,536 entries: table tbl's entry n is element
 *    FP_PRE_BITS_N + FP_PRE_IDX_N + (tbl << 16) + n.
 * (/16 number: tbl << 16 | addr[0] << 8 | addr[1].)
 * Why: a flood from random sources reads a different /16 in every packet;
 * 48-byte entries put a table's 65,536 /16s on 3 MB (768 pages), so each
 * new source cost a TLB and a cache miss. A table's bitmap is 12 KB; most
 * sources read only it and the table's entry 0, both hot.
 */
struct fp_flt_pre_bits {
	__u64 w[4];
	__u8  pad[16];
};
struct fp_flt_pre_idx {
	__u16 ent[16];
	__u8  pad[16];
};
FP_ABI_ASSERT(sizeof(struct fp_flt_pre_bits) == sizeof(struct fp_flt_pre));
FP_ABI_ASSERT(sizeof(struct fp_flt_pre_idx) == sizeof(struct fp_flt_pre));
#define FP_PRE_BITS_N  (FP_PRE_ADDRS / 256)
#define FP_PRE_IDX_N   (FP_PRE_ADDRS / 16)
#define FP_PRE_ENT0    (FP_PRE_BITS_N + FP_PRE_IDX_N) /* the first entry */
/*
 * Then FP_PRE_B48_BLOCKS /48 bitmap blocks (both IPv6 tables), each
 * FP_PRE_B48_ELEMS fp_flt_pre_bits elements: bit v (v = address bytes 4..5)
 * of block b is bit (v & 255) of element FP_PRE_B48 + (b << 8) + (v >> 8),
 * set when a prefix longer than 32 of the block's /32 covers or lies in
 * the /48 v. /16s beyond the blocks (or with longer prefixes in two /32s)
 * probe as before.
 */
#define FP_PRE_B48        (FP_PRE_ENT0 + FP_PRE_ADDRS)
#define FP_PRE_B48_BLOCKS 32u
#define FP_PRE_B48_ELEMS  256u
#define FP_PRE_ENTRIES (FP_PRE_B48 + FP_PRE_B48_BLOCKS * FP_PRE_B48_ELEMS) /* elements per generation */

struct fp_flt_addr_key {
	__u8  tbl;             /* enum fp_addr_tbl */
	__u8  plen;
	__u16 pad;
	__u8  addr[16];        /* masked to plen */
};
FP_ABI_ASSERT(sizeof(struct fp_flt_addr_key) == 20);

enum fp_qname_kind { FP_QN_EXACT = 0, FP_QN_WILD = 1 };

struct fp_flt_qname_key {
	__u64 hash;            /* fp_qname_hash of the wire name */
	__u32 kind;            /* enum fp_qname_kind */
	__u32 pad;
};
FP_ABI_ASSERT(sizeof(struct fp_flt_qname_key) == 16);

struct fp_flt_qname_val {
	__u32 cls;
	__u16 len;             /* wire length of name[] */
	__u16 pad;
	__u8  name[264];       /* the wire name (zero padded): a hit is verified word by word */
};
FP_ABI_ASSERT(sizeof(struct fp_flt_qname_val) == 272);

/* Tuple key: the packet's classes for the tuple's fields, others zero. */
struct fp_flt_key {
	__u8  tuple;
	__u8  l3;
	__u8  proto;
	__u8  flags;           /* tcp_flags & tuple.flags_mask */
	__u16 vlan, sport, dport, len, ttl, qtype;
	__u32 src, dst;
	__u16 qname;           /* a class, < FP_CM_QNAME_N */
	__u16 ether;           /* the ethertype itself */
};
FP_ABI_ASSERT(sizeof(struct fp_flt_key) == 28);

/*
 * The tuple keys and the address prefixes live in flat hash tables: ARRAY
 * maps of 2^bits slots, open addressing with linear probing. A key's home
 * slot is the top `bits` bits of fp_flat_hash over its bytes zero-padded
 * to four 64-bit words (little-endian loads); a probe looks at most
 * FP_FLAT_PROBES slots from home and stops at an empty one. The user side
 * grows a table until every key sits within reach. Cheaper in XDP than a
 * HASH map: a few multiplies instead of jhash, array slots instead of
 * buckets. Each generation has a region of 2^fp_meta.flat_bits slots
 * (`filter load --table-bits`) and uses its first 2^bits.
 */
#define FP_FLAT_PROBES   8
#define FP_FLAT_MIN_BITS 4
#define FP_FLAT_MAX_BITS 22          /* the largest region --table-bits allows */
#define FP_FLAT_BITS_DEFAULT 18      /* about 100,000 keys or prefixes */
#define FP_FLAT_M        0x9e3779b97f4a7c15ULL

/*
 * Four independent multiplies summed, then one xor-shift-multiply: the
 * products overlap in the CPU where a chain of mixes (each waiting on the
 * last) cost a packet ~7 ns per probe in NAPI. The top bits, which pick the
 * slot, depend on every input bit: the shift folds each product's high half
 * onto the low, the last multiply spreads it up.
 */
static inline __u64 fp_flat_hash(__u64 a, __u64 b, __u64 c, __u64 d)
{
	__u64 h = (a ^ 0x243f6a8885a308d3ULL) * FP_FLAT_M + b * 0xc2b2ae3d27d4eb4fULL +
		  c * 0x165667b19e3779f9ULL + d * 0xd6e8feb86659fd93ULL;

	h ^= h >> 32;
	return h * FP_FLAT_M;
}

/*
 * The DNS name nodes are a flat table too (fp_flt_qname, 2^qn_bits slots of
 * a region of FP_QN_GEN_SLOTS per generation): key (hash, kind), value the
 * node's class; fp_flt_qnames[class] holds the node's name, which a hit is
 * verified against.
 */
#define FP_QN_MAX_BITS   15
#define FP_QN_GEN_SLOTS  (1u << FP_QN_MAX_BITS)

struct fp_flt_qname_slot {
	struct fp_flt_qname_key key;
	__u32 cls;             /* 0: empty */
	__u32 pad;
};
FP_ABI_ASSERT(sizeof(struct fp_flt_qname_slot) == 24);

/*
 * A slot of fp_flt_keys: the key and its hit, the rule index and the rule's
 * action in one word (FP_FLT_NO_RULE: empty). A packet whose rule drops or
 * passes then never reads fp_flt_rules, a cache line fewer; and hits order
 * as their rules do, so the lowest hit is the first rule.
 */
struct fp_flt_key_slot {
	struct fp_flt_key key;
	__u32 hit;             /* FP_FLT_HIT(rule, enum fp_flt_action) */
};
FP_ABI_ASSERT(sizeof(struct fp_flt_key_slot) == 32);

/* A slot of fp_flt_addr: a prefix and its class (0: empty). */
struct fp_flt_addr_slot {
	struct fp_flt_addr_key key;
	__u32 cls;
};
FP_ABI_ASSERT(sizeof(struct fp_flt_addr_slot) == 24);

/*
 * fp_flt_abloom: per generation FP_ABLOOM_WORDS words of one bit per value
 * of the top FP_ABLOOM_BITS bits of fp_flat_hash, set for the key of every
 * prefix in fp_flt_addr (the hash that also picks its home slot). A probe
 * whose bit is clear ends there. Why: sources spread over a /32 holding
 * /48 rules probe their /48 at a slot of their own, all over the table
 * (16,384 slots, 384 KB at 10,000 rules): a cache and TLB miss a flow. The
 * bits are 32 KB, and a clear one saves the table's line.
 */
#define FP_ABLOOM_BITS  18
#define FP_ABLOOM_WORDS (1u << (FP_ABLOOM_BITS - 6))

enum fp_flt_action { FP_FLT_PASS = 0, FP_FLT_DROP = 1, FP_FLT_LIMIT = 2 };
#define FP_FLT_HIT(rule, action) ((__u32)(rule) << 2 | (action))
#define FP_FLT_HIT_RULE(hit)     ((hit) >> 2)
#define FP_FLT_HIT_ACTION(hit)   ((hit) & 3)
enum fp_flt_by { FP_FLT_BY_ALL = 0, FP_FLT_BY_SRC = 1, FP_FLT_BY_DST = 2, FP_FLT_BY_FLOW = 3 };

struct fp_flt_rule {
	__u8  action;          /* enum fp_flt_action */
	__u8  by;              /* enum fp_flt_by */
	__u16 pad;
	__u32 sample_n;        /* sample 1/N; 0 none */
	__u64 interval_ns;     /* limit: time per packet at the rate */
	__u64 tau_ns;          /* limit: (burst - 1) * interval_ns */
	__u64 ident;           /* hash of id and text: limiter state survives apply */
};
FP_ABI_ASSERT(sizeof(struct fp_flt_rule) == 32);

/*
 * Limiter key (LRU, shared by generations): GCRA state per rule and key.
 * The rule's ident and by, then what `by` names, the rest zero: by src:
 * l3 and src; by dst: l3 and dst; by flow: l3, src, dst, proto (when
 * known), sport and dport (when the packet has them). A frame without IP
 * has l3, src and dst zero (one bucket for all such frames); an IPv4
 * address fills bytes 0..3, bytes 4..15 zero (l3 tells it from the IPv6
 * address of the same first bytes).
 */
struct fp_flt_lim_key {
	__u64 ident;
	__u8  by;
	__u8  proto;
	__u16 sport, dport;
	__u8  l3;              /* 0, 4 or 6 (0 for by all) */
	__u8  pad;
	__u8  src[16];
	__u8  dst[16];
};
FP_ABI_ASSERT(sizeof(struct fp_flt_lim_key) == 48);

struct fp_flt_lim_val {
	__u64 tat_ns;          /* theoretical arrival time */
};

/* Per-rule counters (fp_flt_cnt, per CPU, per generation). */
struct fp_rule_cnt {
	__u64 packets;
	__u64 bytes;
	__u64 drops;           /* packets the rule dropped (limit: over the rate) */
	__u64 samples;         /* packets of the rule sampled into fp_ring */
	__u64 skip;            /* sampling: packets to let go before the next sample */
};
FP_ABI_ASSERT(sizeof(struct fp_rule_cnt) == 40);

/*
 * fp_flt_cnt_base (user space only, per generation, indexed as fp_flt_cnt):
 * what a rule counted before its generation went live, so the counters of
 * a rule that an apply kept (same ident) go on from where they were. A
 * rule's total is its base plus its fp_flt_cnt summed over CPUs; the base
 * is `carried`, or while `pending` is set (between an apply's flip and the
 * moment no packet can still count into the old generation) `prior` plus
 * the old generation's counters at index pending - 1, still moving. The
 * apply then folds those into `carried` and clears `pending` (release);
 * a reader loads `pending` first (acquire). skip is unused here.
 */
struct fp_rule_cnt_base {
	struct fp_rule_cnt carried;
	struct fp_rule_cnt prior;
	__u32 pending;         /* 0, or 1 + the rule's index in the other generation */
	__u32 pad;
};
FP_ABI_ASSERT(sizeof(struct fp_rule_cnt_base) == 88);

/* fp_flt_stats (per CPU, survives applies): how the stage decided. */
enum fp_flt_stat {
	FP_FLT_ST_RULE_PASS = 0,
	FP_FLT_ST_RULE_DROP,
	FP_FLT_ST_LIMIT_PASS,
	FP_FLT_ST_LIMIT_DROP,
	FP_FLT_ST_DEFAULT_PASS,
	FP_FLT_ST_DEFAULT_DROP,
	FP_FLT_ST_NO_RULES,    /* no rule set applied yet: passed */
	FP_FLT_ST_MAX,
};

/* Per-rule counters: index = rule index; FP_MAX_RULES counts the default. */
#define FP_FLT_CNT_ENTRIES (FP_MAX_RULES + 1)
#define FP_FLT_NO_RULE 0xffffffffu

/*
 * Last decision, recorded only when the program is loaded for `filter test`
 * (record_last), and the test clock: user space writes the entry before
 * each run, now_ns the time the run's packet arrives (`filter test`: from
 * the capture's timestamps), and with record_last the limiter takes its
 * time from there instead of bpf_ktime_get_ns. Live, nothing reads it.
 */
struct fp_flt_last {
	__u32 rule;            /* rule index or FP_FLT_NO_RULE */
	__u32 verdict;         /* XDP action */
	__u64 seq;             /* incremented by each decision */
	__u64 now_ns;          /* the limiter's clock (CLOCK_MONOTONIC or the capture's) */
	struct fp_flt_lim_key lim; /* the bucket a limit rule's decision counted
				    * against (as user space wrote it otherwise) */
};
FP_ABI_ASSERT(sizeof(struct fp_flt_last) == 72);

/* fp_flt_text: the canonical text of each rule (id explicit), for `list`. */
struct fp_flt_text {
	char text[FP_RULE_TEXT];
};

#endif /* FASTPATH_FILTER_ABI_H */
