#!/usr/bin/env bash
# fastpath proxy check: a good policy (exit 0, its rule count), a policy
# with errors (exit 2, every error as FILE:LINE:COL, the count last), JSON
# both ways, an unreadable file (exit 1), stdin, and the usage errors.
. "$(dirname "$0")/lib.sh"

out=$E2E_TMP/out err=$E2E_TMP/err
expect() { # WANT ARGS...: runs fastpath, checks its exit code
	local want=$1 rc=0; shift
	"$FASTPATH" "$@" >"$out" 2>"$err" </dev/null || rc=$?
	[[ $rc == "$want" ]] || e2e_fail "fastpath $*: exit $rc, want $want; stderr: $(head -c 400 "$err")"
}

good=$E2E_TMP/good.policy bad=$E2E_TMP/bad.policy
printf '# the Death Star\ndefault deny\nallow GET,POST path /dock*\nallow path /comms\n' >"$good"
printf 'deny path /exhaust-port* status 403\nlimit 100/s by client path /comms\n' >>"$good"
printf 'allow path /ok\nalow path /x\nallow path dock\ndeny status 200\nallow sni a.b path /c\n' >"$bad"

expect 0 proxy check "$good"
grep -qx "$good: 4 rules, default deny" "$out" || e2e_fail "check's summary: $(cat "$out")"
expect 0 -j proxy check "$good"
grep -q '"rules":4' "$out" && grep -q '"default":"deny"' "$out" || e2e_fail "-j: $(cat "$out")"
"$FASTPATH" proxy check - <"$good" >"$out" || e2e_fail "stdin"
grep -q "^<stdin>: 4 rules" "$out" || e2e_fail "stdin name: $(cat "$out")"

expect 2 proxy check "$bad"
want="$bad:2:1: unknown action 'alow'
$bad:3:12: path 'dock' must start with '/'
$bad:4:13: status must be 400..599, got '200'
$bad:5:15: an sni rule decides a TLS connection"
got=$(grep -oE "^$bad:[0-9]+:[0-9]+: [^;(]*" "$err" | sed -E 's/ +$//; s/: no method.*//')
[[ $got == "$want" ]] || e2e_fail "errors: $(cat "$err")"
[[ $(tail -n 1 "$err") == "fastpath: $bad: 4 errors" ]] || e2e_fail "last line: $(tail -n 1 "$err")"
expect 2 -j proxy check "$bad"
[[ $(grep -o '"line":' "$out" | wc -l) == 4 ]] || e2e_fail "-j errors: $(cat "$out")"
grep -q '"error":' "$out" || e2e_fail "-j: no error member"

expect 1 proxy check "$E2E_TMP/missing.policy"
grep -q missing.policy "$err" || e2e_fail "unreadable: $(cat "$err")"
expect 2 proxy check
expect 2 proxy check a b
expect 2 proxy nosuchverb
e2e_pass "check: good, bad (4 errors with LINE:COL), JSON, stdin, usage"
