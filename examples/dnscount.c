// SPDX-License-Identifier: BSD-2-Clause
/*
 * dnscount: an inline inspector on libfastpath's steered AF_XDP sessions
 * (include/fastpath/xsk.h). The DNS queries on an interface (by default
 * 'udp dport 53'; any terms of the rule language) are taken from the
 * stack into user space and their query names counted; at the end the
 * names are printed most counted first. Everything else stays on the
 * stack. Note that the queries it takes do not reach a local resolver.
 *
 *   make examples
 *   build/examples/dnscount eth0 [--match TERMS] [--queue N|all]
 *                           [--count N] [--duration S] [--top N]
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fastpath/xsk.h>

#define SLOTS 65536 /* distinct names kept (more are counted as "other") */

struct name {
	char text[256];
	unsigned long long n;
};

static struct name *table;
static unsigned long long queries, other, not_dns;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void count(const char *text)
{
	for (unsigned i = 0, h = hash(text); i < 64; i++) {
		struct name *e = &table[(h + i) % SLOTS];

		if (!e->n)
			snprintf(e->text, sizeof(e->text), "%s", text);
		if (!strcmp(e->text, text)) {
			e->n++;
			return;
		}
	}
	other++;
}

/* The first question's name of a DNS query in an Ethernet frame, dotted
 * and lowercased into out; 0, or -1 if the frame is no DNS query. */
static int query_name(const unsigned char *p, unsigned len, char *out, size_t cap)
{
	unsigned off = 12, l4, o = 0;
	unsigned short type = p[12] << 8 | p[13];

	if (len < 14)
		return -1;
	while ((type == 0x8100 || type == 0x88a8) && len >= off + 6) {
		type = p[off + 2] << 8 | p[off + 3];
		off += 4;
	}
	off += 2;
	if (type == 0x0800 && len >= off + 20 && p[off + 9] == 17)
		l4 = off + (p[off] & 15) * 4;
	else if (type == 0x86dd && len >= off + 40 && p[off + 6] == 17)
		l4 = off + 40;
	else
		return -1;
	off = l4 + 8 + 12; /* UDP header, DNS header */
	if (len < off || (p[l4 + 8 + 2] & 0x80) || !(p[l4 + 8 + 4] << 8 | p[l4 + 8 + 5]))
		return -1; /* a response, or no question */
	while (off < len && p[off]) {
		unsigned l = p[off++];

		if (l > 63 || off + l > len || o + l + 2 > cap)
			return -1;
		if (o)
			out[o++] = '.';
		for (unsigned i = 0; i < l; i++)
			out[o++] = tolower(p[off + i]) ? tolower(p[off + i]) : '?';
		off += l;
	}
	if (off >= len)
		return -1;
	if (!o)
		out[o++] = '.';
	out[o] = 0;
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const struct name *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(x->text, y->text);
}

int main(int argc, char **argv)
{
	struct fp_xsk_opts o = { .match = "udp dport 53", .queue = 0 };
	unsigned long long limit = 0, top = 20;
	double duration = 0;
	struct fp_xsk_pkt pkts[64];
	struct fp_xsk_stats s;
	struct timespec t0, t;
	struct fp_xsk *x;
	char err[512], name[256];
	int n;

	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: %s IFACE [--match TERMS] [--queue N|all] [--count N] "
			"[--duration S] [--top N]\n", argv[0]);
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v) {
			fprintf(stderr, "dnscount: %s needs a value\n", argv[i]);
			return 2;
		}
		if (!strcmp(argv[i], "--match"))
			o.match = v;
		else if (!strcmp(argv[i], "--queue"))
			o.queue = strcmp(v, "all") ? atoi(v) : FP_XSK_ALL_QUEUES;
		else if (!strcmp(argv[i], "--count"))
			limit = strtoull(v, NULL, 10);
		else if (!strcmp(argv[i], "--duration"))
			duration = atof(v);
		else if (!strcmp(argv[i], "--top"))
			top = strtoull(v, NULL, 10);
		else {
			fprintf(stderr, "dnscount: unknown option %s\n", argv[i]);
			return 2;
		}
		i++;
	}
	table = calloc(SLOTS, sizeof(*table));
	if (!table)
		return 1;
	if ((n = fp_xsk__open(argv[1], &o, &x, err, sizeof(err)))) {
		fprintf(stderr, "dnscount: %s\n", err);
		return n == -EINVAL || n == -ERANGE ? 2 : 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "counting DNS query names on %s (%s)\n", argv[1],
		fp_xsk__zerocopy(x) ? "zero-copy" : "copy mode");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop && !(limit && queries >= limit)) {
		n = fp_xsk__rx_batch(x, 100, pkts, 64);
		for (int i = 0; i < n && !(limit && queries >= limit); i++) {
			if (query_name(pkts[i].data, pkts[i].len, name, sizeof(name))) {
				not_dns++;
				continue;
			}
			queries++;
			count(name);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (duration > 0 && (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 >= duration)
			break;
	}
	fp_xsk__rx_release(x);
	fp_xsk__stats(x, &s);
	fp_xsk__close(x);
	qsort(table, SLOTS, sizeof(*table), by_count);
	for (unsigned i = 0; i < SLOTS && i < top && table[i].n; i++)
		printf("%8llu %s\n", table[i].n, table[i].text);
	fprintf(stderr, "%llu queries, %llu not DNS queries, %llu names not kept, %llu lost\n",
		queries, not_dns, other,
		(unsigned long long)(s.steered > s.received ? s.steered - s.received : 0));
	free(table);
	return 0;
}
