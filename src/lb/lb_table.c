// SPDX-License-Identifier: BSD-2-Clause
/*
 * A VIP's Maglev table: built from its backend entries (weights; drained
 * and down ones get weight 0; keys from fp_maglev_key with the backend's
 * address, so every lb host configured alike builds the same table) into a
 * new inner map, which is switched in with one update of lb_tables[index].
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lb/lb_internal.h"
#include "lb/lb_table.h"
#include "lb/maglev.h"

int fp_lb_read_backends(struct fp_lb *lb, struct fp_lb_backend **out)
{
	struct fp_lb_backend *all = calloc(FP_LB_MAX_BACKENDS, sizeof(*all));
	__u32 *keys = calloc(FP_LB_MAX_BACKENDS, sizeof(*keys));
	__u32 out_batch = 0, count = FP_LB_MAX_BACKENDS;
	int ret = 0;

	if (!all || !keys) {
		free(all);
		free(keys);
		return -ENOMEM;
	}
	if (bpf_map_lookup_batch(lb->fd[LB_BACKENDS], NULL, &out_batch, keys, all, &count,
				 NULL) && errno != ENOENT) {
		/* no batch: one lookup an entry */
		for (__u32 i = 0; i < FP_LB_MAX_BACKENDS && !ret; i++)
			if (bpf_map_lookup_elem(lb->fd[LB_BACKENDS], &i, &all[i]))
				ret = -errno;
	} else if (count != FP_LB_MAX_BACKENDS) {
		ret = -EIO;
	}
	free(keys);
	if (ret) {
		free(all);
		return ret;
	}
	*out = all;
	return 0;
}

int fp_lb_build_table(const struct fp_lb_backend *all, __u32 vip_index, __u32 size,
		      __u32 *table, __u32 *active, char *err, size_t errlen)
{
	struct fp_maglev_backend *mb = NULL;
	__u32 *idx = NULL, n = 0, live = 0;
	int ret = 0;

	for (__u32 i = 0; i < FP_LB_MAX_BACKENDS; i++)
		n += (all[i].flags & FP_LB_BE_USED) && all[i].vip_index == vip_index;
	if (n) {
		mb = calloc(n, sizeof(*mb));
		idx = calloc(n, sizeof(*idx));
		if (!mb || !idx) {
			ret = -ENOMEM;
			goto out;
		}
	}
	n = 0;
	for (__u32 i = 0; i < FP_LB_MAX_BACKENDS; i++) {
		const struct fp_lb_backend *b = &all[i];

		if (!(b->flags & FP_LB_BE_USED) || b->vip_index != vip_index)
			continue;
		ret = fp_maglev_key(mb[n].key, b->family == 4 ? AF_INET : AF_INET6, b->addr, NULL);
		if (ret)
			goto out;
		mb[n].weight = b->flags & (FP_LB_BE_DOWN | FP_LB_BE_DRAIN) ? 0 : b->weight;
		live += mb[n].weight > 0;
		idx[n++] = i;
	}
	*active = live;
	if (!live) { /* no backend takes new flows: every slot says so */
		for (__u32 s = 0; s < size; s++)
			table[s] = FP_LB_NO_BACKEND;
		goto out;
	}
	ret = fp_maglev_build(mb, n, size, table, err, errlen);
	if (ret)
		goto out;
	for (__u32 s = 0; s < size; s++)
		table[s] = idx[table[s]];
out:
	free(mb);
	free(idx);
	return ret;
}

int fp_lb_table_map(const __u32 *table, __u32 size, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_INNER_MAP);
	__u32 *keys = malloc((size_t)size * sizeof(*keys)), count = size;
	int fd, ret = 0;

	if (!keys)
		return -ENOMEM;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "lb_table", sizeof(__u32), sizeof(__u32), size,
			    &o);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "creating a table of %u entries failed: %s", size,
			 strerror(-ret));
		goto out;
	}
	for (__u32 i = 0; i < size; i++)
		keys[i] = i;
	if (bpf_map_update_batch(fd, keys, table, &count, NULL)) {
		/* no batch: one update an entry */
		for (__u32 i = 0; i < size && !ret; i++)
			if (bpf_map_update_elem(fd, &i, &table[i], 0))
				ret = -errno;
	}
	if (ret) {
		snprintf(err, errlen, "filling the new table failed: %s", strerror(-ret));
		close(fd);
	}
out:
	free(keys);
	return ret ? ret : fd;
}

__u32 fp_lb_map_id(int fd)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

int fp_lb_switch_table(struct fp_lb *lb, __u32 vip_index, int table_fd, char *err,
		       size_t errlen)
{
	if (bpf_map_update_elem(lb->fd[LB_TABLES], &vip_index, &table_fd, BPF_ANY)) {
		int ret = -errno;

		snprintf(err, errlen, "switching in the new table of VIP index %u failed: %s",
			 vip_index, strerror(-ret));
		return ret;
	}
	return 0;
}

int fp_lb_zero_stats(int fd, __u32 index)
{
	int ncpu = libbpf_num_possible_cpus();
	struct fp_lb_stats *z;
	int ret = 0;

	if (ncpu <= 0)
		return -EINVAL;
	z = calloc(ncpu, sizeof(*z));
	if (!z)
		return -ENOMEM;
	if (bpf_map_update_elem(fd, &index, z, 0))
		ret = -errno;
	free(z);
	return ret;
}

void fp_lb_bump_serial(struct fp_lb *lb)
{
	struct fp_lb_meta m;
	__u32 zero = 0;

	if (!fp_lb__meta(lb, &m)) {
		m.serial++;
		bpf_map_update_elem(lb->fd[LB_META], &zero, &m, 0);
	}
}
