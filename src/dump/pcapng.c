// SPDX-License-Identifier: BSD-2-Clause
/* The pcapng writer (pcapng.h): blocks built in memory, one fwrite each. */
#include "dump/pcapng.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

struct fp_pcapng {
	FILE *f;
	bool flush;
	size_t flush_at;
	size_t pending;          /* bytes written since the last fflush */
	int err;                 /* first write error (sticky), 0 none */
	uint32_t n_ifaces;
	uint32_t snaplen[FP_PCAPNG_MAX_IFACES];
	uint64_t packets;
	uint8_t *buf;            /* the block being built */
	size_t len, cap;
};

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* Makes room for n more bytes in the block buffer. */
static int reserve(struct fp_pcapng *p, size_t n)
{
	size_t cap = p->cap ? p->cap : 256;
	uint8_t *b;

	if (p->len + n <= p->cap)
		return 0;
	while (cap < p->len + n)
		cap *= 2;
	b = realloc(p->buf, cap);
	if (!b)
		return -ENOMEM;
	p->buf = b;
	p->cap = cap;
	return 0;
}

/* Appends n bytes and zero padding up to a multiple of 4. */
static int put(struct fp_pcapng *p, const void *data, size_t n)
{
	size_t padded = pad4(n);
	int ret = reserve(p, padded);

	if (ret)
		return ret;
	if (n)
		memcpy(p->buf + p->len, data, n);
	memset(p->buf + p->len + n, 0, padded - n);
	p->len += padded;
	return 0;
}

static int put_u32(struct fp_pcapng *p, uint32_t v)
{
	return put(p, &v, sizeof(v));
}

/* One option: code, length, value padded to 32 bits. */
static int put_opt(struct fp_pcapng *p, uint16_t code, const void *val, size_t n)
{
	uint16_t hdr[2] = { code, (uint16_t)n };
	int ret;

	if (n > FP_PCAPNG_MAX_OPT)
		return -E2BIG;
	ret = put(p, hdr, sizeof(hdr));
	return ret ? ret : put(p, val, n);
}

static int put_opt_str(struct fp_pcapng *p, uint16_t code, const char *s)
{
	return s && *s ? put_opt(p, code, s, strlen(s)) : 0;
}

/* Starts a block: type and a placeholder for the total length. */
static int block_begin(struct fp_pcapng *p, uint32_t type)
{
	int ret;

	p->len = 0;
	ret = put_u32(p, type);
	return ret ? ret : put_u32(p, 0);
}

/* Ends the options (if any were written since opts_at), fills in both
 * length fields and writes the block. */
static int block_end(struct fp_pcapng *p, size_t opts_at)
{
	uint32_t total;
	int ret = 0;

	if (p->len > opts_at)
		ret = put_opt(p, FP_PCAPNG_OPT_END, NULL, 0);
	if (!ret)
		ret = put_u32(p, 0);
	if (ret)
		return ret;
	total = (uint32_t)p->len;
	memcpy(p->buf + 4, &total, 4);
	memcpy(p->buf + p->len - 4, &total, 4);
	if (p->flush_at && p->pending && p->pending + p->len > p->flush_at) {
		ret = fp_pcapng__flush(p);
		if (ret)
			return ret;
	}
	errno = 0;
	if (fwrite(p->buf, 1, p->len, p->f) != p->len) {
		p->err = errno ? -errno : -EIO;
		return p->err;
	}
	p->pending += p->len;
	if (p->flush)
		return fp_pcapng__flush(p);
	return 0;
}

int fp_pcapng__open(FILE *f, const struct fp_pcapng_opts *opts, struct fp_pcapng **out)
{
	struct fp_pcapng_opts o = { 0 };
	struct fp_pcapng *p;
	struct utsname u;
	char os[2 * sizeof(u.release) + 2] = "";
	uint16_t version[2] = { 1, 0 };
	int64_t section_len = -1;
	size_t opts_at;
	int ret;

	if (!f || !out)
		return -EINVAL;
	if (opts)
		o = *opts;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->f = f;
	p->flush = o.flush;
	p->flush_at = o.flush_at;
	if (uname(&u) == 0) {
		snprintf(os, sizeof(os), "%s %s", u.sysname, u.release);
		if (!o.hardware)
			o.hardware = u.machine;
	}
	if (!o.os)
		o.os = os;
	if (!o.userappl)
		o.userappl = "fastpath";

	ret = block_begin(p, FP_PCAPNG_SHB);
	if (!ret) ret = put_u32(p, FP_PCAPNG_MAGIC);
	if (!ret) ret = put(p, version, sizeof(version));
	if (!ret) ret = put(p, &section_len, sizeof(section_len));
	opts_at = p->len;
	if (!ret) ret = put_opt_str(p, FP_PCAPNG_SHB_HARDWARE, o.hardware);
	if (!ret) ret = put_opt_str(p, FP_PCAPNG_SHB_OS, o.os);
	if (!ret) ret = put_opt_str(p, FP_PCAPNG_SHB_USERAPPL, o.userappl);
	if (!ret) ret = block_end(p, opts_at);
	if (ret) {
		free(p->buf);
		free(p);
		return ret;
	}
	*out = p;
	return 0;
}

int fp_pcapng__add_interface(struct fp_pcapng *p, const char *name, uint16_t linktype,
			     uint32_t snaplen)
{
	uint16_t lt[2] = { linktype, 0 };
	uint8_t tsresol = 9; /* 10^-9 s */
	size_t opts_at;
	int ret;

	if (!p || !name || strlen(name) > FP_PCAPNG_MAX_OPT)
		return -EINVAL;
	if (p->err)
		return p->err;
	if (p->n_ifaces >= FP_PCAPNG_MAX_IFACES)
		return -E2BIG;
	ret = block_begin(p, FP_PCAPNG_IDB);
	if (!ret) ret = put(p, lt, sizeof(lt));
	if (!ret) ret = put_u32(p, snaplen);
	opts_at = p->len;
	if (!ret) ret = put_opt_str(p, FP_PCAPNG_IF_NAME, name);
	if (!ret) ret = put_opt(p, FP_PCAPNG_IF_TSRESOL, &tsresol, 1);
	if (!ret) ret = block_end(p, opts_at);
	if (ret)
		return ret;
	p->snaplen[p->n_ifaces] = snaplen;
	return (int)p->n_ifaces++;
}

int fp_pcapng__write_packet(struct fp_pcapng *p, uint32_t ifidx, uint64_t ts_ns,
			    const void *data, uint32_t caplen, uint32_t origlen,
			    int64_t verdict, const char *comment)
{
	uint32_t hdr[5] = { ifidx, (uint32_t)(ts_ns >> 32), (uint32_t)ts_ns, caplen, origlen };
	uint8_t v[9];
	size_t opts_at;
	int ret;

	if (!p || ifidx >= p->n_ifaces || caplen > origlen || (caplen && !data))
		return -EINVAL;
	if (p->snaplen[ifidx] && caplen > p->snaplen[ifidx])
		return -EINVAL;
	if (comment && strlen(comment) > FP_PCAPNG_MAX_OPT)
		return -E2BIG;
	if (p->err)
		return p->err;
	ret = block_begin(p, FP_PCAPNG_EPB);
	if (!ret) ret = put(p, hdr, sizeof(hdr));
	if (!ret) ret = put(p, data, caplen);
	opts_at = p->len;
	if (!ret) ret = put_opt_str(p, FP_PCAPNG_OPT_COMMENT, comment);
	if (!ret && verdict != FP_PCAPNG_NO_VERDICT) {
		v[0] = FP_PCAPNG_VERDICT_EBPF_XDP;
		memcpy(v + 1, &verdict, 8);
		ret = put_opt(p, FP_PCAPNG_EPB_VERDICT, v, sizeof(v));
	}
	if (!ret) ret = block_end(p, opts_at);
	if (!ret)
		p->packets++;
	return ret;
}

int fp_pcapng__flush(struct fp_pcapng *p)
{
	if (!p)
		return -EINVAL;
	if (p->err)
		return p->err;
	errno = 0;
	if (fflush(p->f)) {
		p->err = errno ? -errno : -EIO;
		return p->err;
	}
	p->pending = 0;
	return 0;
}

int fp_pcapng__close(struct fp_pcapng *p)
{
	int ret;

	if (!p)
		return 0;
	ret = fp_pcapng__flush(p);
	free(p->buf);
	free(p);
	return ret;
}

uint64_t fp_pcapng__packets(const struct fp_pcapng *p)
{
	return p ? p->packets : 0;
}

const char *fp_pcapng_xdp_name(int64_t action)
{
	static const char *const names[] = { "aborted", "drop", "pass", "tx", "redirect" };

	if (action < 0 || action >= (int64_t)(sizeof(names) / sizeof(names[0])))
		return "unknown";
	return names[action];
}
