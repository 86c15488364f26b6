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

/* Whether a `fastpath dump` runs, whose process is alive: a killed one
 * (whose exit program cleared the flags, or not: killed before that
 * existed, or where it could not attach) leaves the dump's chain slot
 * filled, idle, not running. The tap is the dump's (fp_stage_ops.tap). */
static bool dump_running(struct fp_pipeline *pl)
{
	uint32_t pid;

	return fp_dump__running(pl, &pid) == 1;
}

/* The loaded stages of the table, in slot order, and which of them run. */
static void read_stages(struct fp_pipeline *pl, const struct fp_pipeline_info *in,
			struct fp_iface_status *st)
{
	bool dump_on = false, asked = false;

	for (unsigned s = 0; s < FP_STAGE_CHAIN; s++) {
		const struct fp_slot_info *si = &in->slot[s];
		struct fp_stage_status *o = &st->stage[st->n_stages];

		if (!si->stage || !si->loaded)
			continue;
		snprintf(o->name, sizeof(o->name), "%s", si->stage->name);
		o->slot = s;
		o->enabled = si->enabled;
		o->abi_ok = si->abi_ok;
		o->prog_id = si->prog_id;
		o->counts = si->counts;
		/* a tap stage's chain slot is filled only while a dump asks */
		if (si->stage->tap && si->enabled && si->prog_id && !asked) {
			dump_on = dump_running(pl);
			asked = true;
		}
		o->running = si->enabled && si->prog_id && (!si->stage->tap || dump_on);
		if (o->running)
			st->stages |= 1u << s;
		st->n_stages++;
	}
}

/* OK, RENAMED, DETACHED or MISSING: where does our program run? By the
 * ifindex of the load first (info.ifname), so a renamed interface is still
 * found. */
static enum fp_iface_state attach_state(const struct fp_pipeline_info *in, const char *ifname,
					struct fp_iface_status *st)
{
	if (in->attached && in->ifname[0] && strcmp(in->ifname, ifname)) {
		snprintf(st->renamed_to, sizeof(st->renamed_to), "%s", in->ifname);
		return FP_IFACE_RENAMED;
	}
	if (in->attached)
		return FP_IFACE_OK;
	/* the name still exists (our program detached, replaced, or the
	 * interface re-created) or the ifindex does (renamed, then detached) */
	if (if_nametoindex(ifname) || (in->ifname[0] && !strcmp(in->ifname, ifname)))
		return FP_IFACE_DETACHED;
	return FP_IFACE_MISSING;
}

/* The filter's share, from its own meta map ("" when it has none, or its
 * pins are of another ABI: the filter's own commands say so). */
static void filter_share(const struct fp_pipeline *pl, const struct fp_stage_ops *flt,
			 char *share, size_t len)
{
	struct fp_flt_meta m;
	__u32 zero = 0;
	int fd = -1;

	share[0] = 0;
	if (!flt->meta_pin || fp_pipeline__stage_pin(pl, flt, flt->meta_pin, &fd))
		return;
	if (!bpf_map_lookup_elem(fd, &zero, &m) && m.abi_version == FP_FILTER_ABI)
		snprintf(share, len, "%.*s", (int)sizeof(m.share) - 1, m.share);
	close(fd);
}

/* The filter's rule set and counters into st (and view): a broken filter
 * makes the interface's status broken, as its rules are not known. */
static int read_filter(const char *bpffs, const char *ifname, const struct fp_pipeline *pl,
		       const struct fp_stage_ops *flt, struct fp_iface_status *st,
		       struct fp_filter_view *view)
{
	struct fp_filter_view v;
	struct fp_filter *f;
	int ret;

	st->has_filter = true;
	filter_share(pl, flt, st->share, sizeof(st->share));
	ret = fp_filter__open(ifname, bpffs, &f, st->err, sizeof(st->err));
	if (ret) {
		st->state = FP_IFACE_BROKEN;
		st->error = ret;
		return 0;
	}
	ret = fp_filter__view(f, &v);
	fp_filter__close(f);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		st->state = FP_IFACE_BROKEN;
		st->error = ret;
		snprintf(st->err, sizeof(st->err), "reading the filter's maps pinned for %s "
			 "failed: %s", ifname, strerror(-ret));
		return 0;
	}
	st->flt = v.state;
	st->has_rules = v.has_rules;
	st->default_verdict = v.default_verdict;
	st->n_rules = v.n_rules;
	if (view)
		*view = v;
	else
		fp_filter_view__free(&v);
	return 0;
}

int fp_status__read(const char *bpffs, const char *ifname, struct fp_iface_status *st,
		    struct fp_filter_view *view)
{
	const struct fp_stage_ops *flt = fp_stage_by_name("filter");
	struct fp_pipeline_info in;
	struct fp_pipeline *pl;
	int ret;

	if (!ifname || !st || strlen(ifname) > NAME_MAX)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	if (view)
		memset(view, 0, sizeof(*view));
	snprintf(st->name, sizeof(st->name), "%s", ifname);
	ret = fp_pipeline__open(ifname, bpffs, &pl, st->err, sizeof(st->err));
	if (ret) {
		st->state = FP_IFACE_BROKEN;
		st->error = ret;
		return 0;
	}
	memset(&in, 0, sizeof(in));
	ret = fp_pipeline__info(pl, &in);
	if (ret) {
		fp_pipeline__close(pl);
		if (ret == -ENOMEM)
			return ret;
		st->state = FP_IFACE_BROKEN;
		st->error = ret;
		snprintf(st->err, sizeof(st->err), "reading the pipeline pinned for %s failed: %s",
			 ifname, strerror(-ret));
		return 0;
	}
	st->meta = in.meta;
	st->prog_id = in.entry_id;
	st->attached = in.attached;
	st->attached_id = in.attached_id;
	if (in.attached && in.attached_stage)
		snprintf(st->fused_stage, sizeof(st->fused_stage), "%s", in.attached_stage);
	read_stages(pl, &in, st);
	st->state = attach_state(&in, ifname, st);
	/* the filter's summary, as before the pipeline had other stages */
	ret = 0;
	if (flt && in.slot[flt->slot].loaded)
		ret = read_filter(bpffs, ifname, pl, flt, st, view);
	fp_pipeline__close(pl);
	return ret;
}

/* The entry program ids pinned under root, the plain entry's and every
 * stage's fused entry's (0 for a pin that is not there). */
static int pinned_ids(const char *bpffs, __u32 **ids, size_t *n)
{
	const struct fp_stage_ops *const *t = fp_stage_table();
	char **names, path[PATH_MAX];
	size_t n_stages = 0, per, nn;
	int ret = fp_status__list(bpffs, &names, &nn);

	if (ret)
		return ret;
	while (t && t[n_stages])
		n_stages++;
	per = 1 + n_stages;
	*ids = calloc(nn * per + 1, sizeof(**ids));
	if (!*ids) {
		fp_status__free_list(names, nn);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nn; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/%s/fp_entry", fp_bpffs_root(bpffs), names[i]);
		fd = bpf_obj_get(path);
		if (fd < 0 && fp_errno_is_perm(-errno))
			ret = -EACCES;
		(*ids)[i * per] = fp_prog_id(fd);
		if (fd >= 0)
			close(fd);
		/* the stages' fused entries are ours too: one may be attached */
		for (size_t k = 0; k < n_stages; k++) {
			const struct fp_stage_ops *s = t[k];

			if (!s->fused_pin)
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s/%s", fp_bpffs_root(bpffs), names[i],
				 s->name, s->fused_pin);
			fd = bpf_obj_get(path);
			(*ids)[i * per + 1 + k] = fp_prog_id(fd);
			if (fd >= 0)
				close(fd);
		}
	}
	*n = nn * per;
	fp_status__free_list(names, nn);
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
	const struct fp_stage_ops *s = fp_stage_by_slot(slot);

	return s ? s->name : NULL;
}
