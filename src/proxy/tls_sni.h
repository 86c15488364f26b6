/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The server name of a TLS ClientHello (RFC 8446 4.1.2, RFC 6066 3), read
 * from the first bytes a client sends, for a proxy that decides on the name
 * and then moves the connection as it is (it never terminates TLS).
 *
 * The parser is stateless and bounded: it is given every byte received so
 * far and reads the handshake records from the start, so a hello split
 * across reads (or across records) is parsed again when more arrives; it
 * reads at most FP_TLS_HELLO_MAX bytes of handshake message and never
 * allocates.
 */
#ifndef FP_PROXY_TLS_SNI_H
#define FP_PROXY_TLS_SNI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A ClientHello message longer than this is refused (-EMSGSIZE); hellos
 * of today's browsers, post-quantum key shares included, are under 2 KiB. */
#define FP_TLS_HELLO_MAX 12288
#define FP_TLS_NAME_MAX  255    /* RFC 6066: a host_name is 1..2^8-1 bytes */

/* The first byte of a TLS record carrying a handshake */
#define FP_TLS_CONTENT_HANDSHAKE 0x16

struct fp_tls_hello {
	uint16_t version;            /* legacy_version (0x0303 for TLS 1.2 and 1.3) */
	bool has_sni;
	size_t sni_len;
	char sni[FP_TLS_NAME_MAX + 1]; /* NUL-terminated, as sent (case kept) */
	size_t bytes;                /* bytes of buf up to the end of the hello's record */
};

/*
 * Reads the ClientHello at the start of buf (len bytes received so far).
 * Returns 1 with *out filled when the whole hello is there, 0 when more
 * bytes are needed, -EBADMSG when the bytes are not a well-formed
 * ClientHello (another record or message type, lengths that do not add
 * up, two server names, a name that is not a DNS name), or -EMSGSIZE when
 * the hello is longer than FP_TLS_HELLO_MAX. A hello without a server_name
 * extension is complete with has_sni false.
 */
int fp_tls__client_hello(const void *buf, size_t len, struct fp_tls_hello *out);

#endif /* FP_PROXY_TLS_SNI_H */
