// SPDX-License-Identifier: BSD-2-Clause
/*
 * fastpath proxy { run | check | reload | stats }: the per-request HTTP
 * policy proxy's commands. `check FILE` parses a policy and lists every
 * error as FILE:LINE:COL (exit 2). `run` is the proxy (src/proxy/server.c);
 * `reload` and `stats` talk to a running one over its control socket.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <jansson.h>

#include "cli/rulefile.h"
#include "proxy/control.h"
#include "proxy/policy.h"
#include "proxy/server.h"

#define CONTROL_DEFAULT FP_PX_CONTROL_DEFAULT

static const char *display_name(const char *path)
{
	return strcmp(path, "-") ? path : "<stdin>";
}

/*
 * Reads and parses a policy file: CLI_OK with *pol filled, CLI_FAIL when it
 * cannot be read, CLI_USAGE with diags filled when it has errors.
 */
int cli_proxy_read_policy(const struct cli *cli, const char *path, struct fp_px_policy *pol,
			  struct fp_diags *diags)
{
	size_t len = 0;
	char *text = cli_slurp(path, &len);
	int err;

	memset(pol, 0, sizeof(*pol));
	if (!text)
		return cli_fail(cli, "proxy: cannot read policy '%s': %s", path,
				cli_slurp_error(errno));
	err = fp_px_policy__parse(text, len, pol, diags);
	free(text);
	if (err == -EINVAL)
		return CLI_USAGE;
	if (err)
		return cli_fail(cli, "proxy: cannot parse '%s': %s", path, strerror(-err));
	return CLI_OK;
}

static int do_check(struct cli *cli, int argc, char **argv)
{
	struct fp_px_policy pol;
	struct fp_diags d = { 0 };
	const char *name;
	int rc = cli_nargs(cli, argc, argv, 1, 1);

	if (rc)
		return rc;
	name = display_name(argv[1]);
	rc = cli_proxy_read_policy(cli, argv[1], &pol, &d);
	if (rc == CLI_FAIL)
		goto out;
	if (out_is_json()) {
		size_t k = d.v ? (d.n < d.cap ? d.n : d.cap) : 0;

		out_obj_begin();
		out_str("file", name);
		out_u64("rules", pol.n);
		out_str("default", rc == CLI_OK ? fp_px_action__name(pol.default_action) : NULL);
		if (rc != CLI_OK)
			out_strf("error", "%s: %zu error%s", name, d.n, d.n > 1 ? "s" : "");
		out_list_begin("errors");
		for (size_t i = 0; i < k; i++) {
			out_row_begin();
			out_u64("line", d.v[i].line);
			out_u64("col", d.v[i].col);
			out_str("message", d.v[i].msg);
			out_row_end();
		}
		out_list_end();
		out_obj_end();
	} else if (rc == CLI_OK) {
		printf("%s: %zu rule%s, default %s\n", name, pol.n, pol.n == 1 ? "" : "s",
		       fp_px_action__name(pol.default_action));
	} else {
		cli_print_diags(name, &d);
		fprintf(stderr, "fastpath: %s: %zu error%s\n", name, d.n, d.n > 1 ? "s" : "");
	}
out:
	fp_px_policy__free(&pol);
	fp_diags__free(&d);
	return rc;
}

/* ADDR:PORT, [V6]:PORT; 0 or -1 */
static int parse_addr(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(s, ':'), *h = s;
	size_t hn;
	char *end;
	long port;

	if (!colon)
		return -1;
	hn = (size_t)(colon - s);
	if (hn && s[0] == '[' && s[hn - 1] == ']') {
		h++;
		hn -= 2;
	}
	if (!hn || hn >= sizeof(host))
		return -1;
	memcpy(host, h, hn);
	host[hn] = 0;
	port = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || port < 1 || port > 65535)
		return -1;
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		((struct sockaddr_in *)ss)->sin_family = AF_INET;
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
		*len = sizeof(struct sockaddr_in);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
		*len = sizeof(struct sockaddr_in6);
		return 0;
	}
	return -1;
}

static int parse_uint(const char *s, unsigned min, unsigned max, unsigned *out)
{
	uint64_t v;

	if (cli_parse_u64(s, max, &v) || v < min)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int do_run(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "backend", required_argument, NULL, 'b' },
		{ "policy", required_argument, NULL, 'P' },
		{ "control", required_argument, NULL, 'c' },
		{ "max-conns", required_argument, NULL, 'm' },
		{ "header-timeout", required_argument, NULL, 't' },
		{ "access-log", required_argument, NULL, 'a' },
		{ "cookie-key", required_argument, NULL, 'k' },
		{ "transparent", no_argument, NULL, 'T' },
		{ "body-timeout", required_argument, NULL, 'B' },
		{ "data-path", required_argument, NULL, 'd' },
		{ "busy-poll", required_argument, NULL, 'p' },
		{ 0 },
	};
	struct fp_px_config cfg = { .control_path = CONTROL_DEFAULT, .max_conns = 1024,
				    .header_timeout_ms = 10000, .body_timeout_ms = 60000,
				    .ready_fd = -1 };
	struct fp_px_policy pol;
	struct fp_diags d = { 0 };
	bool have_listen = false;
	static struct fp_px_cookie_key key; /* lives as long as the server */
	const char *key_path = NULL, *key_from = "--cookie-key";
	long challenge_line = 0;
	char err[256] = "";
	unsigned v;
	int c, rc;

	fp_http_limits__default(&cfg.limits);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (parse_addr(optarg, &cfg.listen, &cfg.listen_len))
				return cli_usage(cli, "--listen '%s': expected ADDR:PORT", optarg);
			have_listen = true;
			break;
		case 'b':
			for (char *save = NULL, *t = strtok_r(optarg, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				if (cfg.n_backends == FP_PX_BACKENDS_MAX)
					return cli_usage(cli, "more than %d backends", FP_PX_BACKENDS_MAX);
				if (parse_addr(t, &cfg.backends[cfg.n_backends],
					       &cfg.backend_len[cfg.n_backends]))
					return cli_usage(cli, "--backend '%s': expected ADDR:PORT", t);
				cfg.n_backends++;
			}
			break;
		case 'P': cfg.policy_path = optarg; break;
		case 'c': cfg.control_path = optarg; break;
		case 'a': cfg.access_log = optarg; break;
		case 'm':
			if (parse_uint(optarg, 1, 1000000, &cfg.max_conns))
				return cli_usage(cli, "--max-conns '%s': expected 1..1000000", optarg);
			break;
		case 't':
			if (parse_uint(optarg, 1, 3600, &v))
				return cli_usage(cli, "--header-timeout '%s': expected 1..3600 seconds",
						 optarg);
			cfg.header_timeout_ms = v * 1000;
			break;
		case 'k':
			key_path = optarg;
			break;
		case 'T':
			cfg.transparent = true;
			break;
		case 'B':
			if (parse_uint(optarg, 0, 3600, &v))
				return cli_usage(cli, "--body-timeout '%s': expected 0..3600 seconds "
						 "(0: none)", optarg);
			cfg.body_timeout_ms = v * 1000;
			break;
		case 'd':
			if (fp_px_data_path__parse(optarg, &cfg.data_path))
				return cli_usage(cli, "--data-path '%s': expected splice, copy or sockmap",
						 optarg);
			break;
		case 'p':
			if (parse_uint(optarg, 0, 1000000, &cfg.busy_poll_us))
				return cli_usage(cli, "--busy-poll '%s': expected 0..1000000 microseconds "
						 "(0: off)", optarg);
			break;
		case ':':
			return cli_usage(cli, "%s needs a value", argv[optind - 1]);
		default:
			return cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage(cli, "unexpected argument '%s'", argv[optind]);
	if (!have_listen || (!cfg.n_backends && !cfg.transparent) || !cfg.policy_path)
		return cli_usage(cli, "--listen, --backend and --policy are required (--backend "
				 "may be left out with --transparent: the original destination)");
	rc = cli_proxy_read_policy(cli, cfg.policy_path, &pol, &d);
	if (rc == CLI_USAGE) {
		cli_print_diags(cfg.policy_path, &d);
		out_err("%s: %zu error%s; the proxy did not start", cfg.policy_path, d.n,
			d.n > 1 ? "s" : "");
	}
	fp_diags__free(&d);
	if (rc)
		return rc;
	for (size_t i = 0; i < pol.n && !challenge_line; i++)
		if (pol.rules[i].action == FP_PX_CHALLENGE || pol.rules[i].limit_challenge)
			challenge_line = pol.rules[i].line;
	if (!key_path && pol.challenge_key[0]) {
		key_path = pol.challenge_key; /* --cookie-key wins over the policy's line */
		key_from = "the policy's challenge-key";
	}
	if (challenge_line && !key_path) {
		fp_px_policy__free(&pol);
		return cli_usage(cli, "%s:%ld: a challenge needs a cookie key (--cookie-key FILE)",
				 cfg.policy_path, challenge_line);
	}
	if (key_path) {
		char kerr[300];

		if (fp_px_cookie__load_key(key_path, &key, kerr, sizeof(kerr))) {
			fp_px_policy__free(&pol);
			return cli_usage(cli, "%s (%s)%s", kerr, key_from,
					 challenge_line ? "; the policy has a challenge" : "");
		}
		cfg.cookie_key = &key;
	}	if (getenv("FASTPATH_PROXY_READY_FD"))
		cfg.ready_fd = atoi(getenv("FASTPATH_PROXY_READY_FD"));
	if (cfg.n_backends)
		fprintf(stderr, "fastpath proxy: %zu rules, %u backend%s, control %s, data path %s\n",
			pol.n, cfg.n_backends, cfg.n_backends > 1 ? "s" : "", cfg.control_path,
			fp_px_data_path__name(cfg.data_path));
	else
		fprintf(stderr, "fastpath proxy: %zu rules, transparent to each original "
			"destination, control %s, data path %s\n", pol.n, cfg.control_path,
			fp_px_data_path__name(cfg.data_path));
	rc = fp_px_server__run(&cfg, &pol, err, sizeof(err));
	fp_px_policy__free(&pol);
	if (rc)
		return cli_fail(cli, "proxy run: %s", err[0] ? err : strerror(-rc));
	return CLI_OK;
}

/* Sends one command line to a running proxy; its JSON answer, or NULL. */
static json_t *control_call(struct cli *cli, const char *path, const char *cmd, int *rc)
{
	char err[512];
	json_t *o = fp_px_control__call(path, cmd, 5, err, sizeof(err));

	if (!o)
		*rc = cli_fail(cli, "proxy %s: %s; is `fastpath proxy run` running with this "
			       "--control?", cmd, err);
	return o;
}

static const char *control_arg(struct cli *cli, int argc, char **argv, int *rc)
{
	const char *path = CONTROL_DEFAULT;

	*rc = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--control") && i + 1 < argc)
			path = argv[++i];
		else if (!strncmp(argv[i], "--control=", 10))
			path = argv[i] + 10;
		else {
			*rc = cli_usage(cli, "unexpected argument '%s'", argv[i]);
			return NULL;
		}
	}
	return path;
}

static int do_reload(struct cli *cli, int argc, char **argv)
{
	int rc;
	const char *path = control_arg(cli, argc, argv, &rc);
	json_t *o, *e;

	if (!path)
		return rc;
	o = control_call(cli, path, "reload", &rc);
	if (!o)
		return rc;
	e = json_object_get(o, "error");
	if (e) {
		size_t i;
		json_t *x;

		json_array_foreach(json_object_get(o, "errors"), i, x)
			if (!out_is_json())
				fprintf(stderr, "%s\n", json_string_value(x));
		rc = cli_fail(cli, "proxy reload: %s", json_string_value(e));
	} else if (out_is_json()) {
		char *t = json_dumps(o, JSON_COMPACT);

		printf("%s\n", t);
		free(t);
	} else {
		printf("policy reloaded: generation %lld, %lld rules\n",
		       (long long)json_integer_value(json_object_get(o, "generation")),
		       (long long)json_integer_value(json_object_get(o, "rules")));
	}
	json_decref(o);
	return rc;
}

static long long jint(json_t *o, const char *k)
{
	return (long long)json_integer_value(json_object_get(o, k));
}

static volatile sig_atomic_t stop_watch;
static void on_signal(int sig) { (void)sig; stop_watch = 1; }

static double rate(json_t *now, json_t *was, const char *k, double secs)
{
	long long a = jint(now, k), b = was ? jint(was, k) : 0;

	return a >= b ? (double)(a - b) / secs : (double)a / secs; /* reset: since then */
}

/* --watch: one line a rule and a backend each interval, with rates. */
static int watch_stats(struct cli *cli, const char *path, unsigned secs)
{
	json_t *prev = NULL, *o;
	int rc = CLI_OK;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	while (!stop_watch) {
		json_t *rules, *pr = NULL, *x;
		size_t i;
		bool same;

		o = control_call(cli, path, "stats", &rc);
		if (!o)
			break;
		rules = json_object_get(o, "rules");
		/* rules of another generation (a reload) count from zero */
		same = prev && jint(prev, "generation") == jint(o, "generation");
		if (same)
			pr = json_object_get(prev, "rules");
		json_array_foreach(rules, i, x) {
			json_t *w = pr ? json_array_get(pr, i) : NULL;

			out_line_begin();
			out_str("kind", "rule");
			out_strf("id", "%s:%lld", json_string_value(json_object_get(x, "action")),
				 jint(x, "line"));
			out_u64("requests", (uint64_t)jint(x, "requests"));
			if (prev)
				out_double("requests_per_s", rate(x, w, "requests", secs));
			else
				out_null("requests_per_s");
			out_u64("refused", (uint64_t)(jint(x, "requests") - jint(x, "allowed")));
			out_null("spliced_bps");
			out_null("copied_bps");
			out_line_end();
		}
		json_array_foreach(json_object_get(o, "backends"), i, x) {
			json_t *w = prev ? json_array_get(json_object_get(prev, "backends"), i) : NULL;

			out_line_begin();
			out_str("kind", "backend");
			out_str("id", json_string_value(json_object_get(x, "address")));
			out_u64("requests", (uint64_t)jint(x, "requests"));
			if (prev) {
				out_double("requests_per_s", rate(x, w, "requests", secs));
				out_u64("refused", (uint64_t)jint(x, "connect_failures"));
				out_double("spliced_bps", 8 * rate(x, w, "bytes_spliced", secs));
				out_double("copied_bps", 8 * rate(x, w, "bytes_copied", secs));
			} else {
				out_null("requests_per_s");
				out_u64("refused", (uint64_t)jint(x, "connect_failures"));
				out_null("spliced_bps");
				out_null("copied_bps");
			}
			out_line_end();
		}
		fflush(stdout);
		json_decref(prev);
		prev = o;
		for (unsigned t = 0; t < secs * 10 && !stop_watch; t++)
			usleep(100000);
	}
	json_decref(prev);
	return rc;
}

static int do_stats(struct cli *cli, int argc, char **argv)
{
	int rc = 0;
	const char *path = CONTROL_DEFAULT;
	unsigned secs = 0;
	json_t *o, *x;
	size_t i;

	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--control") && a + 1 < argc) {
			path = argv[++a];
		} else if (!strncmp(argv[a], "--control=", 10)) {
			path = argv[a] + 10;
		} else if (!strcmp(argv[a], "--watch")) {
			secs = 1;
			/* a number after --watch is its SECONDS */
			if (a + 1 < argc && argv[a + 1][0] >= '0' && argv[a + 1][0] <= '9' &&
			    parse_uint(argv[++a], 1, 3600, &secs))
				return cli_usage(cli, "--watch takes seconds (0 < S <= 3600), not '%s'",
						 argv[a]);
		} else {
			return cli_usage(cli, "unexpected argument '%s'", argv[a]);
		}
	}
	if (secs)
		return watch_stats(cli, path, secs);
	o = control_call(cli, path, "stats", &rc);
	if (!o)
		return rc;
	if (out_is_json()) {
		char *t = json_dumps(o, JSON_COMPACT);

		printf("%s\n", t);
		free(t);
		json_decref(o);
		return CLI_OK;
	}
	printf("policy %s (generation %lld), %lld connections, %lld accepted\n",
	       json_string_value(json_object_get(o, "policy")), jint(o, "generation"),
	       jint(o, "connections"), jint(o, "accepted"));
	printf("bytes: %lld spliced in the kernel, %lld copied through user space\n",
	       jint(o, "bytes_spliced"), jint(o, "bytes_copied"));
	printf("\n%-6s %-14s %10s %10s  %s\n", "line", "action", "requests", "allowed",
	       "refused (status:count; closed: TLS connections closed)");
	json_array_foreach(json_object_get(o, "rules"), i, x) {
		const char *k;
		json_t *v;
		char ref[128] = "";
		size_t used = 0;

		json_object_foreach(json_object_get(x, "statuses"), k, v)
			used += (size_t)snprintf(ref + used, used < sizeof(ref) ? sizeof(ref) - used : 0,
						 "%s%s:%lld", used ? " " : "", k,
						 (long long)json_integer_value(v));
		if (jint(x, "closed") && used < sizeof(ref))
			snprintf(ref + used, sizeof(ref) - used, "%sclosed:%lld", used ? " " : "",
				 jint(x, "closed"));
		printf("%-6lld %-14s %10lld %10lld  %s\n", jint(x, "line"),
		       json_string_value(json_object_get(x, "action")), jint(x, "requests"),
		       jint(x, "allowed"), ref);
	}
	printf("\n%-24s %10s %10s %10s %14s %12s\n", "backend", "requests", "connects", "failures",
	       "spliced", "copied");
	json_array_foreach(json_object_get(o, "backends"), i, x)
		printf("%-24s %10lld %10lld %10lld %14lld %12lld\n",
		       json_string_value(json_object_get(x, "address")), jint(x, "requests"),
		       jint(x, "connects"), jint(x, "connect_failures"), jint(x, "bytes_spliced"),
		       jint(x, "bytes_copied"));
	printf("\nrefused before a decision:");
	{
		const char *k;
		json_t *v;

		json_object_foreach(json_object_get(o, "refused"), k, v)
			printf(" %s:%lld", k, (long long)json_integer_value(v));
	}
	printf("; TLS closed unread: %lld; bodies that stopped arriving: %lld\n",
	       jint(o, "tls_refused"), jint(o, "body_timeouts"));
	json_decref(o);
	return CLI_OK;
}

static const struct cli_verb verbs[] = {
	{ "run", "--listen ADDR:PORT --backend ADDR:PORT[,ADDR:PORT...] --policy FILE "
		 "[--transparent] [--control PATH] [--max-conns N] [--header-timeout SEC] [--body-timeout SEC] "
		 "[--access-log FILE|-] [--cookie-key FILE] [--data-path splice|copy|sockmap] "
		 "[--busy-poll USEC]",
	  "run the proxy in the foreground until SIGINT/SIGTERM (SIGHUP reloads); --transparent: "
	  "take connections an nft tproxy rule diverts (IP_TRANSPARENT), sent to their original "
	  "destination when no --backend is given; --busy-poll USEC: poll without sleeping for "
	  "up to USEC after the last event (0, the default: off; spends CPU, saves wakeups)", do_run },
	{ "check", "FILE", "check a policy file: every error as FILE:LINE:COL (exit 2)", do_check },
	{ "reload", "[--control PATH]", "make a running proxy read its policy again", do_reload },
	{ "stats", "[--control PATH] [--watch [SECONDS]]",
	  "a running proxy's counters per rule and per backend; --watch: a line a rule and a "
	  "backend every SECONDS (1) with rates (requests/s, bits/s spliced and copied) until "
	  "Ctrl-C; with -j one JSON object a line", do_stats,
	  "Example:  fastpath proxy stats --control /run/fastpath-proxy.sock --watch 2\n" },
	{ NULL },
};

int cmd_proxy(struct cli *cli, int argc, char **argv)
{
	return cli_dispatch(cli, verbs, argc, argv);
}
