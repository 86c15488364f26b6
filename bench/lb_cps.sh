#!/usr/bin/env bash
# TCP connections per second end to end through a layer-4 load balancer:
# fastpath lb (IPIP to the backends, `fastpath decap` on them, direct server
# return) against an nftables balancer (DNAT with a jhash over the source
# address and port in the prerouting hook, conntrack; the answers come back
# through it to be un-NATed), over the same three nginx backends.
#
#   bench/lb_cps.sh [-r ROUNDS] [-w WINDOW_S] [-c CONNS] [-t "lb nft"] [-o OUT.md]
#
# The topology of tests/e2e/lb_traffic.sh: a client, the lb host and three
# backends on one L2 segment (a Linux bridge in a switch namespace); each
# backend an nginx (one worker, keepalive_timeout 0: every request is a
# connection) with the VIP on lo and `fastpath decap` on its port (loaded in
# both targets' rounds, so both pay its ~3 ns on a packet that is not
# IP in IP). In the nft rounds the backends route the client through the lb
# host. The client is wrk (one thread, CONNS connections, `Connection:
# close`: a new TCP connection per request), WINDOW seconds per target and
# round, the targets' order alternating by round. Reported: requests (=
# connections) per second, median of rounds, and lb / nft paired by round.
# Everything (client, lb host, backends) shares the machine's CPUs with
# whatever else runs: read the ratio, not the rates.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FP=${FP_BIN:-$REPO/build/fastpath}
ROUNDS=4 WINDOW=5 CONNS=32 OUT= TARGETS="lb nft"
while getopts "r:w:c:t:o:" c; do
	case $c in
	r) ROUNDS=$OPTARG ;; w) WINDOW=$OPTARG ;; c) CONNS=$OPTARG ;; t) TARGETS=$OPTARG ;; o) OUT=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-w WINDOW_S] [-c CONNS] [-t 'lb nft'] [-o OUT.md]" >&2; exit 2 ;;
	esac
done
[[ $ROUNDS =~ ^[0-9]+$ && $WINDOW =~ ^[0-9]+$ && $CONNS =~ ^[0-9]+$ ]] &&
	(( ROUNDS >= 1 && ROUNDS <= 20 && WINDOW >= 1 && WINDOW <= 60 && CONNS >= 1 && CONNS <= 1000 )) ||
	{ echo "lb_cps: ROUNDS 1..20, WINDOW 1..60, CONNS 1..1000" >&2; exit 2; }
for t in $TARGETS; do
	case $t in lb|nft) ;; *) echo "lb_cps: target '$t': give lb or nft" >&2; exit 2 ;; esac
done
[[ $(id -u) == 0 ]] || { echo "lb_cps: needs root" >&2; exit 77; }
for c in ip ethtool nft nginx wrk curl "$FP"; do
	command -v "$c" >/dev/null || { echo "lb_cps: needs $c (make; scripts/deps.sh bench)" >&2; exit 77; }
done

P=lc$(( $$ % 10000 ))
SW=${P}sw CL=${P}cl LB=${P}lb B=("${P}b1" "${P}b2" "${P}b3")
VC=${P}vc VL=${P}vl PL=${P}pl
VIP=198.51.100.10 PORT=80
TMP=$(mktemp -d /tmp/fp-bench-lbcps.XXXXXX)
NGINX_PIDS=()
log() { printf '[%s lb_cps] %s\n' "$(date +%T)" "$*" >&2; }

# ns_kill NS: ends every process in NS (TERM, then KILL after 2 s).
ns_kill() {
	local pids i
	pids=$(ip netns pids "$1" 2>/dev/null) || return 0
	[[ -n $pids ]] || return 0
	kill $pids 2>/dev/null
	for i in $(seq 20); do [[ -z $(ip netns pids "$1" 2>/dev/null) ]] && return 0; sleep 0.1; done
	kill -9 $(ip netns pids "$1" 2>/dev/null) 2>/dev/null
}
cleanup() {
	set +e
	for p in "${NGINX_PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	# nsx is a function, so a backgrounded nsx is a subshell whose child is
	# nginx: end what runs in each namespace before deleting it
	for n in "$CL" "$LB" "${B[@]}" "$SW"; do ns_kill "$n"; ip netns del "$n" 2>/dev/null; done
	mountpoint -q "$TMP/bpffs" && umount "$TMP/bpffs"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'log interrupted; exit 130' INT TERM

cp "$FP" "$TMP/fastpath" || exit 1
FP=$TMP/fastpath
mkdir -p "$TMP/bpffs" && mount -t bpf bpf "$TMP/bpffs" || exit 1
nsx() { local n=$1; shift; ip netns exec "$n" "$@"; }
fp() { local n=$1; shift; nsx "$n" "$FP" --bpffs "$TMP/bpffs/$n" "$@"; }

for n in "$SW" "$CL" "$LB" "${B[@]}"; do
	ip netns add "$n" && ip -n "$n" link set lo up || exit 1
	mkdir -p "$TMP/bpffs/$n"
done
ip -n "$SW" link add br0 type bridge && ip -n "$SW" link set br0 up || exit 1
# port NS IFACE ADDR PEER: a veth from NS into the bridge
port() {
	ip link add "$2" netns "$1" type veth peer name "$4" netns "$SW" || return 1
	ip -n "$1" link set "$2" up && ip -n "$SW" link set "$4" up &&
	ip -n "$SW" link set "$4" master br0 && ip -n "$1" addr add "$3/24" dev "$2" || return 1
	nsx "$1" ethtool -K "$2" gro on >/dev/null; nsx "$SW" ethtool -K "$4" gro on >/dev/null
	nsx "$1" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
		net.ipv6.conf.all.disable_ipv6=1
}
port "$CL" "$VC" 10.7.0.1 "${P}pc" && port "$LB" "$VL" 10.7.0.2 "$PL" || exit 1
for i in 0 1 2; do port "${B[i]}" "${P}v$((i + 1))" "10.7.0.1$((i + 1))" "${P}p$((i + 1))" || exit 1; done
# The lb never touches the inner L4 checksum, and a veth leaves it partial
# for the receiver to complete: the senders complete it (both targets).
nsx "$CL" ethtool -K "$VC" tx off >/dev/null
for i in 0 1 2; do nsx "${B[i]}" ethtool -K "${P}v$((i + 1))" tx off >/dev/null; done
ip -n "$CL" route add "$VIP/32" via 10.7.0.2
nsx "$CL" sysctl -qw net.ipv4.ip_local_port_range="1024 65535" net.ipv4.tcp_tw_reuse=1
nsx "$LB" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.send_redirects=0 \
	"net.ipv4.conf.$VL.send_redirects=0"
# the lb's XDP_TX frames into the bridge port need XDP on that port
fp "$SW" pipeline load "$PL" >/dev/null || { log "pipeline on the switch port failed"; exit 1; }

for i in 0 1 2; do
	n=${B[i]} d=$TMP/b$((i + 1))
	mkdir -p "$d/tmp"
	ip -n "$n" addr add "$VIP/32" dev lo
	nsx "$n" sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2 \
		net.ipv4.tcp_tw_reuse=1
	fp "$n" decap load "${P}v$((i + 1))" >/dev/null || { log "decap load on backend $((i + 1)) failed"; exit 1; }
	cat >"$d/nginx.conf" <<-EOF
	daemon off; master_process off; worker_processes 1;
	pid $d/nginx.pid; error_log $d/error.log warn;
	events { worker_connections 4096; }
	http {
	  access_log off; keepalive_timeout 0;
	  client_body_temp_path $d/tmp; proxy_temp_path $d/tmp; fastcgi_temp_path $d/tmp;
	  uwsgi_temp_path $d/tmp; scgi_temp_path $d/tmp;
	  server { listen $PORT backlog=4096; location = / { return 200 "b$((i + 1))\n"; } }
	}
	EOF
	nsx "$n" nginx -p "$d" -c "$d/nginx.conf" -e "$d/error.log" >"$d/out" 2>&1 &
	NGINX_PIDS+=($!)
done
for i in 0 1 2; do
	for _ in $(seq 50); do nsx "${B[i]}" curl -sf -o /dev/null "http://127.0.0.1/" && break; sleep 0.2; done
	nsx "${B[i]}" curl -sf -o /dev/null "http://127.0.0.1/" ||
		{ log "nginx on backend $((i + 1)) did not start: $(tail -n 3 "$TMP/b$((i + 1))/error.log" "$TMP/b$((i + 1))/out" 2>&1)"; exit 1; }
done

setup() {
	case $1 in
	lb)
		fp "$LB" lb load "$VL" >/dev/null && fp "$LB" lb vip add "$VL" "$VIP:$PORT/tcp" >/dev/null || return 1
		for i in 1 2 3; do fp "$LB" lb backend add "$VL" "$VIP:$PORT/tcp" "10.7.0.1$i" >/dev/null || return 1; done ;;
	nft)
		for i in 0 1 2; do ip -n "${B[i]}" route replace 10.7.0.1/32 via 10.7.0.2 || return 1; done
		nsx "$LB" nft -f - <<-EOF
		table ip fplb {
		  chain pre {
		    type nat hook prerouting priority dstnat; policy accept;
		    ip daddr $VIP tcp dport $PORT dnat to jhash ip saddr . tcp sport mod 3 map { 0 : 10.7.0.11, 1 : 10.7.0.12, 2 : 10.7.0.13 }
		  }
		}
		EOF
		;;
	esac
}
teardown() {
	case $1 in
	lb) fp "$LB" lb unload "$VL" >/dev/null 2>&1; rm -rf "${TMP:?}/bpffs/$LB/$VL"
	    ip -n "$LB" link set "$VL" xdp off 2>/dev/null ;;
	nft) nsx "$LB" nft delete table ip fplb 2>/dev/null; nsx "$LB" conntrack -F >/dev/null 2>&1
	     for i in 0 1 2; do ip -n "${B[i]}" route del 10.7.0.1/32 2>/dev/null; done ;;
	esac
	return 0
}

# wrk's requests per second and its errors: "RPS ERRORS" (errors: socket
# errors plus non-2xx answers)
run_wrk() {
	nsx "$CL" wrk -t1 -c"$CONNS" -d"$1"s -H 'Connection: close' "http://$VIP/" >"$TMP/wrk.out" 2>&1
	awk '/^Requests\/sec:/ { r = $2 }
	     /Socket errors:/ { gsub(",", ""); e += $4 + $6 + $8 + $10 }
	     /Non-2xx/ { e += $NF }
	     END { printf "%.0f %d\n", r, e }' "$TMP/wrk.out"
}

read -ra TLIST <<<"$TARGETS"
for (( round = 1; round <= ROUNDS; round++ )); do
	for (( k = 0; k < ${#TLIST[@]}; k++ )); do
		t=${TLIST[$(( (k + round - 1) % ${#TLIST[@]} ))]}
		teardown "$t"
		if ! setup "$t" 2>"$TMP/setup.err"; then
			log "$t: setup failed: $(tail -n 3 "$TMP/setup.err" | tr '\n' ' ')"; teardown "$t"; continue
		fi
		if ! nsx "$CL" curl -sf --max-time 2 -o /dev/null "http://$VIP/"; then
			log "$t: the VIP does not answer"; teardown "$t"; continue
		fi
		run_wrk 1 >/dev/null # warm
		read -r rps err < <(run_wrk "$WINDOW")
		echo "$t $round $rps $err" >>"$TMP/rounds"
		log "round $round $t: $rps connections/s, $err errors (load $(cut -d' ' -f1 /proc/loadavg))"
		teardown "$t"
	done
done
[[ -s $TMP/rounds ]] || { log "no round measured"; exit 1; }

{
	echo "| target | TCP connections/s (median of rounds; min-max) | errors | lb / nft, paired by round (min-max) |"
	echo "|---|---:|---:|---:|"
	for t in $TARGETS; do
		awk -v t="$t" '
		function med(v, n,    i, j, x) {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
			return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		}
		{ r[$1, $2] = $3 }
		$1 == t { n++; v[n] = $3; e += $4; if (n == 1 || $3 < lo) lo = $3; if ($3 > hi) hi = $3 }
		END {
			if (!n) exit
			pair = "-"
			if (t == "lb") {
				for (k = 1; k <= 99; k++) if ((("lb", k) in r) && (("nft", k) in r) && r["nft", k] > 0) {
					m++; q[m] = r["lb", k] / r["nft", k]; if (m == 1 || q[m] < qlo) qlo = q[m]; if (q[m] > qhi) qhi = q[m] }
				if (m) pair = sprintf("**%.2fx** (%.2f-%.2f)", med(q, m), qlo, qhi)
			}
			printf "| %s | %.0f (%.0f-%.0f) | %d | %s |\n", t == "lb" ? "fastpath lb" : "nft DNAT jhash", med(v, n), lo, hi, e, pair
		}' "$TMP/rounds"
	done
} | tee "$TMP/table"
[[ -n $OUT ]] && cp "$TMP/table" "$OUT"
exit 0
