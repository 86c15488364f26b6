// SPDX-License-Identifier: BSD-2-Clause
/*
 * `fastpath pipeline`: the chain of one interface as a whole: load and
 * unload it (the entry program, the slots, every stage's pins), show what
 * runs in each slot, enable or disable a loaded stage. The stages come from
 * the stage table (src/pipeline/stage_table.c), never from a list here.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/bpf.h>

#include "cli/audit.h"
#include "cli/cli.h"
#include "pipeline/pipeline.h"
#include "status/status.h"

static double elapsed_ms(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1e3 + (b.tv_nsec - a->tv_nsec) / 1e6;
}

/* ISO 8601 in UTC of ns since the epoch (as status prints it). */
static void iso8601(uint64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "?");
}

/* "dump, filter, lb, ..." of the stage table, for errors and help. */
static void stage_names(char *buf, size_t len)
{
	const struct fp_stage_ops *const *t = fp_stage_table();
	size_t used = 0;

	buf[0] = 0;
	for (; t && *t && used < len; t++)
		used += snprintf(buf + used, len - used, "%s%s", used ? ", " : "", (*t)->name);
}

/* The stage named by a STAGE argument; a usage error listing the known
 * ones when there is none of that name. */
static int stage_arg(const struct cli *cli, const char *name, const struct fp_stage_ops **s)
{
	char known[256];

	*s = fp_stage_by_name(name);
	if (*s)
		return CLI_OK;
	stage_names(known, sizeof(known));
	return cli_usage(cli, "unknown stage '%s'; known stages: %s", name, known);
}

static int open_pipeline(const struct cli *cli, const char *ifname, struct fp_pipeline **pl)
{
	char err[512];
	int ret = fp_pipeline__open(ifname, cli->bpffs, pl, err, sizeof(err));

	if (ret)
		return cli_fail(cli, "%s", err);
	return CLI_OK;
}

/* The audit line of a pipeline change (the audit says "pipeline VERB"). */
static void audit(const struct cli *cli, const char *verb, const char *ifname,
		  const char *note, const char *error, double ms)
{
	cli_audit(cli, &(struct cli_audit){ .verb = verb, .iface = ifname, .note = note,
					    .error = error, .ms = ms });
}

/* ---- show ---------------------------------------------------------------- */

/* One slot's row: what runs there, whether it is on, its counters ("-":
 * the stage counts nothing). */
static void emit_slot(unsigned slot, const struct fp_slot_info *si)
{
	out_row_begin();
	out_u64("slot", slot);
	out_str("stage", si->stage ? si->stage->name : NULL);
	out_bool("loaded", si->loaded);
	out_bool("enabled", si->enabled);
	if (si->prog_id)
		out_u64("prog_id", si->prog_id);
	else
		out_null("prog_id");
	if (si->loaded) {
		out_u64("abi", si->abi);
		out_bool("abi_ok", si->abi_ok);
	} else {
		out_null("abi");
		out_null("abi_ok");
	}
	cli_out_stage_counts(&si->counts);
	out_row_end();
}

/* The reload command of a stage whose pins are of another ABI, into buf
 * ("" when every loaded stage is of this fastpath's). */
static void abi_warning(const struct fp_pipeline_info *in, const char *ifname, char *buf,
			size_t len)
{
	buf[0] = 0;
	for (unsigned s = 0; s < FP_STAGE_CHAIN; s++) {
		const struct fp_slot_info *si = &in->slot[s];
		char cmd[128];

		if (!si->stage || !si->loaded || si->abi_ok)
			continue;
		if (si->stage->load_cmd)
			snprintf(cmd, sizeof(cmd), si->stage->load_cmd, ifname);
		else
			snprintf(cmd, sizeof(cmd), "fastpath pipeline load %s", ifname);
		/* the whole pipeline: the table has no per-stage unload command */
		snprintf(buf, len, "the %s stage on %s is of ABI %u, this fastpath's is %u: it "
			 "does not write that stage's maps; reload it: `fastpath pipeline unload "
			 "%s`, then `%s`", si->stage->name, ifname, si->abi, si->stage->abi, ifname,
			 cmd);
		return;
	}
}

/* What runs on the interface: the attached program and which entry it is,
 * the mode, the ABI, then one row per slot of the chain that has a stage
 * of the table or a program. load_ms >= 0: the report of a load. */
static int emit_pipeline(const struct cli *cli, const struct fp_pipeline *pl,
			 const char *ifname, double load_ms)
{
	struct fp_pipeline_info in;
	char when[32], warn[512];
	int ret;

	memset(&in, 0, sizeof(in));
	ret = fp_pipeline__info(pl, &in);
	if (ret)
		return cli_fail(cli, "cannot read the pipeline pinned for %s: %s", ifname,
				strerror(-ret));
	abi_warning(&in, ifname, warn, sizeof(warn));
	if (warn[0] && !out_is_json())
		out_warn("%s", warn);
	if (!in.attached && !out_is_json())
		out_warn("fastpath's program is not attached to %s (%s); `fastpath pipeline "
			 "unload %s` and load again", ifname, in.attached_id ?
			 "another program runs there" : "no XDP program runs there", ifname);
	out_obj_begin();
	out_str("iface", ifname);
	/* the interface's name now, when it was renamed since the load */
	out_str("renamed_to", in.ifname[0] && strcmp(in.ifname, ifname) ? in.ifname : NULL);
	out_bool("attached", in.attached);
	if (in.attached_id)
		out_u64("prog_id", in.attached_id);
	else
		out_null("prog_id");
	out_str("entry", in.attached ? (in.attached_stage ? "fused" : "plain") : NULL);
	out_str("fused_stage", in.attached ? in.attached_stage : NULL);
	out_u64("entry_id", in.entry_id);
	out_str("mode", fp_xdp_mode__name(in.meta.xdp_flags));
	out_u64("ifindex", in.meta.ifindex);
	out_u64("abi", in.meta.abi_version);
	out_bool("abi_ok", in.meta.abi_version == FP_ABI_VERSION);
	iso8601(in.meta.loaded_ns, when, sizeof(when));
	out_str("loaded", when);
	/* loaded by a stage's load: its last stage's unload unloads it too */
	out_bool("auto", in.meta.flags & FP_META_AUTO);
	if (load_ms >= 0)
		out_double("load_ms", load_ms);
	if (warn[0] && out_is_json())
		out_str("warning", warn);
	out_list_begin("slots");
	for (unsigned s = 0; s < FP_STAGE_CHAIN; s++)
		if (in.slot[s].stage || in.slot[s].prog_id)
			emit_slot(s, &in.slot[s]);
	out_list_end();
	out_obj_end();
	return CLI_OK;
}

static int do_show(struct cli *cli, int argc, char **argv)
{
	struct fp_pipeline *pl;
	int ret = cli_nargs(cli, argc, argv, 1, 1);

	if (ret)
		return ret;
	ret = open_pipeline(cli, argv[1], &pl);
	if (ret)
		return ret;
	ret = emit_pipeline(cli, pl, argv[1], -1);
	fp_pipeline__close(pl);
	return ret;
}

/* ---- load, unload -------------------------------------------------------- */

static int do_load(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' }, { NULL, 0, NULL, 0 },
	};
	struct fp_pipeline_opts o = { .bpffs = cli->bpffs };
	struct fp_pipeline *pl = NULL;
	struct timespec t0;
	char err[512], note[128];
	double ms;
	int c, ret;

	optind = 0; /* 0: GNU getopt re-initializes fully (main.c used it already) */
	while ((c = getopt_long(argc, argv, ":m:", opts, NULL)) != -1) {
		if (c == ':')
			return cli_usage(cli, "--mode needs a value: native or skb");
		if (c != 'm')
			return cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
		if (!strcmp(optarg, "skb") || !strcmp(optarg, "generic"))
			o.skb_mode = true;
		else if (!strcmp(optarg, "native") || !strcmp(optarg, "drv"))
			o.skb_mode = false;
		else
			return cli_usage(cli, "--mode takes native or skb, not '%s'", optarg);
	}
	if (argc - optind != 1)
		return cli_usage(cli, "expected IFACE");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = fp_pipeline__load(argv[optind], &o, &pl, err, sizeof(err));
	ms = elapsed_ms(&t0);
	if (ret) {
		audit(cli, "load", argv[optind], NULL, err, ms);
		return cli_fail(cli, "%s", err);
	}
	snprintf(note, sizeof(note), "loaded in %s mode", o.skb_mode ? "skb" : "native");
	audit(cli, "load", argv[optind], note, NULL, ms);
	ret = emit_pipeline(cli, pl, argv[optind], ms);
	fp_pipeline__close(pl);
	return ret;
}


static int do_unload(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' }, { NULL, 0, NULL, 0 },
	};
	struct fp_unload_report r;
	struct timespec t0;
	bool force = false;
	char err[512], warn[600], note[256];
	const char *ifname;
	int c, ret;

	optind = 0; /* 0: GNU getopt re-initializes fully (main.c used it already) */
	while ((c = getopt_long(argc, argv, "f", opts, NULL)) != -1) {
		if (c != 'f')
			return cli_usage(cli, "unknown option '%s'", argv[optind - 1]);
		force = true;
	}
	if (argc - optind != 1)
		return cli_usage(cli, "expected IFACE");
	ifname = argv[optind];
	memset(&r, 0, sizeof(r));
	err[0] = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = fp_pipeline__unload(ifname, cli->bpffs, force, &r, err, sizeof(err));
	if (ret >= 0 && r.detached)
		snprintf(note, sizeof(note), "%sdetached program %u from %s (ifindex %u), %u pins "
			 "removed", force ? "forced: " : "", r.prog_id, r.ifname[0] ? r.ifname : "?",
			 r.ifindex, r.n_pins);
	else
		snprintf(note, sizeof(note), "%snothing detached, %u pins removed%s%.100s",
			 force ? "forced: " : "", ret >= 0 ? r.n_pins : 0, ret > 0 ? ": " : "",
			 ret > 0 ? err : "");
	audit(cli, "unload", ifname, note, ret < 0 ? err : NULL, elapsed_ms(&t0));
	if (ret < 0)
		return cli_fail(cli, "%s", err);
	/* the warnings: on stderr, or in -j inside the one document */
	warn[0] = 0;
	if (ret > 0)
		snprintf(warn, sizeof(warn), "%s", err);
	else if (!r.detached)
		snprintf(warn, sizeof(warn), "fastpath's program was not attached (detached by "
			 "hand, or the interface is gone): only its pins were removed");
	if (r.detached && r.ifname[0] && strcmp(r.ifname, ifname))
		snprintf(warn, sizeof(warn), "%s was renamed to %s since the load: fastpath's "
			 "program is detached from %s", ifname, r.ifname, r.ifname);
	if (warn[0] && !out_is_json())
		out_warn("%s", warn);
	cli_report_unload(ifname, &r, true, warn[0] ? warn : NULL);
	return CLI_OK;
}

/* ---- enable, disable ----------------------------------------------------- */

static int set_enabled(struct cli *cli, int argc, char **argv, bool on)
{
	const struct fp_stage_ops *s;
	struct fp_pipeline *pl;
	struct timespec t0;
	char err[512], note[128];
	bool was;
	int ret = cli_nargs(cli, argc, argv, 2, 2);

	if (ret)
		return ret;
	/* a wrong name is a usage error, found before anything is opened */
	ret = stage_arg(cli, argv[2], &s);
	if (ret)
		return ret;
	ret = open_pipeline(cli, argv[1], &pl);
	if (ret)
		return ret;
	if (!fp_pipeline__has_stage(pl, s)) {
		char cmd[128];

		if (s->load_cmd)
			snprintf(cmd, sizeof(cmd), s->load_cmd, argv[1]);
		else
			snprintf(cmd, sizeof(cmd), "fastpath pipeline load %s", argv[1]);
		snprintf(err, sizeof(err), "the %s stage is not loaded on %s; `%s` loads it",
			 s->name, argv[1], cmd);
		audit(cli, argv[0], argv[1], NULL, err, 0);
		fp_pipeline__close(pl);
		return cli_fail(cli, "%s", err);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	was = fp_pipeline__enabled(pl, s);
	err[0] = 0;
	ret = was == on ? 0 : fp_pipeline__set_enabled(pl, s, on, err, sizeof(err));
	if (ret) {
		if (!err[0])
			snprintf(err, sizeof(err), "%s the %s stage on %s failed: %s",
				 on ? "enabling" : "disabling", s->name, argv[1], strerror(-ret));
		audit(cli, argv[0], argv[1], NULL, err, elapsed_ms(&t0));
		fp_pipeline__close(pl);
		return cli_fail(cli, "%s; the stage is %s as before", err,
				was ? "enabled" : "disabled");
	}
	snprintf(note, sizeof(note), "stage %s %s", s->name,
		 was == on ? (on ? "already enabled, no change" : "already disabled, no change")
			   : (on ? "enabled" : "disabled"));
	audit(cli, argv[0], argv[1], note, NULL, elapsed_ms(&t0));
	out_obj_begin();
	out_str("iface", argv[1]);
	out_str("stage", s->name);
	out_u64("slot", s->slot);
	out_bool("enabled", fp_pipeline__enabled(pl, s));
	out_bool("changed", was != on);
	out_obj_end();
	fp_pipeline__close(pl);
	return CLI_OK;
}

static int do_enable(struct cli *cli, int argc, char **argv)
{
	return set_enabled(cli, argc, argv, true);
}

static int do_disable(struct cli *cli, int argc, char **argv)
{
	return set_enabled(cli, argc, argv, false);
}

static const struct cli_verb pipeline_verbs[] = {
	{ "load", "IFACE [--mode { native | skb }]",
	  "load the pipeline on IFACE (the entry program, the slots and the stages loaded "
	  "with every pipeline, the dump) and attach it; a program already attached there "
	  "is never replaced: the load is refused and names it", do_load,
	  "Examples: fastpath pipeline load eth0\n"
	  "          fastpath pipeline load veth1 --mode skb --bpffs /sys/fs/bpf/lab\n" },
	{ "unload", "IFACE [--force]",
	  "detach the pipeline from IFACE and remove its pins and every stage's; --force also "
	  "from incomplete pins or none (a program named fp_entry* only)", do_unload,
	  "Example:  fastpath -j pipeline unload eth0   (lists every pin removed)\n" },
	{ "show", "IFACE", "the attached program, which entry it is (plain, or a stage's fused "
	  "entry), mode, ABI, and per slot: stage, program, enabled, packets in and out by "
	  "verdict (- for a stage without counters)", do_show,
	  "Example:  fastpath pipeline show eth0\n"
	  "          fastpath -j pipeline show eth0 | jq '.slots[] | {stage, enabled}'\n" },
	{ "enable", "IFACE STAGE", "put a loaded stage back into the chain (no packet is lost "
	  "or misrouted, nothing is detached)", do_enable,
	  "Example:  fastpath pipeline enable eth0 filter\n" },
	{ "disable", "IFACE STAGE", "take a loaded stage out of the chain, keeping its pins, "
	  "rules and counters: packets go on to the next stage", do_disable,
	  "Example:  fastpath pipeline disable eth0 filter   (packets skip the filter)\n" },
	{ NULL },
};

int cmd_pipeline(struct cli *cli, int argc, char **argv)
{
	return cli_dispatch(cli, pipeline_verbs, argc, argv);
}
