#!/usr/bin/env bash
# `make bench`: runs the filter, pipeline and dump benchmarks side by side
# with their anchors and writes the figures, with the commands that made
# them, into docs/benchmarks.md (between each section's markers; the rest of
# the file is kept). Never part of `make test`.
#
#   bench/run.sh [--quick]       --quick: 1 round of 2 s, repeat 100,000 (a smoke run)
#
# Environment: ROUNDS (6), WINDOW (5 s), SHARED_ROUNDS (4, of filter_rate.sh -s),
# REPEAT (1000000), FLOOD_ROUNDS (5, of flood_cost), DOC (docs/benchmarks.md),
# ONLY (filter, pipeline or dump: that section alone), FP_OLD (another
# build's fastpath: the pipeline section then also runs
# bench/pipeline_regress.sh against it).
# Every lab runs the single-flow flood and the floods of many flows
# (filter_rate.sh -f flows / -f dns, flood_cost): issue 21.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
ROUNDS=${ROUNDS:-6} WINDOW=${WINDOW:-5} REPEAT=${REPEAT:-1000000} SHARED_ROUNDS=${SHARED_ROUNDS:-4}
FLOOD_ROUNDS=${FLOOD_ROUNDS:-5}
DOC=${DOC:-docs/benchmarks.md}
if [[ ${1:-} == --quick ]]; then
	ROUNDS=1 WINDOW=2 REPEAT=100000 SHARED_ROUNDS=1 FLOOD_ROUNDS=1
fi
[[ $(id -u) == 0 ]] || { echo "bench: needs root (BPF, namespaces)" >&2; exit 77; }
for b in build/fastpath build/bench/filter_cost build/bench/flood_cost build/bench/xdp_drop_attach build/bench/mark_stage build/bench/plain_entry; do
	[[ -x $b ]] || { echo "bench: $b missing; run 'make bench'" >&2; exit 2; }
done
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf

TMP=$(mktemp -d /tmp/fp-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
log() { printf '[%s bench] %s\n' "$(date +%T)" "$*" >&2; }

# made_by: the provenance lines of a doc section (uses load_before/load_after).
made_by() {
	local commit dirty
	commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	dirty=$(git status --porcelain -- . ':!docs/benchmarks.md' 2>/dev/null | grep -q . &&
		echo " + uncommitted changes")
	echo "Made by \`make bench\` (\`bench/run.sh\`) on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit$dirty;"
	echo "kernel $(uname -r), $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)),"
	echo "load average $load_before before and $load_after after (other work on the machine shows up as noise)."
}

# goals TABLE.md rate|ns: the issue's goals for fastpath at 10,000 rules,
# computed from a filter_rate.sh table (rate: Mpps column; ns: receiver
# ns/packet, lower is better, so the ratio is theirs / ours).
goals() {
	awk -F'|' -v by="$2" '
	function num(x) { gsub(/[ *]/, "", x); return x + 0 }
	/^\| fastpath, 10,000 rules/ { fr = num($3); fn = num($6) }
	/^\| xdp-filter -f all/      { xr = num($3); xn = num($6) }
	/^\| nftables/               { nr = num($3); nn = num($6) }
	/^\| bare/                   { br = num($3); bn = num($6) }
	END {
		if (!fr || !fn || !xn || !nn) exit
		printf "Goals, fastpath at 10,000 rules: "
		if (by == "rate")
			printf "vs xdp-filter -f all **%.2fx** by rate, %.2fx by receiver ns (goal >= 1); " \
			       "vs nftables **%.2fx** by rate, %.2fx by receiver ns (goal >= 4); " \
			       "vs bare XDP_DROP %.2fx by rate (stretch >= 0.95).\n",
			       fr / xr, xn / fn, fr / nr, nn / fn, fr / br
		else
			printf "vs xdp-filter -f all **%.2fx** by receiver ns (goal >= 1); " \
			       "vs nftables **%.2fx** (goal >= 4); vs bare XDP_DROP %.2fx (stretch >= 0.95).\n",
			       xn / fn, nn / fn, bn / fn
	}' "$1"
}

# side_by_side COL FILE:LABEL...: one row per target of filter_rate.sh
# tables, column COL (2: Mpps, 5: receiver ns/packet) of each FILE side by
# side, with fastpath at 10,000 rules against each anchor under each flood.
side_by_side() {
	local col=$1
	shift
	awk -F'|' -v col="$col" -v heads="$*" '
	function num(x) { gsub(/[ *]/, "", x); return x + 0 }
	FNR == 1 { f++ }
	/^\| [a-z]/ && $2 !~ /target/ {
		name = $2; gsub(/^ +| +$/, "", name)
		if (!(name in seen)) { seen[name] = 1; order[++n] = name }
		v[name, f] = num($(col + 1))
	}
	END {
		nh = split(heads, h, " ")
		printf "| target |"
		for (i = 1; i <= nh; i++) { split(h[i], p, ":"); gsub(/_/, " ", p[2]); printf " %s |", p[2] }
		printf "\n|---|"
		for (i = 1; i <= nh; i++) printf "---:|"
		printf "\n"
		for (k = 1; k <= n; k++) {
			printf "| %s |", order[k]
			for (i = 1; i <= f; i++)
				printf " %s |", ((order[k], i) in v) ? \
				       sprintf(col == 2 ? "%.2f" : "%.0f", v[order[k], i]) : "-"
			printf "\n"
		}
		fp = "fastpath, 10,000 rules"
		for (k = 1; k <= n; k++) {
			if (order[k] !~ /^(xdp-filter|nftables)/) continue
			printf "| %s |", (col == 5 ? order[k] " ns / fastpath 10,000 ns" : \
					  "fastpath 10,000 rate / " order[k] " rate")
			for (i = 1; i <= f; i++) {
				a = v[order[k], i]; b = v[fp, i]
				printf " %s |", (a && b) ? sprintf("**%.2fx**", col == 5 ? a / b : b / a) : "-"
			}
			printf "\n"
		}
	}' "${@%%:*}"
}

# splice NAME FILE: FILE replaces what lies between NAME's begin and end
# markers in $DOC (appended when $DOC has none); the rest of $DOC is kept.
splice() {
	local name=$1 section=$2
	if [[ -f $DOC ]] && grep -q "<!-- $name:begin" "$DOC"; then
		awk -v f="$section" -v b="<!-- $name:begin" -v e="<!-- $name:end -->" '
			index($0, b) == 1 { while ((getline l < f) > 0) print l; skip = 1; next }
			index($0, e) == 1 { skip = 0; next }
			!skip { print }' "$DOC" >"$TMP/doc.md"
	else
		{ [[ -f $DOC ]] && { cat "$DOC"; echo; } || printf '# fastpath benchmarks\n\n'
		  cat "$section"; } >"$TMP/doc.md"
	fi
	mkdir -p "$(dirname "$DOC")"
	cp "$TMP/doc.md" "$DOC"
}

# want SECTION: whether this run does SECTION (ONLY unset: all of them).
want() { [[ -z ${ONLY:-} || $ONLY == "$1" ]]; }
case ${ONLY:-} in ""|filter|pipeline|dump|lb|capture|proxy|bridge) ;; *) echo "bench: ONLY=$ONLY: filter, pipeline, dump, lb, capture, proxy or bridge" >&2; exit 2 ;; esac

if want filter; then
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
mkdir -p bench/rulesets
build/bench/filter_cost --write-rules bench/rulesets || exit 1

log "filter_cost (BPF_PROG_TEST_RUN, repeat $REPEAT)"
build/bench/filter_cost --repeat "$REPEAT" --rounds 9 >"$TMP/cost.md" || exit 1
cat "$TMP/cost.md"
log "flood_cost (BPF_PROG_TEST_RUN over 1 to 65,536 flows, repeat $REPEAT, $FLOOD_ROUNDS rounds)"
build/bench/flood_cost --repeat "$REPEAT" --rounds "$FLOOD_ROUNDS" >"$TMP/flood.md" || exit 1
cat "$TMP/flood.md"
log "apply_time (10,000 rules)"
bash bench/apply_time.sh -o "$TMP/apply.md" >/dev/null || exit 1
cat "$TMP/apply.md"
log "filter_rate ($ROUNDS rounds of $WINDOW s)"
bash bench/filter_rate.sh -r "$ROUNDS" -w "$WINDOW" -o "$TMP/rate.md" >/dev/null || exit 1
cat "$TMP/rate.md"
log "filter_rate -f flows ($ROUNDS rounds of $WINDOW s, random source address and port)"
bash bench/filter_rate.sh -f flows -r "$ROUNDS" -w "$WINDOW" -o "$TMP/rate_f.md" >/dev/null || exit 1
cat "$TMP/rate_f.md"
log "filter_rate -s (shared CPU: receive cost per packet, $SHARED_ROUNDS rounds of 3 s)"
bash bench/filter_rate.sh -s -r "$SHARED_ROUNDS" -w 3 -o "$TMP/rate_s.md" >/dev/null || exit 1
cat "$TMP/rate_s.md"
log "filter_rate -s -f flows"
bash bench/filter_rate.sh -s -f flows -r "$SHARED_ROUNDS" -w 3 -o "$TMP/rate_sf.md" >/dev/null || exit 1
cat "$TMP/rate_sf.md"
log "filter_rate -s -f dns (water torture)"
bash bench/filter_rate.sh -s -f dns -r "$SHARED_ROUNDS" -w 3 -t "bare fp10k xdpf_all xdpf_udp nft" \
	-o "$TMP/rate_sd.md" >/dev/null || exit 1
cat "$TMP/rate_sd.md"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

{
	echo "<!-- filter-bench:begin (written by bench/run.sh; edit the script, not this part) -->"
	echo "## Filter (issue 3)"
	echo
	made_by
	echo "The rule sets are generated by \`bench/rulegen.h\` and written to \`bench/rulesets/\`"
	echo "(\`build/bench/filter_cost --write-rules DIR\`; not committed)."
	echo
	echo "### Cost per packet (BPF_PROG_TEST_RUN)"
	echo
	echo "Command: \`build/bench/filter_cost --repeat $REPEAT --rounds 9\`. The fastpath figures are the whole"
	echo "pipeline as attached (\`fp_entry_filter\`: the entry parse and the filter in one program) opened with \`fp_filter__open_test\`, which also"
	echo "records each decision for \`filter test\` (one extra map write). The xdp-filter rows run its"
	echo "own objects (\`xdpfilt_alw_all.o\`, \`xdpfilt_alw_udp.o\`) with \`port 11211 -m dst -p udp\` in"
	echo "its map; it cannot match DNS names, so it passes the water-torture query."
	echo
	cat "$TMP/cost.md"
	echo
	echo "### Cost per packet over many flows (BPF_PROG_TEST_RUN, issue 21)"
	echo
	echo "Command: \`build/bench/flood_cost --repeat $REPEAT --rounds $FLOOD_ROUNDS\`. A rotator program (raw"
	echo "BPF, in every repetition of one test run) writes flow (counter mod N)'s source address and"
	echo "port into the frame and tail calls the program measured: N distinct flows in turn, so each"
	echo "program's per-flow cache and TLB footprint shows. Every cell includes the rotator (the bare"
	echo "XDP_DROP row: rotator + floor). One test run per frame (\`--method frames\`) is not used: the"
	echo "syscall between packets and the kernel's timer reads put 50 ns and cold caches into every"
	echo "cell; a live-frames run cannot rotate (its pages are filled from one data_in)."
	echo
	cat "$TMP/flood.md"
	echo
	echo "### Drop rate on veth (packets/s)"
	echo
	echo "Command: \`bench/filter_rate.sh -r $ROUNDS -w $WINDOW\`. Generator \`fastpath gen --cpu 0 --udp 11211\`"
	echo "(60 B frames) on CPU0, the receiver veth's threaded NAPI kthread pinned to CPU1 at SCHED_FIFO"
	echo "(as softirq work would run on a NIC), bpf_stats off."
	echo "The generator floods unpaced (see the script's header for why); the rate"
	echo "is the receiver veth's rx_packets per second; \"dropped by the target\" is from \`ethtool -S\`"
	echo "(rx_queue_0_xdp_drops) or the nft/iptables rule counter, \"reached IP layer\" from"
	echo "/proc/net/snmp InReceives. Debian's \`iptables\` is the nf_tables backend."
	echo "\"Receiver ns/packet\" is the CPU time of the receiver's NAPI kthread (all its receive work)"
	echo "per packet it handled, the median over rounds; the capacity is 1e3 / ns. Rounds fall into a"
	echo "fast or a slow mode for every XDP target: frames the ring refuses are returned by the"
	echo "generator's CPU into the page pool the receiver returns frames to, and the two CPUs then"
	echo "contend for its lock (seen in perf as \`__pv_queued_spin_lock_slowpath\` under"
	echo "\`page_pool_put_unrefed_netmem\` on both CPUs); a slow round shows up in both columns."
	echo
	cat "$TMP/rate.md"
	echo
	goals "$TMP/rate.md" rate
	echo
	echo "The same with a flood of many flows, command \`bench/filter_rate.sh -f flows -r $ROUNDS -w $WINDOW\`"
	echo "(\`gen --udp 11211 --rand-src 0.0.0.0/0 --rand-sport\`: a random source address and port per frame):"
	echo
	cat "$TMP/rate_f.md"
	echo
	echo "Side by side, Mpps (median of seconds):"
	echo
	side_by_side 2 "$TMP/rate.md:one_flow" "$TMP/rate_f.md:random_source_and_port"
	echo
	echo "### Receive cost per packet on veth, generator and receiver on one CPU"
	echo
	echo "Command: \`bench/filter_rate.sh -s -r $SHARED_ROUNDS -w 3\`. The same lab and targets, with the"
	echo "generator on CPU1 beside the receiver's NAPI kthread, which preempts it after every batch"
	echo "it sends: the ring never fills, nothing is refused and no other CPU returns frames into"
	echo "the page pool, so there is no contended mode and the receiver's ns/packet is its receive"
	echo "cost alone (the column to compare; capacity = 1e3 / ns). The rate column is what one CPU"
	echo "does for both ends, not a drop rate."
	echo
	cat "$TMP/rate_s.md"
	echo
	goals "$TMP/rate_s.md" ns
	echo
	echo "With a random source address and port in every frame (\`-f flows\`), and DNS water torture"
	echo "(\`-f dns\`: \`gen --dns x7k2q9.victim.example --rand-label\`, a new name in every query; fastpath's"
	echo "10,000 rules include \`drop udp dport 53 qname *.victim.example\` and ~1,200 other qname"
	echo "rules, the others drop udp dport 53), commands \`bench/filter_rate.sh -s -f flows -r $SHARED_ROUNDS -w 3\`"
	echo "and \`bench/filter_rate.sh -s -f dns -r $SHARED_ROUNDS -w 3 -t 'bare fp10k xdpf_all xdpf_udp nft'\`:"
	echo
	cat "$TMP/rate_sf.md"
	echo
	cat "$TMP/rate_sd.md"
	echo
	echo "Side by side, receiver ns/packet (median of rounds; ratios of the medians, the paired ones are"
	echo "under each table):"
	echo
	side_by_side 5 "$TMP/rate_s.md:one_flow" "$TMP/rate_sf.md:random_source_and_port" \
		"$TMP/rate_sd.md:DNS_water_torture"
	echo
	echo "### Installing 10,000 rules"
	echo
	echo "Command: \`bench/apply_time.sh\`. The nft set is the same rules in nft syntax; nft has no"
	echo "DNS-name match and no per-source limit without a meter, so those rules are written as"
	echo "\`udp dport 53 drop\` and a global \`limit rate over\` (same count, not the same semantics)."
	echo
	cat "$TMP/apply.md"
	echo "<!-- filter-bench:end -->"
} >"$TMP/section.md"

splice filter-bench "$TMP/section.md"
log "wrote $DOC"
fi

# ---- pipeline bench (issue 16): the pipeline's own cost, by
# BPF_PROG_TEST_RUN (`filter_cost --pipeline`) and in the shared-CPU lab
# (filter_rate.sh -s with the pipeline targets), between the
# pipeline-bench markers of $DOC.
if want pipeline; then
P_ROUNDS=9
[[ ${1:-} == --quick ]] && P_ROUNDS=3
P_TARGETS="bare entry_sink fp10k fp10k_plain fp10k_stage fp10k_sink fp10k_stage_sink"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "pipeline cost (BPF_PROG_TEST_RUN, repeat $REPEAT, $P_ROUNDS rounds)"
build/bench/filter_cost --pipeline --repeat "$REPEAT" --rounds "$P_ROUNDS" >"$TMP/pcost.md" || exit 1
cat "$TMP/pcost.md"
log "pipeline in the lab (shared CPU, $SHARED_ROUNDS rounds of 3 s)"
bash bench/filter_rate.sh -s -r "$SHARED_ROUNDS" -w 3 -t "$P_TARGETS" -o "$TMP/prate.md" >/dev/null || exit 1
cat "$TMP/prate.md"
if [[ -n ${FP_OLD:-} ]]; then
	log "pipeline_regress (FP_OLD=$FP_OLD, $SHARED_ROUNDS x 2 rounds of 3 s)"
	bash bench/pipeline_regress.sh -r $(( SHARED_ROUNDS * 2 )) -w 3 -o "$TMP/pregress.md" >/dev/null
	cat "$TMP/pregress.md"
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "<!-- pipeline-bench:begin (written by bench/run.sh; edit the script, not this part) -->"
	echo "## Pipeline (issue 16)"
	echo
	made_by
	echo
	echo "### Cost per packet (BPF_PROG_TEST_RUN)"
	echo
	echo "Command: \`build/bench/filter_cost --pipeline --repeat $REPEAT --rounds $P_ROUNDS\`. One process:"
	echo "a bare XDP_DROP program; the plain entry \`fp_entry\` of a pipeline with no stage (the parse and"
	echo "a walk of the empty slots; it passes); the filter at 10,000 rules (\`fp_filter__open_test\`, as in"
	echo "the filter section) run by its fused entry \`fp_entry_filter\` (what is attached) and by the plain"
	echo "entry, which tail-calls the filter's slot; and both again with the tests' mark stage"
	echo "(\`tests/stage/mark.bpf.c\`, action pass: it marks and counts the packet) in slot 5, filled only"
	echo "while those rows run. Dropped packets end at the filter and never reach the stage; the TCP"
	echo "and DNS legit packets pass through it. The bench fails if the stage saw no packet."
	echo
	cat "$TMP/pcost.md"
	echo
	echo "### Receive cost per packet on veth, shared CPU"
	echo
	echo "Command: \`bench/filter_rate.sh -s -r $SHARED_ROUNDS -w 3 -t \"$P_TARGETS\"\`, the lab of the"
	echo "filter section's shared-CPU table. The mark stage is plugged into the pinned pipeline by"
	echo "\`build/bench/mark_stage\` (pass: the no-op stage in slot 5; drop: a sink in slot 6). A pipeline"
	echo "that passes a packet hands it to the network stack, whose cost would swamp the figures: the"
	echo "targets whose packets the filter passes end in the sink instead, and get UDP to port 9, which"
	echo "the 10,000 rules pass (the flood to 11211 is dropped by the filter, so fp10k_stage measures a"
	echo "later stage's cost to the filter's drops: none is expected). Each round logs the packets each"
	echo "mark stage saw (all of them handled, for the sink and a no-op stage the filter passes to)."
	echo "fp10k_plain attaches the pipeline's plain entry in place of the filter's fused one"
	echo "(\`build/bench/plain_entry\`): the filter then runs from its slot, behind a tail call."
	echo
	cat "$TMP/prate.md"
	if [[ -f $TMP/pregress.md ]]; then
		echo
		echo "### Before and after the pipeline change (issue 16's 2 ns goal)"
		echo
		echo "Command: \`FP_OLD=$FP_OLD bench/pipeline_regress.sh -r $(( SHARED_ROUNDS * 2 )) -w 3\`."
		echo
		cat "$TMP/pregress.md"
	fi
	echo "<!-- pipeline-bench:end -->"
} >"$TMP/psection.md"
splice pipeline-bench "$TMP/psection.md"
log "wrote $DOC (pipeline section)"
fi

# ---- dump bench (issue 5): `build/bench/dump_cost` and `bench/dump_rate.sh`,
# written between the dump-bench markers of $DOC (the rest is kept).
# Environment: DUMP_ROUNDS (9, rounds of dump_cost); FASTPATH (the binary
# dump_rate.sh measures, build/fastpath). ONLY=dump runs this part alone.
if want dump; then
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
fi

# ---- lb stage cost (issue 17): `build/bench/lb_cost`, ns per packet of the
# lb stage by BPF_PROG_TEST_RUN (new and established flows).
if want lb; then
[[ -x build/bench/lb_cost ]] || { echo "bench: build/bench/lb_cost missing; run 'make bench'" >&2; exit 2; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "lb_cost (BPF_PROG_TEST_RUN, repeat $REPEAT)"
build/bench/lb_cost -r "$REPEAT" >"$TMP/lbcost.md" || exit 1
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "<!-- lb-cost:begin -->"
	echo "## lb stage: ns per packet (BPF_PROG_TEST_RUN)"
	echo
	made_by
	echo
	echo "Command: \`build/bench/lb_cost -r $REPEAT\`. Behind fp_entry. The lb moves the frame's head: the"
	echo "whole way (encapsulation, next hop, XDP_TX) is repeated through a prelude that puts the frame"
	echo "back (tests/stage/lb_restore.bpf.c; its own cost taken off), for one established flow and for"
	echo "a new flow in each of 50,000 runs; and one run per frame over 50,000 flows, caches cold after"
	echo "each syscall, less the one-run harness (a frame not for a VIP timed both ways)."
	echo
	cat "$TMP/lbcost.md"
	echo "<!-- lb-cost:end -->"
} >"$TMP/lbsection.md"
splice lb-cost "$TMP/lbsection.md"
log "wrote $DOC (lb section)"

# ---- lb forwarding in the shared-CPU lab (issue 17): bench/lb_rate.sh,
# fastpath lb against an nftables DNAT balancer, ns per packet.
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "lb_rate (shared-CPU lab, $SHARED_ROUNDS rounds of ${WINDOW} s)"
bench/lb_rate.sh -r "$SHARED_ROUNDS" -w "$WINDOW" -o "$TMP/lbrate.md" || exit 1
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "<!-- lb-rate:begin -->"
	echo "## lb forwarding: fastpath lb vs an nftables balancer (shared-CPU lab)"
	echo
	made_by
	echo
	echo "Command: \`bench/lb_rate.sh -r $SHARED_ROUNDS -w $WINDOW\`. A UDP VIP over three backends routed"
	echo "through the generator's end: fastpath lb (IPIP, XDP_TX) against nft DNAT with a jhash"
	echo "(conntrack, routing). The receiver's NAPI kthread's ns per handled packet; one flow, 4,096"
	echo "flows, and a new flow in nearly every packet."
	echo
	cat "$TMP/lbrate.md"
	echo "<!-- lb-rate:end -->"
} >"$TMP/lbratesection.md"
splice lb-rate "$TMP/lbratesection.md"
log "wrote $DOC (lb forwarding section)"

# ---- TCP connections per second end to end (issue 17): bench/lb_cps.sh,
# wrk through fastpath lb and through nft DNAT to the same nginx backends.
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "lb_cps (wrk, $SHARED_ROUNDS rounds of ${WINDOW} s)"
bench/lb_cps.sh -r "$SHARED_ROUNDS" -w "$WINDOW" -o "$TMP/lbcps.md" || exit 1
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "<!-- lb-cps:begin -->"
	echo "## lb: TCP connections per second end to end (fastpath lb vs nft DNAT)"
	echo
	made_by
	echo
	echo "Command: \`bench/lb_cps.sh -r $SHARED_ROUNDS -w $WINDOW\`. The topology of tests/e2e/lb_traffic.sh"
	echo "(client, lb host and three nginx backends on one bridge); wrk, one thread, 32 connections,"
	echo "\`Connection: close\` (a TCP connection per request); fastpath lb (IPIP, \`fastpath decap\`,"
	echo "direct server return) against nft DNAT with a jhash (the answers come back through it)."
	echo "Client, lb and backends share the machine's CPUs: read the paired ratio, not the rates."
	echo
	cat "$TMP/lbcps.md"
	echo "<!-- lb-cps:end -->"
} >"$TMP/lbcpssection.md"
splice lb-cps "$TMP/lbcpssection.md"
log "wrote $DOC (lb connections section)"
{
	echo "<!-- lb-goals:begin -->"
	echo "## lb: issue 17's goals in this run"
	echo
	echo "From the three lb tables above (\`bench/lb_goals.sh\`), $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)."
	echo
	bash bench/lb_goals.sh "$TMP/lbcost.md" "$TMP/lbrate.md" "$TMP/lbcps.md" "$SHARED_ROUNDS"
	echo "<!-- lb-goals:end -->"
} >"$TMP/lbgoalssection.md"
splice lb-goals "$TMP/lbgoalssection.md"
cat "$TMP/lbgoalssection.md"
fi

# ---- capture bench (issue 18): `bench/capture_rate.sh` (zero-loss capture
# rate: fastpath capture, tcpdump, tcpdump -B, fastpath dump, xdpdump) and
# `bench/inject_rate.sh` (fastpath inject vs tcpreplay --topspeed), written
# between the capture-bench markers of $DOC. ONLY=capture runs it alone.
if want capture; then
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "capture_rate (window $WINDOW s)"
bash bench/capture_rate.sh -w "$WINDOW" -o "$TMP/crate.md" >/dev/null || exit 1
cat "$TMP/crate.md"
log "inject_rate"
bash bench/inject_rate.sh -r "$(( ROUNDS < 3 ? ROUNDS : 3 ))" -o "$TMP/irate.md" >/dev/null || exit 1
cat "$TMP/irate.md"
log "forward_rate"
bash bench/forward_rate.sh -r "$(( ROUNDS < 3 ? ROUNDS : 3 ))" -t "fp_forward bridge router fp_rx_only" -o "$TMP/frate.md" >/dev/null || exit 1
cat "$TMP/frate.md"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "<!-- capture-bench:begin (written by bench/run.sh; edit the script, not this part) -->"
	echo "## Capture and inject (issue 18)"
	echo
	made_by
	echo
	echo "### Zero-loss capture rate (packets/s written to a pcap on tmpfs)"
	echo
	echo "The dump section's ladder (bench/dump_rate.sh) in the lab of \`capture_rate.sh -k gen\`: the"
	echo "generator and the receiver's NAPI kthread (the kernel's receive work) on CPU0, the tool alone"
	echo "on CPU1, so that the generator's frames go back to its page pool on its own CPU (on CPU1 that"
	echo "lock took 30-60% of the CPU and capped every XDP tool; \`-k tool\` is that lab). A rung fails"
	echo "when the tool lost a packet or the generator could not send 97% of the rate beside the"
	echo "receive path. \`fastpath capture\` takes the flood through the steer stage into an AF_XDP"
	echo "socket (copy mode: veth has no zero-copy); tcpdump reads it through AF_PACKET with its"
	echo "default ring and with \`-B 262144\`; lab_drop (no tool, XDP drops) is the lab's ceiling."
	echo "Goals: capture at least 3x tcpdump's zero-loss rate and above \`fastpath dump\`'s."
	echo
	cat "$TMP/crate.md"
	echo
	echo "### Injection rate"
	echo
	cat "$TMP/irate.md"
	echo
	echo "### Forwarding rate (\`fastpath forward\` against the kernel's forwarding)"
	echo
	echo "Generator -> IF1 [forwarder] IF2 -> sink (XDP drop, counted). \`fastpath forward\` sends from"
	echo "IF1's umem on IF2's socket (shared umem, copy mode on veth); the kernel forwards the same flood"
	echo "with a Linux bridge of IF1 and IF2 (L2, the same function) and with ip_forward (L3). Goal: at"
	echo "least the kernel's rate."
	echo
	cat "$TMP/frate.md"
	echo "<!-- capture-bench:end -->"
} >"$TMP/csection.md"
splice capture-bench "$TMP/csection.md"
log "wrote $DOC (capture section)"
fi

# ---- proxy bench (issue 20): `bench/proxy_rate.sh`, wrk through fastpath
# proxy (each data path), HAProxy and nginx directly, written between the
# proxy-bench markers of $DOC. ONLY=proxy runs it alone.
if want proxy; then
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# PROXY_ROUNDS=N: more rounds (the 1 MiB goal's median and spread; each round ~50 s)
PROUNDS=${PROXY_ROUNDS:-$(( ROUNDS < 3 ? ROUNDS : 3 ))} PWINDOW=$(( WINDOW < 4 ? WINDOW : 4 ))
log "proxy_rate ($PROUNDS rounds of $PWINDOW s)"
bash bench/proxy_rate.sh -r "$PROUNDS" -w "$PWINDOW" -o "$TMP/prate.md" >/dev/null || exit 1
cat "$TMP/prate.md"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "<!-- proxy-bench:begin (written by bench/run.sh; edit the script, not this part) -->"
	echo "## Proxy: fastpath proxy's data paths vs HAProxy (issue 20)"
	echo
	made_by
	echo
	echo "Command: \`bench/proxy_rate.sh -r $PROUNDS -w $PWINDOW\`. wrk (one thread, keep-alive) against one"
	echo "nginx over a namespace's loopback, directly and through each proxy with the Death Star's ACL"
	echo "(allow /dock*, /comms; deny /exhaust-port* 403); every proxy on CPU 1 with one thread (HAProxy"
	echo "\`nbthread 1\`, \`option splice-auto\`, and again with splice forced), wrk and nginx on CPU 0."
	echo "Rounds interleaved; medians; ratios to HAProxy paired round by round; the proxy's own CPU time"
	echo "per request, the load's (wrk's and nginx's: the work a proxy makes CPU 0 do) and each CPU's busy"
	echo "share over the windows (the load's, CPU 0, bounds every proxy when near 100%). Goals:"
	echo "requests/s >= HAProxy on 100 B, >= 1.5x its throughput on 1 MiB, p99 no worse: the goals"
	echo "table at the end."
	cat "$TMP/prate.md"
	echo "<!-- proxy-bench:end -->"
} >"$TMP/psection.md"
splice proxy-bench "$TMP/psection.md"
log "wrote $DOC (proxy section)"
fi

# ---- bridge (issue 19): `build/bench/bridge_cost` (BPF_PROG_TEST_RUN: a
# known-unicast frame against the filter's dropped flood packet) and
# `bench/bridge_rate.sh` (fastpath bridge vs the Linux bridge over the same
# veths: ns per frame in the shared-CPU lab, known unicast and a flood to 4
# ports; frames per second in the two-CPU lab where the switch alone has
# CPU1, the sinks' NAPI on the generator's CPU0), between the bridge-bench
# markers of $DOC. ONLY=bridge runs it alone and ends with the goal's ratio.
if want bridge; then
[[ -x build/bench/bridge_cost ]] || { echo "bench: build/bench/bridge_cost missing; run 'make bench'" >&2; exit 2; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "bridge_cost (BPF_PROG_TEST_RUN, repeat $REPEAT)"
build/bench/bridge_cost --repeat "$REPEAT" --rounds 5 >"$TMP/brcost.md" || exit 1
log "bridge_rate ($SHARED_ROUNDS rounds of ${WINDOW} s)"
brperf=$(command -v perf >/dev/null && echo "-p $TMP/brperf") # (CPU1's profile in the table)
bench/bridge_rate.sh -r "$SHARED_ROUNDS" -w "$WINDOW" -W "$WINDOW" $brperf -o "$TMP/brrate.md" || exit 1
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "<!-- bridge-bench:begin (written by bench/run.sh; edit the script, not this part) -->"
	echo "## Bridge (issue 19)"
	echo
	made_by
	echo
	echo "### Known unicast by BPF_PROG_TEST_RUN, against the filter's dropped flood packet"
	echo
	echo "Command: \`build/bench/bridge_cost --repeat $REPEAT --rounds 5\`. Goal: known unicast at most"
	echo "1.5x the filter's dropped flood packet."
	echo
	cat "$TMP/brcost.md"
	echo
	echo "### fastpath bridge vs the Linux bridge over the same veths"
	echo
	echo "Command: \`bench/bridge_rate.sh -r $SHARED_ROUNDS -w $WINDOW -W $WINDOW\`. uni: known unicast port"
	echo "to port, flood: a frame for an unknown MAC to 4 ports, both in the shared-CPU lab (the"
	echo "receiver's NAPI kthread's ns per frame it handled); rate (known unicast) and frate (the flood):"
	echo "frames a second switched in the two-CPU lab where the switch alone has CPU1: its ingress"
	echo "port's NAPI kthread on CPU1, the generator and the sinks' NAPI kthreads on CPU0, so the"
	echo "generator's frames go back to its page pool on its own CPU, and the ingress port's NAPI polled"
	echo "by its own timer every 20 us (as a NIC's interrupt coalescing), not woken from CPU0 once a"
	echo "generator batch (the script's header says why; \`SINKS_CPU1=1\` runs the sinks' NAPI on CPU1"
	echo "as the lab was, \`POLL_NS=0\` wakes the port's NAPI from CPU0, to compare)."
	echo "Goal: 2x the Linux bridge's frames per second."
	echo
	echo "What a frame costs CPU1 in the two-CPU lab (perf -C 1 of an fp window, 2026-12-05): not the page-pool"
	echo "lock any more, but the hand-over of every frame between CPUs that veth makes: veth_xdp_rcv,"
	echo "taking off the ring frames that CPU0 wrote, was 30% of CPU1 (45% of the switch's NAPI), against"
	echo "7% in fastpath's own programs and map lookups (for the Linux bridge: veth_xdp_rcv 5%, its first"
	echo "read of a frame, eth_type_trans, 8%). So a known-unicast frame costs CPU1 several times its"
	echo "shared-CPU cost and the Linux bridge's extra work weighs less. Woken from CPU0 (POLL_NS=0),"
	echo "fastpath's NAPI ran 30-40% of CPU1: it empties the ring between the generator's 256-frame"
	echo "batches and sleeps, and the port refuses what comes before it is woken again. A flood costs"
	echo "fastpath a page and a copy per port (the kernel's DEVMAP broadcast clones the xdp_frame),"
	echo "freed by the sinks on CPU0; the Linux bridge clones an skb that shares the data."
	echo
	cat "$TMP/brrate.md"
	echo "<!-- bridge-bench:end -->"
} >"$TMP/brsection.md"
splice bridge-bench "$TMP/brsection.md"
log "wrote $DOC (bridge section)"
log "bridge: $(grep -A1 '^Goal, 2x' "$TMP/brrate.md" | tr '\n' ' ' | tr -d '*')"
fi
