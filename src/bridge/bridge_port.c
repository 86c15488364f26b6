// SPDX-License-Identifier: BSD-2-Clause
/*
 * Member ports: `bridge add` loads the bridge stage on the port's pipeline
 * (loading the pipeline if there is none, as the filter's load does) with
 * the bridge's shared maps handed to its object, and then enters the port
 * in them; `bridge del` removes the stage, whose unloading hook
 * (bridge_stage.c) takes the port out of the bridge's maps; `bridge
 * destroy` does that for every member, then removes the bridge's pins.
 * Pins of a port: ROOT/IFACE/bridge/{fp_bridge, fp_br_stats, fp_br_meta,
 * fp_bridge_out (its egress program, in its DEVMAP entry on VLAN-aware bridges)}.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bridge/bridge_internal.h"
#include "pipeline/pipeline_internal.h"
#include "bridge.skel.h"

int fp_bridge__of_port(const char *root, const char *ifname, char *bridge, size_t len)
{
	char path[PATH_MAX + 64];
	struct fp_br_meta meta;
	__u32 zero = 0, abi = 0;
	int fd, ret = 0;

	bridge[0] = 0;
	snprintf(path, sizeof(path), "%s/%s/%s", root, ifname, fp_stage_bridge.name);
	if (access(path, F_OK))
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s/%s/fp_br_meta", root, ifname, fp_stage_bridge.name);
	fd = bpf_obj_get(path);
	if (fd < 0) {
		snprintf(bridge, len, "?");
		return -EIO;
	}
	memset(&meta, 0, sizeof(meta));
	if (fp_read_abi(fd, &abi) || abi != FP_BRIDGE_ABI ||
	    bpf_map_lookup_elem(fd, &zero, &meta)) {
		snprintf(bridge, len, "?");
		ret = -EPROTO;
	} else {
		snprintf(bridge, len, "%.*s", FP_BRIDGE_NAME_MAX, meta.bridge);
	}
	close(fd);
	return ret;
}

static int port_mac(const char *ifname, __u8 mac[6])
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (s < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(s, SIOCGIFHWADDR, &ifr))
		ret = -errno;
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(s);
	return ret;
}

static __u64 realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Loads the stage's object on pl with the bridge's maps in it. */
static int load_object(struct fp_pipeline *pl, const struct fp_bridge *b, __u32 ifindex,
		       struct bridge_bpf **out, char *err, size_t errlen)
{
	struct fp_br_meta meta = { .abi_version = FP_BRIDGE_ABI, .ifindex = ifindex,
				   .added_ns = realtime_ns() };
	struct bridge_bpf *skel = bridge_bpf__open();
	__u32 zero = 0;
	int ret;

	*out = NULL;
	if (!skel)
		return -errno;
	skel->rodata->slot = FP_STAGE_BRIDGE;
	ret = fp_pipeline__reuse_maps(pl, skel->obj);
	for (int i = 0; !ret && i < BR_MAPS; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(skel->obj, fp_br_map_names[i]);

		ret = m ? bpf_map__reuse_fd(m, b->fd[i]) : -ENOENT;
	}
	if (!ret)
		ret = bridge_bpf__load(skel);
	snprintf(meta.bridge, sizeof(meta.bridge), "%s", b->name);
	if (!ret && bpf_map_update_elem(bpf_map__fd(skel->maps.fp_br_meta), &zero, &meta, 0))
		ret = -errno;
	if (ret) {
		snprintf(err, errlen, "loading the bridge stage failed: %s (FASTPATH_DEBUG=1 shows "
			 "the verifier log)", strerror(-ret));
		bridge_bpf__destroy(skel);
		return ret;
	}
	*out = skel;
	return 0;
}

/* Enters the port in the bridge's maps: its info and host address first,
 * the port map last (from then on frames are switched to it). */
static int enter_port(const struct fp_bridge *b, const char *ifname, __u32 ifindex,
		      const struct fp_bridge_port_opts *o, int out_fd, char *err,
		      size_t errlen)
{
	struct fp_br_port p = { .ifindex = ifindex, .pvid = o && o->pvid ? o->pvid : 1,
				.flags = o && o->tagged ? FP_BR_PORT_TAGGED : 0,
				.flood_limit = o ? o->flood_limit : 0, .added_ns = realtime_ns(),
				.learn_limit = o && o->have_learn_limit ? o->learn_limit :
					       FP_BR_LEARN_LIMIT_DEFAULT };
	struct fp_br_learn zero_count = { 0 };
	__u32 slot, zero_key = 0;
	struct bpf_devmap_val dv = { .ifindex = ifindex };
	struct fp_br_key hk = { .vlan = 0 };
	int ret;

	struct fp_br_cfg cfg;

	snprintf(p.ifname, sizeof(p.ifname), "%s", ifname);
	ret = fp_bridge__config(b, &cfg);
	if (ret)
		return ret;
	if (cfg.flags & FP_BR_VLAN_AWARE) {
		/* every switched frame is tagged: its port's program pops or drops */
		dv.bpf_prog.fd = out_fd;
		if (o && o->have_vlans)
			memcpy(p.vlans, o->vlans, sizeof(p.vlans));
		p.vlans[p.pvid >> 6] |= 1ull << (p.pvid & 63);
	} else if (o && (o->pvid || o->tagged || o->have_vlans)) {
		snprintf(err, errlen, "bridge %s is not VLAN-aware: --pvid, --vlans and --tagged "
			 "need a bridge made with --vlan-aware", b->name);
		return -EINVAL;
	}
	ret = port_mac(ifname, p.mac);
	if (ret) {
		snprintf(err, errlen, "reading %s's address failed: %s", ifname, strerror(-ret));
		return ret;
	}
	memcpy(hk.mac, p.mac, 6);
	/* the host address's bit before the address (never one without it) */
	cfg.host_bits |= fp_br_host_bit(p.mac);
	if (bpf_map_update_elem(b->fd[BR_CFG], &zero_key, &cfg, 0)) {
		ret = -errno;
		snprintf(err, errlen, "updating bridge %s's config failed: %s", b->name,
			 strerror(-ret));
		return ret;
	}
	/* its count starts at zero (under the root lock: no other add picks
	 * the same slot); no entry is behind the port yet */
	p.slot = fp_bridge__free_slot(b);
	if (!p.slot) {
		snprintf(err, errlen, "bridge %s has no free port slot (at most %d ports)", b->name,
			 FP_BR_PORTS_MAX);
		return -E2BIG;
	}
	slot = p.slot;
	if (bpf_map_update_elem(b->fd[BR_LEARN], &slot, &zero_count, 0) ||
	    bpf_map_update_elem(b->fd[BR_PINFO], &ifindex, &p, 0) ||
	    bpf_map_update_elem(b->fd[BR_HOST], &hk, &ifindex, 0) ||
	    bpf_map_update_elem(b->fd[BR_PORTS], &ifindex, &dv, 0)) {
		ret = -errno;
		snprintf(err, errlen, "entering %s in bridge %s failed: %s%s", ifname, b->name,
			 strerror(-ret), ret == -E2BIG ? " (a bridge has at most 256 ports)" : "");
		return ret;
	}
	return 0;
}

int fp_bridge__add_port(const char *name, const char *ifname,
			const struct fp_bridge_port_opts *o, char *err, size_t errlen)
{
	const char *bpffs = o ? o->bpffs : NULL, *root = fp_bpffs_root(bpffs);
	struct fp_pipeline_opts po = { .bpffs = bpffs, .skb_mode = o && o->skb_mode };
	struct bridge_bpf *skel = NULL;
	struct fp_pipeline *pl = NULL;
	struct fp_bridge *b = NULL;
	char cur[32];
	bool created = false, staged = false;
	__u32 ifindex;
	int ret;

	ret = fp_bridge__check_name(name, err, errlen);
	if (ret)
		return ret;
	ifindex = if_nametoindex(ifname);
	if (!ifindex) {
		snprintf(err, errlen, "no interface '%s' (see `ip link`)", ifname);
		return -ENODEV;
	}
	ret = fp_bridge__open_root(root, name, &b, err, errlen);
	if (ret)
		return ret;
	/* the cheap refusal first, before the verifier's work */
	if (fp_bridge__of_port(root, ifname, cur, sizeof(cur)) != -ENOENT) {
		snprintf(err, errlen, "%s is a port of bridge %s already; `fastpath bridge del %s "
			 "%s` first", ifname, cur, cur, ifname);
		ret = -EEXIST;
		goto out;
	}
	ret = fp_pipeline__open_or_load(ifname, &po, &pl, &created, err, errlen);
	if (ret)
		goto out;
	/* one add at a time: the membership checked again under the lock */
	ret = fp_pipeline__lock(pl, err, errlen);
	if (ret)
		goto out;
	if (fp_bridge__of_port(root, ifname, cur, sizeof(cur)) != -ENOENT) {
		snprintf(err, errlen, "%s is a port of bridge %s already", ifname, cur);
		ret = -EEXIST;
		goto out;
	}
	if (access(b->dir, F_OK)) {
		snprintf(err, errlen, "bridge %s was destroyed meanwhile", name);
		ret = -ENOENT;
		goto out;
	}
	ret = load_object(pl, b, ifindex, &skel, err, errlen);
	if (ret)
		goto out;
	{
		struct fp_stage_pin pins[] = {
			{ "fp_bridge", bpf_program__fd(skel->progs.fp_bridge) },
			{ "fp_br_stats", bpf_map__fd(skel->maps.fp_br_stats) },
			{ "fp_br_meta", bpf_map__fd(skel->maps.fp_br_meta) },
			{ "fp_bridge_out", bpf_program__fd(skel->progs.fp_bridge_out) },
		};

		ret = fp_pipeline__add_stage(pl, &fp_stage_bridge, pins[0].fd, -1, -1, pins,
					     (int)(sizeof(pins) / sizeof(pins[0])), err, errlen);
	}
	staged = ret == 0;
	if (!ret)
		ret = enter_port(b, ifname, ifindex, o, bpf_program__fd(skel->progs.fp_bridge_out),
				 err, errlen);
out:
	if (pl)
		fp_pipeline__unlock(pl);
	if (ret && staged) {
		char e2[256];
		bool gone;

		/* nothing half-applied: the stage goes (its hook forgets the port) */
		fp_pipeline__remove_stage(ifname, bpffs, &fp_stage_bridge, &gone, NULL, e2,
					  sizeof(e2));
		created = false; /* remove_stage took the pipeline it made */
	}
	bridge_bpf__destroy(skel); /* pinned: the kernel keeps it */
	fp_pipeline__close(pl);
	fp_bridge__close(b);
	if (ret && created)
		fp_pipeline__unload_if_empty(ifname, bpffs);
	return ret;
}

int fp_bridge__del_port(const char *bpffs, const char *name, const char *ifname,
			bool *pipeline_gone, char *err, size_t errlen)
{
	const char *root = fp_bpffs_root(bpffs);
	char cur[32];
	int ret;

	*pipeline_gone = false;
	ret = fp_bridge__check_name(name, err, errlen);
	if (ret)
		return ret;
	ret = fp_bridge__of_port(root, ifname, cur, sizeof(cur));
	if (ret == -ENOENT || (ret == 0 && strcmp(cur, name))) {
		if (ret == -ENOENT)
			snprintf(err, errlen, "%s is not a port of bridge %s (`fastpath bridge show "
				 "%s`)", ifname, name, name);
		else
			snprintf(err, errlen, "%s is a port of bridge %s, not of %s", ifname, cur,
				 name);
		return -ENOENT;
	}
	return fp_pipeline__remove_stage(ifname, bpffs, &fp_stage_bridge, pipeline_gone, NULL,
					 err, errlen);
}

int fp_bridge__destroy(const char *bpffs, const char *name, int *n_ports, char *err,
		       size_t errlen)
{
	const char *root = fp_bpffs_root(bpffs);
	struct fp_br_port *ports = calloc(FP_BR_PORTS_MAX, sizeof(*ports));
	struct fp_bridge *b = NULL;
	char top[PATH_MAX];
	int n, ret, lock;

	*n_ports = 0;
	if (!ports)
		return -ENOMEM;
	ret = fp_bridge__open_root(root, name, &b, err, errlen);
	if (ret)
		goto out;
	n = fp_bridge__ports(b, ports, FP_BR_PORTS_MAX);
	for (int i = 0; i < n && i < FP_BR_PORTS_MAX; i++) {
		char ifname[IF_NAMESIZE], cur[32];
		bool gone;

		/* by its name now (renamed since), else the name it was added by */
		if (!if_indextoname(ports[i].ifindex, ifname))
			snprintf(ifname, sizeof(ifname), "%.*s", IF_NAMESIZE - 1, ports[i].ifname);
		if (fp_bridge__of_port(root, ifname, cur, sizeof(cur)) == 0 && !strcmp(cur, name)) {
			ret = fp_pipeline__remove_stage(ifname, bpffs, &fp_stage_bridge, &gone, NULL,
							err, errlen);
			if (ret)
				goto out;
		}
		fp_bridge__forget_port(b, ports[i].ifindex); /* also a port whose pins went */
		(*n_ports)++;
	}
	lock = fp_root_lock(root, err, errlen);
	if (lock < 0) {
		ret = lock;
		goto out;
	}
	if (fp_bridge__ports(b, ports, 0) > 0) {
		snprintf(err, errlen, "a port was added to bridge %s meanwhile; destroy it again",
			 name);
		ret = -EBUSY;
	} else {
		ret = fp_unpin_tree(b->dir, NULL, err, errlen);
		snprintf(top, sizeof(top), "%s/%s", root, FP_BRIDGE_SHARED_DIR);
		rmdir(top); /* only when empty */
	}
	close(lock);
out:
	fp_bridge__close(b);
	free(ports);
	return ret;
}
