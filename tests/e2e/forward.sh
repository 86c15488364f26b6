#!/usr/bin/env bash
# `fastpath forward` end to end: client --veth-- forwarder --veth-- server.
# 1. 200 UDP frames to 9000 that the client sends into the forwarder's
#    IFACE_IN come out of IFACE_OUT: the server's capture gets every one,
#    in order, bytes identical; meanwhile unmatched traffic between the
#    same hosts (ping client -> forwarder) keeps working;
#    -j says the mode (veth: copy) and that IFACE_OUT's socket shares
#    IFACE_IN's umem (no copy in user space);
# 2. --swap-mac: the same frames with the two MACs swapped (edited in place);
# 3. back out of the same interface (IFACE_IN = IFACE_OUT, --swap-mac):
#    the client gets its frames back, MACs swapped;
# 4. a burst of 2000 distinct frames (fastpath inject): all out, in order,
#    bytes identical;
# 5. bad input: no interface, a match error: exit 1 / 2, nothing left.
. "$(dirname "$0")/lib.sh"
e2e_require tshark python3 ethtool ping

tools=$E2E_REPO/tests/e2e/capture_tools.py
e2e_scapy
nsc=$(e2e_name fc); nsf=$(e2e_name ff); nss=$(e2e_name fs)
ifc=$(e2e_name vc); if1=$(e2e_name v1); if2=$(e2e_name v2); ifs=$(e2e_name vs)
for n in "$nsc" "$nsf" "$nss"; do e2e_netns_add "$n"; done
e2e_veth "$nsc" "$ifc" "$nsf" "$if1" 10.0.1.1 10.0.1.2
e2e_veth "$nsf" "$if2" "$nss" "$ifs" 10.0.2.1 10.0.2.2
for n in "$nsc" "$nsf" "$nss"; do ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1; done
macc=$(e2e_mac "$nsc" "$ifc"); macs=$(e2e_mac "$nss" "$ifs")
untouched() { # NS IFACE: no pins, no XDP
	[[ ! -e $FASTPATH_BPFFS/$2 ]] && ! ip -n "$1" link show "$2" | grep -q 'prog/xdp'
}
n=200
ip netns exec "$nsc" "$PY" "$tools" frames "$E2E_TMP/sent.pcap" "$macc" "$macs" $n || e2e_fail "frames"
e2e_frame_hex "$E2E_TMP/sent.pcap" >"$E2E_TMP/sent.hex"
[[ $(wc -l <"$E2E_TMP/sent.hex") == "$n" ]] || e2e_fail "tshark reads $(wc -l <"$E2E_TMP/sent.hex") sent frames"

# run_case NAME [-j] [--swap-mac]: forwards if1 -> $fout, captures on $cns/$cif, compares
cns=$nss cif=$ifs fout=$if2
run_case() {
	local name=$1 fw rx j=; shift
	[[ ${1:-} == -j ]] && { j=-j; shift; }
	e2e_bg ip netns exec "$cns" "$FASTPATH" capture "$cif" --match 'udp dport 9000' --count $n \
		--duration 60 -w "$E2E_TMP/$name.pcap" 2>"$E2E_TMP/$name.rx.err"
	rx=$E2E_BG_PID
	e2e_bg ip netns exec "$nsf" "$FASTPATH" $j forward "$if1" "$fout" --match 'udp dport 9000' \
		--count $n --duration 60 "$@" >"$E2E_TMP/$name.fw.out" 2>"$E2E_TMP/$name.fw.err"
	fw=$E2E_BG_PID
	e2e_wait_for "grep -q 'capturing on' '$E2E_TMP/$name.rx.err' && grep -q 'forwarding' '$E2E_TMP/$name.fw.err'" 10 ||
		e2e_fail "$name: not started: $(cat "$E2E_TMP/$name.rx.err" "$E2E_TMP/$name.fw.err")"
	# unmatched traffic to the forwarder keeps working meanwhile
	ip netns exec "$nsc" ping -c 3 -i 0.2 -W 1 10.0.1.2 >/dev/null ||
		e2e_fail "$name: ping to the forwarder fails while it forwards"
	ip netns exec "$nsc" "$PY" "$tools" send "$ifc" "$E2E_TMP/sent.pcap" 0.002 || e2e_fail "send"
	e2e_wait_for "! kill -0 $fw" 10 || e2e_fail "$name: the forwarder did not end: $(cat "$E2E_TMP/$name.fw.err")"
	wait "$fw" || e2e_fail "$name: forward failed: $(cat "$E2E_TMP/$name.fw.err")"
	if [[ -n $j ]]; then
		grep -q "\"received\":$n,\"forwarded\":$n,\"failed\":0,\"lost\":0" "$E2E_TMP/$name.fw.out" ||
			e2e_fail "$name: forward -j reports $(cat "$E2E_TMP/$name.fw.out" "$E2E_TMP/$name.fw.err")"
	else
		grep -q "^$n received, $n forwarded, 0 failed, 0 lost" "$E2E_TMP/$name.fw.err" ||
			e2e_fail "$name: forward reports $(cat "$E2E_TMP/$name.fw.err")"
	fi
	e2e_wait_for "! kill -0 $rx" 10 || e2e_fail "$name: the server got fewer than $n: $(cat "$E2E_TMP/$name.rx.err")"
	wait "$rx" || e2e_fail "$name: the server's capture failed"
	e2e_frame_hex "$E2E_TMP/$name.pcap" >"$E2E_TMP/$name.hex"
	untouched "$nsf" "$if1" || e2e_fail "$name: the forwarder left fastpath on $if1"
}
run_case plain -j
# veth has no zero-copy; the frames are sent from IFACE_IN's umem as they came
grep -q '"mode":"copy","path":"shared umem"' "$E2E_TMP/plain.fw.out" ||
	e2e_fail "forward -j does not say copy mode and shared umem: $(cat "$E2E_TMP/plain.fw.out")"
grep -q 'forwarding .* (copy mode, shared umem)' "$E2E_TMP/plain.fw.err" ||
	e2e_fail "forward does not say copy mode and shared umem: $(cat "$E2E_TMP/plain.fw.err")"
cmp -s "$E2E_TMP/sent.hex" "$E2E_TMP/plain.hex" ||
	e2e_fail "forwarded frames differ: $(diff "$E2E_TMP/sent.hex" "$E2E_TMP/plain.hex" | head -4)"
run_case swap --swap-mac
# the expected frames: destination and source MAC swapped
sed -E 's/^(.{12})(.{12})/\2\1/' "$E2E_TMP/sent.hex" >"$E2E_TMP/swapped.hex"
cmp -s "$E2E_TMP/swapped.hex" "$E2E_TMP/swap.hex" ||
	e2e_fail "--swap-mac frames differ: $(diff "$E2E_TMP/swapped.hex" "$E2E_TMP/swap.hex" | head -4)"
# back out of IFACE_IN: the client's own capture takes them (dst is its MAC now)
cns=$nsc cif=$ifc fout=$if1
run_case same -j --swap-mac
cmp -s "$E2E_TMP/swapped.hex" "$E2E_TMP/same.hex" ||
	e2e_fail "frames sent back differ: $(diff "$E2E_TMP/swapped.hex" "$E2E_TMP/same.hex" | head -4)"
grep -q '"mode":"copy","path":"same umem"' "$E2E_TMP/same.fw.out" ||
	e2e_fail "forward back out of IFACE_IN: -j says $(cat "$E2E_TMP/same.fw.out")"

# a burst of 2000 distinct frames, injected as fast as AF_XDP sends them:
# full batches, and a frame's TX completion may come before its batch is
# released (the kernel frees the sent copy at once or later). Every frame must go back to
# the fill ring exactly once: twice, and the kernel writes two packets
# into one frame; never, and the umem runs dry.
m=2000
ip netns exec "$nsc" "$PY" "$tools" frames "$E2E_TMP/many.pcap" "$macc" "$macs" $m || e2e_fail "frames"
e2e_frame_hex "$E2E_TMP/many.pcap" >"$E2E_TMP/many.sent.hex"
e2e_bg ip netns exec "$nss" "$FASTPATH" capture "$ifs" --match 'udp dport 9000' --count $m \
	--duration 60 -w "$E2E_TMP/many.rx.pcap" 2>"$E2E_TMP/many.rx.err"
rx=$E2E_BG_PID
e2e_bg ip netns exec "$nsf" "$FASTPATH" -j forward "$if1" "$if2" --match 'udp dport 9000' \
	--count $m --duration 60 >"$E2E_TMP/many.fw.out" 2>"$E2E_TMP/many.fw.err"
fw=$E2E_BG_PID
e2e_wait_for "grep -q 'capturing on' '$E2E_TMP/many.rx.err' && grep -q 'forwarding' '$E2E_TMP/many.fw.err'" 10 ||
	e2e_fail "many: not started: $(cat "$E2E_TMP/many.rx.err" "$E2E_TMP/many.fw.err")"
ip netns exec "$nsc" "$FASTPATH" inject "$ifc" -r "$E2E_TMP/many.pcap" >/dev/null 2>&1 || e2e_fail "inject"
e2e_wait_for "! kill -0 $fw" 20 || e2e_fail "many: the forwarder did not end: $(cat "$E2E_TMP/many.fw.err")"
wait "$fw" || e2e_fail "many: forward failed: $(cat "$E2E_TMP/many.fw.err")"
grep -q "\"received\":$m,\"forwarded\":$m,\"failed\":0,\"lost\":0" "$E2E_TMP/many.fw.out" ||
	e2e_fail "many: forward -j reports $(cat "$E2E_TMP/many.fw.out" "$E2E_TMP/many.fw.err")"
e2e_wait_for "! kill -0 $rx" 10 || e2e_fail "many: the server got fewer than $m: $(cat "$E2E_TMP/many.rx.err")"
wait "$rx" || e2e_fail "many: the server's capture failed"
e2e_frame_hex "$E2E_TMP/many.rx.pcap" >"$E2E_TMP/many.rx.hex"
cmp -s "$E2E_TMP/many.sent.hex" "$E2E_TMP/many.rx.hex" ||
	e2e_fail "many: $(diff "$E2E_TMP/many.sent.hex" "$E2E_TMP/many.rx.hex" | grep -c '^>') of $m frames differ"

fwd() { ip netns exec "$nsf" "$FASTPATH" forward "$@"; }
fwd nosuchif0 "$if2" --match udp 2>"$E2E_TMP/b.err"; rc=$?
[[ $rc == 1 ]] && grep -q "no interface 'nosuchif0'" "$E2E_TMP/b.err" || e2e_fail "no interface: exit $rc: $(cat "$E2E_TMP/b.err")"
fwd "$if1" "$if2" --match 'udp dport x' 2>"$E2E_TMP/b.err"; rc=$?
[[ $rc == 2 ]] && grep -q -- "--match: column 11" "$E2E_TMP/b.err" || e2e_fail "bad match: exit $rc: $(cat "$E2E_TMP/b.err")"
fwd "$if1" --match udp 2>"$E2E_TMP/b.err"; rc=$?
[[ $rc == 2 ]] || e2e_fail "one interface: exit $rc"
untouched "$nsf" "$if1" || e2e_fail "bad input left fastpath on $if1"
e2e_pass
