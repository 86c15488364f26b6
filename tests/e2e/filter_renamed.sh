#!/usr/bin/env bash
# A renamed interface. Pins stay keyed by the name at load (ROOT/OLD); the
# program is found by the ifindex and program id recorded at load:
#   status shows "renamed" with the new name; apply under the old name is
#   enforced (no refusal); unload under the new name is refused and names
#   the old one; unload under the old name detaches from the renamed
#   interface and says so (before: it reported success and the program kept
#   dropping packets, with no pins).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

ns=$(e2e_name n); v=$(e2e_name v); p=$(e2e_name p); r=$(e2e_name r)
e2e_netns_add "$ns"
e2e_veth "$ns" "$v" "$ns" "$p"
E2E_LINKS+=("$ns $r")   # the same link under its new name (deleting either frees both)
fp() { ip netns exec "$ns" "$FASTPATH" "$@"; }
check() { e2e_check "$@"; }
jq_() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
echo 'drop udp dport 9 id nine' >"$E2E_TMP/a.rules"
echo 'drop udp dport 10 id ten' >"$E2E_TMP/b.rules"

fp filter load "$v" "$E2E_TMP/a.rules" >/dev/null || e2e_fail "load failed"
ip -n "$ns" link set dev "$v" down
ip -n "$ns" link set dev "$v" name "$r"
ip -n "$ns" link set dev "$r" up

fp -j status >"$E2E_TMP/st.json" 2>"$E2E_TMP/st.err" || true
check "status: $v is 'renamed', renamed_to $r" \
	test "$(jq_ "$E2E_TMP/st.json" "d[0]['iface'], d[0]['state'], d[0]['renamed_to']")" = "('$v', 'renamed', '$r')"
check "status warns to keep using the old name" grep -q "renamed to $r" "$E2E_TMP/st.err"
fp filter apply "$v" "$E2E_TMP/b.rules" >/dev/null 2>"$E2E_TMP/ap.err"
check "apply under the old name works (the program runs on $r)" \
	test "$(fp -j filter list "$v" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')" = ten

rc=0; fp filter unload "$r" >/dev/null 2>"$E2E_TMP/un1.err" || rc=$?
check "unload under the new name: exit 1, names the pins' name $v" \
	bash -c "(( $rc == 1 )) && grep -q 'pins are under .*/$v' $E2E_TMP/un1.err"
check "... and left the program attached" bash -c "ip -n $ns link show $r | grep -q 'prog/xdp'"

fp -j filter unload "$v" >"$E2E_TMP/un.json" 2>"$E2E_TMP/un.err" || e2e_fail "unload $v failed: $(cat "$E2E_TMP/un.err")"
check "unload $v reports it detached from $r" test "$(jq_ "$E2E_TMP/un.json" "d['detached_from']")" = "$r"
check "unload -j warns about the rename, inside its JSON document" python3 -c \
	'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(("renamed to " + sys.argv[2]) not in d.get("warning", ""))' \
	"$E2E_TMP/un.json" "$r"
check "no XDP program on $r after unload" bash -c "! ip -n $ns link show $r | grep -q xdp"
check "no pins left" test -z "$(find "$FASTPATH_BPFFS" -mindepth 1 ! -name '*.debug' | head -1)"
ip -n "$ns" link set dev "$r" xdpdrv off 2>/dev/null || true
e2e_done
