// SPDX-License-Identifier: BSD-2-Clause
/*
 * fastpath rules { check | show } FILE: the rule model on a file, without
 * touching any interface. FILE "-" reads standard input.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/rulefile.h"
#include "filter/compile.h"
#include "rules/rule.h"
#include "rules/shadow.h"

static const char *display_name(const char *path)
{
	return strcmp(path, "-") ? path : "<stdin>";
}

/*
 * Reads and parses FILE. Returns CLI_OK with *set filled, CLI_FAIL when the
 * file cannot be read, or CLI_USAGE when it has errors (diags filled).
 */
static int load_file(struct cli *cli, const char *path, struct fp_ruleset *set,
		     struct fp_diags *diags)
{
	char *text = NULL;
	struct timespec t0;
	size_t len = 0;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	text = cli_slurp(path, &len);
	if (!text)
		return cli_fail(cli, "rules %s: cannot read '%s': %s", cli->cmd->name, path,
				cli_slurp_error(errno));
	err = fp_ruleset__parse(text, len, set, diags);
	free(text);
	out_dbg(1, "%s: %zu bytes read, %zu rules parsed in %.1f ms", display_name(path), len,
		set->n, cli_ms_since(&t0));
	if (err == -EINVAL || diags->n > 0)
		return CLI_USAGE;
	if (err)
		return cli_fail(cli, "rules %s: cannot parse '%s': %s", cli->cmd->name, path,
				strerror(-err));
	return CLI_OK;
}

static size_t stored(const struct fp_diags *d)
{
	return d->v ? (d->n < d->cap ? d->n : d->cap) : 0;
}

/* Every error as FILE:LINE:COL: message (stderr), or an "errors" list (JSON). */
static void report_errors(const char *name, const struct fp_diags *d)
{
	size_t i, k = stored(d);

	if (out_is_json()) {
		out_list_begin("errors");
		for (i = 0; i < k; i++) {
			out_row_begin();
			out_u64("line", d->v[i].line);
			out_u64("col", d->v[i].col);
			out_str("message", d->v[i].msg);
			out_row_end();
		}
		out_list_end();
		return;
	}
	cli_print_diags(name, d);
	fprintf(stderr, "fastpath: %s: %zu error%s\n", name, d->n, d->n > 1 ? "s" : "");
}

struct shadow_report {
	const char *name;
	const struct fp_ruleset *set;
	size_t n;
};

/* FILE:LINE:1: warning: ... on stderr, or a row of "warnings" (JSON). */
static void on_shadowed(void *ctx, size_t b, size_t a)
{
	struct shadow_report *w = ctx;
	const struct fp_rule *rb = &w->set->rules[b], *ra = &w->set->rules[a];
	char msg[256];

	snprintf(msg, sizeof(msg), "rule '%s' can never match: rule '%s' (line %u) before it "
		 "matches every packet it does", rb->id, ra->id, ra->line);
	w->n++;
	if (out_is_json()) {
		out_row_begin();
		out_u64("line", rb->line);
		out_u64("col", 1);
		out_str("message", msg);
		out_row_end();
	} else {
		fprintf(stderr, "%s:%u:1: warning: %s\n", w->name, rb->line, msg);
	}
}

/* Warnings about rules an earlier rule shadows; the CLI's exit stays 0. */
static void report_shadowed(const char *name, const struct fp_ruleset *set)
{
	struct shadow_report w = { name, set, 0 };
	size_t stopped;
	int ret;

	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (out_is_json())
		out_list_begin("warnings");
	ret = fp_ruleset__shadowed(set, on_shadowed, &w, &stopped);
	if (out_is_json())
		out_list_end();
	out_dbg(1, "%s: searched %zu rules for shadowed ones in %.1f ms: %zu found", name,
		ret == 1 ? stopped : set->n, cli_ms_since(&t0), w.n);
	if (ret == 1)
		out_warn("%s: the search for rules that can never match stopped at rule %zu (line %u): "
			 "too much work", name, stopped + 1, set->rules[stopped].line);
	else if (ret)
		out_warn("%s: the search for rules that can never match failed: %s", name,
			 strerror(-ret));
}

static int do_check(struct cli *cli, int argc, char **argv)
{
	struct fp_ruleset set = { 0 };
	struct fp_diags diags = { 0 };
	char cerr[512] = "";
	unsigned bits = 0;
	const char *name;
	int rc;

	rc = cli_nargs(cli, argc, argv, 1, 1);
	if (rc)
		return rc;
	name = display_name(argv[1]);
	rc = load_file(cli, argv[1], &set, &diags);
	if (rc == CLI_FAIL)
		goto out;
	/* a file that parses must also compile as `filter apply` compiles it */
	if (rc == CLI_OK) {
		struct timespec t0;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (fp_flt_image__check(&set, &bits, cerr, sizeof(cerr)))
			rc = CLI_USAGE;
		out_dbg(1, "%s: compiled as filter apply would in %.1f ms: %s", name,
			cli_ms_since(&t0), rc == CLI_OK ? "accepted" : "refused");
	}
	if (out_is_json()) {
		out_obj_begin();
		out_str("file", name);
		out_u64("rules", rc == CLI_OK ? set.n : 0);
		out_str("default", rc == CLI_OK ? fp_action__name(set.default_action) : NULL);
		if (rc == CLI_OK) {
			out_u64("table_bits", bits);
			report_shadowed(name, &set);
		}
		if (cerr[0])
			out_strf("error", "%s: %s", name, cerr);
		else if (rc != CLI_OK)
			out_strf("error", "%s: %zu error%s", name, diags.n, diags.n > 1 ? "s" : "");
		report_errors(name, &diags);
		out_obj_end();
	} else if (cerr[0]) {
		fprintf(stderr, "fastpath: %s: %s\n", name, cerr);
	} else if (rc == CLI_OK) {
		printf("%s: %zu rule%s, default %s\n", name, set.n, set.n == 1 ? "" : "s",
		       fp_action__name(set.default_action));
		if (bits > FP_FLAT_BITS_DEFAULT)
			fprintf(stderr, "%s: warning: the set needs tables of 2^%u slots: "
				"load with --table-bits %u\n", name, bits, bits);
		report_shadowed(name, &set);
	} else {
		report_errors(name, &diags);
	}
out:
	fp_ruleset__free(&set);
	fp_diags__free(&diags);
	return rc;
}

static int do_show(struct cli *cli, int argc, char **argv)
{
	struct fp_ruleset set = { 0 };
	struct fp_diags diags = { 0 };
	char text[1024];
	const char *name;
	size_t i;
	int rc;

	rc = cli_nargs(cli, argc, argv, 1, 1);
	if (rc)
		return rc;
	name = display_name(argv[1]);
	rc = load_file(cli, argv[1], &set, &diags);
	if (rc == CLI_USAGE) {
		if (out_is_json()) {
			out_obj_begin();
			out_str("file", name);
			out_strf("error", "%s: %zu error%s", name, diags.n, diags.n > 1 ? "s" : "");
			report_errors(name, &diags);
			out_obj_end();
		} else {
			report_errors(name, &diags);
		}
	}
	if (rc)
		goto out;

	out_obj_begin();
	out_str("file", name);
	out_str("default", fp_action__name(set.default_action));
	out_u64("count", set.n);
	out_list_begin("rules");
	for (i = 0; i < set.n; i++) {
		const struct fp_rule *r = &set.rules[i];

		fp_rule__format(r, text, sizeof(text));
		out_row_begin();
		out_u64("index", i + 1);
		out_str("id", r->id);
		out_str("action", fp_action__name(r->action));
		out_u64("line", r->line);
		out_str("text", text);
		out_row_end();
	}
	out_list_end();
	out_obj_end();
out:
	fp_ruleset__free(&set);
	fp_diags__free(&diags);
	return rc;
}

static const struct cli_verb rules_verbs[] = {
	{ "check", "FILE", "parse and compile FILE (- = stdin) as apply would: every error as "
	  "FILE:LINE:COL: message; warnings for rules an earlier rule shadows", do_check },
	{ "show",  "FILE", "list the rules of FILE in canonical form (index, id, action, text)",
	  do_show },
	{ NULL },
};

int cmd_rules(struct cli *cli, int argc, char **argv)
{
	return cli_dispatch(cli, rules_verbs, argc, argv);
}
