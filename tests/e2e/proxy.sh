#!/usr/bin/env bash
# fastpath proxy run, end to end in a namespace of its own: nginx (Debian's,
# a private config and prefix on the namespace's loopback) behind the proxy
# with the Death Star's policy; curl as the client.
#  - allowed paths answer the bytes a direct fetch gives (a 10 MiB response;
#    10 MiB request bodies PUT with Content-Length and chunked, read back
#    from nginx directly and compared);
#  - /exhaust-port is 403 alone, in every encoded form, and pipelined behind
#    an allowed request on one connection (the allowed one answered first);
#  - bad inputs get their statuses (400 smuggling, 414, 431, 505, 408, 503);
#  - the counters show the body bytes went through the kernel (spliced) and
#    not through the proxy's memory (copied stays small);
#  - a reload under load (curl, then wrk's keep-alive connections) loses no
#    request, and a bad policy keeps the old one.
# First, for each data path (--data-path splice, copy, sockmap): the bytes
# identical (10 MiB GET, 10 MiB PUTs with Content-Length and chunked,
# keep-alive), the pipelined deny, and the counters showing which path moved
# the bytes; then the rest on the default path.
. "$(dirname "$0")/lib.sh"
e2e_require nginx curl python3 wrk

ns=$(e2e_name p)
e2e_netns_add "$ns"
ip -n "$ns" link set lo up
T=$E2E_TMP
mkdir -p "$T/www/dock" "$T/www/comms" "$T/www/exhaust-port" "$T/www/put" "$T/nginx"
echo "dock" >"$T/www/dock/index.html"
echo "comms" >"$T/www/comms/index.html"
echo "the exhaust port" >"$T/www/exhaust-port/index.html"
echo "vent" >"$T/www/exhaust-port/vent"
head -c $((10 << 20)) /dev/urandom >"$T/www/dock/big"
head -c $((10 << 20)) /dev/urandom >"$T/body"
e2e_nginx "$ns" "$T/nginx" http://127.0.0.1:8080/dock/ <<CONF
	server {
		listen 127.0.0.1:8080;
		root $T/www;
		client_max_body_size 64m;
		location /put/ { dav_methods PUT; create_full_put_path on; }
	}
CONF

cat >"$T/policy" <<'POL'
default deny
allow GET,POST path /dock*
allow path /comms
allow PUT path /put/*
deny path /exhaust-port* status 403
POL
# ---- each data path: the same bytes, the pipelined deny, its counters ----------
pipelined() { # PORT: the statuses, then whether the allowed body and nothing after came
	ip netns exec "$ns" python3 - "$1" <<'PY'
import re, socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /dock/ HTTP/1.1\r\nHost: a\r\n\r\nGET /dock/../exhaust-port HTTP/1.1\r\nHost: a\r\n\r\n"
          b"GET /comms/ HTTP/1.1\r\nHost: a\r\n\r\n")
s.settimeout(5)
out = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    out += d
print(" ".join(m.decode() for m in re.findall(rb"HTTP/1.1 (\d{3}) ", out)))
t = out.decode(errors="replace")
print("dock" in t, "the exhaust port" in t or "comms" in t)
PY
}
dp_stats() { ip netns exec "$ns" "$FASTPATH" -j proxy stats --control "$T/ctl-dp.sock"; }
dp_jget() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }
"$FASTPATH" proxy run --listen 127.0.0.1:8003 --backend 127.0.0.1:8080 --policy "$T/policy" \
	--data-path pipe 2>"$T/dp-err" && e2e_fail "--data-path pipe accepted"
grep -q "data-path 'pipe': expected splice, copy or sockmap" "$T/dp-err" ||
	e2e_fail "--data-path pipe: $(cat "$T/dp-err")"
for dp in splice copy sockmap; do
	e2e_bg ip netns exec "$ns" "$FASTPATH" proxy run --listen 127.0.0.1:8003 --backend 127.0.0.1:8080 \
		--policy "$T/policy" --control "$T/ctl-dp.sock" --data-path "$dp"
	dpid=$E2E_BG_PID
	e2e_wait_for "ip netns exec $ns curl -s -o /dev/null http://127.0.0.1:8003/" 10 ||
		e2e_fail "$dp: the proxy did not start"
	Q=http://127.0.0.1:8003
	# keep-alive: four requests on one connection, the 10 MiB one in the middle
	ip netns exec "$ns" curl -s --max-time 30 -o "$T/k1" "$Q/dock/" -o "$T/k2" "$Q/dock/big" \
		-o "$T/k3" "$Q/comms/" -o "$T/k4" "$Q/dock/big" -w '%{num_connects} ' >"$T/nconn" ||
		e2e_fail "$dp: keep-alive GETs failed"
	cmp -s "$T/k1" "$T/www/dock/index.html" && cmp -s "$T/k2" "$T/www/dock/big" &&
		cmp -s "$T/k3" "$T/www/comms/index.html" && cmp -s "$T/k4" "$T/www/dock/big" ||
		e2e_fail "$dp: keep-alive GETs: bytes differ from nginx's files"
	[[ $(tr -d ' ' <"$T/nconn") == 1000 ]] || e2e_fail "$dp: not one connection: $(cat "$T/nconn")"
	st=$(ip netns exec "$ns" curl -s --max-time 30 -o /dev/null -w '%{http_code}' -T "$T/body" "$Q/put/$dp-cl")
	[[ $st == 201 || $st == 204 ]] || e2e_fail "$dp: PUT with Content-Length: $st"
	st=$(ip netns exec "$ns" curl -s --max-time 30 -o /dev/null -w '%{http_code}' -T "$T/body" \
		-H 'Transfer-Encoding: chunked' "$Q/put/$dp-chunked")
	[[ $st == 201 || $st == 204 ]] || e2e_fail "$dp: PUT chunked: $st"
	for f in cl chunked; do
		cmp -s "$T/body" "$T/www/put/$dp-$f" || e2e_fail "$dp: PUT $f: nginx stored other bytes"
	done
	resp=$(pipelined 8003)
	[[ $resp == $'200 403\nTrue False' ]] || e2e_fail "$dp: pipelined: '$resp', want 200 then 403 and nothing after"
	ds=$(dp_stats)
	[[ $(dp_jget 'd["data_path"]' <<<"$ds") == "$dp" ]] || e2e_fail "$dp: stats say $(dp_jget 'd["data_path"]' <<<"$ds")"
	sp=$(dp_jget 'd["bytes_spliced"]' <<<"$ds")
	cp=$(dp_jget 'd["bytes_copied"]' <<<"$ds")
	e2e_log "$dp: 2 x 10 MiB GET + 2 x 10 MiB PUT: $sp bytes spliced (in the kernel), $cp copied"
	big=$((40 << 20))
	case $dp in
	copy) (( cp >= big && sp == 0 )) || e2e_fail "copy: $sp spliced, $cp copied" ;;
	# splice and sockmap: all but heads, chunk lines and what came with a
	# head; splice copies a response's first read too (at most 16 KiB: a
	# small response costs a recv and a send, not two splices)
	*) (( sp >= big - 2 * 16384 && cp < 4 * 65536 )) || e2e_fail "$dp: $sp spliced, $cp copied" ;;
	esac
	e2e_kill "$dpid"
done

ctl=$T/ctl.sock
start_proxy() { # extra options
	e2e_bg ip netns exec "$ns" "$FASTPATH" proxy run --listen 127.0.0.1:8000 \
		--backend 127.0.0.1:8001,127.0.0.1:8080 --policy "$T/policy" --control "$ctl" "$@"
	PROXY_PID=$E2E_BG_PID
	e2e_wait_for "ip netns exec $ns curl -s -o /dev/null http://127.0.0.1:8000/" 10 ||
		e2e_fail "the proxy did not start"
}
start_proxy --header-timeout 2 --max-conns 64 --access-log "$T/access.log"
P=http://127.0.0.1:8000
D=http://127.0.0.1:8080
c() { ip netns exec "$ns" curl -s "$@"; }
status() { c -o /dev/null -w '%{http_code}' "$@"; }
stats() { ip netns exec "$ns" "$FASTPATH" -j proxy stats --control "$ctl" | tee -a "$T/stats.log"; cp "$T/stats.log" /tmp/px-stats.log; }
jget() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }

# ---- allowed: the same bytes as a direct fetch ----------------------------
for u in /dock/ /comms/ /comms /dock/big; do
	c -o "$T/via" "$P$u"; c -o "$T/direct" "$D$u"
	cmp -s "$T/via" "$T/direct" || e2e_fail "GET $u: the proxy's bytes differ from nginx's"
done
[[ $(stat -c %s "$T/via") == $((10 << 20)) ]] || e2e_fail "10 MiB GET: $(stat -c %s "$T/via") bytes"
before=$(stats)
st=$(status -T "$T/body" "$P/put/cl")
[[ $st == 201 || $st == 204 ]] || e2e_fail "PUT with Content-Length: $st"
st=$(status -T "$T/body" -H 'Transfer-Encoding: chunked' "$P/put/chunked")
[[ $st == 201 || $st == 204 ]] || e2e_fail "PUT chunked: $st"
after=$(stats)
for f in cl chunked; do
	cmp -s "$T/body" "$T/www/put/$f" || e2e_fail "PUT $f: nginx stored other bytes"
done
spliced=$(( $(jget 'd["bytes_spliced"]' <<<"$after") - $(jget 'd["bytes_spliced"]' <<<"$before") ))
copied=$(( $(jget 'd["bytes_copied"]' <<<"$after") - $(jget 'd["bytes_copied"]' <<<"$before") ))
e2e_log "two 10 MiB PUTs: $spliced bytes spliced, $copied copied"
(( spliced >= 2 * (10 << 20) - 2 * 65536 )) || e2e_fail "bodies not spliced: $spliced"
(( copied < 2 * 65536 + 4096 )) || e2e_fail "too much copied through user space: $copied"

# ---- the exhaust port: alone, encoded, pipelined ----------------------------
for u in /exhaust-port /exhaust-port/ /exhaust-port/vent /dock/../exhaust-port \
	 /%65xhaust-port //exhaust-port /dock/%2e%2e/exhaust-port /exhaust%2Dport; do
	st=$(status --path-as-is "$P$u")
	[[ $st == 403 ]] || e2e_fail "GET $u: $st, want 403"
done
[[ $(status --path-as-is "$P/dock%2F..%2Fexhaust-port") == 400 ]] || e2e_fail "%2F not refused"
[[ $(status "$P/other") == 403 ]] || e2e_fail "default deny"
[[ $(status -X DELETE "$P/dock/") == 403 ]] || e2e_fail "DELETE /dock/ not denied"
# pipelined: an allowed request, then the exhaust port, on one connection
resp=$(ip netns exec "$ns" python3 - <<'PY'
import socket
s = socket.create_connection(("127.0.0.1", 8000))
s.sendall(b"GET /dock/ HTTP/1.1\r\nHost: a\r\n\r\nGET /dock/../exhaust-port HTTP/1.1\r\nHost: a\r\n\r\n"
          b"GET /comms/ HTTP/1.1\r\nHost: a\r\n\r\n")
s.settimeout(5)
out = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    out += d
import re
print(" ".join(m.decode() for m in re.findall(rb"HTTP/1.1 (\d{3}) ", out)))
t = out.decode(errors="replace")
print("dock" in t, "the exhaust port" in t or "comms" in t)
PY
)
[[ $resp == $'200 403\nTrue False' ]] || e2e_fail "pipelined: '$resp', want 200 then 403 and nothing after"

# ---- bad inputs get their statuses -------------------------------------------
raw() { # BYTES (printf format): the status line's code
	ip netns exec "$ns" python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", 8000)); s.settimeout(5)
s.sendall(sys.argv[1].encode("latin-1").decode("unicode_escape").encode("latin-1"))
d = b""
try:
    while b"\r\n" not in d:
        x = s.recv(4096)
        if not x: break
        d += x
except socket.timeout: pass
print(d.split(b" ")[1].decode() if d.startswith(b"HTTP/") else "none")' "$1"
}
H='GET /dock/ HTTP/1.1\r\nHost: a\r\n'
declare -A bad=(
	["CL+TE"]="POST /dock/ HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"
	["two CL"]="POST /dock/ HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n"
	["bad CL"]="POST /dock/ HTTP/1.1\r\nHost: a\r\nContent-Length: 3x\r\n\r\n"
	["TE gzip"]="POST /dock/ HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n"
	["obs-fold"]="${H}X: a\r\n b\r\n\r\n"
	["bare CR"]="${H}X: a\rb\r\n\r\n"
	["control"]="${H}X: a\x01\r\n\r\n"
	["no Host"]="GET /dock/ HTTP/1.1\r\n\r\n"
)
for k in "${!bad[@]}"; do
	st=$(raw "${bad[$k]}")
	[[ $st == 400 ]] || e2e_fail "$k: $st, want 400"
done
[[ $(raw "GET /$(printf 'a%.0s' $(seq 9000)) HTTP/1.1\r\nHost: a\r\n\r\n") == 414 ]] || e2e_fail "no 414"
[[ $(raw "${H}X: $(printf 'a%.0s' $(seq 17000))\r\n\r\n") == 431 ]] || e2e_fail "no 431"
[[ $(raw "GET / HTTP/2.0\r\nHost: a\r\n\r\n") == 505 ]] || e2e_fail "no 505"
[[ $(raw "GET /dock/ HTTP/1.1\r\nHost: a\r\n") == 408 ]] || e2e_fail "no 408 (slowloris)"

# 503 past the connection limit (64): hold 64 idle connections open
ip netns exec "$ns" python3 - <<'PY' || e2e_fail "no 503 past --max-conns"
import socket, time
held = [socket.create_connection(("127.0.0.1", 8000)) for _ in range(64)]
time.sleep(0.3)
s = socket.create_connection(("127.0.0.1", 8000)); s.settimeout(3)
d = s.recv(100)
assert d.startswith(b"HTTP/1.1 503"), d
PY
# bounded memory: a second proxy (a long header timeout) with 64 connections
# holding half a head each, then 2000 more attempts, all 503
e2e_bg ip netns exec "$ns" "$FASTPATH" proxy run --listen 127.0.0.1:8002 --backend 127.0.0.1:8080 \
	--policy "$T/policy" --control "$T/ctl2.sock" --max-conns 64 --header-timeout 120
pid2=$E2E_BG_PID
e2e_wait_for "ip netns exec $ns curl -s -o /dev/null http://127.0.0.1:8002/" 10 || e2e_fail "no second proxy"
rss() { awk '/^VmRSS/ {print $2}' "/proc/$pid2/status"; }
rss0=$(rss)
ip netns exec "$ns" python3 - <<'PY' || e2e_fail "not 2000 503s past --max-conns"
import socket, time
held = []
for _ in range(64):
    h = socket.create_connection(("127.0.0.1", 8002))
    h.sendall(b"GET /dock/ HTTP/1.1\r\nX: " + b"a" * 8000)
    held.append(h)
time.sleep(0.3)
n503 = 0
for _ in range(2000):
    s = socket.create_connection(("127.0.0.1", 8002)); s.settimeout(3)
    n503 += s.recv(100).startswith(b"HTTP/1.1 503")
    s.close()
assert n503 == 2000, n503
PY
rss1=$(rss)
e2e_log "proxy RSS: $rss0 KiB before, $rss1 KiB with 64 half heads held and 2000 refused"
(( rss1 - rss0 < 64 * 16 + 4096 )) || e2e_fail "memory grew by $((rss1 - rss0)) KiB"
e2e_kill "$pid2"
s=$(stats)
e2e_log "refused: $(jget 'd["refused"]' <<<"$s")"
[[ $(jget 'd["refused"]["400"] >= 8 and d["refused"]["408"] >= 1 and d["refused"]["503"] >= 1' <<<"$s") == True ]] ||
	e2e_fail "refusals not counted: $(jget 'd["refused"]' <<<"$s")"
[[ $(jget 'd["rules"][3]["statuses"].get("403", 0) == 9' <<<"$s") == True ]] ||
	e2e_fail "the exhaust port's rule did not count its 403s: $(jget 'd["rules"][3]' <<<"$s")"
[[ $(jget 'd["backends"][0]["connect_failures"] >= 1' <<<"$s") == True ]] ||
	e2e_fail "the dead backend (8001) was not tried and skipped: $(jget 'd["backends"]' <<<"$s")"

# ---- reload under load: no request lost ---------------------------------------
ip netns exec "$ns" bash -c "for i in \$(seq 100); do curl -s -o /dev/null -w '%{http_code}\n' $P/comms/; done" \
	>"$T/codes" &
load=$!
for i in 1 2 3 4 5; do
	sleep 0.2
	ip netns exec "$ns" "$FASTPATH" proxy reload --control "$ctl" >/dev/null || e2e_fail "reload $i"
done
kill -HUP "$PROXY_PID"
wait "$load"
[[ $(sort "$T/codes" | uniq -c | awk '{print $1, $2}') == "100 200" ]] ||
	e2e_fail "requests during reloads: $(sort "$T/codes" | uniq -c | tr '\n' ' ')"
gen=$(stats | jget 'd["generation"]')
(( gen >= 6 )) || e2e_fail "generation $gen after 5 reloads and a SIGHUP"
# the same with wrk: 8 keep-alive connections for 3 s, 5 reloads meanwhile;
# every response a 200, no socket error (wrk prints both kinds when any)
ip netns exec "$ns" timeout 20 wrk -t1 -c8 -d3s "$P/comms/" >"$T/wrk" 2>&1 &
load=$!
for i in 1 2 3 4 5; do
	sleep 0.4
	ip netns exec "$ns" "$FASTPATH" proxy reload --control "$ctl" >/dev/null || e2e_fail "reload $i under wrk"
done
wait "$load" || e2e_fail "wrk failed: $(cat "$T/wrk")"
nreq=$(sed -n 's/^ *\([0-9]*\) requests in .*/\1/p' "$T/wrk")
(( ${nreq:-0} >= 100 )) || e2e_fail "wrk made ${nreq:-no} requests: $(cat "$T/wrk")"
! grep -qE "Non-2xx|Socket errors" "$T/wrk" || e2e_fail "wrk under reloads: $(grep -E 'Non-2xx|Socket errors' "$T/wrk")"
(( $(stats | jget 'd["generation"]') >= gen + 5 )) || e2e_fail "5 reloads under wrk did not all take"
# a policy with an error: the old one stays
echo "alow path /x" >>"$T/policy"
ip netns exec "$ns" "$FASTPATH" proxy reload --control "$ctl" 2>"$T/err" && e2e_fail "bad reload accepted"
grep -q "policy:6:1" "$T/err" || e2e_fail "bad reload: $(cat "$T/err")"
[[ $(status "$P/comms/") == 200 && $(status "$P/exhaust-port") == 403 ]] || e2e_fail "old policy lost"

# ---- the access log: one line per decided request, the normalised path ------------
grep -qE '^[0-9T:.-]+Z 127\.0\.0\.1 GET /dock/big forward rule=line:2$' "$T/access.log" ||
	e2e_fail "no access log line of the forwarded 10 MiB GET: $(head -n 3 "$T/access.log")"
n=$(grep -cE ' GET /exhaust-port(/|/vent)? 403 rule=line:5$' "$T/access.log" || true)
(( n == 10 )) || e2e_fail "$n access log lines of the exhaust port's 403, want 10 (8 forms, 1 pipelined, 1 after the bad reload)"
grep -qE ' - - 408 rule=-$' "$T/access.log" || e2e_fail "no access log line of the 408"

# ---- a limit: 429 with Retry-After past the rate, per client ---------------------
printf 'limit 2/s burst 2 path /comms\nallow path /comms\ndefault deny\n' >"$T/policy"
ip netns exec "$ns" "$FASTPATH" proxy reload --control "$ctl" >/dev/null || e2e_fail "reload of the limit"
codes=$(ip netns exec "$ns" python3 -c '
import socket
for i in range(6):  # six connections in a few ms: no token comes back meanwhile
    s = socket.create_connection(("127.0.0.1", 8000)); s.settimeout(3)
    s.sendall(b"GET /comms/ HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
    d = s.recv(100)
    print(d.split(b" ")[1].decode(), end=" ")
    s.close()')
[[ $codes == "200 200 429 429 429 429 " ]] || e2e_fail "limit 2/s burst 2: $codes"
c -D - -o /dev/null "$P/comms/" | grep -qi '^Retry-After: 1' || e2e_fail "429 without Retry-After"
sleep 1.1
[[ $(status "$P/comms/") == 200 ]] || e2e_fail "the bucket did not refill"
e2e_pass "allowed bytes identical (10 MiB, CL and chunked, $spliced spliced / $copied copied), exhaust port 403 in every form and pipelined, bad inputs refused, reload under load lossless"
