#!/usr/bin/env bash
# examples/dnscount (the C API's example, `make examples`): DNS queries
# sent over a veth are taken into user space and their names counted,
# lowercased; UDP to another port is not taken (a listener gets it).
. "$(dirname "$0")/lib.sh"
e2e_require python3 ethtool

DNSCOUNT=${DNSCOUNT:-$(dirname "$FASTPATH")/examples/dnscount}
[[ -x $DNSCOUNT ]] || e2e_fail "$DNSCOUNT is not built (make examples)"
tools=$E2E_REPO/tests/e2e/capture_tools.py
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3   # Debian's, with python3-scapy
"$PY" -c 'import scapy.all' 2>/dev/null || e2e_skip "needs python3-scapy"
nsa=$(e2e_name da); nsv=$(e2e_name dv)
ifa=$(e2e_name va); ifv=$(e2e_name vv)
e2e_netns_add "$nsa"; e2e_netns_add "$nsv"
e2e_veth "$nsa" "$ifa" "$nsv" "$ifv" 10.0.1.1 10.0.1.2
for n in "$nsa" "$nsv"; do ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1; done
maca=$(e2e_mac "$nsa" "$ifa"); macv=$(e2e_mac "$nsv" "$ifv")
names=www.example.com,MAIL.Example.org,www.example.com,a.b.c.example.net,mail.example.org,www.example.com
ip netns exec "$nsa" "$PY" "$tools" dnsframes "$E2E_TMP/dns.pcap" "$maca" "$macv" "$names" || e2e_fail "dnsframes"
ip netns exec "$nsa" "$PY" "$tools" frames "$E2E_TMP/udp.pcap" "$maca" "$macv" 5 || e2e_fail "frames"
e2e_bg ip netns exec "$nsv" "$PY" "$tools" udp-listen 9000 "$E2E_TMP/heard" 30
e2e_wait_for "[[ -s '$E2E_TMP/heard' ]]" 5 || e2e_fail "no UDP listener"
e2e_bg ip netns exec "$nsv" "$DNSCOUNT" "$ifv" --count 6 --duration 30 >"$E2E_TMP/out" 2>"$E2E_TMP/err"
d=$E2E_BG_PID
e2e_wait_for "grep -q 'counting DNS' '$E2E_TMP/err'" 10 || e2e_fail "dnscount did not start: $(cat "$E2E_TMP/err")"
ip netns exec "$nsa" "$PY" "$tools" send "$ifa" "$E2E_TMP/udp.pcap" 0.01 || e2e_fail "send udp"
ip netns exec "$nsa" "$PY" "$tools" send "$ifa" "$E2E_TMP/dns.pcap" 0.01 || e2e_fail "send dns"
e2e_wait_for "! kill -0 $d" 10 || e2e_fail "dnscount did not end after 6 queries: $(cat "$E2E_TMP/err")"
wait "$d" || e2e_fail "dnscount failed: $(cat "$E2E_TMP/err")"
want=$(printf '%8d %s\n' 3 www.example.com 2 mail.example.org 1 a.b.c.example.net)
[[ $(cat "$E2E_TMP/out") == "$want" ]] || e2e_fail "dnscount printed: $(cat "$E2E_TMP/out"); want: $want"
grep -q '^6 queries, 0 not DNS queries, 0 names not kept, 0 lost' "$E2E_TMP/err" ||
	e2e_fail "dnscount summary: $(cat "$E2E_TMP/err")"
e2e_wait_for "(( \$(cat '$E2E_TMP/heard') == 5 ))" 3 ||
	e2e_fail "the listener on 9000 got $(cat "$E2E_TMP/heard") of 5 datagrams dnscount must leave alone"
[[ ! -e $FASTPATH_BPFFS/$ifv ]] || e2e_fail "dnscount left fastpath on $ifv"
e2e_pass
