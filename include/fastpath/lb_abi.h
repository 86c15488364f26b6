/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The lb stage's maps (src/lb), shared by its BPF and user halves; pinned
 * under ROOT/IFACE/lb/. Bump FP_LB_ABI whenever a layout here changes:
 * only the lb is then reloaded.
 *
 *   lb_meta      ARRAY[1]   struct fp_lb_meta (the stage's settings)
 *   lb_vips      HASH       struct fp_lb_vip_key -> struct fp_lb_vip: the
 *                VIPs as the user half keeps them (the BPF half reads
 *                lb_vip_index)
 *   lb_vip_index ARRAY_OF_MAPS[1]: the VIPs as packets find them, an inner
 *                ARRAY of FP_LB_VIP_ENTRIES struct fp_lb_vip_slot (entry
 *                0 the header: its seed; slot n at entry 1 + n), indexed
 *                by fp_lb_vip_home with at most FP_LB_VIP_PROBES probes.
 *                Rebuilt aside from lb_vips after each change and switched
 *                in with one update: a packet sees the old VIPs or the
 *                new ones, never half of either.
 *   lb_tables    ARRAY_OF_MAPS[FP_LB_MAX_VIPS], by vip index: the VIP's
 *                Maglev table, an inner ARRAY (BPF_F_INNER_MAP, so sizes
 *                differ) of table_size __u32 backend indexes. A changed
 *                backend set is a new inner map built aside and switched
 *                in with one update of this slot: a packet sees the old
 *                table or the new one, never half of either.
 *   lb_backends  ARRAY[FP_LB_MAX_BACKENDS] struct fp_lb_backend: one entry
 *                per (VIP, backend) pair, so each pair has its own state
 *   lb_conns     ARRAY (BPF_F_MMAPABLE) of struct fp_lb_bucket, conns /
 *                FP_LB_WAYS of them (a power of two), indexed by
 *                fp_lb_conn_hash: established flows keep their backend
 *   lb_vip_stats PERCPU_ARRAY[FP_LB_MAX_VIPS] struct fp_lb_stats
 *   lb_be_stats  PERCPU_ARRAY[FP_LB_MAX_BACKENDS] struct fp_lb_stats
 *   lb_counters  PERCPU_ARRAY[FP_LB_C_MAX] __u64, enum fp_lb_counter
 *   lb_tx_ports  DEVMAP_HASH ifindex -> ifindex: egress ports other than
 *                the ingress one (XDP_REDIRECT); the ingress one is XDP_TX
 * (Not pinned, BPF only: lb_hops, the next-hop cache of src/lb/lb_maps.h.)
 */
#ifndef FASTPATH_LB_ABI_H
#define FASTPATH_LB_ABI_H

#include <fastpath/abi.h>

#define FP_LB_ABI 4

#define FP_LB_MAX_VIPS          512
#define FP_LB_MAX_BACKENDS      16384  /* (VIP, backend) pairs on an interface */
#define FP_LB_MAX_VIP_BACKENDS  4096   /* backends of one VIP (FP_MAGLEV_MAX_BACKENDS) */
#define FP_LB_CONNS_DEFAULT     (1u << 20) /* flows lb_conns holds; `lb load --conns N` */
#define FP_LB_WAYS              4          /* flows a bucket of lb_conns holds */
#define FP_LB_NO_BACKEND        0xffffffffu /* a table slot with no backend */

#define FP_LB_VIP_SLOTS         2048  /* lb_vip_index's slots: 4 x FP_LB_MAX_VIPS, a power of two */
#define FP_LB_VIP_PROBES        8     /* slots a lookup reads at most from its home */
#define FP_LB_VIP_ENTRIES       (1 + FP_LB_VIP_SLOTS + FP_LB_VIP_PROBES - 1) /* no wrap */

/* fp_lb_meta.flags */
enum { FP_LB_META_SRC4 = 1,   /* src4 is set: v4 outer sources vary within it */
       FP_LB_META_SRC6 = 2 }; /* src6 is set */

/* fp_lb_meta: the lb stage on an interface (ROOT/IFACE/lb/lb_meta). */
struct fp_lb_meta {
	__u32 abi_version;     /* FP_LB_ABI of the loader (first, as in every meta) */
	__u32 flags;           /* FP_LB_META_* */
	__u64 loaded_ns;       /* CLOCK_REALTIME at load */
	__u32 conns;           /* flows lb_conns holds: FP_LB_WAYS x its buckets */
	__u32 serial;          /* configuration changes so far (verdict.serial) */
	/* Outer source addresses (Katran's trick: the source varies with the
	 * flow, so a backend's RSS spreads flows over its queues). IPv4:
	 * src4 with its low (32 - src4_len) bits from the flow hash; IPv6:
	 * src6 with its low (128 - src6_len, at most 32) bits from the hash.
	 * Network byte order. Unset: the ingress interface's address (the
	 * user half writes it at load). */
	__u32 src4;
	__u8  src4_len;        /* prefix length, 16..32 */
	__u8  src6_len;        /* prefix length, 96..128 */
	__u16 pad;
	__u8  src6[16];
};
FP_ABI_ASSERT(sizeof(struct fp_lb_meta) == 48);

/* fp_lb_vip_key.proto values are IPPROTO_TCP / IPPROTO_UDP. */
struct fp_lb_vip_key {
	__u8  addr[16];        /* IPv4 in addr[0..3], addr[4..15] zero (as fp_pkt) */
	__u16 port;            /* host byte order; 0 with FP_LB_VIP_PORT_ANY */
	__u8  proto;
	__u8  family;          /* 4 or 6 */
};
FP_ABI_ASSERT(sizeof(struct fp_lb_vip_key) == 20);

enum { FP_LB_VIP_HASH_SRC = 1,  /* hash the source address only (--hash src) */
       FP_LB_VIP_PORT_ANY = 2 }; /* every port of the address (key port 0) */

struct fp_lb_vip {
	__u32 index;           /* into lb_tables and lb_vip_stats */
	__u32 flags;           /* FP_LB_VIP_* */
	__u32 table_size;      /* the Maglev table's size, a prime (fixed at vip add) */
	__u32 serial;          /* backend-set changes of this VIP */
};
FP_ABI_ASSERT(sizeof(struct fp_lb_vip) == 16);

/*
 * A slot of lb_vip_index's inner array: a VIP's key and value (key.family
 * 0: empty, and a lookup stops there). Entry 0 is the header: only its
 * seed counts, the one fp_lb_vip_home of every slot was placed with (the
 * builder tries seeds until every VIP lies within FP_LB_VIP_PROBES of its
 * home). The program hashes the key itself (a few multiplies: no jhash,
 * the lookups are inlined array lookups).
 */
struct fp_lb_vip_slot {
	struct fp_lb_vip_key key;
	struct fp_lb_vip     vip;
	__u32 seed;            /* the header's; 0 in the slots */
};
FP_ABI_ASSERT(sizeof(struct fp_lb_vip_slot) == 40);

/* The address's part of a VIP key's hash (shared by the exact and the
 * port-any key of a packet): its 16 bytes as two words. */
static inline __u64 fp_lb_vip_hash_addr(__u64 a0, __u64 a1)
{
	return a0 * 0x9e3779b97f4a7c15ull + a1 * 0xc2b2ae3d27d4eb4full;
}

/* The home slot (0..FP_LB_VIP_SLOTS-1; entry 1 + home) of a key whose
 * address hashed to ha, with its port (host order), proto and family. */
static inline __u32 fp_lb_vip_home(__u64 ha, __u16 port, __u8 proto, __u8 family, __u32 seed)
{
	__u64 h = ha + ((__u64)((__u32)port | (__u32)proto << 16 | (__u32)family << 24) ^ seed) *
		       0x165667b19e3779f9ull;

	h ^= h >> 32;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 29;
	return (__u32)(h >> 32) & (FP_LB_VIP_SLOTS - 1);
}

/* fp_lb_backend.flags */
enum { FP_LB_BE_USED  = 1,  /* the entry is in use */
       FP_LB_BE_DOWN  = 2,  /* down: no new flows, and its established flows
			     * move to the table's next choice */
       FP_LB_BE_DRAIN = 4 }; /* draining: no new flows, established ones stay */

struct fp_lb_backend {
	__u8  addr[16];        /* IPv4 in addr[0..3] */
	__u8  family;          /* 4 or 6: the encapsulation (4: IPIP; 6: IPv6
				* outer, proto 41 or 4 for an IPv4 VIP) */
	__u8  flags;           /* FP_LB_BE_* */
	__u16 weight;
	__u32 vip_index;       /* the VIP it serves */
	__u32 gen;             /* bumped each time the entry is (re)used: a
				* connection recorded with another gen is stale */
	__u32 pad;
};
FP_ABI_ASSERT(sizeof(struct fp_lb_backend) == 32);

/* A flow as the lb sees it: the client's packet to the VIP (an ICMP error
 * about a VIP flow is turned back into this form, so it reaches the same
 * backend). With FP_LB_VIP_HASH_SRC only src and family are set. */
struct fp_lb_flow {
	__u8  src[16];
	__u8  dst[16];
	__u16 sport, dport;    /* host byte order */
	__u8  proto;
	__u8  family;          /* 4 or 6 */
	__u16 pad;
} __attribute__((aligned(8))); /* hashed as five words (fp_lb_conn_hash) */
FP_ABI_ASSERT(sizeof(struct fp_lb_flow) == 40);

/*
 * The connection table, lb_conns: an array of buckets shared by all CPUs,
 * set-associative. A flow's bucket and tag come from fp_lb_conn_hash (a
 * few multiplies, no call: the lookup is an inlined array lookup and at
 * most FP_LB_WAYS tag compares, no jhash, no bucket lock); a hit reads
 * the way's metadata line and its key. A new flow takes its own way if
 * its key is there (stale or a SYN), else the bucket's replacement
 * candidate: an empty way, else the oldest by insertion that no packet
 * hit since the pointer last passed it (second chance, CLOCK). Writers
 * take no lock: `check` binds a way's tag, hash, backend and gen, so a
 * way two CPUs wrote at once, or read half written, fails the gen
 * compare and is a miss (re-picked and re-recorded), never a wrong
 * backend. A hit writes nothing but `ref`, once after each pass.
 */
struct fp_lb_way {
	__u32 tag;             /* fp_lb_conn_tag of the flow; 0: empty */
	__u32 hash;            /* fp_lb_flow_hash of the flow: a hit need not hash it */
	__u32 check;           /* gen ^ fp_lb_way_mix(tag, hash, backend) */
	__u16 backend;         /* index into lb_backends (< FP_LB_MAX_BACKENDS) */
	__u8  ref;             /* hit since the replacement pointer last passed */
	__u8  pad;
};
FP_ABI_ASSERT(sizeof(struct fp_lb_way) == 16);

struct fp_lb_bucket {
	struct fp_lb_way  way[FP_LB_WAYS];  /* one cache line: all a miss reads */
	struct fp_lb_flow flow[FP_LB_WAYS]; /* each way's key */
	__u32 next;            /* the replacement pointer (mod FP_LB_WAYS) */
	__u32 pad[7];
};
FP_ABI_ASSERT(sizeof(struct fp_lb_bucket) == 256);

/* A way as the user half reads it (tests, tools): the decoded entry. */
struct fp_lb_conn {
	__u32 backend;         /* index into lb_backends */
	__u32 gen;             /* the backend entry's gen when recorded */
	__u32 hash;            /* fp_lb_flow_hash of the flow */
	__u32 pad;
};
FP_ABI_ASSERT(sizeof(struct fp_lb_conn) == 16);

/* The bucket index (low bits) and tag (high half) of a flow: five words
 * multiplied and summed, then mixed. Not seeded: colliding flows evict
 * each other in their bucket only, and an evicted flow whose backend set
 * did not change gets the same backend again from Maglev. */
static inline __u64 fp_lb_conn_hash(const struct fp_lb_flow *f)
{
	const __u64 *w = (const __u64 *)f;
	__u64 h = w[0] * 0x9e3779b97f4a7c15ull + w[1] * 0xc2b2ae3d27d4eb4full +
		  w[2] * 0x165667b19e3779f9ull + w[3] * 0x85ebca77c2b2ae63ull +
		  w[4] * 0x27d4eb2f165667c5ull;

	h ^= h >> 32;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 29;
	return h;
}

static inline __u32 fp_lb_conn_tag(__u64 h) { return (__u32)(h >> 32) | 1; }

/*
 * fp_lb_flow_hash - the flow hash that picks a Maglev slot and varies the
 * outer source: bits 24..55 of fp_lb_conn_hash, so that a new flow hashes
 * once. The same on every lb host for the same flow (no seed from the
 * host), so hosts behind ECMP agree. Shared by both halves (the user
 * half's `lb` tests and tools compute what a packet will get).
 */
static inline __u32 fp_lb_flow_hash_of(__u64 h) { return (__u32)(h >> 24); }

static inline __u32 fp_lb_flow_hash(const struct fp_lb_flow *f)
{
	return fp_lb_flow_hash_of(fp_lb_conn_hash(f));
}

/* Odd multipliers: a change in any one field changes the mix. */
static inline __u32 fp_lb_way_mix(__u32 tag, __u32 hash, __u32 backend)
{
	return tag * 0x9e3779b1u ^ hash * 0x85ebca6bu ^ backend * 0xc2b2ae35u;
}

/* Per VIP and per backend (per CPU; the user half sums). */
struct fp_lb_stats {
	__u64 packets;
	__u64 bytes;
	__u64 new_flows;       /* Maglev choices (connection-table misses that
				* found a backend) */
	__u64 conn_hits;
	__u64 conn_misses;
	__u64 pad[3];
};
FP_ABI_ASSERT(sizeof(struct fp_lb_stats) == 64); /* one cache line */

/* lb_counters: what happened to packets that were not forwarded, and how
 * forwarded ones left. Also fp_verdict.reason of the lb's decisions. */
enum fp_lb_counter {
	FP_LB_C_FORWARD_TX = 0,   /* encapsulated, XDP_TX */
	FP_LB_C_FORWARD_REDIRECT, /* encapsulated, XDP_REDIRECT to lb_tx_ports */
	FP_LB_C_NOT_VIP,          /* not addressed to a VIP: on down the chain */
	FP_LB_C_FRAGMENT,         /* a fragment to a VIP: dropped (no ports to hash) */
	FP_LB_C_MALFORMED,        /* to a VIP but cut short or unparsable: dropped */
	FP_LB_C_NO_BACKEND,       /* the VIP's table is empty: dropped */
	FP_LB_C_TOO_BIG,          /* answered with ICMP frag-needed / packet too big */
	FP_LB_C_ICMP_FLOW,        /* an ICMP error about a VIP flow, sent to its backend */
	FP_LB_C_TTL_EXPIRED,      /* TTL / hop limit would reach 0: answered (time exceeded) */
	FP_LB_C_FIB_FAIL,         /* no route to the backend: dropped */
	FP_LB_C_NO_NEIGH,         /* route but no neighbour entry yet: passed to
				   * the stack (which resolves it) */
	FP_LB_C_NO_PORT,          /* egress not in lb_tx_ports: dropped */
	FP_LB_C_ERROR,            /* a helper failed (adjust_head, map): dropped */
	FP_LB_C_MAX,
};

#endif
