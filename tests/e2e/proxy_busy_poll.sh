#!/usr/bin/env bash
# fastpath proxy --busy-poll USEC: bad values are refused (exit 2, naming
# the flag); with it the proxy serves as without (bytes identical to
# nginx's, the exhaust port refused), polls without sleeping after its
# traffic (its CPU time grows while nothing comes, for up to USEC) and
# then sleeps (no CPU time when idle past USEC).
. "$(dirname "$0")/lib.sh"
e2e_require nginx curl

ns=$(e2e_name pbp)
e2e_netns_add "$ns"
ip -n "$ns" link set lo up
T=$E2E_TMP
mkdir -p "$T/www/dock" "$T/www/exhaust-port"
head -c 100 /dev/urandom >"$T/www/dock/small"
head -c $((1 << 20)) /dev/urandom >"$T/www/dock/big"
echo "the exhaust port" >"$T/www/exhaust-port/index.html"
e2e_nginx "$ns" "$T/nginx" http://127.0.0.1:8080/ <<CONF
	server { listen 127.0.0.1:8080; root $T/www; }
CONF
printf 'allow GET path /dock*\ndeny path /exhaust-port* status 403\ndefault deny\n' >"$T/policy"

for bad in -1 abc 1000001 ""; do
	"$FASTPATH" proxy run --listen 127.0.0.1:8000 --backend 127.0.0.1:8080 --policy "$T/policy" \
		--control "$T/bad.sock" --busy-poll "$bad" >"$T/out" 2>"$T/err"
	rc=$?
	[[ $rc == 2 ]] || e2e_fail "--busy-poll '$bad': exit $rc, not 2"
	grep -q -- "--busy-poll '$bad': expected 0..1000000 microseconds" "$T/err" ||
		e2e_fail "--busy-poll '$bad': $(cat "$T/err")"
done
"$FASTPATH" -j proxy run --listen 127.0.0.1:8000 --backend 127.0.0.1:8080 --policy "$T/policy" \
	--control "$T/bad.sock" --busy-poll 2x >"$T/out" 2>/dev/null
python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['error']; sys.exit('--busy-poll' not in e)" \
	"$T/out" || e2e_fail "-j --busy-poll 2x: $(cat "$T/out")"

# 1 s, the most: long enough to see the spinning from here
e2e_bg ip netns exec "$ns" "$FASTPATH" proxy run --listen 127.0.0.1:8000 --backend 127.0.0.1:8080 \
	--policy "$T/policy" --control "$T/ctl.sock" --busy-poll 1000000
e2e_wait_for "[[ -S $T/ctl.sock ]]" 10 || e2e_fail "the proxy did not start with --busy-poll"
pid=
for p in $(ip netns pids "$ns"); do
	tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qF -- "--control $T/ctl.sock" && pid=$p
done
[[ -n $pid ]] || e2e_fail "the proxy's process not found"
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }

Q=http://127.0.0.1:8000
for f in small big; do
	ip netns exec "$ns" curl -sf -o "$T/got.$f" "$Q/dock/$f" || e2e_fail "/dock/$f: not served"
	cmp -s "$T/got.$f" "$T/www/dock/$f" || e2e_fail "/dock/$f: other bytes than nginx's file"
done
for u in /exhaust-port/ /dock/../exhaust-port /%65xhaust-port; do
	st=$(ip netns exec "$ns" curl -s -o /dev/null -w '%{http_code}' --path-as-is "$Q$u")
	[[ $st == 403 ]] || e2e_fail "$u answered $st, not 403"
done
# keep-alive: 200 requests on one connection, every one answered
n=$(ip netns exec "$ns" curl -s -w '%{http_code} %{num_connects}\n' $(for _ in $(seq 200); do
	printf -- '-o /dev/null %s ' "$Q/dock/small"; done) | grep -c '^200 [01]$')
[[ $n == 200 ]] || e2e_fail "keep-alive: $n of 200 requests answered 200"

# right after traffic: the loop polls (CPU time grows with nothing coming);
# CLK_TCK ticks (100 a second): 0.6 s of spinning is ~60, a sleeping loop 0
ip netns exec "$ns" curl -sf -o /dev/null "$Q/dock/small" || e2e_fail "/dock/small: not served"
t0=$(ticks); sleep 0.6; t1=$(ticks)
# 1 s after the last event it sleeps again: no CPU time while idle
sleep 0.8
t2=$(ticks); sleep 1; t3=$(ticks)
e2e_log "CPU ticks: $((t1 - t0)) in the 0.6 s after a request, $((t3 - t2)) in 1 s idle past --busy-poll"
(( t1 - t0 >= 8 )) || e2e_fail "no busy polling after a request ($((t1 - t0)) ticks in 0.6 s)"
(( t3 - t2 <= 5 )) || e2e_fail "the loop kept spinning while idle ($((t3 - t2)) ticks in 1 s)"
e2e_pass "--busy-poll: bad values refused, bytes as nginx's, polls after traffic, sleeps when idle"
