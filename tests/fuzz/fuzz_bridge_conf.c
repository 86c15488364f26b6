// fuzz-sources: src/bridge/bridge_conf.c src/bridge/bridge_words.c src/util/conf_line.c
// SPDX-License-Identifier: BSD-2-Clause
/*
 * Bridge configuration file fuzz target: the parser never reads past its
 * input; a refused file leaves the result empty with a message naming the
 * file; an accepted one is consistent (no port twice, each fdb entry behind
 * one of the ports and no (MAC, VLAN) twice, a VLAN-aware bridge's ports
 * allow their PVID, a bridge that is not VLAN-aware keeps no VLANs).
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bridge/bridge_conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1), err[512];
	struct fp_bridge_conf c;

	if (!text)
		return 0;
	memcpy(text, data, size);
	if (fp_bridge_conf_parse(text, size, "f", &c, err, sizeof(err))) {
		assert(!c.ports && !c.fdbs && !c.n_ports && !c.n_fdbs);
		assert(!strncmp(err, "f:", 2));
		free(text);
		return 0;
	}
	for (size_t i = 0; i < c.n_ports; i++) {
		const struct fp_bridge_conf_port *p = &c.ports[i];
		int pvid_allowed = (int)((p->vlans[p->pvid >> 6] >> (p->pvid & 63)) & 1);
		__u64 any = 0;

		assert(fp_bridge_conf_find_port(&c, p->ifname) == (int)i);
		assert(p->pvid >= 1 && p->pvid <= 4094);
		for (int w = 0; w < 64; w++)
			any |= p->vlans[w];
		assert(c.vlan_aware ? pvid_allowed : !any);
	}
	for (size_t i = 0; i < c.n_fdbs; i++) {
		assert(fp_bridge_conf_find_port(&c, c.fdbs[i].ifname) >= 0);
		assert(!!c.fdbs[i].vlan == c.vlan_aware);
		for (size_t j = 0; j < i; j++)
			assert(memcmp(c.fdbs[j].mac, c.fdbs[i].mac, 6) || c.fdbs[j].vlan != c.fdbs[i].vlan);
	}
	fp_bridge_conf_free(&c);
	free(text);
	return 0;
}
