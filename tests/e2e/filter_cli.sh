#!/usr/bin/env bash
# The filter verbs on a real veth in a namespace: load, list, add, del, apply,
# stats (counters move with real packets; --watch refreshes), a bad rule file
# (exit 2, nothing applied), `filter test` on pcaps written here (verdict
# lines, runt frames, another link type, a corrupt file, a tcpdump capture),
# and unload (no XDP program and no pins left; another program that replaced
# ours stays attached, with a warning).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3 ethtool
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"
cp "$FASTPATH" "$E2E_TMP/fastpath" && FASTPATH=$E2E_TMP/fastpath
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3   # Debian's, with python3-scapy
TRAFFIC=("$PY" "$E2E_REPO/tests/e2e/traffic.py")

a=$(e2e_name a); b=$(e2e_name b); va=$(e2e_name va); vb=$(e2e_name vb)
e2e_netns_add "$a"; e2e_netns_add "$b"
e2e_veth "$a" "$va" "$b" "$vb" 10.211.0.1 10.211.0.2
AMAC=$(e2e_mac "$a" "$va")
T=$E2E_TMP out=$E2E_TMP/out err=$E2E_TMP/err

# expect CODE ARGS...: fastpath ARGS in namespace a; stdout in $out, stderr in $err.
expect() {
	local want=$1 rc=0; shift
	ip netns exec "$a" "$FASTPATH" "$@" >"$out" 2>"$err" </dev/null || rc=$?
	if (( rc != want )); then
		e2e_log "NOT OK: fastpath $*: exit $rc, expected $want"
		sed 's/^/    out| /' "$out" >&2; sed 's/^/    err| /' "$err" >&2
		E2E_FAILS=$((E2E_FAILS + 1))
		return 1
	fi
}
check() { e2e_check "$@"; } # check DESCRIPTION CMD...
# pyeval EXPR [FILE]: prints EXPR over the JSON document d of FILE (default $out).
pyeval() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "${2:-$out}" "$1"; }
# list_rules: the live rules as "ID|RULE" lines (no counters), from list -j.
list_rules() {
	ip netns exec "$a" "$FASTPATH" -j filter list "$va" |
		"$PY" -c 'import json,sys; [print("%s|%s" % (r["id"], r["rule"])) for r in json.load(sys.stdin)]'
}
stage() { pyeval "[s['packets'] for s in d['stage'] if s['decision']=='$1'][0]" "$2"; }
rule_pkts() { pyeval "[r['packets'] for r in d['rules'] if r['id']=='$1'][0]" "$2"; }

cat >"$T/base.rules" <<'EOF'
# two drops and a pass
drop udp dport 53 qname *.example.com id wt "water torture"
drop udp dport 9000-9999 id flood
pass tcp dport 80 id web
EOF

# ---- load ----------------------------------------------------------------
expect 1 --bpffs "$T/nobpffs/root" filter load "$va" "$T/base.rules"
check "--bpffs off any bpffs: refused, says so, and creates no directory" \
	bash -c "[[ ! -e $T/nobpffs ]] && grep -q 'is a bpffs mounted at $T/nobpffs/root' $err"
check "... and attaches nothing" bash -c "! ip -n $a link show $va | grep -q xdp"
expect 0 filter load "$va" "$T/base.rules"
check "load prints the generation" grep -q '^generation: *1' "$out"
check "load prints its own time apart from the apply's" \
	bash -c "grep -q '^load_ms:' $out && grep -q '^apply_ms:' $out"
check "native XDP is attached" bash -c "ip -n $a link show $va | grep -q 'prog/xdp '"
check "pins under \$FASTPATH_BPFFS/$va, mode 0600" \
	bash -c "[[ -d $FASTPATH_BPFFS/$va && \$(find $FASTPATH_BPFFS/$va -type f ! -perm 0600 | wc -l) -eq 0 ]]"
expect 1 filter load "$va" "$T/base.rules" && check "a second load says unload first" grep -q unload "$err"

# ---- list ------------------------------------------------------------------
expect 0 -j filter list "$va"
check "list -j: 3 rules then the default (id default, no position)" \
	test "$(pyeval "[(r['pos'], r['id']) for r in d]")" == "[(1, 'wt'), (2, 'flood'), (3, 'web'), (None, 'default')]"
check "list -j: canonical text" test "$(pyeval "d[1]['rule']")" == "drop udp dport 9000-9999 id flood"
check "list -j: the default line" test "$(pyeval "d[3]['rule']")" == "default pass"
expect 0 filter list "$va"
check "list text shows the comment" grep -q '"water torture"' "$out"

# ---- add / del -------------------------------------------------------------
expect 0 filter add "$va" drop udp dport 7000 id seven
expect 2 filter add "$va" --at 99 'drop udp dport 7 id typo'
check "--at past the end is refused with the range" grep -q 'give a position from 1 to' "$err"
check "the refused add added nothing" bash -c "! ip netns exec $a $FASTPATH filter list $va | grep -q typo"
expect 0 filter add "$va" --at 1 'pass udp src 10.211.0.9 id trusted'
expect 0 filter add "$va" drop tcp dport 23   # no id: the first free number
expect 0 -j filter list "$va"
ids=$(pyeval "[r['id'] for r in d if r['pos']]")
check "add: at the end, at 1, and a numbered id ($ids)" \
	"$PY" -c "import sys; l=$ids; sys.exit(not (l[:5]==['trusted','wt','flood','web','seven'] and len(l)==6 and l[5].isdigit()))"
numbered=$(pyeval "d[5]['id']")
expect 2 filter add "$va" drop udp dport 70000 && check "a bad rule names its column" grep -q ':16:' "$err"
expect 2 filter add "$va" drop udp dport 7001 id seven && check "a duplicate id is refused" grep -q "seven" "$err"
expect 0 filter del "$va" "$numbered"
expect 0 filter del "$va" trusted
expect 1 filter del "$va" nosuch && check "del of an unknown id names it" grep -q nosuch "$err"
check "after del: wt flood web seven, then the default" \
	test "$(list_rules | cut -d'|' -f1 | tr '\n' ' ')" == "wt flood web seven default "

# ---- apply: good, then bad (exit 2, nothing applied) -----------------------
expect 0 -j filter apply "$va" "$T/base.rules"
gen=$(pyeval "d['generation']")
check "apply -j: rules, generation, apply_ms" \
	"$PY" -c "import json,sys; d=json.load(open('$out')); sys.exit(not (d['rules']==3 and d['apply_ms']>0 and d['iface']=='$va'))"
expect 0 filter apply "$va" "$T/base.rules"
check "apply of the set in place changes nothing: same generation, changed: no, no apply_ms" \
	bash -c "grep -q '^generation: *$gen\$' $out && grep -q '^changed: *no' $out && ! grep -q '^apply_ms:' $out"
sed 's/dport 80 id web/dport 81 id web/' "$T/base.rules" >"$T/base81.rules"
expect 0 filter apply "$va" "$T/base81.rules"
check "apply of another set prints the next generation, apply_ms and what changed" \
	bash -c "grep -q '^generation: *$((gen + 1))\$' $out && grep -q '^apply_ms:' $out && grep -q '^modified: *1' $out"
expect 0 filter apply "$va" "$T/base.rules"
gen=$((gen + 1))
before=$(list_rules)
printf 'drop udp dport 5000 id fine\nfoo bar\ndrop tcp dport 99999\n' >"$T/bad.rules"
expect 2 filter apply "$va" "$T/bad.rules"
check "bad file: every error as FILE:LINE:COL" \
	bash -c "grep -q '^$T/bad.rules:2:1: ' $err && grep -q '^$T/bad.rules:3:16: ' $err"
check "bad file: the live rules are unchanged" test "$(list_rules)" == "$before"
expect 2 rules check "$T/bad.rules" && check "rules check reports both errors" test "$(grep -cE 'bad.rules:[0-9]+:[0-9]+: ' "$err")" -eq 2
expect 1 filter apply "$va" "$T/nosuchfile.rules"
check "a missing file: live rules unchanged" test "$(list_rules)" == "$before"

# ---- stats: real packets move the counters -----------------------------------
expect 0 -j filter stats "$va" --interval 0
cp "$out" "$T/st0.json"
check "stats -j: iface, generation, rules, stage" \
	"$PY" -c "import json,sys; d=json.load(open('$out')); sys.exit(not (d['iface']=='$va' and d['generation']==$((gen + 1)) and [r['id'] for r in d['rules']][:3]==['wt','flood','web'] and {s['decision'] for s in d['stage']} >= {'rule_drop','rule_pass','limit_pass','limit_drop','default_pass','default_drop','no_rules'}))"
e2e_ns "$b" "${TRAFFIC[@]}" send "$vb" --dst-mac "$AMAC" --dst 10.211.0.1 --src 10.211.0.2 \
	--udp 9500 --count 50 --report "$T/s1.json"
e2e_ns "$b" "${TRAFFIC[@]}" send "$vb" --dst-mac "$AMAC" --dst 10.211.0.1 --rand-src 198.18.0.0/15 \
	--dns example.com --rand-label --count 30 --report "$T/s2.json"
e2e_ns "$b" "${TRAFFIC[@]}" send "$vb" --dst-mac "$AMAC" --dst 10.211.0.1 --src 10.211.0.2 \
	--syn 80 --count 20 --report "$T/s3.json"
sleep 0.3
expect 0 -j filter stats "$va" --interval 0
cp "$out" "$T/st1.json"
check "rule flood counted the 50 UDP packets" test "$(rule_pkts flood "$T/st1.json")" -eq 50
check "rule wt counted the 30 DNS queries" test "$(rule_pkts wt "$T/st1.json")" -eq 30
check "rule web counted the 20 SYNs" test "$(rule_pkts web "$T/st1.json")" -eq 20
check "bytes: 50 frames of 60 bytes" test "$(pyeval "[r['bytes'] for r in d['rules'] if r['id']=='flood'][0]" "$T/st1.json")" -eq 3000
check "stage rule_drop moved by 80" \
	test $(( $(stage rule_drop "$T/st1.json") - $(stage rule_drop "$T/st0.json") )) -eq 80
check "stage rule_pass moved by 20" \
	test $(( $(stage rule_pass "$T/st1.json") - $(stage rule_pass "$T/st0.json") )) -eq 20
expect 0 filter list "$va"
check "list shows the counters" grep -qE '^ +2 +flood +50 +3000 ' "$out"
expect 0 filter stats "$va" --interval 200
check "stats text has the rule and decision tables" bash -c "grep -q '^flood ' $out && grep -qw 'rule_drop' $out"
e2e_bg ip netns exec "$b" "${TRAFFIC[@]}" send "$vb" --dst-mac "$AMAC" --dst 10.211.0.1 \
	--src 10.211.0.2 --udp 9000 --pps 1000 --duration 4 --report "$T/s4.json"
sender=$E2E_BG_PID
sleep 0.5
rc=0
timeout -s INT 2.6 ip netns exec "$a" "$FASTPATH" filter stats "$va" --watch 1 >"$out" 2>"$err" || rc=$?
check "stats --watch (not a tty) printed a report a second ($(grep -c '^generation' "$out"))" \
	test "$(grep -c '^generation' "$out")" -ge 2
check "stats --watch shows a rate near 1000 pps for flood" \
	"$PY" -c "
import re,sys
col, rates = None, []
for l in open('$out'):
    w = l.split()
    if w[:1] == ['ID'] and 'PPS' in w:
        col = w.index('PPS')
    elif w[:1] == ['flood'] and col is not None and re.match(r'[0-9.]+$', w[col]):
        rates.append(float(w[col]))
sys.exit(not any(800 <= r <= 1200 for r in rates))"
e2e_kill "$sender"
expect 0 -j filter stats "$va" --interval 300
check "stats -j with an interval gives numeric pps" "$PY" -c "
import json,sys; d=json.load(open('$out')); sys.exit(not all(isinstance(r['pps'], (int,float)) for r in d['rules'] if r['id']!='default') and d['rules'][-1]['id']=='default')"

# ---- filter test on pcaps ----------------------------------------------------
"$PY" - "$T" <<'EOF' 2>"$T/scapy.err" || e2e_fail "scapy could not write the captures: $(cat "$T/scapy.err")"
import sys
from scapy.all import Ether, Dot1Q, IP, IPv6, UDP, TCP, DNS, DNSQR, Raw, wrpcap
from scapy.utils import PcapWriter
t = sys.argv[1]
pk = [
    Ether() / IP(src="198.18.0.1", dst="10.0.0.1") / UDP(sport=1234, dport=53) / DNS(rd=1, qd=DNSQR(qname="abc.example.com")),  # wt
    Ether() / IP(dst="10.0.0.1") / UDP(dport=9999) / b"x",                                      # flood
    Ether() / IP(dst="10.0.0.1") / TCP(dport=80, flags="S"),                                   # web
    Raw(b"\x00" * 10),                                                                         # runt: pass, null
    Ether() / IPv6(dst="fd00::1") / UDP(dport=53) / DNS(qd=DNSQR(qname="WWW.Example.COM.")),    # wt, v6, case
    Ether() / Dot1Q(vlan=7) / IP(dst="10.0.0.1") / UDP(dport=9000),                            # flood, vlan
    Ether() / IP(dst="10.0.0.1") / UDP(dport=53) / DNS(qd=DNSQR(qname="example.com")),         # default
    Ether() / IP(dst="10.0.0.1") / UDP(dport=10000),                                           # default
]
w = PcapWriter(t + "/t.pcap", linktype=1, sync=True)
for p in pk:
    w.write(p)
w.close()
wrpcap(t + "/raw.pcap", [IP(dst="10.0.0.1") / UDP(dport=9000)], linktype=101)
data = open(t + "/t.pcap", "rb").read()
open(t + "/corrupt.pcap", "wb").write(data[:len(data) - 5])
EOF
cat >"$T/want.jsonl" <<'EOF'
{"packet":1,"verdict":"drop","rule":"wt"}
{"packet":2,"verdict":"drop","rule":"flood"}
{"packet":3,"verdict":"pass","rule":"web"}
{"packet":4,"verdict":"pass","rule":null}
{"packet":5,"verdict":"drop","rule":"wt"}
{"packet":6,"verdict":"drop","rule":"flood"}
{"packet":7,"verdict":"pass","rule":"default"}
{"packet":8,"verdict":"pass","rule":"default"}
EOF
expect 0 -j filter test "$T/base.rules" "$T/t.pcap"
check "filter test -j: one verdict object per packet, as expected" \
	"$PY" -c "
import json,sys
got=[json.loads(l) for l in open('$out') if l.strip()]
want=[json.loads(l) for l in open('$T/want.jsonl')]
if got != want:
    print('got ', got, file=sys.stderr); print('want', want, file=sys.stderr)
sys.exit(got != want)"
check "the runt frame warns on stderr" grep -qi 'packet 4 .*too short' "$err"
expect 0 filter test "$T/base.rules" "$T/t.pcap"
check "filter test text: the same verdicts" \
	test "$(awk '$1 ~ /^[0-9]+$/ { print $1, $2, $3 }' "$out" | tr '\n' ';')" == \
	"1 drop wt;2 drop flood;3 pass web;4 pass -;5 drop wt;6 drop flood;7 pass default;8 pass default;"
expect 1 filter test "$T/base.rules" "$T/raw.pcap" && check "another link type: a clear error" grep -qi 'link type' "$err"
expect 1 -j filter test "$T/base.rules" "$T/raw.pcap" && check "... as JSON with -j" pyeval "d['error']" >/dev/null
expect 1 filter test "$T/base.rules" "$T/corrupt.pcap" && check "a corrupt capture: an error naming it" grep -q 'corrupt' "$err"
expect 1 filter test "$T/base.rules" "$T/nosuch.pcap"
expect 2 filter test "$T/bad.rules" "$T/t.pcap"

# A real capture: tcpdump at the sender's end (XDP drops before a tap on va).
if command -v tcpdump >/dev/null 2>&1; then
	e2e_bg ip netns exec "$b" timeout 10 tcpdump -i "$vb" -U -c 25 -w "$T/real.pcap" udp \
		>"$T/tcpdump.log" 2>&1
	tcpd=$E2E_BG_PID
	e2e_wait_for "grep -q 'listening on' $T/tcpdump.log" 5 || e2e_log "tcpdump did not start"
	sleep 0.3
	e2e_ns "$b" "${TRAFFIC[@]}" send "$vb" --dst-mac "$AMAC" --dst 10.211.0.1 --src 10.211.0.2 \
		--udp 9100 --count 15 --report "$T/s5.json"
	e2e_ns "$b" "${TRAFFIC[@]}" send "$vb" --dst-mac "$AMAC" --dst 10.211.0.1 --src 10.211.0.2 \
		--udp 20000 --count 10 --report "$T/s6.json"
	e2e_wait_for "! kill -0 $tcpd" 8 || e2e_log "tcpdump did not finish"
	expect 0 -j filter test "$T/base.rules" "$T/real.pcap"
	check "tcpdump capture: 15 drop by flood, 10 pass by the default" \
		test "$(grep -c '"verdict":"drop","rule":"flood"' "$out"),$(grep -c '"verdict":"pass","rule":"default"' "$out")" == 15,10
else
	e2e_log "no tcpdump: the real-capture case is skipped"
fi

# ---- skb mode, unload ---------------------------------------------------------
expect 0 filter unload "$va"
check "unload: no XDP program on the link" bash -c "! ip -n $a link show $va | grep -q 'prog/xdp'"
check "unload: no pins left" test -z "$(find "$FASTPATH_BPFFS" -mindepth 1 ! -name '*.debug' | head -1)"
expect 1 filter unload "$va"
expect 1 filter list "$va" && check "list when not loaded says load first" grep -q 'filter load' "$err"
expect 0 filter load "$va" --mode skb "$T/base.rules"
check "--mode skb attaches generic XDP" bash -c "ip -n $a link show $va | grep -q xdpgeneric"
expect 0 filter unload "$va"
check "unload (skb): nothing left" \
	bash -c "! ip -n $a link show $va | grep -q xdp && test -z \"\$(find $FASTPATH_BPFFS -mindepth 1 ! -name '*.debug')\""

# ---- --table-bits: a set of 125,000 tuple keys needs 2^19-slot tables ---------
for (( r = 0; r < 250; r++ )); do
	sp= dp=
	for (( i = 0; i < 20; i++ )); do sp+=${sp:+,}$(( 1 + r * 40 + 2 * i )); done
	for (( i = 0; i < 25; i++ )); do dp+=${dp:+,}$(( 30000 + r * 60 + 2 * i )); done
	echo "drop udp sport $sp dport $dp"
done >"$T/grid.rules"
expect 0 rules check "$T/grid.rules"
check "rules check warns that the set needs --table-bits 19" \
	grep -q "grid.rules: warning: the set needs tables of 2^19 slots: load with --table-bits 19" "$err"
expect 0 filter load "$va" "$T/base.rules"
expect 1 filter apply "$va" "$T/grid.rules"
check "apply over the tables names the --table-bits to load with" grep -q 'table-bits 19' "$err"
check "the refused apply left the set live (3 rules and the default)" test "$(list_rules | wc -l)" -eq 4
expect 0 filter unload "$va"
expect 2 filter load "$va" --table-bits 23
check "--table-bits 23 is refused with the range" grep -q '4..22' "$err"
expect 0 filter load "$va" --table-bits 19 "$T/grid.rules"
check "--table-bits 19 takes the 250 rules (and the default)" test "$(list_rules | wc -l)" -eq 251
expect 0 filter unload "$va"
expect 0 -j filter load "$va"
check "load -j without rules: load_ms, no apply_ms, generation 0" \
	"$PY" -c "import json,sys; d=json.load(open('$out')); sys.exit(not (d['load_ms']>0 and 'apply_ms' not in d and d['generation']==0 and d['rules']==0))"
check "load without -v: no libbpf output" bash -c "! grep -q '^libbpf: ' $err"
expect 0 filter unload "$va"
expect 0 -vv filter load "$va" "$T/base.rules"
check "load -vv: libbpf's debug lines, and the rule file's timing" \
	bash -c "grep -q '^libbpf: loading object' $err && grep -q 'base.rules: .* rules parsed in' $err"
expect 0 filter unload "$va"

# ---- unload when another program has replaced ours --------------------------
# The other program: a second fastpath with its own pins (a bpffs root in a
# subdirectory), attached after ours was detached by hand.
expect 0 filter load "$va" "$T/base.rules"
ip -n "$a" link set "$va" xdp off
expect 0 --bpffs "$FASTPATH_BPFFS/other" filter load "$va"
other=$(ip -n "$a" -d link show "$va" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p')
expect 0 -j filter unload "$va"
check "unload -j: one JSON document saying the program attached is not ours and stays" \
	"$PY" -c "import json,sys; d=json.load(open('$out')); sys.exit(not (d['unloaded'] and d['iface']=='$va' and \"not fastpath's (id $other), left attached\" in d['warning']))"
check "unload -j: nothing on stderr" test ! -s "$err"
check "the other program is still attached" \
	bash -c "ip -n $a -d link show $va | grep -q 'prog/xdp id $other '"
check "our pins are gone" test ! -e "$FASTPATH_BPFFS/$va"
expect 0 --bpffs "$FASTPATH_BPFFS/other" filter unload "$va"
check "the other one unloads cleanly, without the warning" test ! -s "$err"

e2e_done
