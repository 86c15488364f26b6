// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The dump's dead man's switch. Each `fastpath dump` loads this program and
 * attaches it to sched_process_exit through a BPF link that it holds and
 * never pins. When the dump's process ends, however it ends (kill -9
 * included), the kernel fires the tracepoint in do_exit before exit_files()
 * closes the link; the program then switches sampling off as a clean stop
 * would: the pipeline's dump flags first (fp_ctl.dump: stages stop
 * offering), then fp_dump_cfg.active. Every
 * other process's exit costs one test of group_dead and one helper call.
 *
 * It touches a dump that is still its owner's only: a dump that ended
 * cleanly left owner_pid 0, and a later dump of another process wrote its
 * own pid there.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <fastpath/abi.h>
#include <fastpath/dump_abi.h>

/* The dump process, as its own pid namespace (dev, ino) sees it: the
 * owner_pid it writes to fp_dump_cfg. Set before load. */
const volatile __u32 owner_tgid = 0;
const volatile __u64 pidns_dev = 0;
const volatile __u64 pidns_ino = 0;

/* The interface's maps (the user side hands over their fds before load);
 * the same definitions as bpf/lib/pipeline.h and dump_sample.h, written
 * again because including those would make this object declare (and
 * libbpf create) every map of the pipeline and the dump, a 4 MB ring
 * among them, for two. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct fp_ctl);
} fp_ctl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fp_dump_cfg);
} fp_dump_cfg SEC(".maps");

/* sched_process_exit(struct task_struct *p, bool group_dead), the form of
 * recent kernels (6.18's BTF: btf_trace_sched_process_exit); it runs in
 * the exiting task. On a kernel with the older one-argument form the load
 * fails (ctx[1] is out of bounds) and the dump warns. */
SEC("tp_btf/sched_process_exit")
int fp_dump_exit(__u64 *ctx)
{
	struct bpf_pidns_info ns;
	struct fp_ctl *ctl;
	struct fp_dump_cfg *d;
	__u32 zero = 0;

	if (!(ctx[1] & 0xff)) /* a thread of a process that lives on */
		return 0;
	if (bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns, sizeof(ns)) ||
	    ns.tgid != owner_tgid)
		return 0;
	d = bpf_map_lookup_elem(&fp_dump_cfg, &zero);
	if (!d || d->owner_pid != owner_tgid)
		return 0;
	/* stages stop offering; the marker's slot (a --match dump's) is
	 * skipped by fused entries from here on: the bit alone, atomically,
	 * as the pipeline writes the others */
	ctl = bpf_map_lookup_elem(&fp_ctl, &zero);
	if (ctl) {
		*(volatile __u32 *)&ctl->dump = 0;
		__sync_fetch_and_and(&ctl->enabled, ~(1u << FP_STAGE_DUMP));
	}
	d->active = 0;
	d->use_match = 0;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
