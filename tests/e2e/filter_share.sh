#!/usr/bin/env bash
# One rule set for several interfaces (`filter load IFACE --share NAME`), on
# two veth interfaces in one namespace, each with its own peer:
#
# 1. va1 loads with --share S and a rule file, va2 with --share S alone: va2
#    lists va1's rules; the rule maps, the state and the limiter are the
#    same kernel maps (pinned map ids), the stage counters are not; status
#    (text and -j) names the share.
# 2. `filter add` on va2 shows on va1; 30 flood packets into va1 and 20
#    into va2: the rule counter says 50 on both, each interface's stage
#    counters say only its own (30 and 20 rule drops). An apply on va1
#    waits for the share's lock (held by flock(1)) and is va2's set. The
#    exporter writes the share's rule counters once, labelled share="S".
# 3. refused: a third load with another --table-bits than the share's, a
#    bad share name (exit 2), --share on apply without --load (exit 2),
#    apply --load --share T on a member of S, `unload shared` (the shares'
#    directory); a dump on va2 while one runs on va1. A third member that
#    joins with the share's own set changes nothing (same generation).
# 4. unload va1: va2 still drops (and counts) with the share's rules,
#    ROOT/shared/S stays; unload va2: ROOT/shared is gone.
# 5. a share whose member's pins went by hand: `unload --force` of that
#    member removes the share's pins too.
# 6. other stages' directories in ROOT/shared (a bridge's, one whose name a
#    share could have) outlive the share gc of an unload and of --force.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require bpftool python3 curl flock
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

a=$(e2e_name a); b=$(e2e_name b); c=$(e2e_name c)
va1=$(e2e_name va1); va2=$(e2e_name va2); va3=$(e2e_name va3)
vb=$(e2e_name vb); vc=$(e2e_name vc); vd=$(e2e_name vd)
e2e_netns_add "$a"; e2e_netns_add "$b"; e2e_netns_add "$c"
e2e_veth "$a" "$va1" "$b" "$vb" 10.213.1.1 10.213.1.2
e2e_veth "$a" "$va2" "$c" "$vc" 10.213.2.1 10.213.2.2
e2e_veth "$a" "$va3" "$c" "$vd" 10.213.3.1 10.213.3.2
M1=$(e2e_mac "$a" "$va1"); M2=$(e2e_mac "$a" "$va2")
R=$FASTPATH_BPFFS
T=$E2E_TMP
fp() { ip netns exec "$a" "$FASTPATH" "$@"; }
gen() { # gen NS IFACE MAC COUNT
	ip netns exec "$1" "$FASTPATH" gen "$2" --dst-mac "$3" --udp 9500 --count "$4" \
		--pps 2000 >/dev/null || e2e_fail "gen on $2 failed"
}
map_id() { bpftool -j map show pinned "$R/$1/$2" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }
# rule_pkts IFACE ID: the packets of rule ID in `list -j` of IFACE.
rule_pkts() {
	fp -j filter list "$1" | python3 -c '
import json,sys; d=json.load(sys.stdin); print({r["id"]: r["packets"] for r in d}.get(sys.argv[1]))' "$2"
}
# stage_drops IFACE: the rule_drop stage counter of IFACE.
stage_drops() {
	fp -j filter stats "$1" --interval 0 | python3 -c '
import json,sys; d=json.load(sys.stdin); print([s["packets"] for s in d["stage"] if s["decision"]=="rule_drop"][0])'
}
# wait_eq WHAT CMD WANT: CMD's output becomes WANT within 5 s.
wait_eq() {
	local got
	for _ in $(seq 50); do
		got=$(eval "$2") && [[ $got == "$3" ]] && return 0
		sleep 0.1
	done
	e2e_fail "$1: $got, want $3"
}

printf 'drop udp dport 9500 id flood\ndefault pass\n' >"$T/set.rules"
# 1. two members, one rule set
fp filter load "$va1" --share S --table-bits 12 "$T/set.rules" >/dev/null || e2e_fail "load va1 --share S"
fp -j filter load "$va2" --share S >"$T/l2.json" || e2e_fail "load va2 --share S"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["share"]=="S" and d["rules"]==1, d' "$T/l2.json" ||
	e2e_fail "load -j of a member does not show the share's rules: $(cat "$T/l2.json")"
[[ -d $R/shared/S ]] || e2e_fail "no $R/shared/S after the share's first load"
[[ $(fp -j filter list "$va2" | python3 -c 'import json,sys; print([r["id"] for r in json.load(sys.stdin)])') == "['flood', 'default']" ]] ||
	e2e_fail "va2 does not list the share's rules: $(fp -j filter list "$va2")"
for m in fp_flt_rules fp_flt_keys fp_flt_cnt fp_flt_cnt_base fp_flt_state fp_flt_lim; do
	[[ $(map_id "$va1/filter" $m) == "$(map_id "$va2/filter" $m)" ]] ||
		e2e_fail "$m: not one map for the share (ids $(map_id "$va1/filter" $m), $(map_id "$va2/filter" $m))"
	[[ $(map_id "$va1/filter" $m) == "$(map_id shared/S $m)" ]] || e2e_fail "$m: not the one pinned in shared/S"
done
for m in filter/fp_flt_stats filter/fp_flt_meta fp_meta fp_stages fp_ctl; do
	[[ $(map_id "$va1" $m) != "$(map_id "$va2" $m)" ]] || e2e_fail "$m: one map for two interfaces"
done
shares=$(fp -j status | python3 -c '
import json,sys; d=json.load(sys.stdin); d=d if isinstance(d,list) else d.get("interfaces", d.get("ifaces", []))
print(" ".join("%s=%s" % (r["iface"], r["share"]) for r in d))')
[[ $shares == *"$va1=S"* && $shares == *"$va2=S"* ]] || e2e_fail "status -j: $shares"
[[ $(fp status | awk -v i="$va2" 'NR == 1 { for (c = 1; c <= NF; c++) if ($c == "SHARE") k = c }
	$1 == i { print $k }') == S ]] || e2e_fail "status (text) does not name the share: $(fp status)"
e2e_log "ok: one rule set, one state and limiter, stage counters apart; status names the share"

# 2. an edit on one member is every member's; counts
fp filter add "$va2" "drop udp dport 9600 id more" >/dev/null || e2e_fail "filter add on va2"
[[ $(rule_pkts "$va1" more) == 0 ]] || e2e_fail "va1 does not list the rule added on va2"
gen "$b" "$vb" "$M1" 30
gen "$c" "$vc" "$M2" 20
wait_eq "flood on va1" "rule_pkts $va1 flood" 50
wait_eq "flood on va2" "rule_pkts $va2 flood" 50
wait_eq "rule drops of va1's stage" "stage_drops $va1" 30
wait_eq "rule drops of va2's stage" "stage_drops $va2" 20
[[ $(fp -j filter stats "$va2" --interval 0 | python3 -c 'import json,sys; print(json.load(sys.stdin)["share"])') == S ]] ||
	e2e_fail "stats -j does not name the share"
e2e_log "ok: add on va2 shows on va1; rule counter 50 on both, stage counters 30 and 20"
# the exporter: the share's rule counters once (share=), stage counters
# and info per interface
e2e_bg ip netns exec "$a" "$FASTPATH" exporter --listen 127.0.0.1:0 2>"$T/exporter.log"
exp=$E2E_BG_PID
e2e_wait_for "grep -q 'listening on' $T/exporter.log" 10 || e2e_fail "no exporter: $(cat "$T/exporter.log")"
port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$T/exporter.log")
ip netns exec "$a" curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" >"$T/metrics.txt" || e2e_fail "no scrape"
e2e_kill "$exp"
[[ $(grep -c '^fastpath_rule_packets_total{share="S",rule="flood"} 50$' "$T/metrics.txt") == 1 ]] ||
	e2e_fail "the share's flood counter is not there once: $(grep rule_packets "$T/metrics.txt")"
! grep -qE "^fastpath_rule_packets_total\{iface=\"($va1|$va2)\"" "$T/metrics.txt" ||
	e2e_fail "rule counters per member: $(grep rule_packets "$T/metrics.txt")"
grep -q "^fastpath_stage_packets_total{iface=\"$va2\",stage=\"filter\",verdict=\"drop\",decision=\"rule_drop\"} 20$" "$T/metrics.txt" ||
	e2e_fail "va2's stage counter: $(grep "stage_packets.*$va2" "$T/metrics.txt")"
grep -q "^fastpath_interface_info{iface=\"$va1\",.*share=\"S\"} 1$" "$T/metrics.txt" ||
	e2e_fail "interface_info without the share: $(grep interface_info "$T/metrics.txt")"
e2e_log "ok: the exporter writes the share's rule counters once"
# an edit waits for the share's lock, not the interface's; apply on va1
# (without `more`) is va2's set too, flood's count kept
e2e_bg flock -x "$R/shared/S" sleep 2
sleep 0.3
t0=$(date +%s%N)
fp filter apply "$va1" "$T/set.rules" >/dev/null || e2e_fail "apply on va1"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
(( ms >= 1200 )) || e2e_fail "apply on va1 did not wait for the share's lock (${ms} ms)"
[[ $(rule_pkts "$va2" more) == None && $(rule_pkts "$va2" flood) == 50 ]] ||
	e2e_fail "va2 after an apply on va1: $(fp -j filter list "$va2")"
e2e_log "ok: edits take the share's lock (waited ${ms} ms); apply on va1 is va2's set"

# 3. refusals
if out=$(fp filter load "$va3" --share S --table-bits 14 2>&1); then e2e_fail "--table-bits 14 into a share of 12 loaded"; fi
[[ $out == *"2^12"* ]] || e2e_fail "table bits refusal does not say the share's: $out"
[[ ! -d $R/$va3 ]] || e2e_fail "a refused load left $R/$va3"
rc=0; out=$(fp filter load "$va3" --share 'a.b' 2>&1) || rc=$?
[[ $rc == 2 && $out == *"share"* ]] || e2e_fail "bad share name: rc $rc: $out"
rc=0; out=$(fp filter load "$va3" --share 0123456789abcdef 2>&1) || rc=$?
[[ $rc == 2 ]] || e2e_fail "16-character share name: rc $rc: $out"
rc=0; out=$(fp filter apply "$va1" "$T/set.rules" --share S 2>&1) || rc=$?
[[ $rc == 2 && $out == *"--load"* ]] || e2e_fail "apply --share without --load: rc $rc: $out"
rc=0; out=$(fp filter apply "$va1" "$T/set.rules" --load --share T 2>&1) || rc=$?
[[ $rc == 1 && $out == *"share S, not T"* ]] || e2e_fail "apply --load --share T on a member of S: rc $rc: $out"
rc=0; out=$(fp filter unload shared 2>&1) || rc=$?
[[ $rc == 1 && $out == *"pins of the shares"* && -d $R/shared/S ]] || e2e_fail "unload shared: rc $rc: $out"
e2e_bg ip netns exec "$a" "$FASTPATH" dump "$va1" -w "$T/d1.pcapng" 2>"$T/d1.err"
d1=$E2E_BG_PID
e2e_wait_for "grep -q . $T/d1.pcapng 2>/dev/null && [[ \$(stat -c %s $T/d1.pcapng) -gt 0 ]]" 5 ||
	e2e_fail "the dump on va1 did not start: $(cat "$T/d1.err")"
sleep 0.3
# the dump's switch is the interface's pipeline's, not the share's: a dump
# on another member runs beside it (one dump per share was the old limit)
rc=0; out=$(timeout 10 ip netns exec "$a" "$FASTPATH" dump "$va2" -w "$T/d2.pcapng" --duration 1 2>&1) || rc=$?
[[ $rc == 0 && $out == *"sampled"* ]] || e2e_fail "second dump in the share: rc $rc: $out"
kill -0 "$d1" 2>/dev/null || e2e_fail "the second member's dump stopped the first's"
e2e_kill "$d1"
# a member that joins with the share's own set changes nothing
gen_of() { fp -j filter stats "$1" --interval 0 | python3 -c 'import json,sys; print(json.load(sys.stdin)["generation"])'; }
g0=$(gen_of "$va1")
fp filter load "$va3" --share S "$T/set.rules" >/dev/null || e2e_fail "load va3 --share S with the share's set"
[[ $(gen_of "$va1") == "$g0" ]] || e2e_fail "joining with the same set made generation $(gen_of "$va1") of $g0"
fp filter unload "$va3" >/dev/null || e2e_fail "unload va3"
e2e_log "ok: table bits, share names, apply --share, a dump on each member of the share"

# 4. unload one member, then the last
fp filter unload "$va1" >/dev/null || e2e_fail "unload va1"
[[ -d $R/shared/S ]] || e2e_fail "unloading one member removed the share"
gen "$c" "$vc" "$M2" 10
wait_eq "flood on va2 after va1's unload" "rule_pkts $va2 flood" 60
wait_eq "rule drops of va2's stage after va1's unload" "stage_drops $va2" 30
fp -j filter unload "$va2" >"$T/u2.json" || e2e_fail "unload va2"
[[ ! -e $R/shared ]] || e2e_fail "the last member's unload left $(ls -R "$R/shared")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["share_removed"]=="S", d' "$T/u2.json" ||
	e2e_fail "unload -j does not say the share went: $(cat "$T/u2.json")"
e2e_log "ok: va2 drops after va1's unload; the last unload removes the share"

# 5. a member whose pins went by hand: --force cleans the share too
fp filter load "$va1" --share Z >/dev/null || e2e_fail "load va1 --share Z"
rm -rf "${R:?}/$va1"
fp filter unload "$va1" --force >/dev/null 2>&1 || e2e_fail "unload --force"
[[ ! -e $R/shared ]] || e2e_fail "unload --force left the memberless share: $(ls -R "$R/shared")"
e2e_log "ok: unload --force removes a share left without members"

# 6. ROOT/shared holds other stages' pins too (a bridge's): a share's
#    gc (the last member's unload, --force) takes only the filter's own
mkdir -p "$R/shared/bridge:x" "$R/shared/other-x"
bpftool map create "$R/shared/bridge:x/m" type array key 4 value 4 entries 1 name fpt_gc1 ||
	e2e_fail "bpftool map create"
bpftool map create "$R/shared/other-x/m" type array key 4 value 4 entries 1 name fpt_gc2 ||
	e2e_fail "bpftool map create"
fp filter load "$va1" --share G >/dev/null || e2e_fail "load va1 --share G"
fp filter unload "$va1" >/dev/null || e2e_fail "unload va1 (share G)"
[[ ! -e $R/shared/G ]] || e2e_fail "the last member's unload left shared/G"
fp filter load "$va2" --share H >/dev/null || e2e_fail "load va2 --share H"
rm -rf "${R:?}/$va2"
fp filter unload "$va2" --force >/dev/null 2>&1 || e2e_fail "unload --force va2"
[[ ! -e $R/shared/H ]] || e2e_fail "unload --force left the memberless share H"
for d in bridge:x other-x; do
	[[ -e $R/shared/$d/m ]] || e2e_fail "the share gc removed another stage's $R/shared/$d"
done
e2e_log "ok: the share gc leaves other stages' directories in ROOT/shared"
e2e_pass
