// SPDX-License-Identifier: BSD-2-Clause
/*
 * The lb's words: VIPs ("198.51.100.10:80/tcp", "[2001:db8::1]:443/udp",
 * "198.51.100.10/tcp" for the --port-any VIP), backend addresses, outer
 * source prefixes, hash modes, and their printed forms. No maps here.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lb/lb.h"

/* An address of either family; IPv6 may be in brackets. */
static int parse_ip(const char *s, __u8 addr[16], __u8 *af)
{
	char buf[INET6_ADDRSTRLEN + 2];
	size_t n = strlen(s);

	memset(addr, 0, 16);
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
		if (n - 2 >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, s + 1, n - 2);
		buf[n - 2] = 0;
		*af = 6;
		return inet_pton(AF_INET6, buf, addr) == 1 ? 0 : -EINVAL;
	}
	if (inet_pton(AF_INET, s, addr) == 1) {
		*af = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, addr) == 1) {
		*af = 6;
		return 0;
	}
	return -EINVAL;
}

static bool is_unspecified(const __u8 a[16], int af)
{
	static const __u8 zero[16];

	return !memcmp(a, zero, af == 4 ? 4 : 16);
}

static bool is_multicast(const __u8 a[16], int af)
{
	if (af == 4)
		return (a[0] & 0xf0) == 0xe0 || (a[0] == 255 && a[1] == 255 && a[2] == 255 &&
						  a[3] == 255);
	return a[0] == 0xff;
}

int fp_lb_parse_vip(const char *s, struct fp_lb_vip_key *k, char *err, size_t errlen)
{
	char host[INET6_ADDRSTRLEN + 3];
	const char *slash = strrchr(s, '/'), *port = NULL, *proto;
	size_t hl;
	__u8 af;

	memset(k, 0, sizeof(*k));
	if (!slash) {
		snprintf(err, errlen, "VIP '%s': no protocol; write ADDR:PORT/tcp or /udp "
			 "(e.g. 198.51.100.10:80/tcp, [2001:db8::1]:443/tcp)", s);
		return -EINVAL;
	}
	proto = slash + 1;
	if (!strcmp(proto, "tcp"))
		k->proto = IPPROTO_TCP;
	else if (!strcmp(proto, "udp"))
		k->proto = IPPROTO_UDP;
	else {
		snprintf(err, errlen, "VIP '%s': protocol '%s' is not tcp or udp", s, proto);
		return -EINVAL;
	}
	hl = (size_t)(slash - s);
	if (hl == 0 || hl >= sizeof(host)) {
		snprintf(err, errlen, "VIP '%s': no address before /%s", s, proto);
		return -EINVAL;
	}
	memcpy(host, s, hl);
	host[hl] = 0;
	/* [v6]:port, [v6], v4:port, v4, or a bare v6 (more than one ':') */
	if (host[0] == '[') {
		char *rb = strchr(host, ']');

		if (!rb || (rb[1] && rb[1] != ':')) {
			snprintf(err, errlen, "VIP '%s': write an IPv6 VIP as [ADDR]:PORT/%s", s,
				 proto);
			return -EINVAL;
		}
		if (rb[1] == ':')
			port = rb + 2;
		rb[1] = 0;
	} else {
		char *c = strchr(host, ':');

		if (c && !strchr(c + 1, ':')) {
			*c = 0;
			port = c + 1;
		}
	}
	if (parse_ip(host, k->addr, &af)) {
		snprintf(err, errlen, "VIP '%s': '%s' is not an IPv4 or IPv6 address", s, host);
		return -EINVAL;
	}
	if (af == 6 && host[0] != '[' && port) {
		snprintf(err, errlen, "VIP '%s': write an IPv6 VIP as [ADDR]:PORT/%s", s, proto);
		return -EINVAL;
	}
	k->family = af;
	if (is_unspecified(k->addr, af) || is_multicast(k->addr, af)) {
		snprintf(err, errlen, "VIP '%s': %s is not a unicast address", s, host);
		return -EINVAL;
	}
	if (port) {
		char *end;
		unsigned long p;

		if (!*port || *port < '0' || *port > '9') {
			snprintf(err, errlen, "VIP '%s': port '%s' is not a number 1..65535", s,
				 port);
			return -EINVAL;
		}
		errno = 0;
		p = strtoul(port, &end, 10);
		if (*end || errno || p > 65535) {
			snprintf(err, errlen, "VIP '%s': port '%s' is not a number 1..65535", s,
				 port);
			return -EINVAL;
		}
		k->port = (__u16)p; /* 0: the --port-any VIP, as with no port */
	}
	return 0;
}

int fp_lb_parse_addr(const char *s, __u8 addr[16], __u8 *af, char *err, size_t errlen)
{
	if (parse_ip(s, addr, af)) {
		snprintf(err, errlen, "backend '%s' is not an IPv4 or IPv6 address", s);
		return -EINVAL;
	}
	if (is_unspecified(addr, *af) || is_multicast(addr, *af)) {
		snprintf(err, errlen, "backend %s is not a unicast address", s);
		return -EINVAL;
	}
	return 0;
}

int fp_lb_parse_prefix(const char *s, int af, __u8 addr[16], __u8 *len, char *err,
		       size_t errlen)
{
	const char *slash = strchr(s, '/');
	int lo = af == 4 ? 16 : 96, hi = af == 4 ? 32 : 128, bits = af == 4 ? 32 : 128;
	char host[INET6_ADDRSTRLEN];
	unsigned long l;
	char *end;
	__u8 got;

	if (!slash || slash == s || (size_t)(slash - s) >= sizeof(host) || !slash[1]) {
		snprintf(err, errlen, "--src%d '%s': write PREFIX/LEN (e.g. %s)", af, s,
			 af == 4 ? FP_LB_SRC4_DEFAULT : FP_LB_SRC6_DEFAULT);
		return -EINVAL;
	}
	memcpy(host, s, (size_t)(slash - s));
	host[slash - s] = 0;
	if (parse_ip(host, addr, &got) || got != af) {
		snprintf(err, errlen, "--src%d '%s': '%s' is not an IPv%d address", af, s, host,
			 af);
		return -EINVAL;
	}
	errno = 0;
	l = strtoul(slash + 1, &end, 10);
	if (*end || errno || slash[1] < '0' || slash[1] > '9' || l < (unsigned long)lo ||
	    l > (unsigned long)hi) {
		snprintf(err, errlen, "--src%d '%s': the length must be %d..%d (the flow hash "
			 "fills at most 32 host bits, and at least %d are kept)", af, s, lo, hi,
			 af == 4 ? 16 : 96);
		return -EINVAL;
	}
	for (int b = (int)l; b < bits; b++)
		if (addr[b / 8] & (0x80 >> (b % 8))) {
			snprintf(err, errlen, "--src%d '%s': host bits are set past /%lu (the "
				 "flow hash fills them); give the prefix's first address", af, s,
				 l);
			return -EINVAL;
		}
	*len = (__u8)l;
	return 0;
}

int fp_lb_parse_hash(const char *s, __u32 *flag)
{
	if (!strcmp(s, "5tuple"))
		*flag = 0;
	else if (!strcmp(s, "src"))
		*flag = FP_LB_VIP_HASH_SRC;
	else
		return -EINVAL;
	return 0;
}

void fp_lb_addr_str(const void *addr, int af, char *buf, size_t len)
{
	char tmp[INET6_ADDRSTRLEN];

	if (!inet_ntop(af == 4 ? AF_INET : AF_INET6, addr, tmp, sizeof(tmp)))
		snprintf(tmp, sizeof(tmp), "?");
	snprintf(buf, len, "%s", tmp);
}

const char *fp_lb_vip_form(int family)
{
	return family == 6 ? "[ADDR]:PORT/PROTO (an IPv6 VIP's port goes after the brackets)"
			   : "ADDR:PORT/PROTO";
}

void fp_lb_vip_str(const struct fp_lb_vip_key *k, char *buf, size_t len)
{
	static const char *const p[] = { [IPPROTO_TCP] = "tcp", [IPPROTO_UDP] = "udp" };
	const char *proto = k->proto == IPPROTO_TCP || k->proto == IPPROTO_UDP ? p[k->proto] :
			    "?";
	char a[INET6_ADDRSTRLEN];

	fp_lb_addr_str(k->addr, k->family, a, sizeof(a));
	if (!k->port)
		snprintf(buf, len, "%s%s%s/%s", k->family == 6 ? "[" : "", a,
			 k->family == 6 ? "]" : "", proto);
	else if (k->family == 6)
		snprintf(buf, len, "[%s]:%u/%s", a, k->port, proto);
	else
		snprintf(buf, len, "%s:%u/%s", a, k->port, proto);
}

const char *fp_lb_counter_name(unsigned c)
{
	static const char *const names[FP_LB_C_MAX] = {
		[FP_LB_C_FORWARD_TX] = "forward_tx",
		[FP_LB_C_FORWARD_REDIRECT] = "forward_redirect",
		[FP_LB_C_NOT_VIP] = "not_vip",
		[FP_LB_C_FRAGMENT] = "fragment",
		[FP_LB_C_MALFORMED] = "malformed",
		[FP_LB_C_NO_BACKEND] = "no_backend",
		[FP_LB_C_TOO_BIG] = "too_big",
		[FP_LB_C_ICMP_FLOW] = "icmp_flow",
		[FP_LB_C_TTL_EXPIRED] = "ttl_expired",
		[FP_LB_C_FIB_FAIL] = "fib_fail",
		[FP_LB_C_NO_NEIGH] = "no_neigh",
		[FP_LB_C_NO_PORT] = "no_port",
		[FP_LB_C_ERROR] = "error",
	};

	return c < FP_LB_C_MAX ? names[c] : NULL;
}

const char *fp_lb_op_name(enum fp_lb_be_op op)
{
	static const char *const names[] = { "add", "del", "drain", "down", "up" };

	return (unsigned)op < 5 ? names[op] : "?";
}
