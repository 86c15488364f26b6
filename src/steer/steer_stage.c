// SPDX-License-Identifier: BSD-2-Clause
/*
 * The steer stage in the pipeline (its entry in the stage table). Not
 * loaded with every pipeline: the first `fastpath capture` (or C API
 * session) on an interface loads it; it then stays, passing every packet
 * of a queue without a capture on (one array read).
 * Pins: ROOT/IFACE/steer/{fp_steer, fp_steer_xsk, fp_steer_cfg,
 * fp_steer_cnt, fp_steer_meta}.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "steer/steer.h"
#include "steer.skel.h"

static int steer_load(struct fp_pipeline *pl, char *err, size_t errlen)
{
	struct fp_steer_meta meta = { .abi_version = FP_STEER_ABI };
	struct steer_bpf *skel = steer_bpf__open();
	struct timespec ts;
	__u32 zero = 0;
	int ret;

	if (!skel)
		return -errno;
	ret = fp_pipeline__reuse_maps(pl, skel->obj);
	if (!ret)
		ret = steer_bpf__load(skel);
	if (ret) {
		snprintf(err, errlen, "loading the steer stage failed: %s (FASTPATH_DEBUG=1 shows "
			 "the verifier log)", strerror(-ret));
		steer_bpf__destroy(skel);
		return ret;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	meta.loaded_ns = (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	bpf_map_update_elem(bpf_map__fd(skel->maps.fp_steer_meta), &zero, &meta, 0);
	{
		struct fp_stage_pin pins[] = {
			{ "fp_steer", bpf_program__fd(skel->progs.fp_steer) },
			{ "fp_steer_xsk", bpf_map__fd(skel->maps.fp_steer_xsk) },
			{ "fp_steer_cfg", bpf_map__fd(skel->maps.fp_steer_cfg) },
			{ "fp_steer_cnt", bpf_map__fd(skel->maps.fp_steer_cnt) },
			{ "fp_steer_meta", bpf_map__fd(skel->maps.fp_steer_meta) },
		};

		ret = fp_pipeline__add_stage(pl, &fp_stage_steer, pins[0].fd, -1, -1, pins,
					     (int)(sizeof(pins) / sizeof(pins[0])), err, errlen);
	}
	if (!ret && fp_pipeline__is_test(pl))
		return fp_pipeline__keep(pl, "steer", skel, (void (*)(void *))steer_bpf__destroy);
	steer_bpf__destroy(skel); /* pinned (or failed): the fds may go */
	return ret;
}

int fp_steer__ensure(struct fp_pipeline *pl, bool *loaded, char *err, size_t errlen)
{
	int ret;

	*loaded = false;
	if (fp_pipeline__has_stage(pl, &fp_stage_steer))
		return 0;
	ret = steer_load(pl, err, errlen);
	if (ret == -EEXIST && fp_pipeline__has_stage(pl, &fp_stage_steer))
		return 0; /* another capture's load won */
	*loaded = ret == 0;
	return ret;
}

int fp_steer__fds(struct fp_pipeline *pl, struct fp_steer_fds *s, char *err, size_t errlen)
{
	struct steer_bpf *skel = fp_pipeline__kept(pl, "steer");
	static const char *const names[] = { "fp_steer_cfg", "fp_steer_xsk", "fp_steer_cnt" };
	int *fds[] = { &s->cfg_fd, &s->xsk_fd, &s->cnt_fd };
	__u32 abi = 0;
	int ret, mfd;

	for (size_t i = 0; i < 3; i++)
		*fds[i] = -1;
	if (skel) {
		s->cfg_fd = dup(bpf_map__fd(skel->maps.fp_steer_cfg));
		s->xsk_fd = dup(bpf_map__fd(skel->maps.fp_steer_xsk));
		s->cnt_fd = dup(bpf_map__fd(skel->maps.fp_steer_cnt));
		return 0;
	}
	/* never write a map of another layout: the meta's ABI first */
	ret = fp_pipeline__stage_pin(pl, &fp_stage_steer, "fp_steer_meta", &mfd);
	if (!ret) {
		ret = fp_read_abi(mfd, &abi);
		close(mfd);
	}
	if (!ret && abi != FP_STEER_ABI) {
		snprintf(err, errlen, "the steer stage on %s was loaded by another fastpath version "
			 "(steer ABI %u, this one reads %u): nothing changed; `fastpath pipeline "
			 "unload %s` and start again", fp_pipeline__ifname(pl), abi, FP_STEER_ABI,
			 fp_pipeline__ifname(pl));
		return -EPROTO;
	}
	for (size_t i = 0; i < 3 && !ret; i++)
		ret = fp_pipeline__stage_pin(pl, &fp_stage_steer, names[i], fds[i]);
	if (ret) {
		snprintf(err, errlen, "the steer stage's pins on %s are missing (%s): "
			 "`fastpath pipeline unload %s` and start again", fp_pipeline__ifname(pl),
			 strerror(-ret), fp_pipeline__ifname(pl));
		fp_steer_fds__close(s);
	}
	return ret;
}

void fp_steer_fds__close(struct fp_steer_fds *s)
{
	int *fds[] = { &s->cfg_fd, &s->xsk_fd, &s->cnt_fd };

	for (size_t i = 0; i < 3; i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* Every queue's counts: in, passed on (no match, no socket), redirected. */
static int steer_counters(const char *dir, struct fp_stage_counts *c)
{
	struct fp_steer_fds s = { -1, -1, -1 };
	char path[PATH_MAX + 16];
	int ret = 0;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/fp_steer_cnt", dir);
	s.cnt_fd = bpf_obj_get(path);
	if (s.cnt_fd < 0)
		return -errno;
	for (__u32 q = 0; q < FP_STEER_QUEUES && !ret; q++) {
		struct fp_steer_counts k;

		ret = fp_steer__counts(&s, q, &k);
		c->in += k.redirected + k.no_socket + k.unmatched;
		c->out[XDP_PASS] += k.no_socket + k.unmatched;
		c->out[XDP_REDIRECT] += k.redirected;
	}
	c->have = ret == 0;
	close(s.cnt_fd);
	return ret;
}

const struct fp_stage_ops fp_stage_steer = {
	.name = "steer",
	.slot = FP_STAGE_STEER,
	.abi = FP_STEER_ABI,
	.meta_pin = "fp_steer_meta",
	.prog_pin = "fp_steer",
	.load_cmd = "fastpath capture %s --match TERMS -w FILE",
	.pipeline_loads = false, /* the first capture loads it */
	.load = steer_load,
	.counters = steer_counters,
};
