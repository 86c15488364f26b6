// SPDX-License-Identifier: BSD-2-Clause
/*
 * Path normalisation before policy matching (http.h has the rules). The
 * order matters: percent-decoding first, so "%2e%2e" is a ".." segment;
 * slash merging before dot removal, so "/a//../b" is "/b" as nginx (with
 * its default merge_slashes) resolves it too.
 */
#include "proxy/http.h"

#include <string.h>

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool is_unreserved(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~';
}

size_t fp_http__remove_dot_segments(char *buf, size_t len)
{
	size_t in = 0, out = 0;

	/* RFC 3986 5.2.4 with the input buffer's unread part at in and the
	 * output buffer at [0, out): out <= in always holds, so one buffer does. */
	while (in < len) {
		size_t rest = len - in;
		const char *s = buf + in;

		if (rest >= 3 && !memcmp(s, "../", 3)) {          /* A */
			in += 3;
		} else if (rest >= 2 && !memcmp(s, "./", 2)) {
			in += 2;
		} else if (rest >= 3 && !memcmp(s, "/./", 3)) {   /* B */
			in += 2;
		} else if (rest == 2 && !memcmp(s, "/.", 2)) {
			in += 1;
			buf[in] = '/';
		} else if ((rest >= 4 && !memcmp(s, "/../", 4)) ||
			   (rest == 3 && !memcmp(s, "/..", 3))) { /* C */
			in += rest == 3 ? 2 : 3;
			buf[in] = '/';
			while (out > 0 && buf[out - 1] != '/')
				out--;
			if (out > 0)
				out--;
		} else if ((rest == 1 && s[0] == '.') || (rest == 2 && !memcmp(s, "..", 2))) {
			in = len;                                 /* D */
		} else {                                          /* E */
			size_t n = 1;

			while (n < rest && s[n] != '/')
				n++;
			memmove(buf + out, s, n);
			out += n;
			in += n;
		}
	}
	return out;
}

long fp_http__normalise_path(const char *in, size_t in_len, char *out, size_t out_size)
{
	size_t o = 0;

	if (out_size < in_len + 2)
		return -400;
	for (size_t i = 0; i < in_len; i++) {
		unsigned char c = (unsigned char)in[i];

		if (c == '%') {
			int hi, lo;
			unsigned char d;

			if (i + 2 >= in_len)
				return -400;
			hi = hexval((unsigned char)in[i + 1]);
			lo = hexval((unsigned char)in[i + 2]);
			if (hi < 0 || lo < 0)
				return -400;
			d = (unsigned char)(hi * 16 + lo);
			if (d == '/' || d == '\\' || d < 0x20 || d == 0x7f)
				return -400;
			i += 2;
			if (is_unreserved(d)) {
				c = d;
			} else {
				out[o++] = '%';
				out[o++] = "0123456789ABCDEF"[hi];
				out[o++] = "0123456789ABCDEF"[lo];
				continue;
			}
		} else if (c < 0x21 || c >= 0x7f || c == '\\' || c == '#' || c == '?') {
			return -400;
		}
		if (c == '/' && o > 0 && out[o - 1] == '/')
			continue;
		out[o++] = (char)c;
	}
	o = fp_http__remove_dot_segments(out, o);
	if (!o)
		out[o++] = '/';
	out[o] = 0;
	return (long)o;
}

size_t fp_http__match_len(const char *path, size_t len)
{
	return len > 1 && path[len - 1] == '/' ? len - 1 : len;
}
