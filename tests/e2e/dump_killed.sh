#!/usr/bin/env bash
# A dump that dies, however it dies, switches sampling off and leaves a
# readable file:
# 1. `dump --match` killed with SIGKILL: by the time it is gone the
#    pipeline's dump flags (fp_ctl.dump) and fp_dump_cfg.active are clear, later packets are neither
#    sampled nor lost, `status` shows no dump stage, and tshark reads every
#    packet written before the kill (header at once, regular flushes);
# 2. SIGHUP stops a dump as SIGTERM does: summary printed, exit 0;
# 3. a dump whose reader went away (-w - into a pipe) stops on its own,
#    without waiting for a packet;
# 4. state a dead dump left behind (as one killed before this fix, or where
#    the exit watch could not attach), its owner gone or a zombie, is not
#    shown by `status`, and the next dump takes over with a note;
# 5. of two dumps started at once, one runs and the other is refused.
. "$(dirname "$0")/lib.sh"
e2e_require tshark python3 bpftool

nsa=$(e2e_name ka); nsv=$(e2e_name kv)
ifa=$(e2e_name va); ifv=$(e2e_name vv)
e2e_netns_add "$nsa"; e2e_netns_add "$nsv"
e2e_veth "$nsa" "$ifa" "$nsv" "$ifv"
for n in "$nsa" "$nsv"; do ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1; done
mac=$(e2e_mac "$nsv" "$ifv")
fp() { ip netns exec "$nsv" "$FASTPATH" "$@"; }
gen() { ip netns exec "$nsa" "$FASTPATH" gen "$ifa" --dst-mac "$mac" "$@" >/dev/null; }
pins=$FASTPATH_BPFFS/$ifv

printf 'drop udp dport 9000 id flood\ndefault pass\n' > "$E2E_TMP/rules"
fp filter load "$ifv" "$E2E_TMP/rules" >/dev/null || e2e_fail "filter load"

# "DUMP ACTIVE OWNER": fp_ctl.dump, dump/fp_dump_cfg.active and .owner_pid
# (bytes 4..7 of the first, 0..3 and 36..39 of the second, host order).
flags() {
	python3 - "$pins" <<'PY'
import json, subprocess, sys
def val(name):
    out = subprocess.run(['bpftool', '-j', 'map', 'lookup', 'pinned', sys.argv[1] + '/' + name,
                          'key', '0', '0', '0', '0'], capture_output=True, text=True, check=True).stdout
    return bytes(int(b, 16) for b in json.loads(out)['value'])
st, cfg = val('fp_ctl'), val('dump/fp_dump_cfg')
u32 = lambda b, o: int.from_bytes(b[o:o + 4], 'little')
print(u32(st, 4), u32(cfg, 0), u32(cfg, 36))
PY
}
# "SAMPLES LOST" of the filter's sampling counters.
samples() {
	fp -j filter stats "$ifv" --interval 0 |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["samples"], d["samples_lost"])'
}
stages() {
	fp -j status | python3 -c 'import json,sys; d=json.load(sys.stdin)
print([r["stages"] for r in (d if isinstance(d, list) else d.get("interfaces", d.get("ifaces", []))) if r["iface"]==sys.argv[1]][0])' "$ifv"
}
running() { read -r dm act _ < <(flags); [[ $dm != 0 && $act == 1 ]]; }
cleared() { read -r dm act _ < <(flags); [[ $dm == 0 && $act == 0 ]]; }
# no_sampling WHAT: 500 more flood packets neither sampled nor lost.
no_sampling() {
	local s0 l0 s1 l1
	read -r s0 l0 < <(samples)
	gen --udp 9000 --count 500 --pps 20000 || e2e_fail "gen"
	sleep 0.3
	read -r s1 l1 < <(samples)
	[[ $s1 == "$s0" && $l1 == "$l0" ]] ||
		e2e_fail "$1: later packets still sampled (samples $s0 -> $s1, lost $l0 -> $l1)"
}
# pcap_ok FILE N: tshark reads exactly N packets, all the flood's.
pcap_ok() {
	local n bad
	n=$(tshark -r "$1" 2>"$E2E_TMP/tshark.err" | wc -l)
	[[ $n == "$2" ]] || e2e_fail "tshark reads $n packets of $1, want $2: $(head -c 300 "$E2E_TMP/tshark.err")"
	bad=$(tshark -r "$1" -T fields -e udp.dstport 2>/dev/null | grep -vc '^9000$')
	[[ $bad == 0 ]] || e2e_fail "$bad packets of $1 are not the flood's"
}

# 1. SIGKILL of a --match dump, 1000 packets written before the kill.
e2e_bg ip netns exec "$nsv" "$FASTPATH" dump "$ifv" -w "$E2E_TMP/k.pcapng" \
	--match 'udp dport 9000' --duration 60 2>"$E2E_TMP/k.err"
k=$E2E_BG_PID
e2e_wait_for running 5 || e2e_fail "the dump did not start: $(cat "$E2E_TMP/k.err")"
[[ $(stages) == *dump* ]] || e2e_fail "status does not show a running --match dump: $(stages)"
gen --udp 9000 --count 1000 --pps 20000 || e2e_fail "gen"
sleep 1
read -r s_before _ < <(samples)
kill -KILL "$k"
e2e_wait_for "! kill -0 $k" 5 || e2e_fail "the dump outlived SIGKILL"
wait "$k" 2>/dev/null
# the kernel switches it off in do_exit, before the process is even reaped
cleared || e2e_fail "sampling still on after the dump was killed: $(flags)"
no_sampling "after SIGKILL"
[[ $(stages) != *dump* ]] || e2e_fail "status shows the killed dump's stage: $(stages)"
pcap_ok "$E2E_TMP/k.pcapng" 1000
(( s_before == 1000 )) || e2e_fail "sampled $s_before of 1000 before the kill"

# 2. SIGHUP: a clean stop with the summary.
e2e_bg ip netns exec "$nsv" "$FASTPATH" dump "$ifv" -w "$E2E_TMP/h.pcapng" --drops \
	--duration 60 2>"$E2E_TMP/h.err"
h=$E2E_BG_PID
e2e_wait_for running 5 || e2e_fail "the second dump did not start: $(cat "$E2E_TMP/h.err")"
grep -q 'took over' "$E2E_TMP/h.err" &&
	e2e_fail "a dump after a cleaned-up kill speaks of taking over: $(cat "$E2E_TMP/h.err")"
gen --udp 9000 --count 700 --pps 20000 || e2e_fail "gen"
sleep 0.5
kill -HUP "$h"
e2e_wait_for "! kill -0 $h" 5 || e2e_fail "the dump did not stop on SIGHUP"
wait "$h"; rc=$?
[[ $rc == 0 ]] || e2e_fail "dump exits $rc on SIGHUP: $(cat "$E2E_TMP/h.err")"
grep -q '^700 sampled, 700 written, 0 lost' "$E2E_TMP/h.err" ||
	e2e_fail "no summary after SIGHUP: $(cat "$E2E_TMP/h.err")"
cleared || e2e_fail "sampling on after SIGHUP: $(flags)"
pcap_ok "$E2E_TMP/h.pcapng" 700

# 3. -w - into a pipe whose reader goes away: the dump stops by itself.
mkfifo "$E2E_TMP/fifo"
# the reader takes the header, holds the pipe a second, then goes away
e2e_bg bash -c 'exec <"$1"; head -c 64 >/dev/null; sleep 1' - "$E2E_TMP/fifo"
e2e_bg ip netns exec "$nsv" "$FASTPATH" dump "$ifv" -w - --drops >"$E2E_TMP/fifo" 2>"$E2E_TMP/p.err"
p=$E2E_BG_PID
e2e_wait_for "! kill -0 $p" 5 ||
	e2e_fail "a dump into a closed pipe still runs 5 s later: $(cat "$E2E_TMP/p.err")"
wait "$p"; rc=$?
[[ $rc == 0 ]] || e2e_fail "dump exits $rc when its reader goes away: $(cat "$E2E_TMP/p.err")"
cleared || e2e_fail "sampling on after the reader went away: $(flags)"
no_sampling "after the reader went away"

# 4. What a dump killed before this fix left behind: slot, flags, config
#    naming an owner that is gone, or a zombie (kill -0 still finds it).
stale_case() { # stale_case PID KIND
	local dead=$1 kind=$2 s dm act owner
	bpftool map update pinned "$pins/fp_stages" key 0 0 0 0 value pinned "$pins/dump/fp_dump" ||
		e2e_fail "cannot fill the dump slot"
	python3 - "$pins" "$dead" <<'PY' || e2e_fail "cannot write the stale state"
import json, subprocess, sys
pins, pid = sys.argv[1], int(sys.argv[2])
def upd(name, off, raw):
    key = ['key', '0', '0', '0', '0']
    v = bytearray(int(b, 16) for b in json.loads(subprocess.run(
        ['bpftool', '-j', 'map', 'lookup', 'pinned', f'{pins}/{name}'] + key,
        capture_output=True, text=True, check=True).stdout)['value'])
    v[off:off + len(raw)] = raw
    subprocess.run(['bpftool', 'map', 'update', 'pinned', f'{pins}/{name}'] + key +
                   ['value'] + [str(b) for b in v], check=True)
upd('dump/fp_dump_cfg', 0, (1).to_bytes(4, 'little'))
upd('dump/fp_dump_cfg', 36, pid.to_bytes(4, 'little'))
upd('fp_ctl', 4, (3).to_bytes(4, 'little'))
PY
	read -r dm act owner < <(flags)
	[[ $dm == 3 && $act == 1 && $owner == "$dead" ]] || e2e_fail "stale state not written: $dm $act $owner"
	[[ $(stages) != *dump* ]] ||
		e2e_fail "status shows a dump stage whose owner ($dead, $kind) is dead: $(stages)"
	e2e_bg ip netns exec "$nsv" "$FASTPATH" dump "$ifv" -w "$E2E_TMP/s.pcapng" --drops \
		--duration 60 2>"$E2E_TMP/s.err"
	s=$E2E_BG_PID
	e2e_wait_for "grep -q 'took over' '$E2E_TMP/s.err'" 5 ||
		e2e_fail "the next dump does not take over from pid $dead ($kind): $(cat "$E2E_TMP/s.err")"
	grep -q "pid $dead)" "$E2E_TMP/s.err" ||
		e2e_fail "the note does not name pid $dead: $(cat "$E2E_TMP/s.err")"
	read -r dm act owner < <(flags)
	[[ $((dm & 1)) == 1 && $owner == "$s" ]] || e2e_fail "the new dump did not take over: flags $dm owner $owner"
	kill -TERM "$s"
	e2e_wait_for "! kill -0 $s" 5 || e2e_fail "dump did not stop on SIGTERM"
	cleared || e2e_fail "sampling on after the take-over dump ended: $(flags)"
	[[ $(stages) != *dump* ]] || e2e_fail "the dump slot is still filled: $(stages)"
}
stale_case "$(sh -c 'echo $$')" gone
# a zombie: a child its parent never waits for (the parent lives 30 s at most)
e2e_bg python3 -c 'import os, time
p = os.fork()
if p == 0: os._exit(0)
print(p, flush=True); time.sleep(30)' >"$E2E_TMP/zombie"
e2e_wait_for "[[ -s '$E2E_TMP/zombie' ]]" 5 || e2e_fail "no zombie"
zombie=$(cat "$E2E_TMP/zombie")
e2e_wait_for "grep -q '^State:.Z' /proc/$zombie/status" 5 || e2e_fail "$zombie is no zombie"
stale_case "$zombie" zombie

# 5. Two dumps started at once: one runs, the other is refused (a start
#    checks and takes the interface under its lock), 3 rounds.
for r in 1 2 3; do
	e2e_bg ip netns exec "$nsv" "$FASTPATH" dump "$ifv" -w "$E2E_TMP/r1.pcapng" 2>"$E2E_TMP/r1.err"
	r1=$E2E_BG_PID
	e2e_bg ip netns exec "$nsv" "$FASTPATH" dump "$ifv" -w "$E2E_TMP/r2.pcapng" 2>"$E2E_TMP/r2.err"
	r2=$E2E_BG_PID
	e2e_wait_for "! kill -0 $r1 || ! kill -0 $r2" 5 ||
		e2e_fail "round $r: two dumps run at once on one interface"
	if kill -0 "$r1" 2>/dev/null; then win=$r1 lose=r2; else win=$r2 lose=r1; fi
	grep -q 'already running' "$E2E_TMP/$lose.err" ||
		e2e_fail "round $r: the refused dump does not say why: $(cat "$E2E_TMP/$lose.err")"
	read -r dm act owner < <(flags)
	[[ $((dm & 1)) == 1 && $act == 1 && $owner == "$win" ]] ||
		e2e_fail "round $r: the running dump ($win) does not own the interface: $dm $act $owner"
	kill -INT "$win"
	e2e_wait_for "! kill -0 $win" 5 || e2e_fail "round $r: dump did not stop"
	wait "$r1" "$r2" 2>/dev/null
	cleared || e2e_fail "round $r: sampling on after both ended: $(flags)"
done

fp filter unload "$ifv" || e2e_fail "unload"
e2e_pass
