/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef FP_CLI_RULEFILE_H
#define FP_CLI_RULEFILE_H

#include "cli/cli.h"
#include "rules/rule.h"

/*
 * Reads and parses a rule file ("-" = stdin). On parse errors prints every
 * one as FILE:LINE:COL: message and returns CLI_USAGE; on I/O errors
 * CLI_FAIL; else CLI_OK with *set filled (nothing is returned half-parsed).
 */
int cli_read_ruleset(const struct cli *cli, const char *path, struct fp_ruleset *set);

/* Prints a parse's errors as NAME:LINE:COL: message on stderr, then how
 * many more were not kept; the caller adds its own last line. */
void cli_print_diags(const char *name, const struct fp_diags *d);

/* Reads a whole file ("-" = stdin) into a NUL-terminated buffer. */
char *cli_slurp(const char *path, size_t *len);

#endif
