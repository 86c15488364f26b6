/* SPDX-License-Identifier: BSD-2-Clause */
/* lb_vip_index, the VIPs as the BPF half looks them up (lb_vip_index.c). */
#ifndef FP_LB_VIP_INDEX_H
#define FP_LB_VIP_INDEX_H

#include <stddef.h>
#include <fastpath/lb_abi.h>

/* The inner array's FP_LB_VIP_ENTRIES entries e of the n VIPs keys[] /
 * vals[] (at most FP_LB_MAX_VIPS): 0, or -ENOSPC with a message. */
int fp_lb_vip_index_build(const struct fp_lb_vip_key *keys, const struct fp_lb_vip *vals,
			  __u32 n, struct fp_lb_vip_slot *e, char *err, size_t errlen);

/* Every entry of the lb_vips map vips_fd into a new inner array, switched
 * into slot 0 of the lb_vip_index map index_fd with one update. An error
 * (with a message) leaves the index the packets see as it was. */
int fp_lb_vip_index_publish(int vips_fd, int index_fd, char *err, size_t errlen);

#endif
