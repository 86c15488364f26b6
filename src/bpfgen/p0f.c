// SPDX-License-Identifier: BSD-2-Clause
/*
 * A p0f v3 TCP signature (ver:ittl:olen:mss:wsize,scale:olayout:quirks:pclass)
 * as a pcap-filter expression, test by test as Cloudflare's bpftools
 * (p0f.py) writes it, so `bpfgen p0f` compiles the same filter. Differences:
 * a signature the reference crashed on (wrong field count, mss*N without an
 * mss option, ...) is an error naming the field; EOL padding of N bytes is
 * tested over exactly N bytes (the reference chose the chunk size from the
 * total, e.g. read 4 bytes for 3 of padding, past the options).
 */
#include "bpfgen/bpfgen_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P0F_MAX_OPTS 40

struct p0f {
	bool v6;
	FILE *expr, *doc;
	int nsteps;
	const char *quirks[32];
	int nquirks;
	struct { const char *name; int code; int off; } opt[P0F_MAX_OPTS];
	int nopt;
	int eol_start, eol_pad, opt_len;
	char *msg;
	size_t msglen;
};

static int bad(struct p0f *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct p0f *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->msg, s->msglen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* A decimal field to int, refusing what no packet field holds. */
static int number(struct p0f *s, const char *field, const char *v, long *out)
{
	if (!digits(v) || strlen(v) > 9)
		return bad(s, "p0f: %s '%s' is not a number below 10^9", field, v);
	*out = strtol(v, NULL, 10);
	return 0;
}

static bool has_quirk(const struct p0f *s, const char *q)
{
	int i;

	for (i = 0; i < s->nquirks; i++)
		if (!strcmp(s->quirks[i], q))
			return true;
	return false;
}

static void step(struct p0f *s, const char *lhs, const char *op, const char *rhs, const char *doc)
{
	fprintf(s->expr, "%s(%s %s %s)", s->nsteps ? " and " : "", lhs, op, rhs);
	fprintf(s->doc, "%s(%s %s %s): %s", s->nsteps ? "\n" : "", lhs, op, rhs, doc);
	s->nsteps++;
}

static const char *f4_6(const struct p0f *s, const char *v4, const char *v6)
{
	return s->v6 ? v6 : v4;
}

/* "tcp[N:len]" of an option's field; -EINVAL if the layout lacks it. */
static int opt_field(struct p0f *s, const char *name, int off, int len, char *buf, size_t n)
{
	int i;

	for (i = 0; i < s->nopt; i++) {
		if (strcmp(s->opt[i].name, name))
			continue;
		if (s->v6)
			snprintf(buf, n, "ip6[(40 + %d):%d]", s->opt[i].off + off, len);
		else
			snprintf(buf, n, "tcp[%d:%d]", s->opt[i].off + off, len);
		return 0;
	}
	return bad(s, "p0f: the option layout has no '%s', which the signature needs", name);
}

static int parse_layout(struct p0f *s, char *ol)
{
	static const struct { const char *name; int code, inc; } known[] = {
		{ "eol", 0, 1 }, { "nop", 1, 1 }, { "mss", 2, 4 },
		{ "ws", 3, 3 },  { "sok", 4, 2 }, { "ts", 8, 10 },
	};
	const char *unknown = NULL;
	int cur = 20;
	char *tok, *save = NULL;
	size_t k;

	s->eol_pad = 0;
	s->eol_start = 0;
	for (tok = *ol ? strtok_r(ol, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
		int code = 0, inc = 1;

		for (k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			if (!strcmp(tok, known[k].name))
				break;
		if (k < sizeof(known) / sizeof(known[0])) {
			code = known[k].code;
			inc = known[k].inc;
		} else if (!strncmp(tok, "eol+", 4) && digits(tok + 4) && strlen(tok + 4) < 5) {
			if (unknown && strcmp(unknown, tok))
				return bad(s, "p0f: more than one eol+N in the option layout");
			unknown = tok;
			s->eol_pad = atoi(tok + 4);
			tok = (char *)"eol";
		} else {
			return bad(s, "p0f: unknown TCP option '%s' in the option layout", tok);
		}
		if (s->nopt == P0F_MAX_OPTS)
			return bad(s, "p0f: more than %d TCP options", P0F_MAX_OPTS);
		s->opt[s->nopt].name = tok;
		s->opt[s->nopt].code = code;
		s->opt[s->nopt].off = cur;
		s->nopt++;
		cur += inc;
		s->eol_start = cur;
	}
	s->opt_len = cur + s->eol_pad - 20;
	return 0;
}

static int parse_quirks(struct p0f *s, char *q)
{
	static const char *const known[] = { "", "df", "id+", "id-", "ecn", "0+", "flow", "seq-",
		"ack-", "ack+", "uptr+", "urgf+", "pushf+", "ts1-", "ts2+", "opt+", "exws",
		"linux", "bad" };
	char *p = q, *c;
	size_t k;

	for (;;) {
		c = strchr(p, ',');
		if (c)
			*c = 0;
		for (k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			if (!strcmp(p, known[k]))
				break;
		if (k == sizeof(known) / sizeof(known[0]))
			return bad(s, "p0f: unknown quirk '%s'", p);
		if (s->nquirks < 32)
			s->quirks[s->nquirks++] = p;
		if (!c)
			return 0;
		p = c + 1;
	}
}

static void steps_quirks(struct p0f *s, const char *ts2, const char *ts6, bool ts_ok)
{
	const char *df = "(ip[6] & 0x40)", *id = "ip[4:2]", *mbz = "(ip[6] & 0x80)";
	const char *ackf = f4_6(s, "(tcp[tcpflags] & tcp-ack)", "(ip6[40 + tcpflags] & tcp-ack)");
	const char *ack = f4_6(s, "tcp[8:4]", "ip6[(40 + 8):4]");
	const char *urgf = f4_6(s, "(tcp[tcpflags] & tcp-urg)", "(ip6[40 + tcpflags] & tcp-urg)");
	const char *urg = f4_6(s, "tcp[18:2]", "ip6[(40 + 18):2]");
	const char *seq = f4_6(s, "tcp[4:4]", "ip6[(40 + 4):4]");

	if (!s->v6) {
		if (has_quirk(s, "df")) {
			step(s, df, "!=", "0", "df set");
		} else if (has_quirk(s, "id+")) {
			step(s, df, "!=", "0", "id+ (df set)");
			step(s, id, "!=", "0", "id+ (id set) ");
		} else if (has_quirk(s, "id-")) {
			step(s, df, "==", "0", "id- (df not set)");
			step(s, id, "==", "0", "id- (id not set)");
		}
		if (has_quirk(s, "ecn"))
			step(s, "(ip[1] & 0x2)", "!=", "0", "ecn");
		if (has_quirk(s, "0+"))
			step(s, mbz, "!=", "0", "mbz non zero");
		else
			step(s, mbz, "==", "0", "mbz zero");
	}
	if (s->v6 && has_quirk(s, "flow"))
		step(s, "(ip6[2:2])", "!=", "0", "flow");
	if (has_quirk(s, "seq-"))
		step(s, seq, "==", "0", "seq- (seq num not set)");
	if (has_quirk(s, "ack+")) {
		step(s, ackf, "==", "0", "ack+ (ack flag not set)");
		step(s, ack, "!=", "0", "ack+ (ack num set)");
	} else if (has_quirk(s, "ack-")) {
		step(s, ackf, "!=", "0", "ack- (ack flag set)");
		step(s, ack, "==", "0", "ack- (ack num not set)");
	}
	if (has_quirk(s, "uptr+")) {
		step(s, urgf, "==", "0", "uptr+ (urg flag not set)");
		step(s, urg, "!=", "0", "uptr+ (urg ptr set)");
	} else if (has_quirk(s, "urgf+")) {
		step(s, urgf, "!=", "0", "urgf+ (urg flag set)");
	}
	if (has_quirk(s, "pushf+"))
		step(s, f4_6(s, "(tcp[tcpflags] & tcp-push)", "(ip6[40 + tcpflags] & tcp-push)"),
		     "!=", "0", "pushf+ (psh flag set)");
	if (ts_ok && has_quirk(s, "ts1-"))
		step(s, ts2, "==", "0", "ts1- (ts1 not set)");
	if (ts_ok && has_quirk(s, "ts2+"))
		step(s, ts6, "!=", "0", "ts2+ (ts2 set)");
}

static int build(struct p0f *s, char **f)
{
	char a[96], b[160], t2[48], t6[48], ws[48];
	const char *ttl = f4_6(s, "ip[8]", "(ip6[7])");
	const char *wsf = f4_6(s, "tcp[14:2]", "ip6[(40 + 14):2]");
	char *wsize = f[4], *scale = strchr(f[4], ',');
	bool need_ts = has_quirk(s, "ts1-") || has_quirk(s, "ts2+") ||
		       (!s->v6 && has_quirk(s, "linux"));
	long v, i;

	*scale++ = 0;
	fprintf(s->expr, "%s", s->v6 ? "ip6" : "ip");
	fprintf(s->doc, "%s: ip version", s->v6 ? "ip6" : "ip");
	s->nsteps = 1;
	if (f[1][strlen(f[1]) - 1] != '-') {
		if (number(s, "ittl", f[1], &v))
			return -EINVAL;
		snprintf(a, sizeof(a), "%ld", v);
		snprintf(b, sizeof(b), "ttl <= %ld", v);
		step(s, ttl, "<=", a, b);
		if (v > 32) {
			snprintf(a, sizeof(a), "%ld", v - 35);
			snprintf(b, sizeof(b), "ttl > %ld", v - 35);
			step(s, ttl, ">", a, b);
		}
	}
	if (!s->v6 && strcmp(f[2], "*")) {
		if (number(s, "olen", f[2], &v))
			return -EINVAL;
		snprintf(a, sizeof(a), "%ld", 5 + v);
		snprintf(b, sizeof(b), "IP options len == %s", f[2]);
		step(s, "(ip[0] & 0xf)", "==", a, b);
	}
	if (strcmp(f[3], "*") && strcmp(f[3], "0")) {
		if (opt_field(s, "mss", 2, 2, a, sizeof(a)))
			return -EINVAL;
		snprintf(b, sizeof(b), "mss == %s", f[3]);
		step(s, a, "==", f[3], b);
	}
	if (strcmp(wsize, "*")) {
		if (!strncmp(wsize, "mss*", 4)) {
			if (opt_field(s, "mss", 2, 2, ws, sizeof(ws)))
				return -EINVAL;
			snprintf(a, sizeof(a), "(%s * %s)", ws, wsize + 4);
			snprintf(b, sizeof(b), "win size == mss * %s", wsize + 4);
			step(s, wsf, "==", a, b);
		} else if (!strncmp(wsize, "mtu*", 4)) {
			snprintf(a, sizeof(a), "(1500 * %s)", wsize + 4);
			step(s, wsf, "==", a, "win size == mtu");
		} else if (wsize[0] == '%') {
			snprintf(a, sizeof(a), "(%s %% %s)", wsf, wsize + 1);
			snprintf(b, sizeof(b), "win size == x * %s", wsize + 1);
			step(s, a, "==", "0", b);
		} else {
			snprintf(b, sizeof(b), "win size == %s", wsize);
			step(s, wsf, "==", wsize, b);
		}
	}
	if (strcmp(scale, "*") && strcmp(scale, "0")) {
		if (opt_field(s, "ws", 2, 1, a, sizeof(a)))
			return -EINVAL;
		snprintf(b, sizeof(b), "win scale == %s", scale);
		step(s, a, "==", scale, b);
	}
	if (!has_quirk(s, "bad")) {
		snprintf(a, sizeof(a), "%d", 5 + (s->opt_len + 3) / 4);
		step(s, f4_6(s, "(tcp[12] >> 4)", "(ip6[40 + 12] >> 4)"), "==", a, "TCP data offset");
	}
	for (i = 0; i < s->nopt; i++) {
		snprintf(a, sizeof(a), s->v6 ? "ip6[40 + %d]" : "tcp[%d]", s->opt[i].off);
		snprintf(ws, sizeof(ws), "%d", s->opt[i].code);
		snprintf(b, sizeof(b), "olayout %s", s->opt[i].name);
		step(s, a, "==", ws, b);
	}
	for (i = 0; i < s->eol_pad;) {
		int w = s->eol_pad - i >= 4 ? 4 : s->eol_pad - i >= 2 ? 2 : 1;
		const char *op = has_quirk(s, "opt+") ? "!=" : "==";

		snprintf(a, sizeof(a), s->v6 ? "ip6[(40 + %ld):%d]" : "tcp[%ld:%d]",
			 s->eol_start + i, w);
		snprintf(b, sizeof(b), "eol pad %s 0", op);
		step(s, a, op, "0", b);
		i += w;
	}
	if (need_ts && (opt_field(s, "ts", 2, 4, t2, sizeof(t2)) ||
			opt_field(s, "ts", 6, 4, t6, sizeof(t6))))
		return -EINVAL;
	if (has_quirk(s, "exws") && opt_field(s, "ws", 2, 1, ws, sizeof(ws)))
		return -EINVAL;
	steps_quirks(s, t2, t6, need_ts);
	if (has_quirk(s, "exws"))
		step(s, ws, ">", "14", "exws");
	if (!s->v6 && has_quirk(s, "linux")) {
		snprintf(b, sizeof(b), "((tcp[4:4] ^ %s) & 0xffff)", t2);
		step(s, "ip[4:2]", "==", b, "linux");
	}
	if (strcmp(f[7], "*")) {
		const char *op = !strcmp(f[7], "0") ? "==" : "!=";

		snprintf(b, sizeof(b), "payload len %s 0", op);
		step(s, s->v6 ? "((ip6[4:2]) - ((ip6[40 + 12] >> 4) * 4))"
			      : "(ip[2:2] - ((ip[0] & 0xf) * 4) - ((tcp[12] >> 4) * 4))",
		     op, "0", b);
	}
	return 0;
}

static int check_fields(struct p0f *s, char **f)
{
	const char *w = f[4], *c = strchr(f[4], ',');
	size_t n;

	if (strcmp(f[0], "4") && strcmp(f[0], "6"))
		return bad(s, "p0f: IP version '%s' must be 4 or 6", f[0]);
	n = strlen(f[1]);
	if (!n || !digits(strndupa(f[1], f[1][n - 1] == '-' ? n - 1 : n)))
		return bad(s, "p0f: invalid ittl '%s'", f[1]);
	if (strcmp(f[2], "*") && !digits(f[2]))
		return bad(s, "p0f: invalid olen '%s'", f[2]);
	if (strcmp(f[3], "*") && !digits(f[3]))
		return bad(s, "p0f: invalid mss '%s'", f[3]);
	if (!c || strchr(c + 1, ','))
		return bad(s, "p0f: window '%s' must be SIZE,SCALE", f[4]);
	if (strncmp(w, "*,", 2)) {
		const char *d = !strncmp(w, "mss*", 4) || !strncmp(w, "mtu*", 4) ? w + 4
				: w[0] == '%' ? w + 1 : w;

		if (d == c || !digits(strndupa(d, (size_t)(c - d))))
			return bad(s, "p0f: invalid window size in '%s'", f[4]);
	}
	if (strcmp(c + 1, "*") && !digits(c + 1))
		return bad(s, "p0f: invalid window scale in '%s'", f[4]);
	if (!strchr("0+*", f[7][0]) || !f[7][0])
		return bad(s, "p0f: invalid payload class '%s'", f[7]);
	return 0;
}

int fp_p0f__to_expr(const char *sig, char **expr, char **doc, char *msg, size_t msglen)
{
	struct p0f s = { .msg = msg, .msglen = msglen };
	char *copy = strdup(sig), *f[8], *p, *c;
	size_t elen = 0, dlen = 0;
	int n = 0, r = -ENOMEM;

	*expr = *doc = NULL;
	if (!copy)
		return -ENOMEM;
	for (p = copy;; p = c + 1) {
		c = strchr(p, ':');
		if (n < 8)
			f[n] = p;
		n++;
		if (!c)
			break;
		*c = 0;
	}
	if (n != 8) {
		r = bad(&s, "p0f: '%s' has %d fields; a signature has 8: "
			    "ver:ittl:olen:mss:wsize,scale:olayout:quirks:pclass", sig, n);
		goto out;
	}
	r = check_fields(&s, f);
	if (r)
		goto out;
	s.v6 = !strcmp(f[0], "6");
	r = parse_layout(&s, f[5]);
	if (!r)
		r = parse_quirks(&s, f[6]);
	if (r)
		goto out;
	s.expr = open_memstream(expr, &elen);
	s.doc = open_memstream(doc, &dlen);
	if (!s.expr || !s.doc) {
		r = -ENOMEM;
		goto out;
	}
	r = build(&s, f);
out:
	if (s.expr)
		fclose(s.expr);
	if (s.doc)
		fclose(s.doc);
	if (r) {
		free(*expr);
		free(*doc);
		*expr = *doc = NULL;
	}
	free(copy);
	return r;
}
