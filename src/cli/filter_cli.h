/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef FP_CLI_FILTER_CLI_H
#define FP_CLI_FILTER_CLI_H

#include "cli/cli.h"
#include "filter/filter.h"
#include "rules/diff.h"

int filter_open(const struct cli *cli, const char *ifname, struct fp_filter **f);
int filter_do_list(struct cli *cli, int argc, char **argv);
int filter_do_stats(struct cli *cli, int argc, char **argv);
int filter_do_test(struct cli *cli, int argc, char **argv);
int filter_do_apply(struct cli *cli, int argc, char **argv);
int filter_do_save(struct cli *cli, int argc, char **argv);

/* One option of a load (-m/--mode, -t/--table-bits) into lo; CLI_USAGE
 * with the message printed when arg is bad. */
int filter_load_opt(const struct cli *cli, int c, const char *arg, struct fp_filter_load_opts *lo);
/* The fields of a change: changed, added, removed, modified, moved, default_changed. */
void filter_print_diff_counts(const struct fp_ruleset_diff *d);

/* Loads the filter on ifname and applies set (NULL: none), reports and
 * audits; a set that fails to apply leaves nothing loaded. */
int filter_load_set(struct cli *cli, const char *ifname, const struct fp_filter_load_opts *lo,
		    const struct fp_ruleset *set, const char *source);
/* Applies set under the interface's edit lock (an identical set changes
 * nothing), reports the change and audits it as `verb`. */
int filter_apply_set(struct cli *cli, const char *verb, const char *ifname,
		     struct fp_filter *f, const struct fp_ruleset *set, const char *source);

#endif
