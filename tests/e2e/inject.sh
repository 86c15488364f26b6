#!/usr/bin/env bash
# `fastpath inject` end to end, over a veth pair between two namespaces,
# the peer's `fastpath capture` as the receiver:
# 1. the peer receives exactly the 200 frames of the pcap, in order, bytes
#    identical (tshark dumps both files), and inject reports 200 sent;
# 2. --pps 2000 --loop 5: 1000 frames, paced: the receiver's first-to-last
#    span and inject's own rate are within 5% of the asked rate;
# 3. bad input: a missing, a corrupt, another link type's pcap, a frame
#    larger than the MTU (its number named), no interface, a queue out of
#    range: exit 1 or 2 and nothing sent (the receiver's counter stays).
. "$(dirname "$0")/lib.sh"
e2e_require tshark python3 ethtool

tools=$E2E_REPO/tests/e2e/capture_tools.py
e2e_scapy
nsa=$(e2e_name ia); nsv=$(e2e_name iv)
ifa=$(e2e_name va); ifv=$(e2e_name vv)
e2e_netns_add "$nsa"; e2e_netns_add "$nsv"
e2e_veth "$nsa" "$ifa" "$nsv" "$ifv" 10.0.1.1 10.0.1.2
for n in "$nsa" "$nsv"; do ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1; done
maca=$(e2e_mac "$nsa" "$ifa"); macv=$(e2e_mac "$nsv" "$ifv")
inj() { ip netns exec "$nsa" "$FASTPATH" inject "$@"; }
# receive N frames to 9000 on ifv into FILE (the capture runs in the background)
receive() {
	e2e_bg ip netns exec "$nsv" "$FASTPATH" capture "$ifv" --match 'udp dport 9000' --count "$1" \
		--duration 60 -w "$2" 2>"$2.err"
	rx=$E2E_BG_PID
	e2e_wait_for "grep -q 'capturing on' '$2.err'" 10 || e2e_fail "the receiver did not start: $(cat "$2.err")"
}

n=200
ip netns exec "$nsa" "$PY" "$tools" frames "$E2E_TMP/sent.pcap" "$maca" "$macv" $n || e2e_fail "frames"

# ---- 1. exactly the pcap's frames, in order, bytes identical ---------------
receive $n "$E2E_TMP/r.pcap"
inj "$ifa" -r "$E2E_TMP/sent.pcap" >"$E2E_TMP/i.out" 2>&1 || e2e_fail "inject: $(cat "$E2E_TMP/i.out")"
grep -q "^$n sent, 0 failed" "$E2E_TMP/i.out" || e2e_fail "inject reports: $(cat "$E2E_TMP/i.out")"
e2e_wait_for "! kill -0 $rx" 10 || e2e_fail "the receiver did not get $n frames: $(cat "$E2E_TMP/r.pcap.err")"
wait "$rx" || e2e_fail "the receiver failed: $(cat "$E2E_TMP/r.pcap.err")"
e2e_frame_hex "$E2E_TMP/sent.pcap" >"$E2E_TMP/sent.hex"
e2e_frame_hex "$E2E_TMP/r.pcap" >"$E2E_TMP/r.hex"
[[ $(wc -l <"$E2E_TMP/sent.hex") == "$n" ]] || e2e_fail "tshark reads $(wc -l <"$E2E_TMP/sent.hex") sent frames"
cmp -s "$E2E_TMP/sent.hex" "$E2E_TMP/r.hex" ||
	e2e_fail "received frames differ from the pcap: $(diff "$E2E_TMP/sent.hex" "$E2E_TMP/r.hex" | head -5)"

# ---- 2. --pps: within 5% of the asked rate ----------------------------------
receive 1000 "$E2E_TMP/p.pcap"
ip netns exec "$nsa" "$FASTPATH" -j inject "$ifa" -r "$E2E_TMP/sent.pcap" --pps 2000 --loop 5 \
	>"$E2E_TMP/p.json" 2>&1 || e2e_fail "inject --pps: $(cat "$E2E_TMP/p.json")"
e2e_wait_for "! kill -0 $rx" 10 || e2e_fail "the receiver did not get 1000 frames: $(cat "$E2E_TMP/p.pcap.err")"
wait "$rx" || e2e_fail "the receiver failed: $(cat "$E2E_TMP/p.pcap.err")"
read -r got span < <("$PY" "$tools" span "$E2E_TMP/p.pcap")
[[ $got == 1000 ]] || e2e_fail "received $got of 1000 paced frames"
python3 - "$E2E_TMP/p.json" "$span" <<'PY' || e2e_fail "--pps 2000 is off: $(cat "$E2E_TMP/p.json"), receiver span $span s"
import json, sys
d = json.load(open(sys.argv[1]))
want = 999 / 2000.0
span = float(sys.argv[2])
assert d["sent"] == 1000 and d["failed"] == 0, d
assert abs(d["pps"] - 2000) <= 100, ("inject's rate", d["pps"])
assert abs(span - want) <= 0.05 * want, ("receiver span", span, want)
print("pps: inject %.0f, receiver %.0f" % (d["pps"], 999 / span), file=sys.stderr)
PY

# ---- 3. bad input: a clear error, nothing sent -----------------------------
rx0=$(e2e_counter "$nsv" "$ifv" rx_packets)
expect() { # expect RC PATTERN CMD...
	local want=$1 pat=$2 rc; shift 2
	"$@" >"$E2E_TMP/bad.out" 2>"$E2E_TMP/bad.err"; rc=$?
	[[ $rc == "$want" ]] || e2e_fail "'$*' exits $rc, want $want: $(cat "$E2E_TMP/bad.err")"
	grep -q -- "$pat" "$E2E_TMP/bad.err" || e2e_fail "'$*' does not say '$pat': $(cat "$E2E_TMP/bad.err")"
}
head -c 300 /dev/urandom >"$E2E_TMP/corrupt.pcap"
ip netns exec "$nsa" "$PY" "$tools" oversize "$E2E_TMP/big.pcap" "$maca" "$macv" || e2e_fail "oversize"
"$PY" "$tools" rawlink "$E2E_TMP/raw.pcap" 2>/dev/null || e2e_fail "rawlink"
# a pcap cut after its second frame's header
head -c $(( 24 + 16 + 43 + 16 + 10 )) "$E2E_TMP/sent.pcap" >"$E2E_TMP/cut.pcap"
expect 1 "cannot read $E2E_TMP/nosuch.pcap" inj "$ifa" -r "$E2E_TMP/nosuch.pcap"
expect 1 "cannot read $E2E_TMP/corrupt.pcap" inj "$ifa" -r "$E2E_TMP/corrupt.pcap"
expect 1 "link type RAW" inj "$ifa" -r "$E2E_TMP/raw.pcap"
expect 1 "frame 3 is 1614 bytes; $ifa sends 14..1514" inj "$ifa" -r "$E2E_TMP/big.pcap"
expect 1 "after frame 1" inj "$ifa" -r "$E2E_TMP/cut.pcap"
expect 1 "no interface 'nosuchif0'" inj nosuchif0 -r "$E2E_TMP/sent.pcap"
expect 2 "queue 3: $ifa has RX queues 0..0" inj "$ifa" -r "$E2E_TMP/sent.pcap" --queue 3
expect 2 "say what to send" inj "$ifa"
expect 2 "pps takes" inj "$ifa" -r "$E2E_TMP/sent.pcap" --pps 0
sleep 0.2
rx1=$(e2e_counter "$nsv" "$ifv" rx_packets)
(( rx1 == rx0 )) || e2e_fail "bad input sent $((rx1 - rx0)) frames"
e2e_pass
