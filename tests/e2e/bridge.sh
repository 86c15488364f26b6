#!/usr/bin/env bash
# fastpath bridge end to end: four hosts, each in its own namespace, whose
# veths' peers are the four ports of one fastpath bridge in a "switch"
# namespace (no Linux bridge anywhere).
#   - ARP resolves and TCP works between every pair: 3 MB each way checked
#     by length and SHA-256;
#   - `bridge fdb -j` shows each host's MAC on its port;
#   - a frame for an unknown MAC reaches every other port exactly once
#     (tcpdump on each host counts; the sender's own port sees none);
#   - a host moved to another port is reachable again after its first frame;
#   - the filter stage in front of the bridge on a member port drops what
#     its rule says (one TCP port), and the rest still crosses;
#   - a filter share made and removed on a member port leaves the bridge's
#     pins in ROOT/shared/bridge:NAME (the share gc takes only its own);
#   - a learned entry ages out (--ageing 2), a static one (fdb add) does not;
#   - `bridge del` and `bridge destroy` leave no pin behind.
# Host veths send with checksum offload off (forwarded frames keep their
# checksums: DESIGN.md), and GRO is on at both ends (NAPI for XDP_REDIRECT).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3 ethtool ping tcpdump jq timeout
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3
T=$E2E_TMP

sw=$(e2e_name sw)
e2e_netns_add "$sw"
fp() { ip netns exec "$sw" "$FASTPATH" "$@"; }
BR=$(e2e_name br)
fp bridge create "$BR" >/dev/null || e2e_fail "bridge create failed"

H=() P=() E=() IP=() MAC=()
for i in 1 2 3 4; do
	H[i]=$(e2e_name h$i); P[i]=$(e2e_name p$i); E[i]=$(e2e_name e$i); IP[i]=10.219.0.$i
	e2e_netns_add "${H[i]}"
	e2e_veth "${H[i]}" "${E[i]}" "$sw" "${P[i]}" "${IP[i]}"
	e2e_ns "${H[i]}" ethtool -K "${E[i]}" tx off >/dev/null
	MAC[i]=$(e2e_mac "${H[i]}" "${E[i]}")
	fp bridge add "$BR" "${P[i]}" >/dev/null || e2e_fail "bridge add ${P[i]} failed"
done

check() { e2e_check "$@"; } # check DESCRIPTION CMD...

# ---- refusals: twice, two bridges ------------------------------------------
BR2=$(e2e_name b2)
fp bridge create "$BR2" >/dev/null || e2e_fail "second bridge create failed"
rc=0; fp bridge add "$BR" "${P[1]}" >/dev/null 2>"$T/err" || rc=$?
check "a port added twice is refused (exit 1)" test "$rc" = 1
rc=0; fp bridge add "$BR2" "${P[1]}" >/dev/null 2>"$T/err2" || rc=$?
check "a port of another bridge is refused (exit 1)" test "$rc" = 1
check "the refusal names the bridge it is in" grep -q "bridge $BR" "$T/err2"
fp bridge destroy "$BR2" >/dev/null || e2e_fail "destroy of the empty bridge failed"

# ---- ARP and TCP between every pair ---------------------------------------
cat >"$T/tcpx.py" <<'EOF'
import hashlib, socket, sys
if sys.argv[1] == "serve":       # serve ADDR PORT OUT: one connection, its length and hash
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((sys.argv[2], int(sys.argv[3]))); s.listen(1); s.settimeout(20)
    c, _ = s.accept(); c.settimeout(20); h = hashlib.sha256(); n = 0
    while True:
        b = c.recv(65536)
        if not b: break
        h.update(b); n += len(b)
    open(sys.argv[4], "w").write("%d %s\n" % (n, h.hexdigest()))
else:                            # send ADDR PORT BYTES: prints what it sent
    data = bytes((i * 7 + 3) % 251 for i in range(int(sys.argv[4])))
    to = float(sys.argv[5]) if len(sys.argv) > 5 else 20
    c = socket.create_connection((sys.argv[2], int(sys.argv[3])), timeout=to)
    c.sendall(data); c.close()
    print("%d %s" % (len(data), hashlib.sha256(data).hexdigest()))
EOF
for i in 1 2 3 4; do
	for j in 1 2 3 4; do
		(( i == j )) && continue
		check "ping ${IP[i]} -> ${IP[j]} (ARP resolved)" \
			e2e_ns "${H[i]}" ping -c 1 -W 2 -q "${IP[j]}" >/dev/null
	done
done
transfer() { # transfer FROM TO PORT [TIMEOUT]: 3 MB FROM -> TO, both ends' length and hash equal
	local a=$1 b=$2 port=$3 to=${4:-20} sent got
	rm -f "$T/got"
	e2e_bg ip netns exec "${H[b]}" timeout 30 "$PY" "$T/tcpx.py" serve "${IP[b]}" "$port" "$T/got" \
		>>"$T/tcpx.log" 2>&1
	local srv=$E2E_BG_PID
	e2e_wait_for "ip netns exec ${H[b]} ss -ltn | grep -q ':$port '" 5 || return 1
	sent=$(e2e_ns "${H[a]}" timeout 30 "$PY" "$T/tcpx.py" send "${IP[b]}" "$port" 3000000 "$to" 2>>"$T/tcpx.log") ||
		return 1
	wait "$srv" 2>/dev/null || true
	got=$(cat "$T/got" 2>/dev/null)
	[[ -n $sent && $sent == "$got" ]]
}
port=5100
for i in 1 2 3 4; do
	for j in 1 2 3 4; do
		(( i == j )) && continue
		port=$((port + 1))
		check "TCP 3 MB h$i -> h$j, bytes equal" transfer "$i" "$j" "$port"
	done
done

# ---- the fdb -----------------------------------------------------------------
fp -j bridge fdb "$BR" >"$T/fdb.json" || e2e_fail "bridge fdb -j failed"
for i in 1 2 3 4; do
	check "fdb: ${MAC[i]} on ${P[i]}" test "$(jq -r --arg m "${MAC[i]}" \
		'.[] | select(.mac == $m) | .port + " " + .state' "$T/fdb.json")" = "${P[i]} learned"
done
fp -j bridge stats "$BR" >"$T/st.json" || e2e_fail "bridge stats -j failed"
check "stats: every port forwarded frames" test "$(jq '[.[] | select(.forwarded > 1000)] | length' "$T/st.json")" = 4
check "stats: no hairpin drop" test "$(jq '[.[].drop_hairpin] | add' "$T/st.json")" = 0
# the stage through the pipeline's counters hook: pipeline show, status
check "pipeline show: the bridge stage in slot 4 redirected frames" test "$(fp -j pipeline show \
	"${P[1]}" | jq '.slots[] | select(.slot == 4 and .stage == "bridge") | .redirect > 1000')" = true
check "status: the port's stages include the bridge" \
	bash -c "ip netns exec $sw $FASTPATH -j status ${P[1]} | grep -q bridge"
# --watch: a line a port each second, with the rate of frames in
timeout 3.5 ip netns exec "$sw" "$FASTPATH" -j bridge stats "$BR" --watch >"$T/watch.jsonl" 2>&1 || true
check "stats --watch: a round or more of 4 ports (JSON lines with in_pps)" \
	test "$(jq -s '[.[] | select(has("in_pps"))] | length' "$T/watch.jsonl")" -ge 4

# ---- flood: an unknown MAC reaches every other port exactly once -----------
cat >"$T/raw.py" <<'EOF'
import socket, sys                # raw.py IFACE SRC_MAC COUNT: frames to an unknown MAC
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind((sys.argv[1], 0))
dst = bytes.fromhex("02dead00beef"); src = bytes.fromhex(sys.argv[2].replace(":", ""))
for i in range(int(sys.argv[3])):
    s.send(dst + src + b"\x88\xb5" + bytes([i]) * 60)
EOF
for i in 1 2 3 4; do
	e2e_bg ip netns exec "${H[i]}" timeout 20 tcpdump -i "${E[i]}" -Q in -nn -U \
		-w "$T/flood$i.pcap" ether proto 0x88b5 >"$T/tcpdump$i.log" 2>&1
	eval "TD$i=\$E2E_BG_PID"
done
for i in 1 2 3 4; do
	e2e_wait_for "grep -q listening $T/tcpdump$i.log" 10 || e2e_fail "tcpdump on h$i did not start"
done
e2e_ns "${H[1]}" "$PY" "$T/raw.py" "${E[1]}" "${MAC[1]}" 5
sleep 1
for i in 1 2 3 4; do eval "e2e_kill \$TD$i"; done
for i in 1 2 3 4; do
	n=$(tcpdump -r "$T/flood$i.pcap" -nn 2>/dev/null | grep -c 'ethertype Unknown (0x88b5)' || true)
	want=5; (( i == 1 )) && want=0
	check "flood: h$i received $n of 5 frames for an unknown MAC (want $want)" test "$n" = "$want"
done

# ---- move: h4 comes back on a fifth port ------------------------------------
P5=$(e2e_name p5); E5=$(e2e_name e5)
e2e_veth "${H[4]}" "$E5" "$sw" "$P5"
# no IPv6 on the new link: its MLD reports and DAD (sent up to a second
# after link-up, from h4's MAC once it is set) would be h4's first frame
# on the new port before the test sends one, as a CI run saw
e2e_ns "${H[4]}" sysctl -qw "net.ipv6.conf.$E5.disable_ipv6=1"
e2e_ns "${H[4]}" ethtool -K "$E5" tx off >/dev/null
e2e_ns "${H[4]}" ip link set "${E[4]}" down
e2e_ns "${H[4]}" ip link set "$E5" address "${MAC[4]}"
e2e_ns "${H[4]}" ip addr add "${IP[4]}/24" dev "$E5"
fp bridge add "$BR" "$P5" >/dev/null || e2e_fail "bridge add $P5 failed"
check "before its first frame, h4 is still on ${P[4]}" test "$(fp -j bridge fdb "$BR" |
	jq -r --arg m "${MAC[4]}" '.[] | select(.mac == $m) | .port')" = "${P[4]}"
e2e_ns "${H[4]}" ping -c 1 -W 2 -q "${IP[1]}" >/dev/null 2>&1 || true
check "after it, h4 is on $P5" test "$(fp -j bridge fdb "$BR" |
	jq -r --arg m "${MAC[4]}" '.[] | select(.mac == $m) | .port')" = "$P5"
check "h1 reaches h4 on its new port" e2e_ns "${H[1]}" ping -c 2 -i 0.2 -W 2 -q "${IP[4]}" >/dev/null
check "TCP 3 MB h2 -> h4 on its new port" transfer 2 4 5200
fp -j bridge stats "$BR" >"$T/st2.json"
check "stats: the move was counted" test "$(jq '[.[].moved] | add' "$T/st2.json")" -ge 1

# ---- the filter in front, on a member port ----------------------------------
printf 'drop tcp dport 5301 id blocked\n' >"$T/f.rules"
fp filter load "${P[1]}" "$T/f.rules" >/dev/null || e2e_fail "filter load on ${P[1]} failed"
rc=0; transfer 1 2 5301 3 || rc=1
check "the filter on ${P[1]} drops h1 -> h2 tcp dport 5301" test "$rc" = 1
check "the rest still crosses: h1 -> h2 on 5302" transfer 1 2 5302
check "the filter counted its drops" test "$(fp -j filter stats "${P[1]}" --interval 0 |
	jq '[.rules[] | select(.id == "blocked") | .packets] | add')" -ge 1
fp filter unload "${P[1]}" >/dev/null || e2e_fail "filter unload failed"
check "the bridge stays on ${P[1]} after the filter went" transfer 1 2 5303

# ---- a filter share's gc leaves the bridge's pins in ROOT/shared -----------------
check "the bridge's pins are in ROOT/shared/bridge:$BR" test -e "$FASTPATH_BPFFS/shared/bridge:$BR/fp_br_fdb"
fp filter load "${P[3]}" --share S >/dev/null || e2e_fail "filter load --share S on ${P[3]} failed"
fp filter unload "${P[3]}" >/dev/null || e2e_fail "filter unload of the share's last member failed"
check "the share went with its last member" test ! -e "$FASTPATH_BPFFS/shared/S"
check "the bridge's pins survived the share's gc" test -e "$FASTPATH_BPFFS/shared/bridge:$BR/fp_br_fdb"
check "bridge show still finds $BR" fp bridge show "$BR" >/dev/null
check "h1 reaches h3 across the bridge after the share's gc" \
	e2e_ns "${H[1]}" ping -c 2 -i 0.2 -W 2 -q "${IP[3]}" >/dev/null

# ---- del, destroy: no pin left ---------------------------------------------------
fp -j bridge del "$BR" "${P[2]}" >"$T/del.json" || e2e_fail "bridge del failed"
check "del unloaded the pipeline the bridge loaded" test "$(jq .pipeline_unloaded "$T/del.json")" = true
check "h2's MAC left the fdb with its port" test -z "$(fp -j bridge fdb "$BR" |
	jq -r --arg m "${MAC[2]}" '.[] | select(.mac == $m) | .port')"
# ---- ageing and static entries: ${P[2]}, free again, on a bridge of its own --
BR3=$(e2e_name b3)
fp bridge create "$BR3" --ageing 2 >/dev/null || e2e_fail "bridge create --ageing failed"
fp bridge add "$BR3" "${P[2]}" >/dev/null || e2e_fail "bridge add to $BR3 failed"
fp bridge fdb add "$BR3" 02:00:00:00:77:77 "${P[2]}" >/dev/null || e2e_fail "fdb add failed"
e2e_ns "${H[2]}" "$PY" "$T/raw.py" "${E[2]}" 02:00:00:00:66:66 1
age_of() { fp -j bridge fdb "$BR3" | jq -r --arg m "$1" '.[] | select(.mac == $m) | .state'; }
check "a frame's source is learned" test "$(age_of 02:00:00:00:66:66)" = learned
check "the static entry is there" test "$(age_of 02:00:00:00:77:77)" = static
sleep 3
check "the learned entry aged out (ageing 2 s)" test -z "$(age_of 02:00:00:00:66:66)"
check "the static entry did not" test "$(age_of 02:00:00:00:77:77)" = static
fp bridge fdb del "$BR3" 02:00:00:00:77:77 "${P[2]}" >/dev/null || e2e_fail "fdb del failed"
check "fdb del removed it" test -z "$(age_of 02:00:00:00:77:77)"
rc=0; fp bridge fdb del "$BR3" 02:00:00:00:77:77 >/dev/null 2>&1 || rc=$?
check "fdb del of a missing entry fails (exit 1)" test "$rc" = 1
fp bridge destroy "$BR3" >/dev/null || e2e_fail "bridge destroy $BR3 failed"
fp bridge destroy "$BR" >/dev/null || e2e_fail "bridge destroy failed"
left=$(find "$FASTPATH_BPFFS" -mindepth 1 ! -name '*.debug' | head -5) # (*.debug: the bpffs' own)
check "no pin left after destroy (${left:-none})" test -z "$left"

e2e_done
