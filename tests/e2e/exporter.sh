#!/usr/bin/env bash
# `fastpath status` and `fastpath exporter` end to end.
#
#   sender ── veth ── victim: XDP filter (native) with two rules + default
#
# 1. A bounded UDP flood to port 7000 (dropped by a rule), pings (passed by a
#    rule) and TCP SYNs (default pass) reach the victim.
# 2. `status -j`: state ok, native, stage filter, 2 rules, generation 1,
#    load and apply times in ISO 8601.
# 3. The exporter (--listen 127.0.0.1:0) is scraped with curl: promtool
#    check metrics accepts the text; every rule and stage counter equals
#    what `filter stats -j --interval 0` says; the drop rule counted every
#    UDP packet sent; 404 for other paths, 405 for POST.
# 4. A real Prometheus server scrapes it (1 s interval) and its query API
#    returns the same counter; up{job="fastpath"} is 1.
# 5. XDP detached by hand: status says "detached". The interface is deleted: status says "iface missing" (exit 0) and the
#    exporter still answers, with state="iface missing".
# 6. SIGTERM: the exporter exits 0 at once.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require curl python3 promtool
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3
TRAFFIC=("$PY" "$E2E_REPO/tests/e2e/traffic.py")
UDP_COUNT=${UDP_COUNT:-3000}

snd=$(e2e_name snd); vic=$(e2e_name vic); sv=$(e2e_name sv); vv=$(e2e_name vv)
VIP=10.211.0.1 SIP=10.211.0.2
e2e_netns_add "$snd"
e2e_netns_add "$vic"
e2e_veth "$vic" "$vv" "$snd" "$sv" "$VIP" "$SIP"
VMAC=$(e2e_mac "$vic" "$vv")
fp() { ip netns exec "$vic" "$FASTPATH" "$@"; }
check() { # check DESCRIPTION CMD...: counts a failure unless CMD succeeds
	local what=$1; shift
	if "$@"; then e2e_log "ok: $what"; else e2e_log "NOT OK: $what"; E2E_FAILS=$((E2E_FAILS + 1)); fi
}
# jget FILE EXPR: a value from a JSON file (d is the document).
jget() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

cat >"$E2E_TMP/e2e.rules" <<'EOF'
drop udp dport 7000 id udp-7000 "the test flood"
pass icmp id icmp
default pass
EOF
fp filter load "$vv" --mode native "$E2E_TMP/e2e.rules" >/dev/null || e2e_fail "filter load $vv failed"

# ---- 1. traffic ----------------------------------------------------------------
ip netns exec "$snd" "${TRAFFIC[@]}" send "$sv" --dst-mac "$VMAC" --dst "$VIP" --src "$SIP" \
	--udp 7000 --count "$UDP_COUNT" --duration 30 --report "$E2E_TMP/udp.json" ||
	e2e_fail "the UDP sender failed"
ip netns exec "$snd" "${TRAFFIC[@]}" send "$sv" --dst-mac "$VMAC" --dst "$VIP" --src "$SIP" \
	--syn 8000 --count 50 --duration 30 --report "$E2E_TMP/syn.json" || e2e_fail "the SYN sender failed"
ip netns exec "$snd" ping -c 5 -i 0.05 -W 2 "$VIP" >/dev/null || e2e_fail "no ping sender -> victim"
udp_sent=$(jget "$E2E_TMP/udp.json" "d['sent']")
e2e_log "sent $udp_sent UDP packets to port 7000, 50 SYNs, 5 pings"

# ---- 2. status ----------------------------------------------------------------
fp -j status >"$E2E_TMP/status.json" || e2e_fail "status -j failed"
st() { jget "$E2E_TMP/status.json" "[i for i in d if i['iface'] == '$vv'][0]$1"; }
check "status: one interface" test "$(jget "$E2E_TMP/status.json" "len(d)")" -eq 1
check "status: state ok" test "$(st "['state']")" = ok
check "status: native mode" test "$(st "['mode']")" = native
check "status: stages = filter" test "$(st "['stages']")" = filter
check "status: 2 rules" test "$(st "['rules']")" -eq 2
check "status: generation 1" test "$(st "['generation']")" -eq 1
iso='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$'
check "status: load time in ISO 8601" grep -Eq "$iso" <<<"$(st "['loaded']")"
check "status: apply time in ISO 8601" grep -Eq "$iso" <<<"$(st "['applied']")"
fp status | tee "$E2E_TMP/status.txt" >&2
check "status (text) shows the interface" grep -q "^$vv  *ok  *native  *filter" "$E2E_TMP/status.txt"

# ---- 3. the exporter, scraped with curl ----------------------------------------
e2e_bg ip netns exec "$vic" "$FASTPATH" exporter --listen 127.0.0.1:0 2>"$E2E_TMP/exporter.log"
exporter_pid=$E2E_BG_PID
e2e_wait_for "grep -q 'listening on' $E2E_TMP/exporter.log" 10 || e2e_fail "the exporter did not start: $(cat "$E2E_TMP/exporter.log")"
port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$E2E_TMP/exporter.log")
[[ -n $port ]] || e2e_fail "no port in the exporter's log"
URL=http://127.0.0.1:$port/metrics
scrape() { ip netns exec "$vic" curl -sf --max-time 5 "$URL" >"$1"; }
# stats before and after the scrape: a stray packet (an IPv6 neighbour or
# MLD message of the veth) may land between two reads
fp -j filter stats "$vv" --interval 0 >"$E2E_TMP/stats.json" || e2e_fail "filter stats -j failed"
scrape "$E2E_TMP/metrics.txt" || e2e_fail "curl $URL failed"
fp -j filter stats "$vv" --interval 0 >"$E2E_TMP/stats2.json" || e2e_fail "filter stats -j failed"
check "promtool check metrics accepts the scrape" promtool check metrics <"$E2E_TMP/metrics.txt"

# Every rule and stage counter of stats -j equals the exporter's.
cat >"$E2E_TMP/compare.py" <<'EOF'
import json, re, sys
stats = json.load(open(sys.argv[1]))
after = json.load(open(sys.argv[4]))
iface = sys.argv[3]
# a counter may only have grown between the two reads of stats
def within(got, lo, hi):
    return got is not None and lo <= got <= hi
arules = {r['id']: r for r in after['rules']}
astage = {s['decision']: s for s in after['stage']}
samples = {}
for line in open(sys.argv[2]):
    if line.startswith('#') or not line.strip():
        continue
    m = re.match(r'^([a-z_]+)(?:\{(.*)\})? (\S+)$', line.strip())
    assert m, line
    labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or ''))
    samples[(m.group(1), tuple(sorted(labels.items())))] = float(m.group(3))
def get(name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))))
bad = 0
for r in stats['rules']:
    for what in ('packets', 'bytes', 'drops', 'samples'):
        if what not in r:
            continue
        got = get('fastpath_rule_%s_total' % what, iface=iface, rule=r['id'])
        if not within(got, r[what], arules[r['id']][what]):
            print('rule %s %s: stats %s, exporter %s' % (r['id'], what, r[what], got)); bad += 1
for s in stats['stage']:
    verdict = 'drop' if s['decision'].endswith('drop') else 'pass'
    for what in ('packets', 'bytes'):
        got = get('fastpath_stage_%s_total' % what, iface=iface, stage='filter',
                  verdict=verdict, decision=s['decision'])
        if not within(got, s[what], astage[s['decision']][what]):
            print('stage %s %s: stats %s, exporter %s' % (s['decision'], what, s[what], got)); bad += 1
for key, name in (('samples', 'fastpath_samples_total'), ('samples_lost', 'fastpath_samples_lost_total')):
    if key in stats and not within(get(name, iface=iface), stats[key], after[key]):
        print('%s: stats %s, exporter %s' % (key, stats[key], get(name, iface=iface))); bad += 1
if get('fastpath_generation', iface=iface) != stats['generation']:
    print('generation differs'); bad += 1
if not stats['rules'] or stats['rules'][-1]['id'] != 'default':
    print('stats: the last row is not the default'); bad += 1
print('compared %d rules (the default too) and %d stage decisions, %d differences'
      % (len(stats['rules']), len(stats['stage']), bad))
sys.exit(1 if bad else 0)
EOF
check "every counter of the scrape equals filter stats -j (read before and after it)" \
	"$PY" "$E2E_TMP/compare.py" "$E2E_TMP/stats.json" "$E2E_TMP/metrics.txt" "$vv" "$E2E_TMP/stats2.json"
metric() { grep -F "$1" "$2" | awk '{ print $NF }'; }
check "fastpath_rule_packets_total{rule=udp-7000} = $udp_sent sent" test \
	"$(metric "fastpath_rule_packets_total{iface=\"$vv\",rule=\"udp-7000\"}" "$E2E_TMP/metrics.txt")" = "$udp_sent"
check "pings counted by rule icmp" test \
	"$(metric "fastpath_rule_packets_total{iface=\"$vv\",rule=\"icmp\"}" "$E2E_TMP/metrics.txt")" -ge 5
check "the SYNs passed by default" test \
	"$(metric "decision=\"default_pass\"} " "$E2E_TMP/metrics.txt" | head -n 1)" -ge 50
check "fastpath_rules = 2" grep -qx "fastpath_rules{iface=\"$vv\"} 2" "$E2E_TMP/metrics.txt"
check "interface info: ok, native" grep -qx \
	"fastpath_interface_info{iface=\"$vv\",state=\"ok\",mode=\"native\"} 1" "$E2E_TMP/metrics.txt"
code() { ip netns exec "$vic" curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@"; }
check "GET / is 404" test "$(code "http://127.0.0.1:$port/")" = 404
check "POST /metrics is 405" test "$(code -X POST -d x=1 "$URL")" = 405
check "DELETE /metrics is 405" test "$(code -X DELETE "$URL")" = 405

# ---- 4. a real Prometheus server --------------------------------------------------
if command -v prometheus >/dev/null 2>&1; then
	cat >"$E2E_TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: fastpath
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF
	mkdir -p "$E2E_TMP/tsdb"
	e2e_bg ip netns exec "$vic" timeout 120 prometheus --config.file="$E2E_TMP/prometheus.yml" \
		--storage.tsdb.path="$E2E_TMP/tsdb" --web.listen-address=127.0.0.1:9090 \
		>"$E2E_TMP/prometheus.log" 2>&1
	prom_pid=$E2E_BG_PID
	query() { # query PROMQL: the first result's value, or nothing
		ip netns exec "$vic" curl -s --max-time 3 -G "http://127.0.0.1:9090/api/v1/query" \
			--data-urlencode "query=$1" 2>/dev/null |
			"$PY" -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")' 2>/dev/null
	}
	q="fastpath_rule_packets_total{iface=\"$vv\",rule=\"udp-7000\"}"
	if e2e_wait_for "[[ \$(query '$q') == $udp_sent ]]" 40; then
		e2e_log "ok: Prometheus scraped the exporter: $q = $udp_sent"
	else
		e2e_log "NOT OK: Prometheus did not report $q = $udp_sent (got '$(query "$q")')"
		tail -n 20 "$E2E_TMP/prometheus.log" >&2
		E2E_FAILS=$((E2E_FAILS + 1))
	fi
	check "Prometheus: up{job=\"fastpath\"} = 1" test "$(query 'up{job="fastpath"}')" = 1
	check "Prometheus: fastpath_scrape_errors_total = 0" test "$(query fastpath_scrape_errors_total)" = 0
	e2e_kill "$prom_pid"
else
	e2e_log "no prometheus binary: skipping the real server"
fi

# ---- 5. detached, then stale pins: the interface is gone ----------------------------
ip -n "$vic" link set dev "$vv" xdpdrv off || e2e_fail "cannot detach XDP from $vv"
check "status: detached after ip link set xdpdrv off" \
	test "$(fp -j status "$vv" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)[0]["state"])')" = detached
ip -n "$vic" link del "$vv"
fp -j status >"$E2E_TMP/status2.json" || { e2e_log "NOT OK: status failed with stale pins"; E2E_FAILS=$((E2E_FAILS + 1)); }
check "status: iface missing after the veth is deleted" \
	test "$(jget "$E2E_TMP/status2.json" "[i['state'] for i in d if i['iface'] == '$vv'][0]")" = "iface missing"
scrape "$E2E_TMP/metrics2.txt" || e2e_fail "the exporter stopped answering after the interface went away"
check "exporter: state=\"iface missing\"" grep -q \
	"fastpath_interface_info{iface=\"$vv\",state=\"iface missing\"" "$E2E_TMP/metrics2.txt"
check "promtool accepts the scrape with stale pins" promtool check metrics <"$E2E_TMP/metrics2.txt"
fp filter unload "$vv" >/dev/null 2>&1 || true

# ---- 6. SIGTERM -----------------------------------------------------------------
kill -TERM "$exporter_pid"
rc=0
for _ in $(seq 30); do kill -0 "$exporter_pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$exporter_pid" 2>/dev/null; then
	e2e_log "NOT OK: the exporter is still running 3 s after SIGTERM"; E2E_FAILS=$((E2E_FAILS + 1))
else
	wait "$exporter_pid" || rc=$?
	check "the exporter exits 0 on SIGTERM" test "$rc" -eq 0
fi

e2e_done
