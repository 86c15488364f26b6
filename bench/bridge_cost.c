// SPDX-License-Identifier: BSD-2-Clause
/*
 * bridge_cost: ns per frame of the bridge stage by BPF_PROG_TEST_RUN
 * (repeat 1,000,000), a known-unicast frame from port 0 to a station behind
 * port 1, side by side in one process with the goal's yardstick, the
 * filter's dropped flood packet (filter_cost's "UDP flood (drop)": the
 * entry with the filter fused, 10,000 rules). The rows, interleaved within
 * each round, medians of the rounds:
 *   filter drop     entry + filter (10,000 rules), the UDP flood packet: dropped
 *   entry alone     the known-unicast frame through the entry, no stage: passed
 *   bridge          entry + bridge (slot 4): redirected (the frame's source
 *                   known on its port: learning only reads)
 *   bridge, VLAN    the same on a VLAN-aware bridge (PVID 1 untagged ports:
 *                   the stage pushes the tag; popping it is the egress
 *                   program's, which a test run does not reach)
 *   filter + bridge entry + filter (10,000 rules) + bridge: the frame passes
 *                   the filter and is redirected
 * and the ratios to the filter's drop paired round by round.
 *
 *   build/bench/bridge_cost [--repeat N] [--rounds N]
 *
 * The ports are two veths in a network namespace of the process's own.
 * Prints markdown (bench/bridge_rate.sh's section of docs/benchmarks.md).
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include <fastpath/bridge_abi.h>
#include "common/pkt.h"
#include "pipeline/pipeline.h"
#include "targets.h"
#include "bridge.skel.h"

enum { R_FILTER_DROP, R_ENTRY, R_BRIDGE, R_BRIDGE_VLAN, R_FILTER_BRIDGE, N_ROWS };
static const char *row_names[N_ROWS] = {
	"filter's dropped flood packet (entry + filter, 10,000 rules)",
	"entry alone, the unicast frame (passed)",
	"entry + bridge: known unicast (redirected)",
	"entry + VLAN-aware bridge: known unicast, tag pushed (redirected)",
	"entry + filter (10,000 rules) + bridge: known unicast (redirected)",
};
#define MAX_ROUNDS 32

static unsigned repeat = 1000000, rounds = 5;
static __u32 port[2];
static const __u8 mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a }, mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "bridge_cost: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* A bridge stage on pl's slot 4 with two member ports, a at port 0 and b
 * at port 1 (learned just now). */
static struct bridge_bpf *bridge_on(struct fp_pipeline *pl, bool vlan)
{
	struct fp_br_cfg cfg = { .abi_version = FP_BRIDGE_ABI, .flags = vlan ? FP_BR_VLAN_AWARE : 0,
				 .ageing_ns = FP_BR_AGEING_DEFAULT_S * 1000000000ull };
	struct bridge_bpf *br = bridge_bpf__open();
	__u32 zero = 0;

	if (!br || fp_pipeline__reuse_maps(pl, br->obj) || bridge_bpf__load(br))
		die("loading the bridge stage");
	for (int i = 0; i < 2; i++) {
		struct fp_br_port p = { .ifindex = port[i], .pvid = 1, .slot = (__u16)(i + 1),
					.learn_limit = FP_BR_LEARN_LIMIT_DEFAULT };
		struct bpf_devmap_val dv = { .ifindex = port[i] };
		struct fp_br_key k = { .vlan = vlan ? 1 : 0 };
		struct fp_br_fdb e = { .ifindex = port[i], .seen_ns = mono_ns() };
		struct fp_br_learn l = { .learned = 1 };
		__u32 slot = p.slot;

		p.vlans[0] = 1ull << 1;
		if (vlan)
			dv.bpf_prog.fd = bpf_program__fd(br->progs.fp_bridge_out);
		memcpy(k.mac, i ? mac_b : mac_a, 6);
		if (bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_pinfo), &port[i], &p, 0) ||
		    bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_ports), &port[i], &dv, 0) ||
		    bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_fdb), &k, &e, 0) ||
		    bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_learn), &slot, &l, 0))
			die("entering the ports");
	}
	/* the ports' own MACs are host addresses, as bridge add makes them */
	for (int i = 0; i < 2; i++) {
		struct fp_br_key hk = { .vlan = 0 };
		struct ifreq ifr = { 0 };
		int sk = socket(AF_INET, SOCK_DGRAM, 0);

		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "bcp%d", i);
		if (sk < 0 || ioctl(sk, SIOCGIFHWADDR, &ifr))
			die("reading a port's MAC");
		close(sk);
		memcpy(hk.mac, ifr.ifr_hwaddr.sa_data, 6);
		cfg.host_bits |= fp_br_host_bit(hk.mac);
		if (bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_host), &hk, &port[i], 0))
			die("a host address");
	}
	if (bpf_map_update_elem(bpf_map__fd(br->maps.fp_br_cfg), &zero, &cfg, 0))
		die("the bridge's config");
	if (fp_pipeline__fill_slot(pl, FP_STAGE_BRIDGE, bpf_program__fd(br->progs.fp_bridge)))
		die("filling slot 4");
	return br;
}

/* The kernel's average ns per run; the verdict into *verdict. */
static double one_run(int fd, const struct pkt *p, bool from_port0, __u32 *verdict)
{
	struct xdp_md ctx = { .data_end = (__u32)p->len, .ingress_ifindex = port[0] };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p->buf, .data_size_in = (__u32)p->len,
		    .repeat = repeat);

	if (from_port0) {
		o.ctx_in = &ctx;
		o.ctx_size_in = sizeof(ctx);
	}
	if (bpf_prog_test_run_opts(fd, &o))
		die("BPF_PROG_TEST_RUN");
	*verdict = o.retval;
	return o.duration;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "repeat", required_argument, NULL, 'r' },
		{ "rounds", required_argument, NULL, 'n' },
		{ 0 },
	};
	struct fp_pipeline *plain = NULL, *vlanpl = NULL, *fpl;
	struct bridge_bpf *br_plain;
	struct fp_filter *f = NULL;
	struct pkt flood, uni;
	double runs[N_ROWS][MAX_ROUNDS], v[MAX_ROUNDS];
	__u32 verdict[N_ROWS], want[N_ROWS] = { XDP_DROP, XDP_PASS, XDP_REDIRECT, XDP_REDIRECT,
						 XDP_REDIRECT };
	int fd[N_ROWS], c, fused;
	char err[256] = "";

	tg_prog = "bridge_cost";
	(void)bare_drop;
	(void)xdpfilt;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'r')
			repeat = (unsigned)strtoul(optarg, NULL, 10);
		else if (c == 'n')
			rounds = (unsigned)strtoul(optarg, NULL, 10);
		else
			return fprintf(stderr, "usage: bridge_cost [--repeat N] [--rounds N]\n"), 2;
	}
	if (!repeat || !rounds || rounds > MAX_ROUNDS)
		return fprintf(stderr, "bridge_cost: --repeat >= 1, --rounds 1..%d\n", MAX_ROUNDS), 2;
	if (unshare(CLONE_NEWNET))
		die("unshare(CLONE_NEWNET) (run as root)");
	if (system("ip link add bcp0 type veth peer name bcq0 && ip link add bcp1 type veth peer "
		   "name bcq1 && ip link set bcp0 up && ip link set bcp1 up && ip link set bcq0 up "
		   "&& ip link set bcq1 up"))
		return fprintf(stderr, "bridge_cost: cannot make the ports\n"), 1;
	port[0] = if_nametoindex("bcp0");
	port[1] = if_nametoindex("bcp1");

	/* what `fastpath gen --udp 11211` sends, and the 60 B unicast frame a -> b */
	pkt_init(&flood);
	pkt_eth(&flood, 0);
	pkt_ipv4(&flood, &(struct pkt_ipv4_opts){ .src = "198.18.0.1", .dst = RG_VICTIM, .ttl = 64 });
	pkt_udp(&flood, 12345, RG_FLOOD_PORT);
	pkt_bytes(&flood, "fastpath-gen\0\0\0\0\0\0", 18);
	pkt_finish(&flood);
	pkt_init(&uni);
	pkt_eth_mac(&uni, mac_b, mac_a, 0);
	pkt_ipv4(&uni, &(struct pkt_ipv4_opts){ .src = "198.18.0.1", .dst = "198.18.0.2", .ttl = 64 });
	pkt_udp(&uni, 12345, 9);
	pkt_bytes(&uni, "fastpath-gen\0\0\0\0\0\0", 18);
	pkt_finish(&uni);

	fused = fastpath_with(10000, &f);
	fpl = fp_filter__pipeline(f);
	if (fp_pipeline__open_test(&plain, err, sizeof(err)) ||
	    fp_pipeline__open_test(&vlanpl, err, sizeof(err)))
		return fprintf(stderr, "bridge_cost: %s\n", err), 1;
	br_plain = bridge_on(plain, false);
	bridge_on(vlanpl, true);
	bridge_on(fpl, false);
	fd[R_FILTER_DROP] = fused;
	fd[R_ENTRY] = fp_pipeline__entry_fd(plain);
	fd[R_BRIDGE] = fp_pipeline__entry_fd(plain);
	fd[R_BRIDGE_VLAN] = fp_pipeline__entry_fd(vlanpl);
	fd[R_FILTER_BRIDGE] = fused;

	for (unsigned r = 0; r < rounds; r++)
		for (int i = 0; i < N_ROWS; i++) {
			if (i == R_ENTRY)
				fp_pipeline__empty_slot(plain, FP_STAGE_BRIDGE);
			runs[i][r] = one_run(fd[i], i == R_FILTER_DROP ? &flood : &uni,
					     i != R_FILTER_DROP, &verdict[i]);
			if (i == R_ENTRY && fp_pipeline__fill_slot(plain, FP_STAGE_BRIDGE,
					bpf_program__fd(br_plain->progs.fp_bridge)))
				die("refilling slot 4");
			if (verdict[i] != want[i]) {
				fprintf(stderr, "bridge_cost: %s: verdict %u, expected %u\n", row_names[i],
					verdict[i], want[i]);
				return 1;
			}
		}
	printf("ns per frame, BPF_PROG_TEST_RUN repeat %u, median of %u rounds with the programs "
	       "interleaved; the ratio to the filter's dropped flood packet paired round by round "
	       "(min-max)\n\n", repeat, rounds);
	printf("| program | ns/frame | / filter's drop |\n|---|---:|---:|\n");
	for (int i = 0; i < N_ROWS; i++) {
		double q[MAX_ROUNDS], med;

		memcpy(v, runs[i], rounds * sizeof(v[0]));
		med = median(v, rounds);
		for (unsigned r = 0; r < rounds; r++)
			q[r] = runs[i][r] / runs[R_FILTER_DROP][r];
		printf("| %s | %.1f |", row_names[i], med);
		if (i == R_FILTER_DROP) {
			printf(" 1 |\n");
		} else {
			double lo = q[0], hi = q[0];

			for (unsigned r = 1; r < rounds; r++) {
				lo = q[r] < lo ? q[r] : lo;
				hi = q[r] > hi ? q[r] : hi;
			}
			printf(" **%.2fx** (%.2f-%.2f) |\n", median(q, rounds), lo, hi);
		}
	}
	return 0;
}
