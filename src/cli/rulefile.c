// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/rulefile.h"

/*
 * The one reader of rule files. A regular file over CLI_RULE_FILE_MAX is
 * refused by its size before a byte is read; a pipe is read up to the limit
 * and refused past it. A directory is EISDIR, not a read error.
 */
char *cli_slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t cap = 4096, n = 0;
	struct stat st;
	char *buf = NULL;
	int err = 0;

	if (!f)
		return NULL;
	if (fstat(fileno(f), &st))
		err = errno;
	else if (S_ISDIR(st.st_mode))
		err = EISDIR;
	else if (S_ISREG(st.st_mode) && st.st_size > CLI_RULE_FILE_MAX)
		err = EFBIG;
	else if (S_ISREG(st.st_mode))
		cap = (size_t)st.st_size + 2; /* one read, and one to see the end */
	while (!err) {
		char *nb = realloc(buf, cap);
		size_t got;

		if (!nb) {
			err = ENOMEM;
			break;
		}
		buf = nb;
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (n > CLI_RULE_FILE_MAX) {
			err = EFBIG;
		} else if (n + 1 < cap) {
			if (ferror(f))
				err = errno ? errno : EIO;
			break;
		} else {
			cap = cap * 2 > CLI_RULE_FILE_MAX + 2 ? CLI_RULE_FILE_MAX + 2 : cap * 2;
		}
	}
	if (f != stdin)
		fclose(f);
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

const char *cli_slurp_error(int err)
{
	static char msg[96];

	if (err != EFBIG)
		return strerror(err);
	snprintf(msg, sizeof(msg), "larger than %u MiB, the limit of a rule file",
		 CLI_RULE_FILE_MAX >> 20);
	return msg;
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
	struct timespec t0;
	size_t len;
	char *text;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	text = cli_slurp(path, &len);
	memset(set, 0, sizeof(*set));
	if (!text)
		return cli_fail(cli, "cannot read rule file %s: %s", path, cli_slurp_error(errno));
	ret = fp_ruleset__parse(text, len, set, &d);
	free(text);
	out_dbg(1, "%s: %zu bytes read, %zu rules parsed in %.1f ms", path, len, set->n,
		cli_ms_since(&t0));
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

int cli_parse_match(const struct cli *cli, const char *terms, struct fp_rule *out)
{
	struct fp_diags dg = { 0 };
	char text[1024];
	int ret = 0;

	/* the terms as a rule's: "pass " is 5 columns before them */
	snprintf(text, sizeof(text), "pass %s", terms);
	if (fp_rule__parse(text, 1, out, &dg))
		ret = cli_usage(cli, "--match: column %u: %s",
				dg.n && dg.v[0].col > 5 ? dg.v[0].col - 5 : 1,
				dg.n ? dg.v[0].msg : "bad terms");
	fp_diags__free(&dg);
	return ret;
}
