// SPDX-License-Identifier: BSD-2-Clause
/*
 * A bridge's own pins, ROOT/shared/bridge:NAME/: made by `bridge create`, read
 * and edited by `bridge fdb|show`, removed by `bridge destroy`. The maps
 * are made here with the layouts of bridge.bpf.c's definitions (the same
 * types and sizes from bridge_abi.h), so each member's stage object can
 * take them over (bpf_map__reuse_fd) before its load.
 */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bridge/bridge_internal.h"
#include "pipeline/pipeline_internal.h"

const char *const fp_br_map_names[BR_MAPS] = {
	"fp_br_fdb", "fp_br_ports", "fp_br_pinfo", "fp_br_host", "fp_br_cfg", "fp_br_learn",
};

static const struct {
	enum bpf_map_type type;
	__u32 key, value, max, flags;
} br_map_spec[BR_MAPS] = {
	[BR_FDB] = { BPF_MAP_TYPE_HASH, sizeof(struct fp_br_key), sizeof(struct fp_br_fdb),
		     FP_BR_FDB_MAX },
	[BR_PORTS] = { BPF_MAP_TYPE_DEVMAP_HASH, sizeof(__u32), sizeof(struct bpf_devmap_val),
		       FP_BR_PORTS_MAX },
	[BR_PINFO] = { BPF_MAP_TYPE_HASH, sizeof(__u32), sizeof(struct fp_br_port),
		       FP_BR_PORTS_MAX },
	[BR_HOST] = { BPF_MAP_TYPE_HASH, sizeof(struct fp_br_key), sizeof(__u32),
		      FP_BR_HOST_MAX },
	[BR_CFG] = { BPF_MAP_TYPE_ARRAY, sizeof(__u32), sizeof(struct fp_br_cfg), 1 },
	[BR_LEARN] = { BPF_MAP_TYPE_ARRAY, sizeof(__u32), sizeof(struct fp_br_learn),
		       FP_BR_PORTS_MAX + 1, BPF_F_MMAPABLE },
};

int fp_bridge__check_name(const char *name, char *err, size_t errlen)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-')) {
			snprintf(err, errlen, "bridge name '%s': letters, digits, '_' and '-' only "
				 "(not '%c' at %zu)", name, c, i + 1);
			return -EINVAL;
		}
	}
	if (n < 1 || n > FP_BRIDGE_NAME_MAX) {
		snprintf(err, errlen, "bridge name '%s': 1 to %d characters", name,
			 FP_BRIDGE_NAME_MAX);
		return -EINVAL;
	}
	return 0;
}

int fp_bridge__dir(const char *root, const char *name, char *dir, size_t len)
{
	if (snprintf(dir, len, "%s/%s/%s%s", root, FP_BRIDGE_SHARED_DIR, FP_BRIDGE_DIR_PREFIX,
		     name) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

static __u64 realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int fp_bridge__create(const char *name, const struct fp_bridge_opts *o, char *err,
		      size_t errlen)
{
	const char *root = fp_bpffs_root(o ? o->bpffs : NULL);
	struct fp_br_cfg cfg = { .abi_version = FP_BRIDGE_ABI };
	char dir[PATH_MAX], path[PATH_MAX + 32], top[PATH_MAX] = "";
	int fd[BR_MAPS], lock = -1, ret;
	__u32 zero = 0;

	for (int i = 0; i < BR_MAPS; i++)
		fd[i] = -1;
	ret = fp_bridge__check_name(name, err, errlen);
	if (ret)
		return ret;
	ret = fp_mkdirs(root);
	if (ret) {
		snprintf(err, errlen, "cannot create %s: %s (is a bpffs mounted? "
			 "`mount -t bpf bpf /sys/fs/bpf`)", root, strerror(-ret));
		return ret;
	}
	fp_bridge__dir(root, name, dir, sizeof(dir));
	lock = fp_root_lock(root, err, errlen);
	if (lock < 0)
		return lock;
	snprintf(top, sizeof(top), "%s/%s", root, FP_BRIDGE_SHARED_DIR);
	snprintf(path, sizeof(path), "%s/fp_meta", top);
	if (access(path, F_OK) == 0) {
		snprintf(err, errlen, "%s holds the pins of an interface named %s: bridges "
			 "cannot be kept in this pin root (--bpffs)", top, FP_BRIDGE_SHARED_DIR);
		ret = -EEXIST;
		goto out;
	}
	if (mkdir(top, 0700) && errno != EEXIST) {
		ret = -errno;
		snprintf(err, errlen, "cannot create %s: %s", top, strerror(-ret));
		goto out;
	}
	if (mkdir(dir, 0700)) {
		ret = -errno;
		if (ret == -EEXIST)
			snprintf(err, errlen, "bridge %s exists already (`fastpath bridge show %s`)",
				 name, name);
		else
			snprintf(err, errlen, "cannot create %s: %s", dir, strerror(-ret));
		goto out;
	}
	cfg.flags = o && o->vlan_aware ? FP_BR_VLAN_AWARE : 0;
	cfg.ageing_ns = (__u64)(o && o->ageing_s ? o->ageing_s : FP_BR_AGEING_DEFAULT_S) *
			1000000000ull;
	cfg.created_ns = realtime_ns();
	snprintf(cfg.name, sizeof(cfg.name), "%s", name);
	for (int i = 0; i < BR_MAPS && !ret; i++) {
		LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = br_map_spec[i].flags);

		fd[i] = bpf_map_create(br_map_spec[i].type, fp_br_map_names[i], br_map_spec[i].key,
				       br_map_spec[i].value, br_map_spec[i].max, &mo);
		if (fd[i] < 0) {
			ret = -errno;
			snprintf(err, errlen, "creating the bridge's %s failed: %s",
				 fp_br_map_names[i], strerror(-ret));
		}
	}
	if (o && o->have_address)
		cfg.host_bits |= fp_br_host_bit(o->address);
	if (!ret && bpf_map_update_elem(fd[BR_CFG], &zero, &cfg, 0))
		ret = -errno;
	if (!ret && o && o->have_address) {
		struct fp_br_key k = { .vlan = 0 };
		__u32 none = 0;

		memcpy(k.mac, o->address, 6);
		if (bpf_map_update_elem(fd[BR_HOST], &k, &none, 0))
			ret = -errno;
	}
	for (int i = 0; i < BR_MAPS && !ret; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, fp_br_map_names[i]);
		if (bpf_obj_pin(fd[i], path)) {
			ret = -errno;
			snprintf(err, errlen, "pinning %s failed: %s", path, strerror(-ret));
		} else {
			chmod(path, 0600);
		}
	}
	if (ret && !err[0])
		snprintf(err, errlen, "creating bridge %s failed: %s", name, strerror(-ret));
	if (ret)
		fp_unpin_tree(dir, NULL, NULL, 0); /* nothing half-made stays */
out:
	if (ret)
		rmdir(top); /* only when empty */
	for (int i = 0; i < BR_MAPS; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	close(lock);
	return ret;
}

int fp_bridge__open_root(const char *root, const char *name, struct fp_bridge **out,
			 char *err, size_t errlen)
{
	struct fp_bridge *b;
	char path[PATH_MAX + 32];
	__u32 abi = 0;
	int ret;

	*out = NULL;
	ret = fp_bridge__check_name(name, err, errlen);
	if (ret)
		return ret;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	for (int i = 0; i < BR_MAPS; i++)
		b->fd[i] = -1;
	snprintf(b->root, sizeof(b->root), "%s", root);
	snprintf(b->name, sizeof(b->name), "%s", name);
	fp_bridge__dir(root, name, b->dir, sizeof(b->dir));
	if (access(b->dir, F_OK)) {
		ret = -errno;
		if (ret == -ENOENT)
			snprintf(err, errlen, "no bridge %s (`fastpath bridge create %s` makes it)",
				 name, name);
		else
			snprintf(err, errlen, "cannot read %s: %s", b->dir, strerror(-ret));
		goto fail;
	}
	for (int i = 0; i < BR_MAPS; i++) {
		snprintf(path, sizeof(path), "%s/%s", b->dir, fp_br_map_names[i]);
		b->fd[i] = bpf_obj_get(path);
		if (b->fd[i] < 0) {
			ret = -errno;
			snprintf(err, errlen, "bridge %s is incomplete (%s: %s); `fastpath bridge "
				 "destroy %s` and create it again", name, path, strerror(-ret), name);
			goto fail;
		}
	}
	if (fp_read_abi(b->fd[BR_CFG], &abi) || abi != FP_BRIDGE_ABI) {
		snprintf(err, errlen, "bridge %s was made by another fastpath version (bridge ABI "
			 "%u, this one reads %u): nothing changed; destroy and create it again",
			 name, abi, FP_BRIDGE_ABI);
		ret = -EPROTO;
		goto fail;
	}
	/* the learned counts, which the stage changes atomically: so must we */
	b->learn_len = sizeof(struct fp_br_learn) * (FP_BR_PORTS_MAX + 1);
	b->learn = mmap(NULL, b->learn_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			b->fd[BR_LEARN], 0);
	if (b->learn == MAP_FAILED) {
		ret = -errno;
		b->learn = NULL;
		snprintf(err, errlen, "cannot map bridge %s's learned counts: %s", name,
			 strerror(-ret));
		goto fail;
	}
	*out = b;
	return 0;
fail:
	fp_bridge__close(b);
	return ret;
}

int fp_bridge__open(const char *bpffs, const char *name, struct fp_bridge **out, char *err,
		    size_t errlen)
{
	return fp_bridge__open_root(fp_bpffs_root(bpffs), name, out, err, errlen);
}

void fp_bridge__close(struct fp_bridge *b)
{
	if (!b)
		return;
	if (b->learn)
		munmap(b->learn, b->learn_len);
	for (int i = 0; i < BR_MAPS; i++)
		if (b->fd[i] >= 0)
			close(b->fd[i]);
	free(b);
}

const char *fp_bridge__root(const struct fp_bridge *b)
{
	return b->root;
}

int fp_bridge__config(const struct fp_bridge *b, struct fp_br_cfg *cfg)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(b->fd[BR_CFG], &zero, cfg) ? -errno : 0;
}

int fp_bridge__ports(const struct fp_bridge *b, struct fp_br_port *ports, int max)
{
	__u32 key, next, *prev = NULL;
	int n = 0;

	while (bpf_map_get_next_key(b->fd[BR_PINFO], prev, &next) == 0) {
		key = next;
		prev = &key;
		if (n < max && bpf_map_lookup_elem(b->fd[BR_PINFO], &key, &ports[n]))
			continue;
		n++;
	}
	return n;
}

int fp_bridge__port_stats(const struct fp_bridge *b, const char *ifname,
			  struct fp_br_stats *sum)
{
	int ncpu = libbpf_num_possible_cpus(), fd, ret = 0;
	char path[PATH_MAX + 64];
	struct fp_br_stats *v;
	__u32 zero = 0;

	memset(sum, 0, sizeof(*sum));
	snprintf(path, sizeof(path), "%s/%s/%s/fp_br_stats", b->root, ifname,
		 fp_stage_bridge.name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	v = calloc(ncpu > 0 ? ncpu : 1, sizeof(*v));
	if (!v || ncpu <= 0)
		ret = -ENOMEM;
	else if (bpf_map_lookup_elem(fd, &zero, v))
		ret = -errno;
	for (int c = 0; !ret && c < ncpu; c++)
		for (int i = 0; i < FP_BR_ST_MAX; i++)
			sum->n[i] += v[c].n[i];
	free(v);
	close(fd);
	return ret;
}

int fp_bridge__learned(const struct fp_bridge *b, const struct fp_br_port *p)
{
	if (!p->slot || p->slot > FP_BR_PORTS_MAX)
		return -ENOENT;
	return (int)__atomic_load_n(&b->learn[p->slot].learned, __ATOMIC_RELAXED);
}

__u16 fp_bridge__free_slot(const struct fp_bridge *b)
{
	struct fp_br_port *ports = calloc(FP_BR_PORTS_MAX, sizeof(*ports));
	bool used[FP_BR_PORTS_MAX + 1] = { true }; /* 0 is the bridge's */
	int n;

	if (!ports)
		return 0;
	n = fp_bridge__ports(b, ports, FP_BR_PORTS_MAX);
	for (int i = 0; i < n && i < FP_BR_PORTS_MAX; i++)
		if (ports[i].slot <= FP_BR_PORTS_MAX)
			used[ports[i].slot] = true;
	free(ports);
	for (__u16 s = 1; s <= FP_BR_PORTS_MAX; s++)
		if (!used[s])
			return s;
	return 0;
}

int fp_bridge__list(const char *root, char (*names)[16], int max)
{
	size_t plen = strlen(FP_BRIDGE_DIR_PREFIX);
	char top[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(top, sizeof(top), "%s/%s", root, FP_BRIDGE_SHARED_DIR);
	d = opendir(top);

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, FP_BRIDGE_DIR_PREFIX, plen) || !e->d_name[plen])
			continue;
		if (n < max)
			snprintf(names[n], 16, "%s", e->d_name + plen);
		n++;
	}
	closedir(d);
	return n;
}
