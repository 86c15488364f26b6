#!/usr/bin/env bash
# fastpath proxy --body-timeout, end to end in a namespace of its own, with a
# Python backend that reads each body whole (and one path it answers before
# reading the body):
#  - a body that stops arriving in the middle is answered 408 after the
#    timeout (nothing came back from the backend yet), the backend's
#    connection closed (it sees the body cut short), counted;
#  - a body sent slowly but steadily (a byte group every 0.4 s, past the
#    timeout in all) is not cut: the backend gets it whole;
#  - a body that stops after the backend began its answer: the answer
#    arrives, then the connection is closed (no 408 after a response);
#  - --body-timeout 0 turns it off; a bad value is a usage error.
. "$(dirname "$0")/lib.sh"
e2e_require python3

ns=$(e2e_name pb)
e2e_netns_add "$ns"
ip -n "$ns" link set lo up
T=$E2E_TMP
cat >"$T/backend.py" <<'PY'
import http.server, socketserver, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        with open(sys.argv[1], "a") as f: f.write((a[0] % a[1:]) + "\n")
    def do_POST(self):
        n = int(self.headers["Content-Length"])
        if self.path == "/early":
            body = b"early\n"
            self.send_response(200); self.send_header("Content-Length", str(len(body)))
            self.end_headers(); self.wfile.write(body); self.wfile.flush()
        got = self.rfile.read(n)
        with open(sys.argv[1], "a") as f: f.write("body %s %d\n" % (self.path, len(got)))
        if self.path != "/early":
            body = b"got %d\n" % len(got)
            self.send_response(200); self.send_header("Content-Length", str(len(body)))
            self.end_headers(); self.wfile.write(body)
class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
S(("127.0.0.1", 8080), H).serve_forever()
PY
e2e_bg ip netns exec "$ns" python3 "$T/backend.py" "$T/backend.log" 2>"$T/backend.err"
printf 'allow path /*\n' >"$T/policy"
e2e_bg ip netns exec "$ns" "$FASTPATH" proxy run --listen 127.0.0.1:8000 --backend 127.0.0.1:8080 \
	--policy "$T/policy" --control "$T/ctl.sock" --body-timeout 1
e2e_wait_for "[[ -S $T/ctl.sock ]]" 10 || e2e_fail "the proxy did not start"
e2e_wait_for "ip netns exec $ns python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", 8080))'" 10 ||
	e2e_fail "the backend did not start"

# client PATH LENGTH "GROUPS" PAUSE: sends the head, then each group of bytes
# with PAUSE seconds between; prints what came back, and the seconds it took
cat >"$T/client.py" <<'PY'
import socket, sys, time
path, length, groups, pause = sys.argv[1], int(sys.argv[2]), [int(g) for g in sys.argv[3].split()], float(sys.argv[4])
s = socket.create_connection(("127.0.0.1", 8000), timeout=10)
t0 = time.time()
s.sendall(b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % (path.encode(), length))
for g in groups:
    s.sendall(b"x" * g); time.sleep(pause)
out = b""
try:
    while True:
        d = s.recv(65536)
        if not d: break
        out += d
        if b"\r\n\r\n" in out and out.startswith(b"HTTP/1.1 200") and out.endswith(b"\n") and len(groups) and sum(groups) == length: break
except socket.timeout:
    out += b" TIMEOUT"
print(out.decode(errors="replace").replace("\r\n", "|"), "%.1f" % (time.time() - t0))
PY
cl() { ip netns exec "$ns" python3 "$T/client.py" "$@"; }

# stops after 10 of 1000 bytes: 408 from the proxy in ~1 s
out=$(cl /stall 1000 10 0)
[[ $out == "HTTP/1.1 408 "*"the request body stopped arriving"* ]] || e2e_fail "stalled body: $out"
secs=${out##* }
python3 -c "import sys; sys.exit(not 0.9 <= $secs <= 4)" || e2e_fail "408 after $secs s, want ~1"
e2e_wait_for "! grep -q 'body /stall 1000' $T/backend.log" 3 || e2e_fail "the backend got the whole stalled body"
# steady: 5 groups 0.4 s apart (2 s in all, past the 1 s timeout)
out=$(cl /steady 50 "10 10 10 10 10" 0.4)
[[ $out == "HTTP/1.1 200 "*"got 50"* ]] || e2e_fail "steady body cut: $out"
# the answer began before the body stalled: the answer, then a close, no 408
out=$(cl /early 1000 10 0)
[[ $out == "HTTP/1.1 200 "*"early"* && $out != *408* ]] || e2e_fail "early answer: $out"
st=$(ip netns exec "$ns" "$FASTPATH" -j proxy stats --control "$T/ctl.sock")
got=$(python3 -c 'import json,sys; o=json.load(sys.stdin); print(o["body_timeouts"], o["refused"]["408"])' <<<"$st")
[[ $got == "2 1" ]] || e2e_fail "counters (body_timeouts, 408s): $got: $st"
rc=0; out=$(ip netns exec "$ns" "$FASTPATH" proxy run --listen 127.0.0.1:8001 --backend 127.0.0.1:8080 \
	--policy "$T/policy" --control "$T/ctl2.sock" --body-timeout x 2>&1) || rc=$?
[[ $rc == 2 && $out == *"--body-timeout 'x'"* ]] || e2e_fail "bad --body-timeout: rc $rc: $out"
e2e_pass "slow body: 408 after the timeout, steady slow bodies kept, no 408 after an answer began"
