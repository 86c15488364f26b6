// SPDX-License-Identifier: BSD-2-Clause
/* The lb's Prometheus families (stage_metrics.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "exporter/metrics.h"
#include "filter/filter.h"
#include "exporter/stage_metrics.h"
#include "lb/lb.h"
#include "status/status.h"

/* One interface's lb, read at once so that every family shows one moment. */
struct lb_snap {
	const char *iface;
	struct fp_lb_vip_info *v;
	struct fp_lb_be_info *b;
	struct fp_lb_stats *vs, *bs;
	int nv, nb;
	__u64 c[FP_LB_C_MAX];
};

static int snap(struct fp_lb *lb, const char *iface, struct lb_snap *s)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->iface = iface;
	ret = fp_lb__vips(lb, &s->v, &s->nv);
	if (!ret)
		ret = fp_lb__backends(lb, ~0u, false, &s->b, &s->nb);
	if (!ret && !(s->vs = calloc((size_t)s->nv + 1, sizeof(*s->vs))))
		ret = -ENOMEM;
	if (!ret && !(s->bs = calloc((size_t)s->nb + 1, sizeof(*s->bs))))
		ret = -ENOMEM;
	for (int i = 0; !ret && i < s->nv; i++)
		ret = fp_lb__vip_stats(lb, s->v[i].vip.index, &s->vs[i]);
	for (int i = 0; !ret && i < s->nb; i++)
		ret = fp_lb__be_stats(lb, s->b[i].index, &s->bs[i]);
	if (!ret)
		ret = fp_lb__counters(lb, s->c);
	return ret;
}

static void snap_free(struct lb_snap *s)
{
	free(s->v);
	free(s->b);
	free(s->vs);
	free(s->bs);
}

static const struct fp_lb_vip_info *vip_of(const struct lb_snap *s, __u32 index)
{
	for (int i = 0; i < s->nv; i++)
		if (s->v[i].vip.index == index)
			return &s->v[i];
	return NULL;
}

static void vip_labels(FILE *f, const char *name, const struct lb_snap *s,
		       const struct fp_lb_vip_info *v)
{
	char vs[80];

	fp_lb_vip_str(&v->key, vs, sizeof(vs));
	fprintf(f, "%s{iface=\"", name);
	fp_metrics__put_label(f, s->iface);
	fputc('"', f);
	fp_metrics__label(f, "vip", vs);
}

enum lb_value { L_PACKETS, L_BYTES, L_NEW, L_HITS, L_MISSES };

static __u64 stat_value(const struct fp_lb_stats *st, enum lb_value w)
{
	return w == L_PACKETS ? st->packets : w == L_BYTES ? st->bytes :
	       w == L_NEW ? st->new_flows : w == L_HITS ? st->conn_hits : st->conn_misses;
}

static void per_vip(FILE *f, const struct lb_snap *s, size_t n, const char *name,
		    const char *help, enum lb_value w)
{
	fp_metrics__family(f, name, "counter", help);
	for (size_t k = 0; k < n; k++)
		for (int i = 0; i < s[k].nv; i++) {
			vip_labels(f, name, &s[k], &s[k].v[i]);
			fprintf(f, "} %llu\n", (unsigned long long)stat_value(&s[k].vs[i], w));
		}
}

enum be_value { B_PACKETS, B_BYTES, B_NEW, B_STATE, B_WEIGHT };

static void per_backend(FILE *f, const struct lb_snap *s, size_t n, const char *name,
			const char *type, const char *help, enum be_value w)
{
	fp_metrics__family(f, name, type, help);
	for (size_t k = 0; k < n; k++)
		for (int i = 0; i < s[k].nb; i++) {
			const struct fp_lb_vip_info *v = vip_of(&s[k], s[k].b[i].be.vip_index);
			const struct fp_lb_backend *be = &s[k].b[i].be;
			__u64 val;
			char bs[64];

			if (!v)
				continue;
			fp_lb_addr_str(be->addr, be->family, bs, sizeof(bs));
			vip_labels(f, name, &s[k], v);
			fp_metrics__label(f, "backend", bs);
			if (w == B_STATE)
				fp_metrics__label(f, "state", be->flags & FP_LB_BE_DOWN ? "down" :
						  be->flags & FP_LB_BE_DRAIN ? "drain" : "up");
			val = w == B_STATE ? 1 : w == B_WEIGHT ? be->weight :
			      w == B_PACKETS ? s[k].bs[i].packets :
			      w == B_BYTES ? s[k].bs[i].bytes : s[k].bs[i].new_flows;
			fprintf(f, "} %llu\n", (unsigned long long)val);
		}
}

static void by_cause(FILE *f, const struct lb_snap *s, size_t n)
{
	const char *name = "fastpath_lb_packets_total";

	fp_metrics__family(f, name, "counter", "Packets the lb stage handled, by what it did "
			   "with them (forward_tx, forward_redirect, not_vip: on down the chain, "
			   "or why it did not forward them), as fastpath lb stats.");
	for (size_t k = 0; k < n; k++)
		for (unsigned c = 0; c < FP_LB_C_MAX; c++) {
			fprintf(f, "%s{iface=\"", name);
			fp_metrics__put_label(f, s[k].iface);
			fputc('"', f);
			fp_metrics__label(f, "cause", fp_lb_counter_name(c));
			fprintf(f, "} %llu\n", (unsigned long long)s[k].c[c]);
		}
}

void fp_metrics__lbs(FILE *f, const char *bpffs, uint64_t *errors, char *err, size_t errlen)
{
	struct lb_snap *s = NULL;
	char **names = NULL, msg[512];
	size_t n = 0, got = 0;

	if (fp_status__list(bpffs, &names, &n) || !n ||
	    !(s = calloc(n, sizeof(*s))))
		goto out; /* the pipeline's scrape counts an unreadable root */
	for (size_t i = 0; i < n; i++) {
		struct fp_lb *lb = NULL;
		int ret;

		msg[0] = 0;
		ret = fp_lb__open(names[i], bpffs, &lb, msg, sizeof(msg));
		/* no lb on it; or pins this user may not read, which the pipeline's
		 * scrape counted for the interface already (one error, one log line) */
		if (ret == -ENOENT || fp_errno_is_perm(ret))
			continue;
		if (!ret && !(ret = snap(lb, names[i], &s[got]))) {
			got++;
		} else {
			if (!msg[0])
				snprintf(msg, sizeof(msg), "%s: reading the lb failed: %s", names[i],
					 strerror(-ret));
			if (err && errlen && !err[0])
				snprintf(err, errlen, "%s", msg);
			++*errors;
			snap_free(&s[got]);
		}
		fp_lb__close(lb);
	}
	if (!got)
		goto out;
	per_vip(f, s, got, "fastpath_lb_vip_packets_total",
		"Packets to the VIP the lb forwarded to a backend.", L_PACKETS);
	per_vip(f, s, got, "fastpath_lb_vip_bytes_total",
		"Bytes (inner packets) to the VIP the lb forwarded.", L_BYTES);
	per_vip(f, s, got, "fastpath_lb_vip_new_flows_total",
		"Flows of the VIP that took the Maglev table's choice (new flows).", L_NEW);
	per_vip(f, s, got, "fastpath_lb_vip_conn_hits_total",
		"Packets of the VIP found in the connection table.", L_HITS);
	per_vip(f, s, got, "fastpath_lb_vip_conn_misses_total",
		"Packets of the VIP not found in the connection table.", L_MISSES);
	per_backend(f, s, got, "fastpath_lb_backend_packets_total", "counter",
		    "Packets the lb sent to the backend.", B_PACKETS);
	per_backend(f, s, got, "fastpath_lb_backend_bytes_total", "counter",
		    "Bytes (inner packets) the lb sent to the backend.", B_BYTES);
	per_backend(f, s, got, "fastpath_lb_backend_new_flows_total", "counter",
		    "New flows the Maglev table gave the backend.", B_NEW);
	per_backend(f, s, got, "fastpath_lb_backend_state", "gauge",
		    "1, labelled with the backend's state: up (takes new flows), drain (keeps its "
		    "flows, takes no new ones) or down (by the operator or the health checker).",
		    B_STATE);
	per_backend(f, s, got, "fastpath_lb_backend_weight", "gauge",
		    "The backend's Maglev weight.", B_WEIGHT);
	by_cause(f, s, got);
out:
	for (size_t i = 0; i < got; i++)
		snap_free(&s[i]);
	free(s);
	fp_status__free_list(names, n);
}
