/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Numbers and clocks the commands share: an option's unsigned number, the
 * monotonic clock in seconds, and the milliseconds between two readings.
 */
#ifndef FP_CLI_NUM_H
#define FP_CLI_NUM_H

#include <stdint.h>
#include <time.h>

/* s as a decimal number 0..max: digits only (no sign, space or base
 * prefix: strtoull would take "-1" as 2^64-1). 0, or -1 when it is not. */
int cli_parse_u64(const char *s, uint64_t max, uint64_t *out);

/* CLOCK_MONOTONIC in seconds. */
double cli_now_s(void);

/* Whole milliseconds from a to b (two CLOCK_MONOTONIC readings). */
uint64_t cli_ms_between(const struct timespec *a, const struct timespec *b);

#endif
