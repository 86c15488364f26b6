/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The DNS question decoder of the reference semantics (src/rules/match_ref.h,
 * section "DNS"): the first question of a query, or nothing.
 */
#include <stdint.h>
#include <string.h>

#include "rules/match_ref.h"

#define DNS_HDR_LEN   12
#define DNS_LABEL_MAX 63

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint8_t lower(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (uint8_t)(c + ('a' - 'A')) : c;
}

int fp_dns__question(const uint8_t *payload, size_t len, uint8_t name[FP_DNS_NAME_MAX],
		     uint8_t *name_len, uint16_t *qtype)
{
	size_t pos = DNS_HDR_LEN; /* offset in payload of the next length byte */
	size_t n = 0;             /* bytes of name[] written */

	if (len < DNS_HDR_LEN)
		return -1;
	if (payload[2] & 0x80)
		return -1; /* QR = 1: a response */
	if (rd16(payload + 4) == 0)
		return -1; /* QDCOUNT = 0 */

	for (;;) {
		uint8_t lab;

		if (pos >= len)
			return -1; /* length byte cut short */
		lab = payload[pos];
		if (lab > DNS_LABEL_MAX)
			return -1; /* compression pointer or extended label type */
		if (n + 1 + lab > FP_DNS_NAME_MAX)
			return -1; /* the name would exceed 255 bytes on the wire */
		if (pos + 1 + lab > len)
			return -1; /* label cut short */
		name[n++] = lab;
		for (size_t i = 0; i < lab; i++)
			name[n++] = lower(payload[pos + 1 + i]);
		pos += 1 + (size_t)lab;
		if (lab == 0)
			break; /* root: the name is whole */
	}
	if (pos + 4 > len)
		return -1; /* qtype and qclass cut short */
	*name_len = (uint8_t)n;
	*qtype = rd16(payload + pos);
	return 0;
}
