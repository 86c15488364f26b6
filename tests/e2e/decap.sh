#!/usr/bin/env bash
# The lb's backend side end to end: a "backend" namespace with the VIP on
# lo and `fastpath decap load` on its veth; from the peer namespace (where
# the lb would be) scapy sends encapsulated packets from a client address
# to the VIP: IPv4 in IPv4 (an ICMP echo and a TCP SYN to a listening
# port), IPv6 in IPv6 (an ICMPv6 echo) and IPv4 in IPv6 (an ICMP echo).
# The backend's own stack must answer the client directly from the VIP
# (direct server return: replies not encapsulated, captured with tcpdump
# on the peer), and `decap stats -j` must count each encapsulation.
# Then `decap unload` leaves no pin and no XDP program, and the same
# packets are no longer answered (this kernel has no ipip module).
# Before and around: usage errors exit 2 naming the bad argument, runtime
# failures (no interface, not loaded, loaded twice) exit 1 and leave no pin.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3   # Debian's, with python3-scapy
e2e_require tcpdump curl "$PY"
"$PY" -c 'import scapy' 2>/dev/null || e2e_skip "needs python3-scapy (scripts/deps.sh test)"
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

lb=$(e2e_name l); be=$(e2e_name b); vl=$(e2e_name vl); vb=$(e2e_name vb)
e2e_netns_add "$lb"; e2e_netns_add "$be"
net=$(( RANDOM % 200 + 20 ))
LB4=10.$net.0.1 BE4=10.$net.0.2
e2e_veth "$lb" "$vl" "$be" "$vb" "$LB4" "$BE4"
LB6=$(e2e_v6_of "$LB4") BE6=$(e2e_v6_of "$BE4")
VIP4=198.51.100.10 VIP6=2001:db8:100::10 CLIENT4=203.0.113.5 CLIENT6=2001:db8:c::5
# the backend: the VIP on lo, replies to clients through the lb's side
ip -n "$be" addr add "$VIP4/32" dev lo
ip -n "$be" -6 addr add "$VIP6/128" dev lo nodad
ip -n "$be" route add default via "$LB4"
ip -n "$be" -6 route add default via "$LB6"
ip netns exec "$be" sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2
BMAC=$(e2e_mac "$be" "$vb") LMAC=$(e2e_mac "$lb" "$vl")
T=$E2E_TMP
check() { e2e_check "$@"; } # check DESCRIPTION CMD...

# a server on the VIP's port 80: the SYN must get the stack's SYN-ACK
e2e_bg ip netns exec "$be" "$PY" -c "
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('0.0.0.0', 80)); s.listen(16); time.sleep(3600)" >"$T/server.log" 2>&1

cat >"$T/send.py" <<EOF
import sys
from scapy.all import Ether, IP, IPv6, ICMP, ICMPv6EchoRequest, TCP, Raw, sendp
sport = int(sys.argv[1])  # a new port each round: the SYN-ACK of a round before is retransmitted
eth = Ether(src="$LMAC", dst="$BMAC")
pkts = [
    # IPv4 in IPv4: an echo and a SYN from the client to the VIP
    eth / IP(src="$LB4", dst="$BE4", proto=4) /
        IP(src="$CLIENT4", dst="$VIP4") / ICMP(id=0x4444, seq=1) / Raw(b"4in4"),
    eth / IP(src="$LB4", dst="$BE4", proto=4) /
        IP(src="$CLIENT4", dst="$VIP4") / TCP(sport=sport, dport=80, flags="S", seq=1000),
    # IPv6 in IPv6
    eth / IPv6(src="$LB6", dst="$BE6", nh=41) /
        IPv6(src="$CLIENT6", dst="$VIP6") / ICMPv6EchoRequest(id=0x6666, seq=1),
    # IPv4 in IPv6
    eth / IPv6(src="$LB6", dst="$BE6", nh=4) /
        IP(src="$CLIENT4", dst="$VIP4") / ICMP(id=0x4646, seq=1) / Raw(b"4in6"),
]
sendp(pkts, iface="$vl", verbose=0)
EOF

# capture FILE: tcpdump on the lb's side into FILE until stop_capture.
capture() {
	e2e_bg ip netns exec "$lb" tcpdump -i "$vl" -n -U -w "$1" 'ip or ip6' 2>"$1.log"
	CAP_PID=$E2E_BG_PID
	e2e_wait_for "grep -q 'listening on' '$1.log'" 5 || e2e_fail "tcpdump did not start"
}
stop_capture() { sleep 0.5; e2e_kill "$CAP_PID"; }
# replies FILE: the capture's decoded packets from the VIPs.
replies() { tcpdump -r "$1" -n 2>/dev/null | grep -E "IP6? ($VIP4|$VIP6)[ .]" || true; }

e2e_wait_for "ip netns exec '$be' ss -ltn | grep -q ':80 '" 5 || e2e_fail "the server did not listen"
# the neighbours both ways first, so the replies are not held waiting for them
ip netns exec "$lb" ping -c1 -W2 "$BE4" >/dev/null || e2e_fail "no ping $BE4"
ip netns exec "$lb" ping -6 -c1 -W2 "$BE6" >/dev/null || e2e_fail "no ping $BE6"

# expect CODE ARGS...: fastpath ARGS in the backend; stdout in $T/out, stderr in $T/err
expect() {
	local want=$1 rc=0; shift
	ip netns exec "$be" "$FASTPATH" "$@" >"$T/out" 2>"$T/err" </dev/null || rc=$?
	if (( rc != want )); then
		e2e_log "NOT OK: fastpath $*: exit $rc, expected $want"
		sed 's/^/    out| /' "$T/out" >&2; sed 's/^/    err| /' "$T/err" >&2
		E2E_FAILS=$((E2E_FAILS + 1))
		return 1
	fi
}
expect 2 decap load && check "load without IFACE: usage" grep -q 'expected IFACE' "$T/err"
expect 2 decap stats "$vb" extra && check "a word after IFACE is named" grep -q "unexpected argument 'extra'" "$T/err"
expect 2 decap load "$vb" --addr 10.0.0.300 &&
	check "a bad --addr is named" grep -q "'10.0.0.300' is not an IPv4 or IPv6 address" "$T/err"
for x in 224.0.0.1 255.255.255.255 0.0.0.0 ff02::1 ::; do
	expect 2 decap load "$vb" --addr "$x" && check "--addr $x: not a unicast address" grep -q -- "--addr $x is not a unicast" "$T/err"
done
expect 2 decap nosuchverb && check "an unknown verb lists the verbs" grep -q 'load, unload, stats' "$T/err"
expect 1 decap load nosuchif0 && check "no such interface" grep -q "no interface 'nosuchif0'" "$T/err"
expect 1 -j decap stats "$vb" && check "stats before a load: a JSON error saying how to load" \
	grep -q '"error":.*fastpath decap load' "$T/out"
expect 1 decap unload "$vb" && check "unload before a load says so (nothing to unload)" \
	bash -c "grep -q 'not loaded on $vb: nothing to unload' $T/err && ! grep -q first $T/err"
check "the failed commands left no pin" bash -c "[ -z \"\$(find '$FASTPATH_BPFFS' -mindepth 1 -not -name '*.debug')\" ]"

ip netns exec "$be" "$FASTPATH" decap load "$vb" >"$T/load" 2>&1 ||
	{ cat "$T/load" >&2; e2e_fail "decap load failed"; }
check "the backend's own addresses are taken" grep -q "$BE4" "$T/load"
check "an XDP program is attached" bash -c "ip -n '$be' -d link show '$vb' | grep -q 'prog/xdp'"
expect 1 decap load "$vb" && check "a second load is refused, naming the unload" \
	grep -q "already loaded on $vb.*fastpath decap unload $vb" "$T/err"

capture "$T/on.pcap"
ip netns exec "$lb" "$PY" "$T/send.py" 40000 || e2e_fail "scapy could not send"
e2e_wait_for "[[ \$(replies '$T/on.pcap' | wc -l) -ge 4 ]]" 5 || true
stop_capture
replies "$T/on.pcap" >"$T/on.txt"
sed 's/^/    | /' "$T/on.txt" >&2
check "4in4: echo reply from the VIP to the client" \
	grep -qE "IP $VIP4 > $CLIENT4: ICMP echo reply, id 17476" "$T/on.txt"
check "4in4: SYN-ACK from the VIP:80 to the client" \
	grep -qE "IP $VIP4\.80 > $CLIENT4\.40000: Flags \[S\.\]" "$T/on.txt"
check "6in6: echo reply from the VIP to the client" \
	grep -qE "IP6 $VIP6 > $CLIENT6: ICMP6, echo reply, id 26214" "$T/on.txt"
check "4in6: echo reply from the VIP to the client" \
	grep -qE "IP $VIP4 > $CLIENT4: ICMP echo reply, id 17990" "$T/on.txt"
check "no reply is encapsulated" bash -c "! tcpdump -r '$T/on.pcap' -n 2>/dev/null |
	grep -E 'IP6? ($BE4|$BE6) > [^ ]*: IP6? '"

ip netns exec "$be" "$FASTPATH" -j decap stats "$vb" >"$T/stats" ||
	e2e_fail "decap stats failed"
"$PY" - "$T/stats" <<'EOF' >"$T/counts"
import json, sys
d = json.load(open(sys.argv[1]))
c = {r["cause"]: r["packets"] for r in d["counters"]}
print(c["4in4"], c["6in6"], c["4in6"], c["malformed"], c["fragment"], d["decapsulated"])
EOF
read -r n44 n66 n46 nbad nfrag ndec <"$T/counts"
e2e_log "counted: 4in4 $n44, 6in6 $n66, 4in6 $n46, malformed $nbad, fragment $nfrag"
check "stats count 2 4in4, 1 6in6, 1 4in6" [ "$n44 $n66 $n46 $ndec" = "2 1 1 4" ]
check "nothing dropped" [ "$nbad $nfrag" = "0 0" ]
ip netns exec "$be" "$FASTPATH" status >"$T/status" 2>&1 || true
check "status lists the decap stage" grep -q "decap" "$T/status"

# the exporter reads the stage's counters through the stage table
e2e_bg ip netns exec "$be" "$FASTPATH" exporter --listen 127.0.0.1:0 2>"$T/exporter.log"
EXP_PID=$E2E_BG_PID
if e2e_wait_for "grep -q 'listening on' '$T/exporter.log'" 10; then
	port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$T/exporter.log")
	ip netns exec "$be" curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" >"$T/metrics" || true
	grep 'stage="decap"' "$T/metrics" | sed 's/^/    | /' >&2 || true
	check "the exporter counts the decap stage's passes (>= 4)" bash -c \
		"grep 'fastpath_stage_packets_total{.*stage=\"decap\",verdict=\"pass\"}' '$T/metrics' |
		awk '{ exit !(\$NF >= 4) }'"
else
	check "the exporter started" false
fi
e2e_kill "$EXP_PID"

ip netns exec "$be" "$FASTPATH" -j decap unload "$vb" >"$T/unload" 2>&1 ||
	{ cat "$T/unload" >&2; e2e_fail "decap unload failed"; }
check "unload lists the decap pins" grep -q '"decap/decap_addrs"' "$T/unload"
check "no pin is left" bash -c "[ -z \"\$(find '$FASTPATH_BPFFS' -mindepth 1 -not -name '*.debug')\" ]"
check "no XDP program is left" bash -c "! ip -n '$be' -d link show '$vb' | grep -q 'prog/xdp'"

capture "$T/off.pcap"
ip netns exec "$lb" "$PY" "$T/send.py" 40001 || e2e_fail "scapy could not send"
sleep 1
stop_capture
# (the first round's SYN-ACK, to port 40000, is retransmitted meanwhile)
replies "$T/off.pcap" | grep -v "> $CLIENT4\.40000:" >"$T/off.txt" || true
sed 's/^/    | /' "$T/off.txt" >&2
check "after unload nothing is answered from the VIP" [ ! -s "$T/off.txt" ]

e2e_done
