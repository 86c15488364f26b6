// SPDX-License-Identifier: BSD-2-Clause
/*
 * `fastpath exporter [--listen ADDR:PORT]`: serves the Prometheus text
 * exposition of every loaded interface at GET /metrics (libmicrohttpd, one
 * internal thread, read-only: 405 for other methods, 404 for other paths),
 * reading the pins afresh on each scrape. Runs until SIGINT or SIGTERM.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "cli/cli.h"
#include "exporter/metrics.h"
#include "exporter/proxy_metrics.h"
#include "exporter/stage_metrics.h"

#define DEFAULT_LISTEN "127.0.0.1:9435"

struct exporter {
	const char *bpffs;
	uint64_t errors;   /* scrape errors so far (only the one MHD thread writes) */
	uint64_t scrapes;
	char logged[512];  /* the last scrape error logged (each logged once in a row) */
	const char *proxies[16]; /* --proxy: control sockets of running proxies */
	size_t n_proxies;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body,
			     const char *allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_size, void **state)
{
	struct exporter *ex = cls;
	struct MHD_Response *r;
	enum MHD_Result ret;
	char *text, *more, *all, msg[512], smsg[512];
	size_t len, mlen;
	FILE *f;
	int err;

	(void)version;
	(void)upload_data;
	(void)state;
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "not found; the metrics are at /metrics\n", NULL);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed; use GET\n",
			     "GET, HEAD");
	if (upload_size && *upload_size) /* a GET with a body: ignore it */
		*upload_size = 0;
	/* the lbs', bridges' and proxies' families first, so that the errors
	 * they count are in this scrape's fastpath_scrape_errors_total; their
	 * text goes after the pipeline's */
	more = NULL;
	mlen = 0;
	smsg[0] = 0;
	f = open_memstream(&more, &mlen);
	if (f) {
		fp_metrics__lbs(f, ex->bpffs, &ex->errors, smsg, sizeof(smsg));
		fp_metrics__bridges(f, ex->bpffs, &ex->errors, smsg, sizeof(smsg));
		if (ex->n_proxies)
			fp_metrics__proxies(f, ex->proxies, ex->n_proxies);
		fclose(f);
	}
	err = fp_metrics__scrape(ex->bpffs, &ex->errors, &text, &len, msg, sizeof(msg));
	if (!msg[0])
		snprintf(msg, sizeof(msg), "%s", smsg);
	/* an error goes to the log once, not at every scrape; the counter
	 * fastpath_scrape_errors_total counts every one */
	if (msg[0] && strcmp(msg, ex->logged))
		fprintf(stderr, "fastpath exporter: scrape error: %s\n", msg);
	snprintf(ex->logged, sizeof(ex->logged), "%s", msg);
	if (err) {
		free(more);
		out_dbg(1, "scrape failed: %s", strerror(-err));
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "scrape failed\n", NULL);
	}
	ex->scrapes++;
	all = more ? realloc(text, len + mlen + 1) : NULL;
	if (all) {
		memcpy(all + len, more, mlen + 1);
		text = all;
		len += mlen;
	}
	free(more);
	r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, FP_METRICS_CONTENT_TYPE);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* ADDR:PORT or [ADDR6]:PORT, numeric only. */
static int parse_listen(const char *arg, struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	char host[256];
	const char *colon, *port;
	size_t hlen;

	if (arg[0] == '[') {
		const char *end = strchr(arg, ']');

		if (!end || end[1] != ':')
			return -EINVAL;
		hlen = (size_t)(end - arg - 1);
		memcpy(host, arg + 1, hlen < sizeof(host) ? hlen : 0);
		port = end + 2;
	} else {
		colon = strrchr(arg, ':');
		if (!colon || strchr(arg, ':') != colon)
			return -EINVAL;
		hlen = (size_t)(colon - arg);
		memcpy(host, arg, hlen < sizeof(host) ? hlen : 0);
		port = colon + 1;
	}
	if (!hlen || hlen >= sizeof(host) || !*port)
		return -EINVAL;
	/* getaddrinfo takes 99999 and listens on 99999 mod 65536 */
	if (strspn(port, "0123456789") != strlen(port) || strlen(port) > 5 ||
	    strtoul(port, NULL, 10) > 65535)
		return -EINVAL;
	host[hlen] = 0;
	if (getaddrinfo(host, port, &hints, &res) || !res)
		return -EINVAL;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

static void print_url(const struct sockaddr_storage *ss, uint16_t port)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, host, sizeof(host));
		fprintf(stderr, "fastpath exporter: listening on http://[%s]:%u/metrics\n", host, port);
	} else {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, host, sizeof(host));
		fprintf(stderr, "fastpath exporter: listening on http://%s:%u/metrics\n", host, port);
	}
}

static int do_exporter(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "proxy", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct exporter ex = { .bpffs = cli->bpffs };
	const char *listen = DEFAULT_LISTEN;
	const union MHD_DaemonInfo *info;
	struct sockaddr_storage ss = { 0 };
	struct MHD_Daemon *d;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD;
	sigset_t sigs, old;
	uint16_t port;
	int c, sig = 0;

	cli->cmd = NULL; /* usage errors say "fastpath exporter: ...", as gen does */
	optind = 0;
	while ((c = getopt_long(argc, argv, ":l:", opts, NULL)) != -1) {
		if (c == 'l')
			listen = optarg;
		else if (c == 'p' && ex.n_proxies == sizeof(ex.proxies) / sizeof(ex.proxies[0]))
			return cli_usage(cli, "more than %zu --proxy sockets",
					 sizeof(ex.proxies) / sizeof(ex.proxies[0]));
		else if (c == 'p')
			ex.proxies[ex.n_proxies++] = optarg;
		else if (c == ':')
			return cli_usage(cli, "option '%s' needs %s", argv[optind - 1],
					 strcmp(argv[optind - 1], "--proxy") ? "ADDR:PORT" : "PATH");
		else
			return cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
	}
	if (optind < argc)
		return cli_usage(cli, "unexpected argument '%s'", argv[optind]);
	if (parse_listen(listen, &ss))
		return cli_usage(cli, "--listen takes ADDR:PORT or [ADDR6]:PORT, a numeric "
				 "address and a port 0..65535, not '%s'", listen);
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;

	/* The MHD thread inherits the blocked mask: only this thread takes the signals. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, &old);
	signal(SIGPIPE, SIG_IGN);
	errno = 0;
	d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, &ex,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)64,
			     MHD_OPTION_END);
	if (!d) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return cli_fail(cli, "cannot listen on %s: %s; pick another --listen ADDR:PORT",
				listen, errno ? strerror(errno) : "libmicrohttpd failed to start");
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	port = info ? info->port : 0;
	print_url(&ss, port);
	while (sigwait(&sigs, &sig) == 0 && sig != SIGINT && sig != SIGTERM)
		;
	MHD_stop_daemon(d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	out_dbg(1, "exporter stopped by signal %d after %llu scrapes", sig,
		(unsigned long long)ex.scrapes);
	return CLI_OK;
}

int cmd_exporter(struct cli *cli, int argc, char **argv)
{
	static const struct cli_verb cmd = {
		"exporter", "[--listen ADDR:PORT] [--proxy CONTROL]...",
		"serve Prometheus metrics of every loaded interface at GET /metrics "
		"(default " DEFAULT_LISTEN ")", do_exporter,
		"       Per interface and rule: packets, bytes, drops, samples; per stage and decision;\n"
		"       dump samples and losses; rules, generation, load and apply times; per lb VIP\n"
		"       and backend: packets, bytes, new flows, state, weight (fastpath_lb_*); per\n"
		"       bridge port: frames by event, learned entries (fastpath_bridge_*). No rates:\n"
		"       PromQL's rate() makes them (it handles the per-rule reset at each apply).\n"
		"         --listen ADDR:PORT    numeric address; [ADDR6]:PORT for IPv6; port 0 picks one\n"
		"         --proxy CONTROL       also the counters of the fastpath proxy whose control\n"
		"                               socket is CONTROL (fastpath_proxy_*; up to 16)\n"
		"       Example: fastpath exporter --listen 127.0.0.1:9435 &\n"
		"                curl -s http://127.0.0.1:9435/metrics | promtool check metrics\n",
	};

	return cli_run(cli, &cmd, argc, argv);
}
