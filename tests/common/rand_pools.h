/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internal to rand.c and rand_pkt.c: the value pools random packets and
 * random rules share, so that rules hit packets.
 */
#ifndef FP_TESTS_RAND_POOLS_H
#define FP_TESTS_RAND_POOLS_H

#include <arpa/inet.h>
#include <stdint.h>

#include "common/pkt.h"
#include "common/rand.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PICK(r, a)    ((a)[rng_below((r), ARRAY_SIZE(a))])

/* ---- pools shared by packets and rules ---------------------------------------- */

static const char *const v4_pool[] = {
	"10.0.0.1", "10.0.0.2", "10.0.1.5", "192.0.2.1", "192.0.2.200",
	"198.51.100.7", "203.0.113.9", "0.0.0.0", "255.255.255.255",
};
static const char *const v6_pool[] = {
	"2001:db8::1", "2001:db8::2", "2001:db8:1::5", "2001:db8:ffff::9", "2001:db9:1::7",
	"fe80::1", "::1", "::", "ff02::1",
};
static const uint16_t port_pool[] = { 0, 22, 53, 80, 123, 443, 1024, 1025, 8080, 40000, 65535 };
static const uint16_t vlan_pool[] = { 0, 1, 10, 100, 4095 };
static const uint8_t ttl_pool[] = { 0, 1, 63, 64, 128, 255 };
static const uint16_t qtype_pool[] = { 1, 28, 255, 16, 15, 2, 5, 6, 12, 33, 65 };
static const char *const name_pool[] = {
	"example.com", "example.org", "www.example.com", "a.b.example.com", "com",
	"test", "xn--bcher-kva.example", "", "example.com.evil.net",
};
/* Suffixes for *.SUFFIX ("" is the root: "*." matches every name but the root). */
static const char *const suffix_pool[] = {
	"example.com", "com", "b.example.com", "example.org", "", "evil.net",
};
static const uint8_t tcp_flag_pool[] = {
	PKT_SYN, PKT_SYN | PKT_ACK, PKT_ACK, PKT_RST, PKT_RST | PKT_ACK,
	PKT_FIN | PKT_ACK, PKT_PSH | PKT_ACK, 0, 0xff, PKT_SYN | PKT_ECE | PKT_CWR,
};


static inline void addr_from_pool(struct rng *r, int family, uint8_t *out)
{
	if (family == 4)
		inet_pton(AF_INET, PICK(r, v4_pool), out);
	else
		inet_pton(AF_INET6, PICK(r, v6_pool), out);
}


#endif /* FP_TESTS_RAND_POOLS_H */
