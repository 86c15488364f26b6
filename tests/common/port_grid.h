/* SPDX-License-Identifier: BSD-2-Clause */
/* Rule sets of many tuple keys, for the flat-table capacity tests. */
#ifndef FP_TESTS_PORT_GRID_H
#define FP_TESTS_PORT_GRID_H

#include <stddef.h>

/* n rules `drop udp sport A,B,... (20 ports) dport C,D,... (25 ports)`
 * with ports of no other rule: 500 tuple keys each. Returns malloc'd text
 * (its length in *len), NULL on allocation failure. */
char *port_grid_rules(unsigned n, size_t *len);

#endif
