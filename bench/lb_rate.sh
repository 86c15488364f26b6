#!/usr/bin/env bash
# Forwarding cost per packet of a layer-4 load balancer on a veth, fastpath
# lb against the kernel's own choice on this machine (no IPVS): nftables
# DNAT in the prerouting hook with a jhash over the 5-tuple, then routing.
#
#   bench/lb_rate.sh [-r ROUNDS] [-w WINDOW_S] [-t "target ..."] [-f "flood ..."] [-o OUT.md]
#
# targets: lb (fastpath lb, a UDP VIP with three backends, IPIP, XDP_TX
# back out of the receiving veth), nft (nft DNAT to the same three
# backends, forwarded out of the same veth). floods: one (one flow, after
# its first packet an established flow for both), flows (4,096 flows: a
# source from a /20 and a fixed port, each established after its first
# packet), new (a random source over 10.0.0.0/8 and a random source port
# in every frame: nearly every packet a new flow, a connection-table
# insert for both).
#
# The shared-CPU lab of bench/filter_rate.sh -s (bench/veth_lab.sh): the
# generator runs on CPU1 beside the receiver's threaded NAPI kthread, which
# preempts it, so the kthread's CPU time per packet it handled is the
# receive-and-forward cost alone. Both targets send each packet back out of
# the receiving veth (a backend's next hop is the generator's end); the
# generator's end drops what comes back with XDP_DROP (a program there is
# also what lets a veth take XDP_TX frames). Reported per target and flood:
# the kthread's ns per handled packet (median of rounds), the share of
# handled packets forwarded (ethtool's xdp_tx for lb, tx_packets for nft),
# and nft / lb paired round by round.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FP=${FP_BIN:-$REPO/build/fastpath}
ATTACH=$REPO/build/bench/xdp_drop_attach
ROUNDS=4 WINDOW=3 OUT= TARGETS="lb nft" FLOODS="one flows new"
while getopts "r:w:t:f:o:" c; do
	case $c in
	r) ROUNDS=$OPTARG ;; w) WINDOW=$OPTARG ;; t) TARGETS=$OPTARG ;; f) FLOODS=$OPTARG ;; o) OUT=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-w WINDOW_S] [-t 'lb nft'] [-f 'one flows new'] [-o OUT.md]" >&2; exit 2 ;;
	esac
done
(( ROUNDS >= 1 && ROUNDS <= 20 && WINDOW >= 1 && WINDOW <= 60 )) ||
	{ echo "lb_rate: ROUNDS 1..20, WINDOW 1..60" >&2; exit 2; }
for f in $FLOODS; do
	case $f in one|flows|new) ;; *) echo "lb_rate: flood '$f': give one, flows or new" >&2; exit 2 ;; esac
done
. "$REPO/bench/veth_lab.sh"
veth_lab_require lb_rate lr nft "$FP" "$ATTACH"
TMP=$(mktemp -d /tmp/fp-bench-lb.XXXXXX)
GEN_PID=
VIP=198.18.0.100 PORT=80 BACKENDS="198.18.1.11 198.18.1.12 198.18.1.13"
log() { printf '[%s lb_rate] %s\n' "$(date +%T)" "$*" >&2; }

cleanup() {
	set +e
	[[ -n $GEN_PID ]] && kill "$GEN_PID" 2>/dev/null && wait "$GEN_PID" 2>/dev/null
	ip netns del "$NSG" 2>/dev/null
	ip netns del "$NSR" 2>/dev/null
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
fp() { in_r "$FP" --bpffs "$TMP/bpffs" "$@"; }

# The generator's end: an address, and XDP_DROP for what comes back.
ip -n "$NSG" addr add 198.18.0.1/24 dev "$IFG"
GMAC=$(in_g cat "/sys/class/net/$IFG/address")
in_g "$ATTACH" "$IFG" || exit 1
# The receiver routes the backends through the generator's end.
in_r ip neigh replace 198.18.0.1 lladdr "$GMAC" dev "$IFR" nud permanent
in_r ip route add 198.18.1.0/24 via 198.18.0.1
in_r sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 "net.ipv4.conf.$IFR.rp_filter=0"
log "generator $NSG/$IFG and the receiver's NAPI kthread $napi share CPU1"

rx() { in_r cat "/sys/class/net/$IFR/statistics/$1"; }
napi_ns() { local p t=0; for p in $napi; do t=$(( t + $(awk '{ print $1 }' "/proc/$p/schedstat") )); done; echo $t; }
xdp_tx() { in_r ethtool -S "$IFR" | awk '/rx_queue_0_xdp_tx:/ { print $2 }'; }

setup() {
	case $1 in
	lb)
		fp lb load "$IFR" >/dev/null &&
		fp lb vip add "$IFR" "$VIP:$PORT/udp" >/dev/null || return 1
		for b in $BACKENDS; do fp lb backend add "$IFR" "$VIP:$PORT/udp" "$b" >/dev/null || return 1; done ;;
	nft)
		in_r nft -f - <<-EOF
		table ip fplb {
		  chain pre {
		    type nat hook prerouting priority dstnat; policy accept;
		    ip daddr $VIP udp dport $PORT counter dnat to jhash ip saddr . udp sport mod 3 map { 0 : 198.18.1.11, 1 : 198.18.1.12, 2 : 198.18.1.13 }
		  }
		}
		EOF
		;;
	esac
}
teardown() {
	case $1 in
	lb) fp lb unload "$IFR" >/dev/null 2>&1; rm -rf "${TMP:?}/bpffs/$IFR" ;;
	nft) in_r nft delete table ip fplb 2>/dev/null; in_r conntrack -F >/dev/null 2>&1 ;;
	esac
	ip -n "$NSR" link set "$IFR" xdp off 2>/dev/null
}
forwarded() { if [[ $1 == lb ]]; then xdp_tx; else rx tx_packets; fi; }

gen() {
	local flood=$1; shift
	local f=(--dst "$VIP" --udp "$PORT" --src 198.18.0.1)
	case $flood in
	flows) f+=(--rand-src 198.18.64.0/20) ;;
	new) f+=(--rand-src 10.0.0.0/8 --rand-sport) ;;
	esac
	in_g "$FP" -j gen "$IFG" --dst-mac "$MAC" --cpu 1 "${f[@]}" "$@"
}

# measure TARGET FLOOD ROUND: one line "TARGET FLOOD ROUND handled forwarded cpu_ns" in $TMP/rounds
measure() {
	local t=$1 fl=$2 round=$3 x0 f0 k0 handled fwd cpu
	gen "$fl" --duration 1 >/dev/null # warm: the flows' first packets
	x0=$(rx rx_packets); f0=$(forwarded "$t"); k0=$(napi_ns)
	gen "$fl" --duration "$WINDOW" >"$TMP/gen.json" &
	GEN_PID=$!
	wait "$GEN_PID"; GEN_PID=
	handled=$(( $(rx rx_packets) - x0 )); fwd=$(( $(forwarded "$t") - f0 )); cpu=$(( $(napi_ns) - k0 ))
	echo "$t $fl $round $handled $fwd $cpu" >>"$TMP/rounds"
	log "$(printf 'round %d %-4s %-6s handled %d, forwarded %d (%.0f%%), receiver %.0f ns/packet' "$round" "$t" "$fl" \
		"$handled" "$fwd" "$(awk -v f="$fwd" -v h="$handled" 'BEGIN { print h ? 100 * f / h : 0 }')" \
		"$(awk -v c="$cpu" -v h="$handled" 'BEGIN { print h ? c / h : 0 }')")"
}

read -ra TLIST <<<"$TARGETS"
for (( round = 1; round <= ROUNDS; round++ )); do
	for (( k = 0; k < ${#TLIST[@]}; k++ )); do
		t=${TLIST[$(( (k + round - 1) % ${#TLIST[@]} ))]}
		teardown "$t"
		if ! setup "$t" 2>"$TMP/setup.err"; then
			log "$t: setup failed: $(tail -n 3 "$TMP/setup.err" | tr '\n' ' ')"; teardown "$t"; continue
		fi
		for fl in $FLOODS; do measure "$t" "$fl" "$round"; done
		teardown "$t"
	done
done

{
	echo "| flood | target | receiver ns/packet (median of rounds; min-max) | forwarded | nft / lb, paired by round (min-max) |"
	echo "|---|---|---:|---:|---:|"
	for fl in $FLOODS; do
		for t in $TARGETS; do
			awk -v t="$t" -v fl="$fl" '
			function med(v, n,    i, j, x) {
				for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
				return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			}
			$2 == fl && $4 { ns[$1, $3] = $6 / $4; if ($1 == t) { n++; v[n] = $6 / $4; h += $4; f += $5
				if (n == 1 || v[n] < lo) lo = v[n]; if (v[n] > hi) hi = v[n] } }
			END {
				if (!n) exit
				pair = "-"
				if (t == "lb") {
					for (r = 1; r <= 99; r++) if (((t, r) in ns) && (("nft", r) in ns)) {
						m++; q[m] = ns["nft", r] / ns[t, r]; if (m == 1 || q[m] < qlo) qlo = q[m]; if (q[m] > qhi) qhi = q[m] }
					if (m) pair = sprintf("**%.2fx** (%.2f-%.2f)", med(q, m), qlo, qhi)
				}
				printf "| %s | %s | %.0f (%.0f-%.0f) | %.1f%% | %s |\n", fl, t, med(v, n), lo, hi, 100 * f / h, pair
			}' "$TMP/rounds"
		done
	done
} | tee "$TMP/table"
[[ -n $OUT ]] && cp "$TMP/table" "$OUT"
exit 0
