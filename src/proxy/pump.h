/* SPDX-License-Identifier: BSD-2-Clause */
/* Internal to src/proxy/: the byte pumps of one connection (pump.c). Each
 * moves what it can without blocking and says whether anything moved. */
#ifndef FP_PROXY_PUMP_H
#define FP_PROXY_PUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proxy/conn.h"

enum { MOVED = 1, BLOCKED = 0, FAILED = -1 };

/* Bytes for the backend, copied into c->out (a head, chunk lines). */
int px_out_append(struct px_conn *c, const char *p, size_t n);
/* Room for n more bytes at c->out + c->out_len. */
int px_out_reserve(struct px_conn *c, size_t n);
/* Drops n bytes from the front of c->in. */
void px_consume_in(struct px_conn *c, size_t n);
/* c->out into the backend; *empty once all of it is out. */
int px_flush_out(struct px_server *s, struct px_conn *c, bool *empty);
/* Up to want body bytes from the client: those already in c->in (copied),
 * else spliced into the client->backend pipe; *got how many. */
int px_body_bytes(struct px_server *s, struct px_conn *c, uint64_t want, uint64_t *got);
/* The client->backend pipe into the backend. */
int px_drain_cp(struct px_server *s, struct px_conn *c);
/* The backend's bytes to the client, unparsed, by the data path. bp_bytes
 * is what is on its way (in a pipe, a buffer, or the kernel's redirect). */
int px_b2c(struct px_server *s, struct px_conn *c);
int px_b2c_splice(struct px_server *s, struct px_conn *c);
/* Frees what the pumps hold for c (pipes, buffers, map entries); the
 * sockets are the caller's. */
void px_pump_close(struct px_server *s, struct px_conn *c);

/* ---- the sockmap data path (pump_sockmap.c) ---- */

/* Loads the verdict program and its maps sized for max_conns; 0 or
 * -errno with err filled. */
int px_sockmap_setup(struct px_server *s, char *err, size_t errlen);
void px_sockmap_teardown(struct px_server *s);
/* Once the backend is connected, before any request goes to it: puts its
 * socket (and the client's, as the redirect target) into the maps. On
 * failure c stays on splice. */
void px_sockmap_attach(struct px_server *s, struct px_conn *c);
/* Takes c's sockets out of the maps, its kernel byte count folded into the
 * backend's bytes_spliced. */
void px_sockmap_detach(struct px_server *s, struct px_conn *c);
int px_b2c_sockmap(struct px_server *s, struct px_conn *c);

#endif
