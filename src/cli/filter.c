// SPDX-License-Identifier: BSD-2-Clause
/*
 * `fastpath filter`: load/unload the pipeline on an interface, change its
 * rule set (apply, add, del), read it (list, stats), try it on a capture
 * (test). Every change goes through one atomic apply of a whole set.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "cli/audit.h"
#include "cli/cli.h"
#include "cli/filter_cli.h"
#include "cli/rulefile.h"
#include "filter/filter.h"
#include "status/status.h"

int filter_open(const struct cli *cli, const char *ifname, struct fp_filter **f)
{
	char err[512];
	int ret = fp_filter__open(ifname, cli->bpffs, f, err, sizeof(err));

	if (ret)
		return cli_fail(cli, "%s", err);
	return CLI_OK;
}

static double elapsed_ms(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1e3 + (b.tv_nsec - a->tv_nsec) / 1e6;
}

int filter_load_opt(const struct cli *cli, int c, const char *arg, struct fp_filter_load_opts *lo)
{
	char *end;
	unsigned long v;

	switch (c) {
	case 'm':
		if (!strcmp(arg, "skb") || !strcmp(arg, "generic"))
			lo->skb_mode = true;
		else if (!strcmp(arg, "native") || !strcmp(arg, "drv"))
			lo->skb_mode = false;
		else
			return cli_usage(cli, "--mode takes native or skb, not '%s'", arg);
		return CLI_OK;
	case 't':
		v = strtoul(arg, &end, 10);
		if (*end || end == arg || v < FP_FLAT_MIN_BITS || v > FP_FLAT_MAX_BITS)
			return cli_usage(cli, "--table-bits '%s': give %d..%d (default %d)", arg,
					 FP_FLAT_MIN_BITS, FP_FLAT_MAX_BITS, FP_FLAT_BITS_DEFAULT);
		lo->table_bits = (unsigned)v;
		return CLI_OK;
	case 's': {
		char err[256];

		if (fp_share__check_name(arg, err, sizeof(err)))
			return cli_usage(cli, "%s", err);
		lo->share = arg;
		return CLI_OK;
	}
	}
	return cli_usage(cli, "unknown option");
}

void filter_print_diff_counts(const struct fp_ruleset_diff *d)
{
	out_bool("changed", !fp_ruleset_diff__empty(d));
	out_u64("added", d->added);
	out_u64("removed", d->removed);
	out_u64("modified", d->changed);
	out_u64("moved", d->moved);
	out_bool("default_changed", d->default_changed);
}

/* load_ms < 0: not a load (apply, add, del); t0 NULL: a load without rules.
 * A load's own time (the verifier's, mostly) is not the apply's: reported
 * apart. d: what the apply changed (NULL: a load). */
static int report_applied(const struct cli *cli, struct fp_filter *f, const char *ifname,
			  size_t n, const struct timespec *t0, double load_ms,
			  const struct fp_ruleset_diff *d)
{
	struct fp_filter_view v;
	double ms = t0 ? elapsed_ms(t0) : 0;

	if (fp_filter__view(f, &v))
		memset(&v, 0, sizeof(v));
	out_obj_begin();
	out_str("iface", ifname);
	/* a load that joins a share without a file: the share's rules */
	out_u64("rules", !t0 && load_ms >= 0 ? v.n_rules : n);
	out_u64("generation", v.state.serial);
	if (load_ms >= 0) {
		char share[sizeof(v.meta.share)];

		snprintf(share, sizeof(share), "%.*s", (int)sizeof(share) - 1, v.meta.share);
		out_str("share", share[0] ? share : NULL);
	}
	if (load_ms >= 0)
		out_double("load_ms", load_ms);
	if (t0)
		out_double("apply_ms", ms);
	if (d)
		filter_print_diff_counts(d);
	out_obj_end();
	fp_filter_view__free(&v);
	return CLI_OK;
}

static uint64_t serial_of(struct fp_filter *f)
{
	struct fp_flt_state st;

	return fp_filter__state(f, &st) ? 0 : st.serial;
}

int filter_load_set(struct cli *cli, const char *ifname, const struct fp_filter_load_opts *lo,
		    const struct fp_ruleset *set, const char *source)
{
	struct fp_ruleset none = { 0 };
	struct fp_ruleset_diff d = { 0 };
	struct fp_filter *f = NULL;
	struct timespec t0, t_all;
	double load_ms;
	char err[512];
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	t_all = t0;
	if (set && fp_ruleset__diff(&none, set, &d))
		return cli_fail(cli, "out of memory");
	ret = fp_filter__load(ifname, lo, &f, err, sizeof(err));
	if (ret) {
		cli_audit(cli, &(struct cli_audit){ .verb = "load", .iface = ifname,
						    .source = source, .error = err });
		fp_ruleset_diff__free(&d);
		return cli_fail(cli, "%s", err);
	}
	load_ms = elapsed_ms(&t0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (set) {
		/* a share's rules are every member's: under the share's lock; a
		 * member that joins with the share's set changes nothing */
		int lock = lo->share ? cli_lock_iface(cli, ifname) : -1;
		bool same = false;

		if (lo->share && serial_of(f)) {
			struct fp_ruleset live = { 0 };
			struct fp_ruleset_diff ld = { 0 };

			if (!fp_filter__ruleset(f, &live, err, sizeof(err)) &&
			    !fp_ruleset__diff(&live, set, &ld)) {
				same = fp_ruleset_diff__empty(&ld);
				fp_ruleset_diff__free(&d);
				d = ld; /* the audit says what changed for the share */
			}
			fp_ruleset__free(&live);
		}
		ret = same ? 0 : fp_filter__apply(f, set, err, sizeof(err));
		if (lock >= 0)
			close(lock);
		if (ret) {
			char e2[512];

			fp_filter__close(f);
			fp_filter__unload(ifname, cli->bpffs, false, NULL, e2, sizeof(e2));
			cli_audit(cli, &(struct cli_audit){ .verb = "load", .iface = ifname,
							    .source = source, .error = err });
			fp_ruleset_diff__free(&d);
			return cli_fail(cli, "%s; nothing was loaded", err);
		}
	}
	cli_audit(cli, &(struct cli_audit){ .verb = "load", .iface = ifname, .source = source,
					    .diff = set ? &d : NULL, .gen_after = serial_of(f),
					    .ms = elapsed_ms(&t_all) });
	ret = report_applied(cli, f, ifname, set ? set->n : 0, set ? &t0 : NULL, load_ms, NULL);
	fp_filter__close(f);
	fp_ruleset_diff__free(&d);
	return ret;
}

static int do_load(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "table-bits", required_argument, NULL, 't' },
		{ "share", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct fp_filter_load_opts lo = { .bpffs = cli->bpffs };
	struct fp_ruleset set = { 0 };
	int c, ret;

	optind = 0; /* 0: GNU getopt re-initializes fully (main.c used it already) */
	while ((c = getopt_long(argc, argv, "m:t:s:", opts, NULL)) != -1) {
		if ((ret = filter_load_opt(cli, c, optarg, &lo)))
			return ret;
	}
	if (argc - optind < 1 || argc - optind > 2)
		return cli_usage(cli, "expected IFACE [FILE]");
	/* parse first: a bad file loads nothing */
	if (argc - optind == 2) {
		ret = cli_read_ruleset(cli, argv[optind + 1], &set);
		if (ret)
			return ret;
	}
	ret = filter_load_set(cli, argv[optind], &lo, argc - optind == 2 ? &set : NULL,
			      argc - optind == 2 ? argv[optind + 1] : NULL);
	fp_ruleset__free(&set);
	return ret;
}


/* The audit line of an unload: what was detached from where, or why not. */
static void audit_unload(const struct cli *cli, const char *ifname, int ret,
			 const struct fp_unload_report *r, bool force, const char *err, double ms)
{
	char note[256];

	if (ret >= 0 && r->stage_only)
		snprintf(note, sizeof(note), "removed the filter stage, %u pins; the pipeline stays",
			 r->n_pins);
	else if (ret >= 0 && r->detached)
		snprintf(note, sizeof(note), "%sdetached program %u from %s (ifindex %u), %u pins removed",
			 force ? "forced: " : "", r->prog_id, r->ifname[0] ? r->ifname : "?",
			 r->ifindex, r->n_pins);
	else
		snprintf(note, sizeof(note), "%snothing detached, %u pins removed%s%s",
			 force ? "forced: " : "", ret >= 0 ? r->n_pins : 0, ret > 0 ? ": " : "",
			 ret > 0 ? err : "");
	cli_audit(cli, &(struct cli_audit){ .verb = "unload", .iface = ifname, .ms = ms,
					    .note = note, .error = ret < 0 ? err : NULL });
}

static int do_unload(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' }, { NULL, 0, NULL, 0 },
	};
	struct fp_unload_report r;
	struct timespec t0;
	bool force = false;
	char err[512], warn[600];
	int c, ret;

	optind = 0; /* 0: GNU getopt re-initializes fully (main.c used it already) */
	while ((c = getopt_long(argc, argv, "f", opts, NULL)) != -1) {
		if (c != 'f')
			return cli_usage(cli, "unknown option");
		force = true;
	}
	if (argc - optind != 1)
		return cli_usage(cli, "expected IFACE");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = fp_filter__unload(argv[optind], cli->bpffs, force, &r, err, sizeof(err));
	audit_unload(cli, argv[optind], ret, &r, force, err, elapsed_ms(&t0));
	if (ret < 0)
		return cli_fail(cli, "%s", err);
	/* the warnings: on stderr, or in -j inside the one document */
	warn[0] = 0;
	if (ret > 0)
		snprintf(warn, sizeof(warn), "%s", err);
	else if (!r.detached && !r.stage_only)
		snprintf(warn, sizeof(warn), "fastpath's program was not attached (detached by "
			 "hand, or the interface is gone): only its pins were removed");
	if (r.detached && strcmp(r.ifname, argv[optind]))
		snprintf(warn, sizeof(warn), "%s was renamed to %s since the load: fastpath's "
			 "program is detached from %s", argv[optind],
			 r.ifname[0] ? r.ifname : "?", r.ifname[0] ? r.ifname : "it");
	if (warn[0] && !out_is_json())
		out_warn("%s", warn);
	cli_report_unload(argv[optind], &r, force, warn[0] ? warn : NULL);
	return CLI_OK;
}

/* Refuses a change nothing would enforce: the pinned entry program is not
 * the one attached where it was loaded (detached by hand, replaced, or the
 * interface deleted or re-created). */
static int check_attached(const struct cli *cli, const char *ifname, struct fp_filter *f)
{
	struct fp_filter_attach a;
	char why[128];

	if (fp_filter__attachment(f, &a))
		return cli_fail(cli, "cannot read what is loaded on %s; nothing applied", ifname);
	if (a.attached)
		return CLI_OK;
	if (!a.ifname[0])
		snprintf(why, sizeof(why), "no interface has the ifindex %u of the load any more",
			 a.ifindex);
	else if (a.attached_id)
		snprintf(why, sizeof(why), "%s runs another program (id %u) in %s mode", a.ifname,
			 a.attached_id, fp_xdp_mode__name(a.xdp_flags));
	else
		snprintf(why, sizeof(why), "%s has no XDP program in %s mode", a.ifname,
			 fp_xdp_mode__name(a.xdp_flags));
	return cli_fail(cli, "fastpath's program (id %u) is not attached: %s; the rules would "
			"not be enforced, so nothing was applied; `fastpath filter unload %s` "
			"and load again", a.prog_id, why, ifname);
}

/*
 * Applies set to the loaded interface; the caller holds the interface's edit
 * lock. An identical set changes nothing (no new generation). live: the
 * running set as read under the lock. t0: when the change began. Audited.
 */
static int apply_locked(struct cli *cli, const char *verb, const char *ifname,
			struct fp_filter *f, const struct fp_ruleset *live,
			const struct fp_ruleset *set, const char *source,
			const struct timespec *t0)
{
	struct fp_ruleset_diff d = { 0 };
	struct cli_audit a = { .verb = verb, .iface = ifname, .source = source };
	char err[512];
	int ret = check_attached(cli, ifname, f);

	if (ret)
		return ret;
	if (fp_ruleset__diff(live, set, &d))
		return cli_fail(cli, "out of memory");
	a.diff = &d;
	a.gen_before = a.gen_after = serial_of(f);
	if (fp_ruleset_diff__empty(&d)) {
		/* already in place: a configuration run finds nothing to do */
		a.ms = elapsed_ms(t0);
		cli_audit(cli, &a);
		ret = report_applied(cli, f, ifname, set->n, NULL, -1, &d);
		goto out;
	}
	ret = fp_filter__apply(f, set, err, sizeof(err));
	a.ms = elapsed_ms(t0);
	if (ret) {
		a.error = err;
		cli_audit(cli, &a);
		ret = cli_fail(cli, "%s; the running rule set is unchanged", err);
		goto out;
	}
	a.gen_after = serial_of(f);
	cli_audit(cli, &a);
	ret = report_applied(cli, f, ifname, set->n, t0, -1, &d);
out:
	fp_ruleset_diff__free(&d);
	return ret;
}

int filter_apply_set(struct cli *cli, const char *verb, const char *ifname,
		     struct fp_filter *f, const struct fp_ruleset *set, const char *source)
{
	struct fp_ruleset live = { 0 };
	struct timespec t0;
	char err[512];
	int ret, lock = cli_lock_iface(cli, ifname);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = fp_filter__ruleset(f, &live, err, sizeof(err));
	if (ret)
		ret = cli_fail(cli, "%s", err);
	else
		ret = apply_locked(cli, verb, ifname, f, &live, set, source, &t0);
	if (lock >= 0)
		close(lock);
	fp_ruleset__free(&live);
	return ret;
}

static bool id_taken(const struct fp_ruleset *set, const char *id)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->rules[i].id, id))
			return true;
	return false;
}

/* `add IFACE [--at N] RULE...`: the words of RULE may come as one or many. */
static int do_add(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "at", required_argument, NULL, 'a' }, { NULL, 0, NULL, 0 },
	};
	struct fp_ruleset set;
	struct fp_rule rule, *nr;
	struct fp_diags d = { 0 };
	struct fp_filter *f;
	struct timespec t0;
	char text[4096] = "";
	long at = 0;
	int c, ret, lock;

	optind = 0; /* 0: GNU getopt re-initializes fully (main.c used it already) */
	while ((c = getopt_long(argc, argv, "a:", opts, NULL)) != -1) {
		char *end;

		if (c != 'a')
			return cli_usage(cli, "unknown option");
		at = strtol(optarg, &end, 10);
		if (*end || at < 1)
			return cli_usage(cli, "--at takes a rule position from 1, not '%s'", optarg);
	}
	if (argc - optind < 2)
		return cli_usage(cli, "expected IFACE RULE");
	for (int i = optind + 1; i < argc; i++) {
		if (strlen(text) + strlen(argv[i]) + 2 >= sizeof(text))
			return cli_usage(cli, "the rule is too long");
		if (i > optind + 1)
			strcat(text, " ");
		strcat(text, argv[i]);
	}
	ret = filter_open(cli, argv[optind], &f);
	if (ret)
		return ret;
	lock = cli_lock_iface(cli, argv[optind]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	{
		char err[512];

		ret = fp_filter__ruleset(f, &set, err, sizeof(err));
		if (ret) {
			ret = cli_fail(cli, "%s", err);
			goto out;
		}
	}
	if ((size_t)at > set.n + 1) {
		/* a position past the end is a typo more often than a wish
		 * for the end: nothing is added */
		ret = cli_usage(cli, "--at %ld: %s has %zu rule%s; give a position from 1 to %zu",
				at, argv[optind], set.n, set.n == 1 ? "" : "s", set.n + 1);
		goto out_set;
	}
	if (at == 0)
		at = set.n + 1;
	ret = fp_rule__parse(text, at, &rule, &d);
	if (ret) {
		fprintf(stderr, "rule:1:%u: %s\n", d.n ? d.v[0].col : 1, d.n ? d.v[0].msg : "?");
		ret = out_is_json() ? (out_err("rule: %s", d.n ? d.v[0].msg : "?"), CLI_USAGE)
				    : CLI_USAGE;
		goto out_set;
	}
	if (id_taken(&set, rule.id)) {
		if (strstr(text, " id ") || !strncmp(text, "id ", 3)) {
			ret = cli_usage(cli, "a rule with id '%s' is already loaded on %s",
					rule.id, argv[optind]);
			goto out_set;
		}
		/* the default id (a position) is taken: take the next free number */
		for (unsigned n = set.n + 1;; n++) {
			snprintf(rule.id, sizeof(rule.id), "%u", n);
			if (!id_taken(&set, rule.id))
				break;
		}
	}
	/* the new set beside the live one (the audit and the counters compare) */
	nr = malloc((set.n + 1) * sizeof(*nr));
	if (!nr) {
		ret = cli_fail(cli, "out of memory");
		goto out_set;
	}
	memcpy(nr, set.rules, (at - 1) * sizeof(*nr));
	nr[at - 1] = rule;
	memcpy(&nr[at], &set.rules[at - 1], (set.n - (at - 1)) * sizeof(*nr));
	ret = apply_locked(cli, "add", argv[optind], f, &set,
			   &(struct fp_ruleset){ set.default_action, set.n + 1, nr }, NULL, &t0);
	free(nr);
out_set:
	fp_diags__free(&d);
	fp_ruleset__free(&set);
out:
	if (lock >= 0)
		close(lock);
	fp_filter__close(f);
	return ret;
}

static int do_del(struct cli *cli, int argc, char **argv)
{
	struct fp_ruleset set;
	struct fp_filter *f;
	struct timespec t0;
	char err[512];
	size_t i;
	int ret = cli_nargs(cli, argc, argv, 2, 2), lock;

	if (ret)
		return ret;
	ret = filter_open(cli, argv[1], &f);
	if (ret)
		return ret;
	lock = cli_lock_iface(cli, argv[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = fp_filter__ruleset(f, &set, err, sizeof(err));
	if (ret) {
		ret = cli_fail(cli, "%s", err);
		goto out;
	}
	for (i = 0; i < set.n && strcmp(set.rules[i].id, argv[2]); i++)
		;
	if (i == set.n) {
		ret = cli_fail(cli, "no rule with id '%s' on %s; `fastpath filter list %s` shows them",
			       argv[2], argv[1], argv[1]);
	} else {
		struct fp_rule *nr = malloc((set.n + 1) * sizeof(*nr));

		if (!nr) {
			ret = cli_fail(cli, "out of memory");
			goto out_set;
		}
		memcpy(nr, set.rules, i * sizeof(*nr));
		memcpy(&nr[i], &set.rules[i + 1], (set.n - i - 1) * sizeof(*nr));
		ret = apply_locked(cli, "del", argv[1], f, &set,
				   &(struct fp_ruleset){ set.default_action, set.n - 1, nr }, NULL,
				   &t0);
		free(nr);
	}
out_set:
	fp_ruleset__free(&set);
out:
	if (lock >= 0)
		close(lock);
	fp_filter__close(f);
	return ret;
}

static const struct cli_verb filter_verbs[] = {
	{ "load", "IFACE [--mode { native | skb }] [--table-bits N] [--share NAME] [FILE]",
	  "attach the pipeline to IFACE, with the rules of FILE; --table-bits sizes the "
	  "tuple-key and prefix tables (2^N slots per generation, default 18: about "
	  "100,000 each); --share NAME: one rule set, its counters and limits for every "
	  "interface loaded with NAME (FILE then replaces the share's rules)", do_load },
	{ "unload", "IFACE [--force]", "detach from IFACE and remove its pins; --force also "
	  "from incomplete pins or none (a program named fp_entry* only)", do_unload },
	{ "apply", "IFACE FILE [--dry-run] [--load [--mode M] [--table-bits N] [--share NAME]]",
	  "replace the whole rule set atomically (an identical set changes nothing); "
	  "--dry-run shows the rules added, removed, changed and moved, and changes nothing; "
	  "--load loads the filter first when it is not loaded", filter_do_apply },
	{ "save", "IFACE [FILE]", "write the running rule set as a rule file (stdout without "
	  "FILE; FILE is replaced atomically) that apply turns back into the same set",
	  filter_do_save },
	{ "add", "IFACE [--at N] RULE", "add one rule (at the end, or at position N)", do_add },
	{ "del", "IFACE ID", "delete the rule with id ID", do_del },
	{ "list", "IFACE", "the live rules with their counters", filter_do_list },
	{ "stats", "IFACE [--watch [SECONDS]] [--interval MS]",
	  "per-rule packets, bytes and rates", filter_do_stats },
	{ "test", "RULES CAPTURE", "verdict and rule of every packet of a pcap/pcapng file "
	  "(limits on the capture's clock)",
	  filter_do_test },
	{ NULL },
};

int cmd_filter(struct cli *cli, int argc, char **argv)
{
	return cli_dispatch(cli, filter_verbs, argc, argv);
}
