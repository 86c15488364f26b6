/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A file written whole or not at all, for the commands that save state
 * (`filter save`, `lb save`): written beside PATH, synced, renamed over
 * it, so a crash or a full disk leaves the old file.
 */
#ifndef FP_CLI_FILE_H
#define FP_CLI_FILE_H

#include <stdio.h>

struct cli;

/* Calls write(f, arg) on a new file beside path, then replaces path with
 * it (mode 0644). CLI_OK, or the failure printed (the old file stays). */
int cli_replace_file(const struct cli *cli, const char *path, int (*write)(FILE *f, void *arg),
		     void *arg);

#endif
