// SPDX-License-Identifier: BSD-2-Clause
/*
 * The pcapng writer (src/dump/pcapng.c): the bytes of each block (layout,
 * lengths, padding, option encoding), its errors, and round trips through
 * two independent readers: libpcap (data bytes, lengths, nanosecond
 * timestamps) and tshark (comments, XDP verdicts, interface names), from
 * files and from a pipe (`tshark -r -`), including a packet tshark shows
 * while the writer still holds the pipe open. The tshark cases skip when
 * tshark is not installed.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "dump/pcapng.h"

static char *buf;
static size_t buflen;
static FILE *mem;

static int teardown(void **state)
{
	(void)state;
	if (mem)
		fclose(mem);
	mem = NULL;
	free(buf);
	buf = NULL;
	return 0;
}

static uint32_t rd32(size_t off)
{
	uint32_t v;

	assert_true(off + 4 <= buflen);
	memcpy(&v, buf + off, 4);
	return v;
}

static uint16_t rd16(size_t off)
{
	uint16_t v;

	assert_true(off + 2 <= buflen);
	memcpy(&v, buf + off, 2);
	return v;
}

/* Checks the frame of the block at off (type, both lengths equal, a
 * multiple of 4) and returns its length. */
static uint32_t check_block(size_t off, uint32_t type)
{
	uint32_t len = rd32(off + 4);

	assert_int_equal(rd32(off), type);
	assert_int_equal(len % 4, 0);
	assert_true(off + len <= buflen);
	assert_int_equal(rd32(off + len - 4), len);
	return len;
}

/* Checks one option at off: code, length, value, zero padding; returns the
 * offset of the next option. */
static size_t check_opt(size_t off, uint16_t code, const void *val, size_t n)
{
	size_t padded = (n + 3) & ~(size_t)3;

	assert_int_equal(rd16(off), code);
	assert_int_equal(rd16(off + 2), n);
	if (n)
		assert_memory_equal(buf + off + 4, val, n);
	for (size_t i = n; i < padded; i++)
		assert_int_equal(buf[off + 4 + i], 0);
	return off + 4 + padded;
}

static struct fp_pcapng *open_mem(void)
{
	struct fp_pcapng_opts o = { .userappl = "test", .os = "TestOS 1", .hardware = "hw" };
	struct fp_pcapng *p = NULL;

	mem = open_memstream(&buf, &buflen);
	assert_non_null(mem);
	assert_int_equal(fp_pcapng__open(mem, &o, &p), 0);
	return p;
}

static void test_section_header(void **state)
{
	struct fp_pcapng *p = open_mem();
	int64_t section_len;
	uint32_t len;
	size_t off;

	(void)state;
	assert_int_equal(fp_pcapng__close(p), 0);
	len = check_block(0, FP_PCAPNG_SHB);
	assert_int_equal(len, buflen);
	assert_int_equal(rd32(8), FP_PCAPNG_MAGIC);
	assert_int_equal(rd16(12), 1);  /* major */
	assert_int_equal(rd16(14), 0);  /* minor */
	memcpy(&section_len, buf + 16, 8);
	assert_true(section_len == -1);
	off = check_opt(24, FP_PCAPNG_SHB_HARDWARE, "hw", 2);
	off = check_opt(off, FP_PCAPNG_SHB_OS, "TestOS 1", 8);
	off = check_opt(off, FP_PCAPNG_SHB_USERAPPL, "test", 4);
	off = check_opt(off, FP_PCAPNG_OPT_END, NULL, 0);
	assert_int_equal(off + 4, len);
}

static void test_interface_block(void **state)
{
	struct fp_pcapng *p = open_mem();
	uint8_t nine = 9;
	uint32_t shb, len;
	size_t off;

	(void)state;
	assert_int_equal(fp_pcapng__add_interface(p, "veth0", FP_PCAPNG_LINKTYPE_ETHERNET, 256), 0);
	assert_int_equal(fp_pcapng__add_interface(p, "a-much-longer-name", 228, 0), 1);
	assert_int_equal(fp_pcapng__close(p), 0);
	shb = rd32(4);
	len = check_block(shb, FP_PCAPNG_IDB);
	assert_int_equal(rd16(shb + 8), FP_PCAPNG_LINKTYPE_ETHERNET);
	assert_int_equal(rd16(shb + 10), 0);
	assert_int_equal(rd32(shb + 12), 256);
	off = check_opt(shb + 16, FP_PCAPNG_IF_NAME, "veth0", 5);
	off = check_opt(off, FP_PCAPNG_IF_TSRESOL, &nine, 1);
	off = check_opt(off, FP_PCAPNG_OPT_END, NULL, 0);
	assert_int_equal(off + 4, shb + len);
	assert_int_equal(len, 16 + 12 + 8 + 4 + 4);

	off = shb + len;
	len = check_block(off, FP_PCAPNG_IDB);
	assert_int_equal(rd16(off + 8), 228);
	assert_int_equal(rd32(off + 12), 0);
	check_opt(off + 16, FP_PCAPNG_IF_NAME, "a-much-longer-name", 18);
	assert_int_equal(off + len, buflen);
}

/* Every caplen 0..9 pads the data to 32 bits; no options, no end marker. */
static void test_packet_padding(void **state)
{
	struct fp_pcapng *p = open_mem();
	uint8_t data[16];
	size_t off;

	(void)state;
	for (int i = 0; i < 16; i++)
		data[i] = 0xa0 + i;
	assert_int_equal(fp_pcapng__add_interface(p, "x", 1, 0), 0);
	for (uint32_t n = 0; n < 10; n++)
		assert_int_equal(fp_pcapng__write_packet(p, 0, 0x0000000123456789ull + n, data, n,
							 1000 + n, FP_PCAPNG_NO_VERDICT, NULL), 0);
	assert_int_equal(fp_pcapng__packets(p), 10);
	assert_int_equal(fp_pcapng__close(p), 0);
	off = rd32(4);
	off += rd32(off + 4);
	for (uint32_t n = 0; n < 10; n++) {
		uint32_t len = check_block(off, FP_PCAPNG_EPB);

		assert_int_equal(len, 32 + ((n + 3) & ~3u));
		assert_int_equal(rd32(off + 8), 0);            /* interface */
		assert_int_equal(rd32(off + 12), 0x1);         /* ts high */
		assert_int_equal(rd32(off + 16), 0x23456789 + n);
		assert_int_equal(rd32(off + 20), n);           /* captured */
		assert_int_equal(rd32(off + 24), 1000 + n);    /* original */
		if (n)
			assert_memory_equal(buf + off + 28, data, n);
		for (uint32_t i = n; i < ((n + 3) & ~3u); i++)
			assert_int_equal(buf[off + 28 + i], 0);
		off += len;
	}
	assert_int_equal(off, buflen);
}

/* Comment and verdict options: codes, lengths, padding, the verdict's type
 * byte and signed 64-bit value, the end marker. */
static void test_packet_options(void **state)
{
	static const int64_t verdicts[] = { 0, 1, 2, 3, 4, -2, INT64_MAX };
	struct fp_pcapng *p = open_mem();
	uint8_t data[5] = { 1, 2, 3, 4, 5 };
	char comment[64];
	size_t off;

	(void)state;
	assert_int_equal(fp_pcapng__add_interface(p, "x", 1, 64), 0);
	for (size_t i = 0; i < sizeof(verdicts) / sizeof(verdicts[0]); i++) {
		snprintf(comment, sizeof(comment), "verdict=%s rule=r%zu%.*s",
			 fp_pcapng_xdp_name(verdicts[i]), i, (int)i, "xxxxxxx");
		assert_int_equal(fp_pcapng__write_packet(p, 0, i, data, 5, 60, verdicts[i], comment), 0);
	}
	assert_int_equal(fp_pcapng__write_packet(p, 0, 9, data, 5, 60, 1, ""), 0);
	assert_int_equal(fp_pcapng__close(p), 0);
	off = rd32(4);
	off += rd32(off + 4);
	for (size_t i = 0; i < sizeof(verdicts) / sizeof(verdicts[0]) + 1; i++) {
		uint32_t len = check_block(off, FP_PCAPNG_EPB);
		int64_t verdict = i < 7 ? verdicts[i] : 1;
		uint8_t v[9];
		size_t o = off + 28 + 8;

		v[0] = FP_PCAPNG_VERDICT_EBPF_XDP;
		memcpy(v + 1, &verdict, 8);
		if (i < 7) {
			snprintf(comment, sizeof(comment), "verdict=%s rule=r%zu%.*s",
				 fp_pcapng_xdp_name(verdicts[i]), i, (int)i, "xxxxxxx");
			o = check_opt(o, FP_PCAPNG_OPT_COMMENT, comment, strlen(comment));
		}
		o = check_opt(o, FP_PCAPNG_EPB_VERDICT, v, 9);
		o = check_opt(o, FP_PCAPNG_OPT_END, NULL, 0);
		assert_int_equal(o + 4, off + len);
		off += len;
	}
	assert_int_equal(off, buflen);
	assert_string_equal(fp_pcapng_xdp_name(1), "drop");
	assert_string_equal(fp_pcapng_xdp_name(4), "redirect");
	assert_string_equal(fp_pcapng_xdp_name(5), "unknown");
}

static void test_errors(void **state)
{
	struct fp_pcapng *p = open_mem(), *q = NULL;
	uint8_t data[300] = { 0 };
	char *big;
	FILE *full;

	(void)state;
	assert_int_equal(fp_pcapng__open(NULL, NULL, &q), -EINVAL);
	assert_int_equal(fp_pcapng__add_interface(p, NULL, 1, 0), -EINVAL);
	assert_int_equal(fp_pcapng__write_packet(p, 0, 0, data, 1, 1, -1, NULL), -EINVAL);
	assert_int_equal(fp_pcapng__add_interface(p, "x", 1, 256), 0);
	assert_int_equal(fp_pcapng__write_packet(p, 1, 0, data, 1, 1, -1, NULL), -EINVAL);
	assert_int_equal(fp_pcapng__write_packet(p, 0, 0, data, 2, 1, -1, NULL), -EINVAL);
	assert_int_equal(fp_pcapng__write_packet(p, 0, 0, data, 257, 300, -1, NULL), -EINVAL);
	assert_int_equal(fp_pcapng__write_packet(p, 0, 0, NULL, 1, 1, -1, NULL), -EINVAL);
	big = malloc(FP_PCAPNG_MAX_OPT + 2);
	assert_non_null(big);
	memset(big, 'c', FP_PCAPNG_MAX_OPT + 1);
	big[FP_PCAPNG_MAX_OPT + 1] = 0;
	assert_int_equal(fp_pcapng__write_packet(p, 0, 0, data, 1, 1, -1, big), -E2BIG);
	big[FP_PCAPNG_MAX_OPT] = 0; /* the longest comment fits */
	assert_int_equal(fp_pcapng__write_packet(p, 0, 0, data, 1, 1, -1, big), 0);
	free(big);
	for (int i = 1; i < FP_PCAPNG_MAX_IFACES; i++)
		assert_int_equal(fp_pcapng__add_interface(p, "y", 1, 0), i);
	assert_int_equal(fp_pcapng__add_interface(p, "z", 1, 0), -E2BIG);
	assert_int_equal(fp_pcapng__packets(p), 1);
	assert_int_equal(fp_pcapng__close(p), 0);
	assert_int_equal(fp_pcapng__close(NULL), 0);

	/* a full disk: the flush (or the unbuffered write) fails with ENOSPC */
	full = fopen("/dev/full", "w");
	if (!full)
		return;
	assert_int_equal(fp_pcapng__open(full, &(struct fp_pcapng_opts){ .flush = true }, &q),
			 -ENOSPC);
	fclose(full);
	full = fopen("/dev/full", "w");
	assert_non_null(full);
	setvbuf(full, NULL, _IONBF, 0);
	assert_int_equal(fp_pcapng__open(full, NULL, &q), -ENOSPC);
	fclose(full);
}

/* ---- round trips through libpcap and tshark -------------------------------- */

#define N_PKTS 600
#define SNAP   256

struct pkt {
	uint32_t ifidx, caplen, origlen;
	uint64_t ts;
	int64_t verdict;
	char comment[200];
	uint8_t data[SNAP];
};

static struct pkt pkts[N_PKTS];
static const char *const ifnames[] = { "veth-in", "eth0.100" };

static uint32_t rnd(void)
{
	static uint64_t s = 0x9e3779b97f4a7c15ull;

	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return (uint32_t)(s >> 11);
}

/* Lengths 14..9000 (captured up to SNAP), verdicts 0..4 or none, comments
 * of many lengths (some none, some with spaces and non-ASCII text). */
static void make_packets(void)
{
	for (int i = 0; i < N_PKTS; i++) {
		struct pkt *k = &pkts[i];
		int kind = i % 7;

		k->ifidx = i % 2;
		k->origlen = i < 40 ? 14 + (uint32_t)i * 7 : 14 + rnd() % 8987;
		k->caplen = k->origlen < SNAP ? k->origlen : SNAP;
		if (i % 11 == 0)
			k->caplen = k->caplen / 2 + 1; /* shorter than snaplen too */
		k->ts = 1700000000123456789ull + (uint64_t)i * 1000003ull;
		k->verdict = kind == 6 ? FP_PCAPNG_NO_VERDICT : (int64_t)(i % 5);
		for (uint32_t b = 0; b < k->caplen; b++)
			k->data[b] = (uint8_t)rnd();
		if (kind == 5)
			k->comment[0] = 0;
		else if (kind == 4)
			snprintf(k->comment, sizeof(k->comment), "verdict=%s rule=rule-%d note: caf\xc3\xa9 %.*s",
				 fp_pcapng_xdp_name(k->verdict), i, i % 90,
				 "pad pad pad pad pad pad pad pad pad pad pad pad pad pad pad pad pad pad pad pad pad pad");
		else
			snprintf(k->comment, sizeof(k->comment), "verdict=%s rule=%d",
				 k->verdict < 0 ? "none" : fp_pcapng_xdp_name(k->verdict), i);
	}
}

static void write_packets(FILE *f, bool flush)
{
	struct fp_pcapng_opts o = { .flush = flush };
	struct fp_pcapng *p;

	assert_int_equal(fp_pcapng__open(f, &o, &p), 0);
	assert_int_equal(fp_pcapng__add_interface(p, ifnames[0], FP_PCAPNG_LINKTYPE_ETHERNET, SNAP), 0);
	assert_int_equal(fp_pcapng__add_interface(p, ifnames[1], FP_PCAPNG_LINKTYPE_ETHERNET, SNAP), 1);
	for (int i = 0; i < N_PKTS; i++) {
		const struct pkt *k = &pkts[i];

		assert_int_equal(fp_pcapng__write_packet(p, k->ifidx, k->ts, k->data, k->caplen,
							 k->origlen, k->verdict, k->comment), 0);
	}
	assert_int_equal(fp_pcapng__close(p), 0);
}

static char tmpdir[] = "/tmp/fp-pcapng.XXXXXX";

static int setup_files(void **state)
{
	(void)state;
	make_packets();
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_files(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static bool have(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

static void test_libpcap_reads_back(void **state)
{
	char path[256], errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *pc;
	FILE *f;
	int i = 0, rc;

	(void)state;
	snprintf(path, sizeof(path), "%s/libpcap.pcapng", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	write_packets(f, false);
	assert_int_equal(fclose(f), 0);
	pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!pc)
		fail_msg("libpcap cannot read %s: %s", path, errbuf);
	assert_int_equal(pcap_datalink(pc), DLT_EN10MB);
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		const struct pkt *k = &pkts[i];

		assert_true(i < N_PKTS);
		assert_int_equal(h->caplen, k->caplen);
		assert_int_equal(h->len, k->origlen);
		assert_int_equal((uint64_t)h->ts.tv_sec, k->ts / 1000000000ull);
		assert_int_equal((uint64_t)h->ts.tv_usec, k->ts % 1000000000ull); /* ns here */
		assert_memory_equal(data, k->data, k->caplen);
		i++;
	}
	assert_int_equal(rc, PCAP_ERROR_BREAK);
	assert_int_equal(i, N_PKTS);
	pcap_close(pc);
}

/* Compares tshark's field lines with what was written. */
static void check_tshark_fields(const char *out_path)
{
	char line[1024], want[1024], verdict[32];
	FILE *f = fopen(out_path, "r");
	int i = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		const struct pkt *k = &pkts[i];

		assert_true(i < N_PKTS);
		line[strcspn(line, "\n")] = 0;
		if (k->verdict < 0)
			verdict[0] = 0;
		else
			snprintf(verdict, sizeof(verdict), "%lld", (long long)k->verdict);
		snprintf(want, sizeof(want), "%u\t%u\t%s\t%s\t%s\t%u\t%llu.%09llu", k->origlen,
			 k->caplen, k->comment, verdict, ifnames[k->ifidx], k->ifidx,
			 (unsigned long long)(k->ts / 1000000000ull),
			 (unsigned long long)(k->ts % 1000000000ull));
		if (strcmp(line, want))
			fail_msg("packet %d: tshark says\n  '%s'\nwritten was\n  '%s'", i + 1, line, want);
		i++;
	}
	fclose(f);
	assert_int_equal(i, N_PKTS);
}

#define TSHARK_FIELDS "tshark -n -T fields -E separator=/t -e frame.len -e frame.cap_len " \
	"-e frame.comment -e frame.verdict.ebpf_xdp -e frame.interface_name " \
	"-e frame.interface_id -e frame.time_epoch"

static void test_tshark_reads_file(void **state)
{
	char path[256], out[256], cmd[1024], line[256];
	FILE *f;
	long n = -1, with_verdict = 0;

	(void)state;
	if (!have("tshark"))
		skip();
	snprintf(path, sizeof(path), "%s/tshark.pcapng", tmpdir);
	snprintf(out, sizeof(out), "%s/tshark.txt", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	write_packets(f, false);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), TSHARK_FIELDS " -r '%s' >'%s' 2>/dev/null", path, out);
	assert_int_equal(system(cmd), 0);
	check_tshark_fields(out);

	/* tshark 4.0 shows frame.verdict as a tree ("Verdict: , eBPF_XDP (2)")
	 * over frame.verdict.ebpf_xdp: every packet with a verdict has one */
	snprintf(cmd, sizeof(cmd), "tshark -n -Y frame.verdict -T fields -e frame.number -r '%s' "
		 "2>/dev/null | wc -l", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld", &n), 1);
	pclose(f);
	for (int i = 0; i < N_PKTS; i++)
		with_verdict += pkts[i].verdict >= 0;
	assert_int_equal(n, with_verdict);
	snprintf(cmd, sizeof(cmd), "tshark -n -V -Y frame.number==2 -r '%s' 2>/dev/null | "
		 "grep -c -e 'Verdict: .*eBPF_XDP (2)' -e 'eBPF XDP: XDP_DROP (1)'", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld", &n), 1);
	pclose(f);
	assert_int_equal(pkts[1].verdict, 1);
	assert_int_equal(n, 2);

	if (!have("capinfos"))
		return;
	snprintf(cmd, sizeof(cmd), "capinfos -M -c -T -r '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	pclose(f);
	assert_int_equal(sscanf(strchr(line, '\t') + 1, "%ld", &n), 1);
	assert_int_equal(n, N_PKTS);
}

/* Whole blocks from the start of the file at path, as far as they go:
 * how many bytes they cover (the rest is a cut block). */
static size_t whole_blocks(const char *path, size_t *size)
{
	static uint8_t b[1 << 20]; /* N_PKTS blocks of at most ~SNAP + 200 bytes */
	FILE *f = fopen(path, "rb");
	size_t n, off = 0;
	uint32_t len;

	assert_non_null(f);
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	assert_true(n < sizeof(b));
	while (off + 8 <= n) {
		memcpy(&len, b + off + 4, 4);
		if (len < 12 || off + len > n)
			break;
		off += len;
	}
	*size = n;
	return off;
}

/* `dump -w FILE` sets a FILE buffer and flush_at to its size: whatever a
 * kill -9 leaves on disk is whole blocks, and data reaches the disk while
 * the writer runs, not only when it closes. */
static void test_flush_at_whole_blocks(void **state)
{
	char path[256];
	struct fp_pcapng *p;
	size_t size, whole, flushes = 0, last = 0;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/flush_at.pcapng", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(setvbuf(f, NULL, _IOFBF, 4096), 0);
	assert_int_equal(fp_pcapng__open(f, &(struct fp_pcapng_opts){ .flush_at = 4096 }, &p), 0);
	assert_int_equal(fp_pcapng__add_interface(p, ifnames[0], FP_PCAPNG_LINKTYPE_ETHERNET, SNAP), 0);
	for (int i = 0; i < N_PKTS; i++) {
		const struct pkt *k = &pkts[i];

		assert_int_equal(fp_pcapng__write_packet(p, 0, k->ts, k->data, k->caplen,
							 k->origlen, k->verdict, k->comment), 0);
		whole = whole_blocks(path, &size);
		assert_int_equal(whole, size); /* on disk: whole blocks only */
		flushes += size != last;
		last = size;
	}
	assert_true(flushes >= 2); /* written along the way, in several writes */
	assert_int_equal(fp_pcapng__close(p), 0);
	fclose(f);
	whole = whole_blocks(path, &size);
	assert_int_equal(whole, size);
}

/* `... -w - | tshark -r -`: the whole stream, flushed per block. */
static void test_tshark_reads_pipe(void **state)
{
	char out[256], cmd[1024];
	FILE *f;

	(void)state;
	if (!have("tshark"))
		skip();
	snprintf(out, sizeof(out), "%s/pipe.txt", tmpdir);
	snprintf(cmd, sizeof(cmd), TSHARK_FIELDS " -r - >'%s' 2>/dev/null", out);
	f = popen(cmd, "w");
	assert_non_null(f);
	write_packets(f, true);
	assert_int_equal(pclose(f), 0);
	check_tshark_fields(out);
}

/* With flush on, tshark shows the first packet while the writer is still
 * running (the pipe open): nothing waits in a buffer. */
static void test_tshark_streams(void **state)
{
	int to_tshark[2], from_tshark[2], status;
	struct fp_pcapng *p;
	struct pollfd pfd;
	char line[256] = "";
	ssize_t n;
	pid_t pid;
	FILE *w;

	(void)state;
	if (!have("tshark"))
		skip();
	assert_int_equal(pipe(to_tshark), 0);
	assert_int_equal(pipe(from_tshark), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(to_tshark[0], 0);
		dup2(from_tshark[1], 1);
		close(to_tshark[1]);
		close(from_tshark[0]);
		freopen("/dev/null", "w", stderr);
		execlp("tshark", "tshark", "-l", "-n", "-r", "-", "-T", "fields",
		       "-e", "frame.comment", (char *)NULL);
		_exit(127);
	}
	close(to_tshark[0]);
	close(from_tshark[1]);
	w = fdopen(to_tshark[1], "w");
	assert_non_null(w);
	assert_int_equal(fp_pcapng__open(w, &(struct fp_pcapng_opts){ .flush = true }, &p), 0);
	assert_int_equal(fp_pcapng__add_interface(p, "eth0", 1, SNAP), 0);
	assert_int_equal(fp_pcapng__write_packet(p, 0, pkts[0].ts, pkts[0].data, pkts[0].caplen,
						 pkts[0].origlen, 1, "verdict=drop rule=first"), 0);
	pfd = (struct pollfd){ .fd = from_tshark[0], .events = POLLIN };
	if (poll(&pfd, 1, 20000) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		fail_msg("tshark showed nothing within 20 s of a flushed packet");
	}
	n = read(from_tshark[0], line, sizeof(line) - 1);
	assert_true(n > 0);
	line[n] = 0;
	assert_string_equal(line, "verdict=drop rule=first\n");
	assert_int_equal(fp_pcapng__close(p), 0);
	fclose(w);
	close(from_tshark[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
	const struct CMUnitTest layout[] = {
		cmocka_unit_test_teardown(test_section_header, teardown),
		cmocka_unit_test_teardown(test_interface_block, teardown),
		cmocka_unit_test_teardown(test_packet_padding, teardown),
		cmocka_unit_test_teardown(test_packet_options, teardown),
		cmocka_unit_test_teardown(test_errors, teardown),
	};
	const struct CMUnitTest readers[] = {
		cmocka_unit_test(test_libpcap_reads_back),
		cmocka_unit_test(test_tshark_reads_file),
		cmocka_unit_test(test_tshark_reads_pipe),
		cmocka_unit_test(test_flush_at_whole_blocks),
		cmocka_unit_test(test_tshark_streams),
	};
	int rc;

	signal(SIGPIPE, SIG_IGN);
	rc = cmocka_run_group_tests_name("pcapng layout", layout, NULL, NULL);
	rc |= cmocka_run_group_tests_name("pcapng readers", readers, setup_files, teardown_files);
	return rc;
}
