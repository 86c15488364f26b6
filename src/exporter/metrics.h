/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Prometheus text exposition (format 0.0.4) of what fastpath has pinned:
 * rendering from plain structs (testable without BPF or HTTP), and one
 * scrape that reads every loaded interface's pins and renders them.
 *
 * Metric families, each with one HELP and one TYPE line:
 *   fastpath_rule_packets_total{iface,rule}          counter
 *   fastpath_rule_bytes_total{iface,rule}            counter
 *   fastpath_rule_drops_total{iface,rule}            counter
 *   fastpath_rule_samples_total{iface,rule}          counter
 *   fastpath_stage_packets_total{iface,stage,verdict,decision}  counter
 *                                  (the filter, by how it decided)
 *   fastpath_stage_packets_total{iface,stage,verdict}  counter (every other
 *                                  stage of the table that counts, by XDP
 *                                  action: aborted drop pass tx redirect)
 *   fastpath_stage_bytes_total{iface,stage,verdict,decision}    counter
 *   fastpath_samples_total{iface}                    counter
 *   fastpath_samples_lost_total{iface}               counter
 *   fastpath_rules{iface}                            gauge
 *   fastpath_generation{iface}                       gauge
 *   fastpath_loaded_timestamp_seconds{iface}         gauge
 *   fastpath_applied_timestamp_seconds{iface}        gauge
 *   fastpath_stage_enabled{iface,stage}              gauge 0/1 (every loaded stage)
 *   fastpath_interface_info{iface,state,mode}        gauge 1
 *   fastpath_scrape_errors_total                     counter
 *
 * Functions return 0 or a negative errno; nothing prints.
 */
#ifndef FP_EXPORTER_METRICS_H
#define FP_EXPORTER_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "filter/filter.h"
#include "status/status.h"

struct fp_metrics_iface {
	const struct fp_iface_status *st;
	const struct fp_filter_view *view; /* the filter's rules and counters; NULL
					    * when broken or without a filter */
};

struct fp_metrics {
	const struct fp_metrics_iface *ifaces;
	size_t n;
	uint64_t scrape_errors;            /* interfaces or roots not read, all scrapes */
};

/* Content-Type of what fp_metrics__render writes. */
#define FP_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Renders m as a malloc'd text (*text, *len; NUL-terminated). */
int fp_metrics__render(const struct fp_metrics *m, char **text, size_t *len);

/*
 * Writes s as a label value (without the quotes): backslash, double quote
 * and newline escaped as \\, \" and \n.
 */
void fp_metrics__put_label(FILE *f, const char *s);
/* A family's HELP and TYPE lines; a label ,key="val" (escaped) after the
 * first one, for the other renderers (lb_metrics.c, bridge_metrics.c). */
void fp_metrics__family(FILE *f, const char *name, const char *type, const char *help);
void fp_metrics__label(FILE *f, const char *key, const char *val);

/*
 * One scrape: lists the interfaces under the pin root of bpffs, reads each
 * (fp_status__read) and renders them, and the orphans (fp_status__orphans)
 * as fastpath_interface_info only. Every interface or root that cannot
 * be read adds one to *errors, which is rendered as
 * fastpath_scrape_errors_total (the caller keeps it across scrapes); err
 * (may be NULL) gets the first such error's message, "" if none (a
 * permission error says how to grant access).
 */
int fp_metrics__scrape(const char *bpffs, uint64_t *errors, char **text, size_t *len,
		       char *err, size_t errlen);

#endif /* FP_EXPORTER_METRICS_H */
