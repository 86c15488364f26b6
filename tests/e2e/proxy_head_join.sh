#!/usr/bin/env bash
# fastpath proxy joins a response head to its body when the backend writes
# them apart (as nginx does: the head, then sendfile): the client gets both
# in one segment, not the head alone and the body after it. A Python
# backend on the namespace's loopback answers each request with its head,
# then 0.3 ms later its 100-byte body; the client (one keep-alive
# connection) reads once per response and counts the reads that held the
# whole response. Also:
#  - HEAD (a head announcing a body it does not have) is answered at once,
#    and the connection goes on (no wait for a body that never comes);
#  - a 304 and a head whose body comes late (50 ms) are not held back for
#    long: the head arrives before the body.
. "$(dirname "$0")/lib.sh"
e2e_require python3

ns=$(e2e_name phj)
e2e_netns_add "$ns"
ip -n "$ns" link set lo up
T=$E2E_TMP
cat >"$T/backend.py" <<'PY'
import socket, threading, time
BODY = b"b" * 100
def serve(c):
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buf = b""
    while True:
        while b"\r\n\r\n" not in buf:
            d = c.recv(65536)
            if not d:
                return
            buf += d
        head, buf = buf.split(b"\r\n\r\n", 1)
        line = head.split(b"\r\n")[0].split(b" ")
        method, path = line[0], line[1]
        resp = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
        if path.startswith(b"/not-modified"):
            c.sendall(b"HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\n")
            continue
        c.sendall(resp)
        if method == b"HEAD":
            continue
        time.sleep(0.05 if path.startswith(b"/late") else 0.0003)
        c.sendall(BODY)
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 8080))
s.listen(64)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
e2e_bg ip netns exec "$ns" python3 "$T/backend.py"
printf 'allow path /*\n' >"$T/policy"
e2e_bg ip netns exec "$ns" "$FASTPATH" proxy run --listen 127.0.0.1:8000 --backend 127.0.0.1:8080 \
	--policy "$T/policy" --control "$T/ctl.sock"
e2e_wait_for "[[ -S $T/ctl.sock ]]" 10 || e2e_fail "the proxy did not start"
# the backend listening before the first request (else a 502 under load)
e2e_wait_for "ip netns exec $ns python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", 8080))'" 10 ||
	e2e_fail "the backend did not start"

ip netns exec "$ns" python3 - >"$T/out" 2>&1 <<'PY' || e2e_fail "the client failed: $(cat "$T/out")"
import socket, time
s = socket.create_connection(("127.0.0.1", 8000))
s.settimeout(5)
HEAD = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
def ask(method, path):
    s.sendall(b"%s %s HTTP/1.1\r\nHost: a\r\n\r\n" % (method, path))
def read_exact(n):
    out = b""
    while len(out) < n:
        d = s.recv(n - len(out))
        if not d:
            raise SystemExit("closed")
        out += d
    return out
whole = 0
for i in range(30):
    ask(b"GET", b"/dock")
    first = s.recv(65536)  # what one read finds when the response arrives
    rest = read_exact(len(HEAD) + 100 - len(first))
    if first + rest != HEAD + b"b" * 100:
        raise SystemExit("GET %d: other bytes: %r" % (i, first + rest))
    whole += len(first) == len(HEAD) + 100
ask(b"GET", b"/not-modified")
nm = b"HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\n"
if read_exact(len(nm)) != nm:
    raise SystemExit("304: other bytes")
ask(b"GET", b"/late")
t0 = time.monotonic()
if s.recv(65536) != HEAD:
    raise SystemExit("late body: the head did not come alone first")
late_ms = (time.monotonic() - t0) * 1000
read_exact(100)
t0 = time.monotonic()
ask(b"HEAD", b"/dock")
if read_exact(len(HEAD)) != HEAD:
    raise SystemExit("HEAD: other bytes")
head_ms = (time.monotonic() - t0) * 1000
ask(b"GET", b"/dock")
if read_exact(len(HEAD) + 100) != HEAD + b"b" * 100:
    raise SystemExit("GET after HEAD: other bytes")
print(whole, "%.1f" % head_ms, "%.1f" % late_ms)
PY
read -r whole head_ms late_ms <"$T/out"
e2e_log "30 GETs, body 0.3 ms after the head: $whole read whole at once; HEAD answered in $head_ms ms; a body 50 ms late: its head after $late_ms ms"
(( whole >= 25 )) || e2e_fail "only $whole of 30 responses reached the client whole: heads sent apart from their bodies"
python3 -c "import sys; sys.exit(0 if float('$head_ms') < 1000 and float('$late_ms') < 40 else 1)" ||
	e2e_fail "HEAD took $head_ms ms, a late body's head $late_ms ms"
e2e_pass "heads joined to their bodies ($whole/30 whole), HEAD and 304 not held, a late body's head sent in $late_ms ms"
