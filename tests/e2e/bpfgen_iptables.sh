#!/usr/bin/env bash
# bpfgen end to end: a peer namespace sends DNS queries over a veth to a
# receiver namespace whose INPUT chain has
#   iptables  -A INPUT -p udp --dport 53 -m bpf --bytecode "$(fastpath bpfgen dns -- '*.example.com')" -j DROP
#   ip6tables -A INPUT -p udp --dport 53 -m bpf --bytecode "$(fastpath bpfgen -6 dns -- '*.example.com')" -j DROP
# The matching queries must be dropped (the rule's packet counter) and all
# the others must reach a UDP listener (it records every name it receives).
# Namespaces, links and processes are removed on any exit (lib.sh's trap).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3 iptables ip6tables ip
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

peer=$(e2e_name p) recv=$(e2e_name r)
e2e_netns_add "$peer"
e2e_netns_add "$recv"
e2e_veth "$peer" "$(e2e_name vp)" "$recv" "$(e2e_name vr)" 10.0.1.1 10.0.1.2
V4=10.0.1.2 V6=$(e2e_v6_of 10.0.1.2)

bc4=$("$FASTPATH" bpfgen dns -- '*.example.com')
bc6=$("$FASTPATH" bpfgen -6 dns -- '*.example.com')
e2e_log "v4 bytecode: $bc4"
e2e_ns "$recv" iptables -A INPUT -p udp --dport 53 -m bpf --bytecode "$bc4" -j DROP ||
	e2e_fail "iptables refused the bytecode"
e2e_ns "$recv" ip6tables -A INPUT -p udp --dport 53 -m bpf --bytecode "$bc6" -j DROP ||
	e2e_fail "ip6tables refused the bytecode"

# The listener: one line per datagram, "FAMILY NAME".
cat >"$E2E_TMP/listen.py" <<'PY'
import socket, sys, select
def qname(d):
    i, out = 12, []
    while i < len(d) and d[i] != 0:
        n = d[i]; out.append(d[i + 1:i + 1 + n].decode('latin-1')); i += 1 + n
    return '.'.join(out)
s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s4.bind((sys.argv[1], 53))
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s6.bind((sys.argv[2], 53))
with open(sys.argv[3], 'a', buffering=1) as f:
    print('ready', file=f)
    while True:
        for s in select.select([s4, s6], [], [])[0]:
            d, _ = s.recvfrom(4096)
            print(('v4 ' if s is s4 else 'v6 ') + qname(d), file=f)
PY
# The sender: one query per name.
cat >"$E2E_TMP/send.py" <<'PY'
import socket, struct, sys, time
fam = socket.AF_INET6 if ':' in sys.argv[1] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
for name in sys.argv[2:]:
    q = struct.pack('!HHHHHH', 0x1234, 0x0100, 1, 0, 0, 0)
    q += b''.join(bytes([len(l)]) + l.encode() for l in name.split('.')) + b'\0'
    q += struct.pack('!HH', 1, 1)
    s.sendto(q, (sys.argv[1], 53))
    time.sleep(0.02)
PY

log=$E2E_TMP/received
e2e_bg ip netns exec "$recv" python3 "$E2E_TMP/listen.py" "$V4" "$V6" "$log" >"$E2E_TMP/listen.log" 2>&1
e2e_wait_for "grep -q ready '$log'" 10 || e2e_fail "the listener did not start: $(cat "$E2E_TMP/listen.log")"
e2e_wait_for "ip netns exec $peer ping -c1 -W1 $V4" 5 || e2e_fail "no IPv4 path between the namespaces"
e2e_wait_for "ip netns exec $peer ping -c1 -W1 $V6" 5 || e2e_fail "no IPv6 path between the namespaces"

match=(www.example.com a.example.com x-1.example.com)
other=(example.com a.b.example.com www.example.org WWW.EXAMPLE.COM www.example.co foo.test)
for a in "$V4" "$V6"; do
	e2e_ns "$peer" python3 "$E2E_TMP/send.py" "$a" "${match[@]}" "${other[@]}"
done

want=$(( 2 * ${#other[@]} ))
e2e_wait_for "[[ \$(grep -c '^v[46] ' '$log') -ge $want ]]" 10 || true
sleep 0.5 # anything dropped wrongly would have arrived by now

drops4=$(e2e_ns "$recv" iptables -vnxL INPUT | awk '$3 == "DROP" { print $1 }')
drops6=$(e2e_ns "$recv" ip6tables -vnxL INPUT | awk '$3 == "DROP" { print $1 }')
got=$(grep -c '^v[46] ' "$log" || true)
e2e_log "dropped v4 $drops4, v6 $drops6; received $got of $want non-matching queries"
[[ $drops4 == "${#match[@]}" ]] || { e2e_log "v4 drops $drops4, expected ${#match[@]}"; E2E_FAILS=$((E2E_FAILS + 1)); }
[[ $drops6 == "${#match[@]}" ]] || { e2e_log "v6 drops $drops6, expected ${#match[@]}"; E2E_FAILS=$((E2E_FAILS + 1)); }
for fam in v4 v6; do
	for n in "${other[@]}"; do
		grep -qx "$fam $n" "$log" || { e2e_log "$fam $n did not reach the listener"; E2E_FAILS=$((E2E_FAILS + 1)); }
	done
	for n in "${match[@]}"; do
		! grep -qx "$fam $n" "$log" || { e2e_log "$fam $n was not dropped"; E2E_FAILS=$((E2E_FAILS + 1)); }
	done
done
(( E2E_FAILS == 0 )) || e2e_fail "$E2E_FAILS checks failed"
e2e_pass "matching queries dropped, the others received (v4 and v6)"
