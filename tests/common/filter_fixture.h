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

#endif
