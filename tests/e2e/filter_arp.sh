#!/usr/bin/env bash
# `default drop` and ARP: every frame reaches the rules, IP or not. With
# `pass ether arp` and a rule for ping, a ping from the peer resolves its
# neighbour and is answered; the same set without `pass ether arp` drops
# the ARP exchange, the neighbour stays unresolved and the ping fails.
#
#   a (10.212.0.1) ── veth ── b (10.212.0.2): XDP filter on b's veth
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3 ethtool ping
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"
cp "$FASTPATH" "$E2E_TMP/fastpath" && FASTPATH=$E2E_TMP/fastpath
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3

a=$(e2e_name a); b=$(e2e_name b); va=$(e2e_name va); vb=$(e2e_name vb)
AIP=10.212.0.1 BIP=10.212.0.2
e2e_netns_add "$a"; e2e_netns_add "$b"
e2e_veth "$a" "$va" "$b" "$vb" "$AIP" "$BIP"
T=$E2E_TMP
check() { e2e_check "$@"; } # check DESCRIPTION CMD...
fp() { ip netns exec "$b" "$FASTPATH" "$@"; }
# stat_of FILE KEY: a rule's packets (KEY an id) or a stage decision's
stat_of() {
	"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); k=sys.argv[2]
r=[x["packets"] for x in d["rules"] if x["id"]==k] or [x["packets"] for x in d["stage"] if x["decision"]==k]
print(r[0])' "$1" "$2"
}
flush_neigh() {
	e2e_ns "$a" ip neigh flush dev "$va"
	e2e_ns "$b" ip neigh flush dev "$vb"
}
ping_b() { e2e_ns "$a" ping -c 3 -i 0.2 -W 1 -q "$BIP" >/dev/null 2>&1; }
no_ping_b() { ! ping_b; }

cat >"$T/arp.rules" <<'EOF'
pass ether arp id arp "neighbour resolution"
pass icmp id ping
default drop
EOF
grep -v 'ether arp' "$T/arp.rules" >"$T/noarp.rules"

fp filter load "$vb" "$T/arp.rules" >/dev/null || e2e_fail "filter load failed"
flush_neigh
check "with pass ether arp: ping through default drop" ping_b
fp -j filter stats "$vb" --interval 0 >"$T/s1.json" || e2e_fail "filter stats failed"
check "the arp rule counted the ARP frames" test "$(stat_of "$T/s1.json" arp)" -ge 1
check "the ping rule counted the echo requests" test "$(stat_of "$T/s1.json" ping)" -ge 3

fp filter apply "$vb" "$T/noarp.rules" >/dev/null || e2e_fail "filter apply failed"
flush_neigh
check "without pass ether arp: ping fails" no_ping_b
state=$(e2e_ns "$a" ip neigh show "$BIP" dev "$va" | awk '{print $NF}')
e2e_log "neighbour $BIP on $a: ${state:-none}"
check "the neighbour is not resolved" test "$state" != REACHABLE -a "$state" != STALE -a \
	"$state" != DELAY
fp -j filter stats "$vb" --interval 0 >"$T/s2.json" || e2e_fail "filter stats failed"
check "the default dropped the ARP requests" test "$(stat_of "$T/s2.json" default_drop)" -ge 1

fp filter apply "$vb" "$T/arp.rules" >/dev/null || e2e_fail "filter apply failed"
flush_neigh
check "pass ether arp again: ping works again" ping_b

e2e_done
