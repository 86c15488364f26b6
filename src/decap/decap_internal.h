/* SPDX-License-Identifier: BSD-2-Clause */
/* Between decap.c and decap_stage.c. */
#ifndef FP_DECAP_DECAP_INTERNAL_H
#define FP_DECAP_DECAP_INTERNAL_H

#include "decap/decap.h"

/*
 * Loads the stage's object onto pl, writes its meta (ifindex: 0 for a
 * test pipeline) and the n addresses (src: FP_DECAP_ADDR_* each), and
 * plugs it into the pipeline (pins, slot, enabled). A test pipeline keeps
 * the skeleton under "decap" (fp_pipeline__kept).
 */
int decap_load_object(struct fp_pipeline *pl, __u32 ifindex, const struct fp_decap_addr *addrs,
		      const __u32 *src, unsigned n, char *err, size_t errlen);

#endif
