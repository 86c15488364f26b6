#!/usr/bin/env bash
# fastpath proxy sends a request's head and its body to the backend without
# a Nagle wait between them: a PUT whose small body comes after its head (a
# client that writes the two apart) is answered as soon as the body is in,
# not after the backend's delayed ACK (up to 40 ms on Linux) releases it.
# nginx (a PUT location) behind the proxy; the client is python on one
# keep-alive connection (pingpong mode: delayed ACKs), each body sent 5 ms
# after its head; the time from the body to the answer is measured.
. "$(dirname "$0")/lib.sh"
e2e_require nginx curl python3

ns=$(e2e_name pnd)
e2e_netns_add "$ns"
ip -n "$ns" link set lo up
T=$E2E_TMP
mkdir -p "$T/www/put" "$T/nginx"
e2e_nginx "$ns" "$T/nginx" http://127.0.0.1:8080/ <<CONF
	server {
		listen 127.0.0.1:8080;
		root $T/www;
		location /put/ { dav_methods PUT; create_full_put_path on; }
	}
CONF
printf 'allow PUT path /put/*\ndefault deny\n' >"$T/policy"
e2e_bg ip netns exec "$ns" "$FASTPATH" proxy run --listen 127.0.0.1:8000 --backend 127.0.0.1:8080 \
	--policy "$T/policy" --control "$T/ctl.sock"
e2e_wait_for "[[ -S $T/ctl.sock ]]" 10 || e2e_fail "the proxy did not start"

# prints the slowest answer after its body (ms) over 12 PUTs, and the statuses
ip netns exec "$ns" python3 - >"$T/out" <<'PY' || e2e_fail "the client failed: $(cat "$T/out")"
import socket, time
s = socket.create_connection(("127.0.0.1", 8000))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
s.settimeout(5)
worst, statuses = 0.0, set()
for i in range(12):
    body = b"body %02d\n" % i
    s.sendall(b"PUT /put/f%d HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n\r\n" % (i, len(body)))
    time.sleep(0.005)
    t0 = time.monotonic()
    s.sendall(body)
    got = b""
    while b"\r\n\r\n" not in got:
        d = s.recv(4096)
        if not d:
            raise SystemExit("closed")
        got += d
    head, rest = got.split(b"\r\n\r\n", 1)
    n = int([l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")][0])
    while len(rest) < n:
        rest += s.recv(4096)
    if i >= 2:  # after two exchanges: the pingpong (delayed-ACK) mode
        worst = max(worst, (time.monotonic() - t0) * 1000)
    statuses.add(head.split(b" ")[1].decode())
print(f"{worst:.1f} {' '.join(sorted(statuses))}")
PY
read -r worst statuses <"$T/out"
e2e_log "12 PUTs, body 5 ms after the head: slowest answer ${worst} ms after its body; statuses $statuses"
[[ $statuses == 201 || $statuses == "201 204" || $statuses == 204 ]] || e2e_fail "PUTs answered $statuses"
for i in $(seq 0 11); do
	[[ $(cat "$T/www/put/f$i") == "$(printf 'body %02d' "$i")" ]] || e2e_fail "PUT $i: nginx stored other bytes"
done
python3 -c "import sys; sys.exit(0 if float('$worst') < 20 else 1)" ||
	e2e_fail "an answer came ${worst} ms after its body: held back (Nagle waiting for a delayed ACK?)"
e2e_pass "a body sent apart from its head goes at once (slowest answer ${worst} ms after it)"
