// SPDX-License-Identifier: BSD-2-Clause
/* A running proxy's control socket, the client side (control.h). */
#include "proxy/control.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

json_t *fp_px_control__call(const char *path, const char *cmd, unsigned timeout_s, char *err,
			    size_t errlen)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct timeval tv = { timeout_s, 0 };
	static char buf[1 << 20]; /* 4096 rules' counters fit */
	char line[32];
	size_t n = 0;
	json_error_t je;
	json_t *o;
	int fd, ln;

	if (strlen(path) >= sizeof(un.sun_path)) {
		snprintf(err, errlen, "control socket path too long: %s", path);
		return NULL;
	}
	strcpy(un.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    connect(fd, (struct sockaddr *)&un, sizeof(un))) {
		snprintf(err, errlen, "no proxy answers on %s (%s)", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	/* one write: the proxy reads one line with one recv */
	ln = snprintf(line, sizeof(line), "%s\n", cmd);
	(void)!write(fd, line, (size_t)ln);
	for (;;) {
		ssize_t r = read(fd, buf + n, sizeof(buf) - 1 - n);

		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = 0;
	o = json_loads(buf, 0, &je);
	if (!o)
		snprintf(err, errlen, "the answer on %s is not JSON: %s", path, je.text);
	return o;
}
