// SPDX-License-Identifier: BSD-2-Clause
/*
 * fastpath [OPTIONS] OBJECT VERB [ARGS]: global options, the object table,
 * verb dispatch and help generated from the verb tables (cli.h).
 *
 * Objects written in other files are referenced weakly, so the binary links
 * while they are not there yet and says "'filter' is not built in".
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "util/verbose.h"

/* Weak: an object whose file is not compiled in has a NULL handler. */
extern int cmd_filter(struct cli *cli, int argc, char **argv) __attribute__((weak));
extern int cmd_gen(struct cli *cli, int argc, char **argv) __attribute__((weak));
extern int cmd_dump(struct cli *cli, int argc, char **argv) __attribute__((weak));
extern int cmd_stats(struct cli *cli, int argc, char **argv) __attribute__((weak));
extern int cmd_status(struct cli *cli, int argc, char **argv) __attribute__((weak));
extern int cmd_exporter(struct cli *cli, int argc, char **argv) __attribute__((weak));
extern int cmd_bpfgen(int argc, char **argv) __attribute__((weak));
extern int cmd_pipeline(struct cli *cli, int argc, char **argv) __attribute__((weak));
extern int cmd_bridge(struct cli *cli, int argc, char **argv) __attribute__((weak));
extern int cmd_decap(struct cli *cli, int argc, char **argv) __attribute__((weak));
extern int cmd_capture(struct cli *cli, int argc, char **argv) __attribute__((weak));
extern int cmd_inject(struct cli *cli, int argc, char **argv) __attribute__((weak));
extern int cmd_forward(struct cli *cli, int argc, char **argv) __attribute__((weak));
extern int cmd_lb(struct cli *cli, int argc, char **argv) __attribute__((weak));
extern int cmd_proxy(struct cli *cli, int argc, char **argv) __attribute__((weak));

struct cli_object {
	const char *name;
	const char *help;
	cli_fn fn;                             /* takes struct cli */
	int (*raw_fn)(int argc, char **argv);  /* own option parser: argv[0] = object */
};

/* The one table of objects. Abbreviations are matched against all of them. */
static const struct cli_object objects[] = {
	{ "rules",    "check and show rule files",                         cmd_rules,    NULL },
	{ "pipeline", "the XDP chain of an interface: load, show, enable/disable stages",
		      cmd_pipeline, NULL },
	{ "filter",   "the XDP filter: load, rules, stats, test on a pcap", cmd_filter,   NULL },
	{ "lb",       "the XDP load balancer: VIPs, backends (Maglev, IPIP)", cmd_lb,   NULL },
	{ "gen",      "traffic generator (BPF_PROG_TEST_RUN live frames)", cmd_gen,      NULL },
	{ "bpfgen",   "classic BPF generator (Cloudflare bpfgen's CLI)",   NULL,         cmd_bpfgen },
	{ "dump",     "sampled packets to pcapng",                         cmd_dump,     NULL },
	{ "capture",  "take matching packets from the stack into AF_XDP, to pcap", cmd_capture, NULL },
	{ "inject",   "send a pcap out through AF_XDP TX",                 cmd_inject,   NULL },
	{ "forward",  "forward matching packets between interfaces via AF_XDP", cmd_forward, NULL },
	{ "stats",    "per-stage and per-rule counters",                   cmd_stats,    NULL },
	{ "status",   "interfaces with fastpath loaded",                   cmd_status,   NULL },
	{ "exporter", "Prometheus exporter",                               cmd_exporter, NULL },
	{ "bridge",   "a layer-2 switch in XDP between ports (no STP)",    cmd_bridge,   NULL },
	{ "decap",    "the lb's backend side: strip IP-in-IP for this host", cmd_decap,    NULL },
	{ "proxy",    "HTTP proxy deciding every request on a policy",    cmd_proxy,    NULL },
};
#define N_OBJECTS (int)(sizeof(objects) / sizeof(objects[0]))

static const char options_help[] =
	"OPTIONS := { -j|--json [-p|--pretty] | --bpffs DIR | -v|--verbose |\n"
	"                    -h|--help | -V|--version }";

static bool built(const struct cli_object *ob) { return ob->fn || ob->raw_fn; }

/* ---- matching and help ------------------------------------------------- */

bool cli_is_help(const char *arg)
{
	return arg && (!strcmp(arg, "-h") || !strcmp(arg, "--help"));
}

int cli_match(const char *name, const char *const *names, int n)
{
	size_t len = strlen(name);
	int i, found = -1;

	if (!len)
		return -1;
	for (i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return i;
	for (i = 0; i < n; i++) {
		if (strncmp(name, names[i], len))
			continue;
		if (found >= 0)
			return -2;
		found = i;
	}
	return found;
}

/* "a, b, c" of every name that starts with prefix ("" = all). */
static void list_names(char *buf, size_t size, const char *const *names, int n,
		       const char *prefix)
{
	size_t used = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < n && used < size; i++) {
		if (strncmp(prefix, names[i], strlen(prefix)))
			continue;
		used += snprintf(buf + used, size - used, "%s%s", used ? ", " : "", names[i]);
	}
}

static int count_verbs(const struct cli_verb *verbs)
{
	int n = 0;

	while (verbs[n].name)
		n++;
	return n;
}

static void verb_usage(const struct cli *cli, const struct cli_verb *v, FILE *f,
		       const char *lead)
{
	fprintf(f, "%s fastpath [OPTIONS] %s %s%s%s\n", lead, cli->object, v->name,
		v->args && *v->args ? " " : "", v->args ? v->args : "");
}

void cli_help(const struct cli *cli, const struct cli_verb *verbs, FILE *f)
{
	int i, n = count_verbs(verbs), w = 4;

	fprintf(f, "Usage: fastpath [OPTIONS] %s {", cli->object);
	for (i = 0; i < n; i++)
		fprintf(f, " %s |", verbs[i].name);
	fprintf(f, " help }\n");
	for (i = 0; i < n; i++) {
		verb_usage(cli, &verbs[i], f, "      ");
		if ((int)strlen(verbs[i].name) > w)
			w = (int)strlen(verbs[i].name);
	}
	fprintf(f, "       fastpath %s help\n\n", cli->object);
	for (i = 0; i < n; i++)
		fprintf(f, "       %-*s  %s\n", w, verbs[i].name, verbs[i].help);
	fprintf(f, "       %-*s  %s\n\n       %s\n", w, "help", "print this help",
		options_help);
}

static void cmd_help(const struct cli *cli, const struct cli_verb *v, FILE *f)
{
	verb_usage(cli, v, f, "Usage:");
	fprintf(f, "\n       %s\n\n", v->help);
	/* a verb's examples, one line each */
	for (const char *d = v->details; d && *d;) {
		size_t n = strcspn(d, "\n");

		fprintf(f, "       %.*s\n", (int)n, d);
		d += n + (d[n] == '\n');
	}
	if (v->details)
		fputc('\n', f);
	/* "lb vip" is documented in fastpath-lb(8) */
	fprintf(f, "       %s\n\n       More: man fastpath-%.*s\n", options_help,
		(int)strcspn(cli->object, " "), cli->object);
}

/* True if an argument before "--" asks for help. */
static bool wants_help(int argc, char **argv, int from)
{
	int i;

	for (i = from; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (cli_is_help(argv[i]))
			return true;
	}
	return false;
}

/* ---- errors ------------------------------------------------------------ */

int cli_bad_option(const struct cli *cli, char *const argv[], int c)
{
	if (c == ':')
		return cli_usage(cli, "option '%s' needs an argument", argv[optind - 1]);
	if (optopt)
		return cli_usage(cli, "unknown option '-%c'", optopt);
	return cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
}

int cli_usage(const struct cli *cli, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (cli->cmd && cli->object && !strcmp(cli->object, cli->cmd->name))
		/* an object without verbs (gen, dump, status): its name once */
		out_err("%s: %s; usage: fastpath %s%s%s", cli->object, msg, cli->object,
			cli->cmd->args && *cli->cmd->args ? " " : "",
			cli->cmd->args ? cli->cmd->args : "");
	else if (cli->cmd)
		out_err("%s %s: %s; usage: fastpath %s %s%s%s", cli->object, cli->cmd->name,
			msg, cli->object, cli->cmd->name,
			cli->cmd->args && *cli->cmd->args ? " " : "",
			cli->cmd->args ? cli->cmd->args : "");
	else if (cli->object)
		out_err("%s: %s; see 'fastpath %s help'", cli->object, msg, cli->object);
	else
		out_err("%s; see 'fastpath help'", msg);
	return CLI_USAGE;
}

int cli_fail(const struct cli *cli, const char *fmt, ...)
{
	va_list ap;

	(void)cli;
	va_start(ap, fmt);
	out_verr(fmt, ap);
	va_end(ap);
	return CLI_FAIL;
}

int cli_nargs(const struct cli *cli, int argc, char **argv, int min, int max)
{
	int n = argc - 1;

	if (n < min)
		return cli_usage(cli, "missing argument%s", min - n > 1 ? "s" : "");
	if (max >= 0 && n > max)
		return cli_usage(cli, "unexpected argument '%s'", argv[max + 1]);
	return 0;
}

int cli_operands(const struct cli *cli, int argc, char **argv, int optind, int n,
		 const char *what)
{
	if (argc - optind > n)
		return cli_usage(cli, "unexpected argument '%s'", argv[optind + n]);
	if (argc - optind != n)
		return cli_usage(cli, "expected %s", what);
	return 0;
}

/* ---- verb dispatch ----------------------------------------------------- */

int cli_dispatch(struct cli *cli, const struct cli_verb *verbs, int argc, char **argv)
{
	const char *names[64];
	char list[512];
	int n = count_verbs(verbs), i;

	cli->cmd = NULL;
	for (i = 0; i < n && i < 63; i++)
		names[i] = verbs[i].name;
	names[i] = "help";
	n = i;

	if (argc < 1) {
		list_names(list, sizeof(list), names, n + 1, "");
		if (!out_is_json()) {
			fprintf(stderr, "fastpath: %s: missing verb, one of: %s\n\n", cli->object, list);
			cli_help(cli, verbs, stderr);
			return CLI_USAGE;
		}
		return cli_usage(cli, "missing verb, one of: %s", list);
	}
	if (cli_is_help(argv[0])) {
		cli_help(cli, verbs, stdout);
		return CLI_OK;
	}
	i = cli_match(argv[0], names, n + 1);
	if (i == -2) {
		list_names(list, sizeof(list), names, n + 1, argv[0]);
		return cli_usage(cli, "ambiguous verb '%s': %s", argv[0], list);
	}
	if (i < 0) {
		list_names(list, sizeof(list), names, n + 1, "");
		return cli_usage(cli, "unknown verb '%s'; valid verbs: %s", argv[0], list);
	}
	if (i == n) { /* help */
		cli_help(cli, verbs, stdout);
		return CLI_OK;
	}
	cli->cmd = &verbs[i];
	if (wants_help(argc, argv, 1)) {
		cmd_help(cli, cli->cmd, stdout);
		return CLI_OK;
	}
	argv[0] = (char *)verbs[i].name;
	return verbs[i].fn(cli, argc, argv);
}

int cli_run(struct cli *cli, const struct cli_verb *cmd, int argc, char **argv)
{
	char **args;
	int rc;

	cli->cmd = NULL;
	if ((argc >= 1 && !strcmp(argv[0], "help")) || wants_help(argc, argv, 0)) {
		fprintf(stdout, "Usage: fastpath [OPTIONS] %s%s%s\n\n       %s\n\n%s%s       %s\n",
			cli->object, cmd->args && *cmd->args ? " " : "",
			cmd->args ? cmd->args : "", cmd->help, cmd->details ? cmd->details : "",
			cmd->details ? "\n" : "", options_help);
		fprintf(stdout, "\n       More: man fastpath-%.*s\n", (int)strcspn(cli->object, " "),
			cli->object);
		return CLI_OK;
	}
	args = calloc((size_t)argc + 2, sizeof(*args));
	if (!args)
		return cli_fail(cli, "%s: out of memory", cli->object);
	args[0] = (char *)cli->object;
	memcpy(args + 1, argv, (size_t)argc * sizeof(*args));
	cli->cmd = cmd;
	rc = cmd->fn(cli, argc + 1, args);
	free(args);
	return rc;
}

/* ---- top level --------------------------------------------------------- */

static void main_help(FILE *f)
{
	int i;

	fprintf(f, "Usage: fastpath [OPTIONS] OBJECT { VERB | help } [ARGS]\n"
		   "       fastpath help\n"
		   "       fastpath OBJECT help\n\n"
		   "       OBJECT := {");
	for (i = 0; i < N_OBJECTS; i++)
		if (built(&objects[i]))
			fprintf(f, "%s %s", i ? " |" : "", objects[i].name);
	fprintf(f, " }\n\n");
	for (i = 0; i < N_OBJECTS; i++)
		if (built(&objects[i]))
			fprintf(f, "       %-9s %s\n", objects[i].name, objects[i].help);
	fprintf(f, "\n       %s\n\n"
		   "       Exit codes: 0 success, 1 runtime failure, 2 usage error.\n"
		   "       The bpffs root is --bpffs, else $FASTPATH_BPFFS, else %s.\n",
		options_help, FP_BPFFS_DEFAULT);
}

/* Global options after OBJECT (up to "--"): -j -p -v (also -jp, -vv),
 * --json --pretty --verbose, --bpffs DIR, --bpffs=DIR. Removes them from
 * argv; returns the new argc, or -1 on a --bpffs without DIR. */
static int strip_globals(struct cli *cli, int argc, char **argv)
{
	int i, j = 0;
	bool done = false;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (done || !strcmp(a, "--")) {
			done = true;
		} else if (a[0] == '-' && a[1] && a[1] != '-' && strspn(a + 1, "jpv") == strlen(a + 1)) {
			for (a++; *a; a++) {
				if (*a == 'j')
					cli->json = true;
				else if (*a == 'p')
					cli->json = cli->pretty = true;
				else
					cli->verbose++;
			}
			continue;
		} else if (!strcmp(a, "--json")) {
			cli->json = true;
			continue;
		} else if (!strcmp(a, "--pretty")) {
			cli->json = cli->pretty = true;
			continue;
		} else if (!strcmp(a, "--verbose")) {
			cli->verbose++;
			continue;
		} else if (!strncmp(a, "--bpffs=", 8)) {
			cli->bpffs = a + 8;
			continue;
		} else if (!strcmp(a, "--bpffs")) {
			if (i + 1 >= argc)
				return -1;
			cli->bpffs = argv[++i];
			continue;
		}
		argv[j++] = argv[i];
	}
	argv[j] = NULL;
	return j;
}

static void set_output(const struct cli *cli)
{
	out_init(cli->pretty ? OUT_JSON_PRETTY : cli->json ? OUT_JSON : OUT_TEXT, NULL, NULL);
	out_set_verbose(cli->verbose);
	fp_verbose__set(cli->verbose);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json",    no_argument,       NULL, 'j' },
		{ "pretty",  no_argument,       NULL, 'p' },
		{ "verbose", no_argument,       NULL, 'v' },
		{ "help",    no_argument,       NULL, 'h' },
		{ "version", no_argument,       NULL, 'V' },
		{ "bpffs",   required_argument, NULL, 'b' },
		{ 0 },
	};
	struct cli cli = { 0 };
	bool version = false;
	const char *names[N_OBJECTS + 1];
	const struct cli_object *ob;
	char list[256];
	int c, i, rc;

	libbpf_set_print(fp_verbose__libbpf_print); /* -v: warnings, -vv: debug */
	cli.bpffs = getenv("FASTPATH_BPFFS");
	if (!cli.bpffs || !*cli.bpffs)
		cli.bpffs = FP_BPFFS_DEFAULT;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:jpvhV", opts, NULL)) != -1) {
		switch (c) {
		case 'j': cli.json = true; break;
		case 'p': cli.json = cli.pretty = true; break;
		case 'v': cli.verbose++; break;
		case 'b': cli.bpffs = optarg; break;
		case 'h':
			main_help(stdout);
			return CLI_OK;
		case 'V': version = true; break; /* after the loop: -j may follow */
		case ':':
			set_output(&cli);
			return cli_usage(&cli, "option '%s' needs an argument", argv[optind - 1]);
		default:
			set_output(&cli);
			if (strncmp(argv[optind - 1], "--", 2) && optopt)
				return cli_usage(&cli, "unknown option '-%c'", optopt);
			if (strchr(argv[optind - 1], '='))
				return cli_usage(&cli, "option '%.*s' takes no value",
						 (int)strcspn(argv[optind - 1], "="), argv[optind - 1]);
			return cli_usage(&cli, "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	set_output(&cli);
	if (version) {
		if (out_is_json()) {
			out_obj_begin();
			out_str("version", FP_VERSION);
			out_str("libbpf", libbpf_version_string());
			out_obj_end();
			out_fini();
		} else {
			printf("fastpath %s (libbpf %s)\n", FP_VERSION, libbpf_version_string());
		}
		return CLI_OK;
	}
	if (optind >= argc) {
		if (!out_is_json()) {
			fprintf(stderr, "fastpath: missing OBJECT\n\n");
			main_help(stderr);
			return CLI_USAGE;
		}
		return cli_usage(&cli, "missing OBJECT");
	}

	for (i = 0; i < N_OBJECTS; i++)
		names[i] = objects[i].name;
	names[N_OBJECTS] = "help";
	i = cli_match(argv[optind], names, N_OBJECTS + 1);
	if (i == -2) {
		list_names(list, sizeof(list), names, N_OBJECTS + 1, argv[optind]);
		return cli_usage(&cli, "ambiguous object '%s': %s", argv[optind], list);
	}
	if (i < 0) {
		list_names(list, sizeof(list), names, N_OBJECTS + 1, "");
		return cli_usage(&cli, "unknown object '%s'; valid objects: %s", argv[optind], list);
	}
	if (i == N_OBJECTS) {
		main_help(stdout);
		return CLI_OK;
	}
	ob = &objects[i];
	cli.object = ob->name;
	if (!built(ob))
		return cli_fail(&cli, "'%s' is not built in; this binary has no %s support",
				ob->name, ob->name);
	if (ob->raw_fn) {
		argv[optind] = (char *)ob->name;
		return ob->raw_fn(argc - optind, argv + optind);
	}

	argc = strip_globals(&cli, argc - optind - 1, argv + optind + 1);
	set_output(&cli);
	if (argc < 0)
		return cli_usage(&cli, "option '--bpffs' needs a directory");
	rc = ob->fn(&cli, argc, argv + optind + 1);
	out_fini();
	return rc;
}
