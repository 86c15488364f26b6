// fuzz-sources: src/proxy/http_path.c
// SPDX-License-Identifier: BSD-2-Clause
/*
 * Path normaliser fuzz target: a normalised path is at most one byte longer
 * than its input, normalising it again changes nothing, it has no empty,
 * '.' or '..' segment (so no "//", "/./", "/../"), no percent-encoding of an
 * unreserved character and no lower-case hex, and starts with '/' when the
 * input did.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/http.h"

static int unreserved(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *out = malloc(size + 2), *again = malloc(size + 3);
	long n = fp_http__normalise_path((const char *)data, size, out, size + 2), m;

	if (n < 0) {
		assert(n == -400);
		goto done;
	}
	assert((size_t)n <= size + 1 && out[n] == 0 && strlen(out) == (size_t)n);
	if (size && data[0] == '/')
		assert(out[0] == '/');
	assert(!strstr(out, "//") && !strstr(out, "/./") && !strstr(out, "/../"));
	assert(!(n >= 2 && !strcmp(out + n - 2, "/.")) && !(n >= 3 && !strcmp(out + n - 3, "/..")));
	for (long i = 0; i < n; i++) {
		if (out[i] != '%')
			continue;
		int v = (int)strtol((char[]){ out[i + 1], out[i + 2], 0 }, NULL, 16);

		assert(!unreserved((unsigned char)v));
		assert(!(out[i + 1] >= 'a' && out[i + 1] <= 'f') && !(out[i + 2] >= 'a' && out[i + 2] <= 'f'));
	}
	m = fp_http__normalise_path(out, (size_t)n, again, size + 3);
	assert(m == n && !memcmp(out, again, (size_t)n));
done:
	free(out);
	free(again);
	return 0;
}
