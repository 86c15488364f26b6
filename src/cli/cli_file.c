// SPDX-License-Identifier: BSD-2-Clause
/* A file replaced whole or not at all, and the apply's test hook (cli_file.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_file.h"

int cli_replace_file(const struct cli *cli, const char *path, int (*write)(FILE *f, void *arg),
		     void *arg)
{
	char tmp[PATH_MAX];
	FILE *out;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return cli_usage(cli, "file name too long: %s", path);
	fd = mkstemp(tmp);
	if (fd < 0 || !(out = fdopen(fd, "w"))) {
		int e = errno;

		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return cli_fail(cli, "cannot write %s: %s", path, strerror(e));
	}
	errno = 0;
	if (fchmod(fd, 0644) || write(out, arg) || fflush(out) || ferror(out) || fsync(fd)) {
		int e = errno ? errno : EIO;

		fclose(out);
		unlink(tmp);
		return cli_fail(cli, "cannot write %s: %s", path, strerror(e));
	}
	fclose(out);
	if (rename(tmp, path)) {
		int e = errno;

		unlink(tmp);
		return cli_fail(cli, "cannot replace %s: %s", path, strerror(e));
	}
	return CLI_OK;
}

int cli_test_fail_edit(size_t n, char *err, size_t errlen)
{
	const char *e = getenv("FASTPATH_TEST_FAIL_EDIT");

	if (!e || strtoull(e, NULL, 10) != n)
		return 0;
	snprintf(err, errlen, "FASTPATH_TEST_FAIL_EDIT=%zu made it fail", n);
	return -EIO;
}

int cli_save(const struct cli *cli, const char *path, const char *what,
	     int (*write)(FILE *f, void *arg), void *arg)
{
	if (strcmp(path, "-"))
		return cli_replace_file(cli, path, write, arg);
	if (out_is_json())
		return cli_usage(cli, "save writes %s, not JSON: give FILE, or drop -j", what);
	return write(stdout, arg) ? cli_fail(cli, "writing stdout failed") : CLI_OK;
}
