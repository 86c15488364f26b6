// SPDX-License-Identifier: BSD-2-Clause
/* Reading the lb's maps for `lb list` and `lb stats`: VIPs, backends,
 * tables and counters (per-CPU values summed). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lb/lb_internal.h"
#include "lb/lb_table.h"

static int by_index(const void *a, const void *b)
{
	const struct fp_lb_vip_info *x = a, *y = b;

	return (x->vip.index > y->vip.index) - (x->vip.index < y->vip.index);
}

int fp_lb__vips(struct fp_lb *lb, struct fp_lb_vip_info **out, int *n)
{
	struct fp_lb_vip_info *v = calloc(FP_LB_MAX_VIPS, sizeof(*v));
	struct fp_lb_vip_key cur, next, *prev = NULL;
	struct fp_lb_backend *all = NULL;
	int got = 0, ret;

	if (!v)
		return -ENOMEM;
	ret = fp_lb_read_backends(lb, &all);
	if (ret) {
		free(v);
		return ret;
	}
	while (got < FP_LB_MAX_VIPS && !bpf_map_get_next_key(lb->fd[LB_VIPS], prev, &next)) {
		cur = next;
		prev = &cur;
		if (bpf_map_lookup_elem(lb->fd[LB_VIPS], &cur, &v[got].vip))
			continue;
		v[got].key = cur;
		bpf_map_lookup_elem(lb->fd[LB_TABLES], &v[got].vip.index, &v[got].table_id);
		for (__u32 i = 0; i < FP_LB_MAX_BACKENDS; i++)
			v[got].n_backends += (all[i].flags & FP_LB_BE_USED) &&
					     all[i].vip_index == v[got].vip.index;
		got++;
	}
	free(all);
	qsort(v, got, sizeof(*v), by_index);
	*out = v;
	*n = got;
	return 0;
}

int fp_lb__table(struct fp_lb *lb, __u32 vip_index, __u32 **out, __u32 *size, __u32 *id)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info), count, ob = 0, *keys, *t;
	int fd, ret = 0;

	*id = 0;
	if (bpf_map_lookup_elem(lb->fd[LB_TABLES], &vip_index, id))
		return -ENOENT;
	fd = bpf_map_get_fd_by_id(*id);
	if (fd < 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	count = info.max_entries;
	keys = calloc(count, sizeof(*keys));
	t = calloc(count, sizeof(*t));
	if (!keys || !t) {
		ret = -ENOMEM;
	} else if (bpf_map_lookup_batch(fd, NULL, &ob, keys, t, &count, NULL) &&
		   errno != ENOENT) {
		for (__u32 i = 0; i < info.max_entries && !ret; i++)
			if (bpf_map_lookup_elem(fd, &i, &t[i]))
				ret = -errno;
	} else if (count != info.max_entries) {
		ret = -EIO;
	}
	close(fd);
	free(keys);
	if (ret) {
		free(t);
		return ret;
	}
	*out = t;
	*size = info.max_entries;
	return 0;
}

int fp_lb__backends(struct fp_lb *lb, __u32 vip_index, bool with_slots,
		    struct fp_lb_be_info **out, int *n)
{
	struct fp_lb_backend *all = NULL;
	struct fp_lb_be_info *v;
	int got = 0, ret = fp_lb_read_backends(lb, &all);

	if (ret)
		return ret;
	v = calloc(FP_LB_MAX_BACKENDS, sizeof(*v));
	if (!v) {
		free(all);
		return -ENOMEM;
	}
	for (__u32 i = 0; i < FP_LB_MAX_BACKENDS; i++) {
		if (!(all[i].flags & FP_LB_BE_USED) ||
		    (vip_index != ~0u && all[i].vip_index != vip_index))
			continue;
		v[got].index = i;
		v[got++].be = all[i];
	}
	/* slots per backend from each VIP's table, one read a VIP; an entry's
	 * row by its index (every table slot is one lookup) */
	if (with_slots) {
		int *row = malloc(FP_LB_MAX_BACKENDS * sizeof(*row));
		bool *done = calloc(FP_LB_MAX_VIPS, sizeof(*done));

		for (int j = 0; row && done && j < got; j++)
			row[v[j].index] = j;
		for (int j = 0; row && done && j < got; j++) {
			__u32 *t = NULL, size = 0, id, vi = v[j].be.vip_index;

			if (vi >= FP_LB_MAX_VIPS || done[vi] || fp_lb__table(lb, vi, &t, &size, &id))
				continue;
			done[vi] = true;
			for (__u32 s = 0; s < size; s++)
				if (t[s] < FP_LB_MAX_BACKENDS && all[t[s]].vip_index == vi &&
				    (all[t[s]].flags & FP_LB_BE_USED))
					v[row[t[s]]].slots++;
			free(t);
		}
		free(row);
		free(done);
	}
	free(all);
	*out = v;
	*n = got;
	return 0;
}

static int sum_stats(int fd, __u32 index, struct fp_lb_stats *s)
{
	int ncpu = libbpf_num_possible_cpus();
	struct fp_lb_stats *v;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	if (ncpu <= 0)
		return -EINVAL;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &index, v))
		ret = -errno;
	for (int c = 0; !ret && c < ncpu; c++) {
		s->packets += v[c].packets;
		s->bytes += v[c].bytes;
		s->new_flows += v[c].new_flows;
		s->conn_hits += v[c].conn_hits;
		s->conn_misses += v[c].conn_misses;
	}
	free(v);
	return ret;
}

int fp_lb__vip_stats(struct fp_lb *lb, __u32 index, struct fp_lb_stats *s)
{
	return sum_stats(lb->fd[LB_VIP_STATS], index, s);
}

int fp_lb__be_stats(struct fp_lb *lb, __u32 index, struct fp_lb_stats *s)
{
	return sum_stats(lb->fd[LB_BE_STATS], index, s);
}

int fp_lb__counters(struct fp_lb *lb, __u64 c[FP_LB_C_MAX])
{
	return fp_lb_sum_counters(lb->fd[LB_COUNTERS], c);
}
