// SPDX-License-Identifier: BSD-2-Clause
/* The audit trail of filter changes: see audit.h. */
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "cli/audit.h"

#define IDS_SHOWN 8 /* ids named per kind of change; the rest are counted */

/* " added 3 (a, b, c)" for one kind of change; nothing when none. */
static void put_kind(char *buf, size_t size, const struct fp_ruleset_diff *d,
		     enum fp_diff_kind k, size_t count)
{
	size_t len = strlen(buf), shown = 0;

	if (!count)
		return;
	len += snprintf(buf + len, len < size ? size - len : 0, ", %s %zu (",
			fp_diff_kind__name(k), count);
	for (size_t i = 0; i < d->n && len < size; i++) {
		const struct fp_rule_change *c = &d->v[i];
		const struct fp_rule *r = c->new_rule ? c->new_rule : c->old_rule;

		if (c->kind != k)
			continue;
		if (shown == IDS_SHOWN) {
			len += snprintf(buf + len, size - len, ", +%zu more", count - shown);
			break;
		}
		len += snprintf(buf + len, size - len, "%s%s", shown ? ", " : "", r->id);
		shown++;
	}
	if (len < size)
		snprintf(buf + len, size - len, ")");
}

void cli_audit(const struct cli *cli, const struct cli_audit *a)
{
	char line[1536];
	size_t len;

	/* the object that changed: "filter add ...", "pipeline disable ..." */
	len = snprintf(line, sizeof(line), "%s %s %s%s%s by uid %u: ",
		       cli->object ? cli->object : "filter", a->verb, a->iface,
		       a->source ? " from " : "", a->source ? a->source : "", (unsigned)getuid());
	if (a->error) {
		snprintf(line + len, sizeof(line) - len, "failed, nothing changed: %s", a->error);
	} else {
		if (a->note)
			len += snprintf(line + len, sizeof(line) - len, "%s", a->note);
		else if (a->gen_before != a->gen_after)
			len += snprintf(line + len, sizeof(line) - len, "generation %llu -> %llu",
					(unsigned long long)a->gen_before,
					(unsigned long long)a->gen_after);
		else
			len += snprintf(line + len, sizeof(line) - len, "no change");
		if (a->diff) {
			const struct fp_ruleset_diff *d = a->diff;

			put_kind(line, sizeof(line), d, FP_DIFF_ADDED, d->added);
			put_kind(line, sizeof(line), d, FP_DIFF_REMOVED, d->removed);
			put_kind(line, sizeof(line), d, FP_DIFF_CHANGED, d->changed);
			put_kind(line, sizeof(line), d, FP_DIFF_MOVED, d->moved);
			if (d->default_changed)
				snprintf(line + strlen(line), sizeof(line) - strlen(line),
					 ", default changed");
		}
		len = strlen(line);
		snprintf(line + len, sizeof(line) - len, "; %.0f ms", a->ms);
	}
	openlog("fastpath", LOG_PID, LOG_AUTHPRIV);
	syslog((a->error ? LOG_WARNING : LOG_NOTICE), "%s", line);
	closelog();
	if (cli->verbose)
		fprintf(stderr, "fastpath: audit: %s\n", line);
}
