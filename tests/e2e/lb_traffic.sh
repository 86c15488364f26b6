#!/usr/bin/env bash
# The lb end to end, as the issue draws it: a client, the lb host and three
# backends on one L2 segment (a Linux bridge in a switch namespace), each
# backend an nginx with the VIP on lo and `fastpath decap` on its port,
# answering clients directly (direct server return).
#  - 3,000 TCP connections to a v4 VIP spread within 10% of even, and
#    6,000 within 10% of the weights (1:2:3) after a change;
#  - a backend taken `down` while 30 slow downloads run breaks none of the
#    other two's (its own move, and break); `drain` breaks none at all, and
#    the drained backend gets no new connection;
#  - the same spread, down and drain for a v6 VIP (3,000);
#  - a SYN with TTL / hop limit 1 answered with time exceeded (connect
#    fails at once), with 2 connected;
#  - the filter in front of the lb drops a UDP flood aimed at the VIP while
#    clients' connections succeed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require nginx curl python3
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

sw=$(e2e_name sw); cl=$(e2e_name cl); lb=$(e2e_name lb)
b=("$(e2e_name b1)" "$(e2e_name b2)" "$(e2e_name b3)")
for n in "$sw" "$cl" "$lb" "${b[@]}"; do e2e_netns_add "$n"; done
ip -n "$sw" link add br0 type bridge
ip -n "$sw" link set br0 up

# port HOSTNS IFACE ADDR PEER: a veth from HOSTNS into the switch's bridge
port() {
	e2e_veth "$1" "$2" "$sw" "$4" "$3" ""
	ip -n "$sw" link set "$4" master br0
}
vc=$(e2e_name vc); vl=$(e2e_name vl); pl=$(e2e_name pl)
port "$cl" "$vc" 10.7.0.1 "$(e2e_name pc)"
port "$lb" "$vl" 10.7.0.2 "$pl"
for i in 0 1 2; do port "${b[i]}" "$(e2e_name v$((i + 1)))" "10.7.0.1$((i + 1))" "$(e2e_name p$((i + 1)))"; done
# The lb never touches the inner L4 checksum, and a veth leaves it partial
# (CHECKSUM_PARTIAL) for the receiver to complete: once encapsulated and
# decapsulated by XDP, no one would. The senders complete it themselves.
ip netns exec "$cl" ethtool -K "$vc" tx off >/dev/null
for i in 0 1 2; do ip netns exec "${b[i]}" ethtool -K "$(e2e_name v$((i + 1)))" tx off >/dev/null; done

VIP=198.51.100.10 VIP6=2001:db8:100::10
C6=$(e2e_v6_of 10.7.0.1) L6=$(e2e_v6_of 10.7.0.2)
ip -n "$cl" route add "$VIP/32" via 10.7.0.2
ip -n "$cl" -6 route add "$VIP6/128" via "$L6"
for n in "$cl" "$lb" "${b[@]}"; do ip netns exec "$n" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0; done
ip netns exec "$lb" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1

# The lb answers into a bridge port with XDP_TX: the port (the lb's veth
# peer) must run XDP of its own for those frames to be taken (DESIGN.md);
# an empty pipeline passes everything.
ip netns exec "$sw" "$FASTPATH" pipeline load "$pl" >/dev/null || e2e_fail "pipeline on the switch port"

# Backends: the VIP on lo, decap on the port, nginx answering its name.
printf '%.0s0123456789abcdef' $(seq 65536) >"$E2E_TMP/big" # 1 MiB
for i in 0 1 2; do
	n=${b[i]} d=$E2E_TMP/b$((i + 1)) v=$(e2e_name v$((i + 1)))
	mkdir -p "$d/tmp"
	ip -n "$n" addr add "$VIP/32" dev lo
	ip -n "$n" addr add "$VIP6/128" dev lo
	ip netns exec "$n" sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2
	ip netns exec "$n" "$FASTPATH" decap load "$v" >/dev/null || e2e_fail "decap load on backend $((i + 1))"
	cat >"$d/nginx.conf" <<EOF
daemon off; master_process off; worker_processes 1;
pid $d/nginx.pid; error_log $d/error.log warn;
events { worker_connections 1024; }
http {
  access_log off; keepalive_timeout 0;
  client_body_temp_path $d/tmp; proxy_temp_path $d/tmp; fastcgi_temp_path $d/tmp;
  uwsgi_temp_path $d/tmp; scgi_temp_path $d/tmp;
  server {
    listen 80; listen [::]:80;
    location = / { return 200 "b$((i + 1))\n"; }
    location = /big { alias $E2E_TMP/big; add_header X-Backend b$((i + 1)); }
  }
}
EOF
	e2e_bg ip netns exec "$n" nginx -p "$d" -c "$d/nginx.conf" -e "$d/error.log" >"$d/out" 2>&1
done
for i in 0 1 2; do
	e2e_wait_for "ip netns exec ${b[i]} curl -sf http://127.0.0.1/" 10 || e2e_fail "nginx on backend $((i + 1)) did not start"
done

lbcmd() { ip netns exec "$lb" "$FASTPATH" "$@"; }
# diag: the lb's and the backends' counters, for a failure's log
diag() {
	lbcmd lb stats "$vl" >&2 || true
	for i in 0 1 2; do ip netns exec "${b[i]}" "$FASTPATH" decap stats "$(e2e_name v$((i + 1)))" >&2 || true; done
}
lbcmd lb load "$vl" >/dev/null || e2e_fail "lb load"
lbcmd lb vip add "$vl" "$VIP:80/tcp" >/dev/null || e2e_fail "vip add"
lbcmd lb vip add "$vl" "[$VIP6]:80/tcp" >/dev/null || e2e_fail "vip add v6"
for i in 1 2 3; do
	lbcmd lb backend add "$vl" "$VIP:80/tcp" "10.7.0.1$i" >/dev/null || e2e_fail "backend add $i"
	lbcmd lb backend add "$vl" "[$VIP6]:80/tcp" "$(e2e_v6_of "10.7.0.1$i")" >/dev/null || e2e_fail "backend add v6 $i"
done

# spread N URL: N connections (Connection: close, sequential) from the
# client; prints "b1 b2 b3" counts; fails on any failed connection
spread() {
	local n=$1 url=$2
	ip netns exec "$cl" curl -sS --fail -H 'Connection: close' --max-time 60 "$url/?[1-$n]" \
		>"$E2E_TMP/spread" 2>"$E2E_TMP/spread.err" ||
		{ cat "$E2E_TMP/spread.err" >&2; return 1; }
	echo "$(grep -cx b1 "$E2E_TMP/spread") $(grep -cx b2 "$E2E_TMP/spread") $(grep -cx b3 "$E2E_TMP/spread")"
}
# within COUNTS WANT...: each count within 10% of its expected share
within() {
	python3 - "$@" <<'EOF'
import sys
got = [int(x) for x in sys.argv[1].split()]
want = [float(x) for x in sys.argv[2:]]
ok = sum(got) == sum(want) and all(abs(g - w) <= 0.1 * w for g, w in zip(got, want))
sys.exit(0 if ok else 1)
EOF
}

e2e_wait_for "ip netns exec $cl curl -sf --max-time 2 http://$VIP/" 10 || { diag; e2e_fail "the VIP does not answer"; }
got=$(spread 3000 "http://$VIP") || e2e_fail "3000 connections to the v4 VIP: some failed"
e2e_log "v4 VIP, 3000 connections: $got"
within "$got" 1000 1000 1000 || e2e_fail "v4 spread $got is not within 10% of even"

got=$(spread 3000 "http://[$VIP6]") || e2e_fail "connections to the v6 VIP: some failed"
e2e_log "v6 VIP, 3000 connections: $got"
within "$got" 1000 1000 1000 || e2e_fail "v6 spread $got is not within 10% of even"

# slow N URL: N parallel downloads of /big (1 MiB) from the client, each
# read at 256 KiB/s (~4 s) through a 16 KiB receive buffer, so the data
# stays at the backend and the client's ACKs go through the lb until the
# end: a backend change meets every download in flight. (curl's
# --limit-rate, used before, lets the first MiB through at full speed on
# Debian's curl 7.88: the downloads were over before the change, and the
# check could not fail.) Each leaves "BACKEND SIZE RC" in $E2E_TMP/slow.N
# (RC 0: the whole body; else the errno that ended it).
cat >"$E2E_TMP/slowget.py" <<'EOF'
import socket, sys, threading, time
url, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
host = url.split('//')[1].rstrip('/')
fam = socket.AF_INET6 if host.startswith('[') else socket.AF_INET
host = host.strip('[]')
RATE = 256 * 1024
def one(i):
    be, size, rc = 'none', 0, 0
    s = socket.socket(fam, socket.SOCK_STREAM)
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
        s.settimeout(10)
        s.connect((host, 80))
        s.sendall(b'GET /big HTTP/1.1\r\nHost: lb\r\nConnection: close\r\n\r\n')
        head, t0, got = b'', time.monotonic(), 0
        while True:
            c = s.recv(4096)
            if not c:
                break
            got += len(c)
            if size == 0 and b'\r\n\r\n' not in head:
                head += c
                if b'\r\n\r\n' in head:
                    h, body = head.split(b'\r\n\r\n', 1)
                    for l in h.split(b'\r\n'):
                        if l.lower().startswith(b'x-backend:'):
                            be = l.split(b':', 1)[1].strip().decode()
                    size = len(body)
            elif b'\r\n\r\n' in head:
                size += len(c)
            d = got / RATE - (time.monotonic() - t0)
            if d > 0:
                time.sleep(d)
    except OSError as e:
        rc = e.errno or 1
    finally:
        s.close()
    with open('%s.%d' % (out, i), 'w') as f:
        f.write('%s %d %d\n' % (be, size, rc))
ts = [threading.Thread(target=one, args=(i,)) for i in range(n)]
for t in ts:
    t.start()
for t in ts:
    t.join()
EOF
slow() {
	rm -f "$E2E_TMP"/slow.*
	ip netns exec "$cl" python3 "$E2E_TMP/slowget.py" "$2" "$1" "$E2E_TMP/slow" &
	SLOW_PID=$!
}
# slow_wait: the downloads of the last `slow` ended (a bare `wait` would
# also wait for the nginx servers, which never end)
slow_wait() { wait "$SLOW_PID"; }
# slow_check SKIP: every download of a backend other than SKIP completed
# whole (and there was at least one)
slow_check() {
	local skip=$1 f be size rc bad=0 seen=0
	for f in "$E2E_TMP"/slow.[0-9]*; do
		read -r be size rc <"$f"
		[[ $be == "$skip" ]] && continue
		seen=$((seen + 1))
		if [[ $rc != 0 || $size != 1048576 ]]; then
			e2e_log "download on $be: error $rc, $size bytes"; bad=$((bad + 1))
		fi
	done
	(( seen > 0 && bad == 0 ))
}
# slow_on BE: downloads that were on BE; slow_broken BE: of them, the ones
# that did not complete (the connection reset: its flow moved)
slow_on() { cat "$E2E_TMP"/slow.[0-9]* | grep -c "^$1 " || true; }
slow_broken() { cat "$E2E_TMP"/slow.[0-9]* | grep "^$1 " | grep -vc " 1048576 0$" || true; }

# changes FAMILY URL VIP B3: b3 taken down, then drained, under 30
# downloads each; FAMILY names the case in messages
changes() {
	local fam=$1 url=$2 vip=$3 b3=$4 got n
	slow 30 "$url"; sleep 1
	lbcmd lb backend down "$vl" "$vip" "$b3" >/dev/null || e2e_fail "$fam: backend down"
	slow_wait
	slow_check b3 || e2e_fail "$fam: taking b3 down broke connections of b1 or b2"
	n=$(slow_on b3)
	(( n > 0 )) || e2e_fail "$fam: no download was on b3 when it went down"
	[[ $(slow_broken b3) == "$n" ]] ||
		e2e_fail "$fam: $(slow_broken b3) of b3's $n downloads broke when it went down: its flows should move (and the downloads be in flight)"
	got=$(spread 300 "$url") || e2e_fail "$fam: connections after b3 went down failed"
	[[ ${got##* } == 0 ]] || e2e_fail "$fam: b3 is down but got new connections: $got"
	e2e_log "$fam: b3 down under 30 downloads: b1 and b2's all whole, b3's $n moved; then $got"
	lbcmd lb backend up "$vl" "$vip" "$b3" >/dev/null || e2e_fail "$fam: backend up"

	slow 30 "$url"; sleep 1
	lbcmd lb backend drain "$vl" "$vip" "$b3" >/dev/null || e2e_fail "$fam: backend drain"
	got=$(spread 300 "$url") || e2e_fail "$fam: connections while b3 drains failed"
	slow_wait
	slow_check none || e2e_fail "$fam: draining b3 broke connections"
	n=$(slow_on b3)
	(( n > 0 )) || e2e_fail "$fam: no download was on b3 when it was drained"
	[[ ${got##* } == 0 ]] || e2e_fail "$fam: b3 drains but got new connections: $got"
	e2e_log "$fam: b3 drained under 30 downloads: all whole ($n on b3); then $got"
	lbcmd lb backend up "$vl" "$vip" "$b3" >/dev/null || e2e_fail "$fam: backend up after drain"
}
changes v4 "http://$VIP" "$VIP:80/tcp" 10.7.0.13
changes v6 "http://[$VIP6]" "[$VIP6]:80/tcp" "$(e2e_v6_of 10.7.0.13)"

# A router's answer: a SYN that reaches the lb with TTL (hop limit) 1, as
# traceroute's probe does, comes back as ICMP time exceeded, which fails
# the client's connect with EHOSTUNREACH at once (dropped unanswered, it
# would time out); with 2 it reaches a backend and connects.
ttl_connect() {
	ip netns exec "$cl" python3 - "$@" <<'EOF2'
import errno, socket, sys
addr, hops = sys.argv[1], int(sys.argv[2])
fam = socket.AF_INET6 if ':' in addr else socket.AF_INET
s = socket.socket(fam, socket.SOCK_STREAM)
if fam == socket.AF_INET:
    s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, hops)
else:
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, hops)
s.settimeout(5)
try:
    s.connect((addr, 80))
    print("connected")
except socket.timeout:
    print("timeout")
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))
EOF2
}
for vip in "$VIP" "$VIP6"; do
	got=$(ttl_connect "$vip" 1)
	[[ $got == EHOSTUNREACH ]] || { diag; e2e_fail "a SYN to $vip with TTL 1: $got, not EHOSTUNREACH (time exceeded)"; }
	got=$(ttl_connect "$vip" 2)
	[[ $got == connected ]] || e2e_fail "a SYN to $vip with TTL 2: $got, not connected"
done
e2e_log "TTL 1 to each VIP answered with time exceeded; TTL 2 connects"

# Weights 1:2:3 (backend add of an existing backend changes its weight is
# not assumed: del and add)
for i in 1 2 3; do
	lbcmd lb backend del "$vl" "$VIP:80/tcp" "10.7.0.1$i" >/dev/null
	lbcmd lb backend add "$vl" "$VIP:80/tcp" "10.7.0.1$i" --weight "$i" >/dev/null || e2e_fail "weight $i"
done
# 6000: the lightest share's 10% is then 3.5 standard deviations of chance
got=$(spread 6000 "http://$VIP") || e2e_fail "6000 weighted connections: some failed"
e2e_log "weights 1:2:3, 6000 connections: $got"
within "$got" 1000 2000 3000 || e2e_fail "weighted spread $got is not within 10% of 1:2:3"

# The filter in front: a UDP flood to the VIP dropped, clients served.
lbcmd filter load "$vl" >/dev/null || e2e_fail "filter load in front of the lb"
lbcmd filter add "$vl" "drop udp dst $VIP id flood" >/dev/null || e2e_fail "filter add"
LMAC=$(e2e_mac "$lb" "$vl")
ip netns exec "$cl" "$FASTPATH" gen "$vc" --dst-mac "$LMAC" --src 10.7.0.1 --dst "$VIP" --udp 80 \
	--rand-sport --count 20000 --pps 20000 >/dev/null &
flood=$!
got=$(spread 300 "http://$VIP") || e2e_fail "connections during the flood failed"
wait "$flood" || true
lbcmd -j filter stats "$vl" --interval 0 >"$E2E_TMP/fstats" || e2e_fail "filter stats"
dropped=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(r["packets"] for r in d["rules"] if r["id"]=="flood"))' "$E2E_TMP/fstats")
(( dropped >= 19000 )) || e2e_fail "the filter dropped $dropped of 20000 flood packets"
e2e_log "flood: $dropped dropped by the filter; clients: $got"

lbcmd lb unload "$vl" >/dev/null || e2e_fail "lb unload"
e2e_pass
