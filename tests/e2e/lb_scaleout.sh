#!/usr/bin/env bash
# Scale-out: two lb hosts behind ECMP pick the same backend for a flow.
# Two hosts (namespaces), each with its own `fastpath lb load` and the same
# VIP and backends, configured in a different order (host B also adds and
# deletes a backend first, so its backend entries sit at other indexes).
# The same 10,000 UDP flows (10,000 source address and port pairs) go into
# each; every encapsulated frame that comes back out must carry the same
# outer destination (the backend) and source on both hosts.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

cl=$(e2e_name cl); ha=$(e2e_name ha); hb=$(e2e_name hb)
for n in "$cl" "$ha" "$hb"; do e2e_netns_add "$n"; done
la=$(e2e_name la); pa=$(e2e_name pa); lbb=$(e2e_name lb); pb=$(e2e_name pb)
e2e_veth "$ha" "$la" "$cl" "$pa" 10.8.0.2 10.8.0.1
e2e_veth "$hb" "$lbb" "$cl" "$pb" 10.8.0.2 10.8.0.1

# The hosts answer with XDP_TX: a veth takes those frames only when its
# peer runs XDP of its own; an empty pipeline passes everything.
for p in "$pa" "$pb"; do
	ip netns exec "$cl" "$FASTPATH" pipeline load "$p" >/dev/null || e2e_fail "pipeline on $p"
done

VIP=198.51.100.20:53/udp
BES=(10.8.0.11 10.8.0.12 10.8.0.13 10.8.0.14 10.8.0.15)
WEIGHT=(1 2 1 3 1)
for h in "$ha:$la" "$hb:$lbb"; do
	n=${h%%:*} i=${h#*:}
	ip netns exec "$n" sysctl -qw net.ipv4.ip_forward=1
	for k in 0 1 2 3 4; do # the backends' MACs: static, so bpf_fib_lookup finds them
		ip -n "$n" neigh add "${BES[k]}" lladdr "02:00:00:00:0b:1$k" dev "$i" nud permanent
	done
	ip netns exec "$n" "$FASTPATH" lb load "$i" >/dev/null || e2e_fail "lb load in $n"
	ip netns exec "$n" "$FASTPATH" lb vip add "$i" "$VIP" >/dev/null || e2e_fail "vip add in $n"
done
# host A: in order; host B: a stray backend first, then the others reversed
for k in 0 1 2 3 4; do
	ip netns exec "$ha" "$FASTPATH" lb backend add "$la" "$VIP" "${BES[k]}" --weight "${WEIGHT[k]}" >/dev/null ||
		e2e_fail "backend add ${BES[k]} on A"
done
ip netns exec "$hb" "$FASTPATH" lb backend add "$lbb" "$VIP" 10.8.0.99 >/dev/null || e2e_fail "stray backend on B"
for k in 4 3 2 1 0; do
	ip netns exec "$hb" "$FASTPATH" lb backend add "$lbb" "$VIP" "${BES[k]}" --weight "${WEIGHT[k]}" >/dev/null ||
		e2e_fail "backend add ${BES[k]} on B"
done
ip netns exec "$hb" "$FASTPATH" lb backend del "$lbb" "$VIP" 10.8.0.99 >/dev/null || e2e_fail "stray backend del on B"

# flows IFACE LBMAC OUT: sends the 10,000 flows into IFACE (from the
# client's side) and writes "src sport outer_src outer_dst" of each
# encapsulated frame that comes back to OUT
flows() {
	ip netns exec "$cl" timeout 60 python3 - "$@" <<'EOF'
import socket, struct, sys, time
ifname, mac, out = sys.argv[1], bytes.fromhex(sys.argv[2].replace(':', '')), sys.argv[3]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 24)
s.bind((ifname, 0))
s.settimeout(0.2)
me = s.getsockname()[4]
def csum(b):
    t = sum(struct.unpack('!10H', b))
    t = (t & 0xffff) + (t >> 16); t = (t & 0xffff) + (t >> 16)
    return ~t & 0xffff
vip = socket.inet_aton('198.51.100.20')
got = {}
def drain():
    while True:
        try:
            f, a = s.recvfrom(2048)
        except socket.timeout:
            return
        if a[2] == socket.PACKET_OUTGOING or len(f) < 62 or f[12:14] != b'\x08\x00' or f[23] != 4:
            continue
        got[(f[46:50], struct.unpack('!H', f[54:56])[0])] = (f[26:30], f[30:34])
for i in range(10000):
    src = bytes([100, 64 + i % 61, (i * 7) % 251, 1 + i % 250])
    sport = 1024 + (i * 6151) % 60000
    ip = bytearray(struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + 8 + 4, i & 0xffff, 0, 64, 17, 0, src, vip))
    ip[10:12] = struct.pack('!H', csum(bytes(ip)))
    s.send(mac + me + b'\x08\x00' + bytes(ip) + struct.pack('!HHHH', sport, 53, 12, 0) + b'ping')
    if i % 200 == 199:
        time.sleep(0.01)
        s.settimeout(0)
        try:
            while True:
                f, a = s.recvfrom(2048)
                if a[2] != socket.PACKET_OUTGOING and len(f) >= 62 and f[12:14] == b'\x08\x00' and f[23] == 4:
                    got[(f[46:50], struct.unpack('!H', f[54:56])[0])] = (f[26:30], f[30:34])
        except (BlockingIOError, socket.timeout):
            pass
        s.settimeout(0.2)
drain()
with open(out, 'w') as o:
    for (src, sp), (osrc, odst) in sorted(got.items()):
        o.write('%s %d %s %s\n' % (socket.inet_ntoa(src), sp, socket.inet_ntoa(osrc), socket.inet_ntoa(odst)))
EOF
}
flows "$pa" "$(e2e_mac "$ha" "$la")" "$E2E_TMP/a" || e2e_fail "sending the flows to host A"
flows "$pb" "$(e2e_mac "$hb" "$lbb")" "$E2E_TMP/b" || e2e_fail "sending the flows to host B"
na=$(wc -l <"$E2E_TMP/a"); nb=$(wc -l <"$E2E_TMP/b")
e2e_log "flows forwarded: host A $na, host B $nb"
(( na == 10000 && nb == 10000 )) || e2e_fail "not every flow came back encapsulated (A $na, B $nb of 10000)"
if ! cmp -s "$E2E_TMP/a" "$E2E_TMP/b"; then
	diff "$E2E_TMP/a" "$E2E_TMP/b" >"$E2E_TMP/diff" || true
	head -5 "$E2E_TMP/diff" >&2
	e2e_fail "the hosts chose differently for $(grep -c '^<' "$E2E_TMP/diff") flows"
fi
# the flows spread over every backend, by weight (a same choice that is
# always one backend would prove nothing)
for k in 0 1 2 3 4; do
	c=$(awk -v b="${BES[k]}" '$4 == b' "$E2E_TMP/a" | wc -l)
	e2e_log "${BES[k]} (weight ${WEIGHT[k]}): $c flows"
	(( c > 10000 * WEIGHT[k] / 8 * 8 / 10 )) || e2e_fail "${BES[k]} got $c flows, far under its weight's share"
done
e2e_pass "10000 flows: the same backend and outer source on both hosts"
