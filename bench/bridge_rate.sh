#!/usr/bin/env bash
# Switching cost and rate of the fastpath bridge against the Linux bridge
# over the same veths and the same load, with and without VLAN filtering.
#
#   bench/bridge_rate.sh [-r ROUNDS] [-w WINDOW_S] [-W RATE_WINDOW_S] [-m max|ladder]
#                        [-l "FPS ..."] [-b STEPS] [-t "target ..."] [-T "test ..."]
#                        [-o OUT.md] [-p DIR] [-k DIR]
#
# targets: fp (fastpath bridge), fpvlan (fastpath bridge --vlan-aware, every
# port PVID 1 untagged), linux (ip link type bridge), linuxvlan (the same
# with vlan_filtering 1, every port PVID 1 untagged; a kernel without
# CONFIG_BRIDGE_VLAN_FILTERING refuses it, as this machine's does: the run
# says so and fpvlan is then paired with linux), redir and redirmac (the
# floor, below; default: all but redirmac). Five ports each: the
# receiving veth of bench/veth_lab.sh (threaded NAPI kthread on CPU1 at
# SCHED_FIFO 50) and four veths whose far ends, the sinks in a namespace of
# their own, drop what arrives with a bare XDP_DROP (which also gives them
# the NAPI an XDP_REDIRECT into a veth needs). fastpath gen sends 60 B UDP
# frames. Measured per target, round by round, targets interleaved:
#   uni    known unicast to sink 1's MAC (a static FDB entry on both),
#          shared-CPU lab (generator on CPU1 beside the kthread, which
#          preempts it; the sinks' NAPI runs as softirq there too): the
#          kthread's CPU ns per frame it handled;
#   flood  a frame for an unknown MAC, flooded to the 4 other ports, the
#          same lab: ns per frame handled (4 copies each);
#   rate   known unicast, two-CPU lab where the switch alone has CPU1:
#          the ingress port's NAPI kthread on CPU1; the generator AND the
#          sinks' NAPI (threaded, kthreads SCHED_FIFO 50) on CPU0. The
#          generator's live frames belong to its page pool; freed on CPU1
#          (where the sinks' NAPI used to run) each went back through the
#          pool's locked ring across CPUs, and perf showed CPU1 30-60% in
#          that lock (1.11x the Linux bridge where the shared-CPU lab gave
#          3.58x). Freed on CPU0 they go back on the pool's own CPU (perf
#          of CPU1, -p: the lock's slow path under 0.1%). Frames a second
#          that reached sink 1, over -W second windows, by one of:
#            -m max     (default) the generator unpaced: what the switch
#                       passes when offered all one CPU can send; the ring
#                       of the ingress port refuses the rest (on CPU0, at
#                       the generator, which frees them there), reported;
#            -m ladder  paced rungs (-l, then -b bisection steps): the
#                       highest that passed. A rung fails when the
#                       generator sent under 97% of what was asked (CPU0,
#                       shared with the sinks, could not keep up), the
#                       ingress port refused over BRIDGE_REFUSE_PCT (0.5)%
#                       of it, or the sinks got under 99% of what the port
#                       took in (4 copies each for frate). On this VM it
#                       measures wake-up latency more than the switch: the
#                       generator sends trains of up to 256 frames (the
#                       ring's size) and wakes the port's NAPI once a
#                       train, so a switch that drains the ring and sleeps
#                       between trains (fastpath) refuses 1-6% at 0.5-1.5
#                       Mfps while its CPU is 70% idle.
#          The ingress port's NAPI is polled by its own timer every
#          POLL_NS (5000) ns (napi_defer_hard_irqs 1000, gro_flush_timeout
#          POLL_NS; POLL_NS=0: off), as a NIC's interrupt coalescing would,
#          instead of being woken from CPU0 once a generator batch (a veth
#          has no coalescing): without it a switch that empties the ring
#          and sleeps (fastpath: its NAPI 30-40% of CPU1) comes back late
#          while the generator's next batch finds the ring full, and the
#          slower fpvlan delivered more than fp (2.26 vs 1.57 Mfps). It
#          was 20 us: fastpath's NAPI then still ran only 6-8 thousand
#          times a second, 300-400 frames a run, and slept between runs
#          while the generator's bursts (it runs 256-frame batches between
#          the sinks' NAPI, which preempts it) filled the 256-frame ring:
#          35% refused with 20-25% of CPU1 left. At 5 us it seldom sleeps
#          (30-300 runs a second, CPU1 92-95% in the kernel, as the Linux
#          bridge's NAPI at either), so the switch's CPU is what limits,
#          though a frame costs fastpath ~10% more (the NAPI chases the
#          generator on the ring's cache lines): delivered, the two about
#          cancel (docs/benchmarks.md). The Linux bridge's NAPI, slower,
#          never empties the ring at either.
#          SINK_POLL_NS (default 0, off) polls the sinks' NAPI the same
#          way: the switch's egress then never wakes it. Waking it is an
#          IPI to CPU0 per wake (perf: 23% of CPU1 for fastpath, 26-30%
#          for the Linux bridge, in __napi_schedule from veth_xdp_xmit and
#          veth_xmit), but polled, the sinks' timers take CPU0 from the
#          generator, which then offers less than fastpath takes (1-4%
#          refused, CPU1 half idle): the lab would measure CPU0.
#          SINKS_CPU1=1: the sinks' NAPI stays softirq on CPU1 (the lab as
#          it was, to compare). During both, CPU1 runs a SCHED_IDLE busy
#          loop (NOSPIN=1: not):
#          it takes no time from the kthread but keeps the vCPU from
#          halting, so waking the switch costs an IPI to a running CPU,
#          as on a busy core, not a VM's exit from halt (max rate, one
#          comparison: fp +22%; linux, whose NAPI seldom sleeps, +4%);
#   frate  the same for the flood: frames a second taken in and flooded
#          to all 4 ports (the 4 sinks on CPU0 too, so CPU0 tops out sooner).
#   Each rate window also reports CPU0's and CPU1's shares from /proc/stat
#   (CPU0 busy: generator and sinks; CPU1 in the kernel: the switch) and the
#   switch's NAPI kthread's own CPU time per frame (/proc/PID/schedstat):
#   frames per CPU1-second, what the switch would pass given all of CPU1
#   whatever the generator could offer, a second table and goal line.
# Targets redir and redirmac (known unicast only) are the floor: a bare
# XDP program on the ingress port that redirects every frame to port 1
# through a one-entry DEVMAP (build/bench/bridge_redirect_attach), no
# parsing, lookup or counter; redirmac reads the frame's first byte first
# (the miss on a frame CPU0 wrote, which any switch pays to read a MAC).
# Delivered (shared lab): what the sinks dropped (ethtool
# rx_queue_0_xdp_drops) over what the receiver handled (its rx_packets),
# so a target that loses frames cannot look fast. Ratios (linux / fp for
# ns, fp / linux for rates) are paired round by round; the last line is the
# goal's (rate, fp / linux). -p DIR: after round 1's two-CPU tests, one
# more window per target and test under `perf record -a -g`; DIR gets the
# data and, per CPU, what it did (TARGET-TEST.txt: CPU1, -cpu0.txt: CPU0).
# -T: only these of the tests (uni flood rate frate; default all). -k DIR:
# keep the raw per-round figures there (rounds: shared lab; best, cap:
# frames a second and frames per CPU1-second, "TARGET TEST ROUND VALUE";
# rungs), for merging runs (bench/bridge_ablate.sh). Variant targets
# fp.NAME (and fpvlan.NAME) run the fastpath binary FP_VARIANTS names
# ("NAME=PATH ..."), a build with parts of the bridge taken out.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FP=${FP_BIN:-$REPO/build/fastpath}
ATTACH=$REPO/build/bench/xdp_drop_attach REDIR=$REPO/build/bench/bridge_redirect_attach
ROUNDS=3 WINDOW=3 RUNG=3 STEPS=3 REFUSE=${BRIDGE_REFUSE_PCT:-0.5} METHOD=max OUT= PERF_DIR= TARGETS="fp linux fpvlan linuxvlan redir"
TESTS="uni flood rate frate" KEEP=
LADDER="500000 1000000 2000000 4000000 8000000"
usage="usage: $0 [-r ROUNDS] [-w WINDOW_S] [-W RATE_WINDOW_S] [-m max|ladder] [-l 'FPS ...'] [-b STEPS] [-t 'fp linux fpvlan linuxvlan redir redirmac fp.NAME'] [-T 'uni flood rate frate'] [-o OUT.md] [-p DIR] [-k DIR]"
while getopts "r:w:W:l:b:m:t:T:o:p:k:" c; do
	case $c in
	r) ROUNDS=$OPTARG ;; w) WINDOW=$OPTARG ;; W) RUNG=$OPTARG ;; l) LADDER=$OPTARG ;; b) STEPS=$OPTARG ;; m) METHOD=$OPTARG ;;
	t) TARGETS=$OPTARG ;; o) OUT=$OPTARG ;; p) PERF_DIR=$OPTARG ;; T) TESTS=$OPTARG ;; k) KEEP=$OPTARG ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
[[ "$ROUNDS $WINDOW $RUNG $STEPS" =~ ^[0-9]+\ [0-9]+\ [0-9]+\ [0-9]+$ ]] &&
	(( ROUNDS >= 1 && ROUNDS <= 20 && WINDOW >= 1 && WINDOW <= 60 && RUNG >= 1 && RUNG <= 60 && STEPS <= 6 )) ||
	{ echo "bridge_rate: ROUNDS 1..20, WINDOW 1..60, RUNG 1..60, STEPS 0..6" >&2; exit 2; }
[[ $METHOD == max || $METHOD == ladder ]] || { echo "bridge_rate: -m max or ladder" >&2; exit 2; }
for p in $LADDER; do
	[[ $p =~ ^[0-9]+$ ]] && (( p >= 1000 && p <= 100000000 )) || { echo "bridge_rate: bad rate '$p' in -l" >&2; exit 2; }
done
# variant NAME: the fastpath binary of target fp.NAME / fpvlan.NAME
variant() { local v; for v in ${FP_VARIANTS:-}; do [[ ${v%%=*} == "$1" ]] && { echo "${v#*=}"; return; }; done; }
for t in $TARGETS; do
	case $t in
	fp|fpvlan|linux|linuxvlan|redir|redirmac) ;;
	fp.*|fpvlan.*) [[ -x $(variant "${t#*.}") ]] || { echo "bridge_rate: target '$t': FP_VARIANTS has no binary ${t#*.}=PATH" >&2; exit 2; } ;;
	*) echo "bridge_rate: target '$t': give fp, fpvlan, linux, linuxvlan, redir, redirmac or fp.NAME" >&2; exit 2 ;;
	esac
done
for t in $TESTS; do
	case $t in uni|flood|rate|frate) ;; *) echo "bridge_rate: test '$t': give uni, flood, rate or frate" >&2; exit 2 ;; esac
done
has_test() { [[ " $TESTS " == *" $1 "* ]]; }
[[ -z $KEEP ]] || mkdir -p "$KEEP" || exit 2
if [[ -n $PERF_DIR ]]; then
	command -v perf >/dev/null || { echo "bridge_rate: -p needs perf" >&2; exit 2; }
	mkdir -p "$PERF_DIR" || exit 2
	PERF_DIR=$(cd "$PERF_DIR" && pwd)
fi
. "$REPO/bench/veth_lab.sh"
veth_lab_require bridge_rate br bridge "$FP" "$ATTACH" "$REDIR"
NSK=${NSG%g}k
TMP=$(mktemp -d /tmp/fp-bench-br.XXXXXX)
GEN_PID= PERF_PID= SPIN_PID=
POLL_NS=${POLL_NS:-5000}
SINK_POLL_NS=${SINK_POLL_NS:-0}
[[ $POLL_NS =~ ^[0-9]+$ && $SINK_POLL_NS =~ ^[0-9]+$ ]] || { echo "bridge_rate: POLL_NS, SINK_POLL_NS: nanoseconds (0: off)" >&2; exit 2; }
BR=bench UNKNOWN=02:00:00:00:ee:ee
log() { printf '[%s bridge_rate] %s\n' "$(date +%T)" "$*" >&2; }

cleanup() {
	set +e
	[[ -n $GEN_PID ]] && kill "$GEN_PID" 2>/dev/null && wait "$GEN_PID" 2>/dev/null
	[[ -n $PERF_PID ]] && kill -INT "$PERF_PID" 2>/dev/null && wait "$PERF_PID" 2>/dev/null
	[[ -n $SPIN_PID ]] && kill "$SPIN_PID" 2>/dev/null && wait "$SPIN_PID" 2>/dev/null
	ip netns del "$NSG" 2>/dev/null
	ip netns del "$NSR" 2>/dev/null
	ip netns del "$NSK" 2>/dev/null
	mountpoint -q "$TMP/bpffs" && umount "$TMP/bpffs"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'log interrupted; exit 130' INT TERM

cp "$FP" "$TMP/fastpath" && cp "$ATTACH" "$TMP/xdp_drop_attach" && cp "$REDIR" "$TMP/redirect_attach" || exit 1
FP=$TMP/fastpath ATTACH=$TMP/xdp_drop_attach REDIR=$TMP/redirect_attach
mkdir -p "$TMP/bpffs" && mount -t bpf bpf "$TMP/bpffs" || exit 1
veth_lab_up || exit 1
in_r() { ip netns exec "$NSR" "$@"; }
in_g() { ip netns exec "$NSG" "$@"; }
in_k() { ip netns exec "$NSK" "$@"; }
FPT=$FP # (the binary of the target being set up: fp.NAME's own)
fp() { in_r "$FPT" --bpffs "$TMP/bpffs" "$@"; }

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

# sinks_on_cpu0 / sinks_softirq: where the sinks' NAPI runs (two-CPU lab / shared lab).
# With SINK_POLL_NS > 0 the sinks' NAPI is timer-polled as the ingress
# port's is (see the header): the switch's egress then never wakes it.
sinks_on_cpu0() {
	local k
	for k in "${SINKS[@]}"; do
		veth_lab_napi "$NSK" "$k" 0 || return 1
		(( SINK_POLL_NS > 0 )) || continue
		in_k sh -c "echo 1000 > /sys/class/net/$k/napi_defer_hard_irqs; echo $SINK_POLL_NS > /sys/class/net/$k/gro_flush_timeout" || return 1
	done
}
sinks_softirq() {
	local k
	for k in "${SINKS[@]}"; do
		in_k sh -c "echo 0 > /sys/class/net/$k/napi_defer_hard_irqs; echo 0 > /sys/class/net/$k/gro_flush_timeout"
		veth_lab_napi_off "$NSK" "$k"
	done
}

rx() { in_r cat "/sys/class/net/$IFR/statistics/${1:-rx_packets}"; }
napi_ns() { local p t=0; for p in $napi; do t=$(( t + $(awk '{ print $1 }' "/proc/$p/schedstat") )); done; echo $t; }
napi_runs() { local p t=0; for p in $napi; do t=$(( t + $(awk '{ print $3 }' "/proc/$p/schedstat") )); done; echo $t; }
sunk() { # sunk [first]: frames the sinks dropped (all four, or sink 1)
	local k t=0 n list=("${SINKS[@]}")
	[[ -n ${1:-} ]] && list=("${SINKS[0]}")
	for k in "${list[@]}"; do
		n=$(in_k ethtool -S "$k" | awk '/rx_queue_0_xdp_drops:/ { print $2 }')
		t=$(( t + ${n:-0} ))
	done
	echo $t
}
# cpustat: CPU0's and CPU1's /proc/stat jiffies (user nice system idle
# iowait irq softirq steal, each), for cpushare.
cpustat() { awk '$1 == "cpu0" || $1 == "cpu1" { printf "%s %s %s %s %s %s %s %s ", $2, $3, $4, $5, $6, $7, $8, $9 }' /proc/stat; }
# cpushare "BEFORE" "AFTER": "c0busy c0steal c1kern c1steal", percent of each
# CPU's time in between: CPU0 not idle (generator + sinks), CPU0 stolen by the
# host, CPU1 in the kernel (system + irq + softirq: the switch's NAPI; the
# SCHED_IDLE busy loop counts as user), CPU1 stolen.
cpushare() {
	awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x); split(b, y)
		for (c = 0; c < 2; c++) { t = 0; for (i = 1; i <= 8; i++) { d[i] = y[c * 8 + i] - x[c * 8 + i]; t += d[i] }
			if (t <= 0) t = 1
			if (c == 0) printf "%.0f %.0f ", 100 * (t - d[4] - d[5]) / t, 100 * d[8] / t
			else printf "%.0f %.0f\n", 100 * (d[3] + d[6] + d[7]) / t, 100 * d[8] / t }
	}'
}
# jnum KEY FILE: a number from a one-line JSON object.
jnum() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" "$2" | head -n1; }

setup() {
	local p
	FPT=$FP
	[[ $1 == *.* ]] && FPT=$(variant "${1#*.}")
	case $1 in
	fp|fpvlan|fp.*|fpvlan.*)
		fp bridge create "$BR" $([[ $1 == fpvlan* ]] && echo --vlan-aware) >/dev/null || return 1
		for p in "$IFR" "${OUTS[@]}"; do fp bridge add "$BR" "$p" >/dev/null || return 1; done
		if [[ $1 == fpvlan* ]]; then
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
	redir|redirmac) # (the floor: every frame to port 1; known unicast only)
		in_r "$REDIR" "$IFR" "${OUTS[0]}" $([[ $1 == redirmac ]] && echo read) ;;
	esac
}
teardown() {
	FPT=$FP
	[[ $1 == *.* ]] && FPT=$(variant "${1#*.}")
	case $1 in
	fp|fpvlan|fp.*|fpvlan.*) fp bridge destroy "$BR" >/dev/null 2>&1 ;;
	linux|linuxvlan) in_r ip link del br0 2>/dev/null ;;
	redir|redirmac) in_r ip link set dev "$IFR" xdp off 2>/dev/null ;;
	esac
}
# GEN_PPS: pace the shared-lab generator (a smoke run of the script itself: figures mean nothing)
gen() { in_g "$FP" -j gen "$IFG" --udp 9 --src 198.18.0.1 --dst 198.18.0.2 "$@"; }
dst_of() { [[ $1 == uni || $1 == rate ]] && echo "$K1MAC" || echo "$UNKNOWN"; }

# measure TARGET TEST ROUND (shared-CPU lab): "TARGET TEST ROUND handled
# delivered cpu_ns secs" into $TMP/rounds
measure() {
	local t=$1 test=$2 round=$3 dst first=1 x0 s0 k0 t0 handled got ns secs
	dst=$(dst_of "$test")
	[[ $test == flood ]] && first=
	gen --dst-mac "$dst" --cpu 1 --duration 1 ${GEN_PPS:+--pps "$GEN_PPS"} >/dev/null # warm: learned, caches
	x0=$(rx); s0=$(sunk $first); k0=$(napi_ns); t0=$(date +%s%N)
	gen --dst-mac "$dst" --cpu 1 --duration "$WINDOW" ${GEN_PPS:+--pps "$GEN_PPS"} >"$TMP/gen.json" &
	GEN_PID=$!
	wait "$GEN_PID"; GEN_PID=
	sleep 0.1
	handled=$(( $(rx) - x0 )); got=$(( $(sunk $first) - s0 )); ns=$(( $(napi_ns) - k0 ))
	secs=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
	echo "$t $test $round $handled $got $ns $secs" >>"$TMP/rounds"
	log "$(printf 'round %d %-9s %-5s handled %d, delivered %d (%.0f%% of handled%s), receiver %.0f ns/frame' \
		"$round" "$t" "$test" "$handled" "$got" \
		"$(awk -v g="$got" -v h="$handled" -v f="$test" 'BEGIN { print h ? 100 * g / h / (f == "flood" ? 4 : 1) : 0 }')" \
		"$([[ $test == flood ]] && echo ", 4 ports")" \
		"$(awk -v c="$ns" -v h="$handled" 'BEGIN { print h ? c / h : 0 }')")"
}

# rung TARGET TEST ROUND FPS (two-CPU lab): one window, the generator paced
# at FPS (0: unpaced, then only a short generator fails it); appends
# "TARGET TEST ROUND FPS sent secs handled refused delivered ok why" to
# $TMP/rungs and returns 0 when the rung passed.
rung() {
	local t=$1 test=$2 round=$3 fps=$4 dst first=1 copies=1 x0 s0 c0 k0 kns r0 runs cpu w sent secs refused handled got asked ok=1 why=
	dst=$(dst_of "$test")
	[[ $test == frate ]] && first= copies=4
	x0=$(rx); s0=$(sunk $first); c0=$(cpustat); k0=$(napi_ns); r0=$(napi_runs)
	# not through a shell function: GEN_PID must be the generator itself
	ip netns exec "$NSG" "$FP" -j gen "$IFG" --udp 9 --src 198.18.0.1 --dst 198.18.0.2 --dst-mac "$dst" \
		--cpu 0 $( (( fps )) && echo --pps "$fps") --duration "$RUNG" >"$TMP/gen.json" 2>"$TMP/gen.err" &
	GEN_PID=$!
	wait "$GEN_PID"; GEN_PID=
	cpu=$(cpushare "$c0" "$(cpustat)")
	sleep 0.2
	kns=$(( $(napi_ns) - k0 )) runs=$(( $(napi_runs) - r0 ))
	handled=$(( $(rx) - x0 )); got=$(( $(sunk $first) - s0 ))
	sent=$(jnum sent "$TMP/gen.json"); secs=$(jnum seconds "$TMP/gen.json"); refused=$(jnum refused "$TMP/gen.json")
	[[ -n $sent && -n $secs ]] || { log "$t: generator failed: $(cat "$TMP/gen.json" "$TMP/gen.err")"; exit 1; }
	[[ -n $refused ]] || refused=$(( sent - handled )) # (no ethtool count: what the port did not take)
	asked=$(( fps ? fps * RUNG : sent ))
	if (( sent * 100 < asked * 97 )); then why="generator sent $(( 100 * sent / asked ))% of $asked"
	elif (( fps )) && awk -v r="$refused" -v s="$sent" -v x="$REFUSE" 'BEGIN { exit !(r * 100 > s * x) }'; then
		why="port refused $refused of $sent"
	elif (( fps && got * 100 < handled * copies * 99 )); then why="sinks got $got of $(( handled * copies ))"
	else ok=0
	fi
	w=${why// /_}
	echo "$t $test $round $fps $sent $secs $handled $refused $got $ok ${w:--} $cpu $kns" >>"$TMP/rungs"
	# frames the switch's NAPI handled per second of its CPU1 time: what it
	# would switch given all of CPU1, whatever the generator could offer
	[[ $round == perf ]] || awk -v t="$t" -v test="$test" -v r="$round" -v h="$handled" -v k="$kns" \
		'BEGIN { printf "%s %s %s %d\n", t, test, r, (k > 0 ? h * 1e9 / k : 0) }' >>"$TMP/cap"
	RATE=$(awk -v g="$got" -v c="$copies" -v s="$secs" 'BEGIN { printf "%d", (s > 0 ? g / c / s : 0) }')
	set -- $cpu
	printf 'round %s %-9s %-5s %8d fps asked: sent %d in %.2f s, port refused %d, handled %d, sinks got %d (CPU0 busy %s%%, stolen %s%%; CPU1 in the kernel %s%%, stolen %s%%; the switch NAPI %.0f ns/frame, ran %.0f times a second, %.0f frames a run): %s\n' \
		"$round" "$t" "$test" "$fps" "$sent" "$secs" "$refused" "$handled" "$got" "$1" "$2" "$3" "$4" \
		"$(awk -v k="$kns" -v h="$handled" 'BEGIN { print h ? k / h : 0 }')" \
		"$(awk -v r="$runs" -v s="$secs" 'BEGIN { print (s > 0 ? r / s : 0) }')" "$(awk -v r="$runs" -v h="$handled" 'BEGIN { print r ? h / r : 0 }')" \
		"$( (( ok == 0 )) && echo passed || echo "FAILED ($why)")" >>"$TMP/rungs.log"
	log "$(tail -n1 "$TMP/rungs.log")"
	return $ok
}

# maxrate TARGET TEST ROUND: one unpaced window; BEST: frames a second the
# sinks got (over the copies: what was lost between the ports never counts).
maxrate() {
	gen --dst-mac "$(dst_of "$2")" --cpu 0 --duration 1 >/dev/null # warm
	if rung "$1" "$2" "$3" 0; then BEST=$RATE; else BEST=0; fi
}

# ladder TARGET TEST ROUND: climbs -l until a rung fails, then -b steps of
# bisection (geometric midpoints); sets BEST (highest passing rate, 0: none).
ladder() {
	local t=$1 test=$2 round=$3 fps lo=0 hi= s mid
	gen --dst-mac "$(dst_of "$test")" --cpu 0 --pps "${LADDER%% *}" --duration 1 >/dev/null # warm: learned, caches
	for fps in $LADDER; do
		if rung "$t" "$test" "$round" "$fps"; then lo=$fps; else hi=$fps; break; fi
	done
	for (( s = 0; s < STEPS && ${hi:-0} > 0; s++ )); do
		if (( lo > 0 )); then
			mid=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%d", int(sqrt(a * b) / 10000 + 0.5) * 10000 }')
		else
			mid=$(( hi / 2 ))
		fi
		(( mid > lo && mid < hi && mid >= 1000 )) || break
		if rung "$t" "$test" "$round" "$mid"; then lo=$mid; else hi=$mid; fi
	done
	BEST=$lo
}

# perf_rung TARGET TEST FPS: one more rung with both CPUs under perf record;
# reports of CPU1 and of CPU0 into $PERF_DIR/TARGET-TEST.txt and -cpu0.txt.
perf_rung() {
	local t=$1 test=$2 fps=$3 data=$PERF_DIR/$t-$test.data c
	perf record -q -a -g -o "$data" >/dev/null 2>&1 &
	PERF_PID=$!
	sleep 0.5
	rung "$t" "$test" perf "$fps"
	kill -INT "$PERF_PID"; wait "$PERF_PID"; PERF_PID=
	sed -i '$d' "$TMP/rungs" # not a measurement
	for c in 1 0; do
		{
			echo "# CPU$c (perf record -a -g, --cpu $c) during one rung of $t $test at $( (( fps )) && echo "$fps fps" || echo "max rate"): $(tail -n1 "$TMP/rungs.log")"
			echo "## by task"
			perf report -i "$data" --cpu "$c" --no-children --sort comm --percent-limit 1 --stdio -g none 2>/dev/null |
				grep -v '^#' | grep -v '^$' | sed 's/[ -]*$//'
			echo "## by symbol"
			perf report -i "$data" --cpu "$c" --no-children --sort symbol --percent-limit 1.5 --stdio -g none 2>/dev/null |
				grep -v '^#' | grep -v '^$' | sed 's/[ -]*$//'
		} >"$PERF_DIR/$t-$test$( (( c == 0 )) && echo -cpu0).txt"
	done
	# the summary row: shares of CPU1's samples
	{
		printf '| %s | %s |' "$t" "$test"
		perf report -i "$data" --cpu 1 --no-children --sort comm --stdio -g none 2>/dev/null |
			awk -v p="napi/$IFR-" 'index($2, substr(p, 1, 15)) == 1 { s += $1 } END { printf " %.1f%% |", s }'
		perf report -i "$data" --cpu 1 --no-children --sort symbol --stdio -g none 2>/dev/null | awk '
			$3 == "native_queued_spin_lock_slowpath" { l += $1 }
			$3 ~ /^page_pool/ { p += $1 }
			$3 ~ /^(pvm_safe_halt|default_idle|native_safe_halt)/ { h += $1 }
			END { printf " %.2f%% | %.2f%% | %.1f%% |", l, p, h }'
		perf report -i "$data" --cpu 0 --no-children --sort comm --stdio -g none 2>/dev/null |
			awk '$2 == "fastpath" { g += $1 } $2 ~ /^napi\// { k += $1 } $2 == "swapper" { i += $1 }
			END { printf " %.1f%% | %.1f%% | %.1f%% |\n", g, k, i }'
	} >>"$TMP/perfsum"
	log "perf of CPU1 and CPU0, $t $test: $PERF_DIR/$t-$test.txt, $t-$test-cpu0.txt"
}

read -ra TLIST <<<"$TARGETS"
for (( round = 1; round <= ROUNDS; round++ )); do
	for (( k = 0; k < ${#TLIST[@]}; k++ )); do
		t=${TLIST[$(( (k + round - 1) % ${#TLIST[@]} ))]}
		teardown "$t"
		if ! setup "$t" 2>"$TMP/setup.err"; then
			log "$t: setup failed: $(tail -n 3 "$TMP/setup.err" | tr '\n' ' ')"; teardown "$t"; continue
		fi
		for test in uni $([[ $t == redir* ]] || echo flood); do has_test "$test" && measure "$t" "$test" "$round"; done
		if [[ -z ${SINKS_CPU1:-} ]]; then
			sinks_on_cpu0 || { log "could not put the sinks' NAPI on CPU0"; exit 1; }
		fi
		if (( POLL_NS > 0 )); then # (see the header)
			in_r sh -c "echo 1000 > /sys/class/net/$IFR/napi_defer_hard_irqs; echo $POLL_NS > /sys/class/net/$IFR/gro_flush_timeout" ||
				{ log "could not set $IFR's NAPI to poll every $POLL_NS ns"; exit 1; }
		fi
		if [[ -z ${NOSPIN:-} ]]; then # (see the header)
			taskset -c 1 chrt -i 0 bash -c 'while :; do :; done' &
			SPIN_PID=$!
		fi
		for test in rate $([[ $t == redir* ]] || echo frate); do
			has_test "$test" || continue
			$( [[ $METHOD == max ]] && echo maxrate || echo ladder ) "$t" "$test" "$round"
			echo "$t $test $round $BEST" >>"$TMP/best"
			log "round $round $t $test: best passing rung $BEST fps"
			(( round == 1 )) && [[ -n $PERF_DIR ]] &&
				perf_rung "$t" "$test" "$( [[ $METHOD == max ]] && echo 0 || echo "${BEST/#0/${LADDER%% *}}")"
		done
		sinks_softirq
		in_r sh -c "echo 0 > /sys/class/net/$IFR/napi_defer_hard_irqs; echo 0 > /sys/class/net/$IFR/gro_flush_timeout"
		[[ -n $SPIN_PID ]] && { kill "$SPIN_PID"; wait "$SPIN_PID" 2>/dev/null; SPIN_PID=; }
		teardown "$t"
	done
done

# Tables: the shared-CPU lab, then the two-CPU lab, then the goal line.
pairs() { # pairs TEST T_FP T_LINUX FILE VALUE_COL BY(ns|rate): "median lo hi n" of the paired ratios
	awk -v test="$1" -v a="$2" -v b="$3" -v col="$5" -v by="$6" '
	function med(v, n,    i, j, x) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	$2 == test { val[$1, $3] = by == "ns" ? ($4 ? $6 / $4 : 0) : $col }
	END {
		for (r = 1; r <= 99; r++) if (((a, r) in val) && ((b, r) in val) && val[a, r] && val[b, r]) {
			m++; q[m] = by == "ns" ? val[b, r] / val[a, r] : val[a, r] / val[b, r]
			if (m == 1 || q[m] < lo) lo = q[m]; if (q[m] > hi) hi = q[m] }
		if (m) printf "%.2f %.2f %.2f %d\n", med(q, m), lo, hi, m
	}' "$4"
}
# anchor T: the Linux target T is paired with (linux when linuxvlan never ran)
anchor() {
	if [[ $1 == fpvlan ]]; then
		grep -q '^linuxvlan ' "$TMP/best" 2>/dev/null && echo linuxvlan || echo linux
	else echo linux; fi
}
ratio_cell() { # ratio_cell TEST T FILE COL BY
	local a q
	[[ $2 == fp* || $2 == redir* ]] || { echo -; return; }
	a=$(anchor "$2")
	read -r q lo hi n < <(pairs "$1" "$2" "$a" "$3" "$4" "$5")
	[[ -n ${q:-} ]] && echo "**${q}x** ($lo-$hi)$([[ $a == linux && $2 != fp ]] && echo " vs linux")" || echo -
}
{
	echo "Shared-CPU lab (generator, the switch's ingress NAPI and the sinks' NAPI on CPU1):"
	echo
	echo "| test | target | receiver ns/frame (median; min-max) | delivered / handled | fastpath's advantage, paired (min-max) |"
	echo "|---|---|---:|---:|---:|"
	for test in uni flood; do
		for t in $TARGETS; do
			line=$(awk -v t="$t" -v test="$test" '
			function med(v, n,    i, j, x) {
				for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
				return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			}
			$1 == t && $2 == test && $4 { x = $6 / $4; n++; v[n] = x; h += $4; g += $5
				if (n == 1 || x < lo) lo = x; if (x > hi) hi = x }
			END { if (n) printf "%.0f (%.0f-%.0f) | %.1f%%", med(v, n), lo, hi, 100 * g / h / (test == "flood" ? 4 : 1) }' "$TMP/rounds")
			[[ -n $line ]] && echo "| $test | $t | $line | $(ratio_cell "$test" "$t" "$TMP/rounds" 0 ns) |"
		done
	done
	has_test rate || has_test frate || exit 0 # (-T: the shared-CPU lab only)
	echo
	echo "Two-CPU lab (the switch's ingress NAPI$( (( POLL_NS > 0 )) && echo " polled every $(( POLL_NS / 1000 )) us")$([[ -n ${SINKS_CPU1:-} ]] && echo " and, as softirq, the sinks' NAPI on CPU1 (SINKS_CPU1=1); the generator on CPU0" || echo " alone on CPU1; the generator and the sinks' NAPI on CPU0")$([[ -z ${NOSPIN:-} ]] && echo "; CPU1 kept from halting")),"
	if [[ $METHOD == max ]]; then
		echo "frames a second switched port to port, the generator unpaced (rate: known unicast; frate: flooded to"
		echo "4 ports, frames taken in; refused: of what the generator sent, at the ingress port's ring; lost: of"
		echo "what the switch took in, not reaching the sinks; CPU0 busy: not idle, the generator and the sinks;"
		echo "CPU1 in the kernel: the switch's NAPI and its interrupts, /proc/stat over the windows, mean):"
		echo
		echo "| test | target | frames/s (median; min-max) | refused at the ingress port | lost between the ports | CPU0 busy | CPU1 in the kernel | fastpath's advantage, paired (min-max) |"
	else
		echo "frames a second switched port to port at the highest passing rung (rate: known unicast; frate:"
		echo "flooded to 4 ports, frames taken in):"
		echo
		echo "| test | target | frames/s (median; min-max) | rounds with a passing rung | why the rung above failed (rungs) | fastpath's advantage, paired (min-max) |"
	fi
	[[ $METHOD == max ]] && echo "|---|---|---:|---:|---:|---:|---:|---:|" || echo "|---|---|---:|---:|---|---:|"
	for test in rate frate; do
		for t in $TARGETS; do
			line=$(awk -v t="$t" -v test="$test" '
			function med(v, n,    i, j, x) {
				for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
				return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			}
			function k(x) { return x >= 1e6 ? sprintf("%.2fM", x / 1e6) : sprintf("%.0fk", x / 1e3) }
			$1 == t && $2 == test { n++; v[n] = $4; if (n == 1 || $4 < lo) lo = $4; if ($4 > hi) hi = $4; if ($4) p++ }
			END { if (n) printf "%s (%s-%s) | %d of %d", k(med(v, n)), k(lo), k(hi), p, n }' "$TMP/best")
			[[ -n $line ]] || continue
			if [[ $METHOD == max ]]; then
				# rungs: t test round fps sent secs handled refused got ok why
				why=$(awk -v t="$t" -v test="$test" '$1 == t && $2 == test && $3 != "perf" {
					s += $5; r += $8; h += $7; g += $9; c0 += $12; c1 += $14; n++ }
					END { c = test == "frate" ? 4 : 1
					      printf "%.1f%% | %.2f%% | %.0f%% | %.0f%%", s ? 100 * r / s : 0, h ? 100 * (1 - g / c / h) : 0,
						n ? c0 / n : 0, n ? c1 / n : 0 }' "$TMP/rungs")
				line=${line%% |*}
			else
				why=$(awk -v t="$t" -v test="$test" '$1 == t && $2 == test && $10 != 0 {
					w = $11; sub(/_[0-9].*/, "", w); gsub(/_/, " ", w); c[w]++ }
					END { for (w in c) printf "%s%s (%d)", s++ ? ", " : "", w, c[w] }' "$TMP/rungs")
			fi
			echo "| $test | $t | $line | ${why:--} | $(ratio_cell "$test" "$t" "$TMP/best" 4 rate) |"
		done
	done
	if [[ -s $TMP/cap ]]; then
		echo
		echo "The same windows by the switch's cost on CPU1: frames its NAPI kthread handled a second of its own"
		echo "CPU time (/proc/PID/schedstat), what it would switch given all of CPU1, whatever the generator could"
		echo "offer (its timer wake-ups and the wake-ups of the sinks' NAPI it does count):"
		echo
		echo "| test | target | frames per CPU1-second (median; min-max) | ns a frame (median) | fastpath's advantage, paired (min-max) |"
		echo "|---|---|---:|---:|---:|"
		for test in rate frate; do
			for t in $TARGETS; do
				line=$(awk -v t="$t" -v test="$test" '
				function med(v, n,    i, j, x) {
					for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
					return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
				}
				function k(x) { return x >= 1e6 ? sprintf("%.2fM", x / 1e6) : sprintf("%.0fk", x / 1e3) }
				$1 == t && $2 == test && $4 > 0 { n++; v[n] = $4; if (n == 1 || $4 < lo) lo = $4; if ($4 > hi) hi = $4 }
				END { if (n) { m = med(v, n); printf "%s (%s-%s) | %.0f", k(m), k(lo), k(hi), 1e9 / m } }' "$TMP/cap")
				[[ -n $line ]] && echo "| $test | $t | $line | $(ratio_cell "$test" "$t" "$TMP/cap" 4 rate) |"
			done
		done
	fi
	if [[ -s $TMP/perfsum ]]; then
		echo
		echo "Both CPUs under \`perf record -a -g\` for one more window of round 1 (shares of each CPU's samples;"
		echo "on CPU1 the SCHED_IDLE busy loop takes the rest; on CPU0 the generator is the fastpath task):"
		echo
		echo "| target | test | CPU1: the switch's NAPI kthread | CPU1: native_queued_spin_lock_slowpath | CPU1: page_pool_* | CPU1: halted | CPU0: generator | CPU0: sinks' NAPI | CPU0: idle |"
		echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
		cat "$TMP/perfsum"
	fi
	echo
	read -r q lo hi n < <(pairs rate fp linux "$TMP/best" 4 rate)
	if [[ -n ${q:-} ]]; then
		echo "Goal, 2x the Linux bridge's frames per second (known unicast, two-CPU lab): fp / linux **${q}x**"
		echo "paired over $n rounds ($lo-$hi), $([[ $METHOD == max ]] && echo "the generator unpaced" || echo "the highest passing rungs")."
	else
		echo "Goal, 2x the Linux bridge's frames per second: no paired rounds (see the log)."
	fi
	read -r q lo hi n < <(pairs rate fp linux "$TMP/cap" 4 rate)
	[[ -n ${q:-} ]] && echo "Per second of CPU1 (the switch's NAPI kthread's own time): fp / linux **${q}x** ($lo-$hi)."
} | tee "$TMP/table"
[[ -n $OUT ]] && cp "$TMP/table" "$OUT"
if [[ -n $KEEP ]]; then
	for f in rounds best cap rungs rungs.log; do [[ -f $TMP/$f ]] && cp "$TMP/$f" "$KEEP/"; done
fi
exit 0
