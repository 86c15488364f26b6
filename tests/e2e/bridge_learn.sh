#!/usr/bin/env bash
# fastpath bridge learning limit end to end: three hosts on one fastpath
# bridge, h1's port with --learn-limit 40. h1 sends a MAC flood (3000
# frames from 3000 source MACs, a bounded count) at h2's MAC; then:
#   - h1's port holds 40 learned entries, no more (`bridge show -j`), and
#     `bridge stats -j` counts the sources refused (learn_limited);
#   - h2's and h3's MACs are still in the FDB on their own ports, and the
#     other ports' counts are untouched;
#   - every pair of hosts still reaches the other (ping), h2 <-> h3 by
#     forwarding (their entries were never evicted);
#   - `bridge fdb del` of a learned entry gives the port's share back:
#     the next new source from it is learned.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3 ethtool ping jq timeout
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3
T=$E2E_TMP

sw=$(e2e_name sw)
e2e_netns_add "$sw"
fp() { ip netns exec "$sw" "$FASTPATH" "$@"; }
BR=$(e2e_name br)
fp bridge create "$BR" >/dev/null || e2e_fail "bridge create failed"
H=() P=() E=() MAC=()
for i in 1 2 3; do
	H[i]=$(e2e_name h$i); P[i]=$(e2e_name p$i); E[i]=$(e2e_name e$i)
	e2e_netns_add "${H[i]}"
	e2e_veth "${H[i]}" "${E[i]}" "$sw" "${P[i]}" "10.223.0.$i"
	e2e_ns "${H[i]}" ethtool -K "${E[i]}" tx off >/dev/null
	MAC[i]=$(e2e_mac "${H[i]}" "${E[i]}")
done
fp bridge add "$BR" "${P[1]}" --learn-limit 40 >/dev/null || e2e_fail "bridge add --learn-limit failed"
fp bridge add "$BR" "${P[2]}" >/dev/null || e2e_fail "bridge add failed"
fp bridge add "$BR" "${P[3]}" >/dev/null || e2e_fail "bridge add failed"

check() { e2e_check "$@"; } # check DESCRIPTION CMD...
show_port() { fp -j bridge show "$BR" | jq --arg p "$1" ".ports[] | select(.port == \$p) | .$2"; }
stat_port() { fp -j bridge stats "$BR" | jq --arg p "$1" ".[] | select(.port == \$p) | .$2"; }
fdb_port() { # fdb_port MAC: the port the FDB has it on ("" if none)
	fp -j bridge fdb "$BR" | jq -r --arg m "$1" '.[] | select(.mac == $m) | .port'
}
check "show: h1's port's learn limit" test "$(show_port "${P[1]}" learn_limit)" = 40
check "show: the default learn limit" test "$(show_port "${P[2]}" learn_limit)" = 4096
rc=0; fp bridge add "$BR" lo --learn-limit x >/dev/null 2>&1 || rc=$?
check "a bad --learn-limit is a usage error (exit 2)" test "$rc" = 2

pings() {
	local ok=0 i j
	for i in 1 2 3; do
		for j in 1 2 3; do
			(( i == j )) && continue
			e2e_ns "${H[i]}" ping -c 1 -W 2 -q "10.223.0.$j" >/dev/null || ok=1
		done
	done
	return $ok
}
check "every pair reaches the other before the flood" pings
for i in 2 3; do
	check "h$i's MAC on its port before" test "$(fdb_port "${MAC[i]}")" = "${P[i]}"
done
learned1=$(show_port "${P[1]}" learned) learned2=$(show_port "${P[2]}" learned)
learned3=$(show_port "${P[3]}" learned)

cat >"$T/macflood.py" <<'EOF'
import socket, sys    # macflood.py IFACE DST_MAC N: N frames to DST from N source MACs
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind((sys.argv[1], 0))
dst = bytes.fromhex(sys.argv[2].replace(":", ""))
for i in range(int(sys.argv[3])):
    s.send(dst + bytes([0x02, 0xf1, 0, (i >> 16) & 255, (i >> 8) & 255, i & 255]) +
           b"\x88\xb5" + b"\x00" * 50)
print(int(sys.argv[3]))
EOF
sent=$(e2e_ns "${H[1]}" timeout 30 "$PY" "$T/macflood.py" "${E[1]}" "${MAC[2]}" 3000)
sleep 0.3
limited=$(stat_port "${P[1]}" learn_limited)
l1=$(show_port "${P[1]}" learned)
e2e_log "flood: $sent sources sent; h1's port learned $l1 (before $learned1), refused $limited"
check "h1's port learned up to its limit and no more ($l1 = 40)" test "$l1" = 40
check "the refused sources are counted ($limited >= $((sent - 40)))" test "$limited" -ge $((sent - 40))
check "the FDB holds $((40 - learned1)) of the flood's sources (h1's own MAC the rest)" \
	test "$(fp -j bridge fdb "$BR" | jq '[.[] | select(.mac | startswith("02:f1:"))] | length')" = $((40 - learned1))
check "h1's MAC on its port" test "$(fdb_port "${MAC[1]}")" = "${P[1]}"
for i in 2 3; do
	check "h$i's MAC still on its port" test "$(fdb_port "${MAC[i]}")" = "${P[i]}"
done
check "the other ports' counts are untouched" \
	test "$(show_port "${P[2]}" learned) $(show_port "${P[3]}" learned)" = "$learned2 $learned3"
fwd=$(stat_port "${P[2]}" forwarded)
check "every pair reaches the other after the flood" pings
check "h2 -> h3 went by forwarding (known)" test "$(stat_port "${P[2]}" forwarded)" -gt "$fwd"

# a learned entry deleted gives the share back
victim=$(fp -j bridge fdb "$BR" | jq -r '[.[] | select(.mac | startswith("02:f1:"))][0].mac')
fp bridge fdb del "$BR" "$victim" "${P[1]}" >/dev/null 2>&1 || fp bridge fdb del "$BR" "$victim" >/dev/null ||
	e2e_fail "fdb del failed"
check "fdb del takes the entry off its port's count" test "$(show_port "${P[1]}" learned)" = 39
e2e_ns "${H[1]}" "$PY" - "${E[1]}" "${MAC[2]}" <<'EOF' >/dev/null
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind((sys.argv[1], 0))
s.send(bytes.fromhex(sys.argv[2].replace(":", "")) + bytes([2, 0xf2, 0, 0, 0, 1]) + b"\x88\xb5" + b"\0" * 50)
EOF
sleep 0.2
check "then a new source from h1 is learned" test "$(fdb_port 02:f2:00:00:00:01)" = "${P[1]}"
check "... and counted (40)" test "$(show_port "${P[1]}" learned)" = 40

fp bridge destroy "$BR" >/dev/null || e2e_fail "bridge destroy failed"
e2e_done
