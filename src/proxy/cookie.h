/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The challenge's signed cookie (fastpath-proxy(8), CHALLENGE):
 *
 *   fastpath_challenge=T.M    T: the Unix time it was issued, 16 hex digits
 *                             M: HMAC-SHA256(key, family || address || T as
 *                                8 bytes big endian), 64 hex digits
 *
 * It is valid for the client address it was issued to, from T to T +
 * FP_PX_COOKIE_LIFETIME_S (a T more than a minute in the future is refused).
 */
#ifndef FP_PROXY_COOKIE_H
#define FP_PROXY_COOKIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proxy/http.h"

#define FP_PX_COOKIE_NAME       "fastpath_challenge"
#define FP_PX_COOKIE_LIFETIME_S 3600
#define FP_PX_COOKIE_VALUE_LEN  (16 + 1 + 64)
#define FP_PX_KEY_MIN           16
#define FP_PX_KEY_MAX           256

struct fp_px_cookie_key {
	uint8_t k[FP_PX_KEY_MAX];
	size_t len;
};

/* Reads the key file (its bytes, FP_PX_KEY_MIN..FP_PX_KEY_MAX of them):
 * 0, or -errno / -EINVAL with err saying what is wrong. */
int fp_px_cookie__load_key(const char *path, struct fp_px_cookie_key *key, char *err,
			   size_t errlen);

/* Writes the value (T.M, NUL-terminated) for the client into out
 * (>= FP_PX_COOKIE_VALUE_LEN + 1 bytes). family 4 or 6. */
void fp_px_cookie__sign(const struct fp_px_cookie_key *key, uint8_t family,
			const uint8_t addr[16], uint64_t now, char *out);

/* True when val[0..len) is a value signed with key for this client and
 * not expired at now. The MAC is compared in constant time. */
bool fp_px_cookie__verify(const struct fp_px_cookie_key *key, uint8_t family,
			  const uint8_t addr[16], const char *val, size_t len, uint64_t now);

/* True when a Cookie header of req (in buf) holds a valid challenge cookie. */
bool fp_px_cookie__request_ok(const struct fp_px_cookie_key *key, uint8_t family,
			      const uint8_t addr[16], const char *buf,
			      const struct fp_http_req *req, uint64_t now);

#endif /* FP_PROXY_COOKIE_H */
