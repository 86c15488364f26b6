#!/usr/bin/env bash
# Injection rate: `fastpath inject` (AF_XDP TX, copy mode on veth) against
# `tcpreplay --topspeed` (AF_PACKET) sending the same capture (1,000
# distinct 60 B UDP frames, looped) out of the generator end of the veth
# lab (bench/veth_lab.sh), each pinned on CPU0, the receiver's NAPI
# kthread on CPU1. Rounds interleaved; the figure is what the receiver's
# veth took per second (rx_packets + rx_dropped at its ring, over the
# sender's own elapsed time), with the sender's own report beside it.
#
#   bench/inject_rate.sh [-n FRAMES_PER_ROUND] [-r ROUNDS] [-o OUT.md]
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FP=${FASTPATH:-$REPO/build/fastpath}
TOTAL=500000 ROUNDS=3 OUT=
while getopts "n:r:o:" c; do
	case $c in
	n) TOTAL=$OPTARG ;; r) ROUNDS=$OPTARG ;; o) OUT=$OPTARG ;;
	*) echo "usage: $0 [-n FRAMES] [-r ROUNDS] [-o OUT.md]" >&2; exit 2 ;;
	esac
done
[[ $TOTAL =~ ^[0-9]+$ && $ROUNDS =~ ^[0-9]+$ ]] && (( TOTAL >= 1000 && ROUNDS >= 1 && ROUNDS <= 20 )) ||
	{ echo "inject_rate: FRAMES >= 1000, ROUNDS 1..20" >&2; exit 2; }
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3
. "$REPO/bench/veth_lab.sh"
veth_lab_require inject_rate ir tcpreplay "$FP" "$PY"
TMP=$(mktemp -d /tmp/fp-bench-inject.XXXXXX)
log() { printf '[%s inject_rate] %s\n' "$(date +%T)" "$*" >&2; }
cleanup() {
	set +e
	ip netns del "$NSG" 2>/dev/null
	ip netns del "$NSR" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'log interrupted; exit 130' INT TERM
cp "$FP" "$TMP/fastpath" || exit 1
FP=$TMP/fastpath
veth_lab_up || exit 1
SRC=$(ip netns exec "$NSG" cat "/sys/class/net/$IFG/address")
"$PY" - "$TMP/f.pcap" "$SRC" "$MAC" <<'PY' || exit 1
import sys
from scapy.all import Ether, IP, UDP, Raw, wrpcap
wrpcap(sys.argv[1], [Ether(src=sys.argv[2], dst=sys.argv[3]) / IP(src="198.18.0.1", dst="198.18.0.2") /
                     UDP(sport=10000 + k, dport=9) / Raw(b"\0" * 18) for k in range(1000)])
PY
LOOPS=$(( TOTAL / 1000 ))
rx() { ip netns exec "$NSR" cat "/sys/class/net/$IFR/statistics/$1"; }
now() { date +%s%N; }

# one TOOL: prints "SENT_BY_TOOL TOOL_PPS TOOK_BY_RECEIVER SECONDS"
one() {
	local p0 d0 t0 t1 took secs out
	p0=$(rx rx_packets); d0=$(rx rx_dropped); t0=$(now)
	case $1 in
	inject) out=$(ip netns exec "$NSG" taskset -c 0 "$FP" -j inject "$IFG" -r "$TMP/f.pcap" \
			--loop "$LOOPS" 2>&1) ;;
	tcpreplay) out=$(ip netns exec "$NSG" taskset -c 0 tcpreplay --topspeed -i "$IFG" \
			--loop "$LOOPS" "$TMP/f.pcap" 2>&1) ;;
	esac
	t1=$(now)
	sleep 0.5
	took=$(( $(rx rx_packets) - p0 + $(rx rx_dropped) - d0 ))
	case $1 in
	inject) secs=$(sed -n 's/.*"seconds":\([0-9.]*\).*/\1/p' <<<"$out")
		echo "$(sed -n 's/.*"sent":\([0-9]*\).*/\1/p' <<<"$out") $(sed -n 's/.*"pps":\([0-9.]*\).*/\1/p' <<<"$out") $took $secs" ;;
	tcpreplay)
		secs=$(sed -n 's/.*Actual: [0-9]* packets ([0-9]* bytes) sent in \([0-9.]*\) seconds.*/\1/p' <<<"$out")
		echo "$(sed -n 's/.*Actual: \([0-9]*\) packets.*/\1/p' <<<"$out") $(sed -n 's/.*Rated: [0-9.]* Bps, [0-9.]* Mbps, \([0-9.]*\) pps.*/\1/p' <<<"$out") $took ${secs:-$(awk -v a="$t0" -v b="$t1" 'BEGIN{print (b-a)/1e9}')}" ;;
	esac
}
log "sending $TOTAL frames per run from $NSG/$IFG (CPU0) to $NSR/$IFR, $ROUNDS rounds"
for (( r = 1; r <= ROUNDS; r++ )); do
	for t in inject tcpreplay; do
		read -r sent pps took secs < <(one "$t")
		log "round $r $t: sent $sent, its rate $pps pps, receiver took $took in $secs s"
		echo "$r $t ${sent:-0} ${pps:-0} ${took:-0} ${secs:-0}" >>"$TMP/runs"
	done
done
{
	echo "| sender | median pps (its report) | median pps taken by the receiver | frames per run |"
	echo "|---|---:|---:|---:|"
	for t in inject tcpreplay; do
		awk -v t="$t" 'BEGIN { n = 0 } $2 == t { p[n] = $4; k[n] = ($6 > 0 ? $5 / $6 : 0); n++ }
			function med(a, n,  i, j, x) { for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)
				if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x } return n ? a[int(n / 2)] : 0 }
			END { printf "| %s | %.0f | %.0f | %d |\n", t == "inject" ? "fastpath inject (AF_XDP TX, copy mode)" : "tcpreplay --topspeed", med(p, n), med(k, n), '"$TOTAL"' }' "$TMP/runs"
	done
	echo
	echo "Command: \`bench/inject_rate.sh -n $TOTAL -r $ROUNDS\`; rounds interleaved, each sender under \`taskset -c 0\`."
} >"$TMP/summary.md"
cat "$TMP/summary.md"
[[ -n $OUT ]] && cp "$TMP/summary.md" "$OUT"
exit 0
