#!/usr/bin/env bash
# Two `fastpath filter load` at once on one interface, several tries: exactly
# one succeeds and the other fails cleanly ("already ..."), the program
# attached is the pinned one (status: ok), and unload leaves no XDP program
# and no pins. (Before the root lock, both pinned into one directory and the
# loser's cleanup removed the winner's pins: attached, no pins, every try.)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"
TRIES=${TRIES:-3}   # bounded also in time: no new try after 15 s (loads are slow on a busy host)

ns=$(e2e_name n); v=$(e2e_name v); p=$(e2e_name p)
e2e_netns_add "$ns"
e2e_veth "$ns" "$v" "$ns" "$p"
fp() { ip netns exec "$ns" "$FASTPATH" "$@"; }
# at cleanup, also when a check failed: nothing of ours stays attached
e2e_defer ip -n "$ns" link set dev "$v" xdpdrv off
check() { e2e_check "$@"; }
attached_id() { ip -n "$ns" -d link show "$v" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p'; }

start=$SECONDS
for (( t = 1; t <= TRIES && (t == 1 || SECONDS - start < 15); t++ )); do
	rc1=0 rc2=0
	timeout 60 ip netns exec "$ns" "$FASTPATH" filter load "$v" >/dev/null 2>"$E2E_TMP/e1" & p1=$!
	timeout 60 ip netns exec "$ns" "$FASTPATH" filter load "$v" >/dev/null 2>"$E2E_TMP/e2" & p2=$!
	wait "$p1" || rc1=$?
	wait "$p2" || rc2=$?
	check "try $t: exactly one load succeeded (exits $rc1 $rc2)" \
		test "$(( (rc1 == 0) + (rc2 == 0) )),$(( rc1 + rc2 ))" = 1,1
	check "try $t: the other says already ($(cat "$E2E_TMP/e1" "$E2E_TMP/e2" | head -c 300))" grep -qh 'already' "$E2E_TMP/e1" "$E2E_TMP/e2"
	fp -j status >"$E2E_TMP/st.json" || true
	check "try $t: status lists $v, state ok (the pinned program is the attached one)" \
		python3 -c "import json,sys; d=json.load(open('$E2E_TMP/st.json')); sys.exit(not (len(d)==1 and d[0]['iface']=='$v' and d[0]['state']=='ok'))"
	id=$(attached_id)
	fp -j filter unload "$v" >"$E2E_TMP/un.json" 2>"$E2E_TMP/un.err" || true
	check "try $t: unload detached program $id" \
		python3 -c "import json,sys; d=json.load(open('$E2E_TMP/un.json')); sys.exit(not (d['detached_from']=='$v' and str(d['prog_id'])=='$id'))"
	check "try $t: no XDP program after unload" test -z "$(attached_id)"
	check "try $t: no pins after unload" test -z "$(find "$FASTPATH_BPFFS" -mindepth 1 ! -name '*.debug' | head -1)"
	# a failed try must not spoil the next one
	ip -n "$ns" link set dev "$v" xdpdrv off 2>/dev/null || true
	rm -rf "${FASTPATH_BPFFS:?}/$v"
done
e2e_done
