#!/usr/bin/env bash
# The lb health checker against real servers in a namespace: a backend with
# no listener is taken down after --fall failed probes (not before), one
# with a listener stays up; a server started later brings it up after
# --rise good probes; the state is pinned, so a second checker process goes
# on counting where the first stopped (a restart changes nothing); an
# operator's drain is never undone and a backend drained by hand is not
# marked down; HTTP probes compare the status; a probe cut short by the
# checker's stop counts for nothing; bad options exit 2; the shipped
# systemd unit verifies and its ExecStart runs a checker. These
# backends share one namespace and neither decapsulate nor own the VIP, so
# the probes here are --direct (to each backend's own address); the
# encapsulated probe, to the VIP, is lb_health_encap.sh's.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

a=$(e2e_name a); b=$(e2e_name b); va=$(e2e_name va); vb=$(e2e_name vb)
e2e_netns_add "$a"; e2e_netns_add "$b"
e2e_veth "$a" "$va" "$b" "$vb" 10.77.0.1 10.77.0.2
for x in 11 12 13; do ip -n "$b" addr add 10.77.0.$x/24 dev "$vb"; done
T=$E2E_TMP out=$E2E_TMP/out err=$E2E_TMP/err
V=198.51.100.10:8080/tcp
expect() {
	local want=$1 rc=0; shift
	ip netns exec "$a" "$FASTPATH" "$@" >"$out" 2>"$err" </dev/null || rc=$?
	if (( rc != want )); then
		e2e_log "NOT OK: fastpath $*: exit $rc, expected $want"
		sed 's/^/    out| /' "$out" >&2; sed 's/^/    err| /' "$err" >&2
		E2E_FAILS=$((E2E_FAILS + 1))
		return 1
	fi
}
check() { e2e_check "$@"; }
state() { ip netns exec "$a" "$FASTPATH" -j lb list "$va" | python3 -c "import json,sys; d=json.load(sys.stdin); print([b['state'] for b in d['backends'] if b['backend']=='$1'][0])"; }
# lastfield BACKEND FIELD: FIELD of BACKEND's last probe line in $out
lastfield() { python3 -c "import json,sys; r=[json.loads(l) for l in open('$out') if l.strip()]; print([x['$2'] for x in r if x['backend']=='$1'][-1])"; }
# serve ADDR [CODE]: an HTTP server on ADDR:8080 answering CODE; its pid in $srv
serve() {
	e2e_bg ip netns exec "$b" python3 -c '
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(int(sys.argv[2])); self.end_headers(); self.wfile.write(b"x")
    def log_message(self, *a): pass
http.server.HTTPServer((sys.argv[1], 8080), H).serve_forever()' "$1" "${2:-200}"
	srv=$E2E_BG_PID
	e2e_wait_for "ip netns exec $a python3 -c 'import socket; socket.create_connection((\"$1\", 8080), 1)'" 10 ||
		e2e_fail "server on $1 did not start"
}

expect 2 lb health "$va" --fall 0
expect 2 lb health "$va" --interval 0
expect 2 lb health "$va" --http healthz && check "--http wants a path" grep -q '/healthz' "$err"
expect 2 lb health
expect 1 lb health "$va" --count 1 && check "health without the lb says how to load it" grep -q 'lb load' "$err"

expect 0 lb load "$va"
expect 0 lb vip add "$va" "$V" --table-size 251
for x in 11 12 13; do expect 0 lb backend add "$va" "$V" 10.77.0.$x; done
serve 10.77.0.11; s11=$srv
serve 10.77.0.13; s13=$srv

# .12 has no server: 2 failures of --fall 3 leave it up, the third takes it down
expect 0 -j lb health "$va" --direct --interval 0.1 --fall 3 --rise 2 --timeout 500 --count 2
check "two failures of three: .12 still up" test "$(state 10.77.0.12)" = up
check "... its fail_run is 2" test "$(lastfield 10.77.0.12 fail_run)" = 2
check "... .11 probes ok" test "$(lastfield 10.77.0.11 probe)" = ok
# a new process: the run goes on from the pinned state
expect 0 -j lb health "$va" --direct --interval 0.1 --fall 3 --rise 2 --timeout 500 --count 1
check "restarted checker: the third failure takes .12 down" \
	bash -c "test '$(lastfield 10.77.0.12 change)' = down && test '$(state 10.77.0.12)' = down"
check "... the others stay up" bash -c "test '$(state 10.77.0.11)' = up && test '$(state 10.77.0.13)' = up"
expect 0 -j lb list "$va"
check "... .12 has no slot in the table" python3 -c "import json; d=json.load(open('$out')); exit([b['slots'] for b in d['backends'] if b['backend']=='10.77.0.12'][0] != 0)"

# an operator's drain: a failing drained backend is not marked down, and not brought up
expect 0 lb backend drain "$va" "$V" 10.77.0.13
e2e_kill "$s13"
expect 0 -j lb health "$va" --direct --interval 0.1 --fall 3 --rise 2 --timeout 500 --count 4
check "a drained backend whose server stopped stays drain" test "$(state 10.77.0.13)" = drain

# .12's server starts: up after --rise 2 good probes, not after one
serve 10.77.0.12
expect 0 -j lb health "$va" --direct --interval 0.1 --fall 3 --rise 2 --timeout 500 --count 1
check "one good probe of two: .12 still down" test "$(state 10.77.0.12)" = down
expect 0 -j lb health "$va" --direct --interval 0.1 --fall 3 --rise 2 --timeout 500 --count 1
check "the second brings it up" bash -c "test '$(lastfield 10.77.0.12 change)' = up && test '$(state 10.77.0.12)' = up"
serve 10.77.0.13
expect 0 -j lb health "$va" --direct --interval 0.1 --rise 1 --timeout 500 --count 2
check "an operator's drain is never undone by the checker" test "$(state 10.77.0.13)" = drain

# HTTP: .11 answers 200, a 503 server on .13 fails an --expect 200 probe
expect 0 -j lb health "$va" --direct --http /healthz --expect 200 --timeout 500 --count 1
check "HTTP 200 from .11: ok" test "$(lastfield 10.77.0.11 probe)" = ok
expect 0 -j lb health "$va" --direct --http /healthz --expect 204 --timeout 500 --count 1
check "HTTP 200 when 204 is expected: a failure naming both" \
	bash -c "test '$(lastfield 10.77.0.11 probe)' = fail && grep -q 'status 200, expected 204' $out"

# Stopped mid-probe: a probe the checker's SIGTERM cuts short says nothing
# of its backend. .14 has no host (ARP goes unanswered: the probe hangs
# ~3 s); with --fall 1 a counted interruption would take it down.
expect 0 lb backend add "$va" "$V" 10.77.0.14
e2e_bg ip netns exec "$a" "$FASTPATH" lb health "$va" --direct --interval 0.1 --fall 1 --timeout 5000
hc=$E2E_BG_PID
sleep 1.5
t0=$(date +%s%N)
e2e_kill "$hc"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "the checker stopped mid-probe exits at once: ${ms} ms" test "$ms" -lt 1500
check "... and the probe it cut short took nothing down (fall 1)" test "$(state 10.77.0.14)" = up

# ---- the shipped unit: it verifies, and its command runs the checker ----------
e2e_unit_verify fastpath-lb-health@.service "$va"
read -r -a hcmd <<<"$(sed -n 's/^ExecStart=//p' "$E2E_REPO/systemd/fastpath-lb-health@.service" |
	sed "s#/usr/local/sbin/fastpath#$FASTPATH#; s#%i#$va#g; s#\$FASTPATH_LB_HEALTH_OPTS#-j --direct --interval 0.1 --count 1#")"
rc=0; ip netns exec "$a" "${hcmd[@]}" >"$out" 2>"$err" </dev/null || rc=$?
check "the unit's ExecStart (${hcmd[*]:1}) runs: exit $rc, a probe line for each backend" \
	bash -c "test $rc = 0 && test \$(grep -c '\"probe\"' $out) = 4"

expect 0 lb unload "$va"
check "unload: no pin left (the health state too)" test ! -e "$FASTPATH_BPFFS/$va"
e2e_done
