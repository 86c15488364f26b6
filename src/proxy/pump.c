// SPDX-License-Identifier: BSD-2-Clause
/*
 * The byte pumps of a proxied connection (pump.h): copied bytes (heads,
 * chunk lines) out of c->out, body bytes client->backend, and the
 * backend's bytes back to the client. conn.c decides what moves and how
 * much; these only move it, by the server's data path:
 *   splice   both ways socket -> pipe -> socket, never in user space,
 *            but for small responses (under 16 KiB: one recv, one send);
 *   copy     read into and written from the proxy's memory (a baseline);
 *   sockmap  responses redirected in the kernel by a BPF verdict program
 *            (pump_sockmap.c), bodies spliced as above.
 */
#include "proxy/pump.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/socket.h>

#define SPLICE_CHUNK (1u << 18)
#define COPY_CHUNK (1u << 16)

/* A pipe of SPLICE_CHUNK: 1 MiB moves in 4 splices each way, not 16
 * (past the user's pipe page budget it stays at the 64 KiB default). */
static int make_pipe(int p[2])
{
	if (p[0] >= 0)
		return 0;
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC))
		return -errno;
	(void)fcntl(p[1], F_SETPIPE_SZ, SPLICE_CHUNK);
	return 0;
}

int px_out_reserve(struct px_conn *c, size_t n)
{
	if (c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	if (c->out_len + n > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 4096;
		char *o;

		while (cap < c->out_len + n)
			cap *= 2;
		o = realloc(c->out, cap);
		if (!o)
			return -ENOMEM;
		c->out = o;
		c->out_cap = cap;
	}
	return 0;
}

int px_out_append(struct px_conn *c, const char *p, size_t n)
{
	if (px_out_reserve(c, n))
		return -ENOMEM;
	memcpy(c->out + c->out_len, p, n);
	c->out_len += n;
	return 0;
}

void px_consume_in(struct px_conn *c, size_t n)
{
	memmove(c->in, c->in + n, c->in_len - n);
	c->in_len -= n;
}

/* Pending copied bytes to the backend. MOVED when all are out (or some went),
 * BLOCKED when the socket is full. */
int px_flush_out(struct px_server *s, struct px_conn *c, bool *empty)
{
	bool moved = false;

	while (c->out_off < c->out_len) {
		ssize_t n = send(c->bfd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			*empty = false;
			if (errno == EAGAIN)
				return moved;
			return FAILED;
		}
		c->out_off += (size_t)n;
		moved = true;
	}
	*empty = true;
	(void)s;
	return moved;
}

/* Body bytes: from c->in first (already read: copied), else spliced. */
int px_body_bytes(struct px_server *s, struct px_conn *c, uint64_t want, uint64_t *got)
{
	struct fp_px_backend_stats *bs = &s->backends[c->backend];
	ssize_t n;

	*got = 0;
	if (c->in_len) {
		size_t take = c->in_len < want ? c->in_len : (size_t)want;

		if (px_out_append(c, c->in, take))
			return FAILED;
		px_consume_in(c, take);
		bs->bytes_copied += take;
		*got = take;
		return MOVED;
	}
	if (s->cfg->data_path == FP_PX_DATA_COPY) {
		size_t take = want < COPY_CHUNK ? (size_t)want : COPY_CHUNK;

		if (!c->c_readable)
			return BLOCKED;
		if (px_out_reserve(c, take))
			return FAILED;
		n = recv(c->cfd, c->out + c->out_len, take, MSG_DONTWAIT);
		if (n == 0) {
			c->client_eof = true;
			return FAILED;
		}
		if (n < 0)
			return errno == EAGAIN ? px_client_drained(c) : FAILED;
		c->out_len += (size_t)n;
		bs->bytes_copied += (uint64_t)n;
		*got = (uint64_t)n;
		return MOVED;
	}
	if (!c->c_readable)
		return BLOCKED;
	if (make_pipe(c->cp))
		return FAILED;
	n = splice(c->cfd, NULL, c->cp[1], NULL, want < SPLICE_CHUNK ? want : SPLICE_CHUNK,
		   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
	if (n == 0) {
		c->client_eof = true;
		return FAILED; /* the client left in the middle of a body */
	}
	if (n < 0)
		return errno == EAGAIN ? px_client_drained(c) : FAILED;
	c->cp_bytes += (size_t)n;
	*got = (uint64_t)n;
	return MOVED;
}

/* The client->backend pipe into the backend. */
int px_drain_cp(struct px_server *s, struct px_conn *c)
{
	bool moved = false;

	while (c->cp_bytes) {
		ssize_t n = splice(c->cp[0], NULL, c->bfd, NULL, c->cp_bytes,
				   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);

		if (n < 0)
			return errno == EAGAIN ? moved : FAILED;
		c->cp_bytes -= (size_t)n;
		s->backends[c->backend].bytes_spliced += (uint64_t)n;
		moved = true;
	}
	return moved;
}

/* backend -> pipe -> client, never through user space, except a small
 * burst: while the backend's bursts stay under SMALL_READ, each is read
 * with one recv() and written with one send() (copied: 2 calls, not a
 * splice in, a splice out and an EAGAIN); a read that fills SMALL_READ
 * sends those bytes and splices the rest of the burst, and later bursts,
 * until SMALL_BURSTS bursts in a row were small again. bp_bytes counts
 * the bytes on their way: bb_left of them in bbuf (sent first: they came
 * first), the others in the pipe. */
#define SMALL_READ (1u << 14)
#define SMALL_BURSTS 4

/*
 * A burst that is exactly one response head announcing a body (a status
 * with one, Content-Length > 0, no Transfer-Encoding) while the body is
 * still on its way (nginx writes the two apart): held up to HOLD_MS, so
 * that head and body reach the client in one send, one segment, not two
 * deliveries and wakeups of the client. Never on a connection that sent
 * HEAD (its responses announce bodies they do not have); the bytes are
 * unchanged, only their send waits, and no longer than HOLD_MS.
 */
#define HOLD_MS 2

static bool head_awaits_body(const char *p, size_t n)
{
	const char *end, *l;
	bool cl = false;
	int st;

	if (n < 16 || n > 4096 || memcmp(p, "HTTP/1.", 7) || p[8] != ' ' ||
	    memcmp(p + n - 4, "\r\n\r\n", 4))
		return false;
	end = memmem(p, n, "\r\n\r\n", 4);
	if (end != p + n - 4)
		return false; /* more than one head: pipelined responses */
	for (int i = 9; i < 12; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	st = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
	if (st < 200 || st == 204 || st == 304)
		return false;
	for (l = memchr(p, '\n', n); l && l < end; l = memchr(l + 1, '\n', (size_t)(end - l))) {
		const char *v = l + 1;

		if (!strncasecmp(v, "transfer-encoding:", 18))
			return false;
		if (!strncasecmp(v, "content-length:", 15)) {
			for (v += 15; *v == ' ' || *v == '\t'; v++)
				;
			cl = *v >= '1' && *v <= '9';
		}
	}
	return cl;
}

/* Whether a held head waits on: no backend EOF or hang-up, not past HOLD_MS. */
static bool held(struct px_conn *c)
{
	if (!c->b_hold)
		return false;
	if (!c->backend_eof && !c->b_hup && px_now_ms() - c->hold_ms < HOLD_MS)
		return true;
	c->b_hold = c->kwait = false;
	return false;
}

static int b2c_small(struct px_server *s, struct px_conn *c)
{
	size_t room;
	ssize_t n;

	if (!c->bbuf && !(c->bbuf = malloc(SMALL_READ)))
		return FAILED;
	if (!c->bb_left)
		c->bb_off = 0;
	room = SMALL_READ - c->bb_off - c->bb_left; /* a held head stays in front */
	n = recv(c->bfd, c->bbuf + c->bb_off + c->bb_left, room, MSG_DONTWAIT);
	if (n > 0) {
		bool fresh = !c->bb_left;

		c->bb_left += (size_t)n;
		c->bp_bytes += (size_t)n;
		s->backends[c->backend].bytes_copied += (uint64_t)n;
		c->b_hold = c->kwait = false;
		if ((size_t)n == room) {
			c->b_big = true; /* more may wait: splice the rest */
			c->b_burst = 0;
			return MOVED;
		}
		if (!c->b_hup)
			c->b_readable = false; /* emptied: the next bytes bring an event */
		if (fresh && !c->b_no_hold && !c->b_hup &&
		    head_awaits_body(c->bbuf + c->bb_off, c->bb_left)) {
			c->b_hold = c->kwait = true; /* the server polls: released in HOLD_MS */
			c->hold_ms = px_now_ms();
		}
		return MOVED;
	}
	if (n < 0 && errno == EAGAIN) {
		c->b_readable = false;
		return BLOCKED;
	}
	c->backend_eof = true; /* EOF or reset */
	return FAILED;
}

int px_b2c_splice(struct px_server *s, struct px_conn *c)
{
	bool moved = false;

	for (;;) {
		ssize_t n;

		if (c->bb_left && !held(c)) {
			n = send(c->cfd, c->bbuf + c->bb_off, c->bb_left, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n < 0)
				return errno == EAGAIN ? moved : FAILED;
			c->bb_off += (size_t)n;
			c->bb_left -= (size_t)n;
			c->bp_bytes -= (size_t)n;
			moved = true;
			if (c->st == PX_HEAD && !c->in_len)
				c->deadline_ms = px_now_ms() + s->cfg->header_timeout_ms;
			continue;
		}
		if (c->bp_bytes > c->bb_left) { /* in the pipe (none while a head is held) */
			n = splice(c->bp[0], NULL, c->cfd, NULL, c->bp_bytes - c->bb_left,
				   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
			if (n < 0)
				return errno == EAGAIN ? moved : FAILED;
			c->bp_bytes -= (size_t)n;
			s->backends[c->backend].bytes_spliced += (uint64_t)n;
			moved = true;
			if (c->st == PX_HEAD && !c->in_len)
				c->deadline_ms = px_now_ms() + s->cfg->header_timeout_ms;
			continue;
		}
		if (c->backend_eof || !c->b_readable)
			return moved; /* nothing new since the last EAGAIN: no syscall */
		if (!c->b_big) {
			int r = b2c_small(s, c);

			if (r == FAILED)
				return MOVED; /* backend_eof: the caller sees it */
			if (r == BLOCKED)
				return moved;
			moved = true;
			continue;
		}
		if (make_pipe(c->bp))
			return FAILED;
		n = splice(c->bfd, NULL, c->bp[1], NULL, SPLICE_CHUNK,
			   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
		if (n > 0) {
			c->bp_bytes += (size_t)n;
			c->b_burst += (uint64_t)n;
			moved = true;
			continue;
		}
		if (n < 0 && errno == EAGAIN) {
			/* a burst ends: after SMALL_BURSTS small ones, copy again */
			c->b_small_bursts = c->b_burst < SMALL_READ ? c->b_small_bursts + 1 : 0;
			if (c->b_small_bursts >= SMALL_BURSTS) {
				c->b_big = false;
				c->b_small_bursts = 0;
			}
			c->b_burst = 0;
			c->b_readable = false;
			return moved;
		}
		c->backend_eof = true; /* EOF or reset */
		return MOVED;
	}
}

/* backend -> the proxy's buffer -> client: what a plain user-space proxy
 * does (bp_bytes: bytes in bbuf not yet sent) */
static int b2c_copy(struct px_server *s, struct px_conn *c)
{
	struct fp_px_backend_stats *bs = &s->backends[c->backend];
	bool moved = false;

	for (;;) {
		ssize_t n;

		if (c->bp_bytes) {
			n = send(c->cfd, c->bbuf + c->bb_off, c->bp_bytes, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n < 0)
				return errno == EAGAIN ? moved : FAILED;
			c->bb_off += (size_t)n;
			c->bp_bytes -= (size_t)n;
			moved = true;
			if (c->st == PX_HEAD && !c->in_len)
				c->deadline_ms = px_now_ms() + s->cfg->header_timeout_ms;
			continue;
		}
		if (c->backend_eof || !c->b_readable)
			return moved;
		if (!c->bbuf && !(c->bbuf = malloc(COPY_CHUNK)))
			return FAILED;
		n = recv(c->bfd, c->bbuf, COPY_CHUNK, MSG_DONTWAIT);
		if (n > 0 && n < (ssize_t)COPY_CHUNK && !c->b_hup)
			c->b_readable = false; /* emptied: the next bytes bring an event */
		if (n > 0) {
			c->bp_bytes = (size_t)n;
			c->bb_off = 0;
			bs->bytes_copied += (uint64_t)n;
			moved = true;
			continue;
		}
		if (n < 0 && errno == EAGAIN) {
			c->b_readable = false;
			return moved;
		}
		c->backend_eof = true; /* EOF or reset */
		return MOVED;
	}
}

int px_b2c(struct px_server *s, struct px_conn *c)
{
	if (c->bfd < 0 || c->connecting)
		return BLOCKED;
	if (c->in_map)
		return px_b2c_sockmap(s, c);
	if (s->cfg->data_path == FP_PX_DATA_COPY)
		return b2c_copy(s, c);
	return px_b2c_splice(s, c);
}

void px_pump_close(struct px_server *s, struct px_conn *c)
{
	if (c->in_map)
		px_sockmap_detach(s, c);
	for (int i = 0; i < 2; i++) {
		if (c->cp[i] >= 0)
			close(c->cp[i]);
		if (c->bp[i] >= 0)
			close(c->bp[i]);
	}
	free(c->bbuf);
	free(c->out);
}

static const char *const data_path_names[] = { "splice", "copy", "sockmap" };

const char *fp_px_data_path__name(enum fp_px_data_path p)
{
	return (unsigned)p < 3 ? data_path_names[p] : "?";
}

int fp_px_data_path__parse(const char *name, enum fp_px_data_path *p)
{
	for (unsigned i = 0; i < 3; i++) {
		if (!strcmp(name, data_path_names[i])) {
			*p = (enum fp_px_data_path)i;
			return 0;
		}
	}
	return -EINVAL;
}
