// SPDX-License-Identifier: BSD-2-Clause
/*
 * `bridge save` and `bridge apply`: a bridge's settings, ports and static
 * FDB entries as a file (src/bridge/bridge_conf.h), for a reboot
 * (fastpath-bridge@.service) and for configuration management. apply
 * reads and checks the whole file first, creates the bridge if it is not
 * there, then edits only what differs: static entries and ports that went
 * away first, a port whose options changed taken out and added again (its
 * learned entries start over), new ports, new static entries. A file
 * equal to the bridge changes nothing; an edit that fails undoes the ones
 * before it (and the create). Learned entries are not configuration.
 */
#include <errno.h>
#include <getopt.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/bridge_cli.h"
#include "cli/cli.h"
#include "cli/cli_file.h"
#include "cli/rulefile.h"
#include "bridge/bridge.h"
#include "bridge/bridge_conf.h"
#include "pipeline/pipeline.h"

/* ---- the running bridge as a configuration ------------------------------- */

static bool port_skb(const char *bpffs, const char *ifname)
{
	struct fp_pipeline *pl = NULL;
	struct fp_meta m;
	char err[256];
	bool skb = false;

	if (!fp_pipeline__open(ifname, bpffs, &pl, err, sizeof(err)) && !fp_pipeline__meta(pl, &m))
		skb = m.xdp_flags & XDP_FLAGS_SKB_MODE;
	if (pl)
		fp_pipeline__close(pl);
	return skb;
}

/* 0, -ENOENT (no such bridge: err says so) or another -errno. */
static int read_running(const char *bpffs, const char *name, struct fp_bridge_conf *c,
			char *err, size_t errlen)
{
	struct fp_br_port *p = calloc(FP_BR_PORTS_MAX, sizeof(*p));
	struct fp_bridge_fdb_entry *e = calloc(FP_BR_FDB_MAX, sizeof(*e));
	struct fp_bridge *b = NULL;
	struct fp_br_cfg cfg;
	int np = 0, ne = 0, ret = -ENOMEM;

	memset(c, 0, sizeof(*c));
	if (!p || !e)
		goto out;
	ret = fp_bridge__open(bpffs, name, &b, err, errlen);
	if (ret)
		goto out;
	ret = fp_bridge__config(b, &cfg);
	if (!ret && (np = fp_bridge__ports(b, p, FP_BR_PORTS_MAX)) < 0)
		ret = np;
	if (!ret && (ne = fp_bridge__fdb(b, e, FP_BR_FDB_MAX, NULL)) < 0)
		ret = ne;
	if (!ret && ((np && !(c->ports = calloc((size_t)np, sizeof(*c->ports)))) ||
		     (ne && !(c->fdbs = calloc((size_t)ne, sizeof(*c->fdbs))))))
		ret = -ENOMEM;
	if (!ret && (ret = fp_bridge__address(b, c->address)) >= 0) {
		c->have_address = ret;
		ret = 0;
	}
	if (ret) {
		snprintf(err, errlen, "reading bridge %s failed: %s", name, strerror(-ret));
		goto out;
	}
	c->ageing_s = (__u32)(cfg.ageing_ns / 1000000000ull);
	c->vlan_aware = cfg.flags & FP_BR_VLAN_AWARE;
	for (int i = 0; i < np && i < FP_BR_PORTS_MAX; i++) {
		struct fp_bridge_conf_port *q = &c->ports[c->n_ports++];

		if (!if_indextoname(p[i].ifindex, q->ifname))
			snprintf(q->ifname, sizeof(q->ifname), "%s", p[i].ifname);
		q->pvid = p[i].pvid;
		q->tagged = p[i].flags & FP_BR_PORT_TAGGED;
		memcpy(q->vlans, p[i].vlans, sizeof(q->vlans));
		q->flood_limit = p[i].flood_limit;
		q->learn_limit = p[i].learn_limit;
		q->skb = port_skb(bpffs, q->ifname);
	}
	for (int i = 0; i < ne && i < FP_BR_FDB_MAX; i++) {
		struct fp_bridge_conf_fdb *f = &c->fdbs[c->n_fdbs];

		if (!(e[i].val.flags & FP_BR_FDB_STATIC) || !if_indextoname(e[i].val.ifindex, f->ifname))
			continue;
		memcpy(f->mac, e[i].key.mac, 6);
		f->vlan = e[i].key.vlan;
		c->n_fdbs++;
	}
out:
	if (b)
		fp_bridge__close(b);
	free(p);
	free(e);
	if (ret)
		fp_bridge_conf_free(c);
	return ret;
}

static const struct fp_bridge_conf_fdb *find_fdb(const struct fp_bridge_conf *c,
						 const struct fp_bridge_conf_fdb *f)
{
	for (size_t i = 0; i < c->n_fdbs; i++)
		if (!memcmp(c->fdbs[i].mac, f->mac, 6) && c->fdbs[i].vlan == f->vlan)
			return &c->fdbs[i];
	return NULL;
}

/* ---- the edits from one configuration to another -------------------------- */

enum step_kind { ST_FDB_DEL, ST_PORT_DEL, ST_PORT_READD, ST_PORT_ADD, ST_FDB_ADD };
static const char *const step_names[] = {
	[ST_FDB_DEL] = "fdb del", [ST_PORT_DEL] = "port del", [ST_PORT_READD] = "port re-add",
	[ST_PORT_ADD] = "port add", [ST_FDB_ADD] = "fdb add",
};

struct step {
	enum step_kind kind;
	const struct fp_bridge_conf_port *port;
	const struct fp_bridge_conf_fdb *fdb;
};

struct plan {
	struct step *v;
	size_t n, unchanged;
};

static int push(struct plan *p, enum step_kind k, const struct fp_bridge_conf_port *port,
		const struct fp_bridge_conf_fdb *fdb)
{
	struct step *g = realloc(p->v, (p->n + 1) * sizeof(*g));

	if (!g)
		return -ENOMEM;
	p->v = g;
	p->v[p->n++] = (struct step){ .kind = k, .port = port, .fdb = fdb };
	return 0;
}

/* What create fixed differs: a message into err, -EEXIST. */
static int check_fixed(const struct fp_bridge_conf *run, const struct fp_bridge_conf *want,
		       const char *name, const char *file, char *err, size_t errlen)
{
	const char *what = run->ageing_s != want->ageing_s ? "--ageing" :
			   run->vlan_aware != want->vlan_aware ? "--vlan-aware" :
			   run->have_address != want->have_address ||
			   (want->have_address && memcmp(run->address, want->address, 6)) ?
			   "--address" : NULL;

	if (!what)
		return 0;
	snprintf(err, errlen, "%s:%u: bridge %s was created with another %s, fixed at create: "
		 "nothing applied (`fastpath bridge destroy %s`, then apply)", file,
		 want->bridge_line, name, what, name);
	return -EEXIST;
}

static int plan_edits(const struct fp_bridge_conf *run, const struct fp_bridge_conf *want,
		      struct plan *p)
{
	int ret = 0;

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < run->n_fdbs && !ret; i++) {
		const struct fp_bridge_conf_fdb *w = find_fdb(want, &run->fdbs[i]);
		int wp = w ? fp_bridge_conf_find_port(want, w->ifname) : -1;
		int rp = fp_bridge_conf_find_port(run, run->fdbs[i].ifname);

		/* gone, behind another port, or its port re-added (which drops it) */
		if (!w || strcmp(w->ifname, run->fdbs[i].ifname) || wp < 0 || rp < 0 ||
		    !fp_bridge_conf_port_same(&want->ports[wp], &run->ports[rp]))
			ret = push(p, ST_FDB_DEL, NULL, &run->fdbs[i]);
	}
	for (size_t i = 0; i < run->n_ports && !ret; i++)
		if (fp_bridge_conf_find_port(want, run->ports[i].ifname) < 0)
			ret = push(p, ST_PORT_DEL, &run->ports[i], NULL);
	for (size_t i = 0; i < want->n_ports && !ret; i++) {
		int r = fp_bridge_conf_find_port(run, want->ports[i].ifname);

		if (r < 0)
			ret = push(p, ST_PORT_ADD, &want->ports[i], NULL);
		else if (!fp_bridge_conf_port_same(&want->ports[i], &run->ports[r]))
			ret = push(p, ST_PORT_READD, &want->ports[i], NULL);
		else
			p->unchanged++;
	}
	for (size_t i = 0; i < want->n_fdbs && !ret; i++) {
		const struct fp_bridge_conf_fdb *r = find_fdb(run, &want->fdbs[i]);
		bool dropped = false;

		for (size_t j = 0; r && j < p->n; j++)
			dropped |= p->v[j].kind == ST_FDB_DEL && p->v[j].fdb == r;
		if (!r || dropped)
			ret = push(p, ST_FDB_ADD, NULL, &want->fdbs[i]);
		else
			p->unchanged++;
	}
	return ret;
}

static int add_port(const char *bpffs, const char *name, const struct fp_bridge_conf_port *q,
		    bool vlan_aware, char *err, size_t errlen)
{
	struct fp_bridge_port_opts o = { .bpffs = bpffs, .skb_mode = q->skb,
					 .flood_limit = q->flood_limit, .have_learn_limit = true,
					 .learn_limit = q->learn_limit };

	if (vlan_aware) {
		o.pvid = q->pvid;
		o.tagged = q->tagged;
		o.have_vlans = true;
		memcpy(o.vlans, q->vlans, sizeof(o.vlans));
	}
	return fp_bridge__add_port(name, q->ifname, &o, err, errlen);
}

static int run_step(const char *bpffs, const char *name, bool vlan_aware, const struct step *s,
		    char *err, size_t errlen)
{
	struct fp_bridge *b = NULL;
	bool gone;
	int ret;

	switch (s->kind) {
	case ST_PORT_DEL:
		ret = fp_bridge__del_port(bpffs, name, s->port->ifname, &gone, err, errlen);
		return ret < 0 ? ret : 0;
	case ST_PORT_READD:
		ret = fp_bridge__del_port(bpffs, name, s->port->ifname, &gone, err, errlen);
		if (ret < 0)
			return ret;
		return add_port(bpffs, name, s->port, vlan_aware, err, errlen);
	case ST_PORT_ADD:
		return add_port(bpffs, name, s->port, vlan_aware, err, errlen);
	case ST_FDB_DEL:
	case ST_FDB_ADD:
		break;
	}
	ret = fp_bridge__open(bpffs, name, &b, err, errlen);
	if (ret)
		return ret;
	ret = s->kind == ST_FDB_ADD ?
		fp_bridge__fdb_add(b, s->fdb->mac, s->fdb->vlan, s->fdb->ifname, err, errlen) :
		fp_bridge__fdb_del(b, s->fdb->mac, s->fdb->vlan, err, errlen);
	fp_bridge__close(b);
	return ret;
}

/* Brings the bridge back to `was`; 0 when all of it went back. */
static int undo(const char *bpffs, const char *name, const struct fp_bridge_conf *was)
{
	struct fp_bridge_conf now;
	struct plan p;
	char err[512];
	int bad = 0;

	if (read_running(bpffs, name, &now, err, sizeof(err)))
		return -EIO;
	if (plan_edits(&now, was, &p))
		bad = 1;
	for (size_t i = 0; !bad && i < p.n; i++)
		bad += run_step(bpffs, name, was->vlan_aware, &p.v[i], err, sizeof(err)) != 0;
	free(p.v);
	fp_bridge_conf_free(&now);
	return bad ? -EIO : 0;
}

static void print_step(const struct step *s)
{
	char mac[24];

	out_row_begin();
	out_str("change", step_names[s->kind]);
	if (s->port) {
		out_str("port", s->port->ifname);
		out_null("mac");
	} else {
		bridge_mac_str(s->fdb->mac, mac, sizeof(mac));
		out_str("port", s->fdb->ifname);
		out_str("mac", mac);
	}
	if (s->kind == ST_PORT_DEL || s->kind == ST_FDB_DEL)
		out_null("line");
	else
		out_u64("line", s->port ? s->port->line : s->fdb->line);
	out_row_end();
}

static int create_for(const char *bpffs, const char *name, const struct fp_bridge_conf *c,
		      char *err, size_t errlen)
{
	struct fp_bridge_opts o = { .bpffs = bpffs, .ageing_s = c->ageing_s,
				    .vlan_aware = c->vlan_aware, .have_address = c->have_address };

	memcpy(o.address, c->address, 6);
	return fp_bridge__create(name, &o, err, errlen);
}

/* `apply NAME FILE [--dry-run]` */
int bridge_do_apply(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = { { "dry-run", no_argument, NULL, 'n' }, { 0 } };
	struct fp_bridge_conf want = { 0 }, run = { 0 };
	struct plan p = { 0 };
	bool dry = false, created = false;
	const char *name, *file;
	size_t len, done = 0;
	char err[512], *text;
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (c != 'n')
			return cli_usage(cli, "unknown option '%s'; apply takes --dry-run",
					 argv[optind - 1]);
		dry = true;
	}
	if (argc - optind != 2)
		return cli_usage(cli, "expected NAME FILE");
	name = argv[optind];
	file = argv[optind + 1];
	if ((ret = bridge_name_arg(cli, name)))
		return ret;
	if (!(text = cli_slurp(file, &len)))
		return cli_fail(cli, "cannot read %s: %s", file, cli_slurp_error(errno));
	ret = fp_bridge_conf_parse(text, len, file, &want, err, sizeof(err));
	free(text);
	if (ret == -EINVAL) {
		out_err("%s; nothing was changed", err);
		return CLI_USAGE;
	}
	if (ret)
		return cli_fail(cli, "%s", err);
	ret = read_running(cli->bpffs, name, &run, err, sizeof(err));
	if (ret == -ENOENT && !dry) {
		if ((ret = create_for(cli->bpffs, name, &want, err, sizeof(err)))) {
			ret = cli_fail(cli, "%s", err);
			goto out;
		}
		created = true;
		ret = read_running(cli->bpffs, name, &run, err, sizeof(err));
	} else if (ret == -ENOENT) {
		run.ageing_s = want.ageing_s; /* a dry run: what the create would make */
		run.vlan_aware = want.vlan_aware;
		run.have_address = want.have_address;
		memcpy(run.address, want.address, 6);
		created = true;
		ret = 0;
	}
	if (ret || (ret = check_fixed(&run, &want, name, file, err, sizeof(err)))) {
		ret = cli_fail(cli, "%s", err);
		goto out;
	}
	if (plan_edits(&run, &want, &p)) {
		ret = cli_fail(cli, "out of memory");
		goto out;
	}
	for (; !dry && done < p.n; done++)
		if ((ret = cli_test_fail_edit(done + 1, err, sizeof(err))) ||
		    (ret = run_step(cli->bpffs, name, want.vlan_aware, &p.v[done], err, sizeof(err))))
			break;
	if (ret) {
		const struct step *s = &p.v[done];
		char e2[512];
		int n = 0, u = created ? fp_bridge__destroy(cli->bpffs, name, &n, e2, sizeof(e2))
				       : undo(cli->bpffs, name, &run);

		ret = cli_fail(cli, "bridge %s: %s %s (edit %zu of %zu): %s; %s", name,
			       step_names[s->kind], s->port ? s->port->ifname : s->fdb->ifname,
			       done + 1, p.n, err,
			       u ? "undoing the edits made before it failed too: see `fastpath bridge show`"
				 : created ? "the edits made before it were undone and the bridge destroyed"
				 : "the edits made before it were undone: the bridge is as it was");
		goto out;
	}
	out_obj_begin();
	out_str("bridge", name);
	out_str("file", file);
	out_bool("dry_run", dry);
	out_bool(dry ? "would_create" : "created", created);
	out_u64("ports", want.n_ports);
	out_u64("static_fdb", want.n_fdbs);
	out_u64("edits", p.n);
	out_u64("unchanged", p.unchanged);
	out_list_begin("changes");
	for (size_t i = 0; i < p.n; i++)
		print_step(&p.v[i]);
	out_list_end();
	out_obj_end();
out:
	free(p.v);
	fp_bridge_conf_free(&want);
	fp_bridge_conf_free(&run);
	return ret;
}

/* ---- save ------------------------------------------------------------------ */

struct saved_bridge {
	const char *name;
	const struct fp_bridge_conf *c;
};

static int write_conf(FILE *out, void *arg)
{
	const struct saved_bridge *s = arg;
	const struct fp_bridge_conf *c = s->c;
	char stamp[64], mac[24], vl[512];
	time_t now = time(NULL);
	struct tm tm;

	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	fprintf(out, "# fastpath bridge %s, saved %s by `fastpath bridge save`.\n"
		     "# `fastpath bridge apply %s FILE` makes the bridge exactly this again\n"
		     "# (learned FDB entries are not kept: they are learned again).\n",
		s->name, stamp, s->name);
	fprintf(out, "bridge --ageing %u%s", c->ageing_s, c->vlan_aware ? " --vlan-aware" : "");
	if (c->have_address) {
		bridge_mac_str(c->address, mac, sizeof(mac));
		fprintf(out, " --address %s", mac);
	}
	fputc('\n', out);
	for (size_t i = 0; i < c->n_ports; i++) {
		const struct fp_bridge_conf_port *q = &c->ports[i];

		fprintf(out, "port %s", q->ifname);
		if (c->vlan_aware) {
			fp_vlan_list_format(q->vlans, vl, sizeof(vl));
			fprintf(out, " --pvid %u --vlans %s %s", q->pvid, vl,
				q->tagged ? "--tagged" : "--untagged");
		}
		if (q->flood_limit)
			fprintf(out, " --flood-limit %u", q->flood_limit);
		fprintf(out, " --learn-limit %u%s\n", q->learn_limit, q->skb ? " --mode skb" : "");
	}
	for (size_t i = 0; i < c->n_fdbs; i++) {
		bridge_mac_str(c->fdbs[i].mac, mac, sizeof(mac));
		if (c->fdbs[i].vlan)
			fprintf(out, "fdb %s vlan %u %s\n", mac, c->fdbs[i].vlan, c->fdbs[i].ifname);
		else
			fprintf(out, "fdb %s %s\n", mac, c->fdbs[i].ifname);
	}
	return fflush(out) || ferror(out) ? -EIO : 0;
}

/* `save NAME [FILE|-]`: FILE is replaced whole or not at all. */
int bridge_do_save(struct cli *cli, int argc, char **argv)
{
	struct fp_bridge_conf c;
	struct saved_bridge s = { .c = &c };
	const char *path = argc > 2 ? argv[2] : "-";
	char err[512];
	int ret = cli_nargs(cli, argc, argv, 1, 2);

	if (ret || (ret = bridge_name_arg(cli, argv[1])))
		return ret;
	if ((ret = read_running(cli->bpffs, argv[1], &c, err, sizeof(err))))
		return cli_fail(cli, "%s", err);
	s.name = argv[1];
	ret = cli_save(cli, path, "a configuration file", write_conf, &s);
	if (!ret && strcmp(path, "-")) {
		out_obj_begin();
		out_str("bridge", argv[1]);
		out_str("file", path);
		out_u64("ports", c.n_ports);
		out_u64("static_fdb", c.n_fdbs);
		out_obj_end();
	}
	fp_bridge_conf_free(&c);
	return ret;
}
