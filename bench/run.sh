#!/usr/bin/env bash
# `make bench`: runs every component's benchmarks side by side with their
# anchors and writes the figures, with the commands that made them, into
# docs/benchmarks.md (between each section's markers; the rest of the file
# is kept). Never part of `make test`. The filter, pipeline, dump and
# capture sections are in bench/run_<section>.sh, sourced from here.
#
#   bench/run.sh [--quick]       --quick: 1 round of 2 s, repeat 100,000 (a smoke run)
#
# Environment: ROUNDS (6), WINDOW (5 s), SHARED_ROUNDS (4, of filter_rate.sh -s),
# REPEAT (1000000), FLOOD_ROUNDS (5, of flood_cost), DOC (docs/benchmarks.md),
# ONLY (filter, pipeline, dump, lb, capture, proxy or bridge: that section
# alone), FP_OLD (another build's fastpath: the pipeline section then also
# runs bench/pipeline_regress.sh against it).
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

want filter && { . bench/run_filter.sh || exit 1; }
want pipeline && { . bench/run_pipeline.sh || exit 1; }
want dump && { . bench/run_dump.sh || exit 1; }

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
	echo "back (tests/stage/lb_restore.bpf.c; its own cost taken off), for one established flow, for"
	echo "a new flow in each of 50,000 runs, and for the same 50,000 flows again, established (the"
	echo "goal's pair: the same flows, each bucket as cold, in the product's default table of 1,048,576"
	echo "flows); and one run per frame over 50,000 flows, caches cold after each syscall, less the"
	echo "one-run harness (a frame not for a VIP timed both ways)."
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
# The 4x goal's row on its own (85 s): the two targets' one-flow windows
# adjacent, more rounds. Above, each round runs all three floods on one
# target before the other, so lb's and nft's one-flow windows lie ~20 s
# apart and the host's noise, which moves within minutes here, does not
# cancel in the pair.
GOAL_ROUNDS=${LB_GOAL_ROUNDS:-$(( SHARED_ROUNDS < 4 ? SHARED_ROUNDS : 10 ))} GOAL_WINDOW=$(( WINDOW < 3 ? WINDOW : 3 ))
log "lb_rate, the established-flow goal alone ($GOAL_ROUNDS rounds of ${GOAL_WINDOW} s)"
bench/lb_rate.sh -r "$GOAL_ROUNDS" -w "$GOAL_WINDOW" -f one -t "lb nft" -o "$TMP/lbgoal.md" || exit 1
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
	echo
	echo "The established-flow goal's row on its own, right after: \`bench/lb_rate.sh -r $GOAL_ROUNDS -w $GOAL_WINDOW -f one -t \"lb nft\"\`."
	echo "Each round measures lb's one-flow window and nft's back to back (above, the other floods"
	echo "lie between them), in an order that alternates by round: the pair sees the same host."
	echo
	cat "$TMP/lbgoal.md"
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
	echo "From the lb tables above (\`bench/lb_goals.sh\`), $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)."
	echo
	bash bench/lb_goals.sh "$TMP/lbcost.md" "$TMP/lbrate.md" "$TMP/lbcps.md" "$SHARED_ROUNDS" "$TMP/lbgoal.md" "$GOAL_ROUNDS"
	echo "<!-- lb-goals:end -->"
} >"$TMP/lbgoalssection.md"
splice lb-goals "$TMP/lbgoalssection.md"
cat "$TMP/lbgoalssection.md"
fi

want capture && { . bench/run_capture.sh || exit 1; }

# ---- proxy bench (issue 20): `bench/proxy_rate.sh`, wrk through fastpath
# proxy (each data path), HAProxy, a bare relay (the floor) and nginx
# directly, in two placements (server, then load), written between the
# proxy-bench markers of $DOC. ONLY=proxy runs it alone (10 min with
# PROXY_ROUNDS=5).
if want proxy; then
[[ -x build/bench/proxy_relay ]] || { echo "bench: build/bench/proxy_relay missing; run 'make bench'" >&2; exit 2; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# PROXY_ROUNDS=N: more rounds (the 1 MiB goal's median and spread; each
# round ~60 s in server, ~55 s in load)
PROUNDS=${PROXY_ROUNDS:-$(( ROUNDS < 3 ? ROUNDS : 3 ))} PWINDOW=$(( WINDOW < 4 ? WINDOW : 4 ))
# server: every data path and both relays; load: the busy-polling pair in
# place of fastpath's copy and sockmap paths and the copying relay (the
# time: each target costs ~7.5 s a round)
PT_SERVER="nginx haproxy haproxy-splice fp-splice fp-copy fp-sockmap relay-splice relay-copy"
PT_LOAD="nginx haproxy haproxy-splice haproxy-busy fp-splice fp-busy relay-splice"
for place in server load; do
	pt=PT_${place^^}
	log "proxy_rate -p $place ($PROUNDS rounds of $PWINDOW s)"
	bash bench/proxy_rate.sh -p "$place" -t "${!pt}" -r "$PROUNDS" -w "$PWINDOW" -o "$TMP/prate-$place.md" \
		>/dev/null || exit 1
	cat "$TMP/prate-$place.md"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "<!-- proxy-bench:begin (written by bench/run.sh; edit the script, not this part) -->"
	echo "## Proxy: fastpath proxy's data paths vs HAProxy (issue 20)"
	echo
	made_by
	echo
	echo "wrk (one thread, keep-alive) against one nginx over a namespace's loopback, directly and through"
	echo "each proxy with the Death Star's ACL (allow /dock*, /comms; deny /exhaust-port* 403): HAProxy 2.6"
	echo "(\`nbthread 1\`, \`option splice-auto\`; again with splice forced, and with \`busy-polling\`), fastpath"
	echo "proxy (splice, its default; each data path; splice with the opt-in \`--busy-poll\`), and a bare"
	echo "relay (\`bench/proxy_relay.c\`: no HTTP work at all, bytes moved both ways as they come, by splice"
	echo "or by copy): **the floor** by ablation, what a proxy that only moves the bytes makes in that lab."
	echo "Every proxy has one thread on CPU 1. Two placements of the rest, each with its goals table:"
	echo
	echo "- **\`server\`** (first: there the system under test is the bound): wrk alone on CPU 0 (the"
	echo "  clients: the world), nginx on CPU 1 with the proxy (a proxy in front of a local backend). A"
	echo "  throughput bench measures the system under test only when that system is the bound: here the"
	echo "  server host, proxy plus backend, is (CPU 1 ~100% busy), so a proxy's cost per request shows"
	echo "  up as requests/s. \`nginx directly\` is wrk on CPU 0 to nginx on CPU 1."
	echo "- **\`load\`** (the placement of the earlier sessions): wrk and nginx on CPU 0, the proxy alone on"
	echo "  CPU 1. There CPU 0 (the load generator and the backend) bounds every proxy that spends less"
	echo "  than HAProxy's default: the ratio is capped by CPU 0, whatever the proxy saves, as the bare"
	echo "  relay's row shows."
	echo
	echo "Commands: \`bench/proxy_rate.sh -p server -t \"$PT_SERVER\" -r $PROUNDS -w $PWINDOW\` and"
	echo "\`bench/proxy_rate.sh -p load -t \"$PT_LOAD\" -r $PROUNDS -w $PWINDOW\`."
	echo "Rounds interleaved; medians; ratios to HAProxy paired round by round; the proxy's own CPU time"
	echo "per request, nginx's and wrk's, and each CPU's busy share over the windows (the CPU near 100%"
	echo "is the bound). Goals: requests/s >= HAProxy on 100 B, >= 1.5x its throughput on 1 MiB, p99"
	echo "no worse: judged on both proxies' default configurations, once for each placement."
	echo
	echo "### Placement \`server\`: wrk on CPU 0; nginx and the proxy on CPU 1"
	cat "$TMP/prate-server.md"
	echo
	echo "### Placement \`load\`: wrk and nginx on CPU 0; the proxy alone on CPU 1"
	cat "$TMP/prate-load.md"
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
	echo "by its own timer every 5 us (as a NIC's interrupt coalescing), not woken from CPU0 once a"
	echo "generator batch (the script's header says why; \`SINKS_CPU1=1\` runs the sinks' NAPI on CPU1"
	echo "as the lab was, \`POLL_NS=0\` wakes the port's NAPI from CPU0, \`POLL_NS=20000\` polls it every"
	echo "20 us as the lab did until 2026-12-05 13:00, to compare). Each window also gives the switch's"
	echo "NAPI kthread's own CPU time a frame: frames per CPU1-second, what the switch would pass given"
	echo "all of CPU1 whatever the generator could offer. redir is the floor: a bare XDP program on the"
	echo "ingress port that redirects every frame to port 1 through a DEVMAP, no parsing or lookup."
	echo "Goal: 2x the Linux bridge's frames per second."
	echo
	echo "What a frame costs CPU1 in the two-CPU lab (perf of an fp window, 2026-12-05): not the page-pool"
	echo "lock any more, but the hand-over of every frame between CPUs that veth makes: veth_xdp_rcv,"
	echo "taking off the ring frames that CPU0 wrote, 23-30% of CPU1 (45-60% of the switch's NAPI), and"
	echo "waking the sinks' NAPI on CPU0 (an IPI, up to 23% of CPU1; the Linux bridge pays it too),"
	echo "against 7-10% in fastpath's own programs and map lookups. So a known-unicast frame costs CPU1"
	echo "several times its shared-CPU cost and the Linux bridge's extra work weighs less; the floor (redir)"
	echo "is itself only 2.5-2.9x the Linux bridge per CPU1-second in that lab. A flood costs"
	echo "fastpath a page and a copy per port (the kernel's DEVMAP broadcast clones the xdp_frame),"
	echo "freed by the sinks on CPU0; the Linux bridge clones an skb that shares the data."
	echo
	cat "$TMP/brrate.md"
	echo "<!-- bridge-bench:end -->"
} >"$TMP/brsection.md"
splice bridge-bench "$TMP/brsection.md"
log "wrote $DOC (bridge section)"
log "bridge: $(grep -A2 '^Goal, 2x' "$TMP/brrate.md" | tr '\n' ' ' | tr -d '*')"
fi
