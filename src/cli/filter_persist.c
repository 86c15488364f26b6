// SPDX-License-Identifier: BSD-2-Clause
/*
 * `filter apply` and `filter save`: what configuration management and a
 * reboot need. apply compares the file with the running set first: an
 * identical set changes nothing (no new generation: a config run that finds
 * everything in place says so); --dry-run prints that comparison and stops;
 * --load loads the filter when it is not loaded, so one command brings an
 * interface to its rule set from any state. save writes the running set
 * back as a rule file that applies to the same set (ids, order, comments,
 * default), replacing FILE atomically.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/audit.h"
#include "cli/cli.h"
#include "cli/cli_file.h"
#include "cli/filter_cli.h"
#include "cli/rulefile.h"
#include "rules/diff.h"

/* The changes as rows: kind, id, from, to, and the texts. */
static void print_diff(const struct fp_ruleset_diff *d, const struct fp_ruleset *new_set)
{
	filter_print_diff_counts(d);
	out_u64("unchanged", d->unchanged);
	out_str("default", fp_action__name(new_set->default_action));
	out_list_begin("changes");
	for (size_t i = 0; i < d->n; i++) {
		const struct fp_rule_change *c = &d->v[i];
		const struct fp_rule *r = c->new_rule ? c->new_rule : c->old_rule;
		char text[FP_RULE_TEXT];

		out_row_begin();
		out_str("change", fp_diff_kind__name(c->kind));
		out_str("id", r->id);
		if (c->from)
			out_u64("from", c->from);
		else
			out_null("from");
		if (c->to)
			out_u64("to", c->to);
		else
			out_null("to");
		fp_rule__format(r, text, sizeof(text));
		out_str("rule", text);
		if (c->kind == FP_DIFF_CHANGED) {
			fp_rule__format(c->old_rule, text, sizeof(text));
			out_str("was", text);
		} else {
			out_null("was");
		}
		out_row_end();
	}
	out_list_end();
}

/* apply --load --share NAME on an interface loaded already: only into
 * that share (the file would otherwise go to another rule set than the
 * one the command names). */
static int check_share(const struct cli *cli, const char *ifname, struct fp_filter *f,
		       const char *want)
{
	struct fp_filter_meta meta;

	if (fp_filter__meta(f, &meta) || !strcmp(meta.share, want))
		return CLI_OK;
	if (meta.share[0])
		return cli_fail(cli, "%s is loaded into the share %s, not %s: nothing applied; "
				"`fastpath filter unload %s` and load it again with --share %s",
				ifname, meta.share, want, ifname, want);
	return cli_fail(cli, "%s is loaded with a rule set of its own, not the share %s: "
			"nothing applied; `fastpath filter unload %s` and load it again with "
			"--share %s", ifname, want, ifname, want);
}

/* `apply IFACE FILE [--dry-run] [--load [--mode M] [--table-bits N] [--share NAME]]` */
int filter_do_apply(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "load", no_argument, NULL, 'l' },
		{ "mode", required_argument, NULL, 'm' },
		{ "table-bits", required_argument, NULL, 't' },
		{ "share", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct fp_filter_load_opts lo = { .bpffs = cli->bpffs };
	struct fp_ruleset set, live = { 0 };
	struct fp_ruleset_diff d = { 0 };
	struct fp_filter *f = NULL;
	bool dry = false, load = false, load_opts = false;
	char err[512];
	int c, ret;

	optind = 0; /* 0: GNU getopt re-initializes fully (main.c used it already) */
	while ((c = getopt_long(argc, argv, "nlm:t:s:", opts, NULL)) != -1) {
		switch (c) {
		case 'n': dry = true; break;
		case 'l': load = true; break;
		case 'm':
		case 't':
		case 's':
			if ((ret = filter_load_opt(cli, c, optarg, &lo)))
				return ret;
			load_opts = true;
			break;
		default:
			return cli_usage(cli, "unknown option; apply takes --dry-run, --load, "
					      "--mode, --table-bits and --share");
		}
	}
	if (argc - optind != 2)
		return cli_usage(cli, "expected IFACE FILE");
	if (load_opts && !load)
		return cli_usage(cli, "--mode, --table-bits and --share are load options: "
				      "add --load");
	ret = cli_read_ruleset(cli, argv[optind + 1], &set);
	if (ret)
		return ret;
	ret = fp_filter__open(argv[optind], cli->bpffs, &f, err, sizeof(err));
	if (ret == -ENOENT && load) {
		/* not loaded: load with the file's rules, as `filter load` would */
		if (dry) {
			struct fp_ruleset none = { 0 };

			ret = fp_ruleset__diff(&none, &set, &d);
			if (!ret) {
				out_obj_begin();
				out_str("iface", argv[optind]);
				out_bool("loaded", false);
				out_bool("would_load", true);
				print_diff(&d, &set);
				out_obj_end();
			}
			ret = ret ? cli_fail(cli, "out of memory") : CLI_OK;
			goto out;
		}
		ret = filter_load_set(cli, argv[optind], &lo, &set, argv[optind + 1]);
		goto out;
	}
	if (ret) {
		ret = cli_fail(cli, "%s%s", err, ret == -ENOENT ? " (or use apply --load)" : "");
		goto out;
	}
	if (lo.share && (ret = check_share(cli, argv[optind], f, lo.share)))
		goto out;
	if (!dry) {
		ret = filter_apply_set(cli, "apply", argv[optind], f, &set, argv[optind + 1]);
		goto out;
	}
	ret = fp_filter__ruleset(f, &live, err, sizeof(err));
	if (ret) {
		ret = cli_fail(cli, "%s", err);
		goto out;
	}
	if (fp_ruleset__diff(&live, &set, &d)) {
		ret = cli_fail(cli, "out of memory");
		goto out;
	}
	{
		struct fp_flt_state st;

		out_obj_begin();
		out_str("iface", argv[optind]);
		out_bool("loaded", true);
		if (!fp_filter__state(f, &st))
			out_u64("generation", st.serial);
		print_diff(&d, &set);
		out_obj_end();
		ret = CLI_OK;
	}
out:
	fp_ruleset_diff__free(&d);
	fp_ruleset__free(&live);
	fp_ruleset__free(&set);
	fp_filter__close(f);
	return ret;
}

/* What write_set writes. */
struct saved_set {
	const char *ifname;
	uint64_t gen;
	const struct fp_ruleset *set;
};

/* Writes the set as a rule file: a header, the default, the rules. */
static int write_set(FILE *out, void *arg)
{
	const struct saved_set *w = arg;
	char stamp[64], text[FP_RULE_TEXT];
	time_t now = time(NULL);
	struct tm tm;

	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	fprintf(out, "# fastpath rule set of %s, generation %llu, saved %s by `fastpath filter save`.\n"
		     "# `fastpath filter apply %s FILE` applies exactly this set again.\n",
		w->ifname, (unsigned long long)w->gen, stamp, w->ifname);
	fprintf(out, "default %s\n", fp_action__name(w->set->default_action));
	for (size_t i = 0; i < w->set->n; i++) {
		fp_rule__format(&w->set->rules[i], text, sizeof(text));
		fprintf(out, "%s\n", text);
	}
	return fflush(out) || ferror(out) ? -EIO : 0;
}

/* `save IFACE [FILE|-]`: FILE is replaced whole or not at all. */
int filter_do_save(struct cli *cli, int argc, char **argv)
{
	struct fp_ruleset set = { 0 };
	struct fp_flt_state st;
	struct fp_filter *f = NULL;
	struct saved_set w = { .ifname = argc > 1 ? argv[1] : NULL, .set = &set };
	const char *path = argc > 2 ? argv[2] : "-";
	char err[512];
	int ret = cli_nargs(cli, argc, argv, 1, 2);

	if (ret)
		return ret;
	ret = filter_open(cli, argv[1], &f);
	if (ret)
		return ret;
	ret = fp_filter__ruleset(f, &set, err, sizeof(err));
	if (ret) {
		ret = cli_fail(cli, "%s", err);
		goto out;
	}
	if (!fp_filter__state(f, &st))
		w.gen = st.serial;
	ret = cli_save(cli, path, "a rule file", write_set, &w);
	if (ret || !strcmp(path, "-"))
		goto out;
	out_obj_begin();
	out_str("iface", argv[1]);
	out_str("file", path);
	out_u64("rules", set.n);
	out_u64("generation", w.gen);
	out_str("default", fp_action__name(set.default_action));
	out_obj_end();
out:
	fp_ruleset__free(&set);
	fp_filter__close(f);
	return ret;
}
