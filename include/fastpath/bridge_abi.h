/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The bridge stage's maps (src/bridge), shared by its BPF and user halves.
 * A bridge's tables are shared by its member ports and pinned once under
 * ROOT/shared/bridge:NAME/ (made by `bridge create`); each member port
 * runs the pipeline with the bridge stage in slot 4, whose object reuses
 * those maps, and keeps its own counters and meta in ROOT/IFACE/bridge/.
 * Bump FP_BRIDGE_ABI when a layout here changes.
 */
#ifndef FASTPATH_BRIDGE_ABI_H
#define FASTPATH_BRIDGE_ABI_H

#include <fastpath/abi.h>

#define FP_BRIDGE_ABI 4

/* A bridge's own pins: ROOT/shared/bridge:NAME/, in the pin place of maps
 * several interfaces share (DESIGN.md); ':' is in no filter share's name,
 * so no share can collide with a bridge, and the share gc leaves it. */
#define FP_BRIDGE_SHARED_DIR "shared"
#define FP_BRIDGE_DIR_PREFIX "bridge:"
#define FP_BRIDGE_NAME_MAX 15

#define FP_BR_FDB_MAX    65536 /* fp_br_fdb entries (a plain hash: see fp_br_learn) */
#define FP_BR_PORTS_MAX  256   /* member ports of one bridge */
#define FP_BR_HOST_MAX   1024  /* host addresses (member MACs, bridge addresses) */
#define FP_BR_AGEING_DEFAULT_S 300
#define FP_BR_STORM_BURST_NS 100000000ull /* storm control lets a burst of
					   * 100 ms worth of the limit through */
/* a port's learned entries at most (bridge add --learn-limit; 0: none):
 * a sixteenth of the FDB, so that no port of a bridge of up to 16 ports
 * can take more than its share, and a port to a switch still learns
 * thousands of stations */
#define FP_BR_LEARN_LIMIT_DEFAULT (FP_BR_FDB_MAX / 16)
#define FP_BR_SWEEP_NS 1000000000ull /* the stage sweeps aged entries out of
				      * the FDB at most once a second */
#define FP_BR_REFRESH_NS 1000000000ull /* a learned entry's time is
					* rewritten at most once a second:
					* the line is not bounced between
					* CPUs on every frame */

/* fp_br_fdb key (and fp_br_host key, vlan 0): a MAC in a VLAN (0: the
 * bridge is not VLAN-aware). */
struct fp_br_key {
	__u8  mac[6];
	__u16 vlan;
};
FP_ABI_ASSERT(sizeof(struct fp_br_key) == 8);

/*
 * The FDB is a plain hash, not an LRU: an LRU evicts silently, any port's
 * entry, so a MAC flood from one port would push the others' stations out
 * and no per-port count could be kept right. Here nothing is ever evicted:
 * a port learns up to its learn_limit (counted in fp_br_learn, refused
 * past it as learn_limited), a full table refuses (learn_full), and learned
 * entries leave only by ageing (looked up as a destination, or in the
 * stage's sweep of the table, at most once a second when a port is at its
 * limit or the table is full), by a move, by `bridge fdb` (del, or an aged
 * entry it finds), or with their port; each of these takes the entry off
 * its port's count.
 */
enum { FP_BR_FDB_STATIC = 1 }; /* added by `bridge fdb add`: never ages or moves */
struct fp_br_fdb {
	__u32 ifindex;         /* the member port behind which the MAC is */
	__u32 flags;           /* FP_BR_FDB_* */
	__u64 seen_ns;         /* bpf_ktime_get_coarse_ns (CLOCK_MONOTONIC_COARSE:
				* CLOCK_MONOTONIC at the last tick, a load, not a
				* clock read) of the last frame from it, to
				* FP_BR_REFRESH_NS */
};
FP_ABI_ASSERT(sizeof(struct fp_br_fdb) == 16);

/* fp_br_cfg: the bridge (one entry, shared). */
enum { FP_BR_VLAN_AWARE = 1 };
struct fp_br_cfg {
	__u32 abi_version;     /* FP_BRIDGE_ABI (first, as in every meta) */
	__u32 flags;           /* FP_BR_* */
	__u64 ageing_ns;       /* learned entries older than this are unknown */
	__u64 created_ns;      /* CLOCK_REALTIME */
	char  name[16];
	__u64 host_bits;       /* fp_br_host_bit of every host address: a frame
				* whose bit is clear is not for the host, and
				* skips the fp_br_host lookup (bits are never
				* cleared: a stale one costs a lookup) */
};
FP_ABI_ASSERT(sizeof(struct fp_br_cfg) == 48);

static inline __u64 fp_br_host_bit(const __u8 *mac)
{
	return 1ull << ((mac[4] ^ mac[5]) & 63);
}

/*
 * fp_br_pinfo: a member port (key: its ifindex), shared. On a VLAN-aware
 * bridge a frame's VLAN is its 802.1Q tag's VID, or the ingress port's
 * PVID when it has none (the stage then pushes that tag before it sends
 * the frame on); a VLAN not in the ingress port's vlans is dropped, and on
 * the way out the port's egress program (fp_bridge_out, in the DEVMAP
 * entry) drops a frame of a VLAN not in its vlans and pops the tag unless
 * the port is FP_BR_PORT_TAGGED.
 */
enum { FP_BR_PORT_TAGGED = 1 };
#define FP_BR_VID_MAX 4095
struct fp_br_port {
	__u32 ifindex;
	__u16 pvid;            /* untagged frames' VLAN (VLAN-aware bridges) */
	__u16 flags;           /* FP_BR_PORT_* */
	__u8  mac[6];          /* the port's own address (a host address) */
	__u16 slot;            /* its count's index in fp_br_learn (1..FP_BR_PORTS_MAX) */
	__u32 flood_limit;     /* flooded frames a second (0: no limit) */
	__u32 learn_limit;     /* learned FDB entries at most (0: no limit) */
	__u64 added_ns;        /* CLOCK_REALTIME */
	char  ifname[16];
	__u64 vlans[64];       /* allowed VLANs: bit v of the 4096 */
};
FP_ABI_ASSERT(sizeof(struct fp_br_port) == 560);

static inline int fp_br_vlan_allowed(const struct fp_br_port *p, __u32 vid)
{
	vid &= FP_BR_VID_MAX;
	return (p->vlans[vid >> 6] >> (vid & 63)) & 1;
}

/*
 * fp_br_learn (shared, an mmapable array of FP_BR_PORTS_MAX + 1): index 0
 * is the bridge's (swept_ns: the stage's last sweep of the FDB), index
 * fp_br_port.slot a port's learned-entry count. The stage and the user
 * half both change counts atomically (the user half through an mmap).
 */
struct fp_br_learn {
	__u32 learned;         /* learned FDB entries behind the port */
	__u32 gen;             /* index 0: the FDB's generation, bumped (atomically)
	                        * by every removal or move of an entry, by the
	                        * stage and the CLI: each CPU's remembered
	                        * destination is good only while it stays */
	__u64 swept_ns;        /* index 0: bpf_ktime_get_ns of the last sweep */
};
FP_ABI_ASSERT(sizeof(struct fp_br_learn) == 16);

/* fp_br_meta: the stage on one port (ROOT/IFACE/bridge/fp_br_meta). */
struct fp_br_meta {
	__u32 abi_version;     /* FP_BRIDGE_ABI */
	__u32 ifindex;
	char  bridge[16];      /* the bridge it is a member of */
	__u64 added_ns;
};
FP_ABI_ASSERT(sizeof(struct fp_br_meta) == 32);

/*
 * fp_br_stats (per port, per CPU, one entry): frames in, and what became
 * of each; also the reason a decision offers a running dump. Numbers are
 * never reused.
 */
enum fp_br_stat {
	FP_BR_ST_IN = 0,         /* frames the stage saw */
	FP_BR_ST_FORWARD,        /* known unicast, redirected to its port */
	FP_BR_ST_FLOOD,          /* unknown unicast, broadcast, multicast: flooded */
	FP_BR_ST_HOST,           /* for the host (a member's MAC, a bridge
				  * address): passed on down the chain */
	FP_BR_ST_NOT_MEMBER,     /* known, but its port left the bridge: passed */
	FP_BR_ST_NOT_ETH,        /* shorter than an Ethernet header: passed */
	FP_BR_ST_DROP_HAIRPIN,   /* its destination is on the port it came in on */
	FP_BR_ST_DROP_BAD_SRC,   /* multicast or zero source MAC */
	FP_BR_ST_DROP_NO_BRIDGE, /* the bridge's config is missing */
	FP_BR_ST_LEARNED,        /* new FDB entries */
	FP_BR_ST_MOVED,          /* entries moved to another port */
	FP_BR_ST_AGED,           /* entries found too old as a destination, removed */
	FP_BR_ST_DROP_VLAN,      /* its VLAN is not allowed on the ingress port
				  * (or a tag of VID 0) */
	FP_BR_ST_DROP_VLAN_OUT,  /* this port, on the way out: its VLAN is not
				  * allowed here (counted on the egress port) */
	FP_BR_ST_DROP_STORM,     /* a flood past the port's --flood-limit */
	FP_BR_ST_LEARN_LIMITED,  /* a source not learned (or moved here): the
				  * port is at its --learn-limit */
	FP_BR_ST_LEARN_FULL,     /* a source not learned: the FDB is full */
	FP_BR_ST_MAX = 20,
};
struct fp_br_stats {
	__u64 n[FP_BR_ST_MAX];
};
FP_ABI_ASSERT(sizeof(struct fp_br_stats) == 160);

/* fp_br_storm: a port's storm control (GCRA: the theoretical arrival time
 * of its next flooded frame), its own. */
struct fp_br_storm {
	__u64 tat;
};

#endif /* FASTPATH_BRIDGE_ABI_H */
