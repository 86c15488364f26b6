/* SPDX-License-Identifier: BSD-2-Clause */
/* `fastpath bridge`: the verbs that change a bridge (bridge.c) and the read
 * views (bridge_show.c). */
#ifndef FP_CLI_BRIDGE_CLI_H
#define FP_CLI_BRIDGE_CLI_H

#include <stddef.h>
#include <linux/types.h>
#include "cli/cli.h"

/* A bridge name as `bridge create` takes it; a usage error otherwise. */
int bridge_name_arg(const struct cli *cli, const char *name);
/* A number in [min, max] for an option; a usage error otherwise. */
int bridge_num_arg(const struct cli *cli, const char *opt, const char *s, unsigned long min,
		   unsigned long max, unsigned long *v);
void bridge_mac_str(const __u8 *m, char *buf, size_t len);
int bridge_do_apply(struct cli *cli, int argc, char **argv);
int bridge_do_save(struct cli *cli, int argc, char **argv);
int bridge_do_show(struct cli *cli, int argc, char **argv);
int bridge_do_stats(struct cli *cli, int argc, char **argv);

#endif
