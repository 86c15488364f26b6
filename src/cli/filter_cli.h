/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef FP_CLI_FILTER_CLI_H
#define FP_CLI_FILTER_CLI_H

#include "cli/cli.h"
#include "filter/filter.h"

int filter_open(const struct cli *cli, const char *ifname, struct fp_filter **f);
int filter_do_list(struct cli *cli, int argc, char **argv);
int filter_do_stats(struct cli *cli, int argc, char **argv);
int filter_do_test(struct cli *cli, int argc, char **argv);

#endif
