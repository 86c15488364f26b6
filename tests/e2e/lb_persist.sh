#!/usr/bin/env bash
# lb save and lb apply on a real veth in a namespace, what a reboot and
# configuration management need: save writes a file that apply --load
# brings back to the same lb after an unload (VIPs of both families, a
# --port-any VIP, weights, drain and down, the load's --conns and --src4);
# an apply of an equal file makes no edit (the tables' map ids unchanged);
# a changed file is reached with the fewest edits (--dry-run lists them and
# changes nothing); a bad file (FILE:LINE:COL, exit 2), a VIP whose hash
# changed and a load line that differs (exit 1) change nothing; an edit
# that fails half way (FASTPATH_TEST_FAIL_EDIT) is undone, and a failed
# apply --load leaves no lb; a backend the health checker took down is
# saved as up, an apply that asks it up leaves it to the checker, one that
# asks it down makes the down the operator's (the checker no longer lifts
# it). save FILE replaces the file whole.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

a=$(e2e_name a); b=$(e2e_name b); va=$(e2e_name va); vb=$(e2e_name vb)
e2e_netns_add "$a"; e2e_netns_add "$b"
e2e_veth "$a" "$va" "$b" "$vb" 10.77.0.1 10.77.0.2
for x in 11 12 13 14; do ip -n "$b" addr add 10.77.0.$x/24 dev "$vb"; done
T=$E2E_TMP out=$E2E_OUT err=$E2E_ERR pins=$FASTPATH_BPFFS/$va
V=198.51.100.10:8080/tcp V6='[2001:db8::10]:443/tcp' VA=198.51.100.11/udp
expect() { e2e_expect "$a" "$@"; }
check() { e2e_check "$@"; }
pyok() { e2e_pyok "$@"; }
# the lb as list -j shows it, less what an edit may renumber (indexes, gens,
# table ids, slots), sorted: two lbs equal by configuration compare equal
shape() {
	ip netns exec "$a" "$FASTPATH" -j lb list "$va" | python3 -c '
import json, sys
d = json.load(sys.stdin)
vips = sorted((v["vip"], v["hash"], v["port_any"], v["table_size"]) for v in d["vips"])
bes = sorted((b["vip"], b["backend"], b["weight"], b["state"]) for b in d["backends"])
print(json.dumps([d.get("conns"), d.get("src4"), vips, bes]))'
}
table_ids() { ip netns exec "$a" "$FASTPATH" -j lb list "$va" | python3 -c 'import json,sys; print(sorted(v["table_id"] for v in json.load(sys.stdin)["vips"]))'; }
state() { ip netns exec "$a" "$FASTPATH" -j lb list "$va" | python3 -c "import json,sys; d=json.load(sys.stdin); print([b['state'] for b in d['backends'] if b['backend']=='$1'][0])"; }

# ---- an lb made by hand, saved --------------------------------------------------
expect 1 lb save "$va" && check "save without an lb says how to load one" grep -q 'lb load' "$err"
expect 0 lb load "$va" --conns 5000 --src4 10.255.0.0/16
expect 0 lb vip add "$va" "$V" --table-size 251
expect 0 lb vip add "$va" "$V6" --hash src
expect 0 lb vip add "$va" "$VA" --port-any --table-size 13
for x in 11 12 13; do expect 0 lb backend add "$va" "$V" 10.77.0.$x --weight $((x - 9)); done
expect 0 lb backend drain "$va" "$V" 10.77.0.12
expect 0 lb backend down "$va" "$V" 10.77.0.13
expect 0 lb backend add "$va" "$V6" 2001:db8:1::5
expect 0 lb backend add "$va" "$VA" 10.77.0.11
shape >"$T/made"
expect 2 -j lb save "$va" && check "save -j to stdout: a JSON error (a file is not JSON)" pyok "'give FILE' in d['error']"
echo "old contents" >"$T/lb.conf"
expect 0 -j lb save "$va" "$T/lb.conf"
check "save FILE: counts in JSON" pyok "d['vips'] == 3 and d['backends'] == 5"
check "... the file replaced whole" bash -c "! grep -q 'old contents' '$T/lb.conf' && grep -q '^load --conns 8192 --src4 10.255.0.0/16' '$T/lb.conf'"
check "... drain and down written" bash -c "grep -q '10.77.0.12 --weight 3 --state drain' '$T/lb.conf' && grep -q '10.77.0.13 --weight 4 --state down' '$T/lb.conf'"
check "... no temporary file left beside it" test "$(ls "$T" | grep -c '^lb.conf')" = 1
expect 0 lb save "$va"
check "save to stdout: the same statements" diff <(grep -v '^#' "$out") <(grep -v '^#' "$T/lb.conf")

# ---- an equal file changes nothing ---------------------------------------------
ids=$(table_ids)
expect 0 -j lb apply "$va" "$T/lb.conf"
check "apply of the saved file: no edit, 5 backends unchanged" pyok "d['edits'] == 0 and d['unchanged'] == 5 and d['changes'] == []"
check "... no table switched" test "$(table_ids)" = "$ids"

# ---- after an unload, apply --load makes the same lb ---------------------------
expect 0 lb unload "$va"
expect 1 lb apply "$va" "$T/lb.conf" && check "apply without an lb: says --load" grep -q 'apply --load' "$err"
expect 0 -j lb apply --dry-run --load "$va" "$T/lb.conf"
check "dry run of apply --load: would load, 8 edits" pyok "d['would_load'] and d['edits'] == 8"
check "... and loads nothing" test ! -e "$pins/lb"
expect 0 -j lb apply --load "$va" "$T/lb.conf"
check "apply --load: loaded, 8 edits" pyok "d['loaded'] and d['edits'] == 8"
check "... the same lb as made by hand (conns, src4, VIPs, weights, states)" test "$(shape)" = "$(cat "$T/made")"

# ---- a changed file: the fewest edits -------------------------------------------
cat >"$T/new.conf" <<EOF
# a VIP gone ($VA), a backend gone (.11), a weight changed (.12, drained:
# up again with its new weight), a state changed (.13 down -> drain), one new
vip $V --table-size 251
backend $V 10.77.0.12 --weight 5
backend $V 10.77.0.13   --weight 4 --state drain   # a comment after a statement
backend $V 10.77.0.14
vip $V6 --hash src
backend $V6 2001:db8:1::5
EOF
before=$(shape)
expect 0 -j lb apply --dry-run "$va" "$T/new.conf"
check "dry run: the five edits, in order (deletions first)" pyok "[c['change'] for c in d['changes']] == ['vip del', 'backend del', 'backend weight', 'backend state', 'backend add'] and d['unchanged'] == 1"
check "... with the file's lines" pyok "[c['line'] for c in d['changes']] == [None, None, 4, 5, 6]"
check "... and changes nothing" test "$(shape)" = "$before"
expect 0 lb apply "$va" "$T/new.conf"
expect 0 -j lb list "$va"
check "applied: 2 VIPs, .12 weight 5 up, .13 drain, .14 up, .11 gone" pyok "len(d['vips']) == 2 and sorted((b['backend'], b['weight'], b['state']) for b in d['backends'] if b['vip'] == '$V') == [('10.77.0.12', 5, 'up'), ('10.77.0.13', 4, 'drain'), ('10.77.0.14', 1, 'up')]"

# ---- refused, nothing changed ----------------------------------------------------
before=$(shape)
printf 'vip %s --table-size 251\nbackend %s 10.77.0.12 --wieght 5\n' "$V" "$V" >"$T/bad.conf"
expect 2 lb apply "$va" "$T/bad.conf" && check "a misspelt option: FILE:LINE:COL" grep -q "bad.conf:2:43: backend takes --weight and --state, not '--wieght'" "$err"
printf 'backend %s 10.77.0.12\n' "$V" >"$T/bad.conf"
expect 2 lb apply "$va" "$T/bad.conf" && check "a backend before its VIP: said" grep -q 'bad.conf:1:9: VIP .* has no vip line above' "$err"
printf 'vip %s\nvip %s\n' "$V" "$V" >"$T/bad.conf"
expect 2 lb apply "$va" "$T/bad.conf" && check "a VIP twice: the first line named" grep -q 'bad.conf:2:5: .*declared on line 1' "$err"
printf 'vip %s --table-size 13\nbackend %s 10.77.0.2\nbackend %s 10.77.0.3\nbackend %s 10.77.0.4\nbackend %s 10.77.0.5\n' "$V" "$V" "$V" "$V" "$V" >"$T/bad.conf"
expect 2 lb apply "$va" "$T/bad.conf" && check "more backends than the table holds: refused before any edit" grep -q 'bad.conf:5:1: .*table of 13 slots' "$err"
expect 2 -j lb apply "$va" "$T/bad.conf" && check "... a JSON error with -j" pyok "'bad.conf:5:1' in d['error']"
printf 'vip %s --hash src --table-size 251\n' "$V" >"$T/bad.conf"
expect 1 lb apply "$va" "$T/bad.conf" && check "a VIP's hash changed: refused, says vip del" grep -q 'bad.conf:1: VIP .*fixed at .vip add.' "$err"
printf 'load --conns 100000\n' >"$T/bad.conf"
expect 1 lb apply "$va" "$T/bad.conf" && check "another --conns: refused, says unload" grep -q 'loaded with --conns 8192' "$err"
expect 1 lb apply "$va" "$T/missing.conf"
expect 2 lb apply "$va" "$T/new.conf" --mode skb && check "--mode without --load: a usage error" grep -q 'add --load' "$err"
check "none of these changed the lb" test "$(shape)" = "$before"

# ---- an edit that fails half way is undone ----------------------------------------
ids=$(table_ids)
FASTPATH_TEST_FAIL_EDIT=4 expect 1 lb apply "$va" "$T/lb.conf" &&
	check "the 4th edit failed: said, and the edits before it undone" grep -q 'edit 4 of .*undone: the lb is as it was' "$err"
check "... the lb as before" test "$(shape)" = "$before"
# a second link in a, with no lb
ip -n "$a" link add "${va}x" type veth peer name "${va}y"
ip -n "$a" link set "${va}x" up; ip -n "$a" link set "${va}y" up
FASTPATH_TEST_FAIL_EDIT=2 expect 1 lb apply --load "${va}x" "$T/lb.conf" &&
	check "a failed apply --load: undone and unloaded" grep -q 'unloaded' "$err"
check "... no pin of it left" test ! -e "$FASTPATH_BPFFS/${va}x"
ip -n "$a" link del "${va}x"

# ---- the health checker's down --------------------------------------------------
# .12 and .14 have no server on 8080 (nor the v6 backend a route): the checker takes them down
expect 0 -j lb health "$va" --direct --interval 0.1 --fall 1 --timeout 300 --count 1
check "the checker took .12 and .14 down" bash -c "test '$(state 10.77.0.12)' = down && test '$(state 10.77.0.14)' = down"
expect 0 -j lb list "$va"
check "list says who took them down: health" pyok "sorted(b['down_by'] for b in d['backends'] if b['state'] == 'down') == ['health', 'health', 'health']"
expect 0 lb save "$va" "$T/hc.conf"
check "save writes them up (the checker's down is not the operator's)" bash -c "grep -q '10.77.0.12 --weight 5\$' '$T/hc.conf' && grep -q '# 10.77.0.12: down by the health checker' '$T/hc.conf'"
expect 0 -j lb apply "$va" "$T/hc.conf"
check "apply asking them up (and the unreachable v6 one): left to the checker, no edit" pyok "d['edits'] == 0 and d['left_to_health_checker'] == 3"
sed "s|^backend $V 10.77.0.14\$|backend $V 10.77.0.14 --state down|" "$T/new.conf" >"$T/down.conf"
expect 0 -j lb apply "$va" "$T/down.conf"
check "apply asking .14 down: its down becomes the operator's" pyok "[c['change'] for c in d['changes']] == ['backend down (the operator\\'s)']"
expect 0 -j lb list "$va"
check "... list says down_by operator" pyok "[b['down_by'] for b in d['backends'] if b['backend'] == '10.77.0.14'] == ['operator']"
e2e_bg ip netns exec "$b" python3 -m http.server --bind 10.77.0.14 8080
e2e_wait_for "ip netns exec $a python3 -c 'import socket; socket.create_connection((\"10.77.0.14\", 8080), 1)'" 10 ||
	e2e_fail "server on 10.77.0.14 did not start"
expect 0 -j lb health "$va" --direct --interval 0.1 --rise 1 --timeout 300 --count 2
check "... a server on .14 again: the checker leaves it down" test "$(state 10.77.0.14)" = down

# ---- bash completion ------------------------------------------------------------
comp() { ip netns exec "$a" env PATH="$(dirname "$FASTPATH"):$PATH" bash -c '
	source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
	_fastpath; echo "${COMPREPLY[*]}"' _ "$E2E_REPO/completion/fastpath.bash" "$@"; }
check "completion: lb verbs include save and apply" bash -c "[[ ' $(comp fastpath lb '') ' == *' save '* && ' $(comp fastpath lb '') ' == *' apply '* ]]"
check "completion: apply's options" test "$(comp fastpath lb apply --d)" = --dry-run
check "completion: save's interface, one with an lb" test "$(comp "$(basename "$FASTPATH")" lb save '')" = "$va"

# ---- the shipped unit: it verifies, and its commands do what they say -------------
e2e_unit_verify fastpath-lb@.service "$va"
unitcmd() { sed -n "s/^$1=//p" "$E2E_REPO/systemd/fastpath-lb@.service" |
	sed "s#/usr/local/sbin/fastpath#$FASTPATH#; s#/etc/fastpath/lb-%I.conf#$T/unit.conf#; s#%I#$va#g; s#\\\$FASTPATH_LB_LOAD_OPTS##"; }
# (the checker's downs are saved as up: put them up so the lb equals its file)
expect 0 lb backend up "$va" "$V" 10.77.0.12
expect 0 lb backend up "$va" "$V6" 2001:db8:1::5
expect 0 lb save "$va" "$T/unit.conf"
shape >"$T/saved"
expect 0 lb unload "$va"
# shellcheck disable=SC2046
ip netns exec "$a" $(unitcmd ExecStart) >/dev/null || e2e_fail "ExecStart failed: $(unitcmd ExecStart)"
check "ExecStart: the saved lb again" test "$(shape)" = "$(cat "$T/saved")"
echo "backend $V 10.77.0.15 --weight 2" >>"$T/unit.conf"
# shellcheck disable=SC2046
ip netns exec "$a" $(unitcmd ExecReload) >/dev/null || e2e_fail "ExecReload failed"
check "ExecReload: the edited file applied" test "$(state 10.77.0.15)" = up
# shellcheck disable=SC2046
ip netns exec "$a" $(unitcmd ExecStop) >/dev/null || e2e_fail "ExecStop failed"
check "ExecStop: unloaded, no pin left" test ! -e "$pins"
e2e_done
