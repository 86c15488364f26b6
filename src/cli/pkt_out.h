/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The packet file a command writes (`dump` and `capture`): -w FILE or -w -
 * (stdout, usually a pipe into tshark), pcapng or pcap with nanosecond
 * timestamps.
 *
 * The same promises for every command that writes one:
 *  - the file header is written at once, so a reader starts before the
 *    first packet and a file killed with -9 is readable;
 *  - a file gets whole FILE buffers (pcapng: whole blocks, flush_at) or
 *    what it holds after at most PKT_OUT_FLUSH_MS; a stream gets every
 *    batch at once;
 *  - a pipe whose reader went away (`-w - | head`) ends the command
 *    cleanly: pkt_out_close() says so with *gone, not as a failure.
 *
 *	struct pkt_out o;
 *	if (pkt_out_open(&o, path, true, ifname, snaplen, 64 * 1024) < 0) ...
 *	while (...) { pkt_out_write(&o, ...); if (pkt_out_tick(&o, idle)) break; }
 *	ret = pkt_out_close(&o, &gone);
 */
#ifndef FP_CLI_PKT_OUT_H
#define FP_CLI_PKT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <pcap/pcap.h>

#include "cli/cli.h"
#include "dump/pcapng.h"

#define PKT_OUT_FLUSH_MS 100 /* a file lags at most this (and a buffer) */

struct pkt_out {
	FILE *fh;                 /* the file, or stdout */
	bool pipe_out;            /* a FIFO: watch for its reader going away */
	pcap_t *dead;             /* pcap: the handle pcap_dump needs */
	pcap_dumper_t *pd;        /* pcap */
	struct fp_pcapng *ng;     /* pcapng */
	int ifx;                  /* pcapng: the interface's id */
	uint32_t snaplen;
	struct timespec flushed;  /* the last flush of a file */
	int err;                  /* the first write error, -errno */
};

/* Checks -w's argument: `-w --drops` is a forgotten FILE, not a file named
 * --drops. CLI_OK, or the usage error (printed). */
int pkt_out_check_path(const struct cli *cli, const char *path);

/* Opens path ("-" = stdout) for writing, with a FILE buffer of buf bytes
 * for a file, and writes the header: pcapng (one interface, ifname) or
 * pcap. 0 or -errno; *opened is false when the file itself could not be
 * opened (say "cannot write"), true when writing it failed after. On an
 * error nothing is left open. */
int pkt_out_open(struct pkt_out *o, const char *path, bool pcapng, const char *ifname,
		 uint32_t snaplen, size_t buf, bool *opened);

/* One packet: ts_ns since the epoch, cap bytes of data kept of len; with
 * pcapng the XDP verdict (FP_PCAPNG_NO_VERDICT for none) and a comment
 * (NULL for none). 0 or -errno (also kept in o->err). */
int pkt_out_write(struct pkt_out *o, uint64_t ts_ns, const void *data, uint32_t cap,
		  uint32_t len, int64_t verdict, const char *comment);

/* After each batch (idle: the batch brought nothing): flushes as promised,
 * then checks the FILE's error and a pipe's reader. 0 or o->err. */
int pkt_out_tick(struct pkt_out *o, bool idle);

/* Flushes and closes the writer (the FILE too, unless it is stdout).
 * A reader that went away sets *gone and is no error. 0 or -errno. */
int pkt_out_close(struct pkt_out *o, bool *gone);

#endif
