#!/usr/bin/env bash
# The filter end to end: an attacker and a legitimate client reach a victim
# through a bridge; XDP (native) on the victim's veth runs examples/ddos.rules.
#
#   attacker ──┐
#              ├── br0 (namespace sw) ── victim: XDP filter, HTTP :8000, UDP :53/:7000
#   client ────┘
#
# 1. UDP flood, DNS water torture (random *.example.com) and a bare-SYN flood,
#    one after the other: each rule's counter equals what the attacker sent;
#    the victim's DNS listener gets none of the flood but answers legitimate
#    queries; every HTTP request of the client (curl, throughout) succeeds.
# 2. The three attacks at once while `filter apply` alternates 100 times
#    between examples/ddos.rules and a variant (extra unrelated rules, other
#    ids): the stage counters prove every attack packet was dropped and
#    nothing else was (rule_drop == attack sent, limit/default drops 0).
# 3. `limit 1000/s udp dport 7000` offered ~10,000/s for 4 s: what reaches
#    the victim is within 10% of 1000/s.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require curl ethtool python3
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"
# the binary as it is now, even if a build replaces it while this runs
cp "$FASTPATH" "$E2E_TMP/fastpath" && FASTPATH=$E2E_TMP/fastpath
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3
TRAFFIC=("$PY" "$E2E_REPO/tests/e2e/traffic.py")
RULES=$E2E_REPO/examples/ddos.rules
APPLIES=${APPLIES:-100}

sw=$(e2e_name sw); atk=$(e2e_name atk); cli=$(e2e_name cli); vic=$(e2e_name vic)
vv=$(e2e_name vv); sv=$(e2e_name sv); cv=$(e2e_name cv); sc=$(e2e_name sc)
av=$(e2e_name av); sa=$(e2e_name sa)
VIP=10.210.0.1 CIP=10.210.0.2 AIP=10.210.0.3
SPOOF=198.18.0.0/15   # attack sources (benchmarking range)

for ns in "$sw" "$atk" "$cli" "$vic"; do e2e_netns_add "$ns"; done
ip -n "$sw" link add br0 type bridge
ip -n "$sw" link set br0 up
e2e_veth "$vic" "$vv" "$sw" "$sv" "$VIP"
e2e_veth "$cli" "$cv" "$sw" "$sc" "$CIP"
e2e_veth "$atk" "$av" "$sw" "$sa" "$AIP"
for p in "$sv" "$sc" "$sa"; do ip -n "$sw" link set "$p" master br0; done
VMAC=$(e2e_mac "$vic" "$vv")

fp() { ip netns exec "$vic" "$FASTPATH" "$@"; }
stats() { fp -j filter stats "$vv" --interval 0 >"$1" || e2e_fail "filter stats -j failed"; }
# jget FILE EXPR: a value from a JSON file (d is the document).
jget() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
rule_pkts() { jget "$1" "sum(r['packets'] for r in d['rules'] if r['id'] in '$2'.split(','))"; }
stage_pkts() { jget "$1" "[s['packets'] for s in d['stage'] if s['decision']=='$2'][0]"; }
sent_of() { jget "$1" "d['sent']"; }
check() { # check DESCRIPTION CMD...: counts a failure unless CMD succeeds
	local what=$1; shift
	if "$@"; then e2e_log "ok: $what"; else e2e_log "NOT OK: $what"; E2E_FAILS=$((E2E_FAILS + 1)); fi
}

# ---- the victim: HTTP server, UDP listener, then the filter ----------------
# Its way out is upstream past the attacker's port, and it takes packets from
# any source (no reverse-path filter), so spoofed packets that pass the
# filter would reach its sockets, as on a real server.
ip -n "$vic" route add default via "$AIP"
ip netns exec "$vic" sysctl -qw net.ipv4.conf.all.rp_filter=0 "net.ipv4.conf.$vv.rp_filter=0"
mkdir -p "$E2E_TMP/www"
head -c 4096 /dev/urandom | base64 >"$E2E_TMP/www/index.html"
page_size=$(stat -c %s "$E2E_TMP/www/index.html")
e2e_bg ip netns exec "$vic" "$PY" -m http.server 8000 --bind "$VIP" \
	--directory "$E2E_TMP/www" >"$E2E_TMP/http.log" 2>&1
e2e_bg ip netns exec "$vic" "${TRAFFIC[@]}" listen --port 53 --port 7000 \
	--out "$E2E_TMP/listen.json" --answer >"$E2E_TMP/listen.log" 2>&1
if ! e2e_wait_for "ip netns exec $cli curl -sf -o /dev/null --max-time 1 http://$VIP:8000/index.html" 20; then
	e2e_ns "$cli" ping -c 1 -W 1 "$VIP" >&2 || true
	e2e_ns "$vic" ss -ltn >&2 || true
	sed 's/^/  http.log| /' "$E2E_TMP/http.log" >&2
	e2e_fail "the HTTP server in $vic does not answer"
fi
e2e_wait_for "test -s $E2E_TMP/listen.json" 5 || e2e_fail "the UDP listener did not start"
# every host talks once, so the bridge knows where each MAC is
for ns in "$atk" "$cli"; do
	e2e_ns "$ns" ping -c 1 -W 2 "$VIP" >/dev/null || e2e_fail "no ping $ns -> victim"
done

# torture_in: queries in the zone example.com other than the names it passes
torture_in() { jget "$E2E_TMP/listen.json" "d['zones'].get('example.com',0) - d['names'].get('www.example.com',0) - d['names'].get('example.com',0)"; }
# Without the filter the spoofed queries do reach the listener (so that its
# count of zero later means something).
ip netns exec "$atk" "${TRAFFIC[@]}" send "$av" --dst-mac "$VMAC" --dst "$VIP" --rand-src "$SPOOF" \
	--dns example.com --rand-label --count 200 --report "$E2E_TMP/pre.json" || e2e_fail "sender failed"
e2e_wait_for "test \$(torture_in) -ge 200" 3 ||
	e2e_fail "without the filter, $(torture_in) of 200 spoofed queries reached the listener; the lab is wrong"
torture0=$(torture_in)
fp filter load "$vv" --mode native "$RULES" >/dev/null || e2e_fail "filter load $vv failed"
ip -n "$vic" link show "$vv" | grep -q 'prog/xdp ' || e2e_fail "no native XDP program on $vv"

# ---- the client: real HTTP exchanges until told to stop ---------------------
cat >"$E2E_TMP/client.sh" <<EOF
end=\$((SECONDS + 280))
while [[ ! -e $E2E_TMP/stop-client ]] && (( SECONDS < end )); do
	r=\$(curl -s -o /dev/null -w '%{http_code} %{size_download}' --max-time 5 \
		http://$VIP:8000/index.html) || true
	if [[ \$r == "200 $page_size" ]]; then echo ok; else echo "fail \$r"; fi
	sleep 0.05
done >>$E2E_TMP/client.log
EOF
e2e_bg ip netns exec "$cli" bash "$E2E_TMP/client.sh"
client_pid=$E2E_BG_PID
client_ok() { grep -c '^ok' "$E2E_TMP/client.log" 2>/dev/null || true; }
client_fail() { grep -c '^fail' "$E2E_TMP/client.log" 2>/dev/null || true; }

# lost: frames the veths dropped on the way to the victim (a full ring or
# backlog under load counts as tx_dropped of the sending veth). A frame lost
# there never reached XDP, so counters may lack exactly that many.
lost() { echo $(( $(e2e_counter "$atk" "$av" tx_dropped) + $(e2e_counter "$sw" "$sv" tx_dropped) )); }
# matches SENT COUNTED LOST: COUNTED == SENT, or short by no more than what
# the path lost (and that under 1%, else the lab was too loaded to judge).
matches() {
	local sent=$1 got=$2 lost=$3
	(( lost * 100 <= sent )) || { e2e_log "the path lost $lost of $sent frames: too loaded"; return 1; }
	(( got <= sent && sent - got <= lost ))
}
attack() { # attack NAME ARGS...: one bounded attack; sender report in $E2E_TMP/NAME.json, path losses in NAME.lost
	local name=$1 l0; shift
	l0=$(lost)
	ip netns exec "$atk" "${TRAFFIC[@]}" send "$av" --dst-mac "$VMAC" --dst "$VIP" \
		--rand-src "$SPOOF" --report "$E2E_TMP/$name.json" "$@" ||
		e2e_fail "attack $name: the sender failed"
	echo $(( $(lost) - l0 )) >"$E2E_TMP/$name.lost"
}

# ---- 1. each attack alone: per-rule counters equal what was sent ------------
e2e_log "phase 1: UDP flood, DNS water torture, SYN flood, one after the other"
stats "$E2E_TMP/s0.json"
attack udp --udp 1024-65535 --count 100000 --duration 60
attack dns --dns example.com --rand-label --count 20000 --duration 60
attack syn --syn 8000 --count 50000 --duration 60
ok_dns=0
e2e_ns "$cli" "${TRAFFIC[@]}" dnsq "$VIP" www.example.com && ok_dns=$((ok_dns + 1))
e2e_ns "$cli" "${TRAFFIC[@]}" dnsq "$VIP" ns1.example.org && ok_dns=$((ok_dns + 1))
sleep 0.5
stats "$E2E_TMP/s1.json"
udp_sent=$(sent_of "$E2E_TMP/udp.json"); dns_sent=$(sent_of "$E2E_TMP/dns.json")
syn_sent=$(sent_of "$E2E_TMP/syn.json")
# a random source port can be 1900 or 11211: the reflection rule takes those
udp_drop=$(rule_pkts "$E2E_TMP/s1.json" udp-flood,reflection)
dns_drop=$(rule_pkts "$E2E_TMP/s1.json" dns-water-torture)
syn_drop=$(rule_pkts "$E2E_TMP/s1.json" syn-flood)
lost_udp=$(cat "$E2E_TMP/udp.lost"); lost_dns=$(cat "$E2E_TMP/dns.lost"); lost_syn=$(cat "$E2E_TMP/syn.lost")
e2e_log "sent udp=$udp_sent dns=$dns_sent syn=$syn_sent; dropped by rule udp=$udp_drop dns=$dns_drop syn=$syn_drop; lost on the path udp=$lost_udp dns=$lost_dns syn=$lost_syn"
check "UDP flood: rules udp-flood+reflection counted all $udp_sent" matches "$udp_sent" "$udp_drop" "$lost_udp"
check "water torture: rule dns-water-torture counted all $dns_sent" matches "$dns_sent" "$dns_drop" "$lost_dns"
check "SYN flood: rule syn-flood counted all $syn_sent" matches "$syn_sent" "$syn_drop" "$lost_syn"
check "both legitimate DNS queries were answered" test "$ok_dns" -eq 2
check "the listener got no water-torture query" test "$(torture_in)" -eq "$torture0"
check "the listener got the legitimate queries" \
	test "$(jget "$E2E_TMP/listen.json" "d['names'].get('www.example.com',0) + d['names'].get('ns1.example.org',0)")" -ge 2
check "the client's requests all succeeded so far ($(client_ok) ok)" test "$(client_fail)" -eq 0

# ---- 2. all attacks at once, 100 applies alternating two rule sets ---------
e2e_log "phase 2: all attacks at once during $APPLIES applies"
# Same verdicts for the attack and the client, otherwise different: extra
# unrelated rules in front, every id renamed.
{
	echo "drop src 203.0.113.0/24 id b-blocklist \"a blocklisted network\""
	echo "pass tcp dport 22 src 192.0.2.0/24 id b-ssh-office"
	echo "drop ip6 udp dport 5353 id b-mdns6"
	echo "limit 50/s udp dport 123 by src id b-ntp"
	echo "drop udp dport 500,4500 id b-ike"
	sed -E 's/ id ([A-Za-z0-9_.:-]+)/ id b-\1/' "$RULES"
} >"$E2E_TMP/ddos-b.rules"
fp rules check "$E2E_TMP/ddos-b.rules" >/dev/null || e2e_fail "the variant rule set does not parse"
stats "$E2E_TMP/p0.json"
lost0=$(lost)
gen0=$(jget "$E2E_TMP/p0.json" "d['generation']")
ok0=$(client_ok)
pids=()
for a in "udp --udp 1024-65535 --pps 8000" "dns --dns example.com --rand-label --pps 3000" \
	"syn --syn 8000 --pps 5000"; do
	# shellcheck disable=SC2086
	set -- $a
	name=$1; shift
	e2e_bg ip netns exec "$atk" "${TRAFFIC[@]}" send "$av" --dst-mac "$VMAC" --dst "$VIP" \
		--rand-src "$SPOOF" --report "$E2E_TMP/p-$name.json" --duration 200 "$@"
	pids+=("$E2E_BG_PID")
done
sleep 1
t0=$(date +%s%N)
for (( i = 1; i <= APPLIES; i++ )); do
	if (( i % 2 )); then f=$E2E_TMP/ddos-b.rules; else f=$RULES; fi
	fp filter apply "$vv" "$f" >"$E2E_TMP/apply.out" 2>&1 || {
		cat "$E2E_TMP/apply.out" >&2; e2e_fail "apply $i of $f failed"; }
done
apply_s=$(( ($(date +%s%N) - t0) / 1000000 ))
sleep 1
for p in "${pids[@]}"; do e2e_kill "$p"; done
sleep 0.5
stats "$E2E_TMP/p1.json"
lost2=$(( $(lost) - lost0 ))
sent2=0
for n in udp dns syn; do
	[[ -s $E2E_TMP/p-$n.json ]] || e2e_fail "attack $n wrote no report"
	s=$(sent_of "$E2E_TMP/p-$n.json"); sent2=$((sent2 + s))
	e2e_log "  $n: $(cat "$E2E_TMP/p-$n.json")"
done
d() { echo $(( $(stage_pkts "$E2E_TMP/p1.json" "$1") - $(stage_pkts "$E2E_TMP/p0.json" "$1") )); }
rd=$(d rule_drop) rp=$(d rule_pass) lp=$(d limit_pass) ld=$(d limit_drop)
dp=$(d default_pass) dd=$(d default_drop) nr=$(d no_rules)
gen1=$(jget "$E2E_TMP/p1.json" "d['generation']")
ok2=$(( $(client_ok) - ok0 ))
e2e_log "$APPLIES applies in ${apply_s} ms, generation $gen0 -> $gen1; attack sent $sent2, path lost $lost2"
e2e_log "stage: rule_drop=$rd rule_pass=$rp limit_pass=$lp limit_drop=$ld default_pass=$dp default_drop=$dd no_rules=$nr"
check "generation moved by $APPLIES" test "$gen1" -eq $((gen0 + APPLIES))
check "every attack packet was dropped by a rule, and nothing else was (rule_drop $rd == sent $sent2)" \
	matches "$sent2" "$rd" "$lost2"
check "no limit or default drop (client SYNs are within their limit)" test $((ld + dd)) -eq 0
check "client traffic passed by rule during the applies ($((rp + lp)) packets)" test $((rp + lp)) -gt 0
check "the client made requests during the applies ($ok2)" test "$ok2" -ge 10
check "no water-torture query reached the listener" test "$(torture_in)" -eq "$torture0"
check "no client request failed ($(client_ok) ok)" test "$(client_fail)" -eq 0

# ---- 3. limit: ~10x the rate for 4 s, what passes is within 10% -------------
e2e_log "phase 3: limit 1000/s udp dport 7000, offered ~10,000/s"
echo "limit 1000/s udp dport 7000 id lim7000" >"$E2E_TMP/limit.rules"
fp filter apply "$vv" "$E2E_TMP/limit.rules" >/dev/null || e2e_fail "apply of the limit rule failed"
sleep 1.2   # let the bucket fill to its burst, as after any idle second
stats "$E2E_TMP/l0.json"
in0=$(jget "$E2E_TMP/listen.json" "d['ports']['7000']")
ip netns exec "$atk" "${TRAFFIC[@]}" send "$av" --dst-mac "$VMAC" --dst "$VIP" --src "$AIP" \
	--udp 7000 --pps 10000 --duration 4 --report "$E2E_TMP/lim.json" || e2e_fail "limit sender failed"
sleep 0.6
stats "$E2E_TMP/l1.json"
in1=$(jget "$E2E_TMP/listen.json" "d['ports']['7000']")
lim_sent=$(sent_of "$E2E_TMP/lim.json"); lim_s=$(jget "$E2E_TMP/lim.json" "d['seconds']")
lim_pass=$(( $(stage_pkts "$E2E_TMP/l1.json" limit_pass) - $(stage_pkts "$E2E_TMP/l0.json" limit_pass) ))
lim_drop=$(( $(stage_pkts "$E2E_TMP/l1.json" limit_drop) - $(stage_pkts "$E2E_TMP/l0.json" limit_drop) ))
got=$((in1 - in0))
read -r offered rate err_pct < <("$PY" -c "
s,t,g=$lim_sent,$lim_s,$got
r=g/t; print(round(s/t), round(r,1), round(abs(r-1000)/10,2))")
e2e_log "limit: offered $lim_sent in ${lim_s}s (~$offered/s); passed $lim_pass, dropped $lim_drop; listener got $got = $rate/s (${err_pct}% off 1000/s)"
check "offered at least 8x the rate" test "$offered" -ge 8000
check "limit_pass + limit_drop == sent" test $((lim_pass + lim_drop)) -eq "$lim_sent"
check "the listener got what limit_pass counted" test "$got" -eq "$lim_pass"
check "passed rate within 10% of 1000/s" "$PY" -c "import sys; sys.exit(0 if $err_pct <= 10 else 1)"

touch "$E2E_TMP/stop-client"
e2e_kill "$client_pid"
e2e_log "client: $(client_ok) requests ok, $(client_fail) failed"
fp filter unload "$vv" >/dev/null || e2e_fail "filter unload failed"
(( E2E_FAILS == 0 )) || e2e_fail "$E2E_FAILS checks failed"
e2e_pass "dropped udp=$udp_sent dns=$dns_sent syn=$syn_sent, then $rd during $APPLIES applies; $(client_ok) HTTP requests ok; limit $rate/s"
