/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A bridge's configuration file (`fastpath bridge save` writes it, `bridge
 * apply` makes a bridge equal to it; fastpath-bridge(8), CONFIGURATION
 * FILE). One statement a line, in the words of the commands that make the
 * same state, '#' to the end of a line a comment:
 *
 *   bridge [--ageing S] [--vlan-aware] [--address MAC]
 *   port IFACE [--pvid N] [--vlans LIST] [--tagged|--untagged]
 *        [--flood-limit PPS] [--learn-limit N] [--mode native|skb]
 *   fdb MAC [vlan N] IFACE
 *
 * `bridge` at most once, first; a port's VLAN options only on a VLAN-aware
 * bridge; an fdb entry's IFACE a port above it. Learned entries are not
 * configuration. The whole file is checked before anything is applied. No
 * maps here: unit-tested and fuzzed.
 */
#ifndef FP_BRIDGE_CONF_H
#define FP_BRIDGE_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <fastpath/bridge_abi.h>

struct fp_bridge_conf_port {
	char ifname[16];
	/* as the bridge keeps it (fp_br_port): defaults filled in */
	__u16 pvid;            /* 1 unless given */
	bool tagged;
	__u64 vlans[64];       /* VLAN-aware: the given ones and the PVID; else none */
	__u32 flood_limit;     /* 0: none */
	__u32 learn_limit;     /* FP_BR_LEARN_LIMIT_DEFAULT unless given (0: none) */
	bool skb;              /* --mode skb */
	unsigned line;
};

struct fp_bridge_conf_fdb {
	__u8 mac[6];
	__u16 vlan;            /* 0: none given */
	char ifname[16];
	unsigned line;
};

struct fp_bridge_conf {
	__u32 ageing_s;        /* FP_BR_AGEING_DEFAULT_S unless given */
	bool vlan_aware;
	bool have_address;
	__u8 address[6];
	unsigned bridge_line;  /* 0: no bridge line */
	struct fp_bridge_conf_port *ports;
	size_t n_ports;
	struct fp_bridge_conf_fdb *fdbs;
	size_t n_fdbs;
};

/* Parses text (len bytes) into *c; on an error err gets "NAME:LINE:COL:
 * what", *c is left empty, and -EINVAL (or -ENOMEM) is returned. */
int fp_bridge_conf_parse(const char *text, size_t len, const char *name,
			 struct fp_bridge_conf *c, char *err, size_t errlen);
void fp_bridge_conf_free(struct fp_bridge_conf *c);
/* The port named ifname, or -1. */
int fp_bridge_conf_find_port(const struct fp_bridge_conf *c, const char *ifname);
/* Whether two ports are configured alike (all but the line). */
bool fp_bridge_conf_port_same(const struct fp_bridge_conf_port *a,
			      const struct fp_bridge_conf_port *b);

#endif
