#!/usr/bin/env bash
# fastpath proxy's counters outside the proxy, end to end in a namespace of
# its own (nginx behind the proxy, curl as the client):
#  - `fastpath exporter --proxy CONTROL` serves fastpath_proxy_* families
#    that promtool accepts, per rule (requests, allowed, refused by status)
#    and per backend (requests, bytes spliced and copied), equal to
#    `proxy -j stats`; a proxy that does not answer is fastpath_proxy_up 0;
#  - `proxy stats --watch 1` prints a line a rule and a backend each second
#    (JSON Lines with -j), with the request rate of the load running.
. "$(dirname "$0")/lib.sh"
e2e_require nginx curl python3 promtool

ns=$(e2e_name pm)
e2e_netns_add "$ns"
ip -n "$ns" link set lo up
T=$E2E_TMP
mkdir -p "$T/www/dock" "$T/nginx"
echo "dock" >"$T/www/dock/index.html"
head -c $((1 << 20)) /dev/urandom >"$T/www/dock/big"
e2e_nginx "$ns" "$T/nginx" http://127.0.0.1:8080/dock/ <<CONF
	server { listen 127.0.0.1:8080; root $T/www; }
CONF
cat >"$T/policy" <<POL
allow path /dock*
deny path /exhaust-port* status 403
deny path /vent status 451
default deny
POL
e2e_bg ip netns exec "$ns" "$FASTPATH" proxy run --listen 127.0.0.1:8000 \
	--backend 127.0.0.1:8080,127.0.0.1:8081 --policy "$T/policy" --control "$T/ctl.sock"
e2e_wait_for "[[ -S $T/ctl.sock ]]" 10 || e2e_fail "the proxy did not start"
c() { ip netns exec "$ns" curl -s --max-time 5 "$@"; }
P=http://127.0.0.1:8000
for _ in 1 2 3; do
	[[ $(c "$P/dock/") == dock ]] || e2e_fail "/dock/ not served"
done
c -o "$T/big" "$P/dock/big" && cmp -s "$T/big" "$T/www/dock/big" || e2e_fail "1 MiB not served"
[[ $(c -o /dev/null -w '%{http_code}' "$P/exhaust-port") == 403 ]] || e2e_fail "no 403"
[[ $(c -o /dev/null -w '%{http_code}' "$P/vent") == 451 ]] || e2e_fail "no 451"
[[ $(c -o /dev/null -w '%{http_code}' "$P/other") == 403 ]] || e2e_fail "default: no 403"

# ---- the exporter -----------------------------------------------------------
e2e_bg ip netns exec "$ns" "$FASTPATH" exporter --listen 127.0.0.1:0 --proxy "$T/ctl.sock" \
	--proxy "$T/gone.sock" 2>"$T/exporter.log"
e2e_wait_for "grep -q 'listening on' $T/exporter.log" 10 ||
	e2e_fail "the exporter did not start: $(cat "$T/exporter.log")"
port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$T/exporter.log")
ip netns exec "$ns" curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" >"$T/metrics.txt" ||
	e2e_fail "scrape failed"
ip netns exec "$ns" "$FASTPATH" -j proxy stats --control "$T/ctl.sock" >"$T/stats.json" ||
	e2e_fail "proxy stats -j failed"
out=$(promtool check metrics <"$T/metrics.txt" 2>&1) || e2e_fail "promtool: $out"
bad=$(python3 - "$T/metrics.txt" "$T/stats.json" "$T/ctl.sock" "$T/gone.sock" <<'PY'
import json, re, sys
text, stats, ctl, gone = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
samples = {}
for line in text.splitlines():
    m = re.match(r'^(fastpath_proxy_\w+)\{(.*)\} (\S+)$', line)
    if m:
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
        samples[(m.group(1), tuple(sorted(labels.items())))] = float(m.group(3))
def get(name, **kw):
    return samples.get((name, tuple(sorted(kw.items()))))
bad = []
def want(name, value, **kw):
    got = get(name, **kw)
    if got != value:
        bad.append('%s%s: %s, want %s' % (name, kw, got, value))
want('fastpath_proxy_up', 1, proxy=ctl)
want('fastpath_proxy_up', 0, proxy=gone)
want('fastpath_proxy_accepted_total', stats['accepted'], proxy=ctl)
want('fastpath_proxy_accepted_total', 7, proxy=ctl)
for k in ('tls_refused', 'body_timeouts'):
    want('fastpath_proxy_%s_total' % k, stats[k], proxy=ctl)
want('fastpath_proxy_rule_refused_total', 0, proxy=ctl, rule='line:1', action='allow', status='closed')
for r in stats['rules']:
    rule = 'default' if r['action'].startswith('default') else 'line:%d' % r['line']
    action = r['action'].replace('default ', '')
    want('fastpath_proxy_rule_requests_total', r['requests'], proxy=ctl, rule=rule, action=action)
    want('fastpath_proxy_rule_allowed_total', r['allowed'], proxy=ctl, rule=rule, action=action)
    for st, n in r['statuses'].items():
        want('fastpath_proxy_rule_refused_total', n, proxy=ctl, rule=rule, action=action, status=st)
for b in stats['backends']:
    for k in ('requests', 'connects', 'connect_failures', 'bytes_spliced', 'bytes_copied'):
        want('fastpath_proxy_backend_%s_total' % k, b[k], proxy=ctl, backend=b['address'])
want('fastpath_proxy_rule_requests_total', 4, proxy=ctl, rule='line:1', action='allow')
want('fastpath_proxy_rule_refused_total', 1, proxy=ctl, rule='line:3', action='deny', status='451')
want('fastpath_proxy_rule_refused_total', 1, proxy=ctl, rule='default', action='deny', status='403')
spl = get('fastpath_proxy_backend_bytes_spliced_total', proxy=ctl, backend='127.0.0.1:8080')
cop = get('fastpath_proxy_backend_bytes_copied_total', proxy=ctl, backend='127.0.0.1:8080')
# the 1 MiB spliced but its first read (16 KiB: small responses are copied)
if not (spl and spl > (1 << 20) - 16384 and cop < 16384 + 4096):
    bad.append('spliced %s copied %s: want the 1 MiB spliced, only heads and 16 KiB copied' % (spl, cop))
print('; '.join(bad))
PY
)
[[ -z $bad ]] || e2e_fail "exporter vs stats: $bad"

# ---- stats --watch -----------------------------------------------------------
ip netns exec "$ns" bash -c "end=\$((SECONDS + 4)); while ((SECONDS < end)); do
	curl -s -o /dev/null $P/dock/; done" &
load=$!
e2e_defer "kill $load 2>/dev/null"
ip netns exec "$ns" timeout -s INT 3.5 "$FASTPATH" -j proxy stats --control "$T/ctl.sock" \
	--watch 1 >"$T/watch.jsonl" || [[ $? == 124 ]] || e2e_fail "stats --watch failed"
wait "$load" 2>/dev/null
got=$(python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
rule1 = [r for r in rows if r["kind"] == "rule" and r["id"] == "allow:1"]
bk = [r for r in rows if r["kind"] == "backend" and r["id"] == "127.0.0.1:8080"]
print(len(rows), len(rule1), rule1[0]["requests_per_s"], max(r["requests_per_s"] for r in rule1[1:]) > 0,
      max(r["copied_bps"] for r in bk[1:]) > 0)' "$T/watch.jsonl" 2>&1)
# 3 redraws (t=0, 1, 2, maybe 3): 6 lines each (4 rules, 2 backends); no rate at the first;
# the load's responses are small: copied (fastpath-proxy(8), DATA PATHS)
[[ $got =~ ^(18|24)\ (3|4)\ None\ True\ True$ ]] || e2e_fail "stats --watch -j: $got: $(cat "$T/watch.jsonl")"
out=$(ip netns exec "$ns" timeout -s INT 1.5 "$FASTPATH" proxy stats --control "$T/ctl.sock" --watch 1)
[[ $out == *KIND*ID*REQUESTS* && $out == *"allow:1"* && $out == *127.0.0.1:8081* ]] ||
	e2e_fail "stats --watch text: $out"
rc=0; out=$(ip netns exec "$ns" "$FASTPATH" proxy stats --control "$T/ctl.sock" --watch 0 2>&1) || rc=$?
[[ $rc == 2 && $out == *"--watch takes seconds"* ]] || e2e_fail "--watch 0: rc $rc: $out"
e2e_pass "proxy metrics: exporter --proxy (promtool ok, equal to stats -j, up 0 when gone), stats --watch with rates"
