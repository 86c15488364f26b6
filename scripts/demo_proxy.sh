#!/usr/bin/env bash
# make demo-proxy: the Death Star. nginx (Debian's, a private config and
# prefix) serves /dock, /comms and /exhaust-port in a network namespace of
# its own; fastpath proxy stands in front with examples/deathstar.policy;
# curl reaches the first two, and every spelling of the exhaust port is
# refused, also pipelined behind an allowed request. Then the proxy's
# counters. Everything it starts (namespace, processes, files) is removed
# on exit, also on Ctrl-C.
#
#   sudo make demo-proxy        (or: sudo scripts/demo_proxy.sh)
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FASTPATH=${FASTPATH:-$REPO/build/fastpath}
POLICY=${POLICY:-$REPO/examples/deathstar.policy}
if [[ -t 1 ]]; then
	B=$'\033[1m' R=$'\033[31m' G=$'\033[32m' N=$'\033[0m'
else
	B='' R='' G='' N=''
fi
die() { echo "demo-proxy: $*" >&2; exit 1; }
(( EUID == 0 )) || die "needs root (network namespaces)"
for c in nginx curl python3; do command -v $c >/dev/null || die "needs $c (scripts/deps.sh demo)"; done
[[ -x $FASTPATH ]] || die "no $FASTPATH; run make"

ns=fpds$$
T=$(mktemp -d /tmp/fp-demo-proxy.XXXXXX)
cleanup() {
	local p
	for p in $(ip netns pids "$ns" 2>/dev/null); do kill "$p" 2>/dev/null; done
	sleep 0.3
	for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	ip netns del "$ns" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ip netns add "$ns" || die "cannot make a namespace"
ip -n "$ns" link set lo up
mkdir -p "$T/www/dock" "$T/www/comms" "$T/www/exhaust-port" "$T/nginx"
echo "docking bay 327: welcome" >"$T/www/dock/index.html"
echo "comms: all clear" >"$T/www/comms/index.html"
echo "EXHAUST PORT: one proton torpedo and it is over" >"$T/www/exhaust-port/index.html"
cat >"$T/nginx.conf" <<CONF
user root root;
pid $T/nginx.pid;
error_log $T/nginx/error.log;
worker_processes 1;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path $T/nginx/body; proxy_temp_path $T/nginx/proxy;
	fastcgi_temp_path $T/nginx/fastcgi; uwsgi_temp_path $T/nginx/uwsgi; scgi_temp_path $T/nginx/scgi;
	server { listen 127.0.0.1:8080; root $T/www; }
}
CONF
ip netns exec "$ns" nginx -p "$T/nginx" -c "$T/nginx.conf" -g 'daemon off;' &
ip netns exec "$ns" "$FASTPATH" proxy run --listen 127.0.0.1:8000 --backend 127.0.0.1:8080 \
	--policy "$POLICY" --control "$T/ctl" 2>"$T/proxy.log" &
for _ in $(seq 50); do
	ip netns exec "$ns" curl -s -o /dev/null http://127.0.0.1:8000/ && break
	sleep 0.1
done

echo "${B}The policy${N} ($POLICY):"
grep -v '^#' "$POLICY" | sed 's/^/    /'
echo
echo "${B}curl through fastpath proxy${N} (nginx behind it serves all three):"
show() { # PATH
	local out code body
	out=$(ip netns exec "$ns" curl -s --path-as-is -w '\n%{http_code}' "http://127.0.0.1:8000$1")
	code=${out##*$'\n'}; body=${out%$'\n'*}; body=${body%%$'\n'*}
	if [[ $code == 200 ]]; then
		printf '    %-34s %s%s%s  %s\n' "$1" "$G" "$code" "$N" "$body"
	else
		printf '    %-34s %s%s%s  %s\n' "$1" "$R" "$code" "$N" "$body"
	fi
}
for p in /dock/ /comms/ /exhaust-port /exhaust-port/ /dock/../exhaust-port /%65xhaust-port \
	 //exhaust-port /dock/%2e%2e/exhaust-port /exhaust%2Dport /dock%2F..%2Fexhaust-port; do
	show "$p"
done
echo
echo "${B}Pipelined on one connection${N}: GET /dock/, then GET /dock/../exhaust-port, then GET /comms/"
ip netns exec "$ns" python3 - <<'PY'
import re, socket
s = socket.create_connection(("127.0.0.1", 8000)); s.settimeout(5)
s.sendall(b"GET /dock/ HTTP/1.1\r\nHost: deathstar\r\n\r\n"
          b"GET /dock/../exhaust-port HTTP/1.1\r\nHost: deathstar\r\n\r\n"
          b"GET /comms/ HTTP/1.1\r\nHost: deathstar\r\n\r\n")
out = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    out += d
codes = re.findall(rb"HTTP/1.1 (\d{3}) ", out)
print("    answers:", " ".join(c.decode() for c in codes),
      "(the exhaust port refused, the connection closed: /comms/ after it never reached nginx)")
PY
echo
echo "${B}fastpath proxy stats${N}:"
ip netns exec "$ns" "$FASTPATH" proxy stats --control "$T/ctl" | sed 's/^/    /'
