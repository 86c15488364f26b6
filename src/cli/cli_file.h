/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the commands that save and apply state share (`filter save`, `lb
 * save|apply`, `bridge save|apply`): a file written whole or not at all
 * (beside PATH, synced, renamed over it, so a crash or a full disk leaves
 * the old file), and the tests' hook into an apply's undo.
 */
#ifndef FP_CLI_FILE_H
#define FP_CLI_FILE_H

#include <stddef.h>
#include <stdio.h>

struct cli;

/* FASTPATH_TEST_FAIL_EDIT=N: the Nth edit of an apply (`lb apply`,
 * `bridge apply`) fails before it is made, as if the maps refused it, so
 * that tests reach the undo (a real refusal needs a race or memory running
 * out). -EIO with err set for edit n when so, else 0. */
int cli_test_fail_edit(size_t n, char *err, size_t errlen);

/* Calls write(f, arg) on a new file beside path, then replaces path with
 * it (mode 0644). CLI_OK, or the failure printed (the old file stays). */
int cli_replace_file(const struct cli *cli, const char *path, int (*write)(FILE *f, void *arg),
		     void *arg);

/* What a save verb does with its FILE argument: "-" writes to stdout (a
 * usage error with -j: `what` is a file, not JSON), anything else is
 * replaced as cli_replace_file does. CLI_OK, or the failure printed. */
int cli_save(const struct cli *cli, const char *path, const char *what,
	     int (*write)(FILE *f, void *arg), void *arg);

#endif
