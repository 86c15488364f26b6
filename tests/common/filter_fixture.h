/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The BPF tests' shared group fixture: the real filter objects loaded for
 * BPF_PROG_TEST_RUN (fp_filter__open_test). Without root *f stays NULL and
 * the tests skip.
 */
#ifndef FP_TEST_FILTER_FIXTURE_H
#define FP_TEST_FILTER_FIXTURE_H

#include "filter/filter.h"

/* 0 when loaded or not root; -1 (the load error on stderr) otherwise. */
int filter_fixture_open(struct fp_filter **f);

/*
 * The cmocka group of a table-driven BPF test: one case per row of rows[]
 * (each row starts with `const char *name`), fn getting the row as its
 * state; FP_CASE=NAME runs that row alone. Returns what the group does.
 * Expands where <cmocka.h> and <stdlib.h>, <string.h> are included.
 */
#define FILTER_FIXTURE_RUN_ROWS(group, rows, fn, setup, teardown)                              \
	({                                                                                     \
		const char *only_ = getenv("FP_CASE");                                         \
		struct CMUnitTest t_[sizeof(rows) / sizeof((rows)[0])];                         \
		size_t n_ = 0;                                                                 \
		for (size_t i_ = 0; i_ < sizeof(rows) / sizeof((rows)[0]); i_++) {             \
			if (only_ && strcmp(only_, (rows)[i_].name))                             \
				continue;                                                      \
			t_[n_++] = (struct CMUnitTest){ .name = (rows)[i_].name,                  \
							.test_func = (fn),                       \
							.initial_state = (void *)&(rows)[i_] };  \
		}                                                                              \
		_cmocka_run_group_tests(group, t_, n_, setup, teardown);                       \
	})

#endif
