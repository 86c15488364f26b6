// SPDX-License-Identifier: BSD-2-Clause
/*
 * fastpath bpfgen [-6|--inet6] [-n|--negate] [-o|--offset N] [-s|--assembly]
 *                 TYPE [--] [ARGS...]
 *
 * The command line of Cloudflare's bpfgen, so runbooks can swap the binary:
 * options anywhere before `--`, long ones by unique prefix; the first word
 * is the generator, the rest go to it (its own options after `--`). Prints
 * the `iptables -m bpf --bytecode` line, or with -s the bpf_asm assembly.
 * Exit 0 ok, 1 runtime failure, 2 usage error (where the reference crashed
 * or exited 255 on bad input).
 *
 * Two types are fastpath's own: `rule TERMS` (the rule model's terms as one
 * program) and `rules FILE` (one line `ID BYTECODE` per rule of a rule file).
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfgen/bpfgen.h"
#include "cli/rulefile.h"
#include "rules/rule.h"

static const char bpfgen_usage[] =
	"usage: fastpath bpfgen [-h] [-6] [-n] [-o OFFSET] [-s] TYPE [--] [PARAMETERS ...]";

static const char bpfgen_help[] =
	"\n"
	"Generates a classic BPF program matching packets by given criteria, for\n"
	"iptables -m bpf --bytecode (xt_bpf), SO_ATTACH_FILTER or tcpdump.\n"
	"A drop-in replacement for Cloudflare's bpfgen (bpftools).\n"
	"\n"
	"TYPE:\n"
	"  dns           DNS queries for given names (patterns)\n"
	"  dns_validate  malformed DNS requests\n"
	"  suffix        packets ending with given bytes\n"
	"  tcpdump       a pcap-filter expression, compiled with libpcap\n"
	"  p0f           TCP packets fitting a p0f v3 signature\n"
	"  rule          the terms of a fastpath rule (fastpath-rules(7))\n"
	"  rules         every rule of a rule file: one line 'ID BYTECODE' each\n"
	"\n"
	"Each generator has its own help: fastpath bpfgen dns -- --help\n"
	"\n"
	"options:\n"
	"  -h, --help            show this help\n"
	"  -6, --inet6           IPv6 (UDP right after the fixed header)\n"
	"  -n, --negate          swap the match and no-match return values\n"
	"  -o, --offset OFFSET   offset of the L3 header: 0 for xt_bpf (default);\n"
	"                        14 Ethernet, 16 Linux SLL, 18 Ethernet + VLAN\n"
	"  -s, --assembly        print bpf_asm assembly, not the bytecode\n"
	"\n"
	"examples:\n"
	"  fastpath bpfgen dns -- -i '*.example.com'\n"
	"  fastpath bpfgen dns -- example.com '*.example.com' '*.*.example.com'\n"
	"  fastpath bpfgen dns_validate -- --strict\n"
	"  fastpath bpfgen -s -n -o 14 -6 suffix -- 010203\n"
	"  fastpath bpfgen rule 'udp dport 53 qname *.example.com'\n"
	"  fastpath bpfgen -o 14 rules /etc/fastpath/rules\n"
	"  iptables -A INPUT -p udp --dport 53 -m bpf \\\n"
	"      --bytecode \"$(fastpath bpfgen dns -- '*.example.com')\" -j DROP\n"
	"\n"
	"The man page fastpath-bpfgen(8) lists where this differs from bpfgen.\n";

struct top {
	struct fp_bpfgen_opts o;
	bool assembly;
	bool help;
	int npos;
	char **pos;
};

/*
 * An error of bpfgen: "fastpath bpfgen: MSG" on stderr after the usage line
 * when given, or {"error": "bpfgen: MSG"} on stdout with -j. Returns rc.
 */
static int bg_err(int rc, const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bg_err(int rc, const char *usage, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (out_is_json()) {
		out_err("bpfgen: %s", msg);
		return rc;
	}
	if (usage)
		fprintf(stderr, "%s\n", usage);
	fprintf(stderr, "fastpath bpfgen: %s\n", msg);
	return rc;
}

static int usage_error(const char *fmt, const char *arg)
	__attribute__((format(printf, 1, 0)));
static int usage_error(const char *fmt, const char *arg)
{
	char msg[512];

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(msg, sizeof(msg), fmt, arg);
#pragma GCC diagnostic pop
	return bg_err(CLI_USAGE, bpfgen_usage, "%s", msg);
}

static int set_offset(struct top *t, const char *v)
{
	char *end;
	unsigned long n;

	if (!v || !*v)
		return usage_error("option -o/--offset needs a number%s", "");
	errno = 0;
	n = strtoul(v, &end, 10);
	if (*end || errno || n > 65535 || v[0] == '-' || v[0] == '+')
		return usage_error("invalid offset '%s' (a number of bytes, 0 to 65535)", v);
	t->o.l3_off = (unsigned)n;
	return 0;
}

/* A long option: `--name`, `--name=value`, or a unique prefix of the name. */
static int long_option(struct top *t, int argc, char **argv, int *i)
{
	static const char *const names[] = { "inet6", "negate", "offset", "assembly", "help" };
	const char *arg = argv[*i] + 2, *eq = strchr(arg, '=');
	char name[32];
	int k;

	snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
	k = cli_match(name, names, 5);
	if (k == -1)
		return usage_error("unrecognized option '%s'", argv[*i]);
	if (k == -2)
		return usage_error("ambiguous option '%s'", argv[*i]);
	if (k == 2) {
		if (eq)
			return set_offset(t, eq + 1);
		if (*i + 1 >= argc)
			return usage_error("option --offset needs a number%s", "");
		return set_offset(t, argv[++*i]);
	}
	if (eq)
		return usage_error("option '%s' takes no value", argv[*i]);
	if (k == 0)
		t->o.inet6 = true;
	else if (k == 1)
		t->o.negate = true;
	else if (k == 3)
		t->assembly = true;
	else
		t->help = true;
	return 0;
}

static int short_options(struct top *t, int argc, char **argv, int *i)
{
	const char *p;

	for (p = argv[*i] + 1; *p; p++) {
		switch (*p) {
		case '6': t->o.inet6 = true; break;
		case 'n': t->o.negate = true; break;
		case 's': t->assembly = true; break;
		case 'h': t->help = true; break;
		case 'o':
			if (p[1])
				return set_offset(t, p + 1);
			if (*i + 1 >= argc)
				return usage_error("option -o needs a number%s", "");
			return set_offset(t, argv[++*i]);
		default: {
			char opt[3] = { '-', *p, 0 };

			return usage_error("unrecognized option '%s'", opt);
		}
		}
	}
	return 0;
}

/* Options until the first `--`; everything else, in order, is positional. */
static int parse_top(struct top *t, int argc, char **argv)
{
	bool options = true;
	int i, r;

	t->pos = calloc((size_t)argc + 1, sizeof(*t->pos));
	if (!t->pos) {
		return bg_err(CLI_FAIL, NULL, "out of memory");
	}
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (options && !strcmp(s, "--")) {
			options = false;
			continue;
		}
		if (!options || s[0] != '-' || !s[1]) {
			t->pos[t->npos++] = argv[i];
			continue;
		}
		r = s[1] == '-' ? long_option(t, argc, argv, &i) : short_options(t, argc, argv, &i);
		if (r)
			return r;
	}
	return 0;
}

static void warn_xt_bpf(const char *what, size_t len)
{
	if (len > FP_XT_BPF_MAXINSNS)
		fprintf(stderr,
			"fastpath bpfgen: warning: %s%sthe program has %zu instructions; "
			"iptables -m bpf (xt_bpf) takes at most %d\n",
			what, *what ? ": " : "", len, FP_XT_BPF_MAXINSNS);
}

/* `rules FILE`: one line "ID N,code jt jf k,..." per rule (-s: assembly). */
static int run_rules(struct top *t)
{
	struct fp_ruleset set = { 0 };
	struct fp_diags d = { 0 };
	const char *path;
	size_t len, i;
	char *text;
	int r, ret = CLI_OK;

	if (t->npos != 2)
		return usage_error("rules takes one FILE ('-' for stdin)%s", "");
	path = t->pos[1];
	text = cli_slurp(path, &len);
	if (!text)
		return bg_err(CLI_FAIL, NULL, "cannot read rule file %s: %s", path,
			      cli_slurp_error(errno));
	r = fp_ruleset__parse(text, len, &set, &d);
	free(text);
	if (r == -EINVAL) {

		cli_print_diags(path, &d);
		r = bg_err(CLI_USAGE, NULL, "%s: %zu error%s", path, d.n, d.n > 1 ? "s" : "");
		fp_diags__free(&d);
		return r;
	}
	fp_diags__free(&d);
	if (r)
		return bg_err(CLI_FAIL, NULL, "parsing %s failed: %s", path, strerror(-r));
	for (i = 0; i < set.n && ret == CLI_OK; i++) {
		const struct fp_rule *rule = &set.rules[i];
		struct fp_bpfgen_out out;
		struct fp_bpfgen_err err;

		if (fp_bpfgen__rule(&t->o, rule, &out, &err)) {
			ret = err.kind == FP_BPFGEN_RUNTIME ? CLI_FAIL : CLI_USAGE;
			if (out_is_json())
				bg_err(ret, NULL, "%s:%u: rule %s: %s", path, rule->line, rule->id,
				       !strncmp(err.msg, "rule: ", 6) ? err.msg + 6 : err.msg);
			else
				fprintf(stderr, "%s:%u: rule %s: %s\n", path, rule->line, rule->id,
					!strncmp(err.msg, "rule: ", 6) ? err.msg + 6 : err.msg);
			break;
		}
		if (t->assembly) {
			printf("; rule %s (line %u)\n", rule->id, rule->line);
			fp_casm__print(out.casm, stdout);
			putchar('\n');
		} else {
			printf("%s ", rule->id);
			fp_cbpf__print(&out.prog, stdout);
		}
		if (out.prog.len > FP_XT_BPF_MAXINSNS) {
			char what[96];

			snprintf(what, sizeof(what), "rule %s", rule->id);
			warn_xt_bpf(what, out.prog.len);
		}
		fp_bpfgen_out__free(&out);
	}
	fp_ruleset__free(&set);
	if (fflush(stdout))
		return bg_err(CLI_FAIL, NULL, "cannot write the output: %s", strerror(errno));
	return ret;
}

static int run(struct top *t)
{
	struct fp_bpfgen_out out;
	struct fp_bpfgen_err err;
	int r;

	r = fp_bpfgen__generate(&t->o, t->npos, t->pos, &out, &err);
	if (r) {
		switch (err.kind) {
		case FP_BPFGEN_HELP:
			fputs(err.help ? err.help : bpfgen_help, stdout);
			return CLI_OK;
		case FP_BPFGEN_USAGE:
			if (out_is_json())
				return bg_err(CLI_USAGE, NULL, "%s", err.msg);
			fprintf(stderr, "fastpath bpfgen: %s\n", err.msg);
			if (err.usage)
				fprintf(stderr, "usage: %s\n", err.usage);
			return CLI_USAGE;
		default:
			return bg_err(CLI_FAIL, NULL, "%s", err.msg);
		}
	}
	if (t->assembly) {
		r = fp_casm__print(out.casm, stdout);
		putchar('\n');
	} else {
		r = fp_cbpf__print(&out.prog, stdout);
	}
	warn_xt_bpf("", out.prog.len);
	fp_bpfgen_out__free(&out);
	if (fflush(stdout) || r)
		return bg_err(CLI_FAIL, NULL, "cannot write the output: %s", strerror(errno));
	return CLI_OK;
}

int cmd_bpfgen(int argc, char **argv)
{
	struct top t = { 0 };
	int r;

	r = parse_top(&t, argc, argv);
	if (!r && t.help) {
		printf("%s\n%s", bpfgen_usage, bpfgen_help);
	} else if (!r && t.npos == 0) {
		r = usage_error("the following arguments are required: TYPE%s", "");
	} else if (!r) {
		size_t i;

		for (i = 0; fp_bpfgen_types[i]; i++)
			if (!strcmp(t.pos[0], fp_bpfgen_types[i]))
				break;
		if (!strcmp(t.pos[0], "rules"))
			r = run_rules(&t);
		else if (!fp_bpfgen_types[i])
			r = usage_error("invalid TYPE '%s' (choose from dns, dns_validate, p0f, "
					"rule, rules, suffix, tcpdump)", t.pos[0]);
		else
			r = run(&t);
	}
	free(t.pos);
	return r;
}
