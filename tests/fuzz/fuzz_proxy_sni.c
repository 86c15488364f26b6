// fuzz-sources: src/proxy/tls_sni.c
// SPDX-License-Identifier: BSD-2-Clause
/*
 * ClientHello reader fuzz target: arbitrary bytes as a client's first
 * bytes. The answer is one of the four; a complete hello lies inside the
 * input and its name is a NUL-terminated DNS name of sni_len bytes; a
 * prefix of the input answers "need more" or the same answer (an answer
 * never changes as more bytes arrive), as the proxy reparses on each read.
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "proxy/tls_sni.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fp_tls_hello h, p;
	int r = fp_tls__client_hello(data, size, &h);

	assert(r == 1 || r == 0 || r == -EBADMSG || r == -EMSGSIZE);
	if (r == 1) {
		assert(h.bytes <= size && h.bytes >= 9);
		assert(h.sni_len <= FP_TLS_NAME_MAX);
		assert(h.has_sni ? h.sni_len > 0 && strlen(h.sni) == h.sni_len : h.sni_len == 0);
		for (size_t i = 0; i < h.sni_len; i++)
			assert(h.sni[i] != '*' && h.sni[i] != ' ' && h.sni[i] != '/');
	}
	if (size) {
		size_t cut = data[size - 1] % size; /* a prefix chosen by the input */
		int q = fp_tls__client_hello(data, cut, &p);

		assert(q == 0 || q == r);
		if (q == 1)
			assert(p.sni_len == h.sni_len && !memcmp(p.sni, h.sni, h.sni_len));
	}
	return 0;
}
