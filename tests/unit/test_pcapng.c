// SPDX-License-Identifier: BSD-2-Clause
/*
 * The pcapng writer (src/dump/pcapng.c): the bytes of each block (layout,
 * lengths, padding, option encoding) and its errors. Round trips through
 * libpcap and tshark are in test_pcapng_readers.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest layout[] = {
		cmocka_unit_test_teardown(test_section_header, teardown),
		cmocka_unit_test_teardown(test_interface_block, teardown),
		cmocka_unit_test_teardown(test_packet_padding, teardown),
		cmocka_unit_test_teardown(test_packet_options, teardown),
		cmocka_unit_test_teardown(test_errors, teardown),
	};

	return cmocka_run_group_tests_name("pcapng layout", layout, NULL, NULL);
}
