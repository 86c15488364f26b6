/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A small pcapng writer (libpcap reads pcapng but cannot write it).
 *
 *	struct fp_pcapng *p;
 *	fp_pcapng__open(stdout, &(struct fp_pcapng_opts){ .flush = true }, &p);
 *	int ifx = fp_pcapng__add_interface(p, "eth0", FP_PCAPNG_LINKTYPE_ETHERNET, 256);
 *	fp_pcapng__write_packet(p, ifx, ts_ns, data, caplen, origlen, XDP_DROP,
 *				"verdict=drop rule=syn-flood");
 *	fp_pcapng__close(p);
 *
 * What it writes (draft-ietf-opsawg-pcapng), in host byte order (the
 * section's byte-order magic tells readers):
 * - one Section Header Block (version 1.0, section length -1) with
 *   shb_hardware, shb_os and shb_userappl;
 * - an Interface Description Block per interface: link type, snaplen,
 *   if_name, if_tsresol = 9 (timestamps in nanoseconds);
 * - an Enhanced Packet Block per packet: interface, 64-bit timestamp,
 *   captured and original length, data padded to 32 bits, and the options
 *   opt_comment (1) and epb_verdict (7; type 2 = eBPF XDP, then the action
 *   as a signed 64-bit value, as xdpdump writes it; tshark 4 shows it as
 *   frame.verdict, its value as frame.verdict.ebpf_xdp).
 *
 * Every block is built in memory and handed to stdio with one fwrite, so a
 * reader never sees half a block once the stream is flushed. With
 * opts.flush every block is flushed at once (for `-w -` into a pipe:
 * `fastpath dump eth0 -w - | tshark -r -`). With opts.flush_at N and a
 * FILE buffer of N bytes (setvbuf), the writer flushes before a block would
 * overflow the buffer, so stdio never writes part of a block: a process
 * killed at any point leaves a file of whole blocks.
 *
 * Functions return 0 (or an interface index) or a negative errno; nothing
 * prints. A write error (EPIPE when the reader went away, ENOSPC) is
 * returned by the call that hit it and by every later call. The writer never
 * closes the FILE: the caller owns it. Not thread-safe.
 */
#ifndef FP_DUMP_PCAPNG_H
#define FP_DUMP_PCAPNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Block types, option codes and values of the format (also for tests). */
#define FP_PCAPNG_SHB              0x0A0D0D0Au
#define FP_PCAPNG_IDB              0x00000001u
#define FP_PCAPNG_EPB              0x00000006u
#define FP_PCAPNG_MAGIC            0x1A2B3C4Du
#define FP_PCAPNG_OPT_END          0
#define FP_PCAPNG_OPT_COMMENT      1
#define FP_PCAPNG_SHB_HARDWARE     2
#define FP_PCAPNG_SHB_OS           3
#define FP_PCAPNG_SHB_USERAPPL     4
#define FP_PCAPNG_IF_NAME          2
#define FP_PCAPNG_IF_TSRESOL       9
#define FP_PCAPNG_EPB_VERDICT      7
#define FP_PCAPNG_VERDICT_HW       0
#define FP_PCAPNG_VERDICT_EBPF_TC  1
#define FP_PCAPNG_VERDICT_EBPF_XDP 2

#define FP_PCAPNG_LINKTYPE_ETHERNET 1
#define FP_PCAPNG_NO_VERDICT       (-1)   /* write_packet: no epb_verdict */
#define FP_PCAPNG_MAX_IFACES       256
#define FP_PCAPNG_MAX_OPT          65535  /* longest option value (a u16 length) */

struct fp_pcapng;

struct fp_pcapng_opts {
	bool flush;            /* fflush after every block (streaming to a pipe) */
	size_t flush_at;       /* fflush before the bytes since the last one pass this
				* (the FILE's buffer size); 0: when stdio likes */
	const char *userappl;  /* shb_userappl; NULL: "fastpath" */
	const char *os;        /* shb_os; NULL: uname sysname + release */
	const char *hardware;  /* shb_hardware; NULL: uname machine */
};

/*
 * Starts a section on f (writes the section header block). opts may be
 * NULL. -EINVAL for a NULL f, -ENOMEM, or the write's error.
 */
int fp_pcapng__open(FILE *f, const struct fp_pcapng_opts *opts, struct fp_pcapng **out);

/*
 * Writes an interface description block. snaplen 0 means no limit. Returns
 * the interface's index for write_packet (0, 1, ... in the order added), or
 * -EINVAL (name NULL or longer than an option may be), -E2BIG after
 * FP_PCAPNG_MAX_IFACES interfaces, or the write's error.
 */
int fp_pcapng__add_interface(struct fp_pcapng *p, const char *name, uint16_t linktype,
			     uint32_t snaplen);

/*
 * Writes an enhanced packet block: caplen bytes of data (caplen <= origlen,
 * caplen <= the interface's snaplen when it has one), ts_ns nanoseconds
 * since the epoch, verdict an XDP action (XDP_DROP, XDP_PASS, ...) or
 * FP_PCAPNG_NO_VERDICT, comment a packet comment or NULL ("" = none).
 * -EINVAL for an unknown interface or inconsistent lengths, -E2BIG for a
 * comment over FP_PCAPNG_MAX_OPT bytes.
 */
int fp_pcapng__write_packet(struct fp_pcapng *p, uint32_t ifidx, uint64_t ts_ns,
			    const void *data, uint32_t caplen, uint32_t origlen,
			    int64_t verdict, const char *comment);

/* Hands everything written so far to the kernel (fflush). */
int fp_pcapng__flush(struct fp_pcapng *p);

/* Flushes and frees the writer (not the FILE). NULL is fine. Returns the
 * first error the writer met, or the flush's. */
int fp_pcapng__close(struct fp_pcapng *p);

/* Packets written so far. */
uint64_t fp_pcapng__packets(const struct fp_pcapng *p);

/* "aborted", "drop", "pass", "tx", "redirect", or "unknown" (for comments). */
const char *fp_pcapng_xdp_name(int64_t action);

#endif /* FP_DUMP_PCAPNG_H */
