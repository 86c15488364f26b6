#!/usr/bin/env bash
# bridge save and bridge apply in a namespace, what a reboot and
# configuration management need: save writes a file (settings, ports with
# their VLANs, limits and mode, static FDB entries) that apply brings back
# after a destroy; an equal file makes no edit; a changed file is reached
# with the fewest edits (--dry-run lists them and changes nothing); a bad
# file (FILE:LINE:COL, exit 2) and a setting fixed at create (exit 1)
# change nothing; an edit that fails half way (FASTPATH_TEST_FAIL_EDIT, and
# a real refusal: a port of another bridge) is undone, and a bridge the
# apply created is destroyed again; the shipped unit verifies and its
# commands work.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

ns=$(e2e_name sw); e2e_netns_add "$ns"
P=() H=()
for i in 1 2 3 4; do
	P[i]=$(e2e_name p$i); H[i]=$(e2e_name h$i)
	ip -n "$ns" link add "${P[i]}" type veth peer name "${H[i]}"
	ip -n "$ns" link set "${P[i]}" up; ip -n "$ns" link set "${H[i]}" up
done
BR=$(e2e_name br) B2=$(e2e_name b2)
T=$E2E_TMP out=$E2E_OUT err=$E2E_ERR
expect() { e2e_expect "$ns" "$@"; }
check() { e2e_check "$@"; }
pyok() { e2e_pyok "$@"; }
# the bridge's configuration as save prints it, less comments, sorted
shape() { ip netns exec "$ns" "$FASTPATH" bridge save "${1:-$BR}" 2>/dev/null | grep -v '^#' | sort; }

# ---- a bridge made by hand, saved ------------------------------------------------
expect 1 bridge save "$BR" && check "save of no bridge says how to make one" grep -q 'bridge create' "$err"
expect 0 bridge create "$BR" --vlan-aware --ageing 120 --address 02:00:00:00:00:aa
expect 0 bridge add "$BR" "${P[1]}" --pvid 10
expect 0 bridge add "$BR" "${P[2]}" --vlans 10,20-22 --tagged --flood-limit 1000
expect 0 bridge add "$BR" "${P[3]}" --mode skb --learn-limit 0
expect 0 bridge fdb add "$BR" 02:00:00:00:00:01 vlan 10 "${P[1]}"
shape >"$T/made"
echo "old contents" >"$T/br.conf"
expect 0 -j bridge save "$BR" "$T/br.conf"
check "save FILE: counts in JSON" pyok "d['ports'] == 3 and d['static_fdb'] == 1"
check "... the file replaced whole, the settings on the bridge line" bash -c "! grep -q 'old contents' '$T/br.conf' && grep -qx 'bridge --ageing 120 --vlan-aware --address 02:00:00:00:00:aa' '$T/br.conf'"
check "... each port with its VLANs, limits and mode" bash -c "grep -qx 'port ${P[2]} --pvid 1 --vlans 1,10,20-22 --tagged --flood-limit 1000 --learn-limit 4096' '$T/br.conf' && grep -qx 'port ${P[3]} --pvid 1 --vlans 1 --untagged --learn-limit 0 --mode skb' '$T/br.conf'"
check "... the static entry" grep -qx "fdb 02:00:00:00:00:01 vlan 10 ${P[1]}" "$T/br.conf"
expect 2 -j bridge save "$BR" && check "save -j to stdout: a JSON error" pyok "'give FILE' in d['error']"

# ---- equal: no edit; destroyed: made again ----------------------------------------
expect 0 -j bridge apply "$BR" "$T/br.conf"
check "apply of the saved file: no edit" pyok "d['edits'] == 0 and d['unchanged'] == 4 and not d['created']"
expect 0 bridge destroy "$BR"
expect 0 -j bridge apply --dry-run "$BR" "$T/br.conf"
check "dry run on no bridge: would create, 4 edits" pyok "d['would_create'] and d['edits'] == 4"
check "... and creates nothing" bash -c "! ip netns exec $ns $FASTPATH bridge show $BR >/dev/null 2>&1"
expect 0 -j bridge apply "$BR" "$T/br.conf"
check "apply: created, 4 edits" pyok "d['created'] and d['edits'] == 4"
check "... the same bridge as made by hand" diff "$T/made" <(shape)

# ---- a changed file: the fewest edits -------------------------------------------
cat >"$T/new.conf" <<EOF
bridge --ageing 120 --vlan-aware --address 02:00:00:00:00:aa
port ${P[1]} --pvid 10                           # unchanged
port ${P[2]} --vlans 10,20-23 --tagged --flood-limit 1000   # a VLAN more: re-added
port ${P[4]}                                     # new (${P[3]} gone)
fdb 02:00:00:00:00:02 vlan 20 ${P[2]}
EOF
before=$(shape)
expect 0 -j bridge apply --dry-run "$BR" "$T/new.conf"
check "dry run: the edits in order (deletions first)" pyok "[(c['change'], c['line']) for c in d['changes']] == [('fdb del', None), ('port del', None), ('port re-add', 3), ('port add', 4), ('fdb add', 5)] and d['unchanged'] == 1"
check "... and changes nothing" test "$(shape)" = "$before"
expect 0 bridge apply "$BR" "$T/new.conf"
expect 0 bridge save "$BR" "$T/now.conf"
check "applied: ${P[3]} gone, ${P[4]} in, ${P[2]} with VLAN 23, the new static entry" bash -c "! grep -q '${P[3]}' '$T/now.conf' && grep -q '^port ${P[4]} ' '$T/now.conf' && grep -q '${P[2]} --pvid 1 --vlans 1,10,20-23 ' '$T/now.conf' && grep -qx 'fdb 02:00:00:00:00:02 vlan 20 ${P[2]}' '$T/now.conf' && ! grep -q '02:00:00:00:00:01' '$T/now.conf'"

# ---- refused, nothing changed ----------------------------------------------------
before=$(shape)
printf 'bridge --vlan-aware --ageing 120 --address 02:00:00:00:00:aa\nport %s --pvid 5000\n' "${P[1]}" >"$T/bad.conf"
expect 2 bridge apply "$BR" "$T/bad.conf" && check "a bad PVID: FILE:LINE:COL" grep -q "bad.conf:2:$(( ${#P[1]} + 14 )): --pvid '5000'" "$err"
printf 'port %s --vlans 10\n' "${P[1]}" >"$T/bad.conf"
expect 2 bridge apply "$BR" "$T/bad.conf" && check "VLANs on a bridge not VLAN-aware: said" grep -q 'bad.conf:1:1: .*VLAN-aware' "$err"
printf 'bridge --vlan-aware\nport %s\nfdb 02:00:00:00:00:09 %s\n' "${P[1]}" "${P[1]}" >"$T/bad.conf"
expect 2 bridge apply "$BR" "$T/bad.conf" && check "an fdb entry without its VLAN on a VLAN-aware bridge: said" grep -q 'bad.conf:3:.*vlan N' "$err"
printf 'bridge --vlan-aware\nfdb 02:00:00:00:00:09 vlan 1 %s\n' "${P[1]}" >"$T/bad.conf"
expect 2 bridge apply "$BR" "$T/bad.conf" && check "an fdb entry's port not declared: said" grep -q 'no port line above' "$err"
printf 'bridge --vlan-aware --ageing 300 --address 02:00:00:00:00:aa\n' >"$T/bad.conf"
expect 1 bridge apply "$BR" "$T/bad.conf" && check "another --ageing: refused, says destroy" grep -q 'another --ageing, fixed at create' "$err"
expect 1 bridge apply "$BR" "$T/missing.conf"
expect 2 bridge apply "bad/name" "$T/new.conf"
check "none of these changed the bridge" test "$(shape)" = "$before"

# ---- undone ---------------------------------------------------------------------------
FASTPATH_TEST_FAIL_EDIT=3 expect 1 bridge apply "$BR" "$T/br.conf" &&
	check "the 3rd edit failed: the edits before it undone" grep -q 'edit 3 of .*undone: the bridge is as it was' "$err"
check "... the bridge as before" test "$(shape)" = "$before"
printf 'bridge\nport %s\nport %s\n' "${P[3]}" "${P[1]}" >"$T/other.conf"
expect 1 bridge apply "$B2" "$T/other.conf" &&
	check "a port of another bridge refused half way: said, the new bridge destroyed" grep -q "${P[1]} is a port of bridge $BR.*bridge destroyed" "$err"
check "... no bridge $B2, ${P[3]} free again" bash -c "! ip netns exec $ns $FASTPATH bridge show $B2 >/dev/null 2>&1 && ip netns exec $ns $FASTPATH bridge add $BR ${P[3]} >/dev/null && ip netns exec $ns $FASTPATH bridge del $BR ${P[3]} >/dev/null"

# ---- the shipped unit: it verifies, its commands do what they say ----------------
e2e_unit_verify fastpath-bridge@.service "$BR"
unitcmd() { sed -n "s/^$1=//p" "$E2E_REPO/systemd/fastpath-bridge@.service" |
	sed "s#/usr/local/sbin/fastpath#$FASTPATH#; s#/etc/fastpath/bridge-%i.conf#$T/unit.conf#; s#%i#$BR#g"; }
cp "$T/now.conf" "$T/unit.conf"
expect 0 bridge destroy "$BR"
# shellcheck disable=SC2046
ip netns exec "$ns" $(unitcmd ExecStart) >/dev/null || e2e_fail "ExecStart failed: $(unitcmd ExecStart)"
check "ExecStart: the saved bridge again" diff <(grep -v '^#' "$T/unit.conf" | sort) <(shape)
echo "port ${P[3]}" >>"$T/unit.conf"
# shellcheck disable=SC2046
ip netns exec "$ns" $(unitcmd ExecReload) >/dev/null || e2e_fail "ExecReload failed"
check "ExecReload: the edited file applied" bash -c "ip netns exec $ns $FASTPATH bridge save $BR | grep -q '^port ${P[3]} '"
# shellcheck disable=SC2046
ip netns exec "$ns" $(unitcmd ExecStop) >/dev/null || e2e_fail "ExecStop failed"
check "ExecStop: the bridge destroyed, no pin left" bash -c "! ls '$FASTPATH_BPFFS/shared' 2>/dev/null | grep -q '$BR'"

e2e_done
