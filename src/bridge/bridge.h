/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fastpath bridge: a layer-2 switch in XDP between member ports, on a
 * learned MAC table (FDB) and XDP_REDIRECT through a DEVMAP.
 *
 * A bridge is a directory of shared pins, ROOT/shared/bridge:NAME/ (fp_br_fdb,
 * fp_br_ports, fp_br_pinfo, fp_br_host, fp_br_cfg), made by
 * fp_bridge__create and removed by fp_bridge__destroy. A member port runs
 * the pipeline with the bridge stage in slot 4 (src/bridge/bridge.bpf.c),
 * whose object reuses the bridge's maps; its own counters and meta are in
 * ROOT/IFACE/bridge/. Removing the stage from a port (bridge del, pipeline
 * unload) takes the port out of the bridge's maps (the stage's unloading
 * hook), so no path leaves a port half in.
 *
 * Functions return 0 or a negative errno; those taking err leave a message
 * there saying what failed and what to do. Nothing here prints.
 */
#ifndef FP_BRIDGE_BRIDGE_H
#define FP_BRIDGE_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <fastpath/bridge_abi.h>

struct fp_bridge;

struct fp_bridge_opts {
	const char *bpffs;     /* NULL: $FASTPATH_BPFFS or the default */
	__u32 ageing_s;        /* 0: FP_BR_AGEING_DEFAULT_S */
	bool vlan_aware;
	bool have_address;     /* address: a host address of the bridge's own */
	__u8 address[6];
};

/* Checks a bridge's name: 1..15 of [A-Za-z0-9_-]. */
int fp_bridge__check_name(const char *name, char *err, size_t errlen);
/* ROOT/shared/bridge:NAME */
int fp_bridge__dir(const char *root, const char *name, char *dir, size_t len);

/* Makes the bridge's maps and pins them; -EEXIST if it exists. */
int fp_bridge__create(const char *name, const struct fp_bridge_opts *o, char *err,
		      size_t errlen);
/* Takes every member out (their bridge stage removed, a pipeline the
 * bridge loaded unloaded) and removes the bridge's pins. *n_ports: how many
 * ports were taken out. */
int fp_bridge__destroy(const char *bpffs, const char *name, int *n_ports, char *err,
		       size_t errlen);

struct fp_bridge_port_opts {
	const char *bpffs;
	bool skb_mode;         /* generic XDP (a pipeline this load makes) */
	/* VLAN-aware bridges only: */
	__u16 pvid;            /* untagged frames' VLAN (0: 1) */
	bool tagged;           /* frames leave tagged (else untagged) */
	bool have_vlans;       /* vlans given (else the PVID alone) */
	__u64 vlans[64];       /* allowed VLANs (the PVID is added) */
	__u32 flood_limit;     /* flooded frames a second, 0: none */
	bool have_learn_limit; /* learn_limit given (else FP_BR_LEARN_LIMIT_DEFAULT) */
	__u32 learn_limit;     /* learned FDB entries at most, 0: no limit */
};
/* Makes ifname a member: loads the bridge stage on its pipeline (which
 * it loads if there is none) and enters the port in the bridge's maps.
 * -EEXIST when the interface is a member of this or another bridge. */
int fp_bridge__add_port(const char *name, const char *ifname,
			const struct fp_bridge_port_opts *o, char *err, size_t errlen);
/* Takes ifname out of the bridge; *pipeline_gone when the pipeline went
 * with it (loaded by the bridge's add, no other stage left). */
int fp_bridge__del_port(const char *bpffs, const char *name, const char *ifname,
			bool *pipeline_gone, char *err, size_t errlen);
/* The bridge an interface is a member of ("" and -ENOENT: none). */
int fp_bridge__of_port(const char *root, const char *ifname, char *bridge, size_t len);

/* Opens a bridge's pins (its ABI checked). */
int fp_bridge__open(const char *bpffs, const char *name, struct fp_bridge **out, char *err,
		    size_t errlen);
void fp_bridge__close(struct fp_bridge *b);
const char *fp_bridge__root(const struct fp_bridge *b);
int fp_bridge__config(const struct fp_bridge *b, struct fp_br_cfg *cfg);
/* Its member ports, by ifindex (up to max); how many there are. */
int fp_bridge__ports(const struct fp_bridge *b, struct fp_br_port *ports, int max);
/* A port's learned FDB entries now (its count, as the stage keeps it). */
int fp_bridge__learned(const struct fp_bridge *b, const struct fp_br_port *p);
/* A port's counters summed over the CPUs (from ROOT/IFACE/bridge). */
int fp_bridge__port_stats(const struct fp_bridge *b, const char *ifname,
			  struct fp_br_stats *sum);

struct fp_bridge_fdb_entry {
	struct fp_br_key key;
	struct fp_br_fdb val;
	__u64 age_ns;          /* since the last frame from it (learned) */
};
/* The live entries (up to max; returns how many there are); learned
 * entries older than the ageing time are removed, as the stage would. */
int fp_bridge__fdb(const struct fp_bridge *b, struct fp_bridge_fdb_entry *out, int max,
		   int *aged_out);
/* A static entry: mac (in vlan) behind ifname, a member. */
int fp_bridge__fdb_add(const struct fp_bridge *b, const __u8 mac[6], __u16 vlan,
		       const char *ifname, char *err, size_t errlen);
int fp_bridge__fdb_del(const struct fp_bridge *b, const __u8 mac[6], __u16 vlan, char *err,
		       size_t errlen);

/* The bridge's own host address (create --address) into mac: 1, or 0
 * when it has none. */
int fp_bridge__address(const struct fp_bridge *b, __u8 mac[6]);

/* The bridges under root (names into names[max]); how many there are. */
int fp_bridge__list(const char *root, char (*names)[16], int max);

/* Parses a VLAN list "10,20-30" (1..4094) into the bitmap; -EINVAL (err
 * names the bad item) if it is not one. */
int fp_vlan_list_parse(const char *s, __u64 vlans[64], char *err, size_t errlen);
/* Prints a bitmap of VLANs as a list ("1,10-12"). */
void fp_vlan_list_format(const __u64 vlans[64], char *buf, size_t len);

/* A port counter's name as `bridge stats` prints it ("in", "drop_storm",
 * ...); NULL for an index with no counter (FP_BR_ST_MAX has spares). */
const char *fp_br_stat_name(unsigned s);

/* Parses "aa:bb:cc:dd:ee:ff"; -EINVAL if it is not one. */
int fp_mac_parse(const char *s, __u8 mac[6]);

#endif
