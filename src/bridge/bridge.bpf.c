// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The bridge stage (slot 4): a layer-2 switch between the member ports of
 * one bridge, on a learned MAC table and XDP_REDIRECT. Every frame teaches
 * the FDB its source MAC's port; its destination decides:
 *   a host address (a member's MAC, a bridge address)  XDP_PASS, on down the chain
 *   broadcast, multicast, unknown (or aged) unicast  flooded: DEVMAP broadcast,
 *                                                    the ingress port excluded
 *   known, on another member port                    redirected to that port
 *   known, on the port it came in on                 dropped (hairpin)
 *   known, its port no longer a member               passed
 * The FDB, the port map, the host addresses and the config are the
 * bridge's (shared by its members, pinned under ROOT/shared/bridge:NAME); the
 * counters are this port's own. An entry older than the ageing time is
 * removed here when it is looked up as a destination, by the sweep of the
 * whole table (at most once a second, when a port is at its learning limit
 * or the table is full), and by `bridge fdb`, which shows only live
 * entries and removes the others.
 *
 * Learning is bounded per port: each port's learned entries are counted
 * (fp_br_learn, at the port's slot) and a new source past its learn_limit
 * is not learned (learn_limited), so a MAC flood from one port fills its
 * own share of the table and no more; the table is a plain hash, which
 * never evicts (see bridge_abi.h for why not an LRU).
 *
 * VLAN-aware bridges: a frame's VLAN is its tag's VID or the ingress
 * port's PVID; the FDB is keyed by MAC and VLAN; an untagged frame gets its
 * PVID's tag pushed before it is sent on, so every switched frame is
 * tagged, and each port's egress program (fp_bridge_out, run by the DEVMAP
 * for that port, also in a flood) drops a VLAN the port does not allow and
 * pops the tag on an untagged port. Frames for the host pass unchanged.
 */
#include <linux/bpf.h>
#include <linux/errno.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "pipeline.h"
#include <fastpath/bridge_abi.h>

const volatile __u32 slot = FP_STAGE_BRIDGE;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FP_BR_FDB_MAX);
	__type(key, struct fp_br_key);
	__type(value, struct fp_br_fdb);
} fp_br_fdb SEC(".maps");

/* ifindex -> the port (struct bpf_devmap_val: room for an egress program) */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, FP_BR_PORTS_MAX);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} fp_br_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FP_BR_PORTS_MAX);
	__type(key, __u32);
	__type(value, struct fp_br_port);
} fp_br_pinfo SEC(".maps");

/* [0] the bridge's last sweep, [slot] a port's count of learned entries */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FP_BR_PORTS_MAX + 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct fp_br_learn);
} fp_br_learn SEC(".maps");

/* host addresses (vlan 0) -> the port whose MAC it is (0: a bridge address) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FP_BR_HOST_MAX);
	__type(key, struct fp_br_key);
	__type(value, __u32);
} fp_br_host SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_br_cfg);
} fp_br_cfg SEC(".maps");

/* this port's own */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_br_stats);
} fp_br_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_br_meta);
} fp_br_meta SEC(".maps");

/*
 * This CPU's last source whose FDB entry was found right (on its ingress
 * port, fresh), and until when to trust that without a lookup: a stream
 * of frames from one station then reads the FDB once every half second
 * for its source instead of on every frame. The price: an entry changed
 * meanwhile by another CPU or by `bridge fdb del` (moved away and back,
 * removed) is corrected by this CPU's frames up to half a second later.
 *
 * And this CPU's last destination found in the FDB, with the FDB's
 * generation then (fp_br_learn[0].gen, which every removal and move of an
 * entry bumps, here and in the CLI): while the generation is the same, the
 * entry not due to age and the half second not over, the next frame to it
 * takes its port from here, without the FDB's hash lookup. Exact: a move
 * or a removal is seen by the next frame (a new entry or a refreshed time
 * changes no port a frame would take).
 */
struct br_last {
	__u8  mac[6];
	__u16 vlan;
	__u32 in;
	__u32 dst_gen;
	__u64 until;
	__u8  dst_mac[6];
	__u16 dst_vlan;
	__u32 dst_out;
	__u32 dst_static;
	__u32 pad;
	__u64 dst_seen;        /* the entry's time when it was looked up */
	__u64 dst_until;
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct br_last);
} fp_br_last SEC(".maps");
#define FP_BR_LAST_NS (FP_BR_REFRESH_NS / 2)

/* this port's storm control (one for all CPUs: the limit is the port's) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_br_storm);
} fp_br_storm SEC(".maps");

static __always_inline void count(struct fp_br_stats *st, __u32 i)
{
	if (st && i < FP_BR_ST_MAX)
		st->n[i]++;
}

static __always_inline void copy_mac(__u8 *to, const __u8 *from)
{
	__builtin_memcpy(to, from, ETH_ALEN);
}

/* The learned-entry count of port ifindex (NULL: not a member). */
static __always_inline struct fp_br_learn *port_count(__u32 ifindex, struct fp_br_port **pp)
{
	struct fp_br_port *p = bpf_map_lookup_elem(&fp_br_pinfo, &ifindex);
	__u32 slot;

	if (!p || !p->slot)
		return NULL;
	slot = p->slot;
	*pp = p;
	return bpf_map_lookup_elem(&fp_br_learn, &slot);
}

/* An entry was removed or moved: the FDB's generation changes, so every
 * CPU's remembered destination is looked up again. */
static __always_inline void fdb_changed(void)
{
	__u32 zero = 0;
	struct fp_br_learn *b = bpf_map_lookup_elem(&fp_br_learn, &zero);

	if (b)
		__sync_fetch_and_add(&b->gen, 1);
}

/* One learned entry of port `owner` is gone (or moved): off its count. */
static __always_inline void unlearned(__u32 owner)
{
	struct fp_br_port *p;
	struct fp_br_learn *l;

	fdb_changed();
	l = port_count(owner, &p);

	if (l && l->learned)
		__sync_fetch_and_add(&l->learned, -1);
}

/* Whether an entry seen at seen_ns is older than the ageing time (one
 * refreshed by another CPU since `now` was read is not). */
static __always_inline int aged(__u64 seen_ns, __u64 now, __u64 ageing_ns)
{
	return seen_ns < now && now - seen_ns > ageing_ns;
}

struct sweep_ctx {
	__u64 now, ageing_ns;
	__u64 removed;
};

static long sweep_one(void *map, struct fp_br_key *k, struct fp_br_fdb *e, struct sweep_ctx *c)
{
	__u32 owner = e->ifindex;

	if (!(e->flags & FP_BR_FDB_STATIC) && aged(e->seen_ns, c->now, c->ageing_ns) &&
	    bpf_map_delete_elem(map, k) == 0) {
		unlearned(owner);
		c->removed++;
	}
	return 0;
}

/*
 * Removes the aged learned entries of the whole table, at most once a
 * second for the bridge (one CPU wins the time's swap): run only when a
 * port is at its limit or the table is full, so that stations gone quiet
 * give their port's share back without a daemon. It walks every bucket
 * (~1 ms for 65536) in the frame that found the limit.
 */
static __always_inline void sweep(__u64 now, const struct fp_br_cfg *cfg, struct fp_br_stats *st)
{
	struct sweep_ctx c = { .now = now, .ageing_ns = cfg->ageing_ns };
	struct fp_br_learn *b;
	__u32 zero = 0;
	__u64 last;

	b = bpf_map_lookup_elem(&fp_br_learn, &zero);
	if (!b)
		return;
	last = b->swept_ns;
	if (now - last < FP_BR_SWEEP_NS ||
	    __sync_val_compare_and_swap(&b->swept_ns, last, now) != last)
		return;
	bpf_for_each_map_elem(&fp_br_fdb, sweep_one, &c, 0);
	if (st)
		st->n[FP_BR_ST_AGED] += c.removed;
}

/*
 * The source's port, learned or moved; its time refreshed at most once
 * a second (the known station's frame writes nothing else). Static
 * entries stay where they were put. A new entry, or one moved here, is
 * counted against the ingress port's learn_limit; past it the source is
 * not learned (its frames are still switched; answers to it are flooded).
 */
static __always_inline int learn_entry(const __u8 *src, __u16 vlan, __u32 in, __u64 now,
				       const struct fp_br_cfg *cfg, struct fp_br_stats *st);

/* learn_entry, unless this CPU found the same source right just now (c:
 * what it remembers). */
static __always_inline void learn(struct br_last *c, const __u8 *src, __u16 vlan, __u32 in,
				  __u64 now, const struct fp_br_cfg *cfg, struct fp_br_stats *st)
{
	if (c && now < c->until && c->in == in && c->vlan == vlan &&
	    *(__u32 *)c->mac == *(const __u32 *)src &&
	    *(__u16 *)(c->mac + 4) == *(const __u16 *)(src + 4))
		return;
	if (learn_entry(src, vlan, in, now, cfg, st) && c) {
		copy_mac(c->mac, src);
		c->vlan = vlan;
		c->in = in;
		c->until = now + FP_BR_LAST_NS;
	}
}

/* 1 when the source's entry is now right (on in, fresh), else 0. */
static __always_inline int learn_entry(const __u8 *src, __u16 vlan, __u32 in, __u64 now,
				       const struct fp_br_cfg *cfg, struct fp_br_stats *st)
{
	struct fp_br_key k = { .vlan = vlan };
	struct fp_br_fdb *e, v = { .ifindex = in, .seen_ns = now };
	struct fp_br_port *p = NULL;
	struct fp_br_learn *l;
	__u32 old = 0;
	long ret;

	copy_mac(k.mac, src);
	e = bpf_map_lookup_elem(&fp_br_fdb, &k);
	if (e) {
		if (e->flags & FP_BR_FDB_STATIC)
			return 0;
		old = e->ifindex;
		if (old == in) {
			if (now - e->seen_ns >= FP_BR_REFRESH_NS && now > e->seen_ns)
				e->seen_ns = now;
			return 1;
		}
	}
	l = port_count(in, &p);
	if (!l)
		return 0; /* not (yet) a member: nothing learned, nothing to count */
	if (p->learn_limit && l->learned >= p->learn_limit) {
		count(st, FP_BR_ST_LEARN_LIMITED);
		sweep(now, cfg, st);
		return 0;
	}
	if (e) {
		/* a move: one CPU wins it and moves the count */
		if (__sync_val_compare_and_swap(&e->ifindex, old, in) != old)
			return 0;
		e->seen_ns = now;
		__sync_fetch_and_add(&l->learned, 1);
		unlearned(old);
		count(st, FP_BR_ST_MOVED);
		return 1;
	}
	ret = bpf_map_update_elem(&fp_br_fdb, &k, &v, BPF_NOEXIST);
	if (ret == 0) {
		__sync_fetch_and_add(&l->learned, 1);
		count(st, FP_BR_ST_LEARNED);
		return 1;
	}
	if (ret == -E2BIG) {
		count(st, FP_BR_ST_LEARN_FULL);
		sweep(now, cfg, st);
	} /* -EEXIST: another CPU learned it just now */
	return 0;
}

/*
 * The destination's port (0: unknown, or aged: then removed): this CPU's
 * remembered one while nothing in the FDB changed (struct br_last), else
 * the FDB's. The generation is read before the FDB, so an entry moved
 * after that read is remembered under a generation already stale.
 */
static __always_inline __u32 dst_port(struct br_last *c, const struct fp_br_key *k, __u64 now,
				      const struct fp_br_cfg *cfg, struct fp_br_stats *st)
{
	struct fp_br_learn *b;
	struct fp_br_fdb *e;
	__u32 zero = 0, gen = 0, out;

	b = bpf_map_lookup_elem(&fp_br_learn, &zero);
	if (b)
		gen = *(volatile __u32 *)&b->gen;
	if (c && now < c->dst_until && b && c->dst_gen == gen && c->dst_vlan == k->vlan &&
	    *(__u32 *)c->dst_mac == *(const __u32 *)k->mac &&
	    *(__u16 *)(c->dst_mac + 4) == *(const __u16 *)(k->mac + 4) &&
	    (c->dst_static || !aged(c->dst_seen, now, cfg->ageing_ns)))
		return c->dst_out;
	e = bpf_map_lookup_elem(&fp_br_fdb, k);
	if (!e)
		return 0;
	out = e->ifindex;
	if (!(e->flags & FP_BR_FDB_STATIC) && aged(e->seen_ns, now, cfg->ageing_ns)) {
		if (bpf_map_delete_elem(&fp_br_fdb, k) == 0) {
			unlearned(out);
			count(st, FP_BR_ST_AGED);
		}
		return 0;
	}
	if (c && b) {
		copy_mac(c->dst_mac, k->mac);
		c->dst_vlan = k->vlan;
		c->dst_out = out;
		c->dst_gen = gen;
		c->dst_static = e->flags & FP_BR_FDB_STATIC;
		c->dst_seen = e->seen_ns;
		c->dst_until = now + FP_BR_LAST_NS;
	}
	return out;
}

/*
 * Storm control: whether a flood from port `in` is past its flood limit
 * (frames a second), as a GCRA: a frame passes while the next one's
 * theoretical arrival time is at most FP_BR_STORM_BURST_NS ahead. One
 * compare-and-swap; a CPU that loses the race lets its frame pass (the
 * overshoot is bounded by the CPUs).
 */
static __always_inline int flood_limited(__u32 in, __u64 now)
{
	struct fp_br_port *p = bpf_map_lookup_elem(&fp_br_pinfo, &in);
	struct fp_br_storm *s;
	__u64 interval, tat, start;
	__u32 zero = 0;

	if (!p || !p->flood_limit)
		return 0;
	s = bpf_map_lookup_elem(&fp_br_storm, &zero);
	if (!s)
		return 0;
	interval = 1000000000ull / p->flood_limit;
	tat = s->tat;
	start = tat > now ? tat : now;
	if (start - now > FP_BR_STORM_BURST_NS)
		return 1;
	__sync_val_compare_and_swap(&s->tat, tat, start + interval);
	return 0;
}

/* Pushes an 802.1Q tag of vid after the MACs; 0, or -1 if it cannot. */
static __always_inline int push_tag(struct xdp_md *ctx, __u16 vid)
{
	void *data, *end;
	__u8 macs[12];

	if (bpf_xdp_adjust_head(ctx, -4))
		return -1;
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	if (data + ETH_HLEN + 4 > end)
		return -1;
	__builtin_memcpy(macs, data + 4, 12);
	__builtin_memcpy(data, macs, 12);
	*(__be16 *)(data + 12) = bpf_htons(ETH_P_8021Q);
	*(__be16 *)(data + 14) = bpf_htons(vid);
	return 0;
}

/*
 * The egress half, run by the DEVMAP for the port it is the entry of
 * (only on VLAN-aware bridges): a switched frame is tagged; a VLAN the
 * port does not allow is dropped (counted as this port's), and the tag is
 * popped unless the port is tagged.
 */
SEC("xdp/devmap")
int fp_bridge_out(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct fp_br_port *p;
	__u32 out = ctx->egress_ifindex, zero = 0;
	__u16 vid;
	__u8 macs[12];

	if (data + ETH_HLEN + 4 > end || eth->h_proto != bpf_htons(ETH_P_8021Q))
		return XDP_PASS;
	p = bpf_map_lookup_elem(&fp_br_pinfo, &out);
	if (!p)
		return XDP_DROP;
	vid = bpf_ntohs(*(__be16 *)(data + 14)) & FP_BR_VID_MAX;
	if (!fp_br_vlan_allowed(p, vid)) {
		count(bpf_map_lookup_elem(&fp_br_stats, &zero), FP_BR_ST_DROP_VLAN_OUT);
		return XDP_DROP;
	}
	if (p->flags & FP_BR_PORT_TAGGED)
		return XDP_PASS;
	__builtin_memcpy(macs, data, 12);
	__builtin_memcpy(data + 4, macs, 12);
	if (bpf_xdp_adjust_head(ctx, 4))
		return XDP_DROP;
	return XDP_PASS;
}

SEC("xdp")
int fp_bridge(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct fp_pkt *pkt = fp_pkt_get();
	struct ethhdr *eth = data;
	struct fp_br_stats *st;
	struct fp_br_cfg *cfg;
	struct br_last *c;
	struct fp_br_key k = {};
	__u32 zero = 0, in = ctx->ingress_ifindex, out = 0, why, action;
	__u16 vid = 0, push = 0;
	__u64 now;

	if (!pkt)
		return XDP_ABORTED;
	st = bpf_map_lookup_elem(&fp_br_stats, &zero);
	cfg = bpf_map_lookup_elem(&fp_br_cfg, &zero);
	count(st, FP_BR_ST_IN);
	if ((void *)(eth + 1) > end) {
		why = FP_BR_ST_NOT_ETH;
		action = XDP_PASS;
		goto done;
	}
	if (!cfg || cfg->abi_version != FP_BRIDGE_ABI) {
		why = FP_BR_ST_DROP_NO_BRIDGE;
		action = XDP_DROP;
		goto done;
	}
	/* a multicast or all-zero source is no station's address */
	if ((eth->h_source[0] & 1) ||
	    !(eth->h_source[0] | eth->h_source[1] | eth->h_source[2] | eth->h_source[3] |
	      eth->h_source[4] | eth->h_source[5])) {
		why = FP_BR_ST_DROP_BAD_SRC;
		action = XDP_DROP;
		goto done;
	}
	if (cfg->flags & FP_BR_VLAN_AWARE) {
		struct fp_br_port *ip = bpf_map_lookup_elem(&fp_br_pinfo, &in);

		if (pkt->n_vlan && eth->h_proto == bpf_htons(ETH_P_8021Q)) {
			vid = pkt->vlan[0] & FP_BR_VID_MAX;
		} else if (ip) {
			vid = ip->pvid & FP_BR_VID_MAX;
			push = 1;
		}
		if (!ip || !vid || !fp_br_vlan_allowed(ip, vid)) {
			why = FP_BR_ST_DROP_VLAN;
			action = XDP_DROP;
			goto done;
		}
	}
	now = bpf_ktime_get_coarse_ns();
	c = bpf_map_lookup_elem(&fp_br_last, &zero);
	learn(c, eth->h_source, vid, in, now, cfg, st);
	if (eth->h_dest[0] & 1)
		goto flood;
	copy_mac(k.mac, eth->h_dest);
	/* host addresses are the host's in every VLAN */
	if ((cfg->host_bits & fp_br_host_bit(eth->h_dest)) &&
	    bpf_map_lookup_elem(&fp_br_host, &k)) {
		why = FP_BR_ST_HOST;
		action = XDP_PASS;
		goto done;
	}
	k.vlan = vid;
	out = dst_port(c, &k, now, cfg, st);
	if (!out)
		goto flood;
	if (out == in) {
		why = FP_BR_ST_DROP_HAIRPIN;
		action = XDP_DROP;
		goto done;
	}
	/* the tag goes on last, on a frame that is sent on (the parse stale) */
	if (push && !bpf_map_lookup_elem(&fp_br_pinfo, &out)) {
		why = FP_BR_ST_NOT_MEMBER;
		action = XDP_PASS;
		goto done;
	}
	if (push && push_tag(ctx, vid)) {
		why = FP_BR_ST_DROP_VLAN;
		action = XDP_DROP;
		goto done;
	}
	/* not in the port map (left the bridge): XDP_PASS, the flags' low bits */
	action = bpf_redirect_map(&fp_br_ports, out, push ? XDP_DROP : XDP_PASS);
	why = action == XDP_REDIRECT ? FP_BR_ST_FORWARD : FP_BR_ST_NOT_MEMBER;
	goto done;
flood:
	out = 0;
	if (flood_limited(in, now)) {
		why = FP_BR_ST_DROP_STORM;
		action = XDP_DROP;
		goto done;
	}
	if (push && push_tag(ctx, vid)) {
		why = FP_BR_ST_DROP_VLAN;
		action = XDP_DROP;
		goto done;
	}
	action = bpf_redirect_map(&fp_br_ports, 0, BPF_F_BROADCAST | BPF_F_EXCLUDE_INGRESS);
	why = FP_BR_ST_FLOOD;
done:
	count(st, why);
	pkt->verdict.reason = why;
	pkt->verdict.ident = out; /* the port it went to (0: flooded, none) */
	pkt->verdict.serial = 0;
	return fp_stage_end(ctx, pkt, fp_ctl_get(), slot, action, 1);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
