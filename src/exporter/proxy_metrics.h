/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Prometheus families of running `fastpath proxy` processes, read from
 * their control sockets (`fastpath exporter --proxy PATH`), each sample
 * labelled proxy="PATH":
 *
 *   fastpath_proxy_up{proxy}                               gauge 1, 0 when it did not answer
 *   fastpath_proxy_connections{proxy}                      gauge
 *   fastpath_proxy_accepted_total{proxy}                   counter
 *   fastpath_proxy_policy_generation{proxy}                gauge
 *   fastpath_proxy_rule_requests_total{proxy,rule,action}  counter (requests or TLS connections)
 *   fastpath_proxy_rule_allowed_total{proxy,rule,action}   counter
 *   fastpath_proxy_rule_refused_total{proxy,rule,action,status}  counter (status "closed":
 *                                                          TLS connections closed)
 *   fastpath_proxy_backend_requests_total{proxy,backend}   counter
 *   fastpath_proxy_backend_connects_total{proxy,backend}   counter
 *   fastpath_proxy_backend_connect_failures_total{proxy,backend}  counter
 *   fastpath_proxy_backend_bytes_spliced_total{proxy,backend}     counter (in the kernel)
 *   fastpath_proxy_backend_bytes_copied_total{proxy,backend}      counter (through user space)
 *   fastpath_proxy_refused_total{proxy,status}             counter (before a decision)
 *   fastpath_proxy_tls_refused_total{proxy}                counter (not a readable ClientHello)
 *   fastpath_proxy_body_timeouts_total{proxy}              counter (bodies that stopped arriving)
 *
 * rule is "line:N", or "default"; a rule's counters start again at a reload.
 */
#ifndef FP_EXPORTER_PROXY_METRICS_H
#define FP_EXPORTER_PROXY_METRICS_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* Renders the families of stats[i] (the proxies' `stats` answers, NULL for
 * one that did not answer), labelled with paths[i], into f. */
void fp_metrics__render_proxies(FILE *f, const char *const *paths, json_t *const *stats,
				size_t n);

/* Asks each proxy for its stats and renders them (as above) into f. */
void fp_metrics__proxies(FILE *f, const char *const *paths, size_t n);

#endif /* FP_EXPORTER_PROXY_METRICS_H */
