// SPDX-License-Identifier: BSD-2-Clause
/*
 * `fastpath status`: every interface with fastpath pins, its state (ok,
 * renamed, detached, iface missing, broken; orphan: fastpath's program
 * attached with no pins), XDP mode, the stages that run, the filter's rule
 * count, rule-set generation, load and last apply times, the share of an
 * interface loaded with --share, and its pipeline: attached or not, every
 * loaded stage of the stage table and whether it is enabled.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/bpf.h>

#include "cli/cli.h"
#include "status/status.h"

/* ISO 8601 in UTC ("2026-12-03T10:06:00Z") of ns since the epoch. */
static void iso8601(uint64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "?");
}

/* "dump,filter" of the stages that run (a tap stage, the dump, only while
 * a dump asks for its chain slot). */
static void stage_list(const struct fp_iface_status *st, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < st->n_stages && used < len; i++)
		if (st->stage[i].running)
			used += snprintf(buf + used, len - used, "%s%s", used ? "," : "",
					 st->stage[i].name);
}

/* Every loaded stage and whether it is enabled: in JSON one row each, in
 * text "dump,filter(off)" (a table cell cannot hold rows). */
static void emit_pipeline(const struct fp_iface_status *st)
{
	char buf[160];
	size_t used = 0;

	if (out_is_json()) {
		out_list_begin("pipeline");
		for (unsigned i = 0; i < st->n_stages; i++) {
			out_row_begin();
			out_str("stage", st->stage[i].name);
			out_u64("slot", st->stage[i].slot);
			out_bool("enabled", st->stage[i].enabled);
			out_row_end();
		}
		out_list_end();
		return;
	}
	buf[0] = 0;
	for (unsigned i = 0; i < st->n_stages && used < sizeof(buf); i++)
		used += snprintf(buf + used, sizeof(buf) - used, "%s%s%s", used ? "," : "",
				 st->stage[i].name, st->stage[i].enabled ? "" : "(off)");
	out_str("pipeline", buf[0] ? buf : NULL);
}

static void emit_iface(const struct fp_iface_status *st)
{
	char when[32], stages[128];

	out_row_begin();
	out_str("iface", st->name);
	out_str("state", fp_iface_state__name(st->state));
	if (st->state == FP_IFACE_BROKEN || st->state == FP_IFACE_ORPHAN) {
		if (st->state == FP_IFACE_ORPHAN)
			out_str("mode", fp_xdp_mode__name(st->meta.xdp_flags));
		else
			out_null("mode");
		out_null("stages");
		out_null("rules");
		out_null("generation");
		out_null("loaded");
		out_null("applied");
		out_null("renamed_to");
		out_null("share");
		/* an orphan is our program attached without pins */
		if (st->state == FP_IFACE_ORPHAN)
			out_bool("attached", true);
		else
			out_null("attached");
		out_null("pipeline");
		out_row_end();
		return;
	}
	out_str("mode", fp_xdp_mode__name(st->meta.xdp_flags));
	stage_list(st, stages, sizeof(stages));
	out_str("stages", stages[0] ? stages : NULL);
	/* the filter's summary; null without a filter (a pipeline of other
	 * stages is not a broken filter) */
	if (st->has_filter) {
		out_u64("rules", st->n_rules);
		out_u64("generation", st->flt.serial);
	} else {
		out_null("rules");
		out_null("generation");
	}
	iso8601(st->meta.loaded_ns, when, sizeof(when));
	out_str("loaded", when);
	if (st->has_filter && st->has_rules && st->flt.applied_ns) {
		iso8601(st->flt.applied_ns, when, sizeof(when));
		out_str("applied", when);
	} else {
		out_null("applied");
	}
	out_str("renamed_to", st->state == FP_IFACE_RENAMED ? st->renamed_to : NULL);
	/* share, then the pipeline's columns: scripts that read the columns
	 * before them keep working */
	out_str("share", st->share[0] ? st->share : NULL);
	out_bool("attached", st->attached);
	emit_pipeline(st);
	out_row_end();
}

static int do_status(struct cli *cli, int argc, char **argv)
{
	struct fp_iface_status st, *orphans = NULL;
	char **names;
	size_t n, n_orphans = 0;
	int ret;

	cli->cmd = NULL; /* usage errors say "fastpath status: ...", as gen does */
	ret = cli_nargs(cli, argc, argv, 0, 1);
	if (ret)
		return ret;
	if (argc == 2) { /* one interface */
		names = &argv[1];
		n = 1;
	} else {
		ret = fp_status__list(cli->bpffs, &names, &n);
		if (fp_errno_is_perm(ret)) {
			char err[256];

			fp_perm_msg(err, sizeof(err), "reading the pin root",
				    fp_bpffs_root(cli->bpffs));
			return cli_fail(cli, "%s", err);
		}
		if (ret)
			return cli_fail(cli, "cannot read the pin root %s: %s; check --bpffs",
					fp_bpffs_root(cli->bpffs), strerror(-ret));
		/* fastpath's programs attached with no pins: shown, with the remedy */
		if (fp_status__orphans(cli->bpffs, &orphans, &n_orphans))
			n_orphans = 0;
	}
	out_list_begin("interfaces");
	for (size_t i = 0; i < n; i++) {
		ret = fp_status__read(cli->bpffs, names[i], &st, NULL);
		if (ret)
			break;
		/* unreadable for want of rights: no half answer, the remedy */
		if (st.state == FP_IFACE_BROKEN && (argc == 2 || fp_errno_is_perm(st.error))) {
			out_reset();
			if (argc != 2)
				fp_status__free_list(names, n);
			free(orphans);
			return cli_fail(cli, "%s", st.err);
		}
		if (st.state == FP_IFACE_BROKEN)
			out_warn("%s", st.err);
		if (st.state == FP_IFACE_RENAMED)
			out_warn("%s was renamed to %s since the load; fastpath still runs there: "
				 "name it %s in fastpath's commands (its pins are keyed by it)",
				 st.name, st.renamed_to, st.name);
		emit_iface(&st);
	}
	for (size_t i = 0; !ret && i < n_orphans; i++) {
		out_warn("%s runs fastpath's program (id %u) with no pins under %s (a killed "
			 "load, pins removed by hand, or another --bpffs): `fastpath filter unload "
			 "%s --force` detaches it", orphans[i].name, orphans[i].prog_id,
			 fp_bpffs_root(cli->bpffs), orphans[i].name);
		emit_iface(&orphans[i]);
	}
	out_list_end();
	free(orphans);
	if (argc != 2)
		fp_status__free_list(names, n);
	if (ret)
		return cli_fail(cli, "reading the status failed: %s", strerror(-ret));
	if (n == 0 && n_orphans == 0 && !out_is_json())
		printf("fastpath is not loaded on any interface (no pins under %s)\n",
		       fp_bpffs_root(cli->bpffs));
	return CLI_OK;
}

int cmd_status(struct cli *cli, int argc, char **argv)
{
	static const struct cli_verb cmd = {
		"status", "[IFACE]",
		"interfaces with fastpath loaded: state, XDP mode, stages, rules, generation, "
		"load and apply times, share, attached, and each loaded stage of the pipeline "
		"(\"(off)\": disabled)", do_status,
	};

	return cli_run(cli, &cmd, argc, argv);
}
