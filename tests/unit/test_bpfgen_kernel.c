// SPDX-License-Identifier: BSD-2-Clause
/*
 * Every generated program loads in the kernel: SO_ATTACH_FILTER on a UDP
 * socket runs the kernel's classic BPF checker on it. Also checked with
 * our fp_cbpf__check() and libpcap's bpf_validate(), which must agree.
 * A long program (over 255 instructions, with trampolines) is included.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <linux/filter.h>
#include <pcap/pcap.h>
#include <sys/socket.h>
#include <unistd.h>

#include "unit/bpfgen_util.h"

struct load_case {
	struct fp_bpfgen_opts o;
	const char *const *words;
};

static char long_pattern[400];

static const struct load_case cases[] = {
	{ { 0 }, BG_WORDS("dns", "example.com") },
	{ { 0 }, BG_WORDS("dns", "*.example.com") },
	{ { 0 }, BG_WORDS("dns", "-i", "*{4-255}.Example.com", "fin?.me", "example.**", "ex**") },
	{ { .inet6 = true, .negate = true }, BG_WORDS("dns", "a.b.c", "*.d") },
	{ { .l3_off = 14 }, BG_WORDS("dns", "**") },
	{ { 0 }, BG_WORDS("dns_validate") },
	{ { .inet6 = true }, BG_WORDS("dns_validate", "--strict") },
	{ { .negate = true }, BG_WORDS("suffix", "0102 03xx04 xxxx") },
	{ { 0 }, BG_WORDS("tcpdump", "udp and dst port 53 and udp[10] & 0x80 = 0") },
	{ { .inet6 = true }, BG_WORDS("tcpdump", "ip6 and tcp and ip6[53] & 2 != 0") },
	{ { .l3_off = 14, .negate = true }, BG_WORDS("tcpdump", "host 192.0.2.1") },
	{ { .l3_off = 16 }, BG_WORDS("tcpdump", "tcp") },
	{ { .l3_off = 18 }, BG_WORDS("tcpdump", "udp port 53") },
	{ { 0 }, BG_WORDS("p0f", "4:64:0:*:mss*10,6:mss,sok,ts,nop,ws:df,id+:0") },
	{ { .l3_off = 14 }, BG_WORDS("p0f", "4:128:0:*:65535,8:mss,nop,ws,nop,nop,ts,sok,eol+1:df,linux,ts2+:0") },
	{ { .inet6 = true }, BG_WORDS("p0f", "6:64-:*:1460:65535,0:mss,eol+3:flow:+") },
	{ { 0 }, BG_WORDS("dns", long_pattern, "b.com") },
};

static void test_kernel_load(void **state)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	size_t i, j;

	(void)state;
	if (fd < 0)
		skip();
	for (j = 0; j < 100; j++)
		strcat(long_pattern, "*.");
	strcat(long_pattern, "a");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fp_bpfgen_out out;
		struct fp_bpfgen_err err;
		struct sock_fprog prog;
		size_t bad;

		if (bg_run(&cases[i].o, &out, &err, cases[i].words))
			fail_msg("case %zu (%s): %s", i, cases[i].words[0], err.msg);
		if (fp_cbpf__check(&out.prog, &bad))
			fail_msg("case %zu (%s): our checker refuses instruction %zu", i,
				 cases[i].words[0], bad);
		if (!bpf_validate((const struct bpf_insn *)out.prog.insns, (int)out.prog.len))
			fail_msg("case %zu (%s): bpf_validate() refuses it", i, cases[i].words[0]);
		prog.len = (unsigned short)out.prog.len;
		prog.filter = (struct sock_filter *)out.prog.insns;
		if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)))
			fail_msg("case %zu (%s, %zu insns): SO_ATTACH_FILTER: %s", i,
				 cases[i].words[0], out.prog.len, strerror(errno));
		if (i == sizeof(cases) / sizeof(cases[0]) - 1)
			assert_true(out.prog.len > 255);
		fp_bpfgen_out__free(&out);
	}
	close(fd);
}

/* The kernel and our checker agree on refusals too. */
static void test_kernel_refuses(void **state)
{
	static const struct fp_cbpf_insn bad[][2] = {
		{ { BPF_ALU | BPF_DIV | BPF_K, 0, 0, 0 }, { BPF_RET | BPF_K, 0, 0, 0 } },
		{ { BPF_LD | BPF_MEM, 0, 0, 0 }, { BPF_RET | BPF_K, 0, 0, 0 } },
		{ { BPF_JMP | BPF_JA, 0, 0, 5 }, { BPF_RET | BPF_K, 0, 0, 0 } },
		{ { BPF_RET | BPF_K, 0, 0, 0 }, { BPF_LD | BPF_IMM, 0, 0, 0 } },
		{ { BPF_LD | BPF_W | BPF_ABS, 0, 0, 0xfffff000u + 1000 }, { BPF_RET | BPF_K, 0, 0, 0 } },
	};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	size_t i;

	(void)state;
	if (fd < 0)
		skip();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fp_cbpf p = { (struct fp_cbpf_insn *)bad[i], 2 };
		struct sock_fprog prog = { 2, (struct sock_filter *)bad[i] };

		assert_int_equal(fp_cbpf__check(&p, NULL), -EINVAL);
		assert_int_not_equal(setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)), 0);
	}
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_load),
		cmocka_unit_test(test_kernel_refuses),
	};

	return cmocka_run_group_tests_name("bpfgen_kernel", tests, NULL, NULL);
}
