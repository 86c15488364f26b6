#!/usr/bin/env bash
# `fastpath capture` end to end, over a veth pair between two namespaces:
# 1. bad input (no interface, a queue out of range, a match expression
#    with an error, missing options): exit 2 or 1, a clear message, and
#    nothing left loaded or attached;
# 2. while a paced TCP transfer between the two ends runs, `capture
#    --match 'udp dport 9000' --count 200` takes exactly the 200 UDP frames
#    sent to 9000, in order, bytes identical (tshark dumps both files),
#    none of the TCP traffic, and the transfer completes byte for byte;
#    the capture, having loaded the pipeline, leaves nothing behind;
#    10,000 packets through a 256-frame ring: every frame is given back
#    to the fill ring, none lost;
# 3. a second capture on the same queue is refused, the first goes on;
# 4. kill -9 of a capture under traffic: a UDP listener on 9000 on the
#    capturing side gets nothing while it runs and receives again within
#    a second; the stage counts those packets as passed on (no socket);
#    the next capture takes the queue over; -w - streams to tshark.
# 5. two queues (veth with 2 RX queues), --queue all: frames of many flows
#    are taken from both, every one of them.
. "$(dirname "$0")/lib.sh"
e2e_require tshark python3 ethtool

tools=$E2E_REPO/tests/e2e/capture_tools.py
e2e_scapy
nsa=$(e2e_name ca); nsv=$(e2e_name cv)
ifa=$(e2e_name va); ifv=$(e2e_name vv)
e2e_netns_add "$nsa"; e2e_netns_add "$nsv"
e2e_veth "$nsa" "$ifa" "$nsv" "$ifv" 10.0.1.1 10.0.1.2
for n in "$nsa" "$nsv"; do ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1; done
maca=$(e2e_mac "$nsa" "$ifa"); macv=$(e2e_mac "$nsv" "$ifv")
cap() { ip netns exec "$nsv" "$FASTPATH" capture "$@"; }
pins=$FASTPATH_BPFFS/$ifv
# nothing of fastpath on ifv: no pins, no XDP program
untouched() {
	[[ ! -e $pins ]] || { e2e_log "pins left: $(ls -R "$pins" | head -20)"; return 1; }
	! ip -n "$nsv" link show "$1" | grep -q 'prog/xdp' || { e2e_log "XDP left on $1"; return 1; }
}
# what the steer stage counted on queue Q: "REDIRECTED NO_SOCKET UNMATCHED"
steer_counts() {
	python3 - "$pins/steer/fp_steer_cnt" "${1:-0}" <<'PY'
import json, subprocess, sys
out = subprocess.run(['bpftool', '-j', 'map', 'lookup', 'pinned', sys.argv[1], 'key',
                      str(int(sys.argv[2])), '0', '0', '0'], capture_output=True, text=True,
                     check=True).stdout
tot = [0, 0, 0]
for cpu in json.loads(out)['values']:
    v = bytes(int(b, 16) for b in cpu['value'])
    for i in range(3):
        tot[i] += int.from_bytes(v[8 * i:8 * i + 8], 'little')
print(*tot)
PY
}

# ---- 1. bad input: exit code, message, nothing left -----------------------
expect() { # expect RC PATTERN CMD...
	local want=$1 pat=$2 rc; shift 2
	"$@" >"$E2E_TMP/bad.out" 2>"$E2E_TMP/bad.err"; rc=$?
	[[ $rc == "$want" ]] || e2e_fail "'$*' exits $rc, want $want: $(cat "$E2E_TMP/bad.err")"
	grep -q -- "$pat" "$E2E_TMP/bad.err" ||
		e2e_fail "'$*' does not say '$pat': $(cat "$E2E_TMP/bad.err")"
	untouched "$ifv" || e2e_fail "'$*' left fastpath on $ifv"
}
expect 1 "no interface 'nosuchif0'" cap nosuchif0 --match 'udp dport 9000' -w "$E2E_TMP/x.pcap"
expect 2 "queue 5: $ifv has RX queues 0..0" cap "$ifv" --match 'udp dport 9000' --queue 5 -w "$E2E_TMP/x.pcap"
expect 2 "queue takes a queue number or all" cap "$ifv" --match 'udp dport 9000' --queue x -w "$E2E_TMP/x.pcap"
expect 2 "--match: column 16: unknown term .frobnicate." cap "$ifv" --match 'udp dport 9000 frobnicate' -w "$E2E_TMP/x.pcap"
expect 2 "--match: column 11" cap "$ifv" --match 'udp dport 70000' -w "$E2E_TMP/x.pcap"
expect 2 "say which packets to take" cap "$ifv" -w "$E2E_TMP/x.pcap"
expect 2 "say where to write" cap "$ifv" --match 'udp'
expect 2 "format takes pcap or pcapng" cap "$ifv" --match 'udp' -w "$E2E_TMP/x.pcap" --format cap
expect 2 "expected IFACE" cap --match 'udp' -w "$E2E_TMP/x.pcap"
expect 2 "ring takes a power of two 64..262144, not '3000'" cap "$ifv" --match 'udp' -w "$E2E_TMP/x.pcap" --ring 3000
expect 2 "busy-poll takes microseconds" cap "$ifv" --match 'udp' -w "$E2E_TMP/x.pcap" --busy-poll 0

# ---- 2. 200 UDP frames taken while a TCP transfer runs --------------------
n=200
ip netns exec "$nsa" "$PY" "$tools" frames "$E2E_TMP/sent.pcap" "$maca" "$macv" $n ||
	e2e_fail "cannot build the frames"
e2e_bg ip netns exec "$nsv" "$PY" "$tools" tcp-server 5001 "$E2E_TMP/tcp.srv"
e2e_bg ip netns exec "$nsv" "$FASTPATH" capture "$ifv" --match 'udp dport 9000' --count $n \
	--duration 60 -w "$E2E_TMP/c.pcap" 2>"$E2E_TMP/c.err"
c=$E2E_BG_PID
e2e_wait_for "grep -q 'capturing on' '$E2E_TMP/c.err'" 10 || e2e_fail "capture did not start: $(cat "$E2E_TMP/c.err")"
grep -q "capturing on $ifv queue 0 (copy mode)" "$E2E_TMP/c.err" ||
	e2e_fail "the capture does not say its mode: $(cat "$E2E_TMP/c.err")"
e2e_wait_for "ip netns exec $nsv ss -Hltn 'sport = :5001' | grep -q 5001" 10 || e2e_fail "no TCP server"
# the transfer (24 MiB over ~3 s) runs before, during and after the UDP frames
e2e_bg ip netns exec "$nsa" "$PY" "$tools" tcp-client 10.0.1.2 5001 $((24 << 20)) 3 \
	>"$E2E_TMP/tcp.cli" 2>"$E2E_TMP/tcp.cli.err"
tc=$E2E_BG_PID
sleep 0.5
ip netns exec "$nsa" "$PY" "$tools" send "$ifa" "$E2E_TMP/sent.pcap" 0.005 ||
	e2e_fail "cannot send the frames"
e2e_wait_for "! kill -0 $c" 10 || e2e_fail "the capture did not end after $n frames: $(cat "$E2E_TMP/c.err")"
wait "$c"; rc=$?
[[ $rc == 0 ]] || e2e_fail "capture exits $rc: $(cat "$E2E_TMP/c.err")"
grep -q "^$n received, $n written, 0 lost" "$E2E_TMP/c.err" ||
	e2e_fail "capture summary: $(cat "$E2E_TMP/c.err")"
e2e_wait_for "! kill -0 $tc" 20 || e2e_fail "the TCP transfer did not complete"
wait "$tc" || e2e_fail "the TCP client failed: $(cat "$E2E_TMP/tcp.cli.err")"
e2e_wait_for "[[ -s '$E2E_TMP/tcp.srv' ]]" 10 || e2e_fail "the TCP server got no end of stream"
[[ $(cat "$E2E_TMP/tcp.srv") == "$(cat "$E2E_TMP/tcp.cli")" ]] ||
	e2e_fail "TCP transfer: sent $(cat "$E2E_TMP/tcp.cli"), received $(cat "$E2E_TMP/tcp.srv")"
e2e_frame_hex "$E2E_TMP/sent.pcap" >"$E2E_TMP/sent.hex"
e2e_frame_hex "$E2E_TMP/c.pcap" >"$E2E_TMP/c.hex"
[[ $(wc -l <"$E2E_TMP/sent.hex") == "$n" ]] || e2e_fail "tshark reads $(wc -l <"$E2E_TMP/sent.hex") sent frames"
cmp -s "$E2E_TMP/sent.hex" "$E2E_TMP/c.hex" ||
	e2e_fail "captured frames differ from those sent: $(diff "$E2E_TMP/sent.hex" "$E2E_TMP/c.hex" | head -5)"
tcp=$(tshark -r "$E2E_TMP/c.pcap" -Y tcp 2>/dev/null | wc -l)
[[ $tcp == 0 ]] || e2e_fail "$tcp TCP packets in the capture"
untouched "$ifv" || e2e_fail "the capture left fastpath on $ifv after it ended"

# ---- 3. a second capture on the same queue is refused ---------------------
e2e_bg ip netns exec "$nsv" "$FASTPATH" capture "$ifv" --match 'udp dport 9000' \
	--duration 60 --format pcapng -w "$E2E_TMP/a.pcapng" 2>"$E2E_TMP/a.err"
a=$E2E_BG_PID
e2e_wait_for "grep -q 'capturing on' '$E2E_TMP/a.err'" 10 || e2e_fail "capture A did not start: $(cat "$E2E_TMP/a.err")"
cap "$ifv" --match 'udp dport 53' -w "$E2E_TMP/b.pcap" 2>"$E2E_TMP/b.err"; rc=$?
[[ $rc == 1 ]] || e2e_fail "a second capture on queue 0 exits $rc: $(cat "$E2E_TMP/b.err")"
grep -q "a capture (pid $a) already takes $ifv queue 0" "$E2E_TMP/b.err" ||
	e2e_fail "the refusal does not name the running capture: $(cat "$E2E_TMP/b.err")"
kill -0 "$a" 2>/dev/null || e2e_fail "capture A ended when B was refused"
ip netns exec "$nsa" "$PY" "$tools" send "$ifa" "$E2E_TMP/sent.pcap" 0 || e2e_fail "send"
kill -INT "$a"
e2e_wait_for "! kill -0 $a" 5 || e2e_fail "capture A did not stop on SIGINT"
wait "$a"; rc=$?
[[ $rc == 0 ]] || e2e_fail "capture A exits $rc on SIGINT: $(cat "$E2E_TMP/a.err")"
grep -q "^$n received, $n written, 0 lost" "$E2E_TMP/a.err" ||
	e2e_fail "capture A after B was refused: $(cat "$E2E_TMP/a.err")"
e2e_frame_hex "$E2E_TMP/a.pcapng" >"$E2E_TMP/a.hex"
cmp -s "$E2E_TMP/sent.hex" "$E2E_TMP/a.hex" || e2e_fail "the pcapng frames differ from those sent"
untouched "$ifv" || e2e_fail "capture A left fastpath on $ifv"

# --count under a burst: what the rings held past the 50th is counted past
# --count, never lost
e2e_bg ip netns exec "$nsv" "$FASTPATH" -j capture "$ifv" --match 'udp dport 9000' --count 50 \
	--duration 30 -w "$E2E_TMP/n.pcap" >"$E2E_TMP/n.json" 2>"$E2E_TMP/n.err"
nc=$E2E_BG_PID
e2e_wait_for "grep -q 'capturing on' '$E2E_TMP/n.err'" 10 || e2e_fail "capture N did not start: $(cat "$E2E_TMP/n.err")"
ip netns exec "$nsa" "$FASTPATH" gen "$ifa" --dst-mac "$macv" --udp 9000 --count 20000 \
	--pps 400000 >/dev/null || e2e_fail "gen"
e2e_wait_for "! kill -0 $nc" 10 || e2e_fail "capture --count 50 did not end"
wait "$nc" || e2e_fail "capture --count 50 failed: $(cat "$E2E_TMP/n.err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert d["written"] == 50 and d["lost"] == 0 and d["received"] == 50 + d["past_count"], d' "$E2E_TMP/n.json" ||
	e2e_fail "capture --count 50 under a burst: $(cat "$E2E_TMP/n.json")"
untouched "$ifv" || e2e_fail "capture N left fastpath on $ifv"

# a capture many times longer than its ring: every frame goes back to the
# fill ring, again and again (a frame lost on the way would show as "fill
# ring empty" once the 256 had gone round)
e2e_bg ip netns exec "$nsv" "$FASTPATH" -j capture "$ifv" --match 'udp dport 9000' --ring 256 \
	--count 10000 --duration 30 -w "$E2E_TMP/r.pcap" >"$E2E_TMP/r.json" 2>"$E2E_TMP/r.err"
nr=$E2E_BG_PID
e2e_wait_for "grep -q 'capturing on' '$E2E_TMP/r.err'" 10 || e2e_fail "capture R did not start: $(cat "$E2E_TMP/r.err")"
ip netns exec "$nsa" "$FASTPATH" gen "$ifa" --dst-mac "$macv" --udp 9000 --count 10000 \
	--pps 5000 >/dev/null || e2e_fail "gen"
e2e_wait_for "! kill -0 $nr" 10 || e2e_fail "capture --ring 256 --count 10000 did not end"
wait "$nr" || e2e_fail "capture --ring 256 failed: $(cat "$E2E_TMP/r.err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert d["written"] == 10000 and d["lost"] == 0, d' "$E2E_TMP/r.json" ||
	e2e_fail "10000 packets through a 256-frame ring: $(cat "$E2E_TMP/r.json")"

# ---- 4. kill -9 under traffic: the stack gets the packets within a second --
e2e_bg ip netns exec "$nsv" "$PY" "$tools" udp-listen 9000 "$E2E_TMP/heard" 60
e2e_wait_for "[[ -s '$E2E_TMP/heard' ]]" 5 || e2e_fail "no UDP listener"
e2e_bg ip netns exec "$nsv" "$FASTPATH" -j capture "$ifv" --match 'udp dport 9000' \
	--duration 60 -w "$E2E_TMP/k.pcap" 2>"$E2E_TMP/k.err"
k=$E2E_BG_PID
e2e_wait_for "[[ -d '$pins/steer' ]] && [[ \$(steer_counts | cut -d' ' -f1) -gt -1 ]]" 10 ||
	e2e_fail "capture K did not start: $(cat "$E2E_TMP/k.err")"
sleep 0.3
e2e_bg ip netns exec "$nsa" "$PY" "$tools" udp-send 10.0.1.2 9000 30 "$E2E_TMP/stop"
e2e_wait_for "(( \$(steer_counts | cut -d' ' -f1) >= 100 ))" 10 ||
	e2e_fail "capture K takes nothing: $(steer_counts), $(cat "$E2E_TMP/k.err")"
[[ $(cat "$E2E_TMP/heard") == 0 ]] ||
	e2e_fail "the stack got $(cat "$E2E_TMP/heard") datagrams the capture should take"
read -r _ ns0 _ < <(steer_counts)
kill -KILL "$k"
t0=$(date +%s%N)
e2e_wait_for "(( \$(cat '$E2E_TMP/heard') > 0 ))" 3 ||
	e2e_fail "the stack gets no datagram to 9000 after kill -9 of the capture"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
(( ms <= 1000 )) || e2e_fail "the stack got the datagrams again only after $ms ms"
read -r _ ns1 _ < <(steer_counts)
(( ns1 > ns0 )) || e2e_fail "the stage does not count the packets it passed on: $ns0 -> $ns1"
e2e_log "after kill -9: the stack receives again within $ms ms"
# the next capture takes over the dead one's queue; -w - streams to tshark
ip netns exec "$nsv" "$FASTPATH" capture "$ifv" --match 'udp dport 9000' --count 20 \
	--duration 20 -w - 2>"$E2E_TMP/s.err" | tshark -r - -T fields -e udp.dstport \
	>"$E2E_TMP/s.txt" 2>/dev/null
[[ $(grep -c '^9000$' "$E2E_TMP/s.txt") == 20 ]] ||
	e2e_fail "-w - after the kill: $(wc -l <"$E2E_TMP/s.txt") packets; $(cat "$E2E_TMP/s.err")"
# it ended under traffic: what was steered after its 20th is past --count, not lost
grep -qE '^[0-9]+ received, 20 written, 0 lost .*' "$E2E_TMP/s.err" ||
	e2e_fail "-w - --count 20 under traffic: $(cat "$E2E_TMP/s.err")"
touch "$E2E_TMP/stop"
# the killed capture's stage stays (passing everything) until unloaded
ip netns exec "$nsv" "$FASTPATH" pipeline unload "$ifv" >/dev/null || e2e_fail "pipeline unload"
untouched "$ifv" || e2e_fail "pipeline unload left fastpath on $ifv"

# ---- 5. two queues: --queue all serves both (busy polling both sockets) -----
ifa2=$(e2e_name qa); ifv2=$(e2e_name qv)
ip link add "$ifa2" numtxqueues 2 numrxqueues 2 netns "$nsa" type veth peer name "$ifv2" \
	numtxqueues 2 numrxqueues 2 netns "$nsv" || e2e_fail "cannot create a 2-queue veth"
E2E_LINKS+=("$nsa $ifa2")
ip -n "$nsa" link set "$ifa2" up; ip -n "$nsv" link set "$ifv2" up
ip netns exec "$nsa" ethtool -K "$ifa2" gro on >/dev/null 2>&1
mac2=$(e2e_mac "$nsv" "$ifv2"); maca2=$(e2e_mac "$nsa" "$ifa2")
ip netns exec "$nsa" "$PY" "$tools" frames "$E2E_TMP/sent2.pcap" "$maca2" "$mac2" $n || e2e_fail "frames"
e2e_bg ip netns exec "$nsv" "$FASTPATH" -j capture "$ifv2" --match 'udp dport 9000' --queue all \
	--busy-poll 20 --ring 1024 --duration 30 -w "$E2E_TMP/q.pcap" >"$E2E_TMP/q.json" 2>"$E2E_TMP/q.err"
q=$E2E_BG_PID
e2e_wait_for "[[ -d '$FASTPATH_BPFFS/$ifv2/steer' ]]" 10 || e2e_fail "capture --queue all did not start: $(cat "$E2E_TMP/q.err")"
sleep 0.3
pins=$FASTPATH_BPFFS/$ifv2
ip netns exec "$nsa" "$PY" "$tools" send "$ifa2" "$E2E_TMP/sent2.pcap" 0.002 || e2e_fail "send"
taken() { local a b; read -r a _ < <(steer_counts 0); read -r b _ < <(steer_counts 1); echo $((a + b)); }
e2e_wait_for "(( \$(taken) >= $n ))" 5 || e2e_fail "the stage took $(taken) of $n frames"
read -r q0 _ < <(steer_counts 0); read -r q1 _ < <(steer_counts 1)
kill -INT "$q"
e2e_wait_for "! kill -0 $q" 10 || e2e_fail "capture --queue all did not stop: $(cat "$E2E_TMP/q.err")"
wait "$q"; rc=$?
[[ $rc == 0 ]] || e2e_fail "capture --queue all exits $rc: $(cat "$E2E_TMP/q.err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert d["received"] == d["written"] == int(sys.argv[2]) and d["lost"] == 0, d' "$E2E_TMP/q.json" $n ||
	e2e_fail "capture --queue all: $(cat "$E2E_TMP/q.json")"
(( q0 > 0 && q1 > 0 && q0 + q1 == n )) || e2e_fail "queues 0 and 1 took $q0 and $q1 of $n"
e2e_frame_hex "$E2E_TMP/sent2.pcap" | sort >"$E2E_TMP/sent2.hex"
e2e_frame_hex "$E2E_TMP/q.pcap" | sort >"$E2E_TMP/q.hex"
cmp -s "$E2E_TMP/sent2.hex" "$E2E_TMP/q.hex" || e2e_fail "the frames of both queues differ from those sent"
e2e_log "two queues: $q0 + $q1 frames"
untouched "$ifv2" || e2e_fail "capture --queue all left fastpath on $ifv2: $(cat "$E2E_TMP/q.err")"
e2e_pass
