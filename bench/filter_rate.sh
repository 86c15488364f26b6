#!/usr/bin/env bash
# Drop rate (packets/s) on a veth between two namespaces, one target at a
# time, interleaved over several rounds:
#
#   bench/filter_rate.sh [-r ROUNDS] [-w WINDOW_S] [-t "target ..."] [-o OUT.md] [-s] [-f FLOOD]
#
# targets: bare (XDP_DROP, the floor), fp10 and fp10k (fastpath with the
# 10 and 10,000 rule sets of bench/rulegen.h), xdpf_all and xdpf_udp
# (xdp-filter -f all / -f udp, one port rule), nft (nftables netdev ingress
# drop), ipt (iptables raw PREROUTING drop; Debian's iptables is the
# nf_tables backend). Every target drops 60 B UDP to port 11211.
#
# -f FLOOD: one (default): one flow, 198.18.0.1:12345 -> port 11211;
# flows: the same with a random source address over the whole IPv4 space
# and a random source port in every frame (`gen --rand-src 0.0.0.0/0
# --rand-sport`); dns: DNS water torture, a query for a new name under
# victim.example in every frame (`gen --dns x7k2q9.victim.example
# --rand-label`), which fastpath's rule sets drop by name
# (`qname *.victim.example`) and the others by port (udp dport 53: they
# cannot match names).
#
# The pipeline's own targets (bench/run.sh; build/bench/mark_stage plugs the
# tests' mark stage into the pinned pipeline): fp10k_stage (fp10k and a
# no-op stage in slot 5: the flood is dropped by the filter and never
# reaches it), entry_sink (`pipeline load`, no filter, and a sink in slot 6:
# a mark stage that drops, so the stack's cost stays out of the figures),
# fp10k_sink (fp10k, the sink in slot 6), fp10k_stage_sink (fp10k, the
# no-op stage in 5, the sink in 6). The *_sink targets get UDP to port
# $PASS_PORT (9), which the 10,000 rules pass on down the chain: the pair
# fp10k_sink / fp10k_stage_sink differs by one tail call into a stage.
# fp10k_plain: fp10k with the plain entry attached in place of the fused
# one (build/bench/plain_entry): the filter behind a tail call, what fusing
# saves. old10k: fp10k with the binary FP_OLD (another build, its own bpffs): the
# regression check of bench/pipeline_regress.sh.
#
# Method (DESIGN.md, "Facts of this machine"): the generator (`fastpath gen`,
# unpaced: a DDoS flood offers more than the target takes) is pinned on
# CPU0, the receiver veth's threaded NAPI kthread on CPU1 at SCHED_FIFO 50
# (as NIC softirq work preempts tasks; without it the kthread's wakeup
# latency makes the veth ring refuse bursts at any rate). What the ring
# refuses, the generator's CPU returns into the page pool the receiver
# returns frames to; when the two contend for its lock the receiver slows
# for the rest of the window, so rounds fall into a fast or a slow mode,
# for every XDP target. Earlier versions paced the generator just above
# each target's rate; that made the slow mode more frequent, not less
# (a paced sender returns every frame it holds back through the same
# ring), so the flood is unpaced. Each second of the window the receiver
# veth's rx_packets gives the rate handled; ethtool -S
# (rx_queue_0_xdp_drops), the nft/iptables rule counters and /proc/net/snmp
# (Ip InReceives) say where the packets went, so a target that passes
# packets up can never look like a fast dropper. Reported: median of all
# seconds over all rounds, the spread of the round medians, the share of
# handled packets the target dropped. Also the receiver's CPU time per
# handled packet (its NAPI kthreads' run time from /proc/PID/schedstat over
# the window, per packet it handled; all receive work runs there) and the
# capacity that gives, 1e9 / ns: what one CPU of receive work takes, apart
# from how often the window fell into the contended mode above (a round in
# that mode shows a higher ns/packet too: the median of rounds is given).
# bpf_stats is switched off for the run.
#
# -s (shared CPU): the generator runs on CPU1 too, beside the receiver's
# NAPI kthread, which preempts it (SCHED_FIFO) at the end of every batch it
# sends. The ring never fills, nothing is refused, and no other CPU returns
# frames into the page pool, so the receiver's ns/packet is its receive
# cost alone, without the contended mode: the stable comparison of the
# targets' per-packet cost. The rate column is then what one CPU does for
# both ends, not a drop rate.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FP=${FP_BIN:-$REPO/build/fastpath}
ATTACH=$REPO/build/bench/xdp_drop_attach
COST=$REPO/build/bench/filter_cost
STAGE=$REPO/build/bench/mark_stage
PLAIN=$REPO/build/bench/plain_entry
FP_OLD=${FP_OLD:-}
ROUNDS=4 WINDOW=5 OUT= GEN_CPU=0 FLOOD=one
TARGETS="bare fp10 fp10k xdpf_all xdpf_udp nft ipt"
PORT=11211 PASS_PORT=9
while getopts "r:w:t:o:sf:" c; do
	case $c in
	r) ROUNDS=$OPTARG ;; w) WINDOW=$OPTARG ;; t) TARGETS=$OPTARG ;; o) OUT=$OPTARG ;;
	s) GEN_CPU=1 ;; f) FLOOD=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-w WINDOW_S] [-t TARGETS] [-o OUT.md] [-s] [-f one|flows|dns]" >&2
	   exit 2 ;;
	esac
done
case $FLOOD in
one) GEN_FLOOD=(--udp "$PORT") ;;
flows) GEN_FLOOD=(--udp "$PORT" --rand-src 0.0.0.0/0 --rand-sport) ;;
dns) PORT=53 GEN_FLOOD=(--dns x7k2q9.victim.example --rand-label) ;;
*) echo "filter_rate: -f $FLOOD: give one, flows or dns" >&2; exit 2 ;;
esac
(( ROUNDS >= 1 && ROUNDS <= 20 && WINDOW >= 1 && WINDOW <= 60 )) ||
	{ echo "filter_rate: ROUNDS 1..20, WINDOW 1..60" >&2; exit 2; }
. "$REPO/bench/veth_lab.sh"
veth_lab_require filter_rate fr nft iptables xdp-filter "$FP" "$ATTACH" "$COST" "$STAGE" "$PLAIN"
[[ " $TARGETS " != *" old10k "* || -x $FP_OLD ]] ||
	{ echo "filter_rate: target old10k needs FP_OLD=<another build's fastpath>" >&2; exit 2; }
TMP=$(mktemp -d /tmp/fp-bench-rate.XXXXXX)
GEN_PID= STATS_OLD=
log() { printf '[%s filter_rate] %s\n' "$(date +%T)" "$*" >&2; }

cleanup() {
	set +e
	[[ -n $GEN_PID ]] && kill "$GEN_PID" 2>/dev/null && wait "$GEN_PID" 2>/dev/null
	ip netns del "$NSG" 2>/dev/null
	ip netns del "$NSR" 2>/dev/null
	for m in "$TMP/bpffs" "$TMP/xbpffs" "$TMP/obpffs"; do
		mountpoint -q "$m" && umount "$m"
	done
	[[ -n $STATS_OLD ]] && sysctl -qw kernel.bpf_stats_enabled="$STATS_OLD"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'log interrupted; exit 130' INT TERM

# Private copies: a rebuild of build/ during the run must not break it.
cp "$FP" "$TMP/fastpath" && cp "$ATTACH" "$TMP/xdp_drop_attach" && cp "$STAGE" "$TMP/mark_stage" &&
	cp "$PLAIN" "$TMP/plain_entry" || exit 1
FP=$TMP/fastpath ATTACH=$TMP/xdp_drop_attach STAGE=$TMP/mark_stage PLAIN=$TMP/plain_entry
if [[ -n $FP_OLD ]]; then cp "$FP_OLD" "$TMP/fastpath_old" || exit 1; FP_OLD=$TMP/fastpath_old; fi
STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=0
mkdir -p "$TMP/bpffs" "$TMP/xbpffs" "$TMP/obpffs"
mount -t bpf bpf "$TMP/bpffs" && mount -t bpf bpf "$TMP/xbpffs" && mount -t bpf bpf "$TMP/obpffs" || exit 1
"$COST" --write-rules "$TMP/rules" || exit 1

veth_lab_up || exit 1
log "generator $NSG/$IFG on CPU$GEN_CPU -> $NSR/$IFR, NAPI kthread $napi on CPU1"

rx() { ip netns exec "$NSR" cat "/sys/class/net/$IFR/statistics/$1"; }
# CPU time (ns) the receiver's NAPI kthreads ran: all its receive work.
napi_ns() { local p t=0; for p in $napi; do t=$(( t + $(awk '{ print $1 }' "/proc/$p/schedstat") )); done; echo $t; }
xdp_drops() { ip netns exec "$NSR" ethtool -S "$IFR" | awk '/rx_queue_0_xdp_drops/ { print $2 }'; }
ip_in() { ip netns exec "$NSR" awk '/^Ip: [0-9]/ { print $4 }' /proc/net/snmp; }  # InReceives
in_r() { ip netns exec "$NSR" "$@"; }
xf() { in_r sh -c "mount --bind '$TMP/xbpffs' /sys/fs/bpf && $*"; }

# rule_drops TARGET: packets the target's own rule counted (nft / iptables).
rule_drops() {
	case $1 in
	nft) in_r nft list table netdev fprate | awk '/counter packets/ { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }' ;;
	ipt) in_r iptables -t raw -L PREROUTING -v -x -n | awk -v p="dpt:$PORT" '$0 ~ p { print $1 }' ;;
	*) xdp_drops ;;
	esac
}

# stage SLOT pass|drop: the tests' mark stage into the pinned pipeline.
stage() { in_r "$STAGE" --bpffs "$TMP/bpffs" "$IFR" "$@"; }
fpk() { in_r "$FP" --bpffs "$TMP/bpffs" filter load "$IFR" "$TMP/rules/10000.rules" >/dev/null; }

setup() {
	case $1 in
	bare) in_r "$ATTACH" "$IFR" ;;
	fp10) in_r "$FP" --bpffs "$TMP/bpffs" filter load "$IFR" "$TMP/rules/10.rules" >/dev/null ;;
	fp10k) fpk ;;
	fp10k_stage) fpk && stage 5 pass ;;
	fp10k_plain) fpk && in_r "$PLAIN" "$TMP/bpffs" "$IFR" ;;
	entry_sink) in_r "$FP" --bpffs "$TMP/bpffs" pipeline load "$IFR" >/dev/null && stage 6 drop ;;
	fp10k_sink) fpk && stage 6 drop ;;
	fp10k_stage_sink) fpk && stage 5 pass && stage 6 drop ;;
	old10k) in_r "$FP_OLD" --bpffs "$TMP/obpffs" filter load "$IFR" "$TMP/rules/10000.rules" >/dev/null ;;
	xdpf_all) xf "xdp-filter load -f all $IFR && xdp-filter port -p udp -m dst $PORT" >/dev/null ;;
	xdpf_udp) xf "xdp-filter load -f udp $IFR && xdp-filter port -p udp -m dst $PORT" >/dev/null ;;
	nft) in_r nft -f - <<-EOF
		table netdev fprate {
		  chain in {
		    type filter hook ingress device "$IFR" priority -500; policy accept;
		    udp dport $PORT counter drop
		  }
		}
		EOF
		;;
	ipt) in_r iptables -t raw -A PREROUTING -p udp --dport "$PORT" -j DROP ;;
	esac
}

teardown() {
	case $1 in
	fp10|fp10k) in_r "$FP" --bpffs "$TMP/bpffs" filter unload "$IFR" >/dev/null 2>&1 ;;
	fp10k_*|entry_*) in_r "$FP" --bpffs "$TMP/bpffs" pipeline unload "$IFR" >/dev/null 2>&1
		rm -rf "${TMP:?}/bpffs/$IFR" ;;
	old10k) in_r "$FP_OLD" --bpffs "$TMP/obpffs" filter unload "$IFR" >/dev/null 2>&1 ;;
	xdpf_*) xf "xdp-filter unload $IFR" >/dev/null 2>&1 ;;
	nft) in_r nft delete table netdev fprate ;;
	ipt) in_r iptables -t raw -D PREROUTING -p udp --dport "$PORT" -j DROP ;;
	esac
	ip -n "$NSR" link set "$IFR" xdp off 2>/dev/null
	ip -n "$NSR" link set "$IFR" xdpgeneric off 2>/dev/null
}

# gen TARGET ...: the flood for TARGET (the *_sink targets: a port the
# rules pass, one flow).
gen() {
	if [[ $1 == *_sink ]]; then
		shift
		ip netns exec "$NSG" "$FP" -j gen "$IFG" --dst-mac "$MAC" --cpu "$GEN_CPU" --udp "$PASS_PORT" "$@"
		return
	fi
	shift
	ip netns exec "$NSG" "$FP" -j gen "$IFG" --dst-mac "$MAC" --cpu "$GEN_CPU" "${GEN_FLOOD[@]}" "$@"
}
now() { date +%s%N; }

# stage_check TARGET HANDLED: logs what the mark stages of TARGET saw (the
# no-op stage and the sink must see every packet the filter passes; behind
# a dropping filter the no-op stage sees none).
stage_check() {
	local slot n
	for slot in 5 6; do
		case $1:$slot in
		fp10k_stage:5|fp10k_stage_sink:5|*_sink:6)
			n=$(stage --count "$slot" pass 2>/dev/null)
			log "$1: the mark stage in slot $slot saw ${n:-?} of $2 packets handled" ;;
		esac
	done
}

# measure TARGET ROUND: appends "TARGET ROUND rate" per second to $TMP/seconds
# and one summary line to $TMP/rounds.
measure() {
	local t=$1 round=$2 d0 r0 x0 i0 k0 ts te last cur rates=() sent med
	local handled dropped hit ipin cpu_ns
	d0=$(rx rx_dropped); r0=$(rule_drops "$t"); i0=$(ip_in); x0=$(rx rx_packets); k0=$(napi_ns)
	gen "$t" --duration $(( WINDOW + 1 )) >"$TMP/gen.json" &
	GEN_PID=$!
	sleep 0.5
	last=$(rx rx_packets); ts=$(now)
	for (( s = 0; s < WINDOW; s++ )); do
		sleep 1
		cur=$(rx rx_packets); te=$(now)
		rates+=( $(( (cur - last) * 1000000000 / (te - ts) )) )
		last=$cur; ts=$te
	done
	wait "$GEN_PID"; GEN_PID=
	handled=$(( $(rx rx_packets) - x0 )); dropped=$(( $(rx rx_dropped) - d0 ))
	cpu_ns=$(( $(napi_ns) - k0 ))
	hit=$(( $(rule_drops "$t") - r0 )); ipin=$(( $(ip_in) - i0 ))
	stage_check "$t" "$handled"
	sent=$(sed -n 's/.*"sent":\([0-9]*\).*/\1/p' "$TMP/gen.json")
	[[ -n $sent ]] || { log "$t: generator failed: $(cat "$TMP/gen.json")"; return 1; }
	med=$(printf '%s\n' "${rates[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	for r in "${rates[@]}"; do echo "$t $round $r" >>"$TMP/seconds"; done
	echo "$t $round $med $sent $sent $handled $dropped $hit $ipin $cpu_ns" >>"$TMP/rounds"
	log "$(printf 'round %d %-8s %6.2f Mpps (offered %.2f Mpps; handled %d, ring-refused %d, target dropped %d, reached IP %d, receiver %.0f ns/packet)' \
		"$round" "$t" "$(awk -v m="$med" 'BEGIN { print m / 1e6 }')" \
		"$(awk -v s="$sent" -v w="$WINDOW" 'BEGIN { print s / (w + 1) / 1e6 }')" "$handled" \
		"$dropped" "$hit" "$ipin" \
		"$(awk -v c="$cpu_ns" -v h="$handled" 'BEGIN { print h ? c / h : 0 }')")"
}

# Each round starts one target further on: the host's speed drifts over
# seconds, and no target should always run right after the same other one.
read -ra TLIST <<<"$TARGETS"
for (( round = 1; round <= ROUNDS; round++ )); do
	for (( k = 0; k < ${#TLIST[@]}; k++ )); do
		t=${TLIST[$(( (k + round - 1) % ${#TLIST[@]} ))]}
		teardown "$t" >/dev/null 2>&1
		if ! setup "$t" 2>"$TMP/setup.err"; then
			log "$t: $(tail -n 3 "$TMP/setup.err" | tr "\n" " ")"
			log "$t: setup failed; skipped"
			teardown "$t" >/dev/null 2>&1
			continue
		fi
		measure "$t" "$round"
		teardown "$t"
	done
done

# paired A B LABEL: A against B round by round (the two ran minutes apart
# at most, so a slow spell of the host weighs on both): the median over
# rounds of B's receiver ns / A's, and of A's rate / B's, with their spread.
paired() {
	awk -v a="$1" -v b="$2" -v label="$3" '
	function med(v, n,    i, j, x) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	$1 == a && $6 { ans[$2] = $10 / $6; ar[$2] = $3 }
	$1 == b && $6 { bns[$2] = $10 / $6; br[$2] = $3 }
	END {
		for (r in ans) if ((r in bns) && ans[r] > 0 && br[r] > 0) {
			n++; q[n] = bns[r] / ans[r]; p[n] = ar[r] / br[r]
			if (n == 1 || q[n] < qmin) qmin = q[n]; if (q[n] > qmax) qmax = q[n]
			if (n == 1 || p[n] < pmin) pmin = p[n]; if (p[n] > pmax) pmax = p[n]
		}
		if (!n) exit
		printf "\nPaired by round, %s: receiver ns %.2fx (rounds %.2f-%.2f), " \
		       "rate %.2fx (rounds %.2f-%.2f), median of %d rounds.\n",
		       label, med(q, n), qmin, qmax, med(p, n), pmin, pmax, n
	}' "$TMP/rounds"
}

# pairdiff A B LABEL: B's receiver ns/packet minus A's, round by round,
# each round's pair listed, then the median and range of the differences.
pairdiff() {
	awk -v a="$1" -v b="$2" -v label="$3" '
	function med(v, n,    i, j, x) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	$1 == a && $6 { ans[$2] = $10 / $6 }
	$1 == b && $6 { bns[$2] = $10 / $6 }
	END {
		for (r = 1; r <= 99; r++) if ((r in ans) && (r in bns)) {
			n++; d[n] = bns[r] - ans[r]
			line = line sprintf("%s r%d %.1f - %.1f = %+.1f", n > 1 ? ";" : "", r, bns[r], ans[r], d[n])
			if (n == 1 || d[n] < dmin) dmin = d[n]; if (n == 1 || d[n] > dmax) dmax = d[n]
		}
		if (!n) exit
		printf "\nPaired by round, %s: receiver ns/packet **%+.1f** (median of %d rounds; " \
		       "rounds %+.1f to %+.1f; each round %s minus %s:%s).\n",
		       label, med(d, n), n, dmin, dmax, b, a, line
	}' "$TMP/rounds"
}

# Summary: median of all seconds, spread of round medians, dropped share.
{
	echo "| target | Mpps (median of seconds) | round medians (min-max) | vs bare | receiver ns/packet (median of rounds) | capacity Mpps (1e3 / ns) | dropped by the target | reached IP layer |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	bare=$(awk '$1 == "bare" { print $3 }' "$TMP/seconds" | sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')
	for t in $TARGETS; do
		med=$(awk -v t="$t" '$1 == t { print $3 }' "$TMP/seconds" | sort -n |
			awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')
		[[ -z $med ]] && continue
		awk -v t="$t" -v med="$med" -v bare="${bare:-0}" '
			$1 == t { n++; if (min == "" || $3 < min) min = $3; if ($3 > max) max = $3;
			          h += $6; d += $8; ip += $9; ns[n] = $6 ? $10 / $6 : 0 }
			END {
				for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
					if (ns[j] < ns[i]) { x = ns[i]; ns[i] = ns[j]; ns[j] = x }
				cns = n % 2 ? ns[(n + 1) / 2] : (ns[n / 2] + ns[n / 2 + 1]) / 2
				name["bare"] = "bare XDP_DROP (floor)"; name["fp10"] = "fastpath, 10 rules";
				name["fp10k"] = "fastpath, 10,000 rules";
				name["xdpf_all"] = "xdp-filter -f all, 1 port rule";
				name["xdpf_udp"] = "xdp-filter -f udp, 1 port rule";
				name["nft"] = "nftables netdev ingress drop"; name["ipt"] = "iptables raw PREROUTING drop";
				name["fp10k_stage"] = "fastpath, 10,000 rules + no-op stage (slot 5)";
				name["entry_sink"] = "entry + sink stage (slot 6), UDP port 9";
				name["fp10k_sink"] = "fastpath, 10,000 rules + sink (slot 6), UDP port 9";
				name["fp10k_stage_sink"] = "fastpath, 10,000 rules + no-op stage (5) + sink (6), UDP port 9";
				name["fp10k_plain"] = "fastpath, 10,000 rules, plain entry + tail call to the filter";
				name["old10k"] = "fastpath before the pipeline (FP_OLD), 10,000 rules";
				printf "| %s | %.2f | %.2f-%.2f | %s | %.0f | %.2f | %.1f%% | %.1f%% |\n", name[t],
				       med / 1e6, min / 1e6, max / 1e6,
				       (bare > 0 ? sprintf("%.2fx", med / bare) : "-"), cns,
				       (cns > 0 ? 1000 / cns : 0), (h ? 100 * d / h : 0), (h ? 100 * ip / h : 0)
			}' "$TMP/rounds"
	done
	echo
	echo "Rounds: $ROUNDS, window ${WINDOW} s each, targets interleaved in each round" \
	     "(each round starts one target further on); flood: $FLOOD (\`gen ${GEN_FLOOD[*]}\`)."
	paired fp10k nft "fastpath at 10,000 rules vs nftables"
	paired fp10k xdpf_all "fastpath at 10,000 rules vs xdp-filter -f all"
	pairdiff bare entry_sink "the entry and a tail call into a dropping stage, over bare XDP_DROP"
	pairdiff fp10k fp10k_plain "the plain entry and a tail call to the filter's slot, over the fused entry"
	pairdiff fp10k fp10k_stage "a no-op stage behind the filter, flood dropped by the filter"
	pairdiff entry_sink fp10k_sink "the filter at 10,000 rules, on a packet it passes"
	pairdiff fp10k_sink fp10k_stage_sink "one tail call into a no-op stage, packets the filter passes"
	pairdiff old10k fp10k "fastpath at 10,000 rules, this build minus FP_OLD"
} >"$TMP/summary.md"
cat "$TMP/summary.md"
[[ -n $OUT ]] && cp "$TMP/summary.md" "$OUT"
exit 0
