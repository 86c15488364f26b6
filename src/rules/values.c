// SPDX-License-Identifier: BSD-2-Clause
/* Arguments of rule terms, name tables, suggestions, diagnostics (values.h). */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lexer.h"
#include "values.h"

#define DIAGS_STORE_MAX 10000 /* stored entries; n goes on counting */

static int fail(char *err, size_t es, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t es, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, es, fmt, ap);
	va_end(ap);
	return -1;
}

#define SHOW(s, n) fp_tok__show((s), (n), (char[48]){0}, 48)

int fp_val__uint(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	int big = 0;

	if (!n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (!big) {
			v = v * 10 + (uint64_t)(s[i] - '0');
			if (v > max)
				big = 1;
		}
	}
	if (big)
		return -2;
	*out = v;
	return 0;
}

/* N or N-M within 0..max; what = "port" etc. for messages. */
static int parse_range(const char *s, size_t n, const char *kw, const char *what,
		       uint32_t max, struct fp_range *r, char *err, size_t es)
{
	const char *dash = memchr(s, '-', n);
	size_t n1 = dash ? (size_t)(dash - s) : n;
	uint64_t lo = 0, hi = 0;
	int e1, e2;

	e1 = fp_val__uint(s, n1, max, &lo);
	e2 = dash ? fp_val__uint(dash + 1, n - n1 - 1, max, &hi) : 0;
	if (e1 == -1 || e2 == -1)
		return fail(err, es, "expected a %s or range after '%s', got '%s'",
			    what, kw, SHOW(s, n));
	if (e1 == -2 || e2 == -2)
		return fail(err, es, "%s '%s' after '%s' out of range 0..%u",
			    what, SHOW(s, n), kw, max);
	if (!dash)
		hi = lo;
	if (lo > hi)
		return fail(err, es, "range %llu-%llu after '%s' is reversed; did you mean %llu-%llu?",
			    (unsigned long long)lo, (unsigned long long)hi, kw,
			    (unsigned long long)hi, (unsigned long long)lo);
	r->lo = (uint32_t)lo;
	r->hi = (uint32_t)hi;
	return 0;
}

int fp_val__range(const char *s, size_t n, const char *kw, uint32_t max,
		  struct fp_range *r, char *err, size_t es)
{
	return parse_range(s, n, kw, "number", max, r, err, es);
}

int fp_val__ports(const char *s, size_t n, const char *kw, struct fp_portset *p,
		  char *err, size_t es)
{
	size_t i = 0;

	memset(p, 0, sizeof(*p));
	for (;;) {
		const char *comma = memchr(s + i, ',', n - i);
		size_t end = comma ? (size_t)(comma - s) : n;

		if (end == i)
			return fail(err, es, "empty item in port list '%s' after '%s'",
				    SHOW(s, n), kw);
		if (p->n == FP_PORTS_MAX)
			return fail(err, es, "too many port ranges after '%s' (at most %d)",
				    kw, FP_PORTS_MAX);
		if (parse_range(s + i, end - i, kw, "port", 65535, &p->r[p->n], err, es))
			return -1;
		p->n++;
		if (!comma)
			return 0;
		i = end + 1;
	}
}

int fp_val__cidr(const char *s, size_t n, const char *kw, struct fp_cidr *c,
		 char *err, size_t es)
{
	char addr[INET6_ADDRSTRLEN + 8], net[INET6_ADDRSTRLEN];
	const char *slash = memchr(s, '/', n);
	size_t an = slash ? (size_t)(slash - s) : n;
	int v6 = memchr(s, ':', an) != NULL;
	unsigned max = v6 ? 128 : 32;
	uint64_t plen = max;

	memset(c, 0, sizeof(*c));
	if (an >= sizeof(addr))
		goto bad;
	memcpy(addr, s, an);
	addr[an] = '\0';
	if (inet_pton(v6 ? AF_INET6 : AF_INET, addr, c->addr) != 1)
		goto bad;
	if (slash) {
		int e = fp_val__uint(slash + 1, n - an - 1, max, &plen);

		if (e == -1)
			return fail(err, es, "expected a prefix length after '/' in '%s', got '%s'",
				    SHOW(s, n), SHOW(slash + 1, n - an - 1));
		if (e == -2)
			return fail(err, es, "prefix length in '%s' too long for IPv%d (at most %u)",
				    SHOW(s, n), v6 ? 6 : 4, max);
	}
	c->family = v6 ? 6 : 4;
	c->plen = (uint8_t)plen;
	uint8_t masked[16];
	int changed = 0;
	for (unsigned b = 0; b < 16; b++) {
		unsigned keep = plen >= 8 * (b + 1) ? 8 : plen > 8 * b ? (unsigned)(plen - 8 * b) : 0;
		uint8_t m = keep ? (uint8_t)(0xff << (8 - keep)) : 0;

		masked[b] = c->addr[b] & m;
		changed |= masked[b] != c->addr[b];
	}
	if (changed) {
		inet_ntop(v6 ? AF_INET6 : AF_INET, masked, net, sizeof(net));
		return fail(err, es, "%s has host bits set; did you mean %s/%u?",
			    SHOW(s, n), net, (unsigned)plen);
	}
	return 0;
bad:
	return fail(err, es, "expected an IPv4 or IPv6 address or prefix after '%s', got '%s'",
		    kw, SHOW(s, n));
}

static const char *const flag_names[] = {
	"fin", "syn", "rst", "psh", "ack", "urg", "ece", "cwr", NULL
};

const char *fp_tcp_flag__name(unsigned bit)
{
	for (unsigned i = 0; i < 8; i++)
		if (bit == 1u << i)
			return flag_names[i];
	return NULL;
}

int fp_val__flags(const char *s, size_t n, uint8_t *mask, uint8_t *val,
		  char *err, size_t es)
{
	size_t i = 0;

	*mask = *val = 0;
	for (;;) {
		const char *comma = memchr(s + i, ',', n - i);
		size_t end = comma ? (size_t)(comma - s) : n;
		int neg = i < end && s[i] == '!';
		const char *name = s + i + neg;
		size_t nn = end - i - (size_t)neg;
		unsigned bit = 0;

		if (!nn)
			return fail(err, es, "empty item in flag list '%s'", SHOW(s, n));
		for (unsigned b = 0; b < 8; b++)
			if (nn == 3 && !memcmp(name, flag_names[b], 3))
				bit = 1u << b;
		if (!bit) {
			const char *sug = fp_val__suggest(name, nn, flag_names);

			if (sug)
				return fail(err, es, "unknown TCP flag '%s'; did you mean '%s'?",
					    SHOW(name, nn), sug);
			return fail(err, es, "unknown TCP flag '%s'; expected fin, syn, rst, "
				    "psh, ack, urg, ece or cwr (! before a name: must be clear)",
				    SHOW(name, nn));
		}
		if (*mask & bit)
			return fail(err, es, "flag '%s' given twice in '%s'",
				    fp_tcp_flag__name(bit), SHOW(s, n));
		*mask |= (uint8_t)bit;
		if (!neg)
			*val |= (uint8_t)bit;
		if (!comma)
			return 0;
		i = end + 1;
	}
}

/* Printable ASCII except space . " # * */
static int label_byte_ok(unsigned char c)
{
	return c > 0x20 && c < 0x7f && c != '.' && c != '"' && c != '#' && c != '*';
}

int fp_val__qname(const char *s, size_t n, struct fp_qname *q, char *err, size_t es)
{
	const char *p = s;
	size_t m = n, w = 0, i = 0;
	size_t limit = FP_DNS_NAME_MAX;

	memset(q, 0, sizeof(*q));
	if (n == 1 && s[0] == '*')
		return fail(err, es, "a bare '*' is not a qname pattern; "
			    "write '*.' for every name below the root");
	if (m && p[0] == '*') {
		if (m < 2 || p[1] != '.')
			return fail(err, es, "'*' must be the whole first label of a qname, "
				    "as in '*.example.com', got '%s'", SHOW(s, n));
		q->wildcard = true;
		limit = FP_DNS_NAME_MAX - 2; /* room for at least one label below */
		p += 2;
		m -= 2;
		if (m && p[m - 1] == '.' && --m == 0)
			return fail(err, es, "empty label in qname '%s'", SHOW(s, n));
	} else if (m && p[m - 1] == '.') {
		m--; /* a trailing dot is ignored; "." alone is the root */
	}
	while (m) {
		size_t st = i;

		while (i < m && p[i] != '.')
			i++;
		size_t ll = i - st;
		if (!ll)
			return fail(err, es, "empty label in qname '%s'", SHOW(s, n));
		if (ll > 63)
			return fail(err, es, "label '%s' in qname is %zu bytes long; at most 63",
				    SHOW(p + st, ll), ll);
		for (size_t k = st; k < i; k++) {
			unsigned char c = (unsigned char)p[k];

			if (c == '*')
				return fail(err, es, "'*' is only allowed as the whole first label "
					    "of a qname ('*.SUFFIX'), got '%s'", SHOW(s, n));
			if (!label_byte_ok(c))
				return fail(err, es, "byte 0x%02x not allowed in qname '%s'",
					    c, SHOW(s, n));
		}
		if (w + 1 + ll + 1 > limit)
			return fail(err, es, "qname '%s' is longer than %zu bytes in DNS wire format%s",
				    SHOW(s, n), limit,
				    q->wildcard ? " (its suffix, leaving room for a label below)" : "");
		q->wire[w++] = (uint8_t)ll;
		for (size_t k = st; k < i; k++) {
			unsigned char c = (unsigned char)p[k];

			q->wire[w++] = (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c;
		}
		if (i == m)
			break;
		i++;
	}
	q->wire[w++] = 0;
	q->wire_len = (uint8_t)w;
	return 0;
}

static const struct { const char *name; uint16_t type; } qtypes[] = {
	{ "A", 1 }, { "NS", 2 }, { "CNAME", 5 }, { "SOA", 6 }, { "PTR", 12 },
	{ "MX", 15 }, { "TXT", 16 }, { "AAAA", 28 }, { "SRV", 33 }, { "ANY", 255 },
};
#define N_QTYPES (sizeof(qtypes) / sizeof(qtypes[0]))

const char *fp_qtype__name(uint16_t qtype)
{
	for (size_t i = 0; i < N_QTYPES; i++)
		if (qtypes[i].type == qtype)
			return qtypes[i].name;
	return NULL;
}

int fp_val__qtype(const char *s, size_t n, uint16_t *t, char *err, size_t es)
{
	const char *names[N_QTYPES + 1];
	uint64_t v = 0;
	int e = fp_val__uint(s, n, 65535, &v);

	if (!e) {
		*t = (uint16_t)v;
		return 0;
	}
	if (e == -2)
		return fail(err, es, "DNS type %s out of range 0..65535", SHOW(s, n));
	for (size_t i = 0; i < N_QTYPES; i++) {
		names[i] = qtypes[i].name;
		if (strlen(qtypes[i].name) == n && !strncasecmp(qtypes[i].name, s, n)) {
			*t = qtypes[i].type;
			return 0;
		}
	}
	names[N_QTYPES] = NULL;
	const char *sug = fp_val__suggest(s, n, names);
	if (sug)
		return fail(err, es, "unknown DNS type '%s' after 'qtype'; did you mean '%s'?",
			    SHOW(s, n), sug);
	return fail(err, es, "unknown DNS type '%s' after 'qtype'; expected A, AAAA, ANY, "
		    "CNAME, MX, NS, PTR, SOA, SRV, TXT or a number", SHOW(s, n));
}

static const struct { const char *name; uint16_t type; } ethers[] = {
	{ "ip", 0x0800 }, { "arp", 0x0806 }, { "rarp", 0x8035 }, { "ip6", 0x86dd },
	{ "mpls", 0x8847 }, { "pppoe-disc", 0x8863 }, { "pppoe", 0x8864 },
	{ "eapol", 0x888e }, { "lldp", 0x88cc }, { "ptp", 0x88f7 },
};
#define N_ETHERS (sizeof(ethers) / sizeof(ethers[0]))

const char *fp_ether__name(uint16_t type)
{
	for (size_t i = 0; i < N_ETHERS; i++)
		if (ethers[i].type == type)
			return ethers[i].name;
	return NULL;
}

int fp_val__ether(const char *s, size_t n, uint16_t *t, char *err, size_t es)
{
	const char *names[N_ETHERS + 1];
	uint64_t v = 0;
	int e = -1;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		e = n <= 6 ? 0 : -2;
		for (size_t i = 2; i < n && !e; i++) {
			char c = s[i];
			int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
				c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

			if (d < 0)
				e = -1;
			v = v * 16 + (uint64_t)(d < 0 ? 0 : d);
		}
	} else if (n && s[0] >= '0' && s[0] <= '9') {
		e = fp_val__uint(s, n, 65535, &v);
	}
	if (!e) {
		if (v < 0x0600)
			return fail(err, es, "ethertype %s is below 0x0600 (an 802.3 length, not a "
				    "type)", SHOW(s, n));
		if (v == 0x8100 || v == 0x88a8)
			return fail(err, es, "ethertype %s is a VLAN tag: 'ether' is the type after "
				    "the tags; use 'vlan N' for the tags", SHOW(s, n));
		*t = (uint16_t)v;
		return 0;
	}
	if (e == -2)
		return fail(err, es, "ethertype %s out of range 0x0600..0xffff", SHOW(s, n));
	if (n && s[0] >= '0' && s[0] <= '9')
		return fail(err, es, "expected an ethertype 0x0600..0xffff (hex with 0x, or "
			    "decimal) after 'ether', got '%s'", SHOW(s, n));
	for (size_t i = 0; i < N_ETHERS; i++) {
		names[i] = ethers[i].name;
		if (strlen(ethers[i].name) == n && !strncmp(ethers[i].name, s, n)) {
			*t = ethers[i].type;
			return 0;
		}
	}
	names[N_ETHERS] = NULL;
	const char *sug = fp_val__suggest(s, n, names);
	if (sug)
		return fail(err, es, "unknown ethertype '%s' after 'ether'; did you mean '%s'?",
			    SHOW(s, n), sug);
	return fail(err, es, "unknown ethertype '%s' after 'ether'; expected arp, eapol, ip, "
		    "ip6, lldp, mpls, pppoe, pppoe-disc, ptp, rarp or a number 0x0600..0xffff",
		    SHOW(s, n));
}

int fp_val__rate(const char *s, size_t n, uint32_t *count, uint32_t *period_s,
		 char *err, size_t es)
{
	uint64_t v = 0;
	int e;

	if (n < 3 || s[n - 2] != '/' || (s[n - 1] != 's' && s[n - 1] != 'm'))
		goto bad;
	e = fp_val__uint(s, n - 2, UINT32_MAX, &v);
	if (e == -1)
		goto bad;
	if (e == -2)
		return fail(err, es, "rate '%s' too large (at most %u per period)",
			    SHOW(s, n), UINT32_MAX);
	if (v == 0)
		return fail(err, es, "rate '%s' must be at least 1 (use 'drop' to drop all)",
			    SHOW(s, n));
	*count = (uint32_t)v;
	*period_s = s[n - 1] == 's' ? 1 : 60;
	return 0;
bad:
	return fail(err, es, "expected a rate N/s or N/m after 'limit', got '%s'", SHOW(s, n));
}

static size_t edit_distance(const char *a, size_t an, const char *b, size_t bn)
{
	size_t row[33];

	for (size_t j = 0; j <= bn; j++)
		row[j] = j;
	for (size_t i = 1; i <= an; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= bn; j++) {
			size_t up = row[j];
			int ca = a[i - 1], cb = b[j - 1];

			if (ca >= 'A' && ca <= 'Z')
				ca += 32;
			if (cb >= 'A' && cb <= 'Z')
				cb += 32;
			size_t best = diag + (ca != cb);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[bn];
}

const char *fp_val__suggest(const char *s, size_t n, const char *const *cands)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;

	if (n == 0 || n > 32)
		return NULL;
	for (; *cands; cands++) {
		size_t cn = strlen(*cands);

		if (cn > 32)
			continue;
		size_t d = edit_distance(s, n, *cands, cn);
		if (d < best_d) {
			best_d = d;
			best = *cands;
		}
	}
	if (best_d > (n <= 3 ? 1u : 2u) || best_d >= n)
		return NULL;
	return best;
}

void fp_diags__add(struct fp_diags *d, unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return;
	if (d->n < d->cap || (d->n == d->cap && d->cap < DIAGS_STORE_MAX)) {
		if (d->n == d->cap) {
			size_t cap = d->cap ? d->cap * 2 : 16;
			struct fp_diag *v = realloc(d->v, cap * sizeof(*v));

			if (!v)
				goto count;
			d->v = v;
			d->cap = cap;
		}
		struct fp_diag *e = &d->v[d->n];
		e->line = line;
		e->col = col;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
count:
	d->n++;
}

void fp_diags__free(struct fp_diags *d)
{
	if (!d)
		return;
	free(d->v);
	memset(d, 0, sizeof(*d));
}
