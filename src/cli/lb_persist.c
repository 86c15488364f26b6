// SPDX-License-Identifier: BSD-2-Clause
/*
 * `lb save` and `lb apply`: an lb's VIPs and backends as a file
 * (src/lb/lb_conf.h), for a reboot (fastpath-lb@.service) and for
 * configuration management. apply reads and checks the whole file first
 * (limits too), then makes the running lb equal to it with the fewest
 * edits, each one atomic (a VIP's new Maglev table switched in one write):
 * VIPs and backends gone first, so no limit is passed on the way, then
 * what is new, then weights and states. A file equal to the lb changes
 * nothing. If an edit fails on the way, the edits made are undone (the lb
 * is brought back to what it was) and the command says so.
 *
 * A backend the health checker took down is saved as up (the operator's
 * intent: the checker brings it back), and an apply that asks it up
 * leaves it to the checker; one that asks it down or drained makes that
 * the operator's.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/audit.h"
#include "cli/cli.h"
#include "cli/cli_file.h"
#include "cli/cli_num.h"
#include "cli/lb_cli.h"
#include "cli/rulefile.h"
#include "lb/lb.h"
#include "lb/lb_conf.h"
#include "lb/lb_health.h"
#include "pipeline/pipeline.h"

/* ---- the running lb as a configuration --------------------------------- */

static int read_running(struct fp_lb *lb, struct fp_lb_conf *c, char *err, size_t errlen)
{
	struct fp_lb_vip_info *v = NULL;
	struct fp_lb_be_info *b = NULL;
	struct fp_lb_meta m;
	char a[64];
	int nv = 0, nb = 0, ret;

	memset(c, 0, sizeof(*c));
	ret = fp_lb__meta(lb, &m);
	if (!ret)
		ret = fp_lb__vips(lb, &v, &nv);
	if (!ret)
		ret = fp_lb__backends(lb, ~0u, false, &b, &nb);
	if (!ret && ((nv && !(c->vips = calloc((size_t)nv, sizeof(*c->vips)))) ||
		     (nb && !(c->bes = calloc((size_t)nb, sizeof(*c->bes))))))
		ret = -ENOMEM;
	if (ret) {
		snprintf(err, errlen, "reading the lb's maps failed: %s", strerror(-ret));
		goto out;
	}
	c->has_load = true;
	c->conns = m.conns;
	fp_lb_addr_str(&m.src4, 4, a, sizeof(a));
	snprintf(c->src4, sizeof(c->src4), "%s/%u", a, m.src4_len);
	fp_lb_addr_str(m.src6, 6, a, sizeof(a));
	snprintf(c->src6, sizeof(c->src6), "%s/%u", a, m.src6_len);
	for (int i = 0; i < nv; i++)
		c->vips[c->n_vips++] = (struct fp_lb_conf_vip){
			.key = v[i].key, .flags = v[i].vip.flags, .table_size = v[i].vip.table_size,
			.index = v[i].vip.index };
	for (int i = 0; i < nb; i++) {
		struct fp_lb_conf_be *e = &c->bes[c->n_bes];
		__u8 f = b[i].be.flags;
		int vi = -1;

		for (size_t j = 0; j < c->n_vips; j++)
			if (c->vips[j].index == b[i].be.vip_index)
				vi = (int)j;
		if (vi < 0)
			continue;
		c->vips[vi].n_backends++;
		*e = (struct fp_lb_conf_be){ .vip = (__u32)vi, .af = b[i].be.family,
					     .weight = b[i].be.weight, .index = b[i].index };
		memcpy(e->addr, b[i].be.addr, 16);
		e->state = f & FP_LB_BE_DOWN ? FP_LB_CONF_DOWN :
			   f & FP_LB_BE_DRAIN ? FP_LB_CONF_DRAIN : FP_LB_CONF_UP;
		if (e->state == FP_LB_CONF_DOWN && fp_lb_health_took_down(lb, b[i].index, b[i].be.gen)) {
			e->state = FP_LB_CONF_UP;
			e->health_down = true;
		}
		c->n_bes++;
	}
out:
	free(v);
	free(b);
	if (ret)
		fp_lb_conf_free(c);
	return ret;
}

static int find_be(const struct fp_lb_conf *c, const struct fp_lb_vip_key *k, const struct fp_lb_conf_be *b)
{
	for (size_t i = 0; i < c->n_bes; i++)
		if (!memcmp(&c->vips[c->bes[i].vip].key, k, sizeof(*k)) && c->bes[i].af == b->af &&
		    !memcmp(c->bes[i].addr, b->addr, 16))
			return (int)i;
	return -1;
}

/* ---- the edits from one configuration to another ------------------------ */

enum step_kind { ST_VIP_DEL, ST_BE_DEL, ST_VIP_ADD, ST_BE_ADD, ST_BE_WEIGHT, ST_BE_STATE,
		 ST_BE_DISOWN };
static const char *const step_names[] = {
	[ST_VIP_DEL] = "vip del", [ST_BE_DEL] = "backend del", [ST_VIP_ADD] = "vip add",
	[ST_BE_ADD] = "backend add", [ST_BE_WEIGHT] = "backend weight",
	[ST_BE_STATE] = "backend state", [ST_BE_DISOWN] = "backend down (the operator's)",
};

struct step {
	enum step_kind kind;
	const struct fp_lb_conf_vip *vip; /* the VIP (the file's, or the running one to delete) */
	const struct fp_lb_conf_be *be;   /* the backend as wanted (as running, to delete) */
	const struct fp_lb_conf_be *was;  /* the running backend it changes */
};

struct plan {
	struct step *v;
	size_t n;
	size_t unchanged, left_to_checker;
};

static int push(struct plan *p, enum step_kind k, const struct fp_lb_conf_vip *vip,
		const struct fp_lb_conf_be *be, const struct fp_lb_conf_be *was)
{
	struct step *g = realloc(p->v, (p->n + 1) * sizeof(*g));

	if (!g)
		return -ENOMEM;
	p->v = g;
	p->v[p->n++] = (struct step){ .kind = k, .vip = vip, .be = be, .was = was };
	return 0;
}

/* The edits that make `run` into `want`; -EEXIST (err) for a VIP whose
 * fixed settings differ. */
static int plan_edits(const struct fp_lb_conf *run, const struct fp_lb_conf *want,
		      const char *file, struct plan *p, char *err, size_t errlen)
{
	int ret = 0;

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < want->n_vips; i++) {
		const struct fp_lb_conf_vip *w = &want->vips[i];
		int r = fp_lb_conf_find_vip(run, &w->key);
		char vs[80];

		if (r < 0 || (run->vips[r].flags == w->flags && run->vips[r].table_size == w->table_size))
			continue;
		fp_lb_vip_str(&w->key, vs, sizeof(vs));
		snprintf(err, errlen, "%s:%u: VIP %s: its --hash, --port-any or --table-size "
			 "differ from the running VIP's, which are fixed at `vip add`: nothing "
			 "applied; `fastpath lb vip del` it first (its flows start over)", file,
			 w->line, vs);
		return -EEXIST;
	}
	for (size_t i = 0; i < run->n_vips && !ret; i++)
		if (fp_lb_conf_find_vip(want, &run->vips[i].key) < 0)
			ret = push(p, ST_VIP_DEL, &run->vips[i], NULL, NULL);
	for (size_t i = 0; i < run->n_bes && !ret; i++) {
		const struct fp_lb_conf_vip *v = &run->vips[run->bes[i].vip];

		if (fp_lb_conf_find_vip(want, &v->key) >= 0 && find_be(want, &v->key, &run->bes[i]) < 0)
			ret = push(p, ST_BE_DEL, v, &run->bes[i], NULL);
	}
	for (size_t i = 0; i < want->n_vips && !ret; i++)
		if (fp_lb_conf_find_vip(run, &want->vips[i].key) < 0)
			ret = push(p, ST_VIP_ADD, &want->vips[i], NULL, NULL);
	for (size_t i = 0; i < want->n_bes && !ret; i++) {
		const struct fp_lb_conf_be *w = &want->bes[i];
		const struct fp_lb_conf_vip *v = &want->vips[w->vip];
		int r = find_be(run, &v->key, w);
		const struct fp_lb_conf_be *was = r >= 0 ? &run->bes[r] : NULL;

		if (!was)
			ret = push(p, ST_BE_ADD, v, w, NULL);
		else if (was->weight != w->weight)
			ret = push(p, ST_BE_WEIGHT, v, w, was);
		else if (was->health_down && w->state == FP_LB_CONF_UP)
			p->left_to_checker++;
		else if (was->health_down && w->state == FP_LB_CONF_DOWN)
			ret = push(p, ST_BE_DISOWN, v, w, was);
		else if (was->state != w->state)
			ret = push(p, ST_BE_STATE, v, w, was);
		else
			p->unchanged++;
	}
	if (ret)
		snprintf(err, errlen, "out of memory");
	return ret;
}

static enum fp_lb_be_op state_op(enum fp_lb_conf_state s)
{
	return s == FP_LB_CONF_DOWN ? FP_LB_OP_DOWN : s == FP_LB_CONF_DRAIN ? FP_LB_OP_DRAIN
								       : FP_LB_OP_UP;
}

/* One edit; what the maps said into err. */
static int run_step(struct fp_lb *lb, const struct step *s, char *err, size_t errlen)
{
	const struct fp_lb_vip_key *k = &s->vip->key;
	struct fp_lb_be_result r;
	struct fp_lb_vip out;
	int ret;

	switch (s->kind) {
	case ST_VIP_DEL:
		return fp_lb__vip_del(lb, k, err, errlen);
	case ST_VIP_ADD:
		return fp_lb__vip_add(lb, k, s->vip->flags, s->vip->table_size, &out, err, errlen);
	case ST_BE_DEL:
		return fp_lb__backend(lb, k, s->be->af, s->be->addr, FP_LB_OP_DEL, 0, &r, err, errlen);
	case ST_BE_DISOWN:
		return fp_lb_health_disown(lb, s->was->index);
	case ST_BE_WEIGHT:
		ret = fp_lb__backend(lb, k, s->be->af, s->be->addr, FP_LB_OP_DEL, 0, &r, err, errlen);
		if (ret)
			return ret;
		/* added again with its weight, then its state */
		__attribute__((fallthrough));
	case ST_BE_ADD:
		ret = fp_lb__backend(lb, k, s->be->af, s->be->addr, FP_LB_OP_ADD, s->be->weight, &r,
				     err, errlen);
		if (ret || s->be->state == FP_LB_CONF_UP)
			return ret;
		break;
	case ST_BE_STATE:
		break;
	}
	ret = fp_lb__backend(lb, k, s->be->af, s->be->addr, state_op(s->be->state), 0, &r, err,
			     errlen);
	return ret ? ret : fp_lb_health_disown(lb, r.index);
}

static void print_step(const struct step *s)
{
	const struct fp_lb_conf_be *b = s->be;
	char vs[80], bs[64];

	fp_lb_vip_str(&s->vip->key, vs, sizeof(vs));
	out_row_begin();
	out_str("change", step_names[s->kind]);
	out_str("vip", vs);
	if (b) {
		fp_lb_addr_str(b->addr, b->af, bs, sizeof(bs));
		out_str("backend", bs);
	} else {
		out_null("backend");
	}
	if (s->kind == ST_BE_WEIGHT)
		out_strf("detail", "weight %u -> %u", s->was->weight, b->weight);
	else if (s->kind == ST_BE_STATE)
		out_strf("detail", "%s -> %s", fp_lb_conf_state_name(s->was->state),
			 fp_lb_conf_state_name(b->state));
	else if (s->kind == ST_BE_ADD)
		out_strf("detail", "weight %u, %s", b->weight, fp_lb_conf_state_name(b->state));
	else if (s->kind == ST_VIP_ADD)
		out_strf("detail", "hash %s%s, table %u",
			 s->vip->flags & FP_LB_VIP_HASH_SRC ? "src" : "5tuple",
			 s->vip->flags & FP_LB_VIP_PORT_ANY ? ", every port" : "",
			 s->vip->table_size);
	else
		out_null("detail");
	if (s->kind == ST_VIP_DEL || s->kind == ST_BE_DEL)
		out_null("line");
	else
		out_u64("line", b ? b->line : s->vip->line);
	out_row_end();
}

/* ---- apply -------------------------------------------------------------- */

/* The file's load line against the running lb's: what load fixed cannot
 * change without an unload. */
static int check_load(const struct cli *cli, const char *ifname, const char *file,
		      const struct fp_lb_conf *run, const struct fp_lb_conf *want)
{
	__u32 conns = 1;
	__u8 a[16], b[16], la, lb;
	char e[256];

	if (!want->has_load)
		return CLI_OK;
	while (want->conns && conns < want->conns)
		conns <<= 1;
	if (want->conns && conns != run->conns)
		return cli_fail(cli, "%s was loaded with --conns %u, %s asks %u (%u rounded up): the "
				"table is sized at load; nothing applied (`fastpath lb unload %s`, "
				"then apply --load)", ifname, run->conns, file, want->conns, conns,
				ifname);
	for (int af = 4; af <= 6; af += 2) {
		const char *w = af == 4 ? want->src4 : want->src6, *r = af == 4 ? run->src4 : run->src6;

		if (!w[0] || fp_lb_parse_prefix(w, af, a, &la, e, sizeof(e)) ||
		    fp_lb_parse_prefix(r, af, b, &lb, e, sizeof(e)))
			continue;
		if (la != lb || memcmp(a, b, af == 4 ? 4 : 16))
			return cli_fail(cli, "%s was loaded with --src%d %s, %s asks %s: set at load; "
					"nothing applied (`fastpath lb unload %s`, then apply --load)",
					ifname, af, r, file, w, ifname);
	}
	return CLI_OK;
}

/* Brings the lb back to `was` after a failed edit; 0 when all of it went back. */
static int undo(struct fp_lb *lb, const struct fp_lb_conf *was, char *err, size_t errlen)
{
	struct fp_lb_conf now;
	struct plan p;
	int ret = read_running(lb, &now, err, errlen), bad = 0;

	if (ret)
		return ret;
	ret = plan_edits(&now, was, "the lb as it was", &p, err, errlen);
	for (size_t i = 0; !ret && i < p.n; i++)
		bad += run_step(lb, &p.v[i], err, errlen) != 0;
	free(p.v);
	fp_lb_conf_free(&now);
	return ret ? ret : bad ? -EIO : 0;
}

static int load_for(const struct cli *cli, const char *ifname, const struct fp_lb_conf *want,
		    bool skb)
{
	struct fp_lb_load_opts o = { .bpffs = cli->bpffs, .skb_mode = skb, .conns = want->conns,
				     .src4 = want->src4[0] ? want->src4 : NULL,
				     .src6 = want->src6[0] ? want->src6 : NULL };
	char err[512];
	int ret = fp_lb__load(ifname, &o, err, sizeof(err));

	return ret ? cli_fail(cli, "%s", err) : CLI_OK;
}

/* `apply IFACE FILE [--dry-run] [--load [--mode native|skb]]` */
int lb_do_apply(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' }, { "load", no_argument, NULL, 'l' },
		{ "mode", required_argument, NULL, 'm' }, { NULL, 0, NULL, 0 },
	};
	struct fp_lb_conf want = { 0 }, run = { 0 };
	struct plan p = { 0 };
	struct fp_lb *lb = NULL;
	struct timespec t0;
	bool dry = false, load = false, skb = false, mode = false, loaded = false;
	const char *ifname, *file;
	size_t len, done = 0;
	char err[512], note[160], *text;

	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (c == 'n') {
			dry = true;
		} else if (c == 'l') {
			load = true;
		} else if (c == 'm') {
			if (strcmp(optarg, "skb") && strcmp(optarg, "native"))
				return cli_usage(cli, "--mode takes native or skb, not '%s'", optarg);
			skb = !strcmp(optarg, "skb");
			mode = true;
		} else if (c == ':') {
			return cli_usage(cli, "%s needs a value", argv[optind - 1]);
		} else {
			return cli_usage(cli, "unknown option '%s'; apply takes --dry-run, --load and "
					      "--mode", argv[optind - 1]);
		}
	}
	if (cli_operands(cli, argc, argv, optind, 2, "IFACE FILE"))
		return CLI_USAGE;
	if (mode && !load)
		return cli_usage(cli, "--mode is a load option: add --load");
	ifname = argv[optind];
	file = argv[optind + 1];
	text = cli_slurp(file, &len);
	if (!text)
		return cli_fail(cli, "cannot read %s: %s", file, cli_slurp_error(errno));
	ret = fp_lb_conf_parse(text, len, file, &want, err, sizeof(err));
	free(text);
	if (ret == -EINVAL) { /* the file's error, where it is: not the command's usage */
		out_err("%s; nothing was changed", err);
		return CLI_USAGE;
	}
	if (ret)
		return cli_fail(cli, "%s", err);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = fp_lb__open(ifname, cli->bpffs, &lb, err, sizeof(err));
	if (ret == -ENOENT && load && !dry) {
		if ((ret = load_for(cli, ifname, &want, skb)))
			goto out;
		loaded = true;
		ret = fp_lb__open(ifname, cli->bpffs, &lb, err, sizeof(err));
	}
	if (ret == -ENOENT && load && dry) {
		run.has_load = true; /* what a load would find: nothing */
	} else if (ret) {
		ret = cli_fail(cli, "%s%s", err, ret == -ENOENT ? " (or use apply --load)" : "");
		goto out;
	} else if ((ret = read_running(lb, &run, err, sizeof(err))) ||
		   (ret = check_load(cli, ifname, file, &run, &want))) {
		ret = ret < 0 ? cli_fail(cli, "%s", err) : ret;
		goto out;
	}
	if ((ret = plan_edits(&run, &want, file, &p, err, sizeof(err)))) {
		ret = cli_fail(cli, "%s", err);
		goto out;
	}
	for (; !dry && done < p.n; done++)
		if ((ret = cli_test_fail_edit(done + 1, err, sizeof(err))) ||
		    (ret = run_step(lb, &p.v[done], err, sizeof(err))))
			break;
	if (ret) {
		const struct step *s = &p.v[done];
		char e2[512], vs[80], bs[64] = "";
		int u = undo(lb, &run, e2, sizeof(e2));

		fp_lb_vip_str(&s->vip->key, vs, sizeof(vs));
		if (s->be)
			fp_lb_addr_str(s->be->addr, s->be->af, bs, sizeof(bs));
		lb_cli_audit(cli, "apply", ifname, NULL, err, cli_ms_since(&t0));
		ret = cli_fail(cli, "%s: %s %s%s%s (edit %zu of %zu): %s; %s", ifname,
			       step_names[s->kind], vs, bs[0] ? " " : "", bs, done + 1, p.n, err,
			       u ? "undoing the edits made before it failed too: see `fastpath lb list`"
				 : loaded ? "the edits made before it were undone and the lb unloaded"
				 : "the edits made before it were undone: the lb is as it was");
		goto out;
	}
	snprintf(note, sizeof(note), "%zu edits from %s%s", p.n, file, dry ? " (dry run)" : "");
	if (!dry)
		lb_cli_audit(cli, "apply", ifname, note, NULL, cli_ms_since(&t0));
	out_obj_begin();
	out_str("iface", ifname);
	out_str("file", file);
	out_bool("dry_run", dry);
	out_bool("loaded", loaded);
	if (dry && !lb)
		out_bool("would_load", true);
	out_u64("vips", want.n_vips);
	out_u64("backends", want.n_bes);
	out_u64("edits", p.n);
	out_u64("unchanged", p.unchanged);
	out_u64("left_to_health_checker", p.left_to_checker);
	out_list_begin("changes");
	for (size_t i = 0; i < p.n; i++)
		print_step(&p.v[i]);
	out_list_end();
	out_obj_end();
out:
	if (ret && loaded) { /* apply --load that failed: no lb, as before */
		struct fp_unload_report ur;

		fp_lb__close(lb);
		lb = NULL;
		fp_lb__unload(ifname, cli->bpffs, &ur, err, sizeof(err));
	}
	free(p.v);
	fp_lb_conf_free(&want);
	fp_lb_conf_free(&run);
	if (lb)
		fp_lb__close(lb);
	return ret;
}

/* ---- save --------------------------------------------------------------- */

struct saved_lb {
	const char *ifname;
	const struct fp_lb_conf *c;
};

static int write_conf(FILE *out, void *arg)
{
	const struct saved_lb *s = arg;
	const struct fp_lb_conf *c = s->c;
	time_t now = time(NULL);
	char stamp[64], vs[80], bs[64];
	struct tm tm;

	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	fprintf(out, "# fastpath lb of %s, saved %s by `fastpath lb save`.\n"
		     "# `fastpath lb apply --load %s FILE` makes the lb exactly this again.\n",
		s->ifname, stamp, s->ifname);
	fprintf(out, "load --conns %u --src4 %s --src6 %s\n", c->conns, c->src4, c->src6);
	for (size_t i = 0; i < c->n_vips; i++) {
		const struct fp_lb_conf_vip *v = &c->vips[i];

		fp_lb_vip_str(&v->key, vs, sizeof(vs));
		fprintf(out, "vip %s --hash %s%s --table-size %u\n", vs,
			v->flags & FP_LB_VIP_HASH_SRC ? "src" : "5tuple",
			v->flags & FP_LB_VIP_PORT_ANY ? " --port-any" : "", v->table_size);
		for (size_t j = 0; j < c->n_bes; j++) {
			const struct fp_lb_conf_be *b = &c->bes[j];

			if (b->vip != i)
				continue;
			fp_lb_addr_str(b->addr, b->af, bs, sizeof(bs));
			if (b->health_down)
				fprintf(out, "# %s: down by the health checker when saved\n", bs);
			fprintf(out, "backend %s %s --weight %u%s%s\n", vs, bs, b->weight,
				b->state == FP_LB_CONF_UP ? "" : " --state ",
				b->state == FP_LB_CONF_UP ? "" : fp_lb_conf_state_name(b->state));
		}
	}
	return fflush(out) || ferror(out) ? -EIO : 0;
}

/* `save IFACE [FILE|-]`: FILE is replaced whole or not at all. */
int lb_do_save(struct cli *cli, int argc, char **argv)
{
	struct fp_lb_conf c = { 0 };
	struct saved_lb s = { .c = &c };
	struct fp_lb *lb = NULL;
	const char *path = argc > 2 ? argv[2] : "-";
	char err[512];
	int ret = cli_nargs(cli, argc, argv, 1, 2);

	if (ret)
		return ret;
	if ((ret = lb_cli_open(cli, argv[1], &lb)))
		return ret;
	s.ifname = argv[1];
	ret = read_running(lb, &c, err, sizeof(err));
	fp_lb__close(lb);
	if (ret)
		return cli_fail(cli, "%s", err);
	ret = cli_save(cli, path, "a configuration file", write_conf, &s);
	if (!ret && strcmp(path, "-")) {
		out_obj_begin();
		out_str("iface", argv[1]);
		out_str("file", path);
		out_u64("vips", c.n_vips);
		out_u64("backends", c.n_bes);
		out_obj_end();
	}
	fp_lb_conf_free(&c);
	return ret;
}
