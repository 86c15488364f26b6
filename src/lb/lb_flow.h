/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Which VIP a packet is for, its flow, and the flow's backend: the
 * connection table first, the VIP's Maglev table on a miss. Constant work
 * per packet: a few hash and array lookups, no loop over VIPs or backends.
 */
#ifndef FP_LB_FLOW_H
#define FP_LB_FLOW_H

#include "lb_pkt.h"
#include "lb_maps.h"

/* The slot of the key (address words a0 a1 hashing to ha, port, proto,
 * family) in the inner array vi placed with seed: from its home on, up to
 * FP_LB_VIP_PROBES slots, stopping at an empty one. NULL: not a VIP. */
static __always_inline struct fp_lb_vip_slot *lb_vip_probe(void *vi, __u64 ha, __u64 a0, __u64 a1,
							   __u16 port, __u8 proto, __u8 family,
							   __u32 seed)
{
	__u32 e = 1 + fp_lb_vip_home(ha, port, proto, family, seed);

#pragma unroll
	for (int i = 0; i < FP_LB_VIP_PROBES; i++) {
		__u32 k = e + i;
		struct fp_lb_vip_slot *sl = bpf_map_lookup_elem(vi, &k);

		if (!sl || !sl->key.family)
			return NULL;
		if (((const lb_w64 *)sl->key.addr)[0] == a0 &&
		    ((const lb_w64 *)sl->key.addr)[1] == a1 && sl->key.port == port &&
		    sl->key.proto == proto && sl->key.family == family)
			return sl;
	}
	return NULL;
}

/* The VIP of (addr, port, proto): the exact key, then the address's
 * port-any VIP (port 0), in the VIP index lb_vip_index holds now (one
 * inner array throughout, so both lookups see the same VIPs). Copies it
 * into s; 0 when there is none. */
static __always_inline int lb_find_vip(struct lb_state *s, const __u8 *addr, __u8 family,
				       __u8 proto, __u16 port)
{
	struct fp_lb_vip_slot *hdr, *sl = NULL;
	__u64 a0, a1, ha;
	__u32 zero = 0;
	void *vi = bpf_map_lookup_elem(&lb_vip_index, &zero);

	lb_addr_words(addr, family, &a0, &a1);
	if (!vi)
		return 0;
	hdr = bpf_map_lookup_elem(vi, &zero);
	if (!hdr)
		return 0;
	ha = fp_lb_vip_hash_addr(a0, a1);
	if (port)
		sl = lb_vip_probe(vi, ha, a0, a1, port, proto, family, hdr->seed);
	if (!sl)
		sl = lb_vip_probe(vi, ha, a0, a1, 0, proto, family, hdr->seed);
	if (!sl)
		return 0;
	s->vip = sl->vip;
	s->vip_index = sl->vip.index;
	return 1;
}

/* The flow key of a client's packet; with FP_LB_VIP_HASH_SRC only the
 * source and family count (every flow of a client goes to one backend).
 * Its hash (s->hash) is lb_pick_backend's: the connection table holds it.
 * Written as the five words fp_lb_conn_hash and lb_flow_eq read (the
 * ports, protocol and family in one: a word load over several narrower
 * stores just made would wait for them to reach the cache). */
static __always_inline void lb_set_flow(struct lb_state *s, const __u8 *src, const __u8 *dst,
					__u16 sport, __u16 dport, __u8 proto, __u8 family)
{
	union {
		struct {
			__u16 sport, dport;
			__u8  proto, family;
			__u16 pad;
		} f;
		__u64 w;
	} tail = { .f = { .family = family } };
	__u64 *w = (__u64 *)&s->flow;
	__u64 s0, s1, d0 = 0, d1 = 0;

	lb_addr_words(src, family, &s0, &s1);
	if (!(s->vip.flags & FP_LB_VIP_HASH_SRC)) {
		lb_addr_words(dst, family, &d0, &d1);
		tail.f.sport = sport;
		tail.f.dport = dport;
		tail.f.proto = proto;
	}
	w[0] = s0;
	w[1] = s1;
	w[2] = d0;
	w[3] = d1;
	w[4] = tail.w;
}

static __always_inline struct fp_lb_stats *lb_stats(void *map, __u32 index)
{
	return bpf_map_lookup_elem(map, &index);
}

/* A backend entry of this VIP that is in use and not down. */
static __always_inline int lb_be_alive(const struct fp_lb_backend *be, __u32 vip_index)
{
	return (be->flags & (FP_LB_BE_USED | FP_LB_BE_DOWN)) == FP_LB_BE_USED &&
	       be->vip_index == vip_index;
}

static __always_inline int lb_flow_eq(const struct fp_lb_flow *a, const struct fp_lb_flow *b)
{
	const lb_w64 *x = (const lb_w64 *)a, *y = (const lb_w64 *)b;

	return !((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]) | (x[4] ^ y[4]));
}

/* The way a new flow takes when its key is not in the bucket: from the
 * replacement pointer on, the first way no packet hit since the pointer
 * last passed it (an empty way was never hit), clearing the ones passed;
 * all hit: the pointer's own (now the oldest inserted). */
static __always_inline __u32 lb_victim(struct fp_lb_bucket *b)
{
	__u32 n = b->next, w = n & (FP_LB_WAYS - 1);

#pragma unroll
	for (int i = 0; i < FP_LB_WAYS; i++) {
		__u32 v = (n + i) & (FP_LB_WAYS - 1);

		if (!b->way[v].ref) {
			w = v;
			break;
		}
		b->way[v].ref = 0;
	}
	b->next = w + 1;
	return w;
}

/* Records the flow in way w of b (no lock: see fp_lb_way in lb_abi.h). */
static __always_inline void lb_record(struct fp_lb_bucket *b, __u32 w, __u32 tag,
				      const struct lb_state *s, __u32 backend, __u32 gen)
{
	struct fp_lb_way *way;
	lb_w64 *to, *from = (lb_w64 *)&s->flow;

	w &= FP_LB_WAYS - 1;
	way = &b->way[w];
	to = (lb_w64 *)&b->flow[w];
	to[0] = from[0];
	to[1] = from[1];
	to[2] = from[2];
	to[3] = from[3];
	to[4] = from[4];
	way->tag = tag;
	way->hash = s->hash;
	way->backend = backend;
	way->ref = 0;
	way->check = gen ^ fp_lb_way_mix(tag, s->hash, backend);
}

/*
 * The flow's backend, into s->be / s->be_index. An established flow keeps
 * its backend while that entry is alive and of the same gen (a drained
 * backend keeps its flows); otherwise the Maglev table picks one, which
 * must be alive and not draining, and the flow is recorded (not for an
 * ICMP error: it makes no flow). A SYN is a new connection and takes the
 * table's choice even when its 5-tuple is recorded (as Katran does): a
 * client reusing the source port of an old connection must not land on a
 * drained backend, or on one the weights no longer favour. The connection
 * table: lb_conns, its buckets and ways in lb_abi.h. Returns LB_GO or
 * FP_LB_C_NO_BACKEND.
 */
static __always_inline __u32 lb_pick_backend(struct lb_state *s)
{
	struct fp_lb_stats *vs = lb_stats(&lb_vip_stats, s->vip_index);
	struct fp_lb_bucket *b = NULL;
	struct fp_lb_backend *be;
	__u64 h = fp_lb_conn_hash(&s->flow);
	__u32 slot, *idx, way = FP_LB_WAYS, tag = fp_lb_conn_tag(h), bi;
	void *table;

	s->vs = vs;
	if (s->meta && s->meta->conns >= FP_LB_WAYS) {
		bi = (__u32)h & (s->meta->conns / FP_LB_WAYS - 1);
		b = bpf_map_lookup_elem(&lb_conns, &bi);
	}
	if (b) {
#pragma unroll
		for (int i = 0; i < FP_LB_WAYS; i++)
			if (b->way[i].tag == tag && lb_flow_eq(&b->flow[i], &s->flow)) {
				way = i;
				break;
			}
	}
	if (b && way < FP_LB_WAYS && !s->syn) {
		struct fp_lb_way *w = &b->way[way & (FP_LB_WAYS - 1)];
		__u32 i = w->backend, hash = w->hash;
		__u32 gen = w->check ^ fp_lb_way_mix(tag, hash, i);

		be = bpf_map_lookup_elem(&lb_backends, &i);
		if (be && lb_be_alive(be, s->vip_index) && be->gen == gen) {
			s->hash = hash;
			s->be = *be;
			s->be_index = i;
			s->bs = lb_stats(&lb_be_stats, i);
			if (vs)
				vs->conn_hits++;
			if (s->bs)
				s->bs->conn_hits++;
			if (!w->ref)
				w->ref = 1;
			return LB_GO;
		}
	}
	if (vs)
		vs->conn_misses++;
	s->hash = fp_lb_flow_hash_of(h);
	table = bpf_map_lookup_elem(&lb_tables, &s->vip_index);
	if (!table || !s->vip.table_size)
		return FP_LB_C_NO_BACKEND;
	slot = s->hash % s->vip.table_size;
	idx = bpf_map_lookup_elem(table, &slot);
	if (!idx || *idx == FP_LB_NO_BACKEND)
		return FP_LB_C_NO_BACKEND;
	slot = *idx;
	be = bpf_map_lookup_elem(&lb_backends, &slot);
	if (!be || !lb_be_alive(be, s->vip_index) || (be->flags & FP_LB_BE_DRAIN))
		return FP_LB_C_NO_BACKEND;
	s->be = *be;
	s->be_index = slot;
	s->bs = lb_stats(&lb_be_stats, slot);
	if (s->bs)
		s->bs->conn_misses++;  /* the miss of a flow the table gave it */
	if (s->icmp)
		return LB_GO;
	/* a full bucket replaces a flow (lb_victim): never a failure */
	if (b)
		lb_record(b, way < FP_LB_WAYS ? way : lb_victim(b), tag, s, slot, be->gen);
	if (vs)
		vs->new_flows++;
	if (s->bs)
		s->bs->new_flows++;
	return LB_GO;
}

/* A packet on its way to the backend: packets and bytes (the client's IP
 * datagram, without the outer header) of the VIP and of the backend, in
 * the entries lb_pick_backend looked up. */
static __always_inline void lb_count_sent(const struct lb_state *s, __u32 len)
{
	if (s->vs) {
		s->vs->packets++;
		s->vs->bytes += len;
	}
	if (s->bs) {
		s->bs->packets++;
		s->bs->bytes += len;
	}
}

#endif
