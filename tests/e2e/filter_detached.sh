#!/usr/bin/env bash
# apply/add/del on an interface whose program is not attached any more
# (detached by hand, or the interface re-created) are refused (exit 1,
# also as JSON with -j) and change nothing, since nothing would enforce the
# rules (before: they succeeded without a word). And a load refused because
# another program is attached in generic (skb) mode says how to remove it:
# `xdpgeneric off` (`xdp off` leaves a generic program in place).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3 clang
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

ns=$(e2e_name n); v=$(e2e_name v); p=$(e2e_name p)
e2e_netns_add "$ns"
e2e_veth "$ns" "$v" "$ns" "$p"
fp() { ip netns exec "$ns" "$FASTPATH" "$@"; }
check() { e2e_check "$@"; }
gen() { fp -j status "$v" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["generation"])'; }
echo 'drop udp dport 9 id nine' >"$E2E_TMP/a.rules"

fp filter load "$v" "$E2E_TMP/a.rules" >/dev/null || e2e_fail "load failed"
ip -n "$ns" link set dev "$v" xdp off
rc=0; fp filter apply "$v" "$E2E_TMP/a.rules" >/dev/null 2>"$E2E_TMP/e" || rc=$?
check "apply after xdp off: exit 1, 'not attached'" bash -c "(( $rc == 1 )) && grep -q 'not attached' $E2E_TMP/e"
rc=0; fp -j filter add "$v" drop tcp dport 1 >"$E2E_TMP/o" 2>/dev/null || rc=$?
check "add -j: exit 1, a JSON error" \
	bash -c "(( $rc == 1 )) && python3 -c 'import json,sys; sys.exit(\"not attached\" not in json.load(open(\"$E2E_TMP/o\"))[\"error\"])'"
rc=0; fp filter del "$v" nine >/dev/null 2>&1 || rc=$?
check "del: exit 1" test "$rc" -eq 1
check "nothing was applied (generation 1, status detached)" \
	test "$(gen),$(fp -j status "$v" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["state"])')" = 1,detached
fp filter unload "$v" >/dev/null 2>"$E2E_TMP/e" || e2e_fail "unload failed"
check "unload says the program was not attached" grep -q 'was not attached' "$E2E_TMP/e"

# the interface re-created under the same name: another ifindex
fp filter load "$v" "$E2E_TMP/a.rules" >/dev/null || e2e_fail "load failed"
ip -n "$ns" link del "$v"
e2e_veth "$ns" "$v" "$ns" "$p"
rc=0; fp filter apply "$v" "$E2E_TMP/a.rules" >/dev/null 2>"$E2E_TMP/e" || rc=$?
check "apply after the interface was re-created: exit 1" \
	bash -c "(( $rc == 1 )) && grep -q 'not attached' $E2E_TMP/e"
fp filter unload "$v" >/dev/null 2>&1 || e2e_fail "unload failed"

# another program in generic mode: the hint says xdpgeneric off
cat >"$E2E_TMP/pass.c" <<'C'
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
SEC("xdp") int xdp_pass_all(struct xdp_md *ctx) { return XDP_PASS; }
char _license[] SEC("license") = "GPL";
C
clang -O2 -target bpf -I/usr/include/x86_64-linux-gnu -c "$E2E_TMP/pass.c" -o "$E2E_TMP/pass.o" ||
	e2e_fail "cannot build the pass program"
ip -n "$ns" link set dev "$v" xdpgeneric obj "$E2E_TMP/pass.o" sec xdp || e2e_fail "cannot attach it"
rc=0; fp filter load "$v" >/dev/null 2>"$E2E_TMP/e" || rc=$?
check "load over a generic program: exit 1, the hint says 'xdpgeneric off'" \
	bash -c "(( $rc == 1 )) && grep -q 'xdpgeneric off' $E2E_TMP/e"
hint=$(grep -o "ip link set dev [^\`]*" "$E2E_TMP/e" || true)
[[ -n $hint ]] && ip netns exec "$ns" $hint
check "following the hint removes it" bash -c "! ip -n $ns link show $v | grep -q xdp"
# (ip link ... obj, run inside the namespace where /sys/fs/bpf is not
# visible, takes the first bpffs it finds, this test's, for its own ip/,
# tc/ and xdp/ directories: those are iproute2's, not pins of ours)
check "no pins were left by the refused load" test -z "$(find "$FASTPATH_BPFFS" -mindepth 1 \
	-maxdepth 1 ! -name '*.debug' ! -name ip ! -name tc ! -name xdp | head -1)"
e2e_done
