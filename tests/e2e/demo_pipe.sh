#!/usr/bin/env bash
# `make demo | cat`: the demo's output, when not on a terminal, is plain lines
# (no carriage returns redrawing a count in place, no escape sequences), so a
# log or a pipe reads line by line.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3 curl ethtool
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

log=$E2E_TMP/demo.log
rc=0
FASTPATH=$FASTPATH UNPROTECTED_S=3 PROTECTED_S=6 timeout 120 bash "$E2E_REPO/scripts/demo.sh" 2>&1 | cat >"$log" || rc=$?
sed 's/^/    demo| /' "$log" >&2
(( rc == 0 )) || e2e_fail "the demo exited $rc"
grep -q 'junk queries' "$log" || e2e_fail "no junk query count in the demo's output"
if grep -q $'\r' "$log"; then e2e_fail "carriage returns in the piped output"; fi
if grep -q $'\033' "$log"; then e2e_fail "escape sequences in the piped output"; fi
long=$(awk 'length > 200' "$log" | wc -l)
(( long == 0 )) || e2e_fail "$long lines over 200 characters"
e2e_log "$(wc -l <"$log") lines, none redrawn"
e2e_pass
