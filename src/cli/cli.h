/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The `fastpath` command: `fastpath [OPTIONS] OBJECT VERB [ARGS]`, in the
 * grammar of ip(8) and bpftool(8).
 *
 * main.c parses the global options, picks the object from one table and
 * calls its handler. An object with verbs keeps a table of struct cli_verb
 * and hands it to cli_dispatch(), which matches the verb (exactly or by a
 * unique prefix), answers `help`, `-h` and `--help` from the same table, and
 * reports unknown or ambiguous verbs. Help cannot drift from dispatch.
 *
 * Exit codes (only main.c and the command files decide them):
 *   CLI_OK 0, CLI_FAIL 1 (runtime failure), CLI_USAGE 2 (usage error).
 */
#ifndef FP_CLI_CLI_H
#define FP_CLI_CLI_H

#include <stdbool.h>

#include "cli/out.h"

#ifndef FP_VERSION
#define FP_VERSION "0.1.0"
#endif

enum cli_exit {
	CLI_OK    = 0,
	CLI_FAIL  = 1,
	CLI_USAGE = 2,
};

struct cli {
	bool json;          /* -j / --json (also set by -p) */
	bool pretty;        /* -p / --pretty */
	int verbose;        /* -v, repeatable */
	const char *bpffs;  /* --bpffs DIR, else $FASTPATH_BPFFS, else FP_BPFFS_DEFAULT */
	const char *object; /* the object's full name, e.g. "filter" (for messages) */
	const struct cli_verb *cmd; /* the dispatched verb (name, args, help), else NULL */
};

#define FP_BPFFS_DEFAULT "/sys/fs/bpf/fastpath"

struct cli;
typedef int (*cli_fn)(struct cli *cli, int argc, char **argv);

/*
 * One verb of an object. The handler gets argv[0] = the verb's full name and
 * argv[1..] its arguments (getopt_long may be used on it directly: it skips
 * argv[0]; set optind = 0 first: GNU getopt then re-initializes fully).
 */
struct cli_verb {
	const char *name;   /* "add" */
	const char *args;   /* synopsis of the arguments: "IFACE RULE", "" if none */
	const char *help;   /* one line: "add one rule to the running set" */
	cli_fn fn;
	const char *details; /* an object without verbs: its options and an
			      * example, for its --help (the man page has all) */
};

/*
 * Runs `OBJECT VERB ARGS`: argv[0] is the verb as typed, `verbs` ends with a
 * { NULL } entry. Handles `help`, `-h`, `--help` (also after the verb:
 * `fastpath filter add --help`), no verb (usage error), an unknown verb (exit
 * 2, listing the valid ones) and an ambiguous prefix (exit 2, listing the
 * candidates). Returns the exit code.
 */
int cli_dispatch(struct cli *cli, const struct cli_verb *verbs, int argc, char **argv);

/*
 * For objects without verbs (`fastpath gen IFACE ...`, `fastpath status`):
 * handles -h/--help/help from `cmd` (its name is the object's), else calls
 * cmd->fn(cli, argc, argv) with argv[0] = the first argument after the
 * object (argc may be 0).
 */
int cli_run(struct cli *cli, const struct cli_verb *cmd, int argc, char **argv);

/* Prints the help of an object (its grammar and one line per verb). */
void cli_help(const struct cli *cli, const struct cli_verb *verbs, FILE *f);

/*
 * Locks the interface's pin directory (an flock, held until the fd is
 * closed): rule-set edits (add/add would lose one) and dump starts (two
 * dumps must not both find the interface free) serialize on it. A member
 * of a share (`load --share NAME`) locks ROOT/shared/NAME instead: an edit
 * there changes every member's rules. The fd, or -1 if it cannot be locked
 * (the caller then goes on unlocked).
 */
int cli_lock_iface(const struct cli *cli, const char *ifname);

/* True if arg is -h or --help. */
bool cli_is_help(const char *arg);

/*
 * Reports a usage error of the current object/verb ("fastpath: filter add:
 * MSG; usage: fastpath filter add IFACE RULE") and returns CLI_USAGE.
 */
int cli_usage(const struct cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The usage error of getopt_long's return c (':' or '?'): a missing
 * argument or an unknown option, named as the user wrote it.
 */
int cli_bad_option(const struct cli *cli, char *const argv[], int c);

struct fp_rule;
/*
 * Parses --match TERMS (the rule model's terms, no action) into *out;
 * on an error reports "--match: column N: MSG" as a usage error (column
 * within TERMS) and returns CLI_USAGE, else 0.
 */
int cli_parse_match(const struct cli *cli, const char *terms, struct fp_rule *out);

/* Reports a runtime failure ("fastpath: MSG") and returns CLI_FAIL. */
int cli_fail(const struct cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Checks the number of positional arguments after the verb (argc - 1):
 * returns 0 if min <= n <= max (max < 0: no limit), else reports a usage
 * error with the verb's synopsis and returns CLI_USAGE.
 */
int cli_nargs(const struct cli *cli, int argc, char **argv, int min, int max);

/*
 * The operands getopt left (argv[optind..]): exactly n of them, named in
 * what ("IFACE VIP"). Returns 0, or a usage error naming the first
 * operand too many ("unexpected argument 'x'") or what is expected, and
 * CLI_USAGE.
 */
int cli_operands(const struct cli *cli, int argc, char **argv, int optind, int n,
		 const char *what);

/*
 * Finds name in a table of names (exact, else a unique prefix). Returns the
 * index, -1 if none matches, -2 if the prefix is ambiguous.
 */
int cli_match(const char *name, const char *const *names, int n);

/* Object handlers (argv[0] = the verb or the first argument after the object). */
/* stage_out.c: a stage's counters, and the document of an unload (pins:
 * list every pin removed). */
struct fp_stage_counts;
struct fp_unload_report;
void cli_out_stage_counts(const struct fp_stage_counts *c);
void cli_report_unload(const char *ifname, const struct fp_unload_report *r, bool pins,
		       const char *warning);

int cmd_rules(struct cli *cli, int argc, char **argv);
int cmd_filter(struct cli *cli, int argc, char **argv);
int cmd_pipeline(struct cli *cli, int argc, char **argv);
int cmd_gen(struct cli *cli, int argc, char **argv);
int cmd_dump(struct cli *cli, int argc, char **argv);
int cmd_stats(struct cli *cli, int argc, char **argv);
int cmd_status(struct cli *cli, int argc, char **argv);
int cmd_exporter(struct cli *cli, int argc, char **argv);
int cmd_proxy(struct cli *cli, int argc, char **argv);
/* proxy.c: a policy file parsed (CLI_OK), unreadable (CLI_FAIL) or with errors (CLI_USAGE). */
struct fp_px_policy;
struct fp_diags;
int cli_proxy_read_policy(const struct cli *cli, const char *path, struct fp_px_policy *pol,
			  struct fp_diags *diags);
/* bpfgen keeps Cloudflare's command line: argv[0] = "bpfgen", options follow. */
int cmd_bpfgen(int argc, char **argv);

#endif /* FP_CLI_CLI_H */
