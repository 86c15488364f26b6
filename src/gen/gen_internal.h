/* SPDX-License-Identifier: BSD-2-Clause */
/* Internal to src/gen/: what the loader needs to know about a template. */
#ifndef FP_GEN_INTERNAL_H
#define FP_GEN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>
#include <linux/types.h>

struct fp_gen_layout {
	int family;          /* 0 (not IP), 4 or 6 */
	uint32_t ip_off;     /* IP header */
	uint8_t proto;       /* upper-layer protocol (IPv4 only is parsed further) */
	uint32_t l4_off;     /* TCP/UDP header, 0 = none */
	uint32_t l4_csum_off;/* its checksum field, 0 = none */
	uint32_t label_off;  /* first byte of the first DNS label, 0 = none */
	uint32_t label_len;
};

/* Finds the IP, L4 and DNS parts of a frame (up to two VLAN tags). */
void gen_layout(const uint8_t *f, size_t len, struct fp_gen_layout *l);

/* The interface's count of refused XDP frames (gen_refused.c). */
struct gen_refused {
	int fd;
	char ifname[IF_NAMESIZE];
	__u32 n_stats, n_idx;
	__u32 *idx;                       /* the statistics that count refusals */
	struct ethtool_stats *stats;
};

/* 0, or -ENOENT when the driver counts no XDP transmit errors. */
int gen_refused_open(struct gen_refused *r, int ifindex);
int gen_refused_read(struct gen_refused *r, uint64_t *total);
void gen_refused_close(struct gen_refused *r);

#endif
