/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The audit trail: every change of a filter (load, apply, add, del, unload)
 * as one line to syslog (the journal reads it from /dev/log), facility
 * LOG_AUTHPRIV, with what changed, who (uid) and how long it took; a change
 * that failed is logged too, with why. With -v the same line goes to
 * stderr. A machine without a syslog socket loses the line silently (as
 * logger(1) would), never the change.
 */
#ifndef FP_CLI_AUDIT_H
#define FP_CLI_AUDIT_H

#include <stdint.h>

#include "cli/cli.h"
#include "rules/diff.h"

struct cli_audit {
	const char *verb;      /* "load", "apply", ... */
	const char *iface;
	const char *source;    /* the rule file, or NULL */
	const struct fp_ruleset_diff *diff; /* NULL: none to tell (unload, failure before) */
	uint64_t gen_before, gen_after;     /* generation serials; 0 when none */
	double ms;             /* wall time of the change */
	const char *note;      /* what was done, when no rule set changed (unload) */
	const char *error;     /* NULL: done; else what failed */
};

/* Logs one change. */
void cli_audit(const struct cli *cli, const struct cli_audit *a);

#endif
