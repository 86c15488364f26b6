#!/usr/bin/env bash
# Switching cost and rate of the fastpath bridge against the Linux bridge
# over the same veths and the same load, with and without VLAN filtering.
#
#   bench/bridge_rate.sh [-r ROUNDS] [-w WINDOW_S] [-t "target ..."] [-o OUT.md]
#
# targets: fp (fastpath bridge), fpvlan (fastpath bridge --vlan-aware, every
# port PVID 1 untagged), linux (ip link type bridge), linuxvlan (the same
# with vlan_filtering 1, every port PVID 1 untagged; a kernel without
# CONFIG_BRIDGE_VLAN_FILTERING refuses it, as this machine's does: the run
# says so and fpvlan is then paired with linux). Five ports each: the
# receiving veth of bench/veth_lab.sh (threaded NAPI kthread on CPU1 at
# SCHED_FIFO 50) and four veths whose far ends, in a sink namespace, drop
# what arrives with a bare XDP_DROP (which also gives them the NAPI an
# XDP_REDIRECT into a veth needs). fastpath gen sends 60 B UDP frames.
# Measured per target, round by round, targets interleaved:
#   uni    known unicast to sink 1's MAC (a static FDB entry on both),
#          shared-CPU lab (generator on CPU1 beside the kthread, which
#          preempts it): the kthread's CPU ns per frame it handled;
#   flood  a frame for an unknown MAC, flooded to the 4 other ports, the
#          same lab: ns per frame handled (4 copies each);
#   rate   known unicast, two-CPU lab (generator on CPU0, unpaced): frames
#          per second that reached sink 1.
# Delivered: what the sinks dropped (ethtool rx_queue_0_xdp_drops) over
# what the receiver handled (its rx_packets), so a target that loses
# frames cannot look fast. Ratios linux / fp are paired round by round.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FP=${FP_BIN:-$REPO/build/fastpath}
ATTACH=$REPO/build/bench/xdp_drop_attach
ROUNDS=3 WINDOW=3 OUT= TARGETS="fp linux fpvlan linuxvlan"
while getopts "r:w:t:o:" c; do
	case $c in
	r) ROUNDS=$OPTARG ;; w) WINDOW=$OPTARG ;; t) TARGETS=$OPTARG ;; o) OUT=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-w WINDOW_S] [-t 'fp linux fpvlan linuxvlan'] [-o OUT.md]" >&2; exit 2 ;;
	esac
done
(( ROUNDS >= 1 && ROUNDS <= 20 && WINDOW >= 1 && WINDOW <= 60 )) ||
	{ echo "bridge_rate: ROUNDS 1..20, WINDOW 1..60" >&2; exit 2; }
for t in $TARGETS; do
	case $t in fp|fpvlan|linux|linuxvlan) ;; *) echo "bridge_rate: target '$t': give fp, fpvlan, linux or linuxvlan" >&2; exit 2 ;; esac
done
. "$REPO/bench/veth_lab.sh"
veth_lab_require bridge_rate br bridge "$FP" "$ATTACH"
NSK=${NSG%g}k
TMP=$(mktemp -d /tmp/fp-bench-br.XXXXXX)
GEN_PID=
BR=bench UNKNOWN=02:00:00:00:ee:ee
log() { printf '[%s bridge_rate] %s\n' "$(date +%T)" "$*" >&2; }

cleanup() {
	set +e
	[[ -n $GEN_PID ]] && kill "$GEN_PID" 2>/dev/null && wait "$GEN_PID" 2>/dev/null
	ip netns del "$NSG" 2>/dev/null
	ip netns del "$NSR" 2>/dev/null
	ip netns del "$NSK" 2>/dev/null
	mountpoint -q "$TMP/bpffs" && umount "$TMP/bpffs"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'log interrupted; exit 130' INT TERM

cp "$FP" "$TMP/fastpath" && cp "$ATTACH" "$TMP/xdp_drop_attach" || exit 1
FP=$TMP/fastpath ATTACH=$TMP/xdp_drop_attach
mkdir -p "$TMP/bpffs" && mount -t bpf bpf "$TMP/bpffs" || exit 1
veth_lab_up || exit 1
in_r() { ip netns exec "$NSR" "$@"; }
in_g() { ip netns exec "$NSG" "$@"; }
in_k() { ip netns exec "$NSK" "$@"; }
fp() { in_r "$FP" --bpffs "$TMP/bpffs" "$@"; }

# the four other ports and their sinks
ip netns add "$NSK" || exit 1
in_r ip addr flush dev "$IFR"
OUTS=() SINKS=()
for i in 1 2 3 4; do
	o=${IFR}o$i k=${IFR}k$i
	ip link add "$o" netns "$NSR" type veth peer name "$k" netns "$NSK" || exit 1
	in_r ip link set "$o" up && in_k ip link set "$k" up || exit 1
	in_k sysctl -qw "net.ipv6.conf.$k.disable_ipv6=1"
	in_r sysctl -qw "net.ipv6.conf.$o.disable_ipv6=1"
	in_k "$ATTACH" "$k" || exit 1
	OUTS+=("$o") SINKS+=("$k")
done
K1MAC=$(in_k cat "/sys/class/net/${SINKS[0]}/address")
in_r sysctl -qw net.bridge.bridge-nf-call-iptables=0 net.bridge.bridge-nf-call-ip6tables=0 2>/dev/null
log "generator $NSG/$IFG, switch $NSR ($IFR + ${OUTS[*]}), sinks $NSK; receiver NAPI kthread $napi on CPU1"

rx() { in_r cat "/sys/class/net/$IFR/statistics/rx_packets"; }
napi_ns() { local p t=0; for p in $napi; do t=$(( t + $(awk '{ print $1 }' "/proc/$p/schedstat") )); done; echo $t; }
sunk() { # sunk [first]: frames the sinks dropped (all four, or sink 1)
	local k t=0 n list=("${SINKS[@]}")
	[[ -n ${1:-} ]] && list=("${SINKS[0]}")
	for k in "${list[@]}"; do
		n=$(in_k ethtool -S "$k" | awk '/rx_queue_0_xdp_drops:/ { print $2 }')
		t=$(( t + ${n:-0} ))
	done
	echo $t
}

setup() {
	local p
	case $1 in
	fp|fpvlan)
		fp bridge create "$BR" $([[ $1 == fpvlan ]] && echo --vlan-aware) >/dev/null || return 1
		for p in "$IFR" "${OUTS[@]}"; do fp bridge add "$BR" "$p" >/dev/null || return 1; done
		if [[ $1 == fpvlan ]]; then
			fp bridge fdb add "$BR" "$K1MAC" vlan 1 "${OUTS[0]}" >/dev/null || return 1
		else
			fp bridge fdb add "$BR" "$K1MAC" "${OUTS[0]}" >/dev/null || return 1
		fi ;;
	linux|linuxvlan)
		# (vlan_filtering needs CONFIG_BRIDGE_VLAN_FILTERING: EOPNOTSUPP without)
		in_r ip link add br0 type bridge $([[ $1 == linuxvlan ]] && echo vlan_filtering 1) || return 1
		for p in "$IFR" "${OUTS[@]}"; do in_r ip link set "$p" master br0 || return 1; done
		in_r ip link set br0 up
		in_r bridge fdb add "$K1MAC" dev "${OUTS[0]}" master static || return 1 ;;
	esac
}
teardown() {
	case $1 in
	fp|fpvlan) fp bridge destroy "$BR" >/dev/null 2>&1 ;;
	linux|linuxvlan) in_r ip link del br0 2>/dev/null ;;
	esac
}
# GEN_PPS: pace the generator (a smoke run of the script itself: figures mean nothing)
gen() { in_g "$FP" -j gen "$IFG" --udp 9 --src 198.18.0.1 --dst 198.18.0.2 ${GEN_PPS:+--pps "$GEN_PPS"} "$@"; }

# measure TARGET TEST ROUND: "TARGET TEST ROUND handled delivered cpu_ns secs" into $TMP/rounds
measure() {
	local t=$1 test=$2 round=$3 dst=$K1MAC cpu=1 first=1 x0 s0 k0 t0 handled got ns secs
	[[ $test == flood ]] && dst=$UNKNOWN first=
	[[ $test == rate ]] && cpu=0
	gen --dst-mac "$dst" --cpu "$cpu" --duration 1 >/dev/null # warm: learned, caches
	x0=$(rx); s0=$(sunk $first); k0=$(napi_ns); t0=$(date +%s%N)
	gen --dst-mac "$dst" --cpu "$cpu" --duration "$WINDOW" >"$TMP/gen.json" &
	GEN_PID=$!
	wait "$GEN_PID"; GEN_PID=
	sleep 0.1
	handled=$(( $(rx) - x0 )); got=$(( $(sunk $first) - s0 )); ns=$(( $(napi_ns) - k0 ))
	secs=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
	echo "$t $test $round $handled $got $ns $secs" >>"$TMP/rounds"
	log "$(printf 'round %d %-9s %-5s handled %d, delivered %d (%.0f%% of handled%s), receiver %.0f ns/frame, %.2f Mfps delivered' \
		"$round" "$t" "$test" "$handled" "$got" \
		"$(awk -v g="$got" -v h="$handled" -v f="$test" 'BEGIN { print h ? 100 * g / h / (f == "flood" ? 4 : 1) : 0 }')" \
		"$([[ $test == flood ]] && echo ", 4 ports")" \
		"$(awk -v c="$ns" -v h="$handled" 'BEGIN { print h ? c / h : 0 }')" \
		"$(awk -v g="$got" -v s="$WINDOW" 'BEGIN { print g / s / 1e6 }')")"
}

read -ra TLIST <<<"$TARGETS"
for (( round = 1; round <= ROUNDS; round++ )); do
	for (( k = 0; k < ${#TLIST[@]}; k++ )); do
		t=${TLIST[$(( (k + round - 1) % ${#TLIST[@]} ))]}
		teardown "$t"
		if ! setup "$t" 2>"$TMP/setup.err"; then
			log "$t: setup failed: $(tail -n 3 "$TMP/setup.err" | tr '\n' ' ')"; teardown "$t"; continue
		fi
		for test in uni flood rate; do measure "$t" "$test" "$round"; done
		teardown "$t"
	done
done

{
	echo "| test | target | receiver ns/frame, shared CPU (median; min-max) | Mfps delivered, two CPUs (median; min-max) | delivered / handled | fastpath's advantage, paired (min-max) |"
	echo "|---|---|---:|---:|---:|---:|"
	for test in uni flood rate; do
		for t in $TARGETS; do
			awk -v t="$t" -v test="$test" -v W="$WINDOW" '
			function med(v, n,    i, j, x) {
				for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
				return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			}
			$2 == test && $4 {
				x = test == "rate" ? $5 / W / 1e6 : $6 / $4
				val[$1, $3] = x
				if ($1 == t) { n++; v[n] = x; h += $4; g += $5; if (n == 1 || x < lo) lo = x; if (x > hi) hi = x }
			}
			END {
				if (!n) exit
				# the fastpath target of the same kind against the Linux one
				fpt = t ~ /vlan/ ? "fpvlan" : "fp"; lt = t ~ /vlan/ ? "linuxvlan" : "linux"
				pair = "-"; vs = ""
				if (t == "fpvlan") {  # no VLAN-filtering Linux bridge in this kernel: against the plain one
					for (r = 1; r <= 99; r++) if ((lt, r) in val) break
					if (r > 99) { lt = "linux"; vs = " vs linux" }
				}
				if (t == fpt) {
					for (r = 1; r <= 99; r++) if (((fpt, r) in val) && ((lt, r) in val) && val[fpt, r] && val[lt, r]) {
						m++; q[m] = test == "rate" ? val[fpt, r] / val[lt, r] : val[lt, r] / val[fpt, r]
						if (m == 1 || q[m] < qlo) qlo = q[m]; if (q[m] > qhi) qhi = q[m] }
					if (m) pair = sprintf("**%.2fx** (%.2f-%.2f)%s", med(q, m), qlo, qhi, vs)
				}
				share = 100 * g / h / (test == "flood" ? 4 : 1)
				if (test == "rate")
					printf "| %s | %s | - | %.2f (%.2f-%.2f) | %.1f%% | %s |\n", test, t, med(v, n), lo, hi, share, pair
				else
					printf "| %s | %s | %.0f (%.0f-%.0f) | - | %.1f%% | %s |\n", test, t, med(v, n), lo, hi, share, pair
			}' "$TMP/rounds"
		done
	done
} | tee "$TMP/table"
[[ -n $OUT ]] && cp "$TMP/table" "$OUT"
exit 0
