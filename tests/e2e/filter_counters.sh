#!/usr/bin/env bash
# Rule counters across changes, and `stats --watch` across a reload, on a
# real veth in namespaces.
#
# 1. N UDP packets hit rule `flood`, M the default. Then `filter add` of
#    another rule, `filter del` of a third, and an `apply` of the same file
#    again: after each, flood still counts N and the default M in `list -j`,
#    `stats -j` and the exporter's metrics (promtool still accepts them);
#    packets after the changes add to N. A changed rule (same id, other
#    text) and a changed default start from 0.
# 2. `stats -j --watch 1` runs in the background while the filter is
#    unloaded and loaded with another set: it says so on stderr, waits, and
#    then shows the new load's rules and counters, not the dead ones.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3 curl
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"
cp "$FASTPATH" "$E2E_TMP/fastpath" && FASTPATH=$E2E_TMP/fastpath
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3
TRAFFIC=("$PY" "$E2E_REPO/tests/e2e/traffic.py")

a=$(e2e_name a); b=$(e2e_name b); va=$(e2e_name va); vb=$(e2e_name vb)
e2e_netns_add "$a"; e2e_netns_add "$b"
e2e_veth "$a" "$va" "$b" "$vb" 10.212.0.1 10.212.0.2
AMAC=$(e2e_mac "$a" "$va")
# Nothing but the test's packets into the default's count: no IPv6 chatter
# (router and neighbour solicitations), no ARP (a answers the packets the
# default passes with ICMP errors, and would ask for b's address, again
# when the entry ages)
for n in "$a $va" "$b $vb"; do
	e2e_ns ${n% *} sysctl -qw "net.ipv6.conf.${n#* }.disable_ipv6=1"
done
ip -n "$a" neigh replace 10.212.0.2 lladdr "$(e2e_mac "$b" "$vb")" dev "$va" nud permanent
ip -n "$b" neigh replace 10.212.0.1 lladdr "$AMAC" dev "$vb" nud permanent
T=$E2E_TMP
fp() { ip netns exec "$a" "$FASTPATH" "$@"; }
check() { e2e_check "$@"; } # check DESCRIPTION CMD...
# send PORT COUNT: COUNT UDP packets to PORT from b to a.
send() {
	e2e_ns "$b" "${TRAFFIC[@]}" send "$vb" --dst-mac "$AMAC" --dst 10.212.0.1 --src 10.212.0.2 \
		--udp "$1" --count "$2" --report "$T/send.json" >/dev/null ||
		e2e_fail "the sender failed"
}

cat >"$T/set.rules" <<'EOF'
drop udp dport 9500 id flood
pass tcp dport 80 id web
drop udp dport 7000 id other
default pass
EOF
fp filter load "$va" "$T/set.rules" >/dev/null || e2e_fail "filter load failed"

e2e_bg ip netns exec "$a" "$FASTPATH" exporter --listen 127.0.0.1:0 2>"$T/exporter.log"
e2e_wait_for "grep -q 'listening on' $T/exporter.log" 10 ||
	e2e_fail "the exporter did not start: $(cat "$T/exporter.log")"
port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$T/exporter.log")
[[ -n $port ]] || e2e_fail "no port in the exporter's log"

# counts WHAT: "flood=N default=M" as list -j, stats -j and the metrics say
# (the default's id: null or "(default)", or "default" once spelt one way).
counts() {
	local from=$1
	case $from in
	list)
		fp -j filter list "$va" | "$PY" -c '
import json,sys; d=json.load(sys.stdin); r={x["id"]: x["packets"] for x in d}
print("flood=%s default=%s" % (r.get("flood"), r.get(None, r.get("default"))))' ;;
	stats)
		fp -j filter stats "$va" --interval 0 | "$PY" -c '
import json,sys; d=json.load(sys.stdin); r={x["id"]: x["packets"] for x in d["rules"]}
print("flood=%s default=%s" % (r.get("flood"), r.get("(default)", r.get("default"))))' ;;
	metrics)
		ip netns exec "$a" curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" >"$T/metrics.txt" ||
			{ echo "no scrape"; return; }
		local fl
		fl=$(grep -F "fastpath_rule_packets_total{iface=\"$va\",rule=\"flood\"} " "$T/metrics.txt" |
			awk '{ print $NF }')
		echo "flood=${fl:-None} default=-" ;;
	esac
}
# expect_counts WHEN FLOOD DEFAULT: every reader agrees on both counts.
expect_counts() {
	local when=$1 fl=$2 df=$3
	check "$when: list -j says flood=$fl default=$df ($(counts list))" \
		test "$(counts list)" == "flood=$fl default=$df"
	check "$when: stats -j says flood=$fl default=$df ($(counts stats))" \
		test "$(counts stats)" == "flood=$fl default=$df"
	check "$when: the exporter says flood=$fl ($(counts metrics))" \
		test "$(counts metrics)" == "flood=$fl default=-"
	if command -v promtool >/dev/null 2>&1; then
		check "$when: promtool check metrics accepts the scrape" \
			promtool check metrics <"$T/metrics.txt"
	fi
}

# ---- 1. counters across add, del, apply -----------------------------------------
send 9500 40
send 20000 6
sleep 0.3
expect_counts "after the traffic" 40 6
fp filter add "$va" 'drop udp dport 6000 id added' >/dev/null || e2e_fail "filter add failed"
expect_counts "after filter add" 40 6
fp filter add "$va" --at 1 'pass udp dport 6001 id top' >/dev/null || e2e_fail "filter add --at 1 failed"
expect_counts "after filter add --at 1 (flood moved down)" 40 6
fp filter del "$va" other >/dev/null || e2e_fail "filter del failed"
expect_counts "after filter del" 40 6
fp filter apply "$va" "$T/set.rules" >/dev/null || e2e_fail "filter apply failed"
expect_counts "after an apply of the same file" 40 6
fp filter apply "$va" "$T/set.rules" >/dev/null || e2e_fail "filter apply failed"
expect_counts "after a second apply (both halves reused)" 40 6
send 9500 5
sleep 0.3
expect_counts "5 more packets after the changes" 45 6

sed 's/dport 9500 id flood/dport 9500-9501 id flood/' "$T/set.rules" >"$T/changed.rules"
fp filter apply "$va" "$T/changed.rules" >/dev/null || e2e_fail "filter apply (changed) failed"
expect_counts "a changed flood rule starts from 0" 0 6
send 9501 3
sleep 0.3
sed 's/^default pass/default drop/' "$T/changed.rules" >"$T/dflt.rules"
fp filter apply "$va" "$T/dflt.rules" >/dev/null || e2e_fail "filter apply (default drop) failed"
expect_counts "a changed default starts from 0" 3 0

# ---- 2. stats --watch across an unload and a load ----------------------------------
e2e_bg timeout 30 ip netns exec "$a" "$FASTPATH" -j filter stats "$va" --watch 1 \
	>"$T/watch.jsonl" 2>"$T/watch.err"
watcher=$E2E_BG_PID
has_rule() { # has_rule ID [PACKETS]: the last line of the watch shows it
	tail -n 1 "$T/watch.jsonl" | "$PY" -c '
import json,sys
d=json.loads(sys.stdin.read()); r={x["id"]: x["packets"] for x in d["rules"]}
sys.exit(not (sys.argv[1] in r and (len(sys.argv) < 3 or r[sys.argv[1]] == int(sys.argv[2]))))' "$@"
}
e2e_wait_for "has_rule flood" 10 || e2e_fail "stats --watch did not show the set: $(tail -n 2 "$T/watch.jsonl" "$T/watch.err")"
fp filter unload "$va" >/dev/null || e2e_fail "filter unload failed"
e2e_wait_for "grep -q 'unloaded' $T/watch.err" 10 || true
check "--watch says the filter was unloaded ($(tr '\n' ' ' <"$T/watch.err"))" grep -q 'was unloaded; waiting' "$T/watch.err"
check "the watch is still running while nothing is loaded" kill -0 "$watcher"
printf 'drop udp dport 9600 id fresh\n' >"$T/fresh.rules"
fp filter load "$va" "$T/fresh.rules" >/dev/null || e2e_fail "filter load (again) failed"
send 9600 7
if e2e_wait_for "has_rule fresh 7" 10; then
	e2e_log "ok: --watch shows the new load's rule and its 7 packets"
else
	e2e_log "NOT OK: --watch does not show the new load: $(tail -n 1 "$T/watch.jsonl")"
	E2E_FAILS=$((E2E_FAILS + 1))
fi
check "--watch says it shows the new load" grep -q 'loaded again' "$T/watch.err"
check "--watch no longer shows the old rules" bash -c "! tail -n 1 $T/watch.jsonl | grep -q flood"
e2e_kill "$watcher"

e2e_done
