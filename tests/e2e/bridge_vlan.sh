#!/usr/bin/env bash
# fastpath bridge --vlan-aware end to end: four namespaced hosts on one
# VLAN-aware fastpath bridge in a "switch" namespace:
#   h1  access port, VLAN 10 (--pvid 10)          10.10.0.1
#   h2  access port, VLAN 10 (--pvid 10)          10.10.0.2
#   h3  access port, VLAN 20 (--pvid 20)          10.10.0.3 (h1's subnet)
#   h4  trunk (--vlans 10,20 --tagged): raw tagged frames (this kernel has
#       no 802.1Q devices, so the trunk host speaks through AF_PACKET)
# Same VLAN reachable (ping, TCP with bytes checked, untagged; raw frames
# tagged to untagged and back, tcpdump counting on every host); another
# VLAN not (h3 shares h1's subnet but not its VLAN; frames of VLAN 20 never
# reach VLAN 10's ports); show, fdb -j and stats say the VLANs.
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
fp bridge create "$BR" --vlan-aware >/dev/null || e2e_fail "bridge create --vlan-aware failed"

H=() P=() E=()
port_opts=("" "--pvid 10" "--pvid 10" "--pvid 20" "--vlans 10,20 --tagged")
for i in 1 2 3 4; do
	H[i]=$(e2e_name h$i); P[i]=$(e2e_name p$i); E[i]=$(e2e_name e$i)
	e2e_netns_add "${H[i]}"
	e2e_veth "${H[i]}" "${E[i]}" "$sw" "${P[i]}"
	e2e_ns "${H[i]}" ethtool -K "${E[i]}" tx off >/dev/null
	# shellcheck disable=SC2086
	fp bridge add "$BR" "${P[i]}" ${port_opts[i]} >/dev/null || e2e_fail "bridge add ${P[i]} failed"
done
e2e_ns "${H[1]}" ip addr add 10.10.0.1/24 dev "${E[1]}"
e2e_ns "${H[2]}" ip addr add 10.10.0.2/24 dev "${E[2]}"
e2e_ns "${H[3]}" ip addr add 10.10.0.3/24 dev "${E[3]}"

check() { e2e_check "$@"; } # check DESCRIPTION CMD...
reach() { e2e_ns "${H[$1]}" ping -c 2 -i 0.2 -W 2 -q "$2" >/dev/null 2>&1; }
no_reach() { ! e2e_ns "${H[$1]}" ping -c 2 -i 0.2 -W 1 -q "$2" >/dev/null 2>&1; }

# ---- options refused where they do not belong ------------------------------
BR2=$(e2e_name b2); X=$(e2e_name x); XP=$(e2e_name xp)
fp bridge create "$BR2" >/dev/null
e2e_veth "$sw" "$X" "$sw" "$XP"
rc=0; fp bridge add "$BR2" "$X" --pvid 10 >/dev/null 2>"$T/err" || rc=$?
check "--pvid on a bridge that is not VLAN-aware is refused (exit 1)" test "$rc" = 1
check "... and nothing was loaded on $X" test ! -e "$FASTPATH_BPFFS/$X"
rc=0; fp bridge add "$BR" "$X" --vlans 10,5000 >/dev/null 2>&1 || rc=$?
check "--vlans 10,5000 is a usage error (exit 2)" test "$rc" = 2
fp bridge destroy "$BR2" >/dev/null

# ---- same VLAN: reachable; another VLAN: not ------------------------------
check "VLAN 10, untagged to untagged: h1 -> h2" reach 1 10.10.0.2
check "VLAN 10 to 20: h1 cannot reach h3 (same subnet, other VLAN)" no_reach 1 10.10.0.3
check "VLAN 20 to 10: h3 cannot reach h2" no_reach 3 10.10.0.2

cat >"$T/tcpx.py" <<'EOF'
import hashlib, socket, sys
if sys.argv[1] == "serve":
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((sys.argv[2], int(sys.argv[3]))); s.listen(1); s.settimeout(20)
    c, _ = s.accept(); c.settimeout(20); h = hashlib.sha256(); n = 0
    while True:
        b = c.recv(65536)
        if not b: break
        h.update(b); n += len(b)
    open(sys.argv[4], "w").write("%d %s\n" % (n, h.hexdigest()))
else:
    data = bytes((i * 7 + 3) % 251 for i in range(int(sys.argv[4])))
    c = socket.create_connection((sys.argv[2], int(sys.argv[3])), timeout=20)
    c.sendall(data); c.close()
    print("%d %s" % (len(data), hashlib.sha256(data).hexdigest()))
EOF
transfer() { # FROM TO_ADDR TO_HOST PORT: 3 MB, both ends' length and hash equal
	local sent got
	rm -f "$T/got"
	e2e_bg ip netns exec "${H[$3]}" timeout 30 "$PY" "$T/tcpx.py" serve "$2" "$4" "$T/got" \
		>>"$T/tcpx.log" 2>&1
	local srv=$E2E_BG_PID
	e2e_wait_for "ip netns exec ${H[$3]} ss -ltn | grep -q ':$4 '" 5 || return 1
	sent=$(e2e_ns "${H[$1]}" timeout 30 "$PY" "$T/tcpx.py" send "$2" "$4" 3000000 \
		2>>"$T/tcpx.log") || return 1
	wait "$srv" 2>/dev/null || true
	got=$(cat "$T/got" 2>/dev/null)
	[[ -n $sent && $sent == "$got" ]]
}
check "TCP 3 MB h1 -> h2 over VLAN 10" transfer 1 10.10.0.2 2 5401

# ---- tagged frames: the trunk ----------------------------------------------
cat >"$T/raw.py" <<'EOF'
import socket, sys    # raw.py IFACE SRC_MAC VID ETHERTYPE COUNT (VID 0: untagged), to broadcast
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind((sys.argv[1], 0))
src = bytes.fromhex(sys.argv[2].replace(":", "")); vid = int(sys.argv[3])
tag = b"\x81\x00" + vid.to_bytes(2, "big") if vid else b""
for i in range(int(sys.argv[5])):
    s.send(b"\xff" * 6 + src + tag + int(sys.argv[4], 16).to_bytes(2, "big") + bytes([i]) * 60)
EOF
for i in 1 2 3 4; do
	e2e_bg ip netns exec "${H[i]}" timeout 30 tcpdump -i "${E[i]}" -Q in -nn -U \
		-w "$T/cap$i.pcap" >"$T/tcpdump$i.log" 2>&1
	eval "TD$i=\$E2E_BG_PID"
done
for i in 1 2 3 4; do
	e2e_wait_for "grep -q listening $T/tcpdump$i.log" 10 || e2e_fail "tcpdump on h$i did not start"
done
M=()
for i in 1 2 3 4; do M[i]=$(e2e_mac "${H[i]}" "${E[i]}"); done
e2e_ns "${H[1]}" "$PY" "$T/raw.py" "${E[1]}" "${M[1]}" 0 88b5 3   # untagged, VLAN 10
e2e_ns "${H[4]}" "$PY" "$T/raw.py" "${E[4]}" "${M[4]}" 20 88b6 3  # tagged 20 from the trunk
e2e_ns "${H[4]}" "$PY" "$T/raw.py" "${E[4]}" "${M[4]}" 10 88b7 3  # tagged 10 from the trunk
sleep 1
for i in 1 2 3 4; do eval "e2e_kill \$TD$i"; done
# seen HOST ETHERTYPE [VID]: frames of that ethertype HOST received, tagged
# VID, or (no VID) untagged
seen() {
	local lines
	lines=$(tcpdump -r "$T/cap$1.pcap" -e -nn 2>/dev/null | grep "ethertype Unknown (0x$2)" || true)
	if [[ -n ${3:-} ]]; then grep -c "vlan $3," <<<"$lines" || true
	else grep -vc "802.1Q" <<<"$lines" || true; fi
}
# any HOST ETHERTYPE: frames of that ethertype HOST received, tagged or not
any() { tcpdump -r "$T/cap$1.pcap" -e -nn 2>/dev/null | grep -c "ethertype Unknown (0x$2)" || true; }
check "untagged VLAN 10 from h1 reaches h2 untagged, 3 of 3" test "$(seen 2 88b5)" = 3
check "... and the trunk tagged 10, 3 of 3" test "$(seen 4 88b5 10)" = 3
check "... and never h3 (VLAN 20)" test "$(any 3 88b5)" = 0
check "tagged 20 from the trunk reaches h3 untagged, 3 of 3" test "$(seen 3 88b6)" = 3
check "... and neither h1 nor h2" test "$(any 1 88b6) $(any 2 88b6)" = "0 0"
check "tagged 10 from the trunk reaches h1 and h2 untagged, 3 of 3 each" \
	test "$(seen 1 88b7) $(seen 2 88b7)" = "3 3"
check "... and not h3" test "$(any 3 88b7)" = 0

# ---- what the bridge says ---------------------------------------------------
fp -j bridge show "$BR" >"$T/show.json"
check "show: the trunk's VLANs and mode" test "$(jq -r --arg p "${P[4]}" \
	'.ports[] | select(.port == $p) | .vlans + " " + .egress' "$T/show.json")" = "1,10,20 tagged"
check "show: an access port's PVID" test "$(jq -r --arg p "${P[3]}" \
	'.ports[] | select(.port == $p) | "\(.pvid) \(.vlans) \(.egress)"' "$T/show.json")" = "20 20 untagged"
m1=$(e2e_mac "${H[1]}" "${E[1]}")
check "fdb: h1 learned in VLAN 10 on its port" test "$(fp -j bridge fdb "$BR" | jq -r --arg m "$m1" \
	'.[] | select(.mac == $m) | "\(.vlan) \(.port)"')" = "10 ${P[1]}"
fp -j bridge stats "$BR" >"$T/st.json"
check "stats: frames kept out of the other VLAN were counted" \
	test "$(jq '[.[].drop_vlan_out] | add' "$T/st.json")" -ge 1

fp bridge destroy "$BR" >/dev/null || e2e_fail "bridge destroy failed"
e2e_done
