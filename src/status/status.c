// SPDX-License-Identifier: BSD-2-Clause
/* Interfaces with fastpath loaded, from the pins alone (status.h). */
#include "status/status.h"

#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "dump/dump.h"

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void fp_status__free_list(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

int fp_status__list(const char *bpffs, char ***names, size_t *n)
{
	const char *root = fp_bpffs_root(bpffs);
	char path[PATH_MAX], **v = NULL, **grown;
	size_t cnt = 0, cap = 0;
	struct dirent *e;
	DIR *d;

	if (!names || !n)
		return -EINVAL;
	*names = NULL;
	*n = 0;
	d = opendir(root);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/fp_meta", root, e->d_name);
		if (access(path, F_OK))
			continue;
		if (cnt == cap) {
			cap = cap ? cap * 2 : 8;
			grown = realloc(v, cap * sizeof(*v));
			if (!grown)
				goto nomem;
			v = grown;
		}
		v[cnt] = strdup(e->d_name);
		if (!v[cnt])
			goto nomem;
		cnt++;
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_names);
	*names = v;
	*n = cnt;
	return 0;
nomem:
	closedir(d);
	fp_status__free_list(v, cnt);
	return -ENOMEM;
}

/* Bit s set for every filled slot of ROOT/IFACE/fp_stages. */
static uint32_t read_stages(const char *root, const char *ifname)
{
	char path[PATH_MAX];
	uint32_t mask = 0, id;
	int fd;

	snprintf(path, sizeof(path), "%s/%s/fp_stages", root, ifname);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	for (uint32_t s = 0; s < FP_STAGE_MAX; s++)
		if (bpf_map_lookup_elem(fd, &s, &id) == 0) /* a PROG_ARRAY gives the prog id */
			mask |= 1u << s;
	close(fd);
	return mask;
}

/* OK, MISSING or DETACHED: does the interface still run our entry program? */
static enum fp_iface_state attach_state(struct fp_filter *f, const struct fp_meta *m,
					const char *ifname)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info), id = 0;
	unsigned idx = if_nametoindex(ifname);

	if (!idx || idx != m->ifindex)
		return FP_IFACE_MISSING;
	if (bpf_obj_get_info_by_fd(fp_filter__entry_fd(f), &info, &len))
		return FP_IFACE_DETACHED;
	if (bpf_xdp_query_id((int)idx, (int)m->xdp_flags, &id) || id != info.id)
		return FP_IFACE_DETACHED;
	return FP_IFACE_OK;
}

int fp_status__read(const char *bpffs, const char *ifname, struct fp_iface_status *st,
		    struct fp_filter_view *view)
{
	struct fp_filter_view v;
	struct fp_filter *f;
	uint32_t dump_pid;
	int ret;

	if (!ifname || !st || strlen(ifname) > NAME_MAX)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	if (view)
		memset(view, 0, sizeof(*view));
	snprintf(st->name, sizeof(st->name), "%s", ifname);
	ret = fp_filter__open(ifname, bpffs, &f, st->err, sizeof(st->err));
	if (ret) {
		st->state = FP_IFACE_BROKEN;
		st->error = ret;
		return 0;
	}
	ret = fp_filter__view(f, &v);
	if (ret) {
		fp_filter__close(f);
		if (ret == -ENOMEM)
			return ret;
		st->state = FP_IFACE_BROKEN;
		st->error = ret;
		snprintf(st->err, sizeof(st->err), "reading the maps pinned for %s failed: %s",
			 ifname, strerror(-ret));
		return 0;
	}
	st->meta = v.meta;
	st->flt = v.state;
	st->has_rules = v.has_rules;
	st->default_verdict = v.default_verdict;
	st->n_rules = v.n_rules;
	st->stages = read_stages(fp_bpffs_root(bpffs), ifname);
	/* a killed `dump --match` leaves its slot filled, flags clear: idle */
	if ((st->stages & 1u << FP_STAGE_DUMP) && fp_dump__running(f, &dump_pid) != 1)
		st->stages &= ~(1u << FP_STAGE_DUMP);
	st->state = attach_state(f, &v.meta, ifname);
	fp_filter__close(f);
	if (view)
		*view = v;
	else
		fp_filter_view__free(&v);
	return 0;
}

const char *fp_iface_state__name(enum fp_iface_state s)
{
	switch (s) {
	case FP_IFACE_OK:       return "ok";
	case FP_IFACE_MISSING:  return "iface missing";
	case FP_IFACE_DETACHED: return "detached";
	case FP_IFACE_BROKEN:   return "broken";
	}
	return "?";
}

const char *fp_xdp_mode__name(uint32_t xdp_flags)
{
	if (xdp_flags & XDP_FLAGS_SKB_MODE)
		return "skb";
	if (xdp_flags & XDP_FLAGS_DRV_MODE)
		return "native";
	if (xdp_flags & XDP_FLAGS_HW_MODE)
		return "offload";
	return "unknown";
}

const char *fp_stage__name(unsigned slot)
{
	static const char *const names[FP_STAGE_MAX] = {
		[FP_STAGE_DUMP] = "dump",   [FP_STAGE_FILTER] = "filter", [FP_STAGE_LB] = "lb",
		[FP_STAGE_STEER] = "steer", [FP_STAGE_BRIDGE] = "bridge",
	};

	return slot < FP_STAGE_MAX ? names[slot] : NULL;
}
