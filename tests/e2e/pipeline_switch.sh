#!/usr/bin/env bash
# Switching stages at run time loses nothing. A pipeline of three stages on
# the receiving end of a veth (build/tests/fastpath-test: the dump, the
# filter with one rule that drops UDP port 9000, the tests' mark stage in
# slot 5), traffic of two classes at a steady, bounded rate (a paced UDP
# sender: port 9000, the dropped class, and port 9001), while `pipeline disable` and
# `enable` run 100 times for each stage in turn (the dump with a `fastpath
# dump` running). Each phase accounts for every packet: sent = dropped by
# the filter's rule + delivered to the receiver's stack (nft counters in
# its prerouting hook), per class; no packet of the dropped class is
# delivered while the filter is enabled; the mark stage (the last one) sees
# exactly the packets delivered whenever it stays enabled; and after every
# switch an XDP program is attached to the interface.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3 ethtool nft nsenter
FPT=${FASTPATH_TEST:-$E2E_REPO/build/tests/fastpath-test}
[[ -x $FPT ]] || e2e_fail "no binary at $FPT; run make tests-build"

SWITCHES=${PIPELINE_SWITCHES:-100}  # disable + enable cycles per stage
PPS=2000                            # per class
MAX_PKTS=$(( PPS * 90 ))            # per class and phase: the sender stops by itself within 90 s
PHASE_SECONDS=80                    # a phase's switching stops here at the latest

a=$(e2e_name a); b=$(e2e_name b); va=$(e2e_name va); vb=$(e2e_name vb)
e2e_netns_add "$a"; e2e_netns_add "$b"
e2e_veth "$a" "$va" "$b" "$vb" 10.213.0.1 10.213.0.2
BIP=10.213.0.2
# nothing but the generated frames on the link (no router solicitations)
for n in "$a" "$b"; do ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1; done
BMAC=$(e2e_mac "$b" "$vb"); AMAC=$(e2e_mac "$a" "$va")
# no ARP either way: the neighbours are fixed
ip -n "$a" neigh replace 10.213.0.2 lladdr "$BMAC" dev "$va" nud permanent
ip -n "$b" neigh replace 10.213.0.1 lladdr "$AMAC" dev "$vb" nud permanent
T=$E2E_TMP

# inb CMD...: CMD in namespace b (nsenter: cheaper than `ip netns exec`, whose
# remount of /sys the CLI does not need; the loop runs it 600 times)
inb() { nsenter --net="/run/netns/$b" "$@"; }
fpt() { inb "$FPT" "$@"; }
# pyeval EXPR FILE: EXPR over the JSON document d of FILE.
pyeval() { python3 -S -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$2" "$1"; }

# The receiver's stack counts each class in its prerouting hook, the first
# place a packet XDP passed reaches.
ip netns exec "$b" nft -f - <<'NFT' || e2e_fail "cannot set up the nft counters"
table inet fpsw {
	counter c9000 {}
	counter c9001 {}
	chain pre {
		type filter hook prerouting priority -400;
		udp dport 9000 counter name c9000
		udp dport 9001 counter name c9001
	}
}
NFT
delivered() { inb nft list counter inet fpsw "c$1" | sed -n 's/.*packets \([0-9]*\).*/\1/p'; }

attached() { inb ip link show "$vb" | grep -q 'prog/xdp id'; }

# ---- the pipeline ------------------------------------------------------------
fpt pipeline load "$vb" >/dev/null || e2e_fail "pipeline load failed"
echo 'drop udp dport 9000 id flood' >"$T/rules"
fpt filter load "$vb" "$T/rules" >/dev/null || e2e_fail "filter load failed"
fpt -j pipeline show "$vb" >"$T/show"
[[ $(pyeval "sorted(s['stage'] for s in d['slots'] if s['loaded'] and s['enabled'])" "$T/show") == \
   "['dump', 'filter', 'mark']" ]] || e2e_fail "want dump, filter and mark loaded and enabled: $(cat "$T/show")"
[[ $(pyeval "d['attached']" "$T/show") == True ]] || e2e_fail "the pipeline is not attached"

# counters STAGE FIELD...: the stage's counters from a fresh show -j, space-separated.
counters() {
	local s=$1; shift
	fpt -j pipeline show "$vb" >"$T/show" || e2e_fail "pipeline show failed"
	pyeval "' '.join(str([r for r in d['slots'] if r['stage']=='$s'][0][k]) for k in '$*'.split())" "$T/show"
}

# Sends both classes in the background from a UDP socket in namespace a,
# paced by sleeping (fastpath gen's pacer would keep a CPU busy, and the
# switching needs it on a shared machine), bounded in count and time; at
# SIGINT (or the bound) it writes how many of each class the kernel took.
cat >"$T/send.py" <<'PY'
import json, signal, socket, sys, time
dst, pps, max_n, max_s, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
stop = []
signal.signal(signal.SIGINT, lambda *a: stop.append(1))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sent = {9000: 0, 9001: 0}
t0, n = time.monotonic(), 0
while not stop and n < max_n and time.monotonic() - t0 < max_s:
    due = min(int((time.monotonic() - t0) * pps), max_n)
    while n < due:
        for port in sent:
            try:
                s.sendto(b"fastpath-switch", (dst, port))
                sent[port] += 1
            except OSError:
                pass
        n += 1
    time.sleep(0.005)
json.dump({str(k): v for k, v in sent.items()}, open(out, "w"))
PY
SEND_PID=
start_traffic() {
	rm -f "$T/sent.json"
	tx_drop0=$(e2e_counter "$a" "$va" tx_dropped)
	e2e_bg ip netns exec "$a" python3 -S "$T/send.py" "$BIP" "$PPS" "$MAX_PKTS" 100 "$T/sent.json"
	SEND_PID=$E2E_BG_PID
	sleep 0.5 # flowing before the first switch
}
# Stops the sender; fails if it had stopped before: the switching must
# happen while traffic flows.
stop_traffic() {
	kill -0 "$SEND_PID" 2>/dev/null || e2e_fail "the traffic ended before the switching did (slow machine?)"
	kill -INT "$SEND_PID"
	for _ in $(seq 50); do kill -0 "$SEND_PID" 2>/dev/null || break; sleep 0.1; done
	wait "$SEND_PID" || e2e_fail "the sender exited $?"
	[[ -s $T/sent.json ]] || e2e_fail "the sender wrote no report"
	# a frame the veth could not hand to the receiver is not "sent"
	local dropped=$(( $(e2e_counter "$a" "$va" tx_dropped) - tx_drop0 ))
	(( dropped == 0 )) || e2e_fail "the veth dropped $dropped frames on the way (machine too slow?)"
}
# sent PORT: datagrams of the class the sender's kernel took.
sent() { pyeval "d['$1']" "$T/sent.json"; }

# switch STAGE: disables and enables it SWITCHES times (bounded in time too),
# checking after every switch that the interface runs an XDP program. With
# a hook function ON_SWITCH set, runs it just before each disable ("off")
# and just after each enable ("on").
ON_SWITCH=
switch() {
	local s=$1 i end=$(( SECONDS + PHASE_SECONDS ))
	for (( i = 0; i < SWITCHES; i++ )); do
		(( SECONDS < end )) || e2e_fail "$s: only $i of $SWITCHES switches in $PHASE_SECONDS s"
		[[ -z $ON_SWITCH ]] || "$ON_SWITCH" off "$i"
		fpt pipeline disable "$vb" "$s" >/dev/null || e2e_fail "$s: disable #$i failed"
		attached || e2e_fail "$s: no XDP program on $vb after disable #$i"
		fpt pipeline enable "$vb" "$s" >/dev/null || e2e_fail "$s: enable #$i failed"
		attached || e2e_fail "$s: no XDP program on $vb after enable #$i"
		[[ -z $ON_SWITCH ]] || "$ON_SWITCH" on "$i"
	done
}

# One phase: traffic, SWITCHES cycles of STAGE, then every packet accounted
# for. Sets D9000 D9001 (delivered), S9000 S9001 (sent), DROP (the filter's
# drops), FIN (the filter's in), MIN (the mark's in) for the phase.
phase() {
	local s=$1 d0 d1 f0 fin0 m0 t0=$SECONDS
	d0=$(delivered 9000); d1=$(delivered 9001)
	read -r f0 fin0 <<<"$(counters filter drop in)"
	m0=$(counters mark in)
	start_traffic
	switch "$s"
	stop_traffic
	S9000=$(sent 9000); S9001=$(sent 9001)
	(( S9000 > 200 && S9001 > 200 )) || e2e_fail "$s: too little traffic ($S9000, $S9001)"
	# every frame sent reaches XDP and then the stack or a drop: wait for the
	# last ones (bounded), then count
	e2e_wait_for "(( \$(delivered 9001) - $d1 >= $S9001 ))" 5 || true
	e2e_wait_for "(( \$(delivered 9000) - $d0 + \$(counters filter drop) - $f0 >= $S9000 ))" 5 || true
	D9000=$(( $(delivered 9000) - d0 )); D9001=$(( $(delivered 9001) - d1 ))
	read -r DROP FIN <<<"$(counters filter drop in)"
	DROP=$(( DROP - f0 )); FIN=$(( FIN - fin0 )); MIN=$(( $(counters mark in) - m0 ))
	e2e_log "$s: $SWITCHES switches in $(( SECONDS - t0 )) s; port 9000: sent $S9000," \
		"dropped $DROP, delivered $D9000; port 9001: sent $S9001, delivered $D9001;" \
		"filter in $FIN, mark in $MIN"
	(( D9001 == S9001 )) || e2e_fail "$s: port 9001 sent $S9001, delivered $D9001"
	(( DROP + D9000 == S9000 )) ||
		e2e_fail "$s: port 9000 sent $S9000 = dropped $DROP + delivered $D9000 does not hold"
}

# ---- the dump, with a `fastpath dump` running --------------------------------
e2e_bg ip netns exec "$b" "$FPT" -j dump "$vb" -w "$T/dump.pcapng" --sample 1/10 --duration 200 \
	>"$T/dump.json" 2>"$T/dump.err"
dump_pid=$E2E_BG_PID
e2e_wait_for "[[ -s $T/dump.pcapng ]]" 5 || e2e_fail "the dump did not start: $(cat "$T/dump.err")"
phase dump
(( D9000 == 0 && DROP == S9000 )) || e2e_fail "dump: the filter stayed enabled, yet $D9000 of port 9000 were delivered"
(( FIN == S9000 + S9001 )) || e2e_fail "dump: the filter saw $FIN packets, $((S9000 + S9001)) were sent"
(( MIN == D9000 + D9001 )) || e2e_fail "dump: the mark saw $MIN packets, $((D9000 + D9001)) were delivered"
kill -INT "$dump_pid"
for _ in $(seq 50); do kill -0 "$dump_pid" 2>/dev/null || break; sleep 0.1; done
wait "$dump_pid" || e2e_fail "the dump exited $? after SIGINT: $(cat "$T/dump.err")"
written=$(pyeval "d['written']" "$T/dump.json")
(( written > 0 )) || e2e_fail "the dump wrote no sample while it was switched: $(cat "$T/dump.json")"
e2e_log "dump: the running dump wrote $written samples, lost $(pyeval "d['lost']" "$T/dump.json")"

# ---- the filter: nothing of port 9000 delivered while it is enabled ----------
# after each enable returns, until the next disable, port 9000's delivered
# count stays put (a packet the chain passed before the enable reached the
# stack long before the enable's process exited)
ENABLED_AT=
misroute_check() {
	local now
	now=$(delivered 9000)
	if [[ $1 == on ]]; then
		ENABLED_AT=$now
	elif [[ -n $ENABLED_AT ]] && (( now != ENABLED_AT )); then
		e2e_fail "filter: $(( now - ENABLED_AT )) packets of port 9000 delivered while the filter was enabled (before disable #$2)"
	fi
}
ON_SWITCH=misroute_check
phase filter
ON_SWITCH=
(( D9000 > 0 )) || e2e_fail "filter: no packet of port 9000 passed while the filter was disabled (were the switches real?)"
(( FIN > 0 && FIN < S9000 + S9001 )) ||
	e2e_fail "filter: it saw $FIN of $((S9000 + S9001)) packets though it was disabled half the time"
(( MIN == D9000 + D9001 )) || e2e_fail "filter: the mark saw $MIN packets, $((D9000 + D9001)) were delivered"

# ---- the mark ----------------------------------------------------------------
phase mark
(( D9000 == 0 && DROP == S9000 )) || e2e_fail "mark: the filter stayed enabled, yet $D9000 of port 9000 were delivered"
(( FIN == S9000 + S9001 )) || e2e_fail "mark: the filter saw $FIN packets, $((S9000 + S9001)) were sent"
(( MIN > 0 && MIN < D9000 + D9001 )) ||
	e2e_fail "mark: it saw $MIN of $((D9000 + D9001)) delivered packets though it was disabled half the time"

# ---- the end state: as loaded ----------------------------------------------------
fpt -j pipeline show "$vb" >"$T/show"
[[ $(pyeval "sorted(s['stage'] for s in d['slots'] if s['loaded'] and s['enabled'])" "$T/show") == \
   "['dump', 'filter', 'mark']" ]] || e2e_fail "not every stage is enabled at the end: $(cat "$T/show")"
[[ $(pyeval "d['attached']" "$T/show") == True ]] || e2e_fail "our program is not attached at the end"
fpt pipeline unload "$vb" >/dev/null || e2e_fail "pipeline unload failed"
[[ ! -e $FASTPATH_BPFFS/$vb ]] || e2e_fail "pins left after the unload"
! ip -n "$b" link show "$vb" | grep -q xdp || e2e_fail "an XDP program left after the unload"
e2e_pass
