#!/usr/bin/env bash
# fastpath proxy with `sni` rules in front of a TLS backend it does not
# terminate (nginx with a self-signed certificate), end to end in a
# namespace of its own; curl --resolve, openssl s_client and a Python
# client that sends its ClientHello in pieces:
#  - an allowed name (exact, and under a *.SUFFIX rule) is served the bytes
#    a direct fetch gives (1 MiB), through the kernel (spliced but the
#    hellos, read to decide them, and the server's small bursts: its
#    handshake flights, the first 16 KiB read of the 1 MiB);
#  - a denied name, and a hello without a name under `default deny`, are
#    closed (no handshake), counted as closed on their rule;
#  - a hello split across reads is decided once whole;
#  - garbage after a handshake byte, and a hello that never finishes, are
#    closed and counted as tls_refused; plain HTTP on the same port is
#    still decided as HTTP.
. "$(dirname "$0")/lib.sh"
e2e_require nginx curl python3 openssl

ns=$(e2e_name ps)
e2e_netns_add "$ns"
ip -n "$ns" link set lo up
T=$E2E_TMP
mkdir -p "$T/www" "$T/nginx"
echo "dock" >"$T/www/dock"
head -c $((1 << 20)) /dev/urandom >"$T/www/big"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=deathstar.example" \
	-addext "subjectAltName=DNS:deathstar.example,DNS:*.rebels.example,DNS:exhaust.example" \
	-keyout "$T/key.pem" -out "$T/cert.pem" 2>/dev/null || e2e_fail "openssl req failed"
e2e_nginx "$ns" "$T/nginx" https://127.0.0.1:8443/dock <<CONF
	server {
		listen 127.0.0.1:8443 ssl;
		ssl_certificate $T/cert.pem;
		ssl_certificate_key $T/key.pem;
		root $T/www;
	}
	server { listen 127.0.0.1:8080; root $T/www; }
CONF

cat >"$T/policy" <<POL
deny sni exhaust.example
allow sni deathstar.example
allow sni *.rebels.example
allow path /dock
default deny
POL
rc=0; out=$(ip netns exec "$ns" "$FASTPATH" proxy check "$T/policy" 2>&1) || rc=$?
[[ $rc == 0 ]] || e2e_fail "proxy check: $rc: $out"
printf 'allow sni a.example path /x\n' >"$T/bad"
rc=0; out=$(ip netns exec "$ns" "$FASTPATH" proxy check "$T/bad" 2>&1) || rc=$?
[[ $rc == 2 && $out == *"$T/bad:1:21: an sni rule decides a TLS connection"* ]] ||
	e2e_fail "sni mixed with path: rc $rc: $out"

e2e_bg ip netns exec "$ns" "$FASTPATH" proxy run --listen 127.0.0.1:9443 \
	--backend 127.0.0.1:8443 --policy "$T/policy" --control "$T/ctl.sock" \
	--header-timeout 1 --access-log "$T/access.log"
e2e_wait_for "[[ -S $T/ctl.sock ]]" 10 || e2e_fail "the proxy did not start"
c() { ip netns exec "$ns" curl -sk --max-time 5 "$@"; }
via() { echo "--resolve $1:9443:127.0.0.1 https://$1:9443"; }

# ---- allowed: exact and wildcard names; bytes as a direct fetch ------------
[[ $(c $(via deathstar.example)/dock) == dock ]] || e2e_fail "deathstar.example not served"
[[ $(c $(via x-wing.rebels.example)/dock) == dock ]] || e2e_fail "*.rebels.example not served"
c -o "$T/big.got" $(via deathstar.example)/big || e2e_fail "1 MiB through the proxy failed"
cmp -s "$T/big.got" "$T/www/big" || e2e_fail "1 MiB through the proxy differs from the file"
out=$(ip netns exec "$ns" timeout 5 openssl s_client -connect 127.0.0.1:9443 \
	-servername deathstar.example </dev/null 2>&1)
[[ $out == *"subject=CN = deathstar.example"* ]] || e2e_fail "s_client allowed: $out"

# ---- denied: the connection is closed before any handshake -----------------
for name in exhaust.example rebels.example tie.empire.example; do
	rc=0; c $(via $name)/dock >/dev/null || rc=$?
	[[ $rc == 35 || $rc == 56 ]] || e2e_fail "$name: curl rc $rc, want 35/56 (closed)"
done
out=$(ip netns exec "$ns" timeout 5 openssl s_client -connect 127.0.0.1:9443 \
	-servername exhaust.example </dev/null 2>&1)
[[ $out == *CONNECTED* && $out != *"subject="* ]] ||
	e2e_fail "s_client denied: want a connection closed before any certificate: $out"
# an IP literal: curl sends no server name; the default (deny) decides
rc=0; c https://127.0.0.1:9443/dock >/dev/null || rc=$?
[[ $rc == 35 || $rc == 56 ]] || e2e_fail "no sni: curl rc $rc, want 35/56"

# ---- a hello split across reads (three pieces, 200 ms apart) ----------------
cat >"$T/split.py" <<'PY'
import socket, ssl, sys, time
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
inc, outg = ssl.MemoryBIO(), ssl.MemoryBIO()
o = ctx.wrap_bio(inc, outg, server_hostname=sys.argv[1])
s = socket.create_connection(("127.0.0.1", 9443), timeout=5)
try:
    o.do_handshake()
except ssl.SSLWantReadError:
    pass
hello = outg.read()
for part in (hello[:3], hello[3:40], hello[40:]):
    s.sendall(part); time.sleep(0.2)
while True:
    try:
        o.do_handshake(); break
    except ssl.SSLWantReadError:
        s.sendall(outg.read())
        d = s.recv(65536)
        if not d:
            print("closed"); sys.exit(0)
        inc.write(d)
s.sendall(outg.read())
o.write(b"GET /dock HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
s.sendall(outg.read())
body = b""
while True:
    d = s.recv(65536)
    if not d: break
    inc.write(d)
    try:
        while True:
            x = o.read(65536)
            if not x: break
            body += x
    except (ssl.SSLWantReadError, ssl.SSLZeroReturnError, ssl.SSLEOFError):
        pass
print(body.split(b"\r\n\r\n", 1)[-1].decode().strip())
PY
got=$(ip netns exec "$ns" timeout 10 python3 "$T/split.py" deathstar.example 2>&1)
[[ $got == dock ]] || e2e_fail "split hello, allowed name: $got"
got=$(ip netns exec "$ns" timeout 10 python3 "$T/split.py" exhaust.example 2>&1)
[[ $got == closed || $got == *Reset* || $got == *EOF* ]] || e2e_fail "split hello, denied name: $got"

# ---- garbage and a hello that never finishes: closed, tls_refused ----------
rc=0; out=$(printf '\x16\x03\x01\x00\x00garbage' | ip netns exec "$ns" timeout 5 \
	curl -s --max-time 3 telnet://127.0.0.1:9443 2>&1) || rc=$?
[[ -z $out ]] || e2e_fail "garbage after a handshake byte answered: $out"
printf '\x16\x03\x01\x02\x00\x01\x00\x01\xfc' >"$T/partial"
rc=0; ( cat "$T/partial"; sleep 3 ) | ip netns exec "$ns" timeout 5 \
	curl -s --max-time 4 telnet://127.0.0.1:9443 >"$T/partial.out" 2>&1 || rc=$?
[[ ! -s $T/partial.out ]] || e2e_fail "partial hello answered: $(cat "$T/partial.out")"
# plain HTTP on the same listener: decided as HTTP (to nginx's TLS port: 400 from it)
code=$(c -o /dev/null -w '%{http_code}' http://127.0.0.1:9443/exhaust-port)
[[ $code == 403 ]] || e2e_fail "plain HTTP /exhaust-port: $code, want 403"

# ---- the counters ----------------------------------------------------------
st=$(ip netns exec "$ns" "$FASTPATH" -j proxy stats --control "$T/ctl.sock")
got=$(python3 -c 'import json,sys; o=json.load(sys.stdin); r=o["rules"]; b=o["backends"][0]
print(r[0]["requests"], r[0]["closed"], r[1]["allowed"], r[2]["allowed"], r[4]["closed"],
      r[4]["statuses"].get("403"), o["tls_refused"], b["bytes_spliced"] > (1 << 20) - 16384,
      b["bytes_copied"] < 8192 + 16384 + 5 * 4096)' <<<"$st")
# line 1: exhaust x3 (curl, s_client, split); line 2: deathstar x4; line 3: x-wing;
# default: rebels.example, tie.empire.example, no sni (closed), plain HTTP (403)
[[ $got == "3 3 4 1 3 1 2 True True" ]] || e2e_fail "counters: $got: $st"
grep -q 'TLS exhaust.example 403 rule=line:1' "$T/access.log" ||
	e2e_fail "no access log line of the denied name: $(cat "$T/access.log")"
e2e_pass "sni: exact and wildcard names spliced as they are, denied names and no name closed, split hello, garbage refused, counted per rule"
