/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One process-wide verbosity: the CLI's -v count (src/cli/main.c sets it).
 * The library layers never print on their own; what libbpf says while they
 * load programs goes through fp_verbose__libbpf_print, as xdp-tools does:
 * libbpf's warnings at -v (or FASTPATH_DEBUG=1, e.g. a verifier log), its
 * info and debug lines at -vv.
 */
#ifndef FP_UTIL_VERBOSE_H
#define FP_UTIL_VERBOSE_H

#include <stdarg.h>
#include <bpf/libbpf.h>

void fp_verbose__set(int level);
int fp_verbose__level(void);
int fp_verbose__libbpf_print(enum libbpf_print_level l, const char *fmt, va_list ap);

#endif
