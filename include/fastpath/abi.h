/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The pipeline's ABI: what the entry program and every stage share (the
 * parse of the packet, the slots, the control word, the decision a stage
 * offers the dump) and what is pinned for the pipeline itself. Each stage
 * has its own header beside this one (filter_abi.h, dump_abi.h, ...) and
 * its own version, so a stage's layout change reloads only that stage.
 * Sizes are asserted. Bump FP_ABI_VERSION whenever a layout here changes.
 */
#ifndef FASTPATH_ABI_H
#define FASTPATH_ABI_H

#ifdef __bpf__
#include <linux/types.h>
#else
#include <linux/types.h>
#include <assert.h>
#define FP_ABI_ASSERT(cond) _Static_assert(cond, #cond)
#endif
#ifndef FP_ABI_ASSERT
#define FP_ABI_ASSERT(cond)
#endif

#define FP_ABI_VERSION 25

/*
 * Stage slots of the PROG_ARRAY fp_stages, in pipeline order. A stage that
 * passes hands the packet to the next filled slot below FP_STAGE_CHAIN;
 * none left: XDP_PASS. Slot 5 is free for a stage to come (the tests'
 * mark stage takes it). FP_SLOT_TAP is not in the chain: a stage
 * tail-calls it to offer its decision to a running dump (fp_stage_end).
 */
enum fp_stage {
	FP_STAGE_DUMP   = 0,
	FP_STAGE_FILTER = 1,
	FP_STAGE_LB     = 2,
	FP_STAGE_STEER  = 3,
	FP_STAGE_BRIDGE = 4,
	FP_STAGE_DECAP  = 6, /* the lb's backend side (src/decap) */
	FP_STAGE_CHAIN  = 7, /* slots 0..6 make the chain */
	FP_SLOT_TAP     = 7, /* the dump's tap (src/dump) */
	FP_STAGE_MAX    = 8, /* size of fp_stages */
};

/*
 * fp_pkt.have: which parts of the packet the parser found whole, and so
 * which fields of struct fp_pkt hold the packet's values. A field no set bit
 * makes valid holds zero: fp_parse clears what it does not write (all
 * from pkt_len to dst), so nothing of the packet before on the same CPU
 * shows through (a limiter keyed on src once gave an IPv4 source a
 * new bucket after each IPv6 packet: stale bytes 4..15).
 *   always        pkt_len; dump_mark (the dump stage's mark, 0 until set);
 *                 facts (0 until a stage sets its bit)
 *   FP_HAVE_L2    n_vlan, vlan[0 .. n_vlan - 1] (vlan[i >= n_vlan]: 0)
 *   FP_HAVE_L3    l3 (4 or 6; else 0), l3_off, len, ttl, ip_end, src, dst
 *                 (IPv4: bytes 0..3, bytes 4..15 zero); FP_HAVE_FRAG
 *   FP_HAVE_PROTO proto (without it 0; IPv6 whose chain of extension
 *                 headers could not be walked has L3 but not PROTO)
 *   FP_HAVE_PORTS l4_off, sport, dport
 *   FP_HAVE_TCP   tcp_flags
 *   FP_HAVE_DNS   qtype, qname_len, n_labels (0 without it), qname[0 ..
 *                 qname_len - 1], label_off[0 .. n_labels - 1]. Looked for
 *                 only on demand (FP_HAVE_DNS_PARSED): qname[] and
 *                 label_off[] are never cleared and hold leftovers (of this
 *                 or an earlier packet) wherever FP_HAVE_DNS does not make
 *                 them valid.
 *   stage[]       the running stage's own (each stage writes it first)
 *   verdict       written by a stage just before it offers its decision
 *                 to the dump's tap (fp_stage_end), read by the tap only
 *   fact[s]       a fact stage s hands to later stages (lb: the VIP and
 *                 backend it chose), valid when bit s of facts is set;
 *                 the stage that owns a word is the only one to write it
 *
 * A stage that moves the packet's head or tail (bpf_xdp_adjust_head, as
 * the lb's encapsulation does) or rewrites its headers ends the chain
 * (XDP_TX, XDP_REDIRECT, XDP_DROP): the parse then no longer describes
 * the frame, and no later stage may read it. A stage that passes leaves
 * the frame as it found it.
 */
enum fp_have {
	FP_HAVE_L2    = 1 << 0, /* Ethernet header */
	FP_HAVE_L3    = 1 << 1, /* valid IPv4 or IPv6 header (l3 says which) */
	FP_HAVE_PROTO = 1 << 2, /* upper-layer protocol known */
	FP_HAVE_FRAG  = 1 << 3, /* IP fragment (v4 MF/offset, v6 fragment header) */
	FP_HAVE_PORTS = 1 << 4, /* whole TCP or UDP header: sport/dport */
	FP_HAVE_TCP   = 1 << 5, /* whole TCP header: tcp_flags */
	FP_HAVE_DNS   = 1 << 6, /* readable first question of a DNS query */
	FP_HAVE_DNS_PARSED = 1 << 7, /* the DNS question was looked for (stages
				      * parse it only when their terms need it) */
};

#define FP_DNS_LABELS_MAX 128 /* labels in a name of <= 255 bytes, root included */

/*
 * A stage's decision, offered to a running dump (bpf/lib/pipeline.h,
 * fp_stage_end): the dump samples it with the stage's name and reason.
 */
struct fp_verdict {
	__u8  slot;            /* the deciding stage's slot (enum fp_stage) */
	__u8  action;          /* the XDP action it gave (XDP_PASS: on down the chain) */
	__u16 serial;          /* the stage's configuration serial, low bits
				* (the filter's generation) */
	__u32 reason;          /* the stage's own (the filter: rule index, or
				* FP_NO_REASON for its default) */
	__u64 ident;           /* the stage's own (the filter: the rule's ident) */
};
FP_ABI_ASSERT(sizeof(struct fp_verdict) == 16);
#define FP_NO_REASON 0xffffffffu

/*
 * The one parse of a packet, made by the entry program into per-CPU scratch
 * and read by every stage. Offsets are from the start of the frame.
 */
struct fp_pkt {
	__u32 pkt_len;         /* frame length */
	__u32 len;             /* IPv4 total length / IPv6 payload length + 40 (may pass 65535) */
	__u16 l3_off;          /* start of the IP header */
	__u16 l4_off;          /* start of the L4 header (FP_HAVE_PORTS) */
	__u16 ip_end;          /* end of the IP datagram within the frame */
	__u16 have;            /* FP_HAVE_* */
	__u8  l3;              /* 0, 4 or 6 */
	__u8  proto;           /* upper-layer protocol (FP_HAVE_PROTO) */
	__u8  ttl;             /* TTL / hop limit */
	__u8  tcp_flags;       /* byte 13 of the TCP header */
	__u8  n_vlan;          /* tags parsed: 0..2 */
	__u8  n_labels;        /* labels of qname, the root included */
	__u16 vlan[2];         /* VIDs, outer first */
	__u16 sport, dport;    /* host byte order */
	__u16 qtype;           /* host byte order */
	__u16 qname_len;       /* wire length of qname, root included */
	__u8  dump_mark;       /* the dump stage selected this packet (--match) */
	__u8  facts;           /* bit s: fact[s] holds stage s's fact */
	__u16 ethertype;       /* after the VLAN tags (FP_HAVE_L2; 0: none, a
				* third tag or one cut short) */
	__u8  src[16];         /* IPv4 in src[0..3], src[4..15] zero */
	__u8  dst[16];         /* (fp_parse clears the struct up to here) */
	__u64 stage[6];        /* the running stage's own state for this packet
				* (the filter's struct fp_cls): in the scratch the
				* stage reads anyway, not a map of its own */
	__u8  label_off[FP_DNS_LABELS_MAX]; /* offset in qname[] of each length byte */
	__u8  qname[264];      /* first question's name, wire format, A-Z lowered;
				* 8 bytes of slack so words can be read at any offset */
	struct fp_verdict verdict; /* the decision offered to the dump's tap */
	__u32 fact[FP_STAGE_MAX];  /* facts for later stages, one word per slot */
	__u8  pad[16];
};
FP_ABI_ASSERT(sizeof(struct fp_pkt) == 576);
/* fp_parse clears it by words: bytes 0..39 (all before src, src[0..1]), and
 * without IP 40..71 (the rest of src, dst) */
FP_ABI_ASSERT(__builtin_offsetof(struct fp_pkt, src) == 38);
FP_ABI_ASSERT(__builtin_offsetof(struct fp_pkt, stage) == 72);

/*
 * fp_meta: the pipeline on an interface (pinned as ROOT/IFACE/fp_meta).
 * Its first word is the ABI version, as in every stage's meta map, so a
 * reader of any version can tell an old pin before it reads the rest.
 */
enum { FP_META_AUTO = 1 }; /* loaded by a stage's load: its last stage's
			    * unload unloads the pipeline too */
struct fp_meta {
	__u32 abi_version;     /* FP_ABI_VERSION of the loader */
	__u32 ifindex;
	__u32 xdp_flags;       /* XDP_FLAGS_DRV_MODE or XDP_FLAGS_SKB_MODE */
	__u32 flags;           /* FP_META_* */
	__u64 loaded_ns;       /* CLOCK_REALTIME at load */
	__u32 attached_slot;   /* the stage whose fused entry is attached
				* (FP_STAGE_MAX: the plain fp_entry) */
	__u32 pad[3];
};
FP_ABI_ASSERT(sizeof(struct fp_meta) == 40);

/*
 * fp_ctl: the pipeline's control word (one entry, mmapable, one cache
 * line every stage reads anyway). Each field has one writer and is
 * written alone (not the whole entry), so writers never undo each other.
 *   enabled  bit s: slot s is enabled. The pipeline sets it after it
 *            fills the slot and clears it before it empties it, so a
 *            fused entry (which runs its own stage without the slot and
 *            tries the earlier slots only while their bits are set) and
 *            the plain entry (which follows the slots) agree.
 *   dump     FP_CTL_DUMP_*: a `fastpath dump` runs; stages then offer
 *            their decisions to the tap (written by the dump, and cleared
 *            by its exit program when the dump's process dies).
 */
enum { FP_CTL_DUMP_ACTIVE = 1,   /* offer decisions to the tap */
       FP_CTL_DUMP_OWN_RATE = 2, /* at each stage's own rate (the filter:
				  * a rule's `sample 1/N`), else every one */
};
struct fp_ctl {
	__u32 enabled;
	__u32 dump;
	__u64 pad[7];
};
FP_ABI_ASSERT(sizeof(struct fp_ctl) == 64);

struct fp_counter {
	__u64 packets;
	__u64 bytes;
};
FP_ABI_ASSERT(sizeof(struct fp_counter) == 16);

#endif /* FASTPATH_ABI_H */
