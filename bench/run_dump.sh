#!/usr/bin/env bash
# Sourced by bench/run.sh (not run alone): the dump section (issue 5):
# `build/bench/dump_cost` and `bench/dump_rate.sh`, into the dump-bench
# markers of $DOC. DUMP_ROUNDS (9, rounds of dump_cost); FASTPATH (the
# binary dump_rate.sh measures, build/fastpath).
# It uses run.sh's settings (ROUNDS, WINDOW, REPEAT, SHARED_ROUNDS, FLOOD_ROUNDS,
# DOC, TMP) and helpers (log, made_by, splice).

[[ -x build/bench/dump_cost ]] || { echo "bench: build/bench/dump_cost missing; run 'make bench'" >&2; exit 2; }
DUMP_ROUNDS=${DUMP_ROUNDS:-9}
[[ ${1:-} == --quick ]] && DUMP_ROUNDS=3
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "dump_cost (BPF_PROG_TEST_RUN, repeat $REPEAT, $DUMP_ROUNDS rounds)"
build/bench/dump_cost -r "$REPEAT" -n "$DUMP_ROUNDS" >"$TMP/dcost.md" || exit 1
cat "$TMP/dcost.md"
log "dump_rate (window $WINDOW s)"
bash bench/dump_rate.sh -w "$WINDOW" -o "$TMP/drate.md" >/dev/null || exit 1
cat "$TMP/drate.md"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "<!-- dump-bench:begin (written by bench/run.sh; edit the script, not this part) -->"
	echo "## Dump (issue 5)"
	echo
	made_by
	echo
	echo "### What sampling costs the filter (BPF_PROG_TEST_RUN)"
	echo
	echo "Command: \`build/bench/dump_cost -r $REPEAT -n $DUMP_ROUNDS\` (repeat, rounds). The pipeline with"
	echo "\`drop udp dport 11211 sample 1/1000\` among four rules runs the flood packet without a dump and"
	echo "with one attached (rounds interleaved, median). Goal: within 5%."
	echo
	cat "$TMP/dcost.md"
	echo
	echo "### Sustained write rate with zero loss (packets/s to pcapng on tmpfs)"
	echo
	echo "Command: \`bench/dump_rate.sh -w $WINDOW\`${FASTPATH:+ with FASTPATH=$FASTPATH (the binary measured)}."
	echo "Same veth pair and CPU placement as the drop rate above (generator on CPU0, the receiver's"
	echo "NAPI kthread on CPU1, here SCHED_FIFO as softirq would be); the capture process is pinned on"
	echo "CPU1 as well, for every tool. The generator is stepped up a ladder (then bisected); a rate"
	echo "counts only if the tool wrote every packet it was handed (its own loss counter 0, its count"
	echo "equal to the XDP counter, \`capinfos\` agreeing) and the receiver's ring refused < 10% of what"
	echo "was sent (refused packets never reach XDP; a few % is noise of this VM, more means the receiver"
	echo "did not take the rate). xdpdump has no filter, and its fentry/fexit mode (tracing an attached"
	echo "program such as fastpath's) fails on this kernel (EPERM at program load), so it runs its own"
	echo "capture program, which passes every packet to the stack; \`fastpath dump\` is shown both on"
	echo "drops (what it is made for) and on passed packets (the same work for the receiver as under"
	echo "xdpdump)."
	echo
	cat "$TMP/drate.md"
	echo "<!-- dump-bench:end -->"
} >"$TMP/dsection.md"
splice dump-bench "$TMP/dsection.md"
log "wrote $DOC (dump section)"
