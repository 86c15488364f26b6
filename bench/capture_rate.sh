#!/usr/bin/env bash
# Zero-loss capture rate: the highest offered rate (60 B UDP, packets/s)
# at which a capture tool writes EVERY packet to a pcap on tmpfs, side by
# side under the same load (issue 18's bench):
#
#   bench/capture_rate.sh [-w WINDOW_S] [-l "PPS ..."] [-b STEPS] [-B BUDGET_S]
#                         [-t "target ..."] [-k gen|tool] [-o OUT.md]
#
# targets:
#   fp_capture  `fastpath capture IFACE --match 'udp dport 11211' -w FILE`: the
#               steer stage redirects the flood to an AF_XDP socket (copy
#               mode on veth), written with libpcap's dumper.
#   tcpdump     `tcpdump -w FILE udp port 11211` (AF_PACKET, default ring).
#   tcpdump_B   the same with `-B 262144` (a 256 MiB ring).
#   fp_pass     `fastpath dump` of every packet (filter `pass udp dport 11211`).
#   fp_drop     `fastpath dump --drops` (filter `drop udp dport 11211`), no
#               sampling: every dropped packet is to be written.
# ablations of fp_capture (not in the default targets):
#   fp_capture_ring2k  with --ring 2048 (the RX ring of the first version)
#   fp_capture_busy    with --busy-poll 50 (the process runs the NAPI)
#   fp_capture_null    writing to /dev/null: the floor of AF_XDP receive
#               plus pcap formatting, without the file (its count is the
#               tool's own: no file to read back).
# FP_CAPTURE_ARGS (environment): more arguments for fastpath capture
# (e.g. "--ring 2048" to compare ring sizes).
#   xdpdump     `xdpdump -i IFACE --load-xdp-program -w FILE`.
#   lab_drop    ablation, no tool: the filter drops the flood in XDP. The
#               highest rate the lab offers with the least receive work:
#               no tool's zero-loss rate can show above it.
#
# Method: the veth lab of bench/veth_lab.sh (generator on CPU0, the tool
# on CPU1 under taskset, bpf_stats off). Each rung: start the tool writing
# to a private tmpfs, wait until it is attached, run the generator paced
# at PPS for WINDOW seconds, let the tool drain 1 s, stop it with SIGINT
# (it writes what it holds and prints its counts). The ladder (-l) is
# climbed, targets interleaved per rung, until a rung fails; then STEPS
# (-b) bisection steps (geometric midpoint) between the last rung that
# passed and the first that failed; no rung starts that would end past
# the time budget (-B, default 170 s). The figure reported is what was
# written per second at the best passing rung. -k says where the receiver's NAPI
# kthread (the kernel's receive work: XDP, the copy into the tool's ring,
# the stack) runs:
#   gen   (default) on CPU0 with the generator: the tool has CPU1 alone,
#         and the generator's frames go back to its page pool on its own
#         CPU. A kernel receive path too slow for the rate slows the
#         generator, and the rung fails ("sent N% of the rate").
#   tool  on CPU1 with the tool (the first lab). Every frame the receive
#         path frees on CPU1 goes back to the generator's page pool through
#         a locked ptr_ring (perf: 30-60% of CPU1 in that lock), which
#         caps every XDP tool at a few hundred kpps here whatever its cost.
# A rung passes when the generator sent >= 97% of the rate asked (-k gen
# only: there the receive path shares its CPU; with -k tool the generator
# has CPU0 alone, as dump_rate.sh's rungs always had), the tool
# lost nothing by its own count, wrote exactly the packets that reached it
# (rx_queue_0_xdp_packets with an XDP program, rx_packets for tcpdump,
# which has none), the file holds that many (capinfos), and the veth
# refused < 10% at its ring.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# bench/dump_rate.sh runs this ladder for dump's targets in the -k tool
# lab; SCRIPT names the script run in the logs and the summary's command.
SCRIPT=${CAPTURE_RATE_SCRIPT:-capture_rate.sh}
FP=${FASTPATH:-$REPO/build/fastpath}
WINDOW=5 STEPS=2 BUDGET=170 OUT= KLAB=gen
LADDER="100000 200000 400000 800000 1600000 3200000"
TARGETS="fp_capture tcpdump tcpdump_B fp_pass xdpdump lab_drop"
PORT=11211
while getopts "w:l:b:B:t:k:o:" c; do
	case $c in
	w) WINDOW=$OPTARG ;; l) LADDER=$OPTARG ;; b) STEPS=$OPTARG ;; B) BUDGET=$OPTARG ;;
	t) TARGETS=$OPTARG ;; k) KLAB=$OPTARG ;; o) OUT=$OPTARG ;;
	*) echo "usage: $0 [-w WINDOW_S] [-l \"PPS ...\"] [-b STEPS] [-B BUDGET_S] [-t TARGETS] [-k gen|tool] [-o OUT.md]" >&2
	   exit 2 ;;
	esac
done
[[ $WINDOW =~ ^[0-9]+$ && $STEPS =~ ^[0-9]+$ && $BUDGET =~ ^[0-9]+$ ]] &&
	(( WINDOW >= 1 && WINDOW <= 60 && STEPS <= 5 )) ||
	{ echo "${SCRIPT%.sh}: WINDOW 1..60, STEPS 0..5, BUDGET in seconds" >&2; exit 2; }
case $KLAB in
gen) VETH_LAB_NAPI_CPU=0 ;; tool) VETH_LAB_NAPI_CPU=1 ;;
*) echo "capture_rate: -k gen|tool (where the receive NAPI runs), not '$KLAB'" >&2; exit 2 ;;
esac
for p in $LADDER; do
	[[ $p =~ ^[0-9]+$ ]] && (( p >= 1000 )) || { echo "${SCRIPT%.sh}: bad rate '$p' in -l" >&2; exit 2; }
done
for t in $TARGETS; do
	case $t in fp_capture|fp_capture_null|fp_capture_ring2k|fp_capture_busy|tcpdump|tcpdump_B|fp_drop|fp_pass|xdpdump|lab_drop) ;; *) echo "${SCRIPT%.sh}: unknown target '$t'" >&2; exit 2 ;; esac
done
. "$REPO/bench/veth_lab.sh"
veth_lab_require capture_rate cr capinfos xdpdump tcpdump "$FP"
TMP=$(mktemp -d /tmp/fp-bench-capture.XXXXXX)
SHM=$TMP/shm
GEN_PID='' TOOL_PID='' STATS_OLD=''
log() { printf '[%s %s] %s\n' "$(date +%T)" "${SCRIPT%.sh}" "$*" >&2; }

cleanup() {
	set +e
	[[ -n $GEN_PID ]] && kill "$GEN_PID" 2>/dev/null && wait "$GEN_PID" 2>/dev/null
	[[ -n $TOOL_PID ]] && kill -KILL "$TOOL_PID" 2>/dev/null && wait "$TOOL_PID" 2>/dev/null
	ip netns del "$NSG" 2>/dev/null
	ip netns del "$NSR" 2>/dev/null
	for m in "$SHM" "$TMP/bpffs" "$TMP/xbpffs"; do
		mountpoint -q "$m" && umount "$m"
	done
	[[ -n $STATS_OLD ]] && sysctl -qw kernel.bpf_stats_enabled="$STATS_OLD"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'log interrupted; exit 130' INT TERM

# A private copy: a rebuild of build/ during the run must not break it.
cp "$FP" "$TMP/fastpath" || exit 1
FP=$TMP/fastpath
STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=0
mkdir -p "$TMP/bpffs" "$TMP/xbpffs" "$SHM"
mount -t bpf bpf "$TMP/bpffs" && mount -t bpf bpf "$TMP/xbpffs" || exit 1
mount -t tmpfs -o size=6g,mode=0700 tmpfs "$SHM" || exit 1
printf 'drop udp dport %s id flood\ndefault pass\n' "$PORT" >"$TMP/fp_drop.rules"
printf 'pass udp dport %s id flood\ndefault pass\n' "$PORT" >"$TMP/fp_pass.rules"

veth_lab_up || exit 1
log "generator $NSG/$IFG on CPU0 -> $NSR/$IFR, the tool on CPU1, receive NAPI kthread $napi on CPU$VETH_LAB_NAPI_CPU"

in_r() { ip netns exec "$NSR" "$@"; }
rx() { in_r cat "/sys/class/net/$IFR/statistics/$1"; }
xdp_stat() { in_r ethtool -S "$IFR" | awk -v k="rx_queue_0_xdp_$1:" '$1 == k { print $2 }'; }
# jnum KEY FILE: a number from a one-line JSON object.
jnum() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" "$2" | head -n1; }

setup() {
	case $1 in
	fp_capture*) ;;  # the capture loads the pipeline and its stage itself
	fp_*) in_r "$FP" --bpffs "$TMP/bpffs" filter load "$IFR" "$TMP/$1.rules" >/dev/null ;;
	lab_drop) in_r "$FP" --bpffs "$TMP/bpffs" filter load "$IFR" "$TMP/fp_drop.rules" >/dev/null ;;
	esac
}

teardown() {
	case $1 in
	fp_*|lab_drop) in_r "$FP" --bpffs "$TMP/bpffs" filter unload "$IFR" >/dev/null 2>&1
	      rm -rf "${TMP:?}/bpffs/$IFR" ;;  # pins unload may not know of (our private bpffs)
	esac
	ip -n "$NSR" link set "$IFR" xdp off 2>/dev/null
	ip -n "$NSR" link set "$IFR" xdpgeneric off 2>/dev/null
}

# The tool, pinned on CPU1, writing to $1; its pid in TOOL_PID (ip netns
# exec, sh and taskset all exec into the tool, so SIGINT reaches it; no
# shell function in between, which would be a subshell of its own).
start_tool() {
	local o=$TMP/tool.out e=$TMP/tool.err
	case $T in
	fp_capture) ip netns exec "$NSR" taskset -c 1 "$FP" --bpffs "$TMP/bpffs" -j capture "$IFR" \
			--match "udp dport $PORT" ${FP_CAPTURE_ARGS:-} -w "$1" >"$o" 2>"$e" & ;;
	fp_capture_*)
		local a=${FP_CAPTURE_ARGS:-} w=$1
		case $T in
		*_null) w=/dev/null ;; *_ring2k) a="$a --ring 2048" ;; *_busy) a="$a --busy-poll 50" ;;
		esac
		ip netns exec "$NSR" taskset -c 1 "$FP" --bpffs "$TMP/bpffs" -j capture "$IFR" \
			--match "udp dport $PORT" $a -w "$w" >"$o" 2>"$e" & ;;
	tcpdump) ip netns exec "$NSR" taskset -c 1 tcpdump -i "$IFR" -n -w "$1" "udp port $PORT" \
			>"$o" 2>"$e" & ;;
	tcpdump_B) ip netns exec "$NSR" taskset -c 1 tcpdump -i "$IFR" -n -B 262144 -w "$1" \
			"udp port $PORT" >"$o" 2>"$e" & ;;
	fp_drop) ip netns exec "$NSR" taskset -c 1 "$FP" --bpffs "$TMP/bpffs" -j dump "$IFR" -w "$1" \
			--drops >"$o" 2>"$e" & ;;
	fp_pass) ip netns exec "$NSR" taskset -c 1 "$FP" --bpffs "$TMP/bpffs" -j dump "$IFR" -w "$1" \
			>"$o" 2>"$e" & ;;
	lab_drop) ip netns exec "$NSR" sleep 600 >"$o" 2>"$e" & ;;
	xdpdump) ip netns exec "$NSR" sh -c "mount --bind '$TMP/xbpffs' /sys/fs/bpf &&
		exec taskset -c 1 xdpdump -i '$IFR' --load-xdp-program -w '$1'" >"$o" 2>"$e" & ;;
	esac
	TOOL_PID=$!
}

# Ready when attached: xdpdump says "listening on"; fastpath dump says
# nothing, so give it the second the e2e test gives it.
wait_ready() {
	local i
	for (( i = 0; i < 50; i++ )); do
		kill -0 "$TOOL_PID" 2>/dev/null || return 1
		case $T in
		xdpdump|tcpdump*) grep -q 'listening on' "$TMP/tool.out" "$TMP/tool.err" && { sleep 0.3; return 0; } ;;
		fp_capture*) grep -q 'capturing on' "$TMP/tool.err" && { sleep 0.3; return 0; } ;;
		*) (( i >= 10 )) && return 0 ;;
		esac
		sleep 0.1
	done
	return 1
}

stop_tool() {
	local i rc
	kill -INT "$TOOL_PID" 2>/dev/null
	[[ $T == lab_drop ]] && kill -TERM "$TOOL_PID" 2>/dev/null # a background job ignores INT
	for (( i = 0; i < 300; i++ )); do
		kill -0 "$TOOL_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$TOOL_PID" 2>/dev/null && { log "$T did not stop in 30 s; killed"; kill -KILL "$TOOL_PID"; }
	wait "$TOOL_PID"; rc=$?
	TOOL_PID=
	return $rc
}

# rung TARGET PPS: one measurement; appends a line to $TMP/rungs and returns
# 0 when the rung passed (zero loss), 1 when it did not.
rung() {
	local pps=$2 out x0 a0 r0 sent secs arrived asked refused sampled written lost file ok=1 why='' err
	T=$1
	out=$SHM/$T.pcap
	teardown "$T"
	if ! setup "$T" 2>"$TMP/setup.err"; then
		log "$T: setup failed: $(tail -n 2 "$TMP/setup.err" | tr '\n' ' ')"
		echo "$T $pps 0 0 0 0 0 0 0 0 1 setup-failed" >>"$TMP/rungs"
		teardown "$T"; return 1
	fi
	x0=$(xdp_stat packets); a0=$(xdp_stat drops); r0=$(rx rx_dropped); p0=$(rx rx_packets)
	start_tool "$out"
	if ! wait_ready; then
		err=$(cat "$TMP/tool.out" "$TMP/tool.err" | tail -n 3 | tr '\n' ' ')
		log "$T: did not start: $err"
		[[ -n $TOOL_PID ]] && stop_tool
		echo "$T $pps 0 0 0 0 0 0 0 0 1 tool-failed" >>"$TMP/rungs"
		teardown "$T"; rm -f "$out"; return 1
	fi
	# not through a shell function: GEN_PID must be the generator itself
	ip netns exec "$NSG" "$FP" -j gen "$IFG" --dst-mac "$MAC" --cpu 0 --udp "$PORT" \
		--pps "$pps" --duration "$WINDOW" >"$TMP/gen.json" 2>"$TMP/gen.err" &
	GEN_PID=$!
	wait "$GEN_PID"; GEN_PID=
	sleep 1
	stop_tool || [[ $T == lab_drop ]] || why="tool exit status $?"
	arrived=$(( $(xdp_stat packets) - x0 )); refused=$(( $(rx rx_dropped) - r0 ))
	if [[ $T == fp_drop || $T == lab_drop ]]; then asked=$(( $(xdp_stat drops) - a0 )); else asked=$arrived; fi
	# no XDP program: what reached the stack
	[[ $T == tcpdump* ]] && arrived=$(( $(rx rx_packets) - p0 )) asked=$arrived
	teardown "$T"
	sent=$(jnum sent "$TMP/gen.json"); secs=$(jnum seconds "$TMP/gen.json")
	[[ -n $sent && -n $secs ]] || { log "$T: generator failed: $(cat "$TMP/gen.json" "$TMP/gen.err")"; exit 1; }
	case $T in
	fp_capture*) written=$(jnum written "$TMP/tool.out"); lost=$(jnum lost "$TMP/tool.out")
	      sampled=$(( ${written:-0} + ${lost:-0} )) ;;
	tcpdump*)
		written=$(sed -n 's/^\([0-9]*\) packets captured.*/\1/p' "$TMP/tool.err" | head -n1)
		lost=$(sed -n 's/^\([0-9]*\) packets dropped by kernel.*/\1/p' "$TMP/tool.err" | head -n1)
		sampled=$(( ${written:-0} + ${lost:-0} )) ;;
	fp_*) written=$(jnum written "$TMP/tool.out"); lost=$(jnum lost "$TMP/tool.out")
	      sampled=$(jnum sampled "$TMP/tool.out") ;;
	lab_drop) written=$asked lost=0 sampled=$asked ;;
	xdpdump)
		written=$(sed -n 's/^\([0-9]*\) packets captured.*/\1/p' "$TMP/tool.out" "$TMP/tool.err" | head -n1)
		lost=$(sed -n 's/^\([0-9]*\) packets dropped by perf ring.*/\1/p' "$TMP/tool.out" "$TMP/tool.err" | head -n1)
		sampled=$(( ${written:-0} + ${lost:-0} )) ;;
	esac
	file=$(capinfos -M -c "$out" 2>/dev/null | awk -F': *' '/Number of packets/ { print $2 }')
	[[ $T == fp_capture_null || $T == lab_drop ]] && file=$written # no file: its own count
	rm -f "$out"
	if [[ -z $written || -z $lost || -z $sampled ]]; then
		why=${why:-"no counts from the tool: $(tail -n 2 "$TMP/tool.err" | tr '\n' ' ')"}
		written=${written:-0} lost=${lost:-0} sampled=${sampled:-0}
	fi
	file=${file:-0}
	if [[ -n $why ]]; then :
	elif [[ $KLAB == gen ]] && (( sent * 100 < 97 * pps * WINDOW )); then
		why="generator sent $(( sent * 100 / (pps * WINDOW) ))% of the rate (its CPU runs the receive path)"
	elif (( sampled != written + lost )); then why="sampled $sampled != written $written + lost $lost"
	elif (( lost > 0 )); then why="tool lost $lost of $sampled"
	elif (( written != asked )); then why="wrote $written of $asked"
	elif (( file != written )); then why="file holds $file, tool says $written"
	elif (( refused * 10 > sent )); then why="receiver refused $refused (over 10%) at its ring"
	else ok=0
	fi
	echo "$T $pps $sent $secs $arrived $refused $asked $written $lost $file $ok ${why// /_}" >>"$TMP/rungs"
	log "$(printf '%-7s %8d pps offered: sent %d in %.2f s, arrived %d, refused %d, asked %d, written %d, lost %d, file %d: %s' \
		"$T" "$pps" "$sent" "$secs" "$arrived" "$refused" "$asked" "$written" "$lost" "$file" \
		"$( (( ok == 0 )) && echo 'zero loss' || echo "LOSS ($why)")")"
	return $ok
}

declare -A LO=() HI=() BROKEN=()   # per target: highest passing rate, lowest failing rate
STOPPED=
fits() {  # room for one more rung in the budget?
	(( SECONDS + WINDOW + 6 <= BUDGET )) && return 0
	[[ -n $STOPPED ]] || log "time budget of $BUDGET s reached; no more rungs"
	STOPPED=1; return 1
}
try() {
	if rung "$1" "$2"; then
		(( $2 > ${LO[$1]:-0} )) && LO[$1]=$2
	elif tail -n1 "$TMP/rungs" | grep -q -- '-failed$'; then
		BROKEN[$1]=1   # could not set up or start: no rate to look for
	else
		[[ -z ${HI[$1]:-} ]] || (( $2 < HI[$1] )) && HI[$1]=$2
	fi
}

# 1. The ladder, targets interleaved per rung, each until its first failure.
for pps in $LADDER; do
	for t in $TARGETS; do
		[[ -n ${HI[$t]:-} || -n ${BROKEN[$t]:-} ]] && continue
		fits || break 2
		try "$t" "$pps"
	done
done
# 2. Bisection between the last pass and the first failure.
for (( s = 0; s < STEPS; s++ )); do
	for t in $TARGETS; do
		[[ -n ${HI[$t]:-} && -z ${BROKEN[$t]:-} ]] || continue
		lo=${LO[$t]:-0} hi=${HI[$t]}
		if (( lo > 0 )); then
			mid=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%d", int(sqrt(a * b) / 10000 + 0.5) * 10000 }')
		else
			mid=$(( hi / 2 ))
		fi
		(( mid > lo && mid < hi )) || continue
		fits || break 2
		try "$t" "$mid"
	done
done

# Summary and every rung.
name() {
	case $1 in
	fp_capture) echo "fastpath capture --match (AF_XDP, copy mode)${FP_CAPTURE_ARGS:+ $FP_CAPTURE_ARGS}" ;;
	fp_capture_null) echo "ablation: fastpath capture -w /dev/null${FP_CAPTURE_ARGS:+ $FP_CAPTURE_ARGS}" ;;
	fp_capture_ring2k) echo "ablation: fastpath capture --ring 2048${FP_CAPTURE_ARGS:+ $FP_CAPTURE_ARGS}" ;;
	fp_capture_busy) echo "fastpath capture --busy-poll 50${FP_CAPTURE_ARGS:+ $FP_CAPTURE_ARGS}" ;;
	tcpdump) echo 'tcpdump (AF_PACKET, default ring)' ;;
	tcpdump_B) echo 'tcpdump -B 262144' ;;
	fp_drop) echo 'fastpath dump --drops (filter drops the flood)' ;;
	fp_pass) echo 'fastpath dump, all packets (filter passes the flood)' ;;
	xdpdump) echo 'xdpdump --load-xdp-program (XDP_PASS)' ;;
	lab_drop) echo "ablation: no tool, XDP drops the flood (the lab's ceiling)" ;;
	esac
}
{
	echo "| tool | zero loss up to (packets/s written) | first rung that failed (offered) | at the highest rung: lost by the tool | refused at the veth ring |"
	echo "|---|---:|---:|---:|---:|"
	for t in $TARGETS; do
		awk -v t="$t" -v n="$(name "$t")" '
			$1 == t {
				if ($11 == 0 && $2 > best) { best = $2; rate = ($4 > 0 ? $8 / $4 : 0) }
				if ($11 != 0 && (low == "" || $2 < low)) { low = $2; why = $12; gsub(/_/, " ", why) }
				if ($2 >= top) { top = $2; tl = $9; tw = $8; ts = $3; tr = $6 }
				seen = 1
			}
			function k(x) { return x >= 1e6 ? sprintf("%.2fM", x / 1e6) : sprintf("%dk", x / 1e3) }
			END {
				if (!seen) exit
				printf "| %s | %s | %s | %s: %.2f%% | %.2f%% |\n", n,
				       best ? sprintf("**%s** (%s offered)", k(rate), k(best)) : "none",
				       low == "" ? "none up to " k(top) : k(low) " (" why ")",
				       k(top), (tw + tl) ? 100 * tl / (tw + tl) : 0, ts ? 100 * tr / ts : 0
			}' "$TMP/rungs"
	done
	# the goals' ratios from the best zero-loss rates written (issue 18's
	# bench; not when dump_rate.sh runs this ladder for dump's targets)
	[[ " $TARGETS " == *" fp_capture "* ]] &&
	awk '$11 == 0 { r = ($4 > 0 ? $8 / $4 : 0); if (r > best[$1]) best[$1] = r }
		function x(a, b) { return (a in best && b in best && best[b] > 0) ? sprintf("%.2fx", best[a] / best[b]) : "n/a" }
		END {
			printf "\nGoals: fastpath capture / tcpdump = **%s** (goal >= 3x), / tcpdump -B = %s, ", x("fp_capture", "tcpdump"), x("fp_capture", "tcpdump_B")
			printf "/ fastpath dump = %s (goal > 1x). The lab'"'"'s ceiling (lab_drop) / tcpdump = %s.\n", x("fp_capture", "fp_pass"), x("lab_drop", "tcpdump")
		}' "$TMP/rungs"
	echo
	echo "Every rung (window ${WINDOW} s; \"asked\" = packets the XDP program handed the tool's capture:"
	echo "rx_queue_0_xdp_drops for \`--drops\`, rx_queue_0_xdp_packets otherwise; \"in file\" by capinfos):"
	echo
	echo "| tool | offered pps | sent | arrived at XDP | refused at ring | asked | written | lost by tool | in file | result |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
	sort -k1,1 -k2,2n "$TMP/rungs" | awk '{ w = $12; gsub(/_/, " ", w)
		printf "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %s |\n", $1, $2, $3, $5, $6, $7, $8, $9, $10,
		       $11 == 0 ? "zero loss" : "failed: " w
	}'
	echo
	echo "Command: ${FP_CAPTURE_ARGS:+FP_CAPTURE_ARGS=\"$FP_CAPTURE_ARGS\" }\`bench/$SCRIPT -w $WINDOW -l \"$LADDER\" -b $STEPS -B $BUDGET -t \"$TARGETS\"$([[ $SCRIPT == capture_rate.sh ]] && echo " -k $KLAB")\`${STOPPED:+ (stopped by the ${BUDGET} s budget)}."
	echo "Tools, each under \`taskset -c 1\`, writing to a tmpfs:"
	for t in $TARGETS; do
		case $t in
		fp_capture*) echo "- $t: \`fastpath -j capture IFACE --match 'udp dport $PORT' -w FILE\` (pcap)" ;;
		tcpdump) echo "- $t: \`tcpdump -w FILE 'udp port $PORT'\`" ;;
		tcpdump_B) echo "- $t: \`tcpdump -B 262144 -w FILE 'udp port $PORT'\`" ;;
		fp_drop) echo "- $t: \`fastpath -j dump IFACE -w FILE --drops\` on \`fastpath filter load\` of \`drop udp dport $PORT\`" ;;
		fp_pass) echo "- $t: \`fastpath -j dump IFACE -w FILE\` on \`fastpath filter load\` of \`pass udp dport $PORT\`" ;;
		xdpdump) echo "- $t: \`xdpdump -i IFACE --load-xdp-program -w FILE\`" ;;
		lab_drop) echo "- $t: no tool; \`fastpath filter load\` of \`drop udp dport $PORT\`" ;;
		esac
	done
	echo
	echo "Generator: \`fastpath gen --cpu 0 --udp $PORT --pps N --duration $WINDOW\`;"
	echo "the receiver's NAPI kthread on CPU$VETH_LAB_NAPI_CPU (-k $KLAB)."
} >"$TMP/summary.md"
cat "$TMP/summary.md"
[[ -n $OUT ]] && cp "$TMP/summary.md" "$OUT"
exit 0
