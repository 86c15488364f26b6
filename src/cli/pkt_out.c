// SPDX-License-Identifier: BSD-2-Clause
/* The packet file of `dump` and `capture`: see pkt_out.h. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli_num.h"
#include "cli/pkt_out.h"

int pkt_out_check_path(const struct cli *cli, const char *path)
{
	if (path[0] == '-' && path[1])
		return cli_usage(cli, "-w '%s': give FILE (./%s for a file of that name) "
				 "or - for stdout", path, path);
	return CLI_OK;
}

static int open_writer(struct pkt_out *o, bool pcapng, const char *ifname, size_t buf)
{
	int ret;

	if (!pcapng) {
		o->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, o->snaplen,
							       PCAP_TSTAMP_PRECISION_NANO);
		o->pd = o->dead ? pcap_dump_fopen(o->dead, o->fh) : NULL;
		if (!o->pd)
			return -EIO;
		return pcap_dump_flush(o->pd) ? -EIO : 0;
	}
	ret = fp_pcapng__open(o->fh, &(struct fp_pcapng_opts){ .flush = o->fh == stdout,
							       .flush_at = buf }, &o->ng);
	if (!ret)
		ret = o->ifx = fp_pcapng__add_interface(o->ng, ifname, FP_PCAPNG_LINKTYPE_ETHERNET,
							o->snaplen);
	if (ret >= 0)
		ret = fp_pcapng__flush(o->ng);
	return ret < 0 ? ret : 0;
}

static void close_writer(struct pkt_out *o)
{
	if (o->pd)
		o->err = o->err ? o->err : (pcap_dump_flush(o->pd) ? -EIO : 0);
	o->pd = NULL; /* pcap_dump_close would fclose o->fh: closed below */
	if (o->ng) {
		int ret = fp_pcapng__close(o->ng);

		o->err = o->err ? o->err : ret;
	}
	o->ng = NULL;
	if (o->dead)
		pcap_close(o->dead);
	o->dead = NULL;
}

int pkt_out_open(struct pkt_out *o, const char *path, bool pcapng, const char *ifname,
		 uint32_t snaplen, size_t buf, bool *opened)
{
	struct stat sb;
	int ret;

	*o = (struct pkt_out){ .snaplen = snaplen };
	*opened = false;
	o->fh = strcmp(path, "-") ? fopen(path, "wb") : stdout;
	if (!o->fh)
		return -errno;
	*opened = true;
	o->pipe_out = fstat(fileno(o->fh), &sb) == 0 && S_ISFIFO(sb.st_mode);
	if (o->fh != stdout)
		setvbuf(o->fh, NULL, _IOFBF, buf);
	clock_gettime(CLOCK_MONOTONIC, &o->flushed);
	ret = open_writer(o, pcapng, ifname, buf);
	if (ret) {
		bool gone;

		pkt_out_close(o, &gone);
		return ret;
	}
	return 0;
}

int pkt_out_write(struct pkt_out *o, uint64_t ts_ns, const void *data, uint32_t cap,
		  uint32_t len, int64_t verdict, const char *comment)
{
	if (o->pd) {
		struct pcap_pkthdr h = {
			.ts = { .tv_sec = ts_ns / 1000000000ull,
				.tv_usec = ts_ns % 1000000000ull }, /* ns precision */
			.caplen = cap, .len = len,
		};

		pcap_dump((u_char *)o->pd, &h, data);
		return 0;
	}
	int ret = fp_pcapng__write_packet(o->ng, o->ifx, ts_ns, data, cap, len, verdict, comment);

	if (ret && !o->err)
		o->err = ret;
	return ret;
}

/* A pipe's reader went away: poll reports POLLERR on the write end. */
static bool reader_gone(int fd)
{
	struct pollfd p = { .fd = fd, .events = 0 };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

int pkt_out_tick(struct pkt_out *o, bool idle)
{
	struct timespec t;

	if (o->err)
		return o->err;
	clock_gettime(CLOCK_MONOTONIC, &t);
	/* a stream gets each batch at once, a file whole buffers or 100 ms */
	if (o->fh == stdout || idle || cli_ms_between(&o->flushed, &t) >= PKT_OUT_FLUSH_MS) {
		if (o->pd)
			o->err = pcap_dump_flush(o->pd) ? -EIO : 0;
		else
			o->err = fp_pcapng__flush(o->ng);
		o->flushed = t;
	}
	if (!o->err && ferror(o->fh))
		o->err = -EIO;
	if (!o->err && o->pipe_out && reader_gone(fileno(o->fh)))
		o->err = -EPIPE;
	return o->err;
}

int pkt_out_close(struct pkt_out *o, bool *gone)
{
	int ret;

	*gone = false;
	if (!o->fh)
		return 0;
	close_writer(o);
	ret = o->err;
	/* the end of `-w - | head`: not a failure */
	if (ret == -EPIPE || (o->pipe_out && ferror(o->fh))) {
		*gone = true;
		ret = 0;
	}
	if (o->fh != stdout) {
		if (fclose(o->fh) && !ret && !*gone)
			ret = -errno;
	} else {
		fflush(o->fh);
	}
	o->fh = NULL;
	return ret;
}
