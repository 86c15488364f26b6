// SPDX-License-Identifier: BSD-2-Clause
/* The per-interface lock of the CLI's verbs: see cli_lock_iface in cli.h. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

#include "cli/cli.h"
#include "filter/filter.h"

int cli_lock_iface(const struct cli *cli, const char *ifname)
{
	char dir[PATH_MAX];
	int fd;

	snprintf(dir, sizeof(dir), "%s/%s", fp_bpffs_root(cli->bpffs), ifname);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_EX)) {
		close(fd);
		fd = -1;
	}
	return fd;
}
