// SPDX-License-Identifier: BSD-2-Clause
/*
 * Output the pipeline's verbs and the filter's share: a stage's counters
 * (in, out by XDP action; null for a stage that counts nothing) and the
 * document of an unload (pipeline unload, filter unload).
 */
#include <linux/bpf.h>

#include "cli/cli.h"
#include "cli/out.h"
#include "status/status.h"

void cli_out_stage_counts(const struct fp_stage_counts *c)
{
	static const char *const keys[5] = {
		[XDP_ABORTED] = "aborted", [XDP_DROP] = "drop", [XDP_PASS] = "pass",
		[XDP_TX] = "tx", [XDP_REDIRECT] = "redirect",
	};

	if (c->have)
		out_u64("in", c->in);
	else
		out_null("in");
	for (int v = 0; v < 5; v++) {
		if (c->have)
			out_u64(keys[v], c->out[v]);
		else
			out_null(keys[v]);
	}
}

void cli_report_unload(const char *ifname, const struct fp_unload_report *r, bool pins,
		       const char *warning)
{
	out_obj_begin();
	out_str("iface", ifname);
	out_bool("unloaded", true);
	if (warning && out_is_json())
		out_str("warning", warning);
	if (r->detached) {
		out_str("detached_from", r->ifname[0] ? r->ifname : NULL);
		out_u64("ifindex", r->ifindex);
		out_u64("prog_id", r->prog_id);
		out_str("mode", fp_xdp_mode__name(r->xdp_flags));
	} else {
		out_null("detached_from");
		out_null("ifindex");
		out_null("prog_id");
		out_null("mode");
	}
	out_u64("pins_removed", r->n_pins);
	/* only a stage went (the pipeline was loaded before it): it stays */
	out_bool("pipeline_stays", r->stage_only);
	out_str("share", r->share[0] ? r->share : NULL);
	/* the share's own pins went with its last member */
	out_str("share_removed", r->share_removed[0] ? r->share_removed : NULL);
	if (pins) {
		out_list_begin("pins");
		for (unsigned i = 0; i < r->n_pins && i < FP_UNLOAD_MAX_PINS; i++) {
			out_row_begin();
			out_str("pin", r->pins[i]);
			out_row_end();
		}
		out_list_end();
	}
	out_obj_end();
}
