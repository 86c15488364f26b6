#!/usr/bin/env bash
# `make demo-proxy | cat`: the Death Star demo reaches /dock/ and /comms/
# (200 with nginx's pages), refuses every spelling of the exhaust port (403,
# the encoded slash 400), answers a pipelined exhaust port 403 after the
# allowed request, prints the counters, and leaves no namespace, process or
# file behind.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require nginx curl python3
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

log=$E2E_TMP/demo.log
rc=0
FASTPATH=$FASTPATH timeout 60 bash "$E2E_REPO/scripts/demo_proxy.sh" 2>&1 | cat >"$log" || rc=$?
sed 's/^/    demo| /' "$log" >&2
(( rc == 0 )) || e2e_fail "the demo exited $rc"
grep -qE '^ +/dock/ +200 +docking bay' "$log" || e2e_fail "/dock/ not served"
grep -qE '^ +/comms/ +200 +comms' "$log" || e2e_fail "/comms/ not served"
n=$(grep -cE '^ +/[^ ]*(exhaust|%65xhaust)[^ ]* +403 ' "$log" || true)
(( n == 7 )) || e2e_fail "$n spellings of the exhaust port refused with 403, want 7"
grep -qE '^ +/dock%2F\.\.%2Fexhaust-port +400 ' "$log" || e2e_fail "the encoded slash not refused with 400"
if grep -q 'EXHAUST PORT' "$log"; then e2e_fail "the exhaust port's page was served"; fi
grep -q 'answers: 200 403 ' "$log" || e2e_fail "pipelined: no 200 then 403"
grep -qE '^ +6 +deny +8 +0 +403:8' "$log" || e2e_fail "the deny rule's counters"
if grep -q $'\033' "$log"; then e2e_fail "escape sequences in the piped output"; fi
if ip netns list | grep -q '^fpds'; then e2e_fail "a namespace of the demo is left"; fi
if ls /tmp | grep -q '^fp-demo-proxy'; then e2e_fail "a temp dir of the demo is left"; fi
e2e_pass "the Death Star: dock and comms served, the exhaust port refused in 8 forms and pipelined"
