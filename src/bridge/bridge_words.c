// SPDX-License-Identifier: BSD-2-Clause
/*
 * The bridge's words, without maps (so the configuration file's parser,
 * bridge_conf.c, is fuzzed alone): MAC addresses, VLAN lists, counter names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge/bridge.h"

int fp_mac_parse(const char *s, __u8 mac[6])
{
	unsigned v[6];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		   &tail) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		if (v[i] > 0xff)
			return -EINVAL;
		mac[i] = (__u8)v[i];
	}
	return 0;
}

int fp_vlan_list_parse(const char *s, __u64 vlans[64], char *err, size_t errlen)
{
	const char *p = s;

	memset(vlans, 0, 64 * sizeof(__u64));
	while (*p) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (end == p || *p == '-' || *p == '+')
			goto bad;
		if (*end == '-') {
			const char *q = end + 1;

			b = strtoul(q, &end, 10);
			if (end == q || *q == '-' || *q == '+')
				goto bad;
		}
		if (a < 1 || b > 4094 || a > b)
			goto bad;
		for (unsigned long v = a; v <= b; v++)
			vlans[v >> 6] |= 1ull << (v & 63);
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			goto bad;
		p = end;
		continue;
bad:
		snprintf(err, errlen, "VLAN list '%s': bad item at '%s' (give VLANs 1..4094 as "
			 "\"10,20-30\")", s, p);
		return -EINVAL;
	}
	if (p == s) {
		snprintf(err, errlen, "VLAN list is empty (give VLANs 1..4094 as \"10,20-30\")");
		return -EINVAL;
	}
	return 0;
}

void fp_vlan_list_format(const __u64 vlans[64], char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (unsigned v = 1; v <= 4094 && used < len; v++) {
		unsigned last = v;

		if (!((vlans[v >> 6] >> (v & 63)) & 1))
			continue;
		while (last + 1 <= 4094 && ((vlans[(last + 1) >> 6] >> ((last + 1) & 63)) & 1))
			last++;
		if (last == v)
			used += snprintf(buf + used, len - used, "%s%u", used ? "," : "", v);
		else
			used += snprintf(buf + used, len - used, "%s%u-%u", used ? "," : "", v, last);
		v = last;
	}
}

const char *fp_br_stat_name(unsigned s)
{
	static const char *const names[FP_BR_ST_MAX] = {
		[FP_BR_ST_IN] = "in", [FP_BR_ST_FORWARD] = "forwarded",
		[FP_BR_ST_FLOOD] = "flooded", [FP_BR_ST_HOST] = "to_host",
		[FP_BR_ST_NOT_MEMBER] = "not_member", [FP_BR_ST_NOT_ETH] = "not_eth",
		[FP_BR_ST_DROP_HAIRPIN] = "drop_hairpin", [FP_BR_ST_DROP_BAD_SRC] = "drop_bad_src",
		[FP_BR_ST_DROP_NO_BRIDGE] = "drop_no_bridge", [FP_BR_ST_LEARNED] = "learned",
		[FP_BR_ST_MOVED] = "moved", [FP_BR_ST_AGED] = "aged",
		[FP_BR_ST_DROP_VLAN] = "drop_vlan", [FP_BR_ST_DROP_VLAN_OUT] = "drop_vlan_out",
		[FP_BR_ST_DROP_STORM] = "drop_storm", [FP_BR_ST_LEARN_LIMITED] = "learn_limited",
		[FP_BR_ST_LEARN_FULL] = "learn_full",
	};

	return s < FP_BR_ST_MAX ? names[s] : NULL;
}
