/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Numbers and clocks the commands share: an option's unsigned number, the
 * monotonic clock in seconds, and the milliseconds between two readings.
 */
#ifndef FP_CLI_NUM_H
#define FP_CLI_NUM_H

#include <stdint.h>
#include <time.h>

struct cli;

/* s as a decimal number 0..max: digits only (no sign, space or base
 * prefix: strtoull would take "-1" as 2^64-1). 0, or -1 when it is not. */
int cli_parse_u64(const char *s, uint64_t max, uint64_t *out);

/* The options every command that runs for a while takes, with the same
 * words in their errors: --count N (1..), --duration S (1 s..1 year) and
 * --queue N|all (all_value for all). CLI_OK, or the usage error (printed). */
int cli_opt_count(const struct cli *cli, const char *arg, uint64_t *n);
int cli_opt_duration(const struct cli *cli, const char *arg, uint64_t *secs);
int cli_opt_queue(const struct cli *cli, const char *arg, int all_value, int *queue);

/* CLOCK_MONOTONIC in seconds. */
double cli_now_s(void);

/* Milliseconds since t0 (CLOCK_MONOTONIC), for -v timings and the audit. */
double cli_ms_since(const struct timespec *t0);

/* Whole milliseconds from a to b (two CLOCK_MONOTONIC readings). */
uint64_t cli_ms_between(const struct timespec *a, const struct timespec *b);

#endif
