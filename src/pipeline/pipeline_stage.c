// SPDX-License-Identifier: BSD-2-Clause
/*
 * Stages on a pipeline: plugging one in (pins, slot, enabled bit, the
 * fused entry attached in place of the plain one), taking it out,
 * enabling and disabling it, and what `pipeline show` reports per slot.
 *
 * The order of writes is what keeps packets whole while stages come and
 * go: a slot is filled before its fp_ctl bit is set and emptied after the
 * bit is cleared, so the plain entry (which follows the slots) and a fused
 * entry (which follows the bits for the slots before its own and runs its
 * own stage only while its bit is set) always agree; the attached program
 * changes only by an atomic replace (XDP_FLAGS_REPLACE).
 */
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "pipeline/pipeline_internal.h"

static void ctl_set(struct fp_pipeline *pl, unsigned slot, bool on)
{
	/* the dump's exit program clears bit 0 in the kernel: atomics */
	if (on)
		__atomic_fetch_or(&pl->ctl->enabled, 1u << slot, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_and(&pl->ctl->enabled, ~(1u << slot), __ATOMIC_SEQ_CST);
}

void fp_pipeline__set_dump(struct fp_pipeline *pl, __u32 flags)
{
	__atomic_store_n(&pl->ctl->dump, flags, __ATOMIC_SEQ_CST);
}

__u32 fp_pipeline__dump_flags(const struct fp_pipeline *pl)
{
	return __atomic_load_n(&pl->ctl->dump, __ATOMIC_SEQ_CST);
}

int fp_pipeline__fill_slot(struct fp_pipeline *pl, unsigned slot, int prog_fd)
{
	__u32 key = slot;

	if (slot >= FP_STAGE_MAX)
		return -EINVAL;
	if (bpf_map_update_elem(pl->stages_fd, &key, &prog_fd, 0))
		return -errno;
	if (slot < FP_STAGE_CHAIN)
		ctl_set(pl, slot, true);
	if (pl->test)
		pl->slot_fd[slot] = prog_fd;
	return 0;
}

int fp_pipeline__empty_slot(struct fp_pipeline *pl, unsigned slot)
{
	__u32 key = slot;

	if (slot >= FP_STAGE_MAX)
		return -EINVAL;
	if (slot < FP_STAGE_CHAIN)
		ctl_set(pl, slot, false);
	if (pl->test)
		pl->slot_fd[slot] = -1;
	if (bpf_map_delete_elem(pl->stages_fd, &key) && errno != ENOENT)
		return -errno;
	return 0;
}

static int slot_prog_id(const struct fp_pipeline *pl, unsigned slot, __u32 *id)
{
	__u32 key = slot;

	*id = 0;
	if (bpf_map_lookup_elem(pl->stages_fd, &key, id))
		return errno == ENOENT ? 0 : -errno;
	return 0;
}

int fp_pipeline__stage_pin(const struct fp_pipeline *pl, const struct fp_stage_ops *s,
			   const char *name, int *fd)
{
	char path[PATH_MAX + 2 * NAME_MAX];

	*fd = -1;
	if (pl->test)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s/%s", pl->dir, s->name, name);
	*fd = bpf_obj_get(path);
	return *fd < 0 ? -errno : 0;
}

bool fp_pipeline__has_stage(const struct fp_pipeline *pl, const struct fp_stage_ops *s)
{
	char dir[PATH_MAX];

	if (pl->test)
		return pl->slot_fd[s->tap ? FP_SLOT_TAP : s->slot] >= 0 ||
		       pl->fused_fd[s->slot] >= 0;
	if (fp_pipeline__stage_dir(pl, s, dir, sizeof(dir)))
		return false;
	return access(dir, F_OK) == 0;
}

bool fp_pipeline__enabled(const struct fp_pipeline *pl, const struct fp_stage_ops *s)
{
	__u32 id = 0;

	if (s->tap) {
		slot_prog_id(pl, FP_SLOT_TAP, &id);
		return id != 0;
	}
	return (__atomic_load_n(&pl->ctl->enabled, __ATOMIC_SEQ_CST) >> s->slot) & 1;
}

/* The best entry to attach: the fused entry of the first loaded stage that
 * has one, else the plain fp_entry. Returns an fd the caller closes
 * (test pipelines: borrowed, *owned false) and its slot in *slot. */
static int best_entry(const struct fp_pipeline *pl, const struct fp_stage_ops *going,
		      __u32 *slot, bool *owned)
{
	const struct fp_stage_ops *const *t = fp_stage_table();

	*owned = false;
	for (int i = 0; t[i]; i++) {
		int fd;

		if (!t[i]->fused_pin || t[i] == going)
			continue;
		if (pl->test) {
			if (pl->fused_fd[t[i]->slot] < 0)
				continue;
			*slot = t[i]->slot;
			return pl->fused_fd[t[i]->slot];
		}
		if (fp_pipeline__stage_pin(pl, t[i], t[i]->fused_pin, &fd))
			continue;
		*slot = t[i]->slot;
		*owned = true;
		return fd;
	}
	*slot = FP_STAGE_MAX;
	return pl->entry_fd;
}

int fp_pipeline__attached_fd(const struct fp_pipeline *pl)
{
	return pl->attached_fd >= 0 ? pl->attached_fd : pl->entry_fd;
}

/* Whether id is one of pl's entries: the plain one or a stage's fused one
 * (another fastpath's, under another pin root, has the same names). */
static bool is_ours(const struct fp_pipeline *pl, __u32 id)
{
	const struct fp_stage_ops *const *t = fp_stage_table();
	bool ours = id && id == fp_prog_id(pl->entry_fd);

	for (int i = 0; !ours && t[i]; i++) {
		int fd;

		if (!t[i]->fused_pin || fp_pipeline__stage_pin(pl, t[i], t[i]->fused_pin, &fd))
			continue;
		ours = fp_prog_id(fd) == id;
		close(fd);
	}
	return ours;
}

int fp_pipeline__sync_attach(struct fp_pipeline *pl, const struct fp_stage_ops *going,
			      char *err, size_t errlen)
{
	struct fp_meta meta;
	__u32 ids[3], slot, zero = 0, want;
	bool owned;
	int fd, ret = 0;

	fd = best_entry(pl, going, &slot, &owned);
	if (pl->test) {
		pl->attached_fd = fd;
		return 0;
	}
	if (fp_pipeline__meta(pl, &meta))
		return -errno;
	want = fp_prog_id(fd);
	fp_xdp_ids(meta.ifindex, ids);
	for (int m = 0; m < 3; m++) {
		if (!(meta.xdp_flags & fp_xdp_mode_flag[m]) || !ids[m] || ids[m] == want)
			continue;
		if (!is_ours(pl, ids[m]))
			break; /* not ours: never replaced (unload reports it) */
		{
			int old = bpf_prog_get_fd_by_id(ids[m]);
			LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = old);

			if (old < 0) {
				ret = -errno;
				break;
			}
			ret = bpf_xdp_attach((int)meta.ifindex, fd,
					     meta.xdp_flags | XDP_FLAGS_REPLACE, &opts);
			close(old);
		}
		if (ret)
			snprintf(err, errlen, "replacing program %u on %s by %u failed: %s",
				 ids[m], pl->ifname, want, strerror(-ret));
	}
	if (!ret && meta.attached_slot != slot) {
		meta.attached_slot = slot;
		bpf_map_update_elem(pl->meta_fd, &zero, &meta, 0);
	}
	if (owned)
		close(fd);
	return ret;
}

static int pin_stage(struct fp_pipeline *pl, const struct fp_stage_ops *s,
		     const struct fp_stage_pin *pins, int n, char *err, size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX + NAME_MAX + 1];
	int ret;

	ret = fp_pipeline__stage_dir(pl, s, dir, sizeof(dir));
	if (ret)
		return ret;
	if (access(pl->dir, F_OK)) {
		snprintf(err, errlen, "the pipeline on %s went away (unloaded while %s loaded)",
			 pl->ifname, s->name);
		return -ENOENT;
	}
	if (mkdir(dir, 0700)) {
		ret = -errno;
		if (ret == -EEXIST)
			snprintf(err, errlen, "the %s stage is loaded on %s already (pins in %s)",
				 s->name, pl->ifname, dir);
		else
			snprintf(err, errlen, "cannot create %s: %s", dir, strerror(-ret));
		return ret;
	}
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, pins[i].name);
		if (bpf_obj_pin(pins[i].fd, path)) {
			ret = -errno;
			snprintf(err, errlen, "pinning %s failed: %s", path, strerror(-ret));
			fp_unpin_tree(dir, NULL, NULL, 0);
			return ret;
		}
		chmod(path, 0600);
	}
	return 0;
}

int fp_pipeline__add_stage(struct fp_pipeline *pl, const struct fp_stage_ops *s,
			   int prog_fd, int tap_fd, int fused_fd,
			   const struct fp_stage_pin *pins, int n_pins, char *err, size_t errlen)
{
	bool locked_here = pl->lock_fd < 0 && !pl->test;
	char dir[PATH_MAX];
	int ret;

	if (errlen)
		err[0] = 0;
	if (!pl->test && (ret = fp_pipeline__lock(pl, err, errlen)))
		return ret;
	if (!pl->test) {
		ret = pin_stage(pl, s, pins, n_pins, err, errlen);
		if (ret)
			goto out;
	} else if (fp_pipeline__has_stage(pl, s)) {
		ret = -EEXIST;
		goto out;
	}
	if (pl->test)
		pl->fused_fd[s->slot] = fused_fd;
	/* a tap stage fills its chain slot itself, only while it needs it */
	ret = s->tap ? fp_pipeline__fill_slot(pl, FP_SLOT_TAP, tap_fd)
		     : fp_pipeline__fill_slot(pl, s->slot, prog_fd);
	if (!ret && fused_fd >= 0)
		ret = fp_pipeline__sync_attach(pl, NULL, err, errlen);
	if (ret) {
		if (!err[0])
			snprintf(err, errlen, "plugging the %s stage in failed: %s", s->name,
				 strerror(-ret));
		fp_pipeline__empty_slot(pl, s->tap ? FP_SLOT_TAP : s->slot);
		if (!pl->test && !fp_pipeline__stage_dir(pl, s, dir, sizeof(dir)))
			fp_unpin_tree(dir, NULL, NULL, 0);
		if (pl->test)
			pl->fused_fd[s->slot] = -1;
	}
out:
	if (locked_here)
		fp_pipeline__unlock(pl);
	return ret;
}

int fp_pipeline__set_enabled(struct fp_pipeline *pl, const struct fp_stage_ops *s, bool on,
			     char *err, size_t errlen)
{
	bool locked_here = pl->lock_fd < 0 && !pl->test;
	int fd = -1, ret;

	if (errlen)
		err[0] = 0;
	if (!pl->test && (ret = fp_pipeline__lock(pl, err, errlen)))
		return ret;
	if (!fp_pipeline__has_stage(pl, s)) {
		char cmd[128];

		/* load_cmd names the interface with %s */
		snprintf(cmd, sizeof(cmd), s->load_cmd ? s->load_cmd : "fastpath pipeline load %s",
			 pl->ifname);
		snprintf(err, errlen, "the %s stage is not loaded on %s; load it with `%s`", s->name,
			 pl->ifname, cmd);
		ret = -ENOENT;
		goto out;
	}
	if (!on) {
		/*
		 * A tap stage's chain slot is left as it is: the empty tap
		 * already stops every sample, and the slot is the running
		 * `dump --match`'s (its marker), which empties it when it
		 * stops. Emptying it here lost the marking for good: an
		 * enable after it fills the tap only, and the dump sampled
		 * nothing until restarted.
		 */
		ret = fp_pipeline__empty_slot(pl, s->tap ? FP_SLOT_TAP : s->slot);
		goto out;
	}
	if (pl->test) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	ret = fp_pipeline__stage_pin(pl, s, s->tap ? s->tap_pin : s->prog_pin, &fd);
	if (ret) {
		snprintf(err, errlen, "the %s stage's program pin is missing (%s): "
			 "`fastpath pipeline unload %s --force` and load again", s->name,
			 strerror(-ret), pl->ifname);
		goto out;
	}
	ret = fp_pipeline__fill_slot(pl, s->tap ? FP_SLOT_TAP : s->slot, fd);
	close(fd);
out:
	if (ret && !err[0])
		snprintf(err, errlen, "%s the %s stage on %s failed: %s",
			 on ? "enabling" : "disabling", s->name, pl->ifname, strerror(-ret));
	if (locked_here)
		fp_pipeline__unlock(pl);
	return ret;
}

/* Whether a chain stage other than the pipeline's own (the dump) is
 * loaded on pl. */
static bool has_chain_stage(const struct fp_pipeline *pl, const struct fp_stage_ops *but)
{
	const struct fp_stage_ops *const *t = fp_stage_table();

	for (int i = 0; t[i]; i++)
		if (t[i] != but && !t[i]->pipeline_loads && fp_pipeline__has_stage(pl, t[i]))
			return true;
	return false;
}

int fp_pipeline__unload_if_empty(const char *ifname, const char *bpffs)
{
	struct fp_pipeline *pl;
	struct fp_meta meta;
	char err[256];
	int ret;

	if (fp_pipeline__open(ifname, bpffs, &pl, err, sizeof(err)))
		return 0;
	ret = fp_pipeline__lock(pl, err, sizeof(err));
	if (!ret && !access(pl->dir, F_OK) && !fp_pipeline__meta(pl, &meta) &&
	    (meta.flags & FP_META_AUTO) && !has_chain_stage(pl, NULL))
		ret = fp_pipeline__unload_held(ifname, bpffs, false, pl->lock_fd, NULL, err,
					       sizeof(err));
	fp_pipeline__close(pl);
	return ret;
}

int fp_pipeline__remove_stage(const char *ifname, const char *bpffs,
			      const struct fp_stage_ops *s, bool *pipeline_gone,
			      struct fp_unload_report *r, char *err, size_t errlen)
{
	struct fp_unload_report local;
	struct fp_pipeline *pl;
	struct fp_meta meta;
	char dir[PATH_MAX];
	int ret;

	if (!r)
		r = &local;
	memset(r, 0, sizeof(*r));
	*pipeline_gone = false;
	ret = fp_pipeline__open(ifname, bpffs, &pl, err, errlen);
	if (ret)
		return ret;
	ret = fp_pipeline__lock(pl, err, errlen);
	if (ret)
		goto out;
	if (access(pl->dir, F_OK)) { /* unloaded before the lock was ours */
		snprintf(err, errlen, "fastpath is not loaded on %s", ifname);
		ret = -ENOENT;
		goto out;
	}
	if (!fp_pipeline__has_stage(pl, s)) {
		snprintf(err, errlen, "the %s stage is not loaded on %s (`fastpath pipeline "
			 "show %s`)", s->name, ifname, ifname);
		ret = -ENOENT;
		goto out;
	}
	if (!fp_pipeline__meta(pl, &meta) && (meta.flags & FP_META_AUTO) &&
	    !has_chain_stage(pl, s)) {
		/* loaded by this stage's load: the pipeline goes with its last
		 * stage, detached as it runs (the stage's fused entry) */
		ret = fp_pipeline__unload_held(ifname, bpffs, false, pl->lock_fd, r, err, errlen);
		*pipeline_gone = ret >= 0;
		goto out;
	}
	fp_pipeline__empty_slot(pl, s->slot);
	if (s->tap)
		fp_pipeline__empty_slot(pl, FP_SLOT_TAP);
	fp_pipeline__stage_dir(pl, s, dir, sizeof(dir));
	/* the next best entry in place of its fused one while its pins still
	 * say which programs are ours, then its pins */
	ret = fp_pipeline__sync_attach(pl, s, err, errlen);
	if (!ret && s->unloading)
		s->unloading(dir, r);
	if (!ret)
		ret = fp_unpin_tree(dir, r, err, errlen);
	if (!ret && s->unloaded)
		s->unloaded(pl->root, r);
	r->stage_only = !ret;
out:
	fp_pipeline__close(pl);
	return ret;
}

int fp_pipeline__info(const struct fp_pipeline *pl, struct fp_pipeline_info *info)
{
	const struct fp_stage_ops *const *t = fp_stage_table();
	__u32 ids[3];
	int fd;

	memset(info, 0, sizeof(*info));
	if (fp_pipeline__meta(pl, &info->meta))
		return -errno;
	if (!if_indextoname(info->meta.ifindex, info->ifname))
		info->ifname[0] = 0;
	info->entry_id = fp_prog_id(pl->entry_fd);
	fp_xdp_ids(info->ifname[0] ? info->meta.ifindex : 0, ids);
	for (int m = 0; m < 3; m++)
		if (info->meta.xdp_flags & fp_xdp_mode_flag[m])
			info->attached_id = ids[m];
	info->attached = info->attached_id && info->attached_id == info->entry_id;
	for (unsigned slot = 0; slot < FP_STAGE_CHAIN; slot++)
		slot_prog_id(pl, slot, &info->slot[slot].prog_id);
	for (int i = 0; t[i]; i++) {
		struct fp_slot_info *si = &info->slot[t[i]->slot];
		char dir[PATH_MAX];
		__u32 abi = 0;

		si->stage = t[i];
		si->loaded = fp_pipeline__has_stage(pl, t[i]);
		if (!si->loaded)
			continue;
		si->enabled = fp_pipeline__enabled(pl, t[i]);
		if (t[i]->tap && !si->prog_id)
			slot_prog_id(pl, FP_SLOT_TAP, &si->prog_id);
		if (!fp_pipeline__stage_pin(pl, t[i], t[i]->meta_pin, &fd)) {
			if (!fp_read_abi(fd, &abi))
				si->abi = abi;
			close(fd);
		}
		si->abi_ok = si->abi == t[i]->abi;
		if (t[i]->fused_pin && !fp_pipeline__stage_pin(pl, t[i], t[i]->fused_pin, &fd)) {
			if (info->attached_id && fp_prog_id(fd) == info->attached_id) {
				info->attached = true;
				info->attached_stage = t[i]->name;
			}
			close(fd);
		}
		if (t[i]->counters && !fp_pipeline__stage_dir(pl, t[i], dir, sizeof(dir)))
			t[i]->counters(dir, &si->counts);
	}
	return 0;
}
