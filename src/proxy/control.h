/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client side of a running proxy's control socket (server.c): one
 * command line ("stats", "reload") written, one JSON document read back.
 * Used by `fastpath proxy stats|reload` and the exporter.
 */
#ifndef FP_PROXY_CONTROL_H
#define FP_PROXY_CONTROL_H

#include <stddef.h>

#include <jansson.h>

#define FP_PX_CONTROL_DEFAULT "/run/fastpath-proxy.sock"

/*
 * Sends cmd to the proxy at the unix socket path; its answer (a new
 * reference), or NULL with err filled ("no proxy answers on PATH: ...",
 * "the answer is not JSON: ..."). Waits at most timeout_s seconds.
 */
json_t *fp_px_control__call(const char *path, const char *cmd, unsigned timeout_s, char *err,
			    size_t errlen);

#endif /* FP_PROXY_CONTROL_H */
