// SPDX-License-Identifier: BSD-2-Clause
/* See cli_num.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_num.h"

int cli_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli_opt_count(const struct cli *cli, const char *arg, uint64_t *n)
{
	if (cli_parse_u64(arg, UINT64_MAX, n) || !*n)
		return cli_usage(cli, "--count takes a number from 1, not '%s'", arg);
	return CLI_OK;
}

int cli_opt_duration(const struct cli *cli, const char *arg, uint64_t *secs)
{
	if (cli_parse_u64(arg, 365 * 86400, secs) || !*secs)
		return cli_usage(cli, "--duration takes seconds from 1, not '%s'", arg);
	return CLI_OK;
}

int cli_opt_queue(const struct cli *cli, const char *arg, int all_value, int *queue)
{
	uint64_t v;

	if (!strcmp(arg, "all"))
		*queue = all_value;
	else if (cli_parse_u64(arg, INT32_MAX, &v))
		return cli_usage(cli, "--queue takes a queue number or all, not '%s'", arg);
	else
		*queue = (int)v;
	return CLI_OK;
}

double cli_now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

double cli_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

uint64_t cli_ms_between(const struct timespec *a, const struct timespec *b)
{
	return (uint64_t)((b->tv_sec - a->tv_sec) * 1000 + (b->tv_nsec - a->tv_nsec) / 1000000);
}
