// SPDX-License-Identifier: BSD-2-Clause
/* The bridges' Prometheus families (stage_metrics.h). */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "bridge/bridge.h"
#include "exporter/metrics.h"
#include "filter/filter.h"
#include "exporter/stage_metrics.h"
#include "pipeline/pipeline.h"

#define MAX_BRIDGES 64

/* One bridge's ports and counters, read at once. */
struct br_snap {
	char name[16];
	struct fp_br_port *ports;
	struct fp_br_stats *st;
	int *learned;
	int n;
};

static int snap(const struct fp_bridge *b, const char *name, struct br_snap *s)
{
	int n;

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->ports = calloc(FP_BR_PORTS_MAX, sizeof(*s->ports));
	s->st = calloc(FP_BR_PORTS_MAX, sizeof(*s->st));
	s->learned = calloc(FP_BR_PORTS_MAX, sizeof(*s->learned));
	if (!s->ports || !s->st || !s->learned)
		return -ENOMEM;
	n = fp_bridge__ports(b, s->ports, FP_BR_PORTS_MAX);
	if (n < 0)
		return n;
	s->n = n < FP_BR_PORTS_MAX ? n : FP_BR_PORTS_MAX;
	for (int i = 0; i < s->n; i++) {
		char ifname[IF_NAMESIZE];

		if (!if_indextoname(s->ports[i].ifindex, ifname))
			snprintf(ifname, sizeof(ifname), "%s", s->ports[i].ifname);
		snprintf(s->ports[i].ifname, sizeof(s->ports[i].ifname), "%s", ifname);
		/* a port whose counters are gone (its pipeline unloaded) counts nothing */
		fp_bridge__port_stats(b, ifname, &s->st[i]);
		s->learned[i] = fp_bridge__learned(b, &s->ports[i]);
	}
	return 0;
}

static void snap_free(struct br_snap *s)
{
	free(s->ports);
	free(s->st);
	free(s->learned);
}

static void port_sample(FILE *f, const char *name, const struct br_snap *s, int i)
{
	fprintf(f, "%s{bridge=\"", name);
	fp_metrics__put_label(f, s->name);
	fputc('"', f);
	fp_metrics__label(f, "port", s->ports[i].ifname);
}

void fp_metrics__bridges(FILE *f, const char *bpffs, uint64_t *errors, char *err,
			 size_t errlen)
{
	static char names[MAX_BRIDGES][16];
	struct br_snap s[MAX_BRIDGES];
	int n = fp_bridge__list(fp_bpffs_root(bpffs), names, MAX_BRIDGES), got = 0;
	const char *frames = "fastpath_bridge_port_frames_total";
	const char *learned = "fastpath_bridge_port_learned";

	for (int i = 0; i < n && i < MAX_BRIDGES; i++) {
		struct fp_bridge *b = NULL;
		char msg[512] = "";
		int ret = fp_bridge__open(bpffs, names[i], &b, msg, sizeof(msg)), opened = !ret;

		if (opened)
			ret = snap(b, names[i], &s[got]);
		if (!ret) {
			got++;
		} else if (fp_errno_is_perm(ret)) {
			/* its ports' pipelines count this user's permission error already */
			if (opened)
				snap_free(&s[got]);
		} else {
			if (!msg[0])
				snprintf(msg, sizeof(msg), "bridge %s: reading it failed: %s", names[i],
					 strerror(-ret));
			if (err && errlen && !err[0])
				snprintf(err, errlen, "%s", msg);
			++*errors;
			if (opened)
				snap_free(&s[got]);
		}
		fp_bridge__close(b);
	}
	if (!got)
		return;
	fp_metrics__family(f, frames, "counter",
			   "Frames a bridge port's stage saw (in) and what it did with them "
			   "(forwarded, flooded, to_host, drop_*: as fastpath bridge stats), and its "
			   "FDB events (learned, moved, aged, learn_limited, learn_full).");
	for (int k = 0; k < got; k++)
		for (int i = 0; i < s[k].n; i++)
			for (unsigned c = 0; c < FP_BR_ST_MAX; c++) {
				if (!fp_br_stat_name(c))
					continue;
				port_sample(f, frames, &s[k], i);
				fp_metrics__label(f, "event", fp_br_stat_name(c));
				fprintf(f, "} %llu\n", (unsigned long long)s[k].st[i].n[c]);
			}
	fp_metrics__family(f, learned, "gauge",
			   "FDB entries the port has learned now (its --learn-limit counts these).");
	for (int k = 0; k < got; k++)
		for (int i = 0; i < s[k].n; i++) {
			if (s[k].learned[i] < 0)
				continue;
			port_sample(f, learned, &s[k], i);
			fprintf(f, "} %d\n", s[k].learned[i]);
		}
	for (int k = 0; k < got; k++)
		snap_free(&s[k]);
}
