#!/usr/bin/env bash
# fastpath gen end to end: frames sent through BPF_PROG_TEST_RUN live frames
# out of one veth end arrive at its peer in another namespace. Checks the
# peer's rx_packets/rx_bytes against what gen reports (-j: sent, refused), the count and
# duration bounds, pacing, the built-in templates, the MAC check, and that
# SIGINT still prints the report.
. "$(dirname "$0")/lib.sh"
e2e_require ethtool

nsa=$(e2e_name ga); nsb=$(e2e_name gb)
ifa=$(e2e_name va); ifb=$(e2e_name vb)
e2e_netns_add "$nsa"; e2e_netns_add "$nsb"
e2e_veth "$nsa" "$ifa" "$nsb" "$ifb"
# no IPv6 chatter (router solicitations, MLD) in the counters
for n in "$nsa" "$nsb"; do
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
done
mac=$(e2e_mac "$nsb" "$ifb")

gen() { ip netns exec "$nsa" "$FASTPATH" -j gen "$ifa" --dst-mac "$mac" "$@"; }
rx() { e2e_counter "$nsb" "$ifb" "$1"; }
# jf KEY: a number or true/false field of the one-line JSON on stdin
jf() { sed -n "s/.*\"$1\":\([0-9a-z.]*\).*/\1/p"; }

# 1. --count N at a rate the receiver's stack takes: all N arrive.
n=50000
p0=$(rx rx_packets); b0=$(rx rx_bytes)
out=$(gen --count $n --pps 200000) || e2e_fail "gen --count failed: $out"
sent=$(jf sent <<<"$out")
[[ $sent == "$n" ]] || e2e_fail "gen reports sent=$sent, asked for $n: $out"
e2e_wait_for "(( \$(rx rx_packets) - $p0 >= $n ))" 3
dp=$(( $(rx rx_packets) - p0 )); db=$(( $(rx rx_bytes) - b0 ))
(( dp >= n && dp <= n + 10 )) || e2e_fail "peer rx_packets grew by $dp, gen sent $n"
(( db >= n * 60 && db <= n * 60 + 10 * 1500 )) || e2e_fail "peer rx_bytes grew by $db, expected $((n * 60))"
e2e_log "count: sent $sent, peer received $dp packets, $db bytes"

# 1b. Refusals are reported, and every frame sent was either received or
#     refused: unpaced (the peer's ring may overflow), then frames longer
#     than the peer's MTU allows (veth refuses every one of them).
p0=$(rx rx_packets)
out=$(gen --count 300000) || e2e_fail "gen unpaced failed: $out"
sent=$(jf sent <<<"$out"); refused=$(jf refused <<<"$out")
[[ $refused =~ ^[0-9]+$ ]] || e2e_fail "gen reports no refused count on veth: $out"
e2e_wait_for "(( \$(rx rx_packets) - $p0 + $refused >= $sent ))" 3
dp=$(( $(rx rx_packets) - p0 ))
(( dp + refused >= sent && dp + refused <= sent + 10 )) ||
	e2e_fail "sent $sent, peer received $dp, gen says $refused refused"
e2e_log "unpaced: sent $sent, peer received $dp, refused $refused"
ip -n "$nsb" link set "$ifb" mtu 68
p0=$(rx rx_packets)
out=$(gen --count 1000 --dns a-name-long-enough-to-pass-the-peer-mtu.example)
ip -n "$nsb" link set "$ifb" mtu 1500
[[ $(jf sent <<<"$out") == 1000 && $(jf refused <<<"$out") == 1000 ]] ||
	e2e_fail "1000 frames over the peer's MTU: want sent 1000, refused 1000: $out"
(( $(rx rx_packets) - p0 <= 10 )) || e2e_fail "frames over the peer's MTU arrived"

# 2. Pacing: --pps 20000 for 1 s sends at most 20000, and (20000 pps takes
#    little CPU, and a sender whose CPU was taken catches up) at least 95% of
#    them, at a reported rate within 3% of 20000. Before the pacer kept its
#    credit through stalls, a loaded machine got 33-49% of the rate.
out=$(gen --pps 20000 --duration 1) || e2e_fail "gen --pps failed: $out"
sent=$(jf sent <<<"$out"); paced=$(jf paced <<<"$out"); pps=$(jf pps <<<"$out")
(( sent >= 19000 && sent <= 20000 )) || e2e_fail "paced to 20000 pps for 1 s, sent $sent: $out"
(( paced > 0 )) || e2e_fail "the pacer held nothing back: $out"
(( ${pps%.*} >= 19400 && ${pps%.*} <= 20600 )) || e2e_fail "paced to 20000 pps, gen reports $pps: $out"
e2e_log "pacing: 20000 pps for 1 s sent $sent, at $pps pps"

# 3. Templates and per-frame rewrites arrive whole (counted by the peer).
for t in "--syn 80" "--dns www.example.com --rand-label" "--udp 53 --rand-src 10.0.0.0/8" \
	 "--src 2001:db8::1 --dst 2001:db8::2 --syn 443"; do
	p0=$(rx rx_packets)
	# shellcheck disable=SC2086
	out=$(gen $t --count 1000 --pps 100000) || e2e_fail "gen $t failed: $out"
	e2e_wait_for "(( \$(rx rx_packets) - $p0 >= 1000 ))" 3 ||
		e2e_fail "gen $t: peer got $(( $(rx rx_packets) - p0 )) of 1000"
done
e2e_log "templates: syn, dns + rand-label, udp + rand-src, IPv6 syn arrived"

# 3b. --rand-sport: the source port varies frame to frame and the TCP/UDP
#     checksum stays right (tcpdump -vv checks it on the peer).
for t in "--udp 11211" "--syn 80"; do
	timeout 10 ip netns exec "$nsb" tcpdump -nn -vv -l -c 200 -i "$ifb" ip \
		>"$E2E_TMP/sport.txt" 2>/dev/null &
	tdp=$!
	sleep 1   # tcpdump's socket is open before the frames leave
	# shellcheck disable=SC2086
	out=$(gen $t --rand-src 10.0.0.0/8 --rand-sport --count 400 --pps 20000) ||
		e2e_fail "gen $t --rand-sport failed: $out"
	wait "$tdp"
	n=$(grep -c " > " "$E2E_TMP/sport.txt")
	ports=$(grep -o ' 10\.[0-9.]*\.[0-9]* > ' "$E2E_TMP/sport.txt" |
		sed 's/.*\.\([0-9]*\) > /\1/' | sort -u | wc -l)
	bad=$(grep -ci "bad .*cksum\|incorrect" "$E2E_TMP/sport.txt")
	(( n >= 150 )) || e2e_fail "gen $t --rand-sport: tcpdump saw $n frames"
	(( ports >= n * 9 / 10 )) || e2e_fail "gen $t --rand-sport: $ports source ports in $n frames"
	(( bad == 0 )) || e2e_fail "gen $t --rand-sport: $bad bad checksums: $(grep -i -m2 'bad\|incorrect' "$E2E_TMP/sport.txt")"
done
gen --dns www.example.com --rand-sport --src 2001:db8::1 --dst 2001:db8::2 --count 1 >/dev/null 2>&1
rc=$?; [[ $rc == 2 ]] || e2e_fail "--rand-sport on an IPv6 template: exit $rc, want 2"
e2e_log "rand-sport: udp and syn, $ports distinct ports in $n frames, checksums right"

# 4. Bounds and errors.
start=$(date +%s%N)
out=$(gen --duration 0.5) || e2e_fail "gen --duration 0.5 failed: $out"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
(( ms < 3000 )) || e2e_fail "--duration 0.5 took $ms ms"
ip netns exec "$nsa" "$FASTPATH" gen "$ifa" --count 1 >/dev/null 2>&1
rc=$?; [[ $rc == 2 ]] || e2e_fail "peer in another namespace and no --dst-mac: exit $rc, want 2"
gen --duration 0 >/dev/null 2>&1; rc=$?
[[ $rc == 2 ]] || e2e_fail "--duration 0: exit $rc, want 2"
gen --udp 9 --syn 80 >/dev/null 2>&1; rc=$?
[[ $rc == 2 ]] || e2e_fail "two templates: exit $rc, want 2"

# 5. SIGINT stops a long run and still reports (exit 0).
ip netns exec "$nsa" "$FASTPATH" -j gen "$ifa" --dst-mac "$mac" --pps 100000 --duration 60 \
	>"$E2E_TMP/int.json" 2>"$E2E_TMP/int.err" &
pid=$!
sleep 1
kill -INT "$pid"
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; e2e_fail "gen ignored SIGINT"; }
wait "$pid"; rc=$?
[[ $rc == 0 ]] || e2e_fail "gen after SIGINT: exit $rc ($(cat "$E2E_TMP/int.err"))"
[[ $(jf interrupted <"$E2E_TMP/int.json") == true ]] ||
	e2e_fail "no interrupted report: $(cat "$E2E_TMP/int.json")"
(( $(jf sent <"$E2E_TMP/int.json") > 10000 )) || e2e_fail "sent too little before SIGINT"

e2e_pass
