#!/usr/bin/env bash
# The health checker's probes reach a backend the way clients' packets do:
# to the VIP, encapsulated by the tc program on the lb's interface, decap'd
# by `fastpath decap` on the backend, answered from the VIP directly. The
# lb host and three backends on one L2 segment (a bridge in a switch
# namespace), each backend an HTTP server on VIP:8080 with the VIP on lo:
#  - every backend healthy: all stay up, and the lb host's egress program
#    counted the encapsulated probes;
#  - b2's decap unloaded: down within fall * interval; loaded again: up
#    after rise good probes;
#  - b3 without the VIP on lo: down (its server still listens on its own
#    address: `--direct` probes, the old way, call it healthy);
#  - b1's server stopped: down within fall * interval; started again: up
#    after rise good probes;
#  - the VIP on the lb host's own lo: the probe fails, saying why;
#  - a second checker on the same interface refuses; one on a second lb
#    interface refuses too (one per host), and that
#    interface's unload leaves the first's probes alone;
#  - the probes' tc filter, rule, route and pins are gone when the checker
#    exits, also after a kill -9 once `lb unload` ran; unmarked traffic from
#    the lb host to the backends flows while the checker runs;
#  - a v6 VIP with the same backends over IPv6 (IPv6 in IPv6).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3 ethtool
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

sw=$(e2e_name sw); lb=$(e2e_name lb)
b=("$(e2e_name b1)" "$(e2e_name b2)" "$(e2e_name b3)")
for n in "$sw" "$lb" "${b[@]}"; do e2e_netns_add "$n"; done
ip -n "$sw" link add br0 type bridge
ip -n "$sw" link set br0 up
port() {
	e2e_veth "$1" "$2" "$sw" "$4" "$3" ""
	ip -n "$sw" link set "$4" master br0
}
vl=$(e2e_name vl)
port "$lb" "$vl" 10.8.0.2 "$(e2e_name pl)"
bv=()
for i in 0 1 2; do
	bv+=("$(e2e_name v$((i + 1)))")
	port "${b[i]}" "${bv[i]}" "10.8.0.1$((i + 1))" "$(e2e_name p$((i + 1)))"
done
# A veth leaves a locally made TCP checksum partial for the receiver to
# complete, which a decapsulating XDP program cannot: senders complete it.
ip netns exec "$lb" ethtool -K "$vl" tx off >/dev/null
for i in 0 1 2; do ip netns exec "${b[i]}" ethtool -K "${bv[i]}" tx off >/dev/null; done
for n in "$lb" "${b[@]}"; do ip netns exec "$n" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0; done

VIP=198.51.100.10 VIP6=2001:db8:100::10
for i in 0 1 2; do
	ip -n "${b[i]}" addr add "$VIP6/128" dev lo
	ip netns exec "${b[i]}" sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2
	ip netns exec "${b[i]}" "$FASTPATH" decap load "${bv[i]}" >/dev/null || e2e_fail "decap load on b$((i + 1))"
done
# b3 lacks the v4 VIP on lo
ip -n "${b[0]}" addr add "$VIP/32" dev lo
ip -n "${b[1]}" addr add "$VIP/32" dev lo

# serve I: an HTTP server of backend I on every address, port 8080; pid in SRV[I]
SRV=()
serve() {
	e2e_bg ip netns exec "${b[$1]}" python3 -c '
import http.server, socket, sys
class S(http.server.HTTPServer):
    address_family = socket.AF_INET6
    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"x")
    def log_message(self, *a): pass
S(("::", 8080), H).serve_forever()'
	SRV[$1]=$E2E_BG_PID
	e2e_wait_for "ip netns exec ${b[$1]} python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", 8080), 1)'" 10 ||
		e2e_fail "server on b$(($1 + 1)) did not start"
}
for i in 0 1 2; do serve $i; done

check() { e2e_check "$@"; }
lbcmd() { ip netns exec "$lb" "$FASTPATH" "$@"; }
lbcmd lb load "$vl" >/dev/null || e2e_fail "lb load"
lbcmd lb vip add "$vl" "$VIP:8080/tcp" >/dev/null || e2e_fail "vip add"
for i in 1 2 3; do lbcmd lb backend add "$vl" "$VIP:8080/tcp" "10.8.0.1$i" >/dev/null || e2e_fail "backend add $i"; done

# state VIP BACKEND: the backend's state in `lb list`
state() { lbcmd -j lb list "$vl" | python3 -c "import json,sys; d=json.load(sys.stdin); print([b['state'] for b in d['backends'] if b['backend']=='$2' and b['vip']=='$1'][0])"; }
OUT=$E2E_TMP/out
# rounds N [ARGS]: N checker rounds (interval 0.2, fall 3, rise 2), probe lines in $OUT
rounds() {
	local n=$1; shift
	lbcmd -j lb health "$vl" --interval 0.2 --fall 3 --rise 2 --timeout 400 --count "$n" "$@" >"$OUT" 2>"$E2E_TMP/err" ||
		{ sed 's/^/    err| /' "$E2E_TMP/err" >&2; return 1; }
}
# lastprobe BACKEND: the last probe's outcome (and why) for BACKEND in $OUT
lastprobe() { python3 -c "import json; r=[json.loads(l) for l in open('$OUT') if l.strip()]; x=[x for x in r if x['backend']=='$1'][-1]; print(x['probe'], x['why'] or '')"; }
diag() {
	lbcmd lb list "$vl" >&2 || true
	for i in 0 1 2; do ip netns exec "${b[i]}" "$FASTPATH" decap stats "${bv[i]}" >&2 || true; done
}

rounds 1 || e2e_fail "health round"
check "b1 healthy through the VIP" test "$(lastprobe 10.8.0.11)" = "ok "
check "b2 healthy through the VIP" test "$(lastprobe 10.8.0.12)" = "ok "
p3=$(lastprobe 10.8.0.13)
check "b3 without the VIP on lo fails its probe ($p3)" test "${p3%% *}" = fail
# the probes went through b1's decap (the lb host has the VIP on none of its addresses)
decapped() { ip netns exec "${b[$1]}" "$FASTPATH" -j decap stats "${bv[$1]}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["decapsulated"])'; }
d0=$(decapped 0)
rounds 1 || e2e_fail "health round"
d1=$(decapped 0)
check "one probe of b1: its decap took $((d1 - d0)) packets (SYN, ACK, FIN at least)" test $((d1 - d0)) -ge 3
(( E2E_FAILS == 0 )) || diag

rounds 3 || e2e_fail "health rounds"
check "b3 (no VIP on lo) is down after fall 3" test "$(state "$VIP:8080/tcp" 10.8.0.13)" = down
check "b1 and b2 stay up" bash -c "test $(state "$VIP:8080/tcp" 10.8.0.11) = up && test $(state "$VIP:8080/tcp" 10.8.0.12) = up"
rounds 1 --direct || e2e_fail "health --direct"
check "... the old direct probe calls b3 healthy (what this fixes)" test "$(lastprobe 10.8.0.13)" = "ok "

# a broken decap: down within fall * interval (a checker running with
# --interval 1 --fall 3, its probe lines stamped as they come), and up
# again after rise good probes once it returns
HCLOG=$E2E_TMP/hc.log
e2e_bg bash -c "ip netns exec $lb $FASTPATH -v -j lb health $vl --interval 1 --fall 3 --rise 2 --timeout 300 |
	while IFS= read -r l; do echo \"\$(date +%s.%N) \$l\"; done >$HCLOG"
hc=$E2E_BG_PID
e2e_wait_for "grep -q 10.8.0.12 $HCLOG" 10 || e2e_fail "the checker did not start probing"
# took CHANGE SINCE [BACKEND]: seconds from SINCE to BACKEND's (b2's) CHANGE
# line in the log after SINCE
took() {
	local be=${3:-10.8.0.12}
	e2e_wait_for "grep '\"$be\"' $HCLOG | grep '\"change\":\"$1\"' | awk -v t=$2 '\$1 > t' | grep -q ." 10 ||
		{ echo never; return; }
	grep "\"$be\"" "$HCLOG" | grep "\"change\":\"$1\"" | awk -v t="$2" '$1 > t { printf "%.2f", $1 - t; exit }'
}
tu=$(date +%s.%N)
ip netns exec "${b[1]}" "$FASTPATH" decap unload "${bv[1]}" >/dev/null || e2e_fail "decap unload b2"
s=$(took down "$tu")
# fall * interval = 3 s, plus up to one interval of phase and a timeout
check "b2 without decap goes down within fall * interval: after $s s" \
	python3 -c "import sys; sys.exit(not ('$s' != 'never' and float('$s') <= 4.3))"
check "... b1 stays up" test "$(state "$VIP:8080/tcp" 10.8.0.11)" = up
tl=$(date +%s.%N)
ip netns exec "${b[1]}" "$FASTPATH" decap load "${bv[1]}" >/dev/null || e2e_fail "decap load b2 again"
s=$(took up "$tl")
check "decap back: b2 up within rise * interval: after $s s" \
	python3 -c "import sys; sys.exit(not ('$s' != 'never' and float('$s') <= 3.3))"
check "... in the lb's table again" test "$(state "$VIP:8080/tcp" 10.8.0.12)" = up
# a stopped server, the same way: down within fall * interval, up after
# rise good probes once it serves again
ts=$(date +%s.%N)
e2e_kill "${SRV[0]}"
s=$(took down "$ts" 10.8.0.11)
check "b1's server stopped: down within fall * interval: after $s s" \
	python3 -c "import sys; sys.exit(not ('$s' != 'never' and float('$s') <= 4.3))"
check "... in the lb's table" test "$(state "$VIP:8080/tcp" 10.8.0.11)" = down
ts=$(date +%s.%N)
serve 0
s=$(took up "$ts" 10.8.0.11)
check "b1's server back: up within rise * interval: after $s s" \
	python3 -c "import sys; sys.exit(not ('$s' != 'never' and float('$s') <= 3.3))"
check "... in the lb's table again" test "$(state "$VIP:8080/tcp" 10.8.0.11)" = up
e2e_kill "$hc"
check "the checker removed its tc filter at exit" bash -c "! ip netns exec $lb tc filter show dev $vl egress | grep -q ."

# HTTP through the encapsulation
rounds 1 --http /healthz || e2e_fail "health --http"
check "an HTTP probe through the VIP" test "$(lastprobe 10.8.0.11)" = "ok "

# the VIP on the lb host itself: the probe would be answered locally, so it fails, saying why
ip -n "$lb" addr add "$VIP/32" dev lo
rounds 1 || e2e_fail "health round"
p1=$(lastprobe 10.8.0.11)
check "a VIP of the lb host's own fails the probe ($p1)" bash -c "[[ '$p1' == 'fail the VIP is an address of this host'* ]]"
ip -n "$lb" addr del "$VIP/32" dev lo

# nothing left after the checker exits
check "no tc filter left on the lb's interface" bash -c "! ip netns exec $lb tc filter show dev $vl egress | grep -q ."
check "no fwmark rule left" bash -c "! ip -n $lb rule show | grep -q 0x46500000 && ! ip -n $lb -6 rule show | grep -q 0x46500000"
check "no route left in table 18000" bash -c "! ip -n $lb route show table 18000 | grep -q . && ! ip -n $lb -6 route show table 18000 | grep -q ."
check "no probe pins left" bash -c "! ls $FASTPATH_BPFFS/$vl/lb | grep -q lb_hc"

# IPv6: the same backends behind a v6 VIP (b3 has the v6 VIP on lo)
lbcmd lb vip add "$vl" "[$VIP6]:8080/tcp" >/dev/null || e2e_fail "vip add v6"
for i in 1 2 3; do lbcmd lb backend add "$vl" "[$VIP6]:8080/tcp" "$(e2e_v6_of "10.8.0.1$i")" >/dev/null || e2e_fail "backend add v6 $i"; done
rounds 1 || e2e_fail "health round v6"
check "v6: IPv6 in IPv6 probes ok" bash -c "grep -c '\"vip\": *\"\\[$VIP6\\]:8080/tcp\".*\"probe\": *\"ok\"' $OUT | grep -qx 3"

# while a checker runs: the lb host's own traffic to a backend is untouched;
# a checker killed -9 leaves its filter, which `lb unload` removes
e2e_bg ip netns exec "$lb" "$FASTPATH" lb health "$vl" --interval 0.2
hc=$E2E_BG_PID
e2e_wait_for "ip netns exec $lb tc filter show dev $vl egress | grep -q fp_lb_hc" 10 || e2e_fail "the checker did not attach"
check "unmarked traffic from the lb host reaches a backend" \
	ip netns exec "$lb" python3 -c 'import socket; socket.create_connection(("10.8.0.11", 8080), 2)'
rc=0; lbcmd lb health "$vl" --count 1 >/dev/null 2>"$E2E_TMP/err2" || rc=$?
check "a second checker on the same interface exits 1 (it would undo the first's setup)" \
	bash -c "test $rc = 1 && grep -q 'already runs on $vl' $E2E_TMP/err2"
check "... and the first's filter is still there" bash -c "ip netns exec $lb tc filter show dev $vl egress | grep -q fp_lb_hc"
# a second lb interface on the host: its checker refuses, naming the first
vx=$(e2e_name vx)
e2e_veth "$lb" "$vx" "$lb" "$(e2e_name vy)" 10.9.0.1 10.9.0.2
lbcmd lb load "$vx" >/dev/null || e2e_fail "lb load on a second interface"
rc=0; lbcmd lb health "$vx" --count 1 >/dev/null 2>"$E2E_TMP/err2" || rc=$?
check "a second interface's checker exits 1 naming the first ($(head -c 80 "$E2E_TMP/err2"))" \
	bash -c "test $rc = 1 && grep -q 'set up for $vl already' $E2E_TMP/err2"
lbcmd lb unload "$vx" >/dev/null || e2e_fail "lb unload of the second interface"
check "... whose unload leaves the first's probes alone" \
	bash -c "ip -n $lb rule show | grep -q 0x46500000 && ip -n $lb route show table 18000 | grep -q $vl"
kill -9 "$hc" 2>/dev/null || true
check "after kill -9: unmarked traffic still flows" \
	ip netns exec "$lb" python3 -c 'import socket; socket.create_connection(("10.8.0.12", 8080), 2)'
lbcmd lb unload "$vl" >/dev/null || e2e_fail "lb unload"
check "lb unload removed the killed checker's filter" bash -c "! ip netns exec $lb tc filter show dev $vl egress | grep -q ."
check "... its rule" bash -c "! ip -n $lb rule show | grep -q 0x46500000"
check "... and every pin" test ! -e "$FASTPATH_BPFFS/$vl"
(( E2E_FAILS == 0 )) || { diag; e2e_fail "$E2E_FAILS checks failed"; }
e2e_pass
