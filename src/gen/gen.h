/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The traffic generator (`fastpath gen`): sends one template frame out of an
 * interface as fast as a CPU can, or paced to a rate, through
 * BPF_PROG_TEST_RUN with BPF_F_TEST_XDP_LIVE_FRAMES.
 *
 * The kernel half (gen.bpf.c) returns XDP_TX, so each run of the program
 * sends the frame out of the interface given as the ingress ifindex (on a
 * veth it arrives at the peer). It paces itself: a token bucket per CPU
 * (on bpf_ktime_get_ns) turns frames over the budget into XDP_DROP,
 * which the kernel recycles cheaply, so one long syscall per thread (setup
 * costs ~24 ms a call) can run at any rate. Paced frames leave in trains
 * of up to 256 back to back (at most one train per 200 us), as a NIC's
 * interrupt coalescing would deliver them: one frame per wakeup would make
 * the receiver's NAPI wakeups, not its work, the bottleneck. It can also rewrite each frame:
 * a random IPv4 source within a prefix (checksums fixed incrementally) and a
 * random first DNS label (the UDP checksum is zeroed in the template), and
 * a random TCP or UDP source port.
 *
 * The part above `#ifndef __bpf__` is shared by both halves; the rest is
 * the user API. Functions return 0 or a negative errno and leave a message
 * in `err`; nothing here prints.
 */
#ifndef FP_GEN_GEN_H
#define FP_GEN_GEN_H

#include <linux/types.h>

/* Per-CPU state of the generator program (one entry of fp_gen_cpu). */
struct fp_gen_cpu {
	__u64 sent;        /* frames returned as XDP_TX */
	__u64 paced;       /* frames over the rate budget (XDP_DROP) */
	__u64 quota;       /* stop sending after this many (0 = no limit) */
	__u64 interval;    /* ns per train << FP_GEN_SHIFT (0 = unpaced) */
	__u64 next;        /* when the next train may start, ns << FP_GEN_SHIFT */
	__u64 maxlag;      /* a sender further behind than this skips ahead */
	__u32 train;       /* frames per train (1..FP_GEN_TRAIN_MAX) */
	__u32 left;        /* frames left in the current train */
	__u64 first_ns;    /* CLOCK_MONOTONIC of the first frame sent (0 = none yet) */
	__u64 gate;        /* no train before this, ns << FP_GEN_SHIFT: trains that
	                      catch up come half an interval apart */
};

#define FP_GEN_SHIFT     8   /* fixed-point fraction bits of interval/tat */
#define FP_GEN_HEAD      128 /* template bytes restored on every frame */
#define FP_GEN_LABEL_MAX 63  /* longest DNS label --rand-label rewrites */
#define FP_GEN_TRAIN_MAX 256 /* frames sent back to back (a veth ring) */

#ifndef __bpf__
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FP_GEN_FRAME_MAX     2048  /* largest template frame */
#define FP_GEN_DURATION_MAX  3600  /* seconds */
#define FP_GEN_BATCH         256   /* live-frames batch (the default 64 recycles worse) */

struct fp_gen;

/* Built-in templates. */
enum fp_gen_kind {
	FP_GEN_UDP = 0,    /* 60-byte UDP frame to dport */
	FP_GEN_SYN,        /* TCP SYN to dport, padded to 60 bytes */
	FP_GEN_DNS,        /* DNS query (type A, RD) for qname to port 53 */
};

struct fp_gen_frame_opts {
	enum fp_gen_kind kind;
	uint8_t src_mac[6], dst_mac[6];
	int family;                 /* 4 or 6 */
	uint8_t src[16], dst[16];   /* network order; v4 in [0..3] */
	uint16_t sport, dport;      /* host order */
	const char *qname;          /* FP_GEN_DNS */
};

/* Builds a template frame into buf (FP_GEN_FRAME_MAX bytes) with valid
 * checksums; *len gets its length. */
int fp_gen__build_frame(const struct fp_gen_frame_opts *o, uint8_t *buf, size_t *len,
			char *err, size_t errlen);

/* Reads the first packet of a pcap or pcapng file with Ethernet link type
 * into buf (FP_GEN_FRAME_MAX bytes). */
int fp_gen__read_pcap(const char *path, uint8_t *buf, size_t *len, char *err, size_t errlen);

struct fp_gen_opts {
	int ifindex;                /* frames leave through this interface */
	const uint8_t *frame;       /* the template */
	size_t len;                 /* 14..FP_GEN_FRAME_MAX */
	uint64_t pps;               /* total rate over all threads; 0 = as fast as possible */
	uint64_t count;             /* total frames to send; 0 = until duration */
	double duration;            /* seconds, > 0, <= FP_GEN_DURATION_MAX */
	int threads;                /* >= 1; thread i is pinned to CPU cpu + i */
	int cpu;
	bool rand_src;              /* random IPv4 source within rand_net/rand_plen */
	uint8_t rand_net[4];
	int rand_plen;              /* 0..32 */
	bool rand_label;            /* random bytes in the first DNS label */
	bool rand_sport;            /* random TCP/UDP source port (IPv4) */
};

struct fp_gen_result {
	uint64_t sent;              /* frames the program sent (XDP_TX) */
	uint64_t paced;             /* frames held back by the pacer */
	uint64_t refused;           /* frames the interface refused (UINT64_MAX: not counted) */
	double seconds;             /* wall clock from the first run to the last */
	bool interrupted;           /* *stop was set */
	int threads;
};

/* Checks the options and the template, loads the program. The template is
 * copied (and, for --rand-label, its UDP checksum zeroed). */
int fp_gen__open(const struct fp_gen_opts *o, struct fp_gen **out, char *err, size_t errlen);

/*
 * Runs until the count is sent, the duration passes or *stop becomes
 * non-zero (poll it from a signal handler). Worker threads are interrupted
 * with SIGUSR1: this installs a no-op SIGUSR1 handler (without SA_RESTART)
 * for the process. Fills *r even when it returns an error after sending.
 */
int fp_gen__run(struct fp_gen *g, volatile sig_atomic_t *stop, struct fp_gen_result *r,
		char *err, size_t errlen);

void fp_gen__close(struct fp_gen *g);

#endif /* !__bpf__ */
#endif /* FP_GEN_GEN_H */
