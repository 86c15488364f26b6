// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/rulefile.h"

char *cli_slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t cap = 4096, n = 0;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		n += got;
		if (n + 1 < cap)
			break;
		cap *= 2;
		char *nb = realloc(buf, cap);
		if (!nb) {
			free(buf);
			buf = NULL;
			errno = ENOMEM;
		}
		buf = nb;
	}
	if (buf && ferror(f)) {
		free(buf);
		buf = NULL;
		errno = EIO;
	}
	if (f != stdin)
		fclose(f);
	if (buf) {
		buf[n] = 0;
		*len = n;
	}
	return buf;
}

void cli_print_diags(const char *name, const struct fp_diags *d)
{
	size_t shown = d->v ? (d->n < d->cap ? d->n : d->cap) : 0;

	for (size_t i = 0; i < shown; i++)
		fprintf(stderr, "%s:%u:%u: %s\n", name, d->v[i].line, d->v[i].col, d->v[i].msg);
	if (d->n > shown)
		fprintf(stderr, "%s: %zu more error%s not shown\n", name, d->n - shown,
			d->n - shown > 1 ? "s" : "");
}

int cli_read_ruleset(const struct cli *cli, const char *path, struct fp_ruleset *set)
{
	struct fp_diags d = { 0 };
	size_t len;
	char *text = cli_slurp(path, &len);
	int ret;

	memset(set, 0, sizeof(*set));
	if (!text)
		return cli_fail(cli, "cannot read rule file %s: %s", path, strerror(errno));
	ret = fp_ruleset__parse(text, len, set, &d);
	free(text);
	if (ret == -EINVAL) {
		cli_print_diags(path, &d);
		/* load, apply and test use no file with an error */
		if (out_is_json())
			out_err("%s: %zu error%s; nothing was changed", path, d.n, d.n > 1 ? "s" : "");
		else
			fprintf(stderr, "fastpath: %s: %zu error%s; nothing was changed\n", path, d.n,
				d.n > 1 ? "s" : "");
		fp_diags__free(&d);
		return CLI_USAGE;
	}
	fp_diags__free(&d);
	if (ret)
		return cli_fail(cli, "parsing %s failed: %s", path, strerror(-ret));
	return CLI_OK;
}
