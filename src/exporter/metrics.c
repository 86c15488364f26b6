// SPDX-License-Identifier: BSD-2-Clause
/* Prometheus text exposition of fastpath's pins (metrics.h). */
#include "exporter/metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>

#include "rules/rule.h"

void fp_metrics__put_label(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

void fp_metrics__family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}


/* name{iface="IFACE" (then the caller adds ,k="v" pairs and close_labels) */
static void open_sample(FILE *f, const char *name, const char *iface)
{
	fprintf(f, "%s{iface=\"", name);
	fp_metrics__put_label(f, iface);
	fputc('"', f);
}

void fp_metrics__label(FILE *f, const char *key, const char *val)
{
	fprintf(f, ",%s=\"", key);
	fp_metrics__put_label(f, val);
	fputc('"', f);
}

static void value_u64(FILE *f, uint64_t v)
{
	fprintf(f, "} %" PRIu64 "\n", v);
}

/* ns since the epoch as seconds, exactly ("1764756360.123456789"). */
static void value_ts(FILE *f, uint64_t ns)
{
	fprintf(f, "} %" PRIu64 ".%09" PRIu64 "\n", ns / 1000000000u, ns % 1000000000u);
}

/* The rule's id from its canonical text ("?" if it does not parse). */
static void rule_id(const char *text, char *id, size_t len)
{
	struct fp_diags d = { 0 };
	struct fp_rule r;

	if (fp_rule__parse(text, 0, &r, &d) == 0)
		snprintf(id, len, "%s", r.id);
	else
		snprintf(id, len, "?");
	fp_diags__free(&d);
}

/* The filter's rules and counters can be rendered. */
static bool readable(const struct fp_metrics_iface *m)
{
	return m->view && m->st->state != FP_IFACE_BROKEN;
}

/* A pipeline was read (with or without a filter). */
static bool has_pipeline(const struct fp_metrics_iface *m)
{
	return m->st->state != FP_IFACE_BROKEN && m->st->state != FP_IFACE_ORPHAN;
}

/* The interface's share into buf ("" when its rule set is its own). */
static const char *share_of(const struct fp_metrics_iface *m, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)sizeof(m->st->share) - 1,
		 m->st->state == FP_IFACE_ORPHAN ? "" : m->st->share);
	return buf;
}

/* Whether an earlier readable interface than i is in the same share: the
 * share's rule counters are written once, for the first. */
static bool share_seen(const struct fp_metrics *m, size_t i, const char *share)
{
	char other[sizeof(m->ifaces[0].st->share)];

	for (size_t j = 0; share[0] && j < i; j++)
		if (readable(&m->ifaces[j]) &&
		    !strcmp(share_of(&m->ifaces[j], other, sizeof(other)), share))
			return true;
	return false;
}

/* A rule counter's labels: {iface="IFACE" of an interface's own rule set,
 * {share="NAME" of a share's (one series for all its members, so that a
 * sum over the series counts every packet once). */
static void open_rule_sample(FILE *f, const char *name, const char *iface, const char *share)
{
	if (!share[0]) {
		open_sample(f, name, iface);
		return;
	}
	fprintf(f, "%s{share=\"", name);
	fp_metrics__put_label(f, share);
	fputc('"', f);
}

static const char *stat_verdict(int s)
{
	switch (s) {
	case FP_FLT_ST_RULE_DROP:
	case FP_FLT_ST_LIMIT_DROP:
	case FP_FLT_ST_DEFAULT_DROP:
		return "drop";
	default:
		return "pass";
	}
}

/* The per-rule counters: packets, bytes, drops, samples. */
enum rule_value { R_PACKETS, R_BYTES, R_DROPS, R_SAMPLES };

static const struct {
	const char *name, *help;
} rule_families[] = {
	[R_PACKETS] = { "fastpath_rule_packets_total",
		"Packets each rule decided (the first rule that matched); kept across changes that leave the rule as it was (same id and text); a new or changed rule starts at 0. Labelled iface=, or share= for the one rule set of the interfaces loaded with --share." },
	[R_BYTES] = { "fastpath_rule_bytes_total",
		"Bytes (whole frames) of the packets each rule decided; kept across changes that leave the rule as it was (same id and text); a new or changed rule starts at 0. Labelled iface=, or share= for the one rule set of the interfaces loaded with --share." },
	[R_DROPS] = { "fastpath_rule_drops_total",
		"Packets each rule dropped (a limit rule: those over its rate); kept across changes that leave the rule as it was (same id and text); a new or changed rule starts at 0. Labelled iface=, or share= for the one rule set of the interfaces loaded with --share." },
	[R_SAMPLES] = { "fastpath_rule_samples_total",
		"Packets of each rule sampled for fastpath dump; kept across changes that leave the rule as it was (same id and text); a new or changed rule starts at 0. Labelled iface=, or share= for the one rule set of the interfaces loaded with --share." },
};

static uint64_t rule_value(const struct fp_rule_cnt *c, enum rule_value what)
{
	switch (what) {
	case R_PACKETS: return c->packets;
	case R_BYTES:   return c->bytes;
	case R_DROPS:   return c->drops;
	case R_SAMPLES: return c->samples;
	}
	return 0;
}

static void rule_counters(FILE *f, const struct fp_metrics *m, enum rule_value what)
{
	const char *name = rule_families[what].name;
	char id[FP_RULE_ID_MAX];

	fp_metrics__family(f, name, "counter", rule_families[what].help);
	for (size_t i = 0; i < m->n; i++) {
		const struct fp_filter_view *v = m->ifaces[i].view;
		char share[sizeof(m->ifaces[i].st->share)];

		if (!readable(&m->ifaces[i]))
			continue;
		share_of(&m->ifaces[i], share, sizeof(share));
		if (share_seen(m, i, share))
			continue;
		for (size_t r = 0; r < v->n_rules; r++) {
			rule_id(v->rules[r].text, id, sizeof(id));
			open_rule_sample(f, name, m->ifaces[i].st->name, share);
			fp_metrics__label(f, "rule", id);
			value_u64(f, rule_value(&v->rules[r].total, what));
		}
		/* the default verdict, spelled as in filter list, stats and dump */
		open_rule_sample(f, name, m->ifaces[i].st->name, share);
		fp_metrics__label(f, "rule", "default");
		value_u64(f, rule_value(&v->dflt, what));
	}
}

static const char *const xdp_action_names[5] = {
	[XDP_ABORTED] = "aborted", [XDP_DROP] = "drop", [XDP_PASS] = "pass",
	[XDP_TX] = "tx", [XDP_REDIRECT] = "redirect",
};

/* Whether a stage's packets are rendered by decision already: the filter's,
 * from its view (its fp_stage_counts would count them a second time in
 * the same family). */
static bool by_decision(const struct fp_metrics_iface *mi, const struct fp_stage_status *s)
{
	return readable(mi) && !strcmp(s->name, "filter");
}

static void stage_counters(FILE *f, const struct fp_metrics *m, bool bytes)
{
	const char *name = bytes ? "fastpath_stage_bytes_total" : "fastpath_stage_packets_total";

	fp_metrics__family(f, name, "counter", bytes ?
	       "Bytes (whole frames) the filter stage decided, by verdict and by how it decided." :
	       "Packets each stage of the pipeline decided, by verdict (the XDP action it gave; pass: on down the chain); the filter's also by how it decided (decision=).");
	for (size_t i = 0; i < m->n; i++) {
		const struct fp_metrics_iface *mi = &m->ifaces[i];
		const struct fp_filter_view *v = mi->view;

		if (readable(mi)) {
			for (int s = 0; s < FP_FLT_ST_MAX; s++) {
				open_sample(f, name, mi->st->name);
				fp_metrics__label(f, "stage", "filter");
				fp_metrics__label(f, "verdict", stat_verdict(s));
				fp_metrics__label(f, "decision", fp_filter_stat__name(s));
				value_u64(f, bytes ? v->stage[s].bytes : v->stage[s].packets);
			}
		}
		/* every other stage of the table that counts, by XDP action */
		if (bytes || !has_pipeline(mi))
			continue;
		for (unsigned k = 0; k < mi->st->n_stages; k++) {
			const struct fp_stage_status *st = &mi->st->stage[k];

			if (!st->counts.have || by_decision(mi, st))
				continue;
			for (int a = 0; a < 5; a++) {
				open_sample(f, name, mi->st->name);
				fp_metrics__label(f, "stage", st->name);
				fp_metrics__label(f, "verdict", xdp_action_names[a]);
				value_u64(f, st->counts.out[a]);
			}
		}
	}
}

/* One sample per readable interface of a value taken from its status. */
enum iface_value { V_RULES, V_GENERATION, V_LOADED, V_APPLIED, V_SAMPLED, V_LOST };

static void iface_gauge(FILE *f, const struct fp_metrics *m, const char *name,
			const char *type, const char *help, enum iface_value what)
{
	fp_metrics__family(f, name, type, help);
	for (size_t i = 0; i < m->n; i++) {
		const struct fp_iface_status *st = m->ifaces[i].st;
		const struct fp_filter_view *v = m->ifaces[i].view;

		/* the load time is the pipeline's; the rest the filter's */
		if (what == V_LOADED ? !has_pipeline(&m->ifaces[i]) : !readable(&m->ifaces[i]))
			continue;
		if (what == V_APPLIED && !(st->has_rules && st->flt.applied_ns))
			continue;
		open_sample(f, name, st->name);
		switch (what) {
		case V_RULES:      value_u64(f, st->n_rules); break;
		case V_GENERATION: value_u64(f, st->flt.serial); break;
		case V_LOADED:     value_ts(f, st->meta.loaded_ns); break;
		case V_APPLIED:    value_ts(f, st->flt.applied_ns); break;
		case V_SAMPLED:    value_u64(f, v->smp.sampled); break;
		case V_LOST:       value_u64(f, v->smp.lost); break;
		}
	}
}

static void stage_enabled(FILE *f, const struct fp_metrics *m)
{
	const char *name = "fastpath_stage_enabled";

	fp_metrics__family(f, name, "gauge",
	       "1 if the stage is loaded on the interface and enabled (fastpath pipeline enable), 0 if loaded and disabled.");
	for (size_t i = 0; i < m->n; i++) {
		const struct fp_iface_status *st = m->ifaces[i].st;

		if (!has_pipeline(&m->ifaces[i]))
			continue;
		for (unsigned k = 0; k < st->n_stages; k++) {
			open_sample(f, name, st->name);
			fp_metrics__label(f, "stage", st->stage[k].name);
			value_u64(f, st->stage[k].enabled);
		}
	}
}

static void iface_info(FILE *f, const struct fp_metrics *m)
{
	const char *name = "fastpath_interface_info";

	fp_metrics__family(f, name, "gauge",
	       "1 for every interface with fastpath pins (state ok, renamed, detached, iface missing or broken) or running fastpath's program without pins (orphan); share: the rule set it shares (load --share), absent when its own.");
	for (size_t i = 0; i < m->n; i++) {
		const struct fp_iface_status *st = m->ifaces[i].st;
		char share[sizeof(st->share)];

		open_sample(f, name, st->name);
		fp_metrics__label(f, "state", fp_iface_state__name(st->state));
		fp_metrics__label(f, "mode", st->state == FP_IFACE_BROKEN ? "unknown" :
		      fp_xdp_mode__name(st->meta.xdp_flags));
		/* absent and empty are one to Prometheus: only members carry it */
		if (share_of(&m->ifaces[i], share, sizeof(share))[0])
			fp_metrics__label(f, "share", share);
		value_u64(f, 1);
	}
}

int fp_metrics__render(const struct fp_metrics *m, char **text, size_t *len)
{
	FILE *f;

	if (!m || !text || !len || (m->n && !m->ifaces))
		return -EINVAL;
	*text = NULL;
	*len = 0;
	f = open_memstream(text, len);
	if (!f)
		return -ENOMEM;
	for (int r = R_PACKETS; r <= R_SAMPLES; r++)
		rule_counters(f, m, r);
	stage_counters(f, m, false);
	stage_counters(f, m, true);
	iface_gauge(f, m, "fastpath_samples_total", "counter",
		    "Packets selected for sampling (rule sample 1/N, fastpath dump), all time.",
		    V_SAMPLED);
	iface_gauge(f, m, "fastpath_samples_lost_total", "counter",
		    "Selected packets the kernel could not queue for fastpath dump (ring full), all time.",
		    V_LOST);
	iface_gauge(f, m, "fastpath_rules", "gauge", "Rules in the live rule set.", V_RULES);
	iface_gauge(f, m, "fastpath_generation", "gauge",
		    "Rule sets applied since the pipeline was loaded (the live generation).",
		    V_GENERATION);
	iface_gauge(f, m, "fastpath_loaded_timestamp_seconds", "gauge",
		    "When the pipeline was loaded, in seconds since the epoch.", V_LOADED);
	iface_gauge(f, m, "fastpath_applied_timestamp_seconds", "gauge",
		    "When the live rule set was applied, in seconds since the epoch.", V_APPLIED);
	stage_enabled(f, m);
	iface_info(f, m);
	fp_metrics__family(f, "fastpath_scrape_errors_total", "counter",
	       "Interfaces (or pin roots) this exporter could not read, over all scrapes.");
	fprintf(f, "fastpath_scrape_errors_total %" PRIu64 "\n", m->scrape_errors);
	if (fclose(f)) {
		free(*text);
		*text = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The first error of a scrape, for the caller's log. */
static void note(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
	if (err && errlen && !err[0])
		snprintf(err, errlen, fmt, a, b);
}

int fp_metrics__scrape(const char *bpffs, uint64_t *errors, char **text, size_t *len,
		       char *err, size_t errlen)
{
	struct fp_metrics_iface *ifs = NULL;
	struct fp_iface_status *st = NULL, *orphans = NULL;
	struct fp_filter_view *views = NULL;
	struct fp_metrics m = { 0 };
	char **names = NULL;
	size_t n = 0, done = 0, n_orphans = 0;
	int ret;

	if (!errors)
		return -EINVAL;
	if (err && errlen)
		err[0] = 0;
	ret = fp_status__list(bpffs, &names, &n);
	if (ret) {
		char msg[256];

		if (fp_errno_is_perm(ret))
			fp_perm_msg(msg, sizeof(msg), "reading the pin root", fp_bpffs_root(bpffs));
		else
			snprintf(msg, sizeof(msg), "cannot read the pin root %s: %s",
				 fp_bpffs_root(bpffs), strerror(-ret));
		note(err, errlen, "%s%s", msg, "");
		++*errors;
		n = 0;
	} else if (fp_status__orphans(bpffs, &orphans, &n_orphans)) {
		n_orphans = 0; /* fastpath's programs with no pins: info only */
	}
	if (n || n_orphans) {
		ifs = calloc(n + n_orphans, sizeof(*ifs));
		st = calloc(n, sizeof(*st));
		views = calloc(n, sizeof(*views));
		if (!ifs || !st || !views) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (; done < n; done++) {
		ret = fp_status__read(bpffs, names[done], &st[done], &views[done]);
		if (ret)
			goto out;
		if (st[done].state == FP_IFACE_BROKEN) {
			note(err, errlen, "%s: %s", names[done], st[done].err);
			++*errors;
		}
		ifs[done].st = &st[done];
		/* the filter's rules and counters, when the filter is loaded */
		ifs[done].view = st[done].state == FP_IFACE_BROKEN || !st[done].has_filter ? NULL :
				 &views[done];
	}
	for (size_t i = 0; i < n_orphans; i++)
		ifs[n + i].st = &orphans[i];
	m.ifaces = ifs;
	m.n = n + n_orphans;
	m.scrape_errors = *errors;
	ret = fp_metrics__render(&m, text, len);
out:
	for (size_t i = 0; i < done; i++)
		fp_filter_view__free(&views[i]);
	free(views);
	free(st);
	free(orphans);
	free(ifs);
	fp_status__free_list(names, n);
	return ret;
}
