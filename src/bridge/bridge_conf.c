// SPDX-License-Identifier: BSD-2-Clause
/*
 * A bridge's configuration file, read (bridge_conf.h): every statement
 * checked with NAME:LINE:COL on the first error, ports filled in with the
 * defaults `bridge add` applies, so a file compares with a running bridge
 * field by field. No maps.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge/bridge.h"
#include "bridge/bridge_conf.h"
#include "util/conf_line.h"

typedef struct fp_conf_reader reader;
typedef struct fp_conf_word word;

static int st_bridge(const reader *r, struct fp_bridge_conf *c, const word *w, int nw)
{
	const word *v;

	if (c->bridge_line)
		return fp_conf_fail(r, w[0].col, "a second bridge line (line %u is the first)",
				    c->bridge_line);
	if (c->n_ports || c->n_fdbs)
		return fp_conf_fail(r, w[0].col, "the bridge line comes first");
	c->bridge_line = r->line;
	for (int i = 1; i < nw; i++) {
		if (!strcmp(w[i].s, "--ageing")) {
			if (!(v = fp_conf_value(r, w, nw, &i)) ||
			    fp_conf_number(r, v, "--ageing", 1, 1000000, &c->ageing_s))
				return -EINVAL;
		} else if (!strcmp(w[i].s, "--vlan-aware")) {
			c->vlan_aware = true;
		} else if (!strcmp(w[i].s, "--address")) {
			if (!(v = fp_conf_value(r, w, nw, &i)))
				return -EINVAL;
			if (fp_mac_parse(v->s, c->address) || (c->address[0] & 1))
				return fp_conf_fail(r, v->col, "--address takes a unicast MAC such as "
						    "02:00:00:00:00:01, not '%s'", v->s);
			c->have_address = true;
		} else {
			return fp_conf_fail(r, w[i].col, "bridge takes --ageing, --vlan-aware and "
					    "--address, not '%s'", w[i].s);
		}
	}
	return 0;
}

static int ifname_word(const reader *r, const word *w)
{
	size_t n = strlen(w->s);

	if (n >= IF_NAMESIZE || strchr(w->s, '/') || !strcmp(w->s, ".") || !strcmp(w->s, ".."))
		return fp_conf_fail(r, w->col, "'%s' is not an interface name", w->s);
	return 0;
}

static int st_port(const reader *r, struct fp_bridge_conf *c, const word *w, int nw)
{
	struct fp_bridge_conf_port p = { .pvid = 1, .learn_limit = FP_BR_LEARN_LIMIT_DEFAULT,
					 .line = r->line };
	struct fp_bridge_conf_port *grown;
	bool untagged = false, vlan_opt = false;
	__u32 x;
	char e[256];
	int dup;

	if (nw < 2)
		return fp_conf_fail(r, w[0].col, "port needs an interface");
	if (ifname_word(r, &w[1]))
		return -EINVAL;
	strcpy(p.ifname, w[1].s);
	for (int i = 2; i < nw; i++) {
		const word *v = NULL;
		const char *o = w[i].s;

		if (!strcmp(o, "--tagged") || !strcmp(o, "--untagged")) {
			*(o[2] == 't' ? &p.tagged : &untagged) = true;
			vlan_opt = true;
			if (p.tagged && untagged)
				return fp_conf_fail(r, w[i].col, "--tagged and --untagged: give one");
			continue;
		}
		if (strcmp(o, "--pvid") && strcmp(o, "--vlans") && strcmp(o, "--flood-limit") &&
		    strcmp(o, "--learn-limit") && strcmp(o, "--mode"))
			return fp_conf_fail(r, w[i].col, "port takes --pvid, --vlans, --tagged, "
					    "--untagged, --flood-limit, --learn-limit and --mode, not "
					    "'%s'", o);
		if (!(v = fp_conf_value(r, w, nw, &i)))
			return -EINVAL;
		if (!strcmp(o, "--pvid")) {
			if (fp_conf_number(r, v, "--pvid", 1, 4094, &x))
				return -EINVAL;
			p.pvid = (__u16)x;
			vlan_opt = true;
		} else if (!strcmp(o, "--vlans")) {
			if (fp_vlan_list_parse(v->s, p.vlans, e, sizeof(e)))
				return fp_conf_fail(r, v->col, "--vlans: %s", e);
			vlan_opt = true;
		} else if (!strcmp(o, "--flood-limit")) {
			if (fp_conf_number(r, v, "--flood-limit", 1, 100000000, &p.flood_limit))
				return -EINVAL;
		} else if (!strcmp(o, "--learn-limit")) {
			if (fp_conf_number(r, v, "--learn-limit", 0, FP_BR_FDB_MAX, &p.learn_limit))
				return -EINVAL;
		} else if (!strcmp(v->s, "skb") || !strcmp(v->s, "native")) {
			p.skb = v->s[0] == 's';
		} else {
			return fp_conf_fail(r, v->col, "--mode takes native or skb, not '%s'", v->s);
		}
	}
	if (vlan_opt && !c->vlan_aware)
		return fp_conf_fail(r, w[0].col, "--pvid, --vlans, --tagged and --untagged are for "
				    "a VLAN-aware bridge (bridge --vlan-aware)");
	if (c->vlan_aware) /* as bridge add keeps it: the PVID is allowed */
		p.vlans[p.pvid >> 6] |= 1ull << (p.pvid & 63);
	if ((dup = fp_bridge_conf_find_port(c, p.ifname)) >= 0)
		return fp_conf_fail(r, w[1].col, "port %s is on line %u already", p.ifname,
				    c->ports[dup].line);
	if (c->n_ports == FP_BR_PORTS_MAX)
		return fp_conf_fail(r, w[0].col, "more than %d ports, the most a bridge has",
				    FP_BR_PORTS_MAX);
	grown = realloc(c->ports, (c->n_ports + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	c->ports = grown;
	c->ports[c->n_ports++] = p;
	return 0;
}

static int st_fdb(const reader *r, struct fp_bridge_conf *c, const word *w, int nw)
{
	struct fp_bridge_conf_fdb f = { .line = r->line };
	struct fp_bridge_conf_fdb *grown;
	int i = 2, port;
	__u32 x;

	if (nw < 3)
		return fp_conf_fail(r, w[0].col, "fdb needs a MAC and a port (fdb MAC [vlan N] "
				    "IFACE)");
	if (fp_mac_parse(w[1].s, f.mac) || (f.mac[0] & 1))
		return fp_conf_fail(r, w[1].col, "'%s' is not a unicast MAC address "
				    "(aa:bb:cc:dd:ee:ff)", w[1].s);
	if (!strcmp(w[2].s, "vlan")) {
		if (nw < 5)
			return fp_conf_fail(r, w[2].col, "vlan needs a number, then the port");
		if (fp_conf_number(r, &w[3], "vlan", 1, 4094, &x))
			return -EINVAL;
		f.vlan = (__u16)x;
		i = 4;
	}
	if (i + 1 != nw)
		return fp_conf_fail(r, w[i + 1 < nw ? i + 1 : i].col, "fdb MAC [vlan N] IFACE: "
				    "one port, nothing after it");
	port = fp_bridge_conf_find_port(c, w[i].s);
	if (port < 0)
		return fp_conf_fail(r, w[i].col, "%s is no port line above", w[i].s);
	if (f.vlan && !c->vlan_aware)
		return fp_conf_fail(r, w[2].col, "a VLAN for an fdb entry of a bridge that is not "
				    "VLAN-aware");
	if (!f.vlan && c->vlan_aware)
		return fp_conf_fail(r, w[2].col, "the bridge is VLAN-aware: give the entry's vlan N");
	strcpy(f.ifname, w[i].s);
	for (size_t j = 0; j < c->n_fdbs; j++)
		if (!memcmp(c->fdbs[j].mac, f.mac, 6) && c->fdbs[j].vlan == f.vlan)
			return fp_conf_fail(r, w[1].col, "%s%s is on line %u already", w[1].s,
					    f.vlan ? " in that VLAN" : "", c->fdbs[j].line);
	if (c->n_fdbs == FP_BR_FDB_MAX)
		return fp_conf_fail(r, w[0].col, "more than %d fdb entries", FP_BR_FDB_MAX);
	grown = realloc(c->fdbs, (c->n_fdbs + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	c->fdbs = grown;
	c->fdbs[c->n_fdbs++] = f;
	return 0;
}

int fp_bridge_conf_parse(const char *text, size_t len, const char *name,
			 struct fp_bridge_conf *c, char *err, size_t errlen)
{
	struct fp_conf_reader r;
	word w[FP_CONF_WORDS];
	int nw, ret = 0;

	memset(c, 0, sizeof(*c));
	c->ageing_s = FP_BR_AGEING_DEFAULT_S;
	fp_conf_open(&r, name, text, len, err, errlen);
	while (!ret && (nw = fp_conf_next(&r, w)) != 0) {
		if (nw < 0)
			ret = nw;
		else if (!strcmp(w[0].s, "bridge"))
			ret = st_bridge(&r, c, w, nw);
		else if (!strcmp(w[0].s, "port"))
			ret = st_port(&r, c, w, nw);
		else if (!strcmp(w[0].s, "fdb"))
			ret = st_fdb(&r, c, w, nw);
		else
			ret = fp_conf_fail(&r, w[0].col, "'%s': a line is bridge, port or fdb",
					   w[0].s);
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", name);
	if (ret)
		fp_bridge_conf_free(c);
	return ret;
}

void fp_bridge_conf_free(struct fp_bridge_conf *c)
{
	free(c->ports);
	free(c->fdbs);
	memset(c, 0, sizeof(*c));
}

int fp_bridge_conf_find_port(const struct fp_bridge_conf *c, const char *ifname)
{
	for (size_t i = 0; i < c->n_ports; i++)
		if (!strcmp(c->ports[i].ifname, ifname))
			return (int)i;
	return -1;
}

bool fp_bridge_conf_port_same(const struct fp_bridge_conf_port *a,
			      const struct fp_bridge_conf_port *b)
{
	return a->pvid == b->pvid && a->tagged == b->tagged &&
	       !memcmp(a->vlans, b->vlans, sizeof(a->vlans)) && a->flood_limit == b->flood_limit &&
	       a->learn_limit == b->learn_limit && a->skb == b->skb;
}
