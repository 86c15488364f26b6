#!/usr/bin/env bash
# The pipeline verbs on a real veth in a namespace: load (the attached
# program is ours, `show -j` has the documented keys and types, a second
# load is refused and changes nothing), status and stats of a pipeline
# without a filter (not broken: stats -j gives the stages), stats -j with
# the filter (stages and rules count the packets sent), enable/disable round trips seen in show (and in the
# filter's counters with real packets), an unknown stage (exit 2, listing
# every stage of the table), usage errors, unload (no XDP program and not
# one pin left, every pin named), --bpffs after the verb, and a load over
# another XDP program
# (refused with its id and name, in native and skb mode; it stays attached
# and no pin is left).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3 clang
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

a=$(e2e_name a); b=$(e2e_name b); va=$(e2e_name va); vb=$(e2e_name vb)
e2e_netns_add "$a"; e2e_netns_add "$b"
e2e_veth "$a" "$va" "$b" "$vb"
for n in "$a" "$b"; do ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1; done
AMAC=$(e2e_mac "$a" "$va")
T=$E2E_TMP out=$E2E_TMP/out err=$E2E_TMP/err pins=$FASTPATH_BPFFS/$va

# expect CODE ARGS...: fastpath ARGS in namespace a; stdout in $out, stderr in $err.
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
check() { e2e_check "$@"; } # check DESCRIPTION CMD...
# pyok EXPR [FILE]: true if the Python expression EXPR holds over the JSON
# document d of FILE (default $out); prints EXPR's value when it does not.
pyok() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
v=eval("(" + sys.argv[2] + "\n)")
if not v: print("    false:", sys.argv[2], file=sys.stderr)
sys.exit(0 if v else 1)' "${2:-$out}" "$1"
}
# pyeval EXPR [FILE]: prints EXPR over the JSON document d of FILE.
pyeval() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "${2:-$out}" "$1"; }
# attached_id: the XDP program id on va (empty: none).
attached_id() { ip -n "$a" -d link show "$va" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' | head -1; }
# slot STAGE FIELD: a field of show -j's row of STAGE (from a fresh show).
slot() {
	ip netns exec "$a" "$FASTPATH" -j pipeline show "$va" >"$T/show" 2>/dev/null || return 1
	pyeval "[s['$2'] for s in d['slots'] if s['stage']=='$1'][0]" "$T/show"
}
gen() { ip netns exec "$b" "$FASTPATH" gen "$vb" --dst-mac "$AMAC" "$@" >/dev/null; }

# ---- usage errors (nothing loaded, nothing attached) -----------------------
expect 2 pipeline load
expect 2 pipeline load "$va" --mode turbo && check "--mode turbo: says native or skb" grep -q 'native or skb' "$err"
expect 2 -j pipeline load "$va" --mode && check "--mode without a value, -j: a JSON error" pyok "'error' in d"
expect 2 pipeline enable "$va"
expect 2 pipeline show "$va" extra
expect 1 pipeline show "$va" && check "show without a pipeline says how to load one" grep -q 'load' "$err"
expect 1 -j pipeline show "$va" && check "show -j without a pipeline: a JSON error, nothing on stderr" \
	bash -c "python3 -c 'import json,sys; sys.exit(\"error\" not in json.load(open(\"$out\")))' && test ! -s $err"
check "nothing was attached by the refused commands" test -z "$(attached_id)"
check "... and nothing pinned" test ! -e "$pins"

# ---- load, show -j -----------------------------------------------------------
expect 0 -j pipeline load "$va"
check "load -j reports the pipeline with load_ms" pyok "d['iface']=='$va' and d['load_ms']>0 and d['attached'] is True"
id=$(attached_id)
check "an XDP program is attached" test -n "$id"
check "load's prog_id is the one attached" test "$(pyeval "d['prog_id']")" = "$id"
expect 0 -j pipeline show "$va"
cp "$out" "$T/show0"
check "show -j: top-level keys and types" pyok "
isinstance(d['iface'], str) and d['iface']=='$va' and d['renamed_to'] is None and
d['attached'] is True and type(d['prog_id']) is int and d['prog_id']==$id and
d['entry'] in ('plain', 'fused') and (d['fused_stage'] is None) == (d['entry']=='plain') and
type(d['entry_id']) is int and d['entry_id']>0 and d['mode']=='native' and
type(d['ifindex']) is int and d['ifindex']>0 and type(d['abi']) is int and d['abi_ok'] is True and
isinstance(d['loaded'], str) and d['loaded'].endswith('Z') and type(d['auto']) is bool and
not d['auto'] and isinstance(d['slots'], list) and len(d['slots'])>0 and 'load_ms' not in d"
check "show -j: slot rows, keys and types (counters all numbers or all null)" pyok "all(
type(s['slot']) is int and 0<=s['slot']<7 and (s['stage'] is None or isinstance(s['stage'], str)) and
type(s['loaded']) is bool and type(s['enabled']) is bool and
(s['prog_id'] is None or type(s['prog_id']) is int) and
((s['abi'] is None and s['abi_ok'] is None) if not s['loaded'] else
 (type(s['abi']) is int and type(s['abi_ok']) is bool)) and
(all(type(s[k]) is int for k in ('in','aborted','drop','pass','tx','redirect')) or
 all(s[k] is None for k in ('in','aborted','drop','pass','tx','redirect')))
for s in d['slots'])"
check "show -j: slots in chain order, each once" pyok "[s['slot'] for s in d['slots']]==sorted(set(s['slot'] for s in d['slots']))"
check "show -j: the stages of the table are listed, the dump loaded with the pipeline" \
	pyok "'dump' in [s['stage'] for s in d['slots'] if s['loaded']] and 'filter' in [s['stage'] for s in d['slots']]"
check "show -j: the filter is not loaded by a pipeline load" test "$(slot filter loaded)" = False
stages=$(pyeval "' '.join(s['stage'] for s in d['slots'] if s['stage'])" "$T/show0")
expect 0 pipeline show "$va"
check "show (text): key lines and the slot table" \
	bash -c "grep -q '^attached: *yes' $out && grep -q '^mode: *native' $out && grep -qE '^SLOT +STAGE' $out"

# a second load is refused and leaves the first in place
expect 1 pipeline load "$va" && check "a second load says the pipeline is there" grep -qi 'already\|loaded' "$err"
check "... and the first program stays attached" test "$(attached_id)" = "$id"

# ---- status: a pipeline without a filter is not broken ---------------------
expect 0 -j status
check "status -j: the interface is ok and attached, its pipeline lists the dump, no rules" pyok "
[(r['state'], r['attached'], r['rules'], 'dump' in [p['stage'] for p in r['pipeline']])
 for r in d if r['iface']=='$va']==[('ok', True, None, True)]"
check "status -j: pipeline rows are {stage, slot, enabled}" pyok "all(
isinstance(p['stage'], str) and type(p['slot']) is int and type(p['enabled']) is bool
for r in d for p in r['pipeline'])"
expect 0 status
check "status (text) names the interface, not broken" bash -c "grep -q '$va' $out && ! grep -q broken $out"

# ---- stats: every stage, and a pipeline without a filter is not an error ----
expect 0 -j stats "$va" --interval 0
check "stats -j without the filter: the stages (the dump), filter_loaded false, no rules" pyok "
d['iface']=='$va' and d['filter_loaded'] is False and 'rules' not in d and
'dump' in [s['stage'] for s in d['stages']] and 'filter' not in [s['stage'] for s in d['stages']]"
check "stats -j: stage rows, keys and types, in slot order" pyok "all(
isinstance(s['stage'], str) and type(s['slot']) is int and type(s['enabled']) is bool and
(all(type(s[k]) is int for k in ('in','aborted','drop','pass','tx','redirect')) or
 all(s[k] is None for k in ('in','aborted','drop','pass','tx','redirect'))) and s['pps'] is None
for s in d['stages']) and [s['slot'] for s in d['stages']]==sorted(s['slot'] for s in d['stages'])"
check "... nothing on stderr" test ! -s "$err"
expect 0 stats "$va" --interval 0
check "stats (text) without the filter says it is not loaded, lists the dump" \
	bash -c "grep -q '^filter_loaded: *no' $out && grep -qw dump $out"

# ---- unknown stage ----------------------------------------------------------
expect 2 pipeline disable "$va" nosuchstage
check "unknown stage: the message names it" grep -q "unknown stage 'nosuchstage'" "$err"
for s in $stages; do
	check "unknown stage: the message lists '$s' (from the stage table)" grep -qw "$s" "$err"
done
expect 2 -j pipeline enable "$va" nosuchstage && check "unknown stage, -j: a JSON error" pyok "'nosuchstage' in d['error']"

# ---- enable / disable round trip ------------------------------------------------
expect 1 pipeline enable "$va" filter &&
	check "enabling a stage that is not loaded says so and the command that loads it here" \
		bash -c "grep -q 'not loaded' $err && grep -q '\`fastpath filter load $va\`' $err"
echo 'drop udp dport 9000 id flood' >"$T/rules"
expect 0 filter load "$va" "$T/rules"
check "filter load plugs into the pipeline" test "$(slot filter loaded)" = True
check "... and the program attached is still ours" test "$(pyeval "d['attached']" "$T/show")" = True
check "the filter is enabled after its load" test "$(slot filter enabled)" = True
in0=$(slot filter in); drop0=$(slot filter drop)
check "the filter has counters (in, drop are numbers)" bash -c "[[ $in0 =~ ^[0-9]+$ && $drop0 =~ ^[0-9]+$ ]]"
gen --udp 9000 --count 200 --pps 20000 || e2e_fail "gen"
e2e_wait_for '[[ $(slot filter in) -ge $((in0 + 200)) ]]' 3 || true
check "enabled: 200 packets in the filter, 200 dropped" \
	test "$(( $(slot filter in) - in0 )),$(( $(slot filter drop) - drop0 ))" = 200,200
expect 0 -j stats "$va" --interval 0
check "stats -j with the filter: its stage row counts the 200 sent in and dropped, its rule too" pyok "
[(s['in']-$in0, s['drop']-$drop0, s['enabled']) for s in d['stages'] if s['stage']=='filter']==[(200, 200, True)] and
'dump' in [s['stage'] for s in d['stages']] and d['filter_loaded'] is True and
[r['packets'] for r in d['rules'] if r['id']=='flood']==[200] and 'stage' in d and 'generation' in d"
expect 0 -j stats "$va" --interval 100
check "stats -j --interval 100: the filter's stage row has a rate" \
	pyok "[type(s['pps']) in (int, float) for s in d['stages'] if s['stage']=='filter']==[True]"
expect 0 -j pipeline disable "$va" filter
check "disable -j: enabled false, changed true" pyok "d['stage']=='filter' and d['enabled'] is False and d['changed'] is True"
check "show: the filter is disabled, still loaded" test "$(slot filter enabled),$(slot filter loaded)" = False,True
check "the interface still runs one of our programs" test "$(pyeval "d['attached']" "$T/show")" = True
in1=$(slot filter in)
gen --udp 9000 --count 200 --pps 20000 || e2e_fail "gen"
sleep 0.3
check "disabled: no packet goes through the filter" test "$(slot filter in)" = "$in1"
expect 0 -j pipeline disable "$va" filter
check "disable twice: no change" pyok "d['enabled'] is False and d['changed'] is False"
expect 0 -j pipeline enable "$va" filter
check "enable -j: enabled true, changed true" pyok "d['enabled'] is True and d['changed'] is True"
check "show: the filter is enabled again" test "$(slot filter enabled)" = True
gen --udp 9000 --count 100 --pps 20000 || e2e_fail "gen"
e2e_wait_for '[[ $(slot filter in) -ge $((in1 + 100)) ]]' 3 || true
check "enabled again: 100 packets in the filter" test "$(( $(slot filter in) - in1 ))" = 100
expect 0 pipeline disable "$va" dump
check "the dump disabled" test "$(slot dump enabled)" = False
expect 0 pipeline enable "$va" dump
check "the dump enabled again" test "$(slot dump enabled)" = True

# a running `dump --match` keeps sampling across a disable and an enable of
# the dump (its marker in slot 0 stays; the empty tap alone stops samples)
# (show's dump row names the tap's program while slot 0 is empty)
tap=$(slot dump prog_id)
e2e_bg ip netns exec "$a" "$FASTPATH" dump "$va" -w "$T/m.pcapng" --match 'udp dport 9001' \
	--duration 30 2>"$T/dm.err"
dm=$E2E_BG_PID
e2e_wait_for '[[ $(slot dump prog_id) != "$tap" ]]' 5 || e2e_fail "dump --match did not start"
expect 0 pipeline disable "$va" dump
expect 0 pipeline enable "$va" dump
marker=$(slot dump prog_id)
check "dump --match: its marker is still in slot 0 after disable + enable ($marker, tap $tap)" \
	bash -c "[[ $marker =~ ^[0-9]+\$ && $marker != $tap ]]"
gen --udp 9001 --count 100 --pps 20000 || e2e_fail "gen"
sleep 0.5
kill -INT "$dm"
e2e_wait_for "! kill -0 $dm 2>/dev/null" 10 || e2e_fail "dump did not stop"
check "dump --match after disable + enable sampled the 100 matching packets ($(tail -n1 "$T/dm.err"))" \
	bash -c "tail -n1 $T/dm.err | grep -q '^100 sampled'"
check "the dump's marker is gone with it" test "$(slot dump prog_id)" = "$tap"

# ---- the filter's fused entry, and its removal from a pipeline loaded first ----
expect 0 -j pipeline show "$va" && cp "$out" "$T/show"
check "with the filter loaded, its fused entry is attached" \
	pyok "d['entry']=='fused' and d['fused_stage']=='filter' and d['prog_id']==$(attached_id)"
plain=$(pyeval "d['entry_id']")
expect 0 -j filter unload "$va"
check "filter unload on a pipeline loaded first: only the stage goes, no warning" \
	pyok "d['pipeline_stays'] is True and 'warning' not in d and d['pins_removed']>10"
check "... the plain entry is attached in place of the fused one" test "$(attached_id)" = "$plain"
expect 0 -j pipeline show "$va"
check "... show: plain entry, attached, the filter not loaded, the dump still there" \
	pyok "d['entry']=='plain' and d['attached'] is True and [s['loaded'] for s in d['slots'] if s['stage'] in ('dump','filter')]==[True, False]"
check "... no pin of the filter left" test ! -e "$pins/filter"
expect 0 filter load "$va" "$T/rules"
expect 0 -j pipeline show "$va" && cp "$out" "$T/show"

# ---- unload removes every pin --------------------------------------------------
npins=$(find "$pins" -type f | wc -l)
check "pins of the pipeline and its stages are there before the unload ($npins)" test "$npins" -gt 5
expect 0 -j pipeline unload "$va"
check "unload -j: detached our program, every pin counted and named" pyok "
d['unloaded'] is True and d['prog_id']==$(pyeval "d['prog_id']" "$T/show") and
d['pins_removed']==$npins and len(d['pins'])==min($npins, 64) and 'warning' not in d"
check "unload: no XDP program on the link" test -z "$(attached_id)"
check "unload: no pin left" test ! -e "$pins"
expect 1 pipeline unload "$va" && check "a second unload: nothing is there, it says so" grep -q "$va" "$err"
expect 1 pipeline unload "$va" --force && check "... also with --force" grep -q "$va" "$err"

# ---- skb mode ------------------------------------------------------------------------
expect 0 pipeline load "$va" --mode skb
check "--mode skb attaches generic XDP" bash -c "ip -n $a link show $va | grep -q xdpgeneric"
expect 0 -j pipeline show "$va" && check "show says skb" pyok "d['mode']=='skb'"
expect 0 pipeline unload "$va"
check "unload (skb): nothing left" bash -c "test -z \"\$(ip -n $a link show $va | grep xdp)\" && test ! -e $pins"

# ---- --bpffs: another pin root, after the verb too -------------------------------
alt=$FASTPATH_BPFFS/alt
expect 0 pipeline load "$va" --bpffs "$alt"
check "--bpffs: the pins are under the other root" bash -c "test -e $alt/$va/fp_entry && test ! -e $pins"
expect 1 pipeline show "$va"
expect 0 -j pipeline show "$va" --bpffs "$alt" && check "show --bpffs finds it" pyok "d['attached'] is True"
expect 0 pipeline unload "$va" --bpffs "$alt"
check "unload --bpffs: no program attached" test -z "$(attached_id)"
check "unload --bpffs: no pin left" test ! -e "$alt/$va"

# ---- load over another XDP program ------------------------------------------------
cat >"$T/pass.c" <<'C'
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
SEC("xdp") int xdp_other_prog(struct xdp_md *ctx) { return XDP_PASS; }
char _license[] SEC("license") = "GPL";
C
clang -O2 -target bpf -I/usr/include/x86_64-linux-gnu -c "$T/pass.c" -o "$T/pass.o" ||
	e2e_fail "cannot build the other program"
ip -n "$a" link set dev "$va" xdpgeneric obj "$T/pass.o" sec xdp || e2e_fail "cannot attach it"
other=$(attached_id)
[[ -n $other ]] || e2e_fail "the other program is not attached"
for mode in native skb; do
	expect 1 pipeline load "$va" --mode "$mode"
	check "load ($mode) over another program: names its id $other and name" \
		bash -c "grep -qw '$other' $err && grep -q xdp_other_prog $err"
	check "... the other program stays attached" test "$(attached_id)" = "$other"
	check "... no pin is left" test ! -e "$pins"
done
expect 1 -j pipeline load "$va" && check "-j: the refusal is a JSON error with the id" pyok "'$other' in d['error']"
ip -n "$a" link set dev "$va" xdpgeneric off

e2e_done
