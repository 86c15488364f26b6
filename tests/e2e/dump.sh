#!/usr/bin/env bash
# fastpath dump end to end: an attacker floods a victim whose filter drops
# the flood; `dump --drops` writes sampled drops to pcapng, read back by
# tshark: the bytes equal what the attacker sent, the sample ratio is within
# 20% of 1/N over 10,000 drops; with the reader stopped the ring overflows,
# the loss counter rises and written + lost = sampled; `dump --match`
# captures only the matching traffic, with its verdict.
. "$(dirname "$0")/lib.sh"
e2e_require tshark python3

nsa=$(e2e_name da); nsv=$(e2e_name dv)
ifa=$(e2e_name va); ifv=$(e2e_name vv)
e2e_netns_add "$nsa"; e2e_netns_add "$nsv"
e2e_veth "$nsa" "$ifa" "$nsv" "$ifv"
for n in "$nsa" "$nsv"; do ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1; done
mac=$(e2e_mac "$nsv" "$ifv")
fp() { ip netns exec "$nsv" "$FASTPATH" "$@"; }
gen() { ip netns exec "$nsa" "$FASTPATH" gen "$ifa" --dst-mac "$mac" "$@" >/dev/null; }
# last line of a dump's stderr: "S sampled, W written, L lost"
counts() { tail -n1 "$1" | sed -n 's/^\([0-9]*\) sampled, \([0-9]*\) written, \([0-9]*\) lost.*/\1 \2 \3/p'; }

cat > "$E2E_TMP/rules" <<'R'
drop udp dport 9000 id flood
default pass
R
fp filter load "$ifv" "$E2E_TMP/rules" >/dev/null || e2e_fail "filter load"

# The attack frame, built once with known bytes (a pcap the generator replays).
python3 - "$E2E_TMP/attack.pcap" "$mac" <<'PY' || e2e_fail "cannot write the template"
import struct, sys
dst = bytes.fromhex(sys.argv[2].replace(':', ''))
ip = bytes([0x45, 0, 0, 46, 0, 1, 0, 0, 64, 17, 0, 0, 198, 18, 0, 1, 198, 18, 0, 2])
s = sum(struct.unpack('!10H', ip)); s = (s & 0xffff) + (s >> 16); s = (s & 0xffff) + (s >> 16)
ip = ip[:10] + struct.pack('!H', ~s & 0xffff) + ip[12:]
udp = struct.pack('!HHHH', 4242, 9000, 26, 0) + b'fastpath-dump-e2e-'
frame = dst + bytes.fromhex('020000000001') + b'\x08\x00' + ip + udp
with open(sys.argv[1], 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    f.write(struct.pack('<IIII', 0, 0, len(frame), len(frame)) + frame)
PY

# 1. --drops --sample 1/10 over 20,000 dropped frames.
e2e_bg ip netns exec "$nsv" "$FASTPATH" dump "$ifv" -w "$E2E_TMP/drops.pcapng" --drops \
	--sample 1/10 --duration 20 2>"$E2E_TMP/d1.err"
d1=$E2E_BG_PID
sleep 1
gen --template "$E2E_TMP/attack.pcap" --count 20000 --pps 50000 || e2e_fail "gen"
sleep 1
kill -INT "$d1"
e2e_wait_for "! kill -0 $d1 2>/dev/null" 10 || e2e_fail "dump did not stop on SIGINT"
read -r s w l < <(counts "$E2E_TMP/d1.err")
[[ -n $w ]] || e2e_fail "no report from dump: $(cat "$E2E_TMP/d1.err")"
drops=$(fp -j filter stats "$ifv" --interval 0 | python3 -c \
	'import json,sys; d=json.load(sys.stdin); print([r for r in d["rules"] if r["id"]=="flood"][0]["packets"])')
(( drops >= 20000 )) || e2e_fail "the filter dropped $drops of 20000"
n=$(tshark -r "$E2E_TMP/drops.pcapng" 2>/dev/null | wc -l)
[[ $n == "$w" ]] || e2e_fail "tshark reads $n packets, dump says it wrote $w"
(( w * 10 >= drops * 8 / 10 && w * 10 <= drops * 12 / 10 )) ||
	e2e_fail "sampled $w of $drops drops at 1/10: off by more than 20%"
(( s == w + l )) || e2e_fail "sampled $s != written $w + lost $l"
bad=$(tshark -r "$E2E_TMP/drops.pcapng" -T fields -e frame.comment -e frame.verdict.ebpf_xdp \
	-e frame.interface_name 2>/dev/null | grep -vc "^verdict=drop rule=flood stage=filter	1	$ifv$")
[[ $bad == 0 ]] || e2e_fail "$bad packets lack 'verdict=drop rule=flood', verdict 1, interface $ifv"
# bytes: tshark converts our pcapng to pcap; every record equals the template
tshark -r "$E2E_TMP/drops.pcapng" -F pcap -w "$E2E_TMP/drops.pcap" 2>/dev/null ||
	e2e_fail "tshark cannot convert the dump"
python3 - "$E2E_TMP/attack.pcap" "$E2E_TMP/drops.pcap" <<'PY' || e2e_fail "captured bytes differ from the attack"
import struct, sys
def frames(p):
    b = open(p, 'rb').read(); o = 24; out = []
    while o + 16 <= len(b):
        _, _, cap, orig = struct.unpack('<IIII', b[o:o+16]); out.append((b[o+16:o+16+cap], orig)); o += 16 + cap
    return out
want = frames(sys.argv[1])[0][0]
got = frames(sys.argv[2])
bad = [i for i, (f, orig) in enumerate(got) if f != want or orig != len(want)]
if bad: print("packets differ:", bad[:5]); sys.exit(1)
print(len(got), "captured frames equal the attacker's", file=sys.stderr)
PY
e2e_log "drops: $drops dropped, $w written at 1/10 (sampled $s, lost $l)"

# 2. The reader stopped: the ring (4 MiB) overflows, losses are counted.
e2e_bg ip netns exec "$nsv" "$FASTPATH" dump "$ifv" -w "$E2E_TMP/over.pcapng" --drops \
	--duration 60 2>"$E2E_TMP/d2.err"
d2=$E2E_BG_PID
sleep 1
kill -STOP "$d2"
gen --template "$E2E_TMP/attack.pcap" --count 200000 --pps 400000 || e2e_fail "gen"
kill -CONT "$d2"
sleep 1
kill -INT "$d2"
e2e_wait_for "! kill -0 $d2 2>/dev/null" 10 || e2e_fail "dump did not stop"
read -r s w l < <(counts "$E2E_TMP/d2.err")
(( l > 0 )) || e2e_fail "200000 samples into a stopped reader lost none: $s $w $l"
(( s == w + l )) || e2e_fail "overflow: sampled $s != written $w + lost $l"
n=$(tshark -r "$E2E_TMP/over.pcapng" 2>/dev/null | wc -l)
[[ $n == "$w" ]] || e2e_fail "tshark reads $n packets, dump wrote $w"
e2e_log "overflow: sampled $s = written $w + lost $l"

# 3. --match: only the matching traffic, whatever its verdict.
e2e_bg ip netns exec "$nsv" "$FASTPATH" dump "$ifv" -w "$E2E_TMP/match.pcapng" \
	--match 'udp dport 9001' --duration 30 2>"$E2E_TMP/d3.err"
d3=$E2E_BG_PID
sleep 1
gen --udp 9000 --count 3000 --pps 50000 || e2e_fail "gen"
gen --udp 9001 --count 3000 --pps 50000 || e2e_fail "gen"
sleep 1
kill -INT "$d3"
e2e_wait_for "! kill -0 $d3 2>/dev/null" 10 || e2e_fail "dump did not stop"
read -r s w l < <(counts "$E2E_TMP/d3.err")
other=$(tshark -r "$E2E_TMP/match.pcapng" -T fields -e udp.dstport -e frame.comment 2>/dev/null |
	grep -vc "^9001	verdict=pass rule=default stage=filter$")
[[ $other == 0 ]] || e2e_fail "--match captured $other packets that are not 'udp dport 9001' passed"
(( w + l == 3000 )) || e2e_fail "--match: written $w + lost $l, want the 3000 matching frames"
e2e_log "match: $w of 3000 matching frames written, $l lost, none other"
fp filter unload "$ifv" || e2e_fail "unload"
e2e_pass
