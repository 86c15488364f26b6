/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Prometheus families of the lb and bridge stages, read from their
 * pins at each scrape and rendered after the pipeline's (metrics.h):
 *
 *   fastpath_lb_vip_packets_total{iface,vip}            counter
 *   fastpath_lb_vip_bytes_total{iface,vip}              counter
 *   fastpath_lb_vip_new_flows_total{iface,vip}          counter (Maglev choices)
 *   fastpath_lb_vip_conn_hits_total{iface,vip}          counter (connection table)
 *   fastpath_lb_vip_conn_misses_total{iface,vip}        counter
 *   fastpath_lb_backend_packets_total{iface,vip,backend}    counter
 *   fastpath_lb_backend_bytes_total{iface,vip,backend}      counter
 *   fastpath_lb_backend_new_flows_total{iface,vip,backend}  counter
 *   fastpath_lb_backend_state{iface,vip,backend,state}  gauge 1 (state up, drain or down)
 *   fastpath_lb_backend_weight{iface,vip,backend}       gauge
 *   fastpath_lb_packets_total{iface,cause}              counter (forward_tx, not_vip, ...:
 *                                                       as `lb stats`)
 *   fastpath_bridge_port_frames_total{bridge,port,event}  counter (in, forwarded,
 *                                                       flooded, to_host, drop_*, ...:
 *                                                       as `bridge stats`)
 *   fastpath_bridge_port_learned{bridge,port}           gauge (FDB entries it has learned now)
 *
 * An lb or bridge that cannot be read adds one to *errors (the exporter's
 * fastpath_scrape_errors_total counts them with the pipeline's), err gets
 * the first message. Nothing here prints.
 */
#ifndef FP_EXPORTER_STAGE_METRICS_H
#define FP_EXPORTER_STAGE_METRICS_H

#include <stdint.h>
#include <stdio.h>

/* Every interface's lb under bpffs's pin root, into f. */
void fp_metrics__lbs(FILE *f, const char *bpffs, uint64_t *errors, char *err, size_t errlen);
/* Every bridge under bpffs's pin root, into f. */
void fp_metrics__bridges(FILE *f, const char *bpffs, uint64_t *errors, char *err,
			 size_t errlen);

#endif
