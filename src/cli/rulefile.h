/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef FP_CLI_RULEFILE_H
#define FP_CLI_RULEFILE_H

#include <time.h>

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

/* Rule files are refused past this size (2 KiB for each of FP_MAX_RULES). */
#define CLI_RULE_FILE_MAX (32u << 20)

/*
 * Reads a whole file ("-" = stdin) into a NUL-terminated buffer, or NULL
 * with errno: EFBIG over CLI_RULE_FILE_MAX (a regular file by its size,
 * before reading), EISDIR for a directory.
 */
char *cli_slurp(const char *path, size_t *len);
/* cli_ms_since, which the users of this header time with */
#include "cli/cli_num.h"

/* strerror(err), with EFBIG saying the limit. */
const char *cli_slurp_error(int err);

#endif
