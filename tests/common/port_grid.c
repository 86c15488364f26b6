// SPDX-License-Identifier: BSD-2-Clause
#include <stdio.h>
#include <stdlib.h>

#include "common/port_grid.h"

char *port_grid_rules(unsigned n, size_t *len)
{
	size_t cap = (size_t)n * 400 + 1, l = 0;
	char *t = malloc(cap);

	if (!t)
		return NULL;
	t[0] = 0;
	for (unsigned r = 0; r < n; r++) {
		l += (size_t)snprintf(t + l, cap - l, "drop udp sport ");
		for (unsigned i = 0; i < 20; i++)
			l += (size_t)snprintf(t + l, cap - l, "%s%u", i ? "," : "", 1 + r * 40 + 2 * i);
		l += (size_t)snprintf(t + l, cap - l, " dport ");
		for (unsigned i = 0; i < 25; i++)
			l += (size_t)snprintf(t + l, cap - l, "%s%u", i ? "," : "",
					      30000 + r * 60 + 2 * i);
		l += (size_t)snprintf(t + l, cap - l, "\n");
	}
	*len = l;
	return t;
}
