/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The lb stage's BPF tests and bench: fp_entry and the lb stage (slot 2)
 * loaded as a pipeline loads them, in a network namespace of the
 * process's own (unshare) holding two veth pairs, routes and static
 * neighbours for bpf_fib_lookup, and the lb's maps filled directly (VIPs,
 * backends, Maglev tables built with fp_maglev_build into inner maps).
 * The namespace goes away with the process: nothing is left behind.
 *
 *   lb0 02:00:00:00:0a:01  10.0.0.1/24  2001:db8::1/64    (ingress)
 *       neighbours 10.0.0.2 -> 02:00:00:00:0b:02, 2001:db8::2 -> 02:00:00:00:0b:06
 *       10.0.0.3: no neighbour
 *   lb1 02:00:00:00:0a:02  10.1.0.1/24  2001:db8:1::1/64  (in lb_tx_ports)
 *       neighbour 10.1.0.2 -> 02:00:00:00:0c:02
 *   lb2 02:00:00:00:0a:03  10.2.0.1/24  (not in lb_tx_ports)
 *       neighbour 10.2.0.2 -> 02:00:00:00:0d:02
 * Functions return 0 or a negative errno unless they say otherwise.
 */
#ifndef FP_TEST_LB_FIXTURE_H
#define FP_TEST_LB_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include <fastpath/lb_abi.h>

struct entry_bpf;
struct lb_bpf;

struct lb_fixture {
	struct entry_bpf *entry;
	struct lb_bpf *lb;
	int cpu;                /* the process stays on it (per-CPU maps read back) */
	int ifindex[3];         /* lb0, lb1, lb2 */
};

#define LBF_CONNS 4096

/* Namespace, links, objects, slot 2. Root only; -EPERM otherwise. */
int lbf_open(struct lb_fixture *f);
/* The same with lb_conns holding `conns` flows (rounded up to a power of
 * two, as `lb load --conns`), LBF_CONNS by default. */
int lbf_open_sized(struct lb_fixture *f, unsigned conns);
void lbf_close(struct lb_fixture *f);

/* Empties VIPs, tables, backends, connections; meta with the sources
 * 172.16.0.0/24 and fd00:1::/112 (FP_LB_META_SRC4 | SRC6). */
int lbf_reset(struct lb_fixture *f);

/* "a.b.c.d" or an IPv6 text into 16 bytes (IPv4 in 0..3); its family, 0 on error. */
int lbf_addr(const char *text, uint8_t out[16]);

/* A VIP into lb_vips, then the index packets find it by (lb_vip_index)
 * rebuilt and switched in, as `lb vip add` does. */
int lbf_vip(struct lb_fixture *f, const char *addr, uint16_t port, uint8_t proto, uint32_t flags,
	    uint32_t index, uint32_t table_size, uint32_t serial);
int lbf_vip_del(struct lb_fixture *f, const char *addr, uint16_t port, uint8_t proto);
/* lb_vip_index rebuilt from lb_vips and switched in. */
int lbf_publish_vips(struct lb_fixture *f);
int lbf_backend(struct lb_fixture *f, uint32_t index, const char *addr, uint32_t vip_index,
		uint8_t flags, uint32_t gen);
/* The VIP's Maglev table over backend entries be[0..n-1] (weights w, NULL:
 * all 1), built aside and switched into lb_tables[vip_index]. */
int lbf_table(struct lb_fixture *f, uint32_t vip_index, uint32_t table_size, const uint32_t *be,
	      const uint32_t *w, size_t n);

/* Runs a frame through fp_entry as received on lb<ifno>; the action, or
 * -1. out/out_len: the frame after (out holds at least 4096 bytes). */
int lbf_run(struct lb_fixture *f, int ifno, const void *frame, size_t len, void *out,
	    size_t *out_len);
/* ns per run of `repeat` runs of the frame (BPF_PROG_TEST_RUN's duration). */
int lbf_time(struct lb_fixture *f, int ifno, const void *frame, size_t len, unsigned repeat,
	     uint32_t *ns);

uint64_t lbf_counter(struct lb_fixture *f, enum fp_lb_counter c);
struct fp_lb_stats lbf_vip_stats(struct lb_fixture *f, uint32_t index);
struct fp_lb_stats lbf_be_stats(struct lb_fixture *f, uint32_t index);
/* The connection entry of a flow: 0 and *c, or -ENOENT. lbf_conn_put
 * overwrites an existing one. */
int lbf_conn(struct lb_fixture *f, const struct fp_lb_flow *flow, struct fp_lb_conn *c);
int lbf_conn_put(struct lb_fixture *f, const struct fp_lb_flow *flow, const struct fp_lb_conn *c);
/* The lb_conns bucket a flow hashes to; a bucket read and written whole. */
uint32_t lbf_conn_bucket(struct lb_fixture *f, const struct fp_lb_flow *flow);
int lbf_bucket(struct lb_fixture *f, uint32_t bi, struct fp_lb_bucket *b);
int lbf_bucket_put(struct lb_fixture *f, uint32_t bi, const struct fp_lb_bucket *b);

/* The lb's flow key of a client packet (as fp_lb builds it). */
struct fp_lb_flow lbf_flow(const char *src, const char *dst, uint16_t sport, uint16_t dport,
			   uint8_t proto, int hash_src);

/* Internet checksum of n bytes (ones' complement of the sum), seed added. */
uint16_t lbf_csum(const void *p, size_t n, uint32_t seed);

#endif
