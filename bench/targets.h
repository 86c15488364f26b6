/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The programs the filter benchmarks run side by side (included by
 * filter_cost.c and flood_cost.c; static functions, like rulegen.h): a bare
 * XDP_DROP program, xdp-filter's own objects with one port rule, and the
 * fastpath pipeline with a generated rule set. Errors name tg_prog and exit.
 */
#ifndef FP_BENCH_TARGETS_H
#define FP_BENCH_TARGETS_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "filter/filter.h"
#include "rules/rule.h"
#include "rulegen.h"

#define XDPFILT_DIR "/usr/lib/x86_64-linux-gnu/bpf"
#define XDPFILT_FLAG_DST 2  /* xdp-filter common_kern_user.h: MAP_FLAG_DST */
#define XDPFILT_FLAG_UDP 8  /* MAP_FLAG_UDP */

static const char *tg_prog = "bench";

static void tg_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tg_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", tg_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static double median(double *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++)      /* insertion sort, tiny */
		for (unsigned j = i; j > 0 && v[j] < v[j - 1]; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v[n / 2];
}

static int bare_drop(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_DROP },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_XDP);
	int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "bench_drop", "GPL", insns, 2, &o);

	if (fd < 0) {
		tg_err("loading a bare XDP_DROP program: %s (run as root)\n",
			strerror(errno));
		exit(1);
	}
	return fd;
}

/* xdp-filter's object for a feature set ("all", "udp"), in its default
 * allow mode (match = drop), with `xdp-filter port 11211 -m dst -p udp`. */
static int xdpfilt(const char *feat, struct bpf_object **objp)
{
	char path[256];
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *m;
	int ncpu = libbpf_num_possible_cpus(), fd;
	__u32 key = htons(RG_FLOOD_PORT);  /* the program looks the port up as in the header */
	__u64 *vals;

	snprintf(path, sizeof(path), "%s/xdpfilt_alw_%s.o", XDPFILT_DIR, feat);
	obj = bpf_object__open_file(path, NULL);
	if (!obj) {
		tg_err("%s: %s (install xdp-tools)\n", path, strerror(errno));
		return -1;
	}
	bpf_object__for_each_map(m, obj)
		bpf_map__set_pin_path(m, NULL);   /* never touch xdp-filter's own pins */
	if (bpf_object__load(obj)) {
		tg_err("loading %s: %s\n", path, strerror(errno));
		bpf_object__close(obj);
		return -1;
	}
	prog = bpf_object__next_program(obj, NULL);
	m = bpf_object__find_map_by_name(obj, "filter_ports");
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!prog || !m || !vals) {
		tg_err("%s: no program or no filter_ports map\n", path);
		exit(1);
	}
	for (int c = 0; c < ncpu; c++)
		vals[c] = XDPFILT_FLAG_DST | XDPFILT_FLAG_UDP;
	if (bpf_map_update_elem(bpf_map__fd(m), &key, vals, 0)) {
		tg_err("%s: setting the port rule: %s\n", path, strerror(errno));
		exit(1);
	}
	free(vals);
	fd = bpf_program__fd(prog);
	*objp = obj;
	return fd;
}

static int fastpath_with(size_t n, struct fp_filter **fp)
{
	struct rg_buf text, nft;
	struct fp_ruleset set = { 0 };
	struct fp_diags d = { 0 };
	char err[256] = "";
	int ret;

	rg_ruleset(n, &text, &nft);
	ret = fp_ruleset__parse(text.p, text.len, &set, &d);
	if (ret) {
		tg_err("generated set of %zu rules does not parse (%d): "
			"%u:%u: %s\n", n, ret, d.n ? d.v[0].line : 0, d.n ? d.v[0].col : 0,
			d.n ? d.v[0].msg : "");
		exit(1);
	}
	ret = fp_filter__open_test(fp, err, sizeof(err));
	if (!ret)
		ret = fp_filter__apply(*fp, &set, err, sizeof(err));
	if (ret) {
		tg_err("%zu rules: %s\n", n, err);
		exit(1);
	}
	fp_ruleset__free(&set);
	fp_diags__free(&d);
	free(text.p);
	free(nft.p);
	return fp_filter__entry_fd(*fp);
}

#endif
