// SPDX-License-Identifier: BSD-2-Clause
#include "util/verbose.h"

#include <stdio.h>
#include <stdlib.h>

static int verbosity;

void fp_verbose__set(int level)
{
	verbosity = level;
}

int fp_verbose__level(void)
{
	return verbosity;
}

int fp_verbose__libbpf_print(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	int need = l == LIBBPF_WARN ? 1 : 2;

	if (verbosity < need && !(l == LIBBPF_WARN && getenv("FASTPATH_DEBUG")))
		return 0;
	return vfprintf(stderr, fmt, ap); /* libbpf's lines start with "libbpf: " */
}
