#!/usr/bin/env bash
# A user without rights (nobody, no groups, no capabilities) is told the
# truth: "permission denied" with the remedy and exit 1, never "not loaded"
# (status said "not loaded on any interface", filter list advised an unload
# that would have torn down a working filter); unload changes nothing; the
# exporter counts a scrape error (fastpath_scrape_errors_total > 0, it said
# 0 and served nothing) and logs why. Two layouts: the pin root itself
# unreadable, then the root readable but the interface's pin directory not.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3 setpriv curl
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"
id nobody >/dev/null 2>&1 || e2e_skip "no user nobody"
cp "$FASTPATH" "$E2E_TMP/fastpath" && chmod 0755 "$E2E_TMP/fastpath" && FASTPATH=$E2E_TMP/fastpath
chmod 0711 "$E2E_TMP"   # nobody may reach the binary and the bpffs, not list them
NOBODY=(setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups)

ns=$(e2e_name n); v=$(e2e_name v); p=$(e2e_name p)
e2e_netns_add "$ns"
e2e_veth "$ns" "$v" "$ns" "$p"
fp() { ip netns exec "$ns" "$FASTPATH" "$@"; }
fpn() { ip netns exec "$ns" "${NOBODY[@]}" "$FASTPATH" "$@"; }
check() { e2e_check "$@"; }
# denied TAG ARGS...: fastpath ARGS as nobody exits 1 and says permission denied, run as root
denied() {
	local tag=$1 rc=0; shift
	fpn "$@" >"$E2E_TMP/$tag.out" 2>"$E2E_TMP/$tag.err" </dev/null || rc=$?
	check "$tag: exit 1 ($rc), 'permission denied: run as root'" \
		bash -c "(( $rc == 1 )) && cat $E2E_TMP/$tag.out $E2E_TMP/$tag.err | grep -q 'permission denied.*run as root'"
	check "$tag: no 'not loaded', no advice to unload" \
		bash -c "! cat $E2E_TMP/$tag.out $E2E_TMP/$tag.err | grep -Eq 'not loaded|unload'"
}
echo 'drop udp dport 9 id nine' >"$E2E_TMP/a.rules"
fp filter load "$v" "$E2E_TMP/a.rules" >/dev/null || e2e_fail "load failed"

# ---- 1. the pin root unreadable (0700, root's) --------------------------------
denied status1 status
denied status1j -j status
denied list1 filter list "$v"

# ---- 2. the root readable, the pin directory not (0700) -----------------------
chmod 0755 "$FASTPATH_BPFFS"
denied status2 status
denied list2 filter list "$v"
denied unload2 filter unload "$v"
denied apply2 filter apply "$v" "$E2E_TMP/a.rules"
check "the filter is still loaded and attached (as root: ok)" \
	test "$(fp -j status | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["state"])')" = ok

# ---- 3. the exporter as nobody ---------------------------------------------------
e2e_bg ip netns exec "$ns" "${NOBODY[@]}" "$FASTPATH" exporter --listen 127.0.0.1:0 2>"$E2E_TMP/exp.log"
e2e_wait_for "grep -q 'listening on' $E2E_TMP/exp.log" 10 || e2e_fail "the exporter did not start: $(cat "$E2E_TMP/exp.log")"
url=$(grep -o 'http://[^ ]*' "$E2E_TMP/exp.log" | head -1)
ip netns exec "$ns" curl -fsS "$url" >"$E2E_TMP/m1" || e2e_fail "scrape failed"
ip netns exec "$ns" curl -fsS "$url" >"$E2E_TMP/m2" || e2e_fail "scrape failed"
check "exporter: fastpath_scrape_errors_total grows (1, 2)" \
	test "$(awk '/^fastpath_scrape_errors_total/ {print $2}' "$E2E_TMP/m1" "$E2E_TMP/m2" | tr '\n' ,)" = 1,2,
check "exporter: logs 'permission denied', once" test "$(grep -c 'permission denied.*run as root' "$E2E_TMP/exp.log")" -eq 1
e2e_kill "$E2E_BG_PID"
fp filter unload "$v" >/dev/null || e2e_fail "unload as root failed"
e2e_done
