// SPDX-License-Identifier: BSD-2-Clause
/*
 * The lb's configuration file, read (lb_conf.h): every statement checked,
 * limits included, with NAME:LINE:COL on the first error. No maps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lb/lb.h"
#include "lb/lb_conf.h"
#include "lb/maglev.h"
#include "util/conf_line.h"

static int st_load(const struct fp_conf_reader *r, struct fp_lb_conf *c,
		   const struct fp_conf_word *w, int nw)
{
	char e[300];
	__u8 a[16], l;

	if (c->has_load)
		return fp_conf_fail(r, w[0].col, "a second load line (one sets the table and ranges)");
	if (c->n_vips)
		return fp_conf_fail(r, w[0].col, "load comes before the first vip");
	c->has_load = true;
	for (int i = 1; i < nw; i++) {
		const struct fp_conf_word *v;

		if (!strcmp(w[i].s, "--conns")) {
			if (!(v = fp_conf_value(r, w, nw, &i)) ||
			    fp_conf_number(r, v, "--conns", FP_LB_CONNS_MIN, FP_LB_CONNS_MAX,
					   &c->conns))
				return -EINVAL;
		} else if (!strcmp(w[i].s, "--src4") || !strcmp(w[i].s, "--src6")) {
			int af = w[i].s[5] - '0';
			char *dst = af == 4 ? c->src4 : c->src6;
			size_t cap = af == 4 ? sizeof(c->src4) : sizeof(c->src6);

			if (!(v = fp_conf_value(r, w, nw, &i)))
				return -EINVAL;
			if (fp_lb_parse_prefix(v->s, af, a, &l, e, sizeof(e)) || strlen(v->s) >= cap)
				return fp_conf_fail(r, v->col, "%s", e);
			strcpy(dst, v->s);
		} else {
			return fp_conf_fail(r, w[i].col, "load takes --conns, --src4 and --src6, not '%s'",
				    w[i].s);
		}
	}
	return 0;
}

static int vip_word(const struct fp_conf_reader *r, const struct fp_conf_word *w,
		    struct fp_lb_vip_key *k)
{
	char e[300];

	return fp_lb_parse_vip(w->s, k, e, sizeof(e)) ? fp_conf_fail(r, w->col, "%s", e) : 0;
}

static int st_vip(const struct fp_conf_reader *r, struct fp_lb_conf *c,
		  const struct fp_conf_word *w, int nw)
{
	struct fp_lb_conf_vip v = { .table_size = FP_MAGLEV_DEFAULT_SIZE, .line = r->line };
	struct fp_lb_conf_vip *grown;
	char vs[80];
	__u32 h;
	int dup;

	if (nw < 2)
		return fp_conf_fail(r, w[0].col + 3, "vip needs a VIP (e.g. 198.51.100.10:80/tcp)");
	if (vip_word(r, &w[1], &v.key))
		return -EINVAL;
	for (int i = 2; i < nw; i++) {
		const struct fp_conf_word *val;

		if (!strcmp(w[i].s, "--port-any")) {
			v.flags |= FP_LB_VIP_PORT_ANY;
		} else if (!strcmp(w[i].s, "--hash")) {
			if (!(val = fp_conf_value(r, w, nw, &i)))
				return -EINVAL;
			if (fp_lb_parse_hash(val->s, &h))
				return fp_conf_fail(r, val->col, "--hash takes 5tuple or src, not '%s'",
					    val->s);
			v.flags = (v.flags & ~(__u32)FP_LB_VIP_HASH_SRC) | h;
		} else if (!strcmp(w[i].s, "--table-size")) {
			if (!(val = fp_conf_value(r, w, nw, &i)) ||
			    fp_conf_number(r, val, "--table-size", 5, FP_MAGLEV_MAX_SIZE,
					   &v.table_size))
				return -EINVAL;
			if (!fp_maglev_is_prime(v.table_size))
				return fp_conf_fail(r, val->col, "--table-size %u is not a prime",
					    v.table_size);
		} else {
			return fp_conf_fail(r, w[i].col, "vip takes --hash, --port-any and --table-size, "
				    "not '%s'", w[i].s);
		}
	}
	fp_lb_vip_str(&v.key, vs, sizeof(vs));
	if ((v.flags & FP_LB_VIP_PORT_ANY) && v.key.port)
		return fp_conf_fail(r, w[1].col, "VIP %s: --port-any takes every port; write the VIP "
			    "without a port", vs);
	if (!(v.flags & FP_LB_VIP_PORT_ANY) && !v.key.port)
		return fp_conf_fail(r, w[1].col, "VIP %s: no port; give %s, or --port-any", vs,
			    fp_lb_vip_form(v.key.family));
	if ((dup = fp_lb_conf_find_vip(c, &v.key)) >= 0)
		return fp_conf_fail(r, w[1].col, "VIP %s is declared on line %u already", vs,
			    c->vips[dup].line);
	if (c->n_vips == FP_LB_MAX_VIPS)
		return fp_conf_fail(r, w[0].col, "more than %u VIPs, the most an lb holds", FP_LB_MAX_VIPS);
	grown = realloc(c->vips, (c->n_vips + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	c->vips = grown;
	c->vips[c->n_vips++] = v;
	return 0;
}

static int st_backend(const struct fp_conf_reader *r, struct fp_lb_conf *c,
		      const struct fp_conf_word *w, int nw)
{
	struct fp_lb_conf_be b = { .weight = 1, .state = FP_LB_CONF_UP, .line = r->line };
	struct fp_lb_vip_key k;
	struct fp_lb_conf_vip *v;
	struct fp_lb_conf_be *grown;
	char e[300], vs[80];
	int vi;

	if (nw < 3)
		return fp_conf_fail(r, w[0].col, "backend needs a VIP and an address (e.g. backend "
			    "198.51.100.10:80/tcp 10.0.0.2)");
	if (vip_word(r, &w[1], &k))
		return -EINVAL;
	fp_lb_vip_str(&k, vs, sizeof(vs));
	vi = fp_lb_conf_find_vip(c, &k);
	if (vi < 0)
		return fp_conf_fail(r, w[1].col, "VIP %s has no vip line above", vs);
	v = &c->vips[vi];
	if (fp_lb_parse_addr(w[2].s, b.addr, &b.af, e, sizeof(e)))
		return fp_conf_fail(r, w[2].col, "%s", e);
	if (k.family == 6 && b.af == 4)
		return fp_conf_fail(r, w[2].col, "backend %s of the IPv6 VIP %s: an IPv6 VIP needs IPv6 "
			    "backends", w[2].s, vs);
	for (int i = 3; i < nw; i++) {
		const struct fp_conf_word *val;

		if (!strcmp(w[i].s, "--weight")) {
			if (!(val = fp_conf_value(r, w, nw, &i)) ||
			    fp_conf_number(r, val, "--weight", 1, FP_MAGLEV_MAX_WEIGHT, &b.weight))
				return -EINVAL;
		} else if (!strcmp(w[i].s, "--state")) {
			if (!(val = fp_conf_value(r, w, nw, &i)))
				return -EINVAL;
			if (!strcmp(val->s, "up"))
				b.state = FP_LB_CONF_UP;
			else if (!strcmp(val->s, "drain"))
				b.state = FP_LB_CONF_DRAIN;
			else if (!strcmp(val->s, "down"))
				b.state = FP_LB_CONF_DOWN;
			else
				return fp_conf_fail(r, val->col, "--state takes up, drain or down, not '%s'",
					    val->s);
		} else {
			return fp_conf_fail(r, w[i].col, "backend takes --weight and --state, not '%s'",
				    w[i].s);
		}
	}
	for (size_t j = 0; j < c->n_bes; j++)
		if (c->bes[j].vip == (__u32)vi && c->bes[j].af == b.af &&
		    !memcmp(c->bes[j].addr, b.addr, 16))
			return fp_conf_fail(r, w[2].col, "backend %s of VIP %s is declared on line %u "
				    "already", w[2].s, vs, c->bes[j].line);
	if (v->n_backends == FP_LB_MAX_VIP_BACKENDS ||
	    (v->n_backends + 1) * FP_MAGLEV_MIN_SLOTS_PER_BACKEND > v->table_size)
		return fp_conf_fail(r, w[0].col, "VIP %s: more backends than its table of %u slots holds "
			    "(%u; at most %u a VIP)", vs, v->table_size,
			    v->table_size / FP_MAGLEV_MIN_SLOTS_PER_BACKEND, FP_LB_MAX_VIP_BACKENDS);
	if (c->n_bes == FP_LB_MAX_BACKENDS)
		return fp_conf_fail(r, w[0].col, "more than %u (VIP, backend) pairs, the most an lb holds",
			    FP_LB_MAX_BACKENDS);
	grown = realloc(c->bes, (c->n_bes + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	b.vip = (__u32)vi;
	c->bes = grown;
	c->bes[c->n_bes++] = b;
	v->n_backends++;
	return 0;
}

int fp_lb_conf_parse(const char *text, size_t len, const char *name, struct fp_lb_conf *c,
		     char *err, size_t errlen)
{
	struct fp_conf_reader r;
	struct fp_conf_word w[FP_CONF_WORDS];
	int nw, ret = 0;

	memset(c, 0, sizeof(*c));
	fp_conf_open(&r, name, text, len, err, errlen);
	while (!ret && (nw = fp_conf_next(&r, w)) != 0) {
		if (nw < 0)
			ret = nw;
		else if (!strcmp(w[0].s, "load"))
			ret = st_load(&r, c, w, nw);
		else if (!strcmp(w[0].s, "vip"))
			ret = st_vip(&r, c, w, nw);
		else if (!strcmp(w[0].s, "backend"))
			ret = st_backend(&r, c, w, nw);
		else
			ret = fp_conf_fail(&r, w[0].col, "'%s': a line is load, vip or backend",
					   w[0].s);
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", name);
	if (ret)
		fp_lb_conf_free(c);
	return ret;
}

void fp_lb_conf_free(struct fp_lb_conf *c)
{
	free(c->vips);
	free(c->bes);
	memset(c, 0, sizeof(*c));
}

const char *fp_lb_conf_state_name(enum fp_lb_conf_state s)
{
	return s == FP_LB_CONF_DRAIN ? "drain" : s == FP_LB_CONF_DOWN ? "down" : "up";
}

int fp_lb_conf_find_vip(const struct fp_lb_conf *c, const struct fp_lb_vip_key *k)
{
	for (size_t i = 0; i < c->n_vips; i++)
		if (!memcmp(&c->vips[i].key, k, sizeof(*k)))
			return (int)i;
	return -1;
}
