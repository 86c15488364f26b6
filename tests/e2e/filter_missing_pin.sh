#!/usr/bin/env bash
# Pins removed by hand. One pin gone (fp_entry): unload refuses and says
# --force (nothing changed), a new load is refused, `unload --force` detaches
# fastpath's program and removes the remaining pins, naming each; the
# interface has no XDP program after. All pins gone (an orphan): status
# shows the interface as "orphan" with the remedy (the exporter as
# interface_info state="orphan"), and `unload --force` detaches it. Before, the only way out was `ip link ... xdp off` and rm -rf.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3 curl
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

ns=$(e2e_name n); v=$(e2e_name v); p=$(e2e_name p)
e2e_netns_add "$ns"
e2e_veth "$ns" "$v" "$ns" "$p"
fp() { ip netns exec "$ns" "$FASTPATH" "$@"; }
e2e_defer ip -n "$ns" link set dev "$v" xdpgeneric off
e2e_defer ip -n "$ns" link set dev "$v" xdpdrv off
check() { e2e_check "$@"; }
has_xdp() { ip -n "$ns" link show "$v" | grep -q xdp; }
no_pins() { test -z "$(find "$FASTPATH_BPFFS" -mindepth 1 ! -name '*.debug' | head -1)"; }

# ---- one pin missing -------------------------------------------------------
fp filter load "$v" >/dev/null || e2e_fail "load failed"
rm "$FASTPATH_BPFFS/$v/fp_entry"
npins=$(find "$FASTPATH_BPFFS/$v" -mindepth 1 ! -type d | wc -l)
rc=0; fp filter unload "$v" >/dev/null 2>"$E2E_TMP/e" || rc=$?
check "unload with fp_entry missing: exit 1, says --force" bash -c "(( $rc == 1 )) && grep -q -- '--force' $E2E_TMP/e"
check "... and changed nothing" bash -c "ip -n $ns link show $v | grep -q xdp && test \$(find $FASTPATH_BPFFS/$v -mindepth 1 ! -type d | wc -l) -eq $npins"
rc=0; fp filter load "$v" >/dev/null 2>&1 || rc=$?
check "a new load is refused" test "$rc" -eq 1
fp -j filter unload "$v" --force >"$E2E_TMP/o" 2>"$E2E_TMP/e" || e2e_fail "unload --force failed: $(cat "$E2E_TMP/e")"
check "unload --force: detached from $v, named each of the $npins pins" \
	python3 -c "import json,sys; d=json.load(open('$E2E_TMP/o')); sys.exit(not (d['detached_from']=='$v' and d['pins_removed']==$npins and len(d['pins'])==$npins and 'fp_meta' in [x['pin'] for x in d['pins']]))"
check "no XDP program after --force" bash -c "! ip -n $ns link show $v | grep -q xdp"
check "no pins after --force" no_pins

# ---- every pin gone: an orphan (generic mode this time) --------------------
fp filter load "$v" --mode skb >/dev/null || e2e_fail "load failed"
rm -rf "${FASTPATH_BPFFS:?}/$v"
fp -j status >"$E2E_TMP/st.json" 2>"$E2E_TMP/e" || true
check "status: $v is an orphan in skb mode" \
	python3 -c "import json,sys; d=json.load(open('$E2E_TMP/st.json')); sys.exit(not (len(d)==1 and d[0]['iface']=='$v' and d[0]['state']=='orphan' and d[0]['mode']=='skb'))"
check "status gives the remedy" grep -q "filter unload $v --force" "$E2E_TMP/e"
e2e_bg ip netns exec "$ns" "$FASTPATH" exporter --listen 127.0.0.1:0 2>"$E2E_TMP/exp.log"
if e2e_wait_for "grep -q 'listening on' $E2E_TMP/exp.log" 10; then
	ip netns exec "$ns" curl -fsS "$(grep -o 'http://[^ ]*' "$E2E_TMP/exp.log" | head -1)" >"$E2E_TMP/m" || true
	check "exporter: interface_info state=\"orphan\", mode skb" \
		grep -q "^fastpath_interface_info{iface=\"$v\",state=\"orphan\",mode=\"skb\"} 1" "$E2E_TMP/m"
	command -v promtool >/dev/null && check "promtool accepts it" promtool check metrics <"$E2E_TMP/m"
else
	e2e_log "NOT OK: the exporter did not start"; E2E_FAILS=$((E2E_FAILS + 1))
fi
e2e_kill "$E2E_BG_PID"
rc=0; fp filter unload "$v" >/dev/null 2>&1 || rc=$?
check "plain unload: exit 1 (no pins)" test "$rc" -eq 1
fp filter unload --force "$v" >/dev/null 2>"$E2E_TMP/e" || e2e_fail "unload --force failed: $(cat "$E2E_TMP/e")"
check "no XDP program after --force" bash -c "! ip -n $ns link show $v | grep -q xdp"
rc=0; fp filter unload --force "$v" >/dev/null 2>"$E2E_TMP/e" || rc=$?
check "--force again: exit 1, nothing of fastpath's" bash -c "(( $rc == 1 )) && grep -q 'nothing of fastpath' $E2E_TMP/e"
check "status: nothing loaded" bash -c "ip netns exec $ns $FASTPATH status | grep -q 'not loaded on any'"
e2e_done
