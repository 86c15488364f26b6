// SPDX-License-Identifier: BSD-2-Clause
/* Prometheus families of running proxies (proxy_metrics.h). */
#include "exporter/proxy_metrics.h"

#include <stdlib.h>
#include <string.h>

#include "exporter/metrics.h"
#include "proxy/control.h"

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void sample(FILE *f, const char *name, const char *proxy)
{
	fprintf(f, "%s{proxy=\"", name);
	fp_metrics__put_label(f, proxy);
	fputc('"', f);
}

static void label(FILE *f, const char *key, const char *val)
{
	fprintf(f, ",%s=\"", key);
	fp_metrics__put_label(f, val);
	fputc('"', f);
}

static void value(FILE *f, json_t *v)
{
	fprintf(f, "} %lld\n", (long long)json_integer_value(v));
}

/* A family with one sample a proxy from a top-level field of stats. */
static void per_proxy(FILE *f, const char *const *paths, json_t *const *stats, size_t n,
		      const char *name, const char *type, const char *field, const char *help)
{
	family(f, name, type, help);
	for (size_t i = 0; i < n; i++) {
		if (!stats[i])
			continue;
		sample(f, name, paths[i]);
		value(f, json_object_get(stats[i], field));
	}
}

static void rule_labels(FILE *f, json_t *r)
{
	char id[32];
	long long line = (long long)json_integer_value(json_object_get(r, "line"));
	const char *action = json_string_value(json_object_get(r, "action"));

	if (action && !strncmp(action, "default ", 8)) {
		snprintf(id, sizeof(id), "default");
		action += 8;
	} else {
		snprintf(id, sizeof(id), "line:%lld", line);
	}
	label(f, "rule", id);
	label(f, "action", action ? action : "?");
}

enum rule_what { RULE_REQUESTS, RULE_ALLOWED, RULE_REFUSED };

static void per_rule(FILE *f, const char *const *paths, json_t *const *stats, size_t n,
		     const char *name, enum rule_what what, const char *help)
{
	family(f, name, "counter", help);
	for (size_t i = 0; i < n; i++) {
		json_t *r;
		size_t k;

		if (!stats[i])
			continue;
		json_array_foreach(json_object_get(stats[i], "rules"), k, r) {
			const char *st;
			json_t *v;

			if (what != RULE_REFUSED) {
				sample(f, name, paths[i]);
				rule_labels(f, r);
				value(f, json_object_get(r, what == RULE_REQUESTS ? "requests" : "allowed"));
				continue;
			}
			json_object_foreach(json_object_get(r, "statuses"), st, v) {
				sample(f, name, paths[i]);
				rule_labels(f, r);
				label(f, "status", st);
				value(f, v);
			}
			sample(f, name, paths[i]);
			rule_labels(f, r);
			label(f, "status", "closed");
			value(f, json_object_get(r, "closed"));
		}
	}
}

static void per_backend(FILE *f, const char *const *paths, json_t *const *stats, size_t n,
			const char *name, const char *field, const char *help)
{
	family(f, name, "counter", help);
	for (size_t i = 0; i < n; i++) {
		json_t *b;
		size_t k;

		if (!stats[i])
			continue;
		json_array_foreach(json_object_get(stats[i], "backends"), k, b) {
			sample(f, name, paths[i]);
			label(f, "backend", json_string_value(json_object_get(b, "address")));
			value(f, json_object_get(b, field));
		}
	}
}

void fp_metrics__render_proxies(FILE *f, const char *const *paths, json_t *const *stats,
				size_t n)
{
	const char *name = "fastpath_proxy_up";

	if (!n)
		return;
	family(f, name, "gauge", "1 if the proxy answered on its control socket, 0 if not.");
	for (size_t i = 0; i < n; i++) {
		sample(f, name, paths[i]);
		fprintf(f, "} %d\n", stats[i] != NULL);
	}
	per_proxy(f, paths, stats, n, "fastpath_proxy_connections", "gauge", "connections",
		  "Client connections open now.");
	per_proxy(f, paths, stats, n, "fastpath_proxy_accepted_total", "counter", "accepted",
		  "Client connections accepted (the refused with 503 too).");
	per_proxy(f, paths, stats, n, "fastpath_proxy_policy_generation", "gauge", "generation",
		  "Policies loaded since the start (1, then one more a reload).");
	per_rule(f, paths, stats, n, "fastpath_proxy_rule_requests_total", RULE_REQUESTS,
		 "Requests (and TLS connections) the rule decided, since the policy was loaded.");
	per_rule(f, paths, stats, n, "fastpath_proxy_rule_allowed_total", RULE_ALLOWED,
		 "Requests (and TLS connections) the rule let through to a backend.");
	per_rule(f, paths, stats, n, "fastpath_proxy_rule_refused_total", RULE_REFUSED,
		 "Requests the rule answered itself, by status; status=\"closed\": TLS connections closed.");
	per_backend(f, paths, stats, n, "fastpath_proxy_backend_requests_total", "requests",
		    "Requests (and TLS connections) forwarded to the backend.");
	per_backend(f, paths, stats, n, "fastpath_proxy_backend_connects_total", "connects",
		    "Connections the proxy opened to the backend (tries).");
	per_backend(f, paths, stats, n, "fastpath_proxy_backend_connect_failures_total",
		    "connect_failures", "Connections to the backend that failed.");
	per_backend(f, paths, stats, n, "fastpath_proxy_backend_bytes_spliced_total",
		    "bytes_spliced", "Bytes moved between the client and the backend inside the kernel (splice), both ways.");
	per_backend(f, paths, stats, n, "fastpath_proxy_backend_bytes_copied_total", "bytes_copied",
		    "Bytes to the backend copied through the proxy's memory (request heads, chunk lines).");
	name = "fastpath_proxy_refused_total";
	family(f, name, "counter", "Requests refused before a policy decision, by status.");
	for (size_t i = 0; i < n; i++) {
		const char *st;
		json_t *v;

		if (!stats[i])
			continue;
		json_object_foreach(json_object_get(stats[i], "refused"), st, v) {
			sample(f, name, paths[i]);
			label(f, "status", st);
			value(f, v);
		}
	}
	per_proxy(f, paths, stats, n, "fastpath_proxy_tls_refused_total", "counter", "tls_refused",
		  "Connections that began as TLS but whose ClientHello could not be read (closed).");
	per_proxy(f, paths, stats, n, "fastpath_proxy_body_timeouts_total", "counter", "body_timeouts",
		  "Request bodies cut because no byte arrived for --body-timeout.");
}

void fp_metrics__proxies(FILE *f, const char *const *paths, size_t n)
{
	json_t **stats = calloc(n ? n : 1, sizeof(*stats));
	char err[256];

	if (!stats)
		return;
	for (size_t i = 0; i < n; i++)
		stats[i] = fp_px_control__call(paths[i], "stats", 2, err, sizeof(err));
	fp_metrics__render_proxies(f, paths, stats, n);
	for (size_t i = 0; i < n; i++)
		json_decref(stats[i]);
	free(stats);
}
