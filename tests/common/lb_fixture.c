// SPDX-License-Identifier: BSD-2-Clause
/* The lb stage's test fixture: see lb_fixture.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <fastpath/abi.h>
#include "lb/maglev.h"
#include "lb/lb_vip_index.h"
#include "common/lb_fixture.h"
#include "entry.skel.h"
#include "lb.skel.h"

#define LBF_MAX_BE 64   /* backend entries the tests use (reset clears these) */
#define LBF_MAX_VIP 16

static const char *const net_setup[] = {
	"ip link set lo up",
	"ip link add lb0 address 02:00:00:00:0a:01 type veth peer name lb0p",
	"ip link add lb1 address 02:00:00:00:0a:02 type veth peer name lb1p",
	"ip link add lb2 address 02:00:00:00:0a:03 type veth peer name lb2p",
	"for i in lb0 lb0p lb1 lb1p lb2 lb2p; do ip link set $i up || exit 1; done",
	"ip addr add 10.0.0.1/24 dev lb0",
	"ip -6 addr add 2001:db8::1/64 dev lb0 nodad",
	"ip addr add 10.1.0.1/24 dev lb1",
	"ip -6 addr add 2001:db8:1::1/64 dev lb1 nodad",
	"ip addr add 10.2.0.1/24 dev lb2",
	"ip neigh add 10.0.0.2 lladdr 02:00:00:00:0b:02 dev lb0 nud permanent",
	"ip neigh add 2001:db8::2 lladdr 02:00:00:00:0b:06 dev lb0 nud permanent",
	"ip neigh add 10.1.0.2 lladdr 02:00:00:00:0c:02 dev lb1 nud permanent",
	"ip neigh add 10.2.0.2 lladdr 02:00:00:00:0d:02 dev lb2 nud permanent",
	/* bpf_fib_lookup answers only where forwarding is on */
	"sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1",
};

static int sh(const char *cmd)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s >/dev/null 2>&1", cmd);
	if (system(buf)) {
		fprintf(stderr, "lb fixture: `%s` failed\n", cmd);
		return -1;
	}
	return 0;
}

static int pin_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t one;

	if (cpu < 0)
		return -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) ? -1 : cpu;
}

int lbf_open(struct lb_fixture *f)
{
	return lbf_open_sized(f, LBF_CONNS);
}

int lbf_open_sized(struct lb_fixture *f, unsigned conns)
{
	static const char *names[] = { "fp_stages", "fp_scratch", "fp_ctl" };
	struct fp_ctl ctl = { .enabled = 1u << FP_STAGE_LB };
	__u32 slot = FP_STAGE_LB, zero = 0;
	int prog, tx;

	memset(f, 0, sizeof(*f));
	if (geteuid() != 0)
		return -EPERM;
	f->cpu = pin_cpu();
	if (f->cpu < 0 || unshare(CLONE_NEWNET)) {
		fprintf(stderr, "lb fixture: cannot pin a CPU or make a namespace\n");
		return -1;
	}
	for (size_t i = 0; i < sizeof(net_setup) / sizeof(net_setup[0]); i++)
		if (sh(net_setup[i]))
			return -1;
	f->ifindex[0] = if_nametoindex("lb0");
	f->ifindex[1] = if_nametoindex("lb1");
	f->ifindex[2] = if_nametoindex("lb2");
	f->entry = entry_bpf__open_and_load();
	f->lb = lb_bpf__open();
	if (!f->entry || !f->lb)
		return -1;
	while (conns & (conns - 1)) /* FP_LB_WAYS x a power of two, as `lb load` */
		conns = (conns | (conns - 1)) + 1;
	bpf_map__set_max_entries(f->lb->maps.lb_conns, conns / FP_LB_WAYS);
	for (int i = 0; i < 3; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(f->lb->obj, names[i]);
		struct bpf_map *from = bpf_object__find_map_by_name(f->entry->obj, names[i]);

		if (!m || !from || bpf_map__reuse_fd(m, bpf_map__fd(from)))
			return -1;
	}
	if (lb_bpf__load(f->lb))
		return -1;
	prog = bpf_program__fd(f->lb->progs.fp_lb);
	tx = f->ifindex[1];
	if (bpf_map_update_elem(bpf_map__fd(f->entry->maps.fp_stages), &slot, &prog, 0) ||
	    bpf_map_update_elem(bpf_map__fd(f->entry->maps.fp_ctl), &zero, &ctl, 0) ||
	    bpf_map_update_elem(bpf_map__fd(f->lb->maps.lb_tx_ports), &tx, &tx, 0))
		return -1;
	return lbf_reset(f);
}

void lbf_close(struct lb_fixture *f)
{
	lb_bpf__destroy(f->lb);
	entry_bpf__destroy(f->entry);
	f->lb = NULL;
	f->entry = NULL;
}

int lbf_addr(const char *text, uint8_t out[16])
{
	memset(out, 0, 16);
	if (inet_pton(AF_INET, text, out) == 1)
		return 4;
	if (inet_pton(AF_INET6, text, out) == 1)
		return 6;
	return 0;
}

int lbf_reset(struct lb_fixture *f)
{
	struct fp_lb_meta m = { .abi_version = FP_LB_ABI,
				.flags = FP_LB_META_SRC4 | FP_LB_META_SRC6,
				.conns = bpf_map__max_entries(f->lb->maps.lb_conns) * FP_LB_WAYS,
				.src4_len = 24, .src6_len = 112 };
	struct fp_lb_backend none = { 0 };
	static const struct fp_lb_bucket empty;
	struct fp_lb_vip_key vk;
	__u32 zero = 0;
	int fd;

	uint8_t a[16];

	lbf_addr("172.16.0.0", a);
	memcpy(&m.src4, a, 4);
	lbf_addr("fd00:1::", m.src6);
	if (bpf_map_update_elem(bpf_map__fd(f->lb->maps.lb_meta), &zero, &m, 0))
		return -errno;
	fd = bpf_map__fd(f->lb->maps.lb_vips);
	for (int n = 0; n < FP_LB_MAX_VIPS && !bpf_map_get_next_key(fd, NULL, &vk); n++)
		bpf_map_delete_elem(fd, &vk);
	if (lbf_publish_vips(f))
		return -1;
	for (__u32 i = 0; i < LBF_MAX_VIP; i++)
		bpf_map_delete_elem(bpf_map__fd(f->lb->maps.lb_tables), &i);
	for (__u32 i = 0; i < LBF_MAX_BE; i++)
		if (bpf_map_update_elem(bpf_map__fd(f->lb->maps.lb_backends), &i, &none, 0))
			return -errno;
	fd = bpf_map__fd(f->lb->maps.lb_conns);
	for (__u32 i = 0; i < m.conns / FP_LB_WAYS; i++)
		if (bpf_map_update_elem(fd, &i, &empty, 0))
			return -errno;
	return 0;
}

int lbf_vip(struct lb_fixture *f, const char *addr, uint16_t port, uint8_t proto, uint32_t flags,
	    uint32_t index, uint32_t table_size, uint32_t serial)
{
	struct fp_lb_vip_key k = { .port = port, .proto = proto };
	struct fp_lb_vip v = { .index = index, .flags = flags, .table_size = table_size,
			       .serial = serial };

	k.family = lbf_addr(addr, k.addr);
	if (!k.family)
		return -EINVAL;
	if (bpf_map_update_elem(bpf_map__fd(f->lb->maps.lb_vips), &k, &v, 0))
		return -errno;
	return lbf_publish_vips(f);
}

int lbf_vip_del(struct lb_fixture *f, const char *addr, uint16_t port, uint8_t proto)
{
	struct fp_lb_vip_key k = { .port = port, .proto = proto };

	k.family = lbf_addr(addr, k.addr);
	if (!k.family)
		return -EINVAL;
	if (bpf_map_delete_elem(bpf_map__fd(f->lb->maps.lb_vips), &k))
		return -errno;
	return lbf_publish_vips(f);
}

int lbf_publish_vips(struct lb_fixture *f)
{
	char err[256];
	int rc = fp_lb_vip_index_publish(bpf_map__fd(f->lb->maps.lb_vips),
					 bpf_map__fd(f->lb->maps.lb_vip_index), err, sizeof(err));

	if (rc)
		fprintf(stderr, "lb fixture: %s\n", err);
	return rc;
}

int lbf_backend(struct lb_fixture *f, uint32_t index, const char *addr, uint32_t vip_index,
		uint8_t flags, uint32_t gen)
{
	struct fp_lb_backend b = { .flags = flags, .weight = 1, .vip_index = vip_index,
				   .gen = gen };

	b.family = lbf_addr(addr, b.addr);
	if (!b.family)
		return -EINVAL;
	return bpf_map_update_elem(bpf_map__fd(f->lb->maps.lb_backends), &index, &b, 0) ? -errno
											  : 0;
}

int lbf_table(struct lb_fixture *f, uint32_t vip_index, uint32_t table_size, const uint32_t *be,
	      const uint32_t *w, size_t n)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_INNER_MAP);
	struct fp_maglev_backend mb[LBF_MAX_BE];
	uint32_t *table = calloc(table_size, sizeof(*table));
	struct fp_lb_backend b;
	char err[128];
	int fd = -1, rc = -EINVAL;

	if (!table || n > LBF_MAX_BE)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(bpf_map__fd(f->lb->maps.lb_backends), &be[i], &b) ||
		    fp_maglev_key(mb[i].key, b.family == 4 ? AF_INET : AF_INET6, b.addr, NULL))
			goto out;
		mb[i].weight = w ? w[i] : 1;
	}
	if (fp_maglev_build(mb, n, table_size, table, err, sizeof(err))) {
		fprintf(stderr, "lb fixture: maglev: %s\n", err);
		goto out;
	}
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "lb_table", 4, 4, table_size, &o);
	if (fd < 0)
		goto out;
	for (uint32_t s = 0; s < table_size; s++) {
		uint32_t v = be[table[s]];

		if (bpf_map_update_elem(fd, &s, &v, 0))
			goto out;
	}
	rc = bpf_map_update_elem(bpf_map__fd(f->lb->maps.lb_tables), &vip_index, &fd, 0) ? -errno
											  : 0;
out:
	if (fd >= 0)
		close(fd);
	free(table);
	return rc;
}

static int test_run(struct lb_fixture *f, int ifno, const void *frame, size_t len, void *out,
		    size_t *out_len, unsigned repeat, uint32_t *ns)
{
	struct xdp_md ctx = { .data_end = len, .ingress_ifindex = f->ifindex[ifno] };
	static char sink[4096];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame, .data_size_in = len,
		    .data_out = out ? out : sink, .data_size_out = 4096, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = repeat);

	if (bpf_prog_test_run_opts(bpf_program__fd(f->entry->progs.fp_entry), &o))
		return -1;
	if (out_len)
		*out_len = o.data_size_out;
	if (ns)
		*ns = o.duration;
	return (int)o.retval;
}

int lbf_run(struct lb_fixture *f, int ifno, const void *frame, size_t len, void *out,
	    size_t *out_len)
{
	int rc = test_run(f, ifno, frame, len, out, out_len, 1, NULL);

	if (sched_getcpu() != f->cpu)
		return -1;
	return rc;
}

int lbf_time(struct lb_fixture *f, int ifno, const void *frame, size_t len, unsigned repeat,
	     uint32_t *ns)
{
	return test_run(f, ifno, frame, len, NULL, NULL, repeat, ns) < 0 ? -1 : 0;
}

uint64_t lbf_counter(struct lb_fixture *f, enum fp_lb_counter c)
{
	int n = libbpf_num_possible_cpus();
	uint64_t v[n > 0 ? n : 1], sum = 0;
	__u32 k = c;

	if (n <= 0 || bpf_map_lookup_elem(bpf_map__fd(f->lb->maps.lb_counters), &k, v))
		return UINT64_MAX;
	for (int i = 0; i < n; i++)
		sum += v[i];
	return sum;
}

static struct fp_lb_stats stats_sum(int fd, uint32_t index)
{
	int n = libbpf_num_possible_cpus();
	struct fp_lb_stats v[n > 0 ? n : 1], sum = { 0 };

	if (n <= 0 || bpf_map_lookup_elem(fd, &index, v))
		return sum;
	for (int i = 0; i < n; i++) {
		sum.packets += v[i].packets;
		sum.bytes += v[i].bytes;
		sum.new_flows += v[i].new_flows;
		sum.conn_hits += v[i].conn_hits;
		sum.conn_misses += v[i].conn_misses;
	}
	return sum;
}

struct fp_lb_stats lbf_vip_stats(struct lb_fixture *f, uint32_t index)
{
	return stats_sum(bpf_map__fd(f->lb->maps.lb_vip_stats), index);
}

struct fp_lb_stats lbf_be_stats(struct lb_fixture *f, uint32_t index)
{
	return stats_sum(bpf_map__fd(f->lb->maps.lb_be_stats), index);
}

uint32_t lbf_conn_bucket(struct lb_fixture *f, const struct fp_lb_flow *flow)
{
	return (uint32_t)fp_lb_conn_hash(flow) & (bpf_map__max_entries(f->lb->maps.lb_conns) - 1);
}

int lbf_bucket(struct lb_fixture *f, uint32_t bi, struct fp_lb_bucket *b)
{
	return bpf_map_lookup_elem(bpf_map__fd(f->lb->maps.lb_conns), &bi, b) ? -errno : 0;
}

int lbf_bucket_put(struct lb_fixture *f, uint32_t bi, const struct fp_lb_bucket *b)
{
	return bpf_map_update_elem(bpf_map__fd(f->lb->maps.lb_conns), &bi, b, 0) ? -errno : 0;
}

/* The bucket of a flow and its way holding it (-ENOENT: none). */
static int conn_way(struct lb_fixture *f, const struct fp_lb_flow *flow, __u32 *bi,
		    struct fp_lb_bucket *b)
{
	__u64 h = fp_lb_conn_hash(flow);

	*bi = (__u32)h & (bpf_map__max_entries(f->lb->maps.lb_conns) - 1);
	if (bpf_map_lookup_elem(bpf_map__fd(f->lb->maps.lb_conns), bi, b))
		return -errno;
	for (int w = 0; w < FP_LB_WAYS; w++)
		if (b->way[w].tag == fp_lb_conn_tag(h) && !memcmp(&b->flow[w], flow, sizeof(*flow)))
			return w;
	return -ENOENT;
}

int lbf_conn(struct lb_fixture *f, const struct fp_lb_flow *flow, struct fp_lb_conn *c)
{
	struct fp_lb_bucket b;
	__u32 bi;
	int w = conn_way(f, flow, &bi, &b);

	if (w < 0)
		return w;
	memset(c, 0, sizeof(*c));
	c->backend = b.way[w].backend;
	c->hash = b.way[w].hash;
	c->gen = b.way[w].check ^ fp_lb_way_mix(b.way[w].tag, c->hash, c->backend);
	return 0;
}

int lbf_conn_put(struct lb_fixture *f, const struct fp_lb_flow *flow, const struct fp_lb_conn *c)
{
	struct fp_lb_bucket b;
	__u32 bi;
	int w = conn_way(f, flow, &bi, &b);

	if (w < 0)
		return w;
	b.way[w].backend = c->backend;
	b.way[w].hash = c->hash;
	b.way[w].check = c->gen ^ fp_lb_way_mix(b.way[w].tag, c->hash, c->backend);
	return bpf_map_update_elem(bpf_map__fd(f->lb->maps.lb_conns), &bi, &b, 0) ? -errno : 0;
}

struct fp_lb_flow lbf_flow(const char *src, const char *dst, uint16_t sport, uint16_t dport,
			   uint8_t proto, int hash_src)
{
	struct fp_lb_flow fl;

	memset(&fl, 0, sizeof(fl));
	fl.family = lbf_addr(src, fl.src);
	if (!hash_src) {
		lbf_addr(dst, fl.dst);
		fl.sport = sport;
		fl.dport = dport;
		fl.proto = proto;
	}
	return fl;
}

uint16_t lbf_csum(const void *p, size_t n, uint32_t seed)
{
	const uint8_t *b = p;
	uint64_t sum = seed;

	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)b[i] << 8 | b[i + 1];
	if (n & 1)
		sum += (uint32_t)b[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}
