// SPDX-License-Identifier: BSD-2-Clause
/* The challenge's signed cookie: see cookie.h. */
#include "proxy/cookie.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

int fp_px_cookie__load_key(const char *path, struct fp_px_cookie_key *key, char *err,
			   size_t errlen)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	memset(key, 0, sizeof(*key));
	if (!f) {
		int e = errno;

		snprintf(err, errlen, "cookie key %s: %s", path, strerror(e));
		return -e;
	}
	n = fread(key->k, 1, sizeof(key->k), f);
	if (ferror(f)) {
		snprintf(err, errlen, "cookie key %s: read error", path);
		fclose(f);
		return -EIO;
	}
	if (n == sizeof(key->k) && fgetc(f) != EOF) {
		snprintf(err, errlen, "cookie key %s: longer than %d bytes", path, FP_PX_KEY_MAX);
		fclose(f);
		return -EINVAL;
	}
	fclose(f);
	if (n < FP_PX_KEY_MIN) {
		snprintf(err, errlen, "cookie key %s: %zu bytes, at least %d needed "
			 "(e.g. head -c 32 /dev/urandom > %s)", path, n, FP_PX_KEY_MIN, path);
		return -EINVAL;
	}
	key->len = n;
	return 0;
}

static void mac(const struct fp_px_cookie_key *key, uint8_t family, const uint8_t addr[16],
		uint64_t t, uint8_t out[32])
{
	uint8_t msg[1 + 16 + 8];
	size_t alen = family == 6 ? 16 : 4, n = 0;
	unsigned int olen = 32;

	msg[n++] = family;
	memcpy(msg + n, addr, alen);
	n += alen;
	for (int i = 7; i >= 0; i--)
		msg[n++] = (uint8_t)(t >> (i * 8));
	HMAC(EVP_sha256(), key->k, (int)key->len, msg, n, out, &olen);
}

static const char hexd[] = "0123456789abcdef";

void fp_px_cookie__sign(const struct fp_px_cookie_key *key, uint8_t family,
			const uint8_t addr[16], uint64_t now, char *out)
{
	uint8_t m[32];

	mac(key, family, addr, now, m);
	for (int i = 0; i < 16; i++)
		out[i] = hexd[(now >> ((15 - i) * 4)) & 15];
	out[16] = '.';
	for (int i = 0; i < 32; i++) {
		out[17 + 2 * i] = hexd[m[i] >> 4];
		out[18 + 2 * i] = hexd[m[i] & 15];
	}
	out[FP_PX_COOKIE_VALUE_LEN] = '\0';
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1; /* upper case is not what sign() writes: refused */
}

bool fp_px_cookie__verify(const struct fp_px_cookie_key *key, uint8_t family,
			  const uint8_t addr[16], const char *val, size_t len, uint64_t now)
{
	uint8_t want[32], got[32];
	uint64_t t = 0;

	if (!key->len || len != FP_PX_COOKIE_VALUE_LEN || val[16] != '.')
		return false;
	for (int i = 0; i < 16; i++) {
		int d = hexval(val[i]);

		if (d < 0)
			return false;
		t = t << 4 | (uint64_t)d;
	}
	for (int i = 0; i < 32; i++) {
		int hi = hexval(val[17 + 2 * i]), lo = hexval(val[18 + 2 * i]);

		if (hi < 0 || lo < 0)
			return false;
		got[i] = (uint8_t)(hi << 4 | lo);
	}
	if (t > now + 60 || (now > t && now - t >= FP_PX_COOKIE_LIFETIME_S))
		return false;
	mac(key, family, addr, t, want);
	return CRYPTO_memcmp(want, got, sizeof(want)) == 0;
}

bool fp_px_cookie__request_ok(const struct fp_px_cookie_key *key, uint8_t family,
			      const uint8_t addr[16], const char *buf,
			      const struct fp_http_req *req, uint64_t now)
{
	const size_t nl = sizeof(FP_PX_COOKIE_NAME) - 1;

	for (uint32_t h = 0; h < req->n_headers; h++) {
		const struct fp_http_header *hd = &req->headers[h];
		const char *p = buf + hd->value.off, *end = p + hd->value.len;

		if (hd->name.len != 6 || strncasecmp(buf + hd->name.off, "cookie", 6))
			continue;
		/* pairs NAME=VALUE separated by "; " (RFC 6265 section 4.2.1) */
		while (p < end) {
			const char *semi = memchr(p, ';', (size_t)(end - p));
			const char *e = semi ? semi : end;

			while (p < e && (*p == ' ' || *p == '\t'))
				p++;
			if ((size_t)(e - p) > nl && !memcmp(p, FP_PX_COOKIE_NAME, nl) &&
			    p[nl] == '=' &&
			    fp_px_cookie__verify(key, family, addr, p + nl + 1,
						 (size_t)(e - p - nl - 1), now))
				return true;
			p = semi ? semi + 1 : end;
		}
	}
	return false;
}
