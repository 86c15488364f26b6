// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dump/dump.h"
#include "dump_exit.skel.h"
#include "filter/compile.h"
#include "filter/filter_internal.h"

struct ident_id {
	uint64_t ident;
	char id[FP_RULE_ID_MAX];
};

struct fp_dump {
	struct fp_pipeline *pl;
	struct fp_filter *f;         /* for rule ids (NULL: no filter) */
	struct fp_dump_fds fds;
	struct ring_buffer *rb;
	fp_dump_cb cb;
	void *ctx;
	bool active, slot0;
	int64_t mono_to_real;        /* add to bpf_ktime_get_ns for CLOCK_REALTIME */
	struct fp_smp_stats base;    /* kernel counts at start */
	struct ident_id *ids;        /* rule ident -> id, for both generations */
	size_t n_ids;
	int stop;
	struct dump_exit_bpf *watch; /* the exit watch (dump_exit.bpf.c), held, never pinned */
	int watch_err;               /* why there is none (0: there is) */
	bool took_over;              /* start cleared what a dead dump left on */
	uint32_t dead_pid;           /* that dump's process (0: unknown) */
};

void fp_match__from_rule(const struct fp_rule *r, struct fp_match *m)
{
	memset(m, 0, sizeof(*m));
	m->terms = r->terms;
	m->l3 = r->l3;
	m->proto = r->proto;
	m->flags_mask = r->flags_mask;
	m->flags_val = r->flags_val;
	m->src_fam = r->src.family;
	m->src_plen = r->src.plen;
	memcpy(m->src, r->src.addr, 16);
	m->dst_fam = r->dst.family;
	m->dst_plen = r->dst.plen;
	memcpy(m->dst, r->dst.addr, 16);
	m->n_sport = r->sport.n;
	for (unsigned i = 0; i < r->sport.n && i < 32; i++)
		m->sport[i][0] = r->sport.r[i].lo, m->sport[i][1] = r->sport.r[i].hi;
	m->n_dport = r->dport.n;
	for (unsigned i = 0; i < r->dport.n && i < 32; i++)
		m->dport[i][0] = r->dport.r[i].lo, m->dport[i][1] = r->dport.r[i].hi;
	m->len_lo = r->len.lo;
	m->len_hi = r->len.hi;
	m->ttl_lo = r->ttl.lo;
	m->ttl_hi = r->ttl.hi;
	m->vlan = r->vlan;
	m->qtype = r->qtype;
	m->ether = r->ether;
	m->qname_wild = r->qname.wildcard;
	m->qname_len = r->qname.wire_len;
	memcpy(m->qname, r->qname.wire, r->qname.wire_len);
}

/* ident -> id of every rule in both generations (a sample may come from
 * the set before an apply). */
static int load_ids(struct fp_dump *d)
{
	struct fp_filter *f = d->f;
	size_t cap = 0;

	free(d->ids);
	d->ids = NULL;
	d->n_ids = 0;
	for (__u32 gen = 0; f && gen < 2; gen++) {
		struct fp_flt_gencfg cfg;

		if (bpf_map_lookup_elem(f->gen_fd[GM_GCFG], &gen, &cfg) == 0) {
			for (__u32 i = 0; i < cfg.n_rules && i < FP_MAX_RULES; i++) {
				struct fp_flt_text t;
				struct fp_rule r;
				struct fp_diags dg = { 0 };
				__u32 ti = gen * FP_MAX_RULES + i;

				if (bpf_map_lookup_elem(f->gen_fd[GM_TEXT], &ti, &t))
					continue;
				t.text[sizeof(t.text) - 1] = 0;
				if (d->n_ids == cap) {
					struct ident_id *n;

					cap = cap ? cap * 2 : 64;
					n = realloc(d->ids, cap * sizeof(*n));
					if (!n)
						break;
					d->ids = n;
				}
				d->ids[d->n_ids].ident = fp_rule_ident(t.text);
				if (fp_rule__parse(t.text, i + 1, &r, &dg) == 0) {
					snprintf(d->ids[d->n_ids].id, FP_RULE_ID_MAX, "%s", r.id);
					d->n_ids++;
				}
				fp_diags__free(&dg);
			}
		}
	}
	return 0;
}

static const char *id_of(struct fp_dump *d, const struct fp_sample *s)
{
	uint64_t ident = s->ident;

	/* only the filter's decisions carry a rule's ident */
	if (!ident || s->stage != FP_STAGE_FILTER || !d->f)
		return NULL;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < d->n_ids; i++)
			if (d->ids[i].ident == ident)
				return d->ids[i].id;
		if (pass == 0)
			load_ids(d); /* an apply since start: read the names again */
	}
	return "?";
}

static int on_sample(void *ctx, void *data, size_t size)
{
	struct fp_dump *d = ctx;
	const struct fp_sample *s = data;

	if (size < sizeof(*s) || size < sizeof(*s) + s->cap_len)
		return 0;
	if (d->stop)
		return 0;
	if (d->cb(d->ctx, s, (const uint8_t *)(s + 1), id_of(d, s),
		  (uint64_t)((int64_t)s->ts_ns + d->mono_to_real)))
		d->stop = 1;
	return 0;
}

static void read_counts(struct fp_dump *d, struct fp_smp_stats *out)
{
	int ncpu = libbpf_num_possible_cpus();
	struct fp_smp_stats *v = calloc(ncpu > 0 ? ncpu : 1, sizeof(*v));
	__u32 zero = 0;

	memset(out, 0, sizeof(*out));
	if (v && ncpu > 0 && bpf_map_lookup_elem(d->fds.smp_fd, &zero, v) == 0) {
		for (int c = 0; c < ncpu; c++) {
			out->sampled += v[c].sampled;
			out->lost += v[c].lost;
		}
	}
	free(v);
}

static int64_t clock_offset(void)
{
	struct timespec r, m;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return (r.tv_sec - m.tv_sec) * 1000000000LL + (r.tv_nsec - m.tv_nsec);
}

static int discard(void *ctx, void *data, size_t size)
{
	return 0;
}

/* Whether pid is a live process (a zombie is not: a killed dump stays
 * one until its parent reaps it). */
static bool pid_alive(uint32_t pid)
{
	char path[64], buf[512], *p;
	bool alive = true;
	FILE *fh;

	if (!pid || pid > INT32_MAX || (kill((pid_t)pid, 0) && errno == ESRCH))
		return false;
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fh = fopen(path, "r");
	if (fh) {
		/* "PID (COMM) STATE ...": COMM may hold spaces and parentheses */
		if (fgets(buf, sizeof(buf), fh) && (p = strrchr(buf, ')')) && p[1] == ' ')
			alive = p[2] != 'Z' && p[2] != 'X';
		fclose(fh);
	}
	return alive;
}

/* fp_dump_cfg and the pipeline's dump flags. */
static int dump_state(struct fp_pipeline *pl, int cfg_fd, struct fp_dump_cfg *cfg, __u32 *flags)
{
	__u32 zero = 0;

	if (bpf_map_lookup_elem(cfg_fd, &zero, cfg))
		return -errno;
	*flags = fp_pipeline__dump_flags(pl);
	return 0;
}

int fp_dump__running(struct fp_pipeline *pl, uint32_t *pid)
{
	struct fp_dump_fds fds;
	struct fp_dump_cfg cfg;
	char err[256];
	__u32 flags = 0;
	int ret;

	*pid = 0;
	ret = fp_dump_stage__fds(pl, &fds, err, sizeof(err));
	if (ret)
		return ret;
	ret = dump_state(pl, fds.cfg_fd, &cfg, &flags);
	fp_dump_fds__close(&fds);
	if (ret)
		return ret;
	if (!cfg.active && !flags)
		return 0;
	*pid = cfg.owner_pid;
	return cfg.active && pid_alive(cfg.owner_pid);
}

/*
 * Ties the dump to this process's life: the exit program of
 * dump_exit.bpf.c on this interface's maps, attached by a link only this
 * process holds, so the kernel detaches it when the process ends.
 */
static int watch_exit(struct fp_dump *d, uint32_t pid)
{
	struct dump_exit_bpf *w;
	struct stat ns;
	int ret;

	if (stat("/proc/self/ns/pid", &ns))
		return -errno;
	w = dump_exit_bpf__open();
	if (!w)
		return -errno;
	w->rodata->owner_tgid = pid;
	w->rodata->pidns_dev = ns.st_dev;
	w->rodata->pidns_ino = ns.st_ino;
	ret = bpf_map__reuse_fd(w->maps.fp_ctl, fp_pipeline__ctl_fd(d->pl));
	if (!ret)
		ret = bpf_map__reuse_fd(w->maps.fp_dump_cfg, d->fds.cfg_fd);
	if (!ret)
		ret = dump_exit_bpf__load(w);
	if (!ret)
		ret = dump_exit_bpf__attach(w);
	if (ret) {
		dump_exit_bpf__destroy(w);
		return ret < 0 ? ret : -EINVAL;
	}
	d->watch = w;
	return 0;
}

static void deactivate(struct fp_dump *d);

int fp_dump__start(struct fp_pipeline *pl, struct fp_filter *f, const struct fp_dump_opts *o,
		   fp_dump_cb cb, void *ctx, struct fp_dump **out, char *err, size_t errlen)
{
	struct fp_dump_cfg cfg = { 0 }, cur;
	struct fp_dump *d = calloc(1, sizeof(*d));
	struct ring_buffer *stale;
	__u32 zero = 0, flags = 0;
	int ret;

	if (!d)
		return -ENOMEM;
	d->pl = pl;
	d->f = f;
	d->cb = cb;
	d->ctx = ctx;
	d->mono_to_real = clock_offset();
	d->fds.prog_fd = d->fds.ring_fd = d->fds.smp_fd = d->fds.cfg_fd = -1;
	ret = fp_dump_stage__fds(pl, &d->fds, err, errlen);
	if (ret)
		goto fail;
	if (!fp_pipeline__enabled(pl, &fp_stage_dump)) {
		snprintf(err, errlen, "the dump stage is disabled on %s: `fastpath pipeline "
			 "enable %s dump` first", fp_pipeline__ifname(pl), fp_pipeline__ifname(pl));
		ret = -EPERM;
		goto fail;
	}
	if (f)
		load_ids(d);
	ret = dump_state(pl, d->fds.cfg_fd, &cur, &flags);
	if (ret) {
		snprintf(err, errlen, "reading the dump's state failed: %s", strerror(-ret));
		goto fail;
	}
	if (cur.active && pid_alive(cur.owner_pid)) {
		snprintf(err, errlen, "a dump is already running on this interface (pid %u); "
			 "stop it first", cur.owner_pid);
		ret = -EBUSY;
		goto fail;
	}
	if (cur.active || flags) {
		/* its process died without switching sampling off */
		d->took_over = true;
		d->dead_pid = cur.owner_pid;
		d->active = d->slot0 = true;
		deactivate(d);
	}
	/* switched on only once the exit watch holds (a kill between leaves
	 * nothing on); without it, the next dump takes over as above */
	d->watch_err = watch_exit(d, (uint32_t)getpid());
	cfg.active = 1;
	cfg.owner_pid = getpid();
	cfg.sample_n = o->sample_n;
	cfg.snaplen = o->snaplen ? o->snaplen : FP_SNAPLEN_DEFAULT;
	if (cfg.snaplen > FP_SNAPLEN_MAX)
		cfg.snaplen = FP_SNAPLEN_MAX;
	cfg.drops_only = o->drops_only;
	if (o->rule_id) {
		size_t i;

		for (i = 0; i < d->n_ids && strcmp(d->ids[i].id, o->rule_id); i++)
			;
		if (i == d->n_ids) {
			snprintf(err, errlen, "no rule with id '%s' is loaded", o->rule_id);
			ret = -ENOENT;
			goto fail;
		}
		cfg.rule_ident = d->ids[i].ident;
	}
	cfg.stages = o->stages;
	if (o->match) {
		cfg.use_match = 1;
		fp_match__from_rule(o->match, &cfg.match);
	}
	/* whatever an earlier, crashed dump left in the ring is not ours */
	stale = ring_buffer__new(d->fds.ring_fd, discard, NULL, NULL);
	if (stale) {
		ring_buffer__consume(stale);
		ring_buffer__free(stale);
	}
	d->rb = ring_buffer__new(d->fds.ring_fd, on_sample, d, NULL);
	if (!d->rb) {
		ret = -errno;
		snprintf(err, errlen, "opening the sample ring failed: %s", strerror(-ret));
		goto fail;
	}
	read_counts(d, &d->base);
	if (bpf_map_update_elem(d->fds.cfg_fd, &zero, &cfg, 0)) {
		ret = -errno;
		snprintf(err, errlen, "starting the dump failed: %s", strerror(-ret));
		goto fail;
	}
	d->active = true;
	if (!o->match) {
		/* a killed --match dump's slot: harmless once its bit is clear
		 * (a fused entry tests the bit first), but not left behind */
		fp_pipeline__empty_slot(pl, FP_STAGE_DUMP);
	} else {
		ret = fp_pipeline__fill_slot(pl, FP_STAGE_DUMP, d->fds.prog_fd);
		if (ret) {
			snprintf(err, errlen, "enabling the dump stage failed: %s", strerror(-ret));
			goto fail;
		}
		d->slot0 = true;
	}
	/* stages read the control word's flags, not the config: set last */
	fp_pipeline__set_dump(pl, FP_CTL_DUMP_ACTIVE | (cfg.sample_n ? 0 : FP_CTL_DUMP_OWN_RATE));
	*out = d;
	return 0;
fail:
	fp_dump__stop(d);
	return ret;
}

int fp_dump__poll(struct fp_dump *d, int timeout_ms)
{
	int n = ring_buffer__poll(d->rb, timeout_ms);

	if (n == -EINTR)
		return 0;
	return d->stop ? -ECANCELED : n;
}

static void deactivate(struct fp_dump *d)
{
	struct fp_dump_cfg off = { 0 };
	__u32 zero = 0;

	/* the reverse of the start: the pipeline's flags, the slot, the config */
	if (d->active || d->slot0)
		fp_pipeline__set_dump(d->pl, 0);
	if (d->slot0) {
		fp_pipeline__empty_slot(d->pl, FP_STAGE_DUMP);
		d->slot0 = false;
	}
	if (d->active) {
		bpf_map_update_elem(d->fds.cfg_fd, &zero, &off, 0);
		d->active = false;
	}
}

int fp_dump__drain(struct fp_dump *d)
{
	deactivate(d);
	/* programs that read the old config finish within microseconds */
	usleep(20000);
	return d->rb ? ring_buffer__consume(d->rb) : 0;
}

void fp_dump__counts(struct fp_dump *d, uint64_t *sampled, uint64_t *lost)
{
	struct fp_smp_stats now;

	read_counts(d, &now);
	*sampled = now.sampled - d->base.sampled;
	*lost = now.lost - d->base.lost;
}

bool fp_dump__took_over(const struct fp_dump *d, uint32_t *pid)
{
	*pid = d->dead_pid;
	return d->took_over;
}

int fp_dump__watch_error(const struct fp_dump *d)
{
	return d->watch_err;
}

void fp_dump__stop(struct fp_dump *d)
{
	if (!d)
		return;
	deactivate(d);
	dump_exit_bpf__destroy(d->watch); /* after: it finds owner_pid 0 */
	ring_buffer__free(d->rb);
	fp_dump_fds__close(&d->fds);
	free(d->ids);
	free(d);
}
