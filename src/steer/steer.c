// SPDX-License-Identifier: BSD-2-Clause
/* The steer stage's maps: a queue's terms on and off, its counters. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "steer/steer.h"
#include "dump/dump.h"
#include "rules/rule.h"

int fp_steer__set(const struct fp_steer_fds *s, __u32 q, const struct fp_rule *r, __u32 pid)
{
	struct fp_steer_cfg *cfg = calloc(1, sizeof(*cfg));
	struct timespec ts;
	int ret = 0;

	if (!cfg)
		return -ENOMEM;
	if (q >= FP_STEER_QUEUES) {
		free(cfg);
		return -ERANGE;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	cfg->active = 1;
	cfg->owner_pid = pid;
	cfg->started_ns = (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	fp_match__from_rule(r, &cfg->match);
	if (bpf_map_update_elem(s->cfg_fd, &q, cfg, 0))
		ret = -errno;
	free(cfg);
	return ret;
}

int fp_steer__clear(const struct fp_steer_fds *s, __u32 q)
{
	struct fp_steer_cfg off;

	memset(&off, 0, sizeof(off));
	return bpf_map_update_elem(s->cfg_fd, &q, &off, 0) ? -errno : 0;
}

int fp_steer__cfg(const struct fp_steer_fds *s, __u32 q, struct fp_steer_cfg *cfg)
{
	return bpf_map_lookup_elem(s->cfg_fd, &q, cfg) ? -errno : 0;
}

int fp_steer__counts(const struct fp_steer_fds *s, __u32 q, struct fp_steer_counts *c)
{
	int ncpu = libbpf_num_possible_cpus();
	struct fp_steer_counts *v;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	if (ncpu <= 0)
		return -EINVAL;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(s->cnt_fd, &q, v))
		ret = -errno;
	for (int i = 0; !ret && i < ncpu; i++) {
		c->redirected += v[i].redirected;
		c->no_socket += v[i].no_socket;
		c->unmatched += v[i].unmatched;
	}
	free(v);
	return ret;
}

bool fp_steer_pid_alive(__u32 pid)
{
	char path[64], buf[512], *p;
	bool alive = true;
	FILE *fh;

	if (!pid || pid > INT32_MAX || (kill((pid_t)pid, 0) && errno == ESRCH))
		return false;
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fh = fopen(path, "r");
	if (fh) {
		/* "PID (COMM) STATE ...": a killed capture is a zombie until reaped */
		if (fgets(buf, sizeof(buf), fh) && (p = strrchr(buf, ')')) && p[1] == ' ')
			alive = p[2] != 'Z' && p[2] != 'X';
		fclose(fh);
	}
	return alive;
}
