/* SPDX-License-Identifier: BSD-2-Clause */
/* `fastpath lb`: the verbs (lb.c) and the read views (lb_show.c). */
#ifndef FP_CLI_LB_CLI_H
#define FP_CLI_LB_CLI_H

#include "cli/cli.h"

struct fp_lb;
/* Opens the lb of IFACE, or reports why not (CLI_FAIL). */
int lb_cli_open(const struct cli *cli, const char *ifname, struct fp_lb **lb);
/* The audit record of an lb verb ("lb VERB"). */
void lb_cli_audit(const struct cli *cli, const char *verb, const char *ifname, const char *note,
		  const char *error, double ms);
int lb_do_apply(struct cli *cli, int argc, char **argv);
int lb_do_save(struct cli *cli, int argc, char **argv);
int lb_do_list(struct cli *cli, int argc, char **argv);
int lb_do_stats(struct cli *cli, int argc, char **argv);
int lb_do_health(struct cli *cli, int argc, char **argv);
const char *lb_be_state(unsigned flags);

#endif
