/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The lb stage's user half: load it onto an interface's pipeline (made
 * first when there is none, as the filter does), and edit its VIPs and
 * backends in the pinned maps (include/fastpath/lb_abi.h). Every change of
 * a VIP's backend set builds a new Maglev table in a new inner map and
 * switches it in with one update of lb_tables[vip.index]; an error leaves
 * the old state. Edits of one interface serialize on an flock of its
 * ROOT/IFACE/lb directory.
 *
 * Functions return 0 or a negative errno; those taking `err` leave a message
 * there naming what failed and what to do. -EINVAL / -ERANGE / -ENOENT /
 * -EEXIST / -ENOSPC are the caller's input (the CLI's exit 2 for bad syntax
 * is decided by the parsing helpers below; a VIP that does not exist is a
 * runtime failure).
 */
#ifndef FP_LB_LB_H
#define FP_LB_LB_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <fastpath/lb_abi.h>

struct fp_lb;
struct fp_unload_report;

/* Outer source ranges when `lb load` is given none: Katran's choice, a
 * private IPv4 range and the IPv6 discard prefix (RFC 6666); the flow hash
 * fills the host bits so a backend's RSS spreads the flows. */
#define FP_LB_SRC4_DEFAULT "172.16.0.0/16"
#define FP_LB_SRC6_DEFAULT "100::/96"
#define FP_LB_CONNS_MIN 1024u
#define FP_LB_CONNS_MAX (1u << 24)

/* ---- parsing (lb_config.c): no maps, unit-tested -------------------------- */

/* A VIP as written: "198.51.100.10:80/tcp", "[2001:db8::1]:443/udp", or
 * without a port ("198.51.100.10/tcp": port 0, the --port-any VIP). */
int fp_lb_parse_vip(const char *s, struct fp_lb_vip_key *k, char *err, size_t errlen);
/* A backend address (IPv4, IPv6, or [IPv6]); unspecified and multicast
 * addresses are refused. *af = 4 or 6, addr 16 bytes (v4 in addr[0..3]). */
int fp_lb_parse_addr(const char *s, __u8 addr[16], __u8 *af, char *err, size_t errlen);
/* An outer source range "PREFIX/LEN" of family af (4: LEN 16..32, 6: LEN
 * 96..128, as fp_lb_meta); host bits must be zero. */
int fp_lb_parse_prefix(const char *s, int af, __u8 addr[16], __u8 *len, char *err,
		       size_t errlen);
/* "5tuple" or "src" -> 0 or FP_LB_VIP_HASH_SRC; -EINVAL otherwise. */
int fp_lb_parse_hash(const char *s, __u32 *flag);
/* How a VIP of family 4 or 6 is written with its port, for messages
 * ("[ADDR]:PORT/PROTO (an IPv6 VIP's port goes after the brackets)"). */
const char *fp_lb_vip_form(int family);
/* The VIP as fp_lb_parse_vip reads it back; the address alone. */
void fp_lb_vip_str(const struct fp_lb_vip_key *k, char *buf, size_t len);
void fp_lb_addr_str(const void *addr, int af, char *buf, size_t len);
/* Name of an lb_counters cause ("forward_tx", ...); NULL past the end. */
const char *fp_lb_counter_name(unsigned c);

/* ---- load, open --------------------------------------------------------- */

struct fp_lb_load_opts {
	const char *bpffs;     /* NULL: $FASTPATH_BPFFS or the default */
	bool skb_mode;         /* a pipeline made by this load: generic XDP */
	__u32 conns;           /* flows lb_conns holds, rounded up to a power of two
				* (0: FP_LB_CONNS_DEFAULT) */
	const char *src4;      /* "PREFIX/LEN" (NULL: FP_LB_SRC4_DEFAULT) */
	const char *src6;      /* (NULL: FP_LB_SRC6_DEFAULT) */
};

int fp_lb__load(const char *ifname, const struct fp_lb_load_opts *o, char *err, size_t errlen);
/* Removes the stage (and the pipeline if a stage's load made it and no
 * chain stage is left). */
int fp_lb__unload(const char *ifname, const char *bpffs, struct fp_unload_report *r,
		  char *err, size_t errlen);
int fp_lb__open(const char *ifname, const char *bpffs, struct fp_lb **out, char *err,
		size_t errlen);
void fp_lb__close(struct fp_lb *lb);
int fp_lb__meta(const struct fp_lb *lb, struct fp_lb_meta *m);
/* Whether the host forwards IPv4 on ifname and IPv6 (1, 0, or -1 when it
 * cannot be read): without it the kernel's route lookup for XDP refuses
 * the lb's next hops (counted as fib_fail). */
int fp_lb_forwarding(const char *ifname, int *v4, int *v6);

/* ---- VIPs and backends (lb_edit.c) -------------------------------------- */

int fp_lb__vip_add(struct fp_lb *lb, const struct fp_lb_vip_key *k, __u32 flags,
		   __u32 table_size, struct fp_lb_vip *out, char *err, size_t errlen);
int fp_lb__vip_del(struct fp_lb *lb, const struct fp_lb_vip_key *k, char *err, size_t errlen);

enum fp_lb_be_op { FP_LB_OP_ADD, FP_LB_OP_DEL, FP_LB_OP_DRAIN, FP_LB_OP_DOWN, FP_LB_OP_UP };
const char *fp_lb_op_name(enum fp_lb_be_op op);

/* What a backend change did. */
struct fp_lb_be_result {
	bool changed;          /* false: it was in that state already (no new table) */
	__u32 index;           /* its lb_backends entry */
	__u32 gen;
	__u32 table_id;        /* the VIP's table now (its map id) */
	__u32 active;          /* the VIP's backends that take new flows */
	__u32 egress_ifindex;  /* add: the route's egress interface (0: unknown) */
	bool egress_added;     /* add: put into lb_tx_ports (XDP_REDIRECT) */
	bool warmed;           /* add: a datagram sent so the next hop's
				* neighbour entry is resolved before traffic */
	char note[160];        /* add: why egress or warming was not done */
};

/* weight: FP_LB_OP_ADD only, 1..FP_MAGLEV_MAX_WEIGHT (0: 1). An add of an
 * address of this host (its route is local) is -EADDRNOTAVAIL. */
int fp_lb__backend(struct fp_lb *lb, const struct fp_lb_vip_key *k, __u8 af,
		   const __u8 addr[16], enum fp_lb_be_op op, __u32 weight,
		   struct fp_lb_be_result *res, char *err, size_t errlen);

/* ---- reading (lb_read.c) ------------------------------------------------ */

struct fp_lb_vip_info {
	struct fp_lb_vip_key key;
	struct fp_lb_vip vip;
	__u32 table_id;        /* the inner map's id (0: none) */
	__u32 n_backends;
};
struct fp_lb_be_info {
	__u32 index;
	struct fp_lb_backend be;
	__u32 slots;           /* its entries in the VIP's table (with_slots) */
};

/* Every VIP, by index (*out malloc'ed, *n of them). */
int fp_lb__vips(struct fp_lb *lb, struct fp_lb_vip_info **out, int *n);
/* Every backend entry in use (of one VIP, or all: vip_index = ~0u), by
 * index; with_slots counts each one's table entries. */
int fp_lb__backends(struct fp_lb *lb, __u32 vip_index, bool with_slots,
		    struct fp_lb_be_info **out, int *n);
/* A VIP's table (the inner map now in lb_tables[index]): *out malloc'ed. */
int fp_lb__table(struct fp_lb *lb, __u32 vip_index, __u32 **out, __u32 *size, __u32 *id);
/* Summed over CPUs. */
int fp_lb__vip_stats(struct fp_lb *lb, __u32 index, struct fp_lb_stats *s);
int fp_lb__be_stats(struct fp_lb *lb, __u32 index, struct fp_lb_stats *s);
int fp_lb__counters(struct fp_lb *lb, __u64 c[FP_LB_C_MAX]);

#endif
