/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The lb's configuration file (`fastpath lb save` writes it, `lb apply`
 * makes an interface's lb equal to it; fastpath-lb(8), CONFIGURATION
 * FILE). One statement a line, the words of the commands that make the
 * same state, '#' to the end of a line a comment:
 *
 *   load [--conns N] [--src4 PREFIX/LEN] [--src6 PREFIX/LEN]
 *   vip VIP [--hash 5tuple|src] [--port-any] [--table-size P]
 *   backend VIP ADDR [--weight W] [--state up|drain|down]
 *
 * `load` at most once, before any vip; a backend's VIP declared by a vip
 * line above it. The whole file is checked before anything is applied,
 * limits included, so an apply that starts is one the maps accept. No
 * maps here: unit-tested and fuzzed.
 */
#ifndef FP_LB_CONF_H
#define FP_LB_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <fastpath/lb_abi.h>

enum fp_lb_conf_state { FP_LB_CONF_UP, FP_LB_CONF_DRAIN, FP_LB_CONF_DOWN };

struct fp_lb_conf_vip {
	struct fp_lb_vip_key key;
	__u32 flags;           /* FP_LB_VIP_* */
	__u32 table_size;
	unsigned line;
	__u32 n_backends;
	__u32 index;           /* the running VIP's lb_vips index (not the file's) */
};

struct fp_lb_conf_be {
	__u32 vip;             /* index into fp_lb_conf.vips */
	__u8 af;
	__u8 addr[16];
	__u32 weight;
	enum fp_lb_conf_state state;
	unsigned line;
	__u32 index;           /* the running entry's lb_backends index (not the file's) */
	bool health_down;      /* running: the health checker took it down (state says up) */
};

struct fp_lb_conf {
	bool has_load;         /* a load line was given */
	__u32 conns;           /* 0: not given */
	char src4[48], src6[64]; /* "": not given */
	struct fp_lb_conf_vip *vips;
	size_t n_vips;
	struct fp_lb_conf_be *bes;
	size_t n_bes;
};

/* Parses text (len bytes, need not end in NUL) into *c. On an error, err
 * gets "NAME:LINE:COL: what" and *c is left empty; -EINVAL (or -ENOMEM). */
int fp_lb_conf_parse(const char *text, size_t len, const char *name, struct fp_lb_conf *c,
		     char *err, size_t errlen);
void fp_lb_conf_free(struct fp_lb_conf *c);

const char *fp_lb_conf_state_name(enum fp_lb_conf_state s);
/* The VIP of the file's index i with a backend addr, or -1. */
int fp_lb_conf_find_vip(const struct fp_lb_conf *c, const struct fp_lb_vip_key *k);

#endif
