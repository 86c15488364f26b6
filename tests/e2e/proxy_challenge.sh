#!/usr/bin/env bash
# fastpath proxy run with a `challenge` rule, end to end in a namespace of its
# own (nginx behind the proxy, curl as the client):
#  - a bad --cookie-key (missing, short) refuses to start, exit 2;
#  - a request without the cookie gets 302 to the same URL with Set-Cookie;
#  - curl keeping cookies (-b/-c, -L) reaches the backend, and again with the jar;
#  - a forged cookie, or the cookie from another client address, is challenged;
#  - a path the challenge does not cover is served without one;
#  - the counters: the challenges by the challenge rule, the rest by the next.
. "$(dirname "$0")/lib.sh"
e2e_require nginx curl python3

ns=$(e2e_name pc)
e2e_netns_add "$ns"
ip -n "$ns" link set lo up
T=$E2E_TMP
mkdir -p "$T/www/dock" "$T/www/public" "$T/nginx"
echo "dock" >"$T/www/dock/index.html"
echo "public" >"$T/www/public/index.html"
e2e_nginx "$ns" "$T/nginx" http://127.0.0.1:8080/dock/ <<CONF
	server { listen 127.0.0.1:8080; root $T/www; }
CONF

head -c 32 /dev/urandom >"$T/key"
printf 'short' >"$T/short"
cat >"$T/policy" <<POL
challenge-key $T/missing
allow path /public*
challenge path /dock*
allow path /dock*
default deny
POL
run=(ip netns exec "$ns" "$FASTPATH" proxy run --listen 127.0.0.1:8000
     --backend 127.0.0.1:8080 --policy "$T/policy" --control "$T/ctl.sock")

# ---- a key that cannot be used: refused before listening -------------------
rc=0; out=$(timeout 5 "${run[@]}" 2>&1) || rc=$?
[[ $rc == 2 && $out == *"$T/missing"* ]] || e2e_fail "missing key (policy's line): rc $rc: $out"
rc=0; out=$(timeout 5 "${run[@]}" --cookie-key "$T/short" 2>&1) || rc=$?
[[ $rc == 2 && $out == *"at least 16"* ]] || e2e_fail "short key: rc $rc: $out"

# ---- --cookie-key wins over the policy's line ------------------------------
e2e_bg "${run[@]}" --cookie-key "$T/key"
e2e_wait_for "ip netns exec $ns curl -s -o /dev/null http://127.0.0.1:8000/" 10 ||
	e2e_fail "the proxy did not start"
P=http://127.0.0.1:8000
c() { ip netns exec "$ns" curl -s "$@"; }

c -D "$T/h1" -o "$T/b1" "$P/dock/?x=1"
grep -q '^HTTP/1.1 302' "$T/h1" || e2e_fail "no cookie: $(head -1 "$T/h1"), want 302"
grep -qi '^Location: /dock/?x=1' "$T/h1" || e2e_fail "302 not to the same URL: $(cat "$T/h1")"
grep -qiE '^Set-Cookie: fastpath_challenge=[0-9a-f]{16}\.[0-9a-f]{64};' "$T/h1" ||
	e2e_fail "no signed cookie set: $(cat "$T/h1")"

# a client that keeps cookies: redirected once, then served
[[ $(c -b "$T/jar" -c "$T/jar" -L "$P/dock/") == dock ]] || e2e_fail "curl -L with a jar not served"
[[ $(c -b "$T/jar" -w '%{http_code}' "$P/dock/") == $'dock\n200' ]] ||
	e2e_fail "the kept cookie not accepted"
cookie=$(awk '$6 == "fastpath_challenge" { print $7 }' "$T/jar")
[[ ${#cookie} == 81 ]] || e2e_fail "cookie in the jar: '$cookie'"

# forged: the last MAC digit changed; a later time with the old MAC
last=${cookie: -1}; [[ $last == 0 ]] && f=1 || f=0
st=$(c -o /dev/null -w '%{http_code}' -H "Cookie: fastpath_challenge=${cookie%?}$f" "$P/dock/")
[[ $st == 302 ]] || e2e_fail "forged MAC: $st, want 302"
st=$(c -o /dev/null -w '%{http_code}' -H "Cookie: fastpath_challenge=fff${cookie:3}" "$P/dock/")
[[ $st == 302 ]] || e2e_fail "forged time: $st, want 302"
st=$(c -o /dev/null -w '%{http_code}' -H "Cookie: fastpath_challenge=garbage" "$P/dock/")
[[ $st == 302 ]] || e2e_fail "malformed cookie: $st, want 302"
# another client address with this client's cookie
st=$(c --interface 127.0.0.2 -o /dev/null -w '%{http_code}' \
	-H "Cookie: fastpath_challenge=$cookie" "$P/dock/")
[[ $st == 302 ]] || e2e_fail "cookie of 127.0.0.1 from 127.0.0.2: $st, want 302"
# a path no challenge covers
[[ $(c "$P/public/") == public ]] || e2e_fail "/public/ challenged"
# counters: six challenges by the challenge rule (line 3), the two
# requests with the cookie decided by the allow after it (line 4)
st=$(ip netns exec "$ns" "$FASTPATH" -j proxy stats --control "$T/ctl.sock")
got=$(python3 -c 'import json,sys; r=json.load(sys.stdin)["rules"]
print(r[1]["line"], r[1]["statuses"].get("302"), r[2]["line"], r[2]["allowed"])' <<<"$st")
[[ $got == "3 6 4 2" ]] || e2e_fail "counters (line, 302s, line, allowed): $got: $st"
e2e_pass "challenge: 302 + signed cookie, jar reaches the backend, forged/other-client cookies challenged, bad keys refused"
