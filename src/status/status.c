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
		/* a directory we may not look into is listed: reading it then
		 * says permission denied, not "not loaded" */
		if (access(path, F_OK) && !fp_errno_is_perm(-errno))
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

/* OK, RENAMED, DETACHED or MISSING: where does our entry program run? By
 * the ifindex of the load first, so a renamed interface is still found. */
static enum fp_iface_state attach_state(struct fp_filter *f, const char *ifname,
					struct fp_iface_status *st)
{
	struct fp_filter_attach a;

	if (fp_filter__attachment(f, &a))
		return FP_IFACE_DETACHED;
	st->prog_id = a.prog_id;
	if (a.attached && strcmp(a.ifname, ifname)) {
		snprintf(st->renamed_to, sizeof(st->renamed_to), "%s", a.ifname);
		return FP_IFACE_RENAMED;
	}
	if (a.attached)
		return FP_IFACE_OK;
	/* the name still exists (our program detached, replaced, or the
	 * interface re-created) or the ifindex does (renamed, then detached) */
	if (if_nametoindex(ifname) || (a.ifname[0] && !strcmp(a.ifname, ifname)))
		return FP_IFACE_DETACHED;
	return FP_IFACE_MISSING;
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
	if ((st->stages & 1u << FP_STAGE_DUMP) && fp_dump__running(fp_filter__pipeline(f), &dump_pid) != 1)
		st->stages &= ~(1u << FP_STAGE_DUMP);
	st->state = attach_state(f, ifname, st);
	fp_filter__close(f);
	if (view)
		*view = v;
	else
		fp_filter_view__free(&v);
	return 0;
}

/* The entry program ids pinned under root (0 for a directory without one). */
static int pinned_ids(const char *bpffs, __u32 **ids, size_t *n)
{
	char **names, path[PATH_MAX];
	int ret = fp_status__list(bpffs, &names, n);

	if (ret)
		return ret;
	*ids = calloc(*n + 1, sizeof(**ids));
	if (!*ids) {
		fp_status__free_list(names, *n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < *n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/%s/fp_entry", fp_bpffs_root(bpffs), names[i]);
		fd = bpf_obj_get(path);
		if (fd < 0 && fp_errno_is_perm(-errno))
			ret = -EACCES;
		(*ids)[i] = fp_prog_id(fd);
		if (fd >= 0)
			close(fd);
	}
	fp_status__free_list(names, *n);
	if (ret)
		free(*ids);
	return ret;
}

static bool id_in(__u32 id, const __u32 *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

int fp_status__orphans(const char *bpffs, struct fp_iface_status **v, size_t *n)
{
	static const __u32 modes[3] = { XDP_FLAGS_DRV_MODE, XDP_FLAGS_SKB_MODE,
					XDP_FLAGS_HW_MODE };
	struct if_nameindex *ifs, *i;
	struct fp_iface_status *out = NULL, *grown;
	__u32 *ids = NULL;
	size_t nids = 0, cnt = 0;
	int ret;

	*v = NULL;
	*n = 0;
	ret = pinned_ids(bpffs, &ids, &nids);
	if (ret)
		return ret;
	ifs = if_nameindex();
	if (!ifs) {
		free(ids);
		return -errno;
	}
	for (i = ifs; i->if_index; i++) {
		LIBBPF_OPTS(bpf_xdp_query_opts, q);
		__u32 att[3];

		if (bpf_xdp_query((int)i->if_index, 0, &q))
			continue;
		att[0] = q.drv_prog_id, att[1] = q.skb_prog_id, att[2] = q.hw_prog_id;
		for (int m = 0; m < 3; m++) {
			if (!att[m] || id_in(att[m], ids, nids) || !fp_prog_is_ours(att[m]))
				continue;
			grown = realloc(out, (cnt + 1) * sizeof(*out));
			if (!grown) {
				ret = -ENOMEM;
				goto out;
			}
			out = grown;
			memset(&out[cnt], 0, sizeof(out[cnt]));
			snprintf(out[cnt].name, sizeof(out[cnt].name), "%s", i->if_name);
			out[cnt].state = FP_IFACE_ORPHAN;
			out[cnt].meta.ifindex = i->if_index;
			out[cnt].meta.xdp_flags = modes[m];
			out[cnt].prog_id = att[m];
			cnt++;
		}
	}
out:
	if_freenameindex(ifs);
	free(ids);
	if (ret) {
		free(out);
		return ret;
	}
	*v = out;
	*n = cnt;
	return 0;
}

const char *fp_iface_state__name(enum fp_iface_state s)
{
	switch (s) {
	case FP_IFACE_OK:       return "ok";
	case FP_IFACE_MISSING:  return "iface missing";
	case FP_IFACE_DETACHED: return "detached";
	case FP_IFACE_BROKEN:   return "broken";
	case FP_IFACE_RENAMED:  return "renamed";
	case FP_IFACE_ORPHAN:   return "orphan";
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
