/* SPDX-License-Identifier: BSD-2-Clause */
/* Helpers of the bpfgen unit tests: run a generator from a list of words. */
#ifndef FP_TESTS_BPFGEN_UTIL_H
#define FP_TESTS_BPFGEN_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfgen/bpfgen.h"

#define BG_MAXARGS 64

/* Runs generator words[0] with words[1..] (NULL-terminated); 0 or -errno. */
static inline int bg_run(const struct fp_bpfgen_opts *o, struct fp_bpfgen_out *out,
			 struct fp_bpfgen_err *err, const char *const *words)
{
	char *argv[BG_MAXARGS];
	int argc = 0;

	while (words[argc] && argc < BG_MAXARGS - 1) {
		argv[argc] = (char *)words[argc];
		argc++;
	}
	argv[argc] = NULL;
	return fp_bpfgen__generate(o, argc, argv, out, err);
}

/* The bytecode line (without its newline) or the assembly, malloc'd; NULL on error. */
static inline char *bg_text(const struct fp_bpfgen_opts *o, bool assembly, const char *const *words)
{
	struct fp_bpfgen_out out;
	struct fp_bpfgen_err err;
	char *s = NULL;
	size_t n = 0;
	FILE *f;

	if (bg_run(o, &out, &err, words)) {
		fprintf(stderr, "generate failed: %s\n", err.msg);
		return NULL;
	}
	f = open_memstream(&s, &n);
	if (assembly)
		fp_casm__print(out.casm, f);
	else
		fp_cbpf__print(&out.prog, f);
	fclose(f);
	if (!assembly && n && s[n - 1] == '\n')
		s[n - 1] = 0;
	fp_bpfgen_out__free(&out);
	return s;
}

#define BG_WORDS(...) ((const char *const[]){ __VA_ARGS__, NULL })

#endif /* FP_TESTS_BPFGEN_UTIL_H */
