// fuzz-sources: src/lb/lb_conf.c src/lb/lb_config.c src/lb/maglev.c src/util/conf_line.c
// SPDX-License-Identifier: BSD-2-Clause
/*
 * lb configuration file fuzz target: the parser never reads past its
 * input; a refused file leaves the result empty with a message that names
 * the file and a line; an accepted one is consistent (each backend's VIP
 * is one of the file's, the per-VIP counts add up to the backends, no VIP
 * or (VIP, backend) twice, every VIP's backends fit its table).
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lb/lb_conf.h"
#include "lb/maglev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1), err[512];
	struct fp_lb_conf c;
	size_t sum = 0;

	if (!text)
		return 0;
	memcpy(text, data, size); /* exactly size bytes: no NUL after them */
	if (fp_lb_conf_parse(text, size, "f", &c, err, sizeof(err))) {
		assert(!c.vips && !c.bes && !c.n_vips && !c.n_bes);
		assert(!strncmp(err, "f:", 2));
		free(text);
		return 0;
	}
	for (size_t i = 0; i < c.n_vips; i++) {
		assert(c.vips[i].n_backends * FP_MAGLEV_MIN_SLOTS_PER_BACKEND <= c.vips[i].table_size);
		assert(fp_lb_conf_find_vip(&c, &c.vips[i].key) == (int)i);
		sum += c.vips[i].n_backends;
	}
	assert(sum == c.n_bes);
	for (size_t i = 0; i < c.n_bes; i++) {
		assert(c.bes[i].vip < c.n_vips);
		assert(c.bes[i].weight >= 1 && c.bes[i].weight <= FP_MAGLEV_MAX_WEIGHT);
		for (size_t j = 0; j < i; j++)
			assert(c.bes[j].vip != c.bes[i].vip || c.bes[j].af != c.bes[i].af ||
			       memcmp(c.bes[j].addr, c.bes[i].addr, 16));
	}
	fp_lb_conf_free(&c);
	free(text);
	return 0;
}
