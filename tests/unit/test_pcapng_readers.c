// SPDX-License-Identifier: BSD-2-Clause
/*
 * The pcapng writer (src/dump/pcapng.c) read back by two independent
 * readers: libpcap (data bytes, lengths, nanosecond timestamps) and tshark
 * (comments, XDP verdicts, interface names), from files and from a pipe
 * (`tshark -r -`), including a packet tshark shows while the writer still
 * holds the pipe open, and a file cut anywhere holding whole blocks. The
 * tshark cases skip when tshark is not installed. The bytes of each block
 * are checked in test_pcapng.c.
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
	const struct CMUnitTest readers[] = {
		cmocka_unit_test(test_libpcap_reads_back),
		cmocka_unit_test(test_tshark_reads_file),
		cmocka_unit_test(test_tshark_reads_pipe),
		cmocka_unit_test(test_flush_at_whole_blocks),
		cmocka_unit_test(test_tshark_streams),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("pcapng readers", readers, setup_files, teardown_files);
}
