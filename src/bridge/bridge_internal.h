/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef FP_BRIDGE_INTERNAL_H
#define FP_BRIDGE_INTERNAL_H

#include <limits.h>
#include "bridge/bridge.h"

/* The bridge's shared maps, in the order of fp_bridge.fd[]. */
enum { BR_FDB, BR_PORTS, BR_PINFO, BR_HOST, BR_CFG, BR_LEARN, BR_MAPS };
extern const char *const fp_br_map_names[BR_MAPS];

struct fp_bridge {
	char root[PATH_MAX];
	char dir[PATH_MAX];
	char name[FP_BRIDGE_NAME_MAX + 1];
	int fd[BR_MAPS];
	struct fp_br_learn *learn; /* fp_br_learn mmapped (NULL until needed) */
	size_t learn_len;
};

extern const struct fp_stage_ops fp_stage_bridge;

/* Opens the maps of ROOT/shared/bridge:NAME (under the caller's lock, if any). */
int fp_bridge__open_root(const char *root, const char *name, struct fp_bridge **out,
			 char *err, size_t errlen);
/* Takes ifindex out of the bridge's maps: the port, its info, its host
 * address, every FDB entry behind it. */
void fp_bridge__forget_port(const struct fp_bridge *b, __u32 ifindex);
/* The lowest slot in fp_br_learn no port has (0: none left). */
__u16 fp_bridge__free_slot(const struct fp_bridge *b);

#endif
