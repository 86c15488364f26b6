#!/usr/bin/env bash
# HTTP proxies side by side (issue 20): wrk against one nginx over the
# loopback of a namespace of its own, directly and through each proxy with
# the Death Star's allow/deny ACL:
#   nginx          wrk -> nginx (no proxy: the ceiling)
#   haproxy        Debian's HAProxy, nbthread 1, `option splice-auto`, the
#                  same ACL (allow /dock*, /comms; deny /exhaust-port* 403);
#                  in practice it copies through 16 KiB buffers (its
#                  splice-auto never judged a keep-alive response worth it)
#   haproxy-splice the same with `option splice-request` and
#                  `option splice-response`: HAProxy's kernel path, forced
#   fp-splice      fastpath proxy --data-path splice
#   fp-copy        fastpath proxy --data-path copy
#   fp-sockmap     fastpath proxy --data-path sockmap
#   haproxy-busy   HAProxy's default configuration with `busy-polling`
#                  (its poller never sleeps): the equivalent of fp-busy
#   fp-busy        fastpath proxy --data-path splice --busy-poll
#                  PROXY_BUSY_US (100 by default): polls without sleeping
#                  for that long after an event, so that the load's
#                  deliveries find it running (no wakeup of an idle CPU)
#   fp-b           fastpath proxy --data-path splice from another build,
#                  FP_B_BIN (not in the default targets): an A/B of two
#                  builds, alternated round by round like every target
#   relay-splice   bench/proxy_relay --splice (build/bench/proxy_relay,
#                  RELAY_BIN): a bare TCP relay, no HTTP work at all, bytes
#                  moved both ways through 256 KiB pipes as they come: the
#                  floor by ablation, what a proxy that only moves the bytes
#                  makes (no ACL: not checked for the 403); not in the
#                  default targets
#   relay-copy     the same relay copying through a 64 KiB buffer
#
#   bench/proxy_rate.sh [-p load|server] [-r ROUNDS] [-w WINDOW_S] [-t "target ..."]
#                       [-c SMALL_CONNS] [-C BIG_CONNS] [-o OUT.md]
#
# Two responses: small (100 bytes) and large (1 MiB), each on keep-alive
# connections (wrk -t1). Every proxy runs on CPU 1 (one thread each) and
# wrk on CPU 0; where nginx runs is the placement (-p, or PROXY_PLACEMENT):
#   load    nginx on CPU 0 with wrk (the default, the earlier sessions'
#           lab): the proxy has CPU 1 to itself, and CPU 0 (load generator
#           and backend) bounds every proxy that spends less than HAProxy's
#           default, so the ratios are capped by CPU 0, not set by the proxy
#   server  nginx on CPU 1 with the proxy (a proxy in front of a local
#           backend; wrk alone is the world): the server host, proxy and
#           backend, is the bound, so a proxy's cost shows as requests/s.
#           `nginx` then is wrk on CPU 0 to nginx on CPU 1.
# A loopback send's receive work runs on the sender's CPU, so the CPU that
# sends a segment also delivers it (in `load` CPU 0 delivers nginx's bytes
# into the proxy's socket). Rounds are interleaved (every target once a
# round, the order rotated); reported per target: requests/s and p99
# latency (medians of rounds), the response bytes' rate for 1 MiB, and the
# ratio to HAProxy paired round by round (median of the rounds' ratios);
# where the CPU went: the proxy process's own CPU time per request
# (utime+stime from /proc, kernel work in its system calls included),
# nginx's (its worker's) and wrk's (each with the loopback deliveries and
# ACKs run in its system calls) and each CPU's busy share over the window
# (the CPU near 100% is the bound).
# Then the goals, fastpath's default data path (splice) against HAProxy,
# each ratio paired round by round: median (min-max) and met or not; the
# ceiling row (nginx directly against HAProxy) and, with relay-splice, the
# floor: the relay against HAProxy and fastpath against the relay. A target
# with socket errors or non-2xx answers in a round is marked. Output:
# markdown tables (stdout, and OUT.md).
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FP=${FP_BIN:-$REPO/build/fastpath}
RELAY=${RELAY_BIN:-$REPO/build/bench/proxy_relay}
ROUNDS=3 WINDOW=5 OUT= SMALL_C=32 BIG_C=8 PLACE=${PROXY_PLACEMENT:-load}
TARGETS="nginx haproxy haproxy-splice haproxy-busy fp-splice fp-busy fp-copy fp-sockmap"
BUSY_US=${PROXY_BUSY_US:-100}
while getopts "r:w:t:c:C:o:p:" c; do
	case $c in
	r) ROUNDS=$OPTARG ;; w) WINDOW=$OPTARG ;; t) TARGETS=$OPTARG ;; o) OUT=$OPTARG ;;
	c) SMALL_C=$OPTARG ;; C) BIG_C=$OPTARG ;; p) PLACE=$OPTARG ;;
	*) echo "usage: $0 [-p load|server] [-r ROUNDS] [-w WINDOW_S] [-t 'target ...'] [-c N] [-C N] [-o OUT.md]" >&2; exit 2 ;;
	esac
done
[[ $PLACE == load || $PLACE == server ]] || { echo "proxy_rate: -p $PLACE: load or server" >&2; exit 2; }
(( ROUNDS >= 1 && ROUNDS <= 20 && WINDOW >= 1 && WINDOW <= 60 && SMALL_C >= 1 && SMALL_C <= 1000 &&
   BIG_C >= 1 && BIG_C <= 1000 )) ||
	{ echo "proxy_rate: ROUNDS 1..20, WINDOW 1..60, connections 1..1000" >&2; exit 2; }
declare -A PORT=([nginx]=8080 [haproxy]=8001 [fp-splice]=8002 [fp-copy]=8003 [fp-sockmap]=8004
	[haproxy-splice]=8005 [fp-b]=8006 [haproxy-busy]=8007 [fp-busy]=8008 [relay-splice]=8009 [relay-copy]=8010)
for t in $TARGETS; do
	[[ -n ${PORT[$t]:-} ]] ||
		{ echo "proxy_rate: target '$t': nginx haproxy haproxy-splice haproxy-busy fp-splice fp-busy fp-copy fp-sockmap fp-b relay-splice relay-copy" >&2; exit 2; }
	[[ $t != fp-b || -x ${FP_B_BIN:-} ]] || { echo "proxy_rate: target fp-b: FP_B_BIN (a fastpath binary) not set" >&2; exit 2; }
	[[ $t != relay-* || -x $RELAY ]] || { echo "proxy_rate: target $t: $RELAY missing (make build/bench/proxy_relay)" >&2; exit 2; }
done
[[ $(id -u) == 0 ]] || { echo "proxy_rate: needs root (namespaces, BPF)" >&2; exit 77; }
for b in wrk nginx haproxy taskset python3; do
	command -v "$b" >/dev/null || { echo "proxy_rate: $b missing (scripts/deps.sh bench)" >&2; exit 77; }
done
[[ -x $FP ]] || { echo "proxy_rate: $FP missing; run make" >&2; exit 2; }
# load: wrk and nginx on CPU 0, the proxy on CPU 1; server: wrk on CPU 0,
# nginx and the proxy on CPU 1
CPU_PROXY=1 CPU_LOAD=0 CPU_NGINX=0
[[ $PLACE == server ]] && CPU_NGINX=1
ulimit -n 65536 2>/dev/null || true
(( $(nproc) >= 2 )) || CPU_PROXY=0 CPU_NGINX=0

NS=fpbpx$$
TMP=$(mktemp -d /tmp/fp-bench-proxy.XXXXXX)
PIDS=()
declare -A PPID_OF=()
log() { printf '[%s proxy_rate] %s\n' "$(date +%T)" "$*" >&2; }
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
	[[ -n ${PPID_OF[haproxy-busy]:-} ]] && kill -CONT "${PPID_OF[haproxy-busy]}" 2>/dev/null
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	# bg's "$@" is the function in_ns in a subshell: the servers are its
	# children, so kill what runs in the namespace, not only the subshells
	ns_kill "$NS"
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	ip netns del "$NS" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'log interrupted; exit 130' INT TERM
in_ns() { ip netns exec "$NS" "$@"; }
bg() { "$@" >>"$TMP/bg.log" 2>&1 & PIDS+=($!); }

ip netns add "$NS" || exit 1
ip -n "$NS" link set lo up
mkdir -p "$TMP/www/dock" "$TMP/www/comms" "$TMP/www/exhaust-port" "$TMP/nginx"
head -c 100 /dev/urandom >"$TMP/www/dock/small"
head -c $((1 << 20)) /dev/urandom >"$TMP/www/dock/big"
echo comms >"$TMP/www/comms/index.html"
echo "the exhaust port" >"$TMP/www/exhaust-port/index.html"
cat >"$TMP/nginx.conf" <<CONF
user root root;
pid $TMP/nginx.pid;
error_log $TMP/nginx/error.log;
worker_processes 1;
worker_rlimit_nofile 8192;
events { worker_connections 4096; }
http {
	access_log off;
	keepalive_requests 10000000;
	keepalive_timeout 120s;
	sendfile on;
	client_body_temp_path $TMP/nginx/body;
	proxy_temp_path $TMP/nginx/proxy;
	fastcgi_temp_path $TMP/nginx/fastcgi;
	uwsgi_temp_path $TMP/nginx/uwsgi;
	scgi_temp_path $TMP/nginx/scgi;
	server { listen 127.0.0.1:8080 backlog=4096; root $TMP/www; }
}
CONF
cat >"$TMP/haproxy.cfg" <<CONF
global
	nbthread 1
	maxconn 5000
defaults
	mode http
	timeout connect 5s
	timeout client 60s
	timeout server 60s
	option http-keep-alive
	option splice-auto
frontend deathstar
	bind 127.0.0.1:8001
	acl exhaust path_beg /exhaust-port
	acl public path_beg /dock
	acl public path /comms
	http-request deny deny_status 403 if exhaust
	http-request deny deny_status 403 unless public
	default_backend nginx
backend nginx
	server n1 127.0.0.1:8080
CONF
cat >"$TMP/policy" <<'POL'
default deny
allow GET,POST path /dock*
allow path /comms
deny path /exhaust-port* status 403
POL
bg in_ns taskset -c "$CPU_NGINX" nginx -p "$TMP/nginx" -c "$TMP/nginx.conf" -g 'daemon off;'
sed -e 's/:8001$/:8005/' -e 's/option splice-auto/option splice-request\n\toption splice-response/' \
	"$TMP/haproxy.cfg" >"$TMP/haproxy-splice.cfg"
bg in_ns taskset -c "$CPU_PROXY" haproxy -f "$TMP/haproxy.cfg" -db
bg in_ns taskset -c "$CPU_PROXY" haproxy -f "$TMP/haproxy-splice.cfg" -db
sed -e 's/:8001$/:8007/' -e 's/^\tmaxconn 5000$/\tmaxconn 5000\n\tbusy-polling/' \
	"$TMP/haproxy.cfg" >"$TMP/haproxy-busy.cfg"
grep -q busy-polling "$TMP/haproxy-busy.cfg" || { log "haproxy-busy.cfg: no busy-polling line"; exit 1; }
# HAProxy's busy-polling spins for ever: it is stopped (SIGSTOP) but in its own windows
[[ " $TARGETS " == *" haproxy-busy "* ]] &&
	bg in_ns taskset -c "$CPU_PROXY" haproxy -f "$TMP/haproxy-busy.cfg" -db
[[ " $TARGETS " == *" fp-busy "* ]] &&
	bg in_ns taskset -c "$CPU_PROXY" "$FP" proxy run --listen "127.0.0.1:${PORT[fp-busy]}" \
		--backend 127.0.0.1:8080 --policy "$TMP/policy" --control "$TMP/ctl-busy.sock" \
		--max-conns 4096 --data-path splice --busy-poll "$BUSY_US"
for dp in splice copy sockmap; do
	bg in_ns taskset -c "$CPU_PROXY" "$FP" proxy run --listen "127.0.0.1:${PORT[fp-$dp]}" \
		--backend 127.0.0.1:8080 --policy "$TMP/policy" --control "$TMP/ctl-$dp.sock" \
		--max-conns 4096 --data-path "$dp"
done
for m in splice copy; do
	[[ " $TARGETS " == *" relay-$m "* ]] || continue
	mode=()
	[[ $m == splice ]] && mode=(--splice)
	bg in_ns taskset -c "$CPU_PROXY" "$RELAY" "${mode[@]}" --max-conns 4096 \
		"127.0.0.1:${PORT[relay-$m]}" 127.0.0.1:8080
done
[[ " $TARGETS " == *" fp-b "* ]] &&
	bg in_ns taskset -c "$CPU_PROXY" "$FP_B_BIN" proxy run --listen "127.0.0.1:${PORT[fp-b]}" \
		--backend 127.0.0.1:8080 --policy "$TMP/policy" --control "$TMP/ctl-b.sock" \
		--max-conns 4096 --data-path splice
# every target up, and each refusing the exhaust port (the same ACL)
for t in $TARGETS; do
	ok=
	for _ in $(seq 50); do
		in_ns curl -sf -o /dev/null "http://127.0.0.1:${PORT[$t]}/dock/small" && { ok=1; break; }
		sleep 0.1
	done
	[[ -n $ok ]] || { log "$t did not start: $(tail -n 5 "$TMP/bg.log"; cat "$TMP/nginx/error.log" 2>/dev/null)"; exit 1; }
	in_ns curl -s -o "$TMP/check" "http://127.0.0.1:${PORT[$t]}/dock/big"
	cmp -s "$TMP/check" "$TMP/www/dock/big" || { log "$t: /dock/big differs from nginx's file"; exit 1; }
	st=$(in_ns curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${PORT[$t]}/exhaust-port/")
	# the relays have no ACL: they pass it on (nginx's 200)
	[[ $t == nginx || $t == relay-* || $st == 403 ]] || { log "$t: the exhaust port answered $st"; exit 1; }
done

# the process serving a target's port in the namespace (none for nginx: no proxy)
for t in $TARGETS; do
	[[ $t == nginx ]] && continue
	want="--listen 127.0.0.1:${PORT[$t]}"
	[[ $t == haproxy* ]] && want="$TMP/$t.cfg"
	[[ $t == relay-* ]] && want=" 127.0.0.1:${PORT[$t]} "
	for p in $(ip netns pids "$NS"); do
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qF -- "$want" && PPID_OF[$t]=$p
	done
	[[ -n ${PPID_OF[$t]:-} ]] || { log "$t: its process not found"; exit 1; }
done
# hold (SIGSTOP) / release (SIGCONT) a target that spins when idle (haproxy-busy)
hold() { [[ $1 == haproxy-busy && -n ${PPID_OF[$1]:-} ]] && kill "-$2" "${PPID_OF[$1]}"; return 0; }
hold haproxy-busy STOP
# cpu_ticks PID: its utime+stime; cpus: busy (not steal) and all ticks of CPU 0 and 1
cpu_ticks() { [[ -n $1 ]] && awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
# wrk's own CPU: its subshell's cutime+cstime (wrk is waited for in it); nginx's: its worker's
NGX_W=$(pgrep -P "$(cat "$TMP/nginx.pid")" | head -1)
cpus() { awk '/^cpu[01] /{printf "%d %d ", $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; }

log "placement $PLACE: wrk on CPU $CPU_LOAD, nginx on CPU $CPU_NGINX, proxies on CPU $CPU_PROXY"
log "$ROUNDS rounds of ${WINDOW} s: $TARGETS (small: $SMALL_C connections, 1 MiB: $BIG_C)"
tlist=($TARGETS)
for r in $(seq "$ROUNDS"); do
	n=${#tlist[@]}
	for i in $(seq 0 $((n - 1))); do
		t=${tlist[$(( (i + r - 1) % n ))]}
		for size in small big; do
			conns=$SMALL_C
			[[ $size == big ]] && conns=$BIG_C
			hold "$t" CONT
			pt0=$(cpu_ticks "${PPID_OF[$t]:-}") c0=$(cpus) n0=$(cpu_ticks "$NGX_W")
			wt=$( in_ns taskset -c "$CPU_LOAD" wrk -t1 -c "$conns" -d "${WINDOW}s" --latency \
				"http://127.0.0.1:${PORT[$t]}/dock/$size" >"$TMP/wrk.$r.$size.$t" 2>&1
				awk '{print $16 + $17}' /proc/$BASHPID/stat )
			echo "cpu $pt0 $(cpu_ticks "${PPID_OF[$t]:-}") $c0 $(cpus)" >>"$TMP/wrk.$r.$size.$t"
			echo "load $(( $(cpu_ticks "$NGX_W") - n0 + wt )) $(( $(cpu_ticks "$NGX_W") - n0 ))" >>"$TMP/wrk.$r.$size.$t"
			hold "$t" STOP
			log "round $r $t $size: $(grep -E 'Requests/sec' "$TMP/wrk.$r.$size.$t" | tr -s ' ')"
		done
	done
done

python3 - "$TMP" "$ROUNDS" "$TARGETS" "$SMALL_C" "$BIG_C" "$(getconf CLK_TCK)" "$BUSY_US" "$PLACE" >"$TMP/out.md" <<'PY'
import re, statistics, sys
tmp, rounds, targets, sc, bc = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4], sys.argv[5]
hz, busy_us, place = float(sys.argv[6]), sys.argv[7], sys.argv[8]
where = {"load": "placement `load`: wrk and nginx on CPU 0, the proxy alone on CPU 1",
         "server": "placement `server`: wrk alone on CPU 0, nginx and the proxy on CPU 1"}[place]
unit = {"us": 1e-3, "ms": 1.0, "s": 1e3}
def parse(path):
    """(requests/s, p99 ms, errors, proxy CPU us a request, CPU0 busy %, CPU1 busy %,
    wrk's and nginx's CPU us a request, nginx's alone)"""
    t = open(path).read()
    m = re.search(r"Requests/sec:\s*([\d.]+)", t)
    p = re.search(r"^\s*99%\s+([\d.]+)(us|ms|s)\s*$", t, re.M)
    n = re.search(r"^\s*(\d+) requests in", t, re.M)
    c = re.search(r"^cpu (.*)$", t, re.M)
    ld = re.search(r"^load (\d+) (\d+)$", t, re.M)
    bad = bool(re.search(r"Socket errors|Non-2xx", t))
    us = b0 = b1 = lus = nus = float("nan")
    if c and n and int(n.group(1)):
        v = [float(x) for x in c.group(1).split()]
        us = (v[1] - v[0]) / hz * 1e6 / int(n.group(1))
        if ld:
            lus = int(ld.group(1)) / hz * 1e6 / int(n.group(1))
            nus = int(ld.group(2)) / hz * 1e6 / int(n.group(1))
        if len(v) == 10 and v[7] > v[3] and v[9] > v[5]:
            b0 = 100 * (v[6] - v[2]) / (v[7] - v[3])
            b1 = 100 * (v[8] - v[4]) / (v[9] - v[5])
    return (float(m.group(1)) if m else 0.0, float(p.group(1)) * unit[p.group(2)] if p else float("nan"),
            bad, us, b0, b1, lus, nus)
names = {"nginx": "nginx directly", "haproxy": "HAProxy 2.6 (nbthread 1, splice-auto)",
         "haproxy-splice": "HAProxy 2.6, splice-request/response",
         "fp-splice": "fastpath proxy, splice", "fp-copy": "fastpath proxy, copy",
         "fp-sockmap": "fastpath proxy, sockmap", "fp-b": "fastpath proxy, splice (FP_B_BIN)",
         "haproxy-busy": "HAProxy 2.6, busy-polling", "fp-busy": f"fastpath proxy, splice, --busy-poll {busy_us}",
         "relay-splice": "bare relay, splice (no HTTP: the floor)", "relay-copy": "bare relay, copy (no HTTP)"}
def ratios(res, t, ref, k):
    return [x[k] / res[ref][i][k] for i, x in enumerate(res[t]) if res[ref][i][k]]
# the issue's goals: (what, response size, column: 0 requests/s or 1 p99,
# goal ratio, max if the ratio must be at least the goal, min if at most)
GOALS = (("requests/s, 100 B", "small", 0, 1.0, max), ("throughput, 1 MiB", "big", 0, 1.5, max),
         ("p99, 100 B", "small", 1, 1.0, min), ("p99, 1 MiB", "big", 1, 1.0, min))
def met(v, goal, better):
    return bool(v) and (statistics.median(v) >= goal if better is max else statistics.median(v) <= goal)
def mmm(v):
    return f"{statistics.median(v):.2f}x ({min(v):.2f}-{max(v):.2f})" if v else "-"
allres = {}
for size, title, conns in (("small", "100-byte responses", sc), ("big", "1 MiB responses", bc)):
    res = {t: [parse(f"{tmp}/wrk.{r}.{size}.{t}") for r in range(1, rounds + 1)] for t in targets}
    allres[size] = res
    print(f"\n#### {title}, {where} (wrk -t1 -c {conns}, keep-alive)\n")
    hdr = "| target | requests/s | p99 ms |"
    if size == "big":
        hdr += " Gbit/s |"
    if "haproxy" in targets:
        hdr += " req/s vs HAProxy | p99 vs HAProxy |"
    hdr += " proxy CPU us/req | nginx CPU us/req | wrk CPU us/req | CPU0 / CPU1 busy |"
    print(hdr)
    print("|" + "---|" * (hdr.count("|") - 1))
    for t in targets:
        med = lambda k: statistics.median(x[k] for x in res[t])
        rps, p99 = med(0), med(1)
        mark = " (errors)" if any(x[2] for x in res[t]) else ""
        row = f"| {names[t]}{mark} | {rps:,.0f} | {p99:.2f} |"
        if size == "big":
            row += f" {rps * (1 << 20) * 8 / 1e9:.1f} |"
        if "haproxy" in targets:
            row += f" {statistics.median(ratios(res, t, 'haproxy', 0)):.2f}x |"
            row += f" {statistics.median(ratios(res, t, 'haproxy', 1)):.2f}x |"
        cpu = "-" if t == "nginx" else f"{med(3):,.1f}"
        wrk = statistics.median(x[6] - x[7] for x in res[t])
        row += f" {cpu} | {med(7):,.0f} | {wrk:,.0f} | {med(4):.0f}% / {med(5):.0f}% |"
        print(row)
    per = " ".join(f"{t}:" + "/".join(f"{x[0]:.0f}" for x in res[t]) for t in targets)
    print(f"\nRequests/s by round: {per}")
fp = "fp-splice"
if fp in targets and "haproxy" in targets:
    s, b = allres["small"], allres["big"]
    print(f"\n#### Goals, {where}: fastpath proxy (splice, the default) against HAProxy, paired round by round\n")
    print("| goal | vs HAProxy (splice-auto): median (min-max) | met | vs HAProxy, splice forced |")
    print("|---|---|---|---|")
    for what, size, k, goal, better in GOALS:
        v = ratios(allres[size], fp, "haproxy", k)
        ok = met(v, goal, better)
        alt = mmm(ratios(allres[size], fp, "haproxy-splice", k)) if "haproxy-splice" in targets else "-"
        sign = ">=" if better is max else "<="
        print(f"| {what} {sign} {goal:.1f}x | {mmm(v)} | {'**met**' if ok else '**not met**'} | {alt} |")
    if "nginx" in targets:
        print("\nCeiling check (no proxy at all): nginx directly against HAProxy, paired: "
              f"100 B {mmm(ratios(s, 'nginx', 'haproxy', 0))}, 1 MiB {mmm(ratios(b, 'nginx', 'haproxy', 0))}; "
              f"fastpath splice against nginx directly: 100 B {mmm(ratios(s, fp, 'nginx', 0))}, "
              f"1 MiB {mmm(ratios(b, fp, 'nginx', 0))}.")
if "relay-splice" in targets and "haproxy" in targets:
    s, b = allres["small"], allres["big"]
    print("\nThe floor (a bare relay: no HTTP work, bytes moved as they come; what a proxy that only "
          f"moves the bytes makes in this {place} placement): relay splice against HAProxy, paired: 100 B {mmm(ratios(s, 'relay-splice', 'haproxy', 0))}, "
          f"1 MiB {mmm(ratios(b, 'relay-splice', 'haproxy', 0))}; p99 100 B {mmm(ratios(s, 'relay-splice', 'haproxy', 1))}, "
          f"1 MiB {mmm(ratios(b, 'relay-splice', 'haproxy', 1))}.")
    if fp in targets:
        print(f"fastpath splice against the relay splice, paired: 100 B {mmm(ratios(s, fp, 'relay-splice', 0))}, "
              f"1 MiB {mmm(ratios(b, fp, 'relay-splice', 0))}; the proxy's CPU a request 100 B "
              f"{mmm(ratios(s, fp, 'relay-splice', 3))}, 1 MiB {mmm(ratios(b, fp, 'relay-splice', 3))}.")
    if "relay-copy" in targets and "fp-copy" in targets:
        print(f"fastpath copy against the relay copy, paired: 100 B {mmm(ratios(s, 'fp-copy', 'relay-copy', 0))}, "
              f"1 MiB {mmm(ratios(b, 'fp-copy', 'relay-copy', 0))}.")
if "fp-busy" in targets and "haproxy" in targets:
    print(f"\n#### Busy polling (opt-in): fastpath --busy-poll {busy_us} against HAProxy, paired round by round\n")
    print("The goals are judged on the table above (both proxies as configured by default); here "
          "fastpath's `--busy-poll` against HAProxy's default and against HAProxy's `busy-polling`, "
          "its equivalent.\n")
    hb = "haproxy-busy" in targets
    print("| goal | vs HAProxy (splice-auto) | met | vs HAProxy busy-polling | met |")
    print("|---|---|---|---|---|")
    for what, size, k, goal, better in GOALS:
        cells = []
        for ref in ("haproxy", "haproxy-busy"):
            v = ratios(allres[size], "fp-busy", ref, k) if ref in targets else []
            ok = met(v, goal, better)
            cells += [mmm(v), ("**met**" if ok else "**not met**") if v else "-"]
        sign = ">=" if better is max else "<="
        print(f"| {what} {sign} {goal:.1f}x | " + " | ".join(cells) + " |")
if "fp-b" in targets and fp in targets:
    s, b = allres["small"], allres["big"]
    print("\nA/B, FP_B_BIN's build against this one (fp-b / fp-splice), paired round by round: "
          f"requests/s 100 B {mmm(ratios(s, 'fp-b', fp, 0))}, 1 MiB {mmm(ratios(b, 'fp-b', fp, 0))}; "
          f"the load's CPU a request 100 B {mmm(ratios(s, 'fp-b', fp, 6))}, 1 MiB {mmm(ratios(b, 'fp-b', fp, 6))}; "
          f"the proxy's CPU a request 100 B {mmm(ratios(s, 'fp-b', fp, 3))}, 1 MiB {mmm(ratios(b, 'fp-b', fp, 3))}.")
PY
cat "$TMP/out.md"
[[ -n $OUT ]] && cp "$TMP/out.md" "$OUT"
exit 0
