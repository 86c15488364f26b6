#!/usr/bin/env bash
# Forwarding rate: packets per second `fastpath forward` moves from one
# interface to another, against the kernel's own forwarding of the same
# flood between the same two interfaces (issue 18's bench):
#
#   bench/forward_rate.sh [-w WINDOW_S] [-r ROUNDS] [-t "target ..."] [-o OUT.md]
#
# Lab: generator NSG/IFG --veth-- IF1 [forwarder NSF] IF2 --veth-- IFK NSS.
# `fastpath gen` floods IF1 unpaced on CPU0 (60 B UDP to 10.0.2.2:PORT);
# everything that forwards runs on CPU1: IF1's threaded NAPI kthread (the
# kernel's forwarding, or the steer stage's redirect into AF_XDP) and the
# `fastpath forward` process. The sink IFK drops the flood in XDP (a
# fastpath filter: its NAPI work is the same for every target) and counts
# it (rx_queue_0_xdp_drops): that count over the window is the figure.
#
# targets:
#   fp_forward  `fastpath forward IF1 IF2 --match 'udp dport PORT'` (AF_XDP,
#               copy mode on veth, IF2's socket on IF1's umem)
#   bridge      a Linux bridge of IF1 and IF2 (the sink's MAC static on IF2):
#               the kernel's L2 forwarding, the same function as forward's
#   router      ip_forward in NSF (10.0.1.0/24 -> 10.0.2.0/24, the sink's
#               neighbour entry static): the kernel's L3 forwarding, which
#               also rewrites the MACs and the TTL
#   fp_rx_only  ablation: `fastpath capture IF1 -w /dev/null` on the same
#               steered flood, nothing sent: the receive half of forward
#               alone (its count is the packets the capture took). Where
#               it is below the kernel's forwarding, forward cannot reach
#               the kernel in copy mode.
# Rounds interleave the targets; the ratio fp_forward / kernel is taken per
# round (the load of others moves both alike) and its median reported.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FP=${FASTPATH:-$REPO/build/fastpath}
WINDOW=4 ROUNDS=3 OUT=
TARGETS="fp_forward bridge router"
PORT=11211
while getopts "w:r:t:o:" c; do
	case $c in
	w) WINDOW=$OPTARG ;; r) ROUNDS=$OPTARG ;; t) TARGETS=$OPTARG ;; o) OUT=$OPTARG ;;
	*) echo "usage: $0 [-w WINDOW_S] [-r ROUNDS] [-t TARGETS] [-o OUT.md]" >&2; exit 2 ;;
	esac
done
[[ $WINDOW =~ ^[0-9]+$ && $ROUNDS =~ ^[0-9]+$ ]] && (( WINDOW >= 1 && WINDOW <= 60 &&
	ROUNDS >= 1 && ROUNDS <= 20 )) || { echo "forward_rate: WINDOW 1..60, ROUNDS 1..20" >&2; exit 2; }
for t in $TARGETS; do
	case $t in fp_forward|bridge|router|fp_rx_only) ;; *) echo "forward_rate: unknown target '$t'" >&2; exit 2 ;; esac
done
. "$REPO/bench/veth_lab.sh"
veth_lab_require forward_rate fw "$FP"
NSF=${NSG%g}f NSS=${NSG%g}s IF1=${NSG%g}1 IF2=${NSG%g}2 IFK=${NSG%g}k
TMP=$(mktemp -d /tmp/fp-bench-forward.XXXXXX)
GEN_PID='' TOOL_PID=''
log() { printf '[%s forward_rate] %s\n' "$(date +%T)" "$*" >&2; }
cleanup() {
	set +e
	[[ -n $GEN_PID ]] && kill "$GEN_PID" 2>/dev/null && wait "$GEN_PID" 2>/dev/null
	[[ -n $TOOL_PID ]] && kill -KILL "$TOOL_PID" 2>/dev/null && wait "$TOOL_PID" 2>/dev/null
	for n in "$NSG" "$NSF" "$NSS"; do ip netns del "$n" 2>/dev/null; done
	mountpoint -q "$TMP/bpffs" && umount "$TMP/bpffs"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'log interrupted; exit 130' INT TERM

cp "$FP" "$TMP/fastpath" || exit 1 # a rebuild during the run must not break it
FP=$TMP/fastpath
mkdir -p "$TMP/bpffs" && mount -t bpf bpf "$TMP/bpffs" || exit 1
lab_up() {
	local x
	for n in "$NSG" "$NSF" "$NSS"; do
		ip netns add "$n" || return 1
		ip -n "$n" link set lo up
		ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	done
	ip link add "$IFG" netns "$NSG" type veth peer name "$IF1" netns "$NSF" || return 1
	ip link add "$IF2" netns "$NSF" type veth peer name "$IFK" netns "$NSS" || return 1
	for x in "$NSG $IFG" "$NSF $IF1" "$NSF $IF2" "$NSS $IFK"; do
		set -- $x
		ip -n "$1" link set "$2" up
		ip netns exec "$1" ethtool -K "$2" gro on >/dev/null
	done
	ip -n "$NSG" addr add 10.0.1.2/24 dev "$IFG"
	ip -n "$NSS" addr add 10.0.2.2/24 dev "$IFK"
	# IF1's NAPI in a kthread on CPU1: where the forwarding work shows
	ip netns exec "$NSF" sh -c "echo 1 > /sys/class/net/$IF1/threaded" || return 1
	napi=$(ps -eo pid=,comm= | awk -v p="napi/$IF1-" 'index($2, p) == 1 { print $1 }')
	[[ -n $napi ]] || { log "no threaded NAPI kthread for $IF1"; return 1; }
	for x in $napi; do taskset -pc 1 "$x" >/dev/null || return 1; done
	MAC1=$(ip netns exec "$NSF" cat "/sys/class/net/$IF1/address")
	MACS=$(ip netns exec "$NSS" cat "/sys/class/net/$IFK/address")
	printf 'drop udp dport %s id flood\ndefault pass\n' "$PORT" >"$TMP/sink.rules"
	ip netns exec "$NSS" "$FP" --bpffs "$TMP/bpffs" filter load "$IFK" "$TMP/sink.rules" >/dev/null
}
lab_up || { log "lab setup failed"; exit 1; }
log "gen $NSG/$IFG (CPU0) -> $NSF/$IF1 [forwarding on CPU1] $NSF/$IF2 -> $NSS/$IFK (XDP drop)"

in_f() { ip netns exec "$NSF" "$@"; }
sink() { ip netns exec "$NSS" ethtool -S "$IFK" | awk '$1 == "rx_queue_0_xdp_drops:" { print $2 }'; }
stat1() { in_f cat "/sys/class/net/$IF1/statistics/$1"; }

setup() {
	case $1 in
	bridge)
		in_f ip link add br0 type bridge && in_f ip link set br0 up &&
		in_f ip link set "$IF1" master br0 && in_f ip link set "$IF2" master br0 &&
		in_f bridge fdb add "$MACS" dev "$IF2" master static ;;
	router)
		in_f sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 &&
		in_f ip addr add 10.0.1.1/24 dev "$IF1" && in_f ip addr add 10.0.2.1/24 dev "$IF2" &&
		in_f ip neigh replace 10.0.2.2 lladdr "$MACS" dev "$IF2" nud permanent ;;
	fp_forward) # not through in_f: TOOL_PID must be the forwarder itself
		ip netns exec "$NSF" taskset -c 1 "$FP" --bpffs "$TMP/bpffs" -j forward "$IF1" "$IF2" \
			--match "udp dport $PORT" >"$TMP/fw.out" 2>"$TMP/fw.err" &
		TOOL_PID=$!
		local i
		for (( i = 0; i < 50; i++ )); do
			grep -q forwarding "$TMP/fw.err" && { sleep 0.3; return 0; }
			kill -0 "$TOOL_PID" 2>/dev/null || break
			sleep 0.1
		done
		log "fastpath forward did not start: $(cat "$TMP/fw.err")"; return 1 ;;
	fp_rx_only)
		ip netns exec "$NSF" taskset -c 1 "$FP" --bpffs "$TMP/bpffs" -j capture "$IF1" \
			--match "udp dport $PORT" -w /dev/null >"$TMP/rx.out" 2>"$TMP/rx.err" &
		TOOL_PID=$!
		local i
		for (( i = 0; i < 50; i++ )); do
			grep -q 'capturing on' "$TMP/rx.err" && { sleep 0.3; return 0; }
			kill -0 "$TOOL_PID" 2>/dev/null || break
			sleep 0.1
		done
		log "fastpath capture did not start: $(cat "$TMP/rx.err")"; return 1 ;;
	esac
}
teardown() {
	case $1 in
	bridge) in_f ip link del br0 ;;
	router) in_f sysctl -qw net.ipv4.ip_forward=0
		in_f ip addr flush dev "$IF1"; in_f ip addr flush dev "$IF2"; in_f ip neigh flush dev "$IF2" ;;
	fp_forward|fp_rx_only)
		kill -INT "$TOOL_PID" 2>/dev/null
		local i
		for (( i = 0; i < 100; i++ )); do kill -0 "$TOOL_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$TOOL_PID" 2>/dev/null
		wait "$TOOL_PID"; TOOL_PID= ;;
	esac
}

# one TARGET: writes "SENT SECONDS FORWARDED REFUSED_AT_IF1" to $TMP/one (in
# this shell, not a subshell: cleanup must see TOOL_PID and GEN_PID)
one() {
	local t=$1 dmac s0 r0 sent secs
	[[ $t == router ]] && dmac=$MAC1 || dmac=$MACS
	setup "$t" || { teardown "$t"; echo "0 0 0 0" >"$TMP/one"; return 1; }
	s0=$(sink); r0=$(stat1 rx_dropped)
	ip netns exec "$NSG" "$FP" -j gen "$IFG" --dst-mac "$dmac" --cpu 0 --src 10.0.1.2 \
		--dst 10.0.2.2 --udp "$PORT" --duration "$WINDOW" >"$TMP/gen.json" 2>"$TMP/gen.err" &
	GEN_PID=$!
	wait "$GEN_PID"; GEN_PID=
	sleep 0.5 # what is in flight arrives
	echo "$(sed -n 's/.*"sent":\([0-9]*\).*/\1/p' "$TMP/gen.json") \
$(sed -n 's/.*"seconds":\([0-9.]*\).*/\1/p' "$TMP/gen.json") $(( $(sink) - s0 )) $(( $(stat1 rx_dropped) - r0 ))" >"$TMP/one"
	[[ $t == fp_forward ]] && cp "$TMP/fw.err" "$TMP/fw.last"
	teardown "$t"
	if [[ $t == fp_rx_only ]]; then # its count: what the capture took
		local took
		took=$(sed -n 's/.*"written":\([0-9]*\).*/\1/p' "$TMP/rx.out")
		read -r sent secs _ refused <"$TMP/one"
		echo "$sent $secs ${took:-0} $refused" >"$TMP/one"
	fi
}

for (( r = 1; r <= ROUNDS; r++ )); do
	for t in $TARGETS; do
		one "$t"
		read -r sent secs fwd refused <"$TMP/one"
		[[ -n $secs && $secs != 0 ]] || { log "$t: no run: $(cat "$TMP/gen.err" 2>/dev/null)"; exit 1; }
		pps=$(awk -v f="$fwd" -v s="$secs" 'BEGIN { printf "%.0f", f / s }')
		log "round $r $t: sent $sent in $secs s, forwarded $fwd ($pps pps), refused at $IF1 $refused"
		echo "$r $t $sent $secs $fwd $refused $pps" >>"$TMP/runs"
	done
done
mode=$(sed -n 's/^forwarding .*(\(.*\))$/\1/p' "$TMP/fw.last" 2>/dev/null)
{
	echo "| forwarder | median forwarded pps | min | max | median offered pps (gen) |"
	echo "|---|---:|---:|---:|---:|"
	for t in $TARGETS; do
		case $t in
		fp_forward) n="fastpath forward (AF_XDP, ${mode:-?})" ;;
		bridge) n="Linux bridge (kernel L2 forwarding)" ;;
		router) n="ip_forward router namespace (kernel L3 forwarding)" ;;
		fp_rx_only) n="ablation: fastpath capture -w /dev/null (forward's receive half; packets taken)" ;;
		esac
		awk -v t="$t" -v n="$n" 'BEGIN { k = 0 } $2 == t { p[k] = $7; o[k] = ($4 > 0 ? $3 / $4 : 0); k++ }
			function med(a, n,  i, j, x) { for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)
				if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x } return n ? a[int(n / 2)] : 0 }
			END { printf "| %s | **%.0f** | %.0f | %.0f | %.0f |\n", n, med(p, k), p[0], p[k - 1], med(o, k) }' "$TMP/runs"
	done
	echo
	for t in $TARGETS; do
		[[ $t == fp_forward || $t == fp_rx_only ]] && continue
		awk -v t="$t" '$2 == "fp_forward" { f[$1] = $7 } $2 == t { b[$1] = $7 }
			END { k = 0; for (r in f) if (b[r] > 0) { x[k++] = f[r] / b[r] }
			      for (i = 0; i < k; i++) for (j = i + 1; j < k; j++) if (x[j] < x[i]) { y = x[i]; x[i] = x[j]; x[j] = y }
			      s = ""; for (i = 0; i < k; i++) s = s sprintf("%s%.2f", i ? ", " : "", x[i])
			      if (k) printf "fastpath forward / %s, per round: %s (median **%.2fx**).\n", t, s, x[int(k / 2)] }' "$TMP/runs"
	done
	echo
	echo "Command: \`bench/forward_rate.sh -w $WINDOW -r $ROUNDS -t \"$TARGETS\"\`: \`fastpath gen --cpu 0 --udp $PORT\`"
	echo "unpaced for $WINDOW s into IF1; IF1's NAPI kthread and \`fastpath forward\` on CPU1; the sink drops in XDP"
	echo "and counts (rx_queue_0_xdp_drops); rounds interleave the targets."
} >"$TMP/summary.md"
cat "$TMP/summary.md"
[[ -n $OUT ]] && cp "$TMP/summary.md" "$OUT"
exit 0
