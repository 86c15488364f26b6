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
/* Drops n bytes from the front of c->in. */
void px_consume_in(struct px_conn *c, size_t n);
/* c->out into the backend; *empty once all of it is out. */
int px_flush_out(struct px_server *s, struct px_conn *c, bool *empty);
/* Up to want body bytes from the client: those already in c->in (copied),
 * else spliced into the client->backend pipe; *got how many. */
int px_body_bytes(struct px_server *s, struct px_conn *c, uint64_t want, uint64_t *got);
/* The client->backend pipe into the backend. */
int px_drain_cp(struct px_server *s, struct px_conn *c);
/* The backend's bytes to the client, unparsed. */
int px_b2c(struct px_server *s, struct px_conn *c);

#endif
