#!/usr/bin/env bash
# The fastpath command line: exit codes 0/1/2, help of every object lists
# every verb of its table (and each verb answers --help), -j errors are JSON
# on stdout, prefixes and global options after the verb.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

out=$E2E_TMP/out err=$E2E_TMP/err
fails=0

# expect CODE ARGS...: runs fastpath ARGS, stdout in $out, stderr in $err.
expect() {
	local want=$1 rc=0; shift
	"$FASTPATH" "$@" >"$out" 2>"$err" </dev/null || rc=$?
	if (( rc != want )); then
		e2e_log "fastpath $*: exit $rc, expected $want"
		sed 's/^/    out| /' "$out" >&2; sed 's/^/    err| /' "$err" >&2
		fails=$((fails + 1))
		return 1
	fi
}

check() { # check DESCRIPTION CMD...: counts a failure unless CMD succeeds
	local what=$1; shift
	if ! "$@"; then
		e2e_log "not true: $what"
		fails=$((fails + 1))
	fi
}

# json_has KEY [VALUE]: stdout is exactly one JSON document with KEY (== VALUE).
json_has() {
	python3 - "$out" "$@" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
key = sys.argv[2]
ok = isinstance(doc, dict) and key in doc
if ok and len(sys.argv) > 3:
    ok = str(doc[key]) == sys.argv[3]
sys.exit(0 if ok else 1)
EOF
}

# ---- top level ----------------------------------------------------------
expect 0 help && check "help shows the grammar" grep -q 'OBJECT := {' "$out"
expect 0 --help
expect 0 -h
expect 0 -V && check "-V prints a version" grep -q '^fastpath ' "$out"
expect 2 && check "no object: help on stderr" grep -q 'Usage:' "$err"
expect 2 nosuchobject && check "unknown object lists valid ones" grep -q 'valid objects: .*rules' "$err"
expect 2 -j nosuchobject && check "-j usage error is JSON" json_has error
expect 2 --nosuchoption
expect 2 --bpffs
check "nothing on stdout for a text usage error" test ! -s "$out"

# ---- every object: help lists every verb; each verb answers --help -----
objects=$("$FASTPATH" help | sed -n 's/.*OBJECT := {\(.*\)}.*/\1/p' | tr -d '|')
[[ -n $objects ]] || e2e_fail "no objects in 'fastpath help'"
for ob in $objects; do
	expect 0 "$ob" --help || continue
	cp "$out" "$E2E_TMP/help.$ob"
	grammar=$(sed -n "s/^Usage: fastpath \[OPTIONS\] $ob { \(.*\) }\$/\1/p" "$E2E_TMP/help.$ob")
	if [[ -z $grammar ]]; then
		# an object without verbs teaches its options in its own help: each
		# --option of the synopsis again below it, and where the man page is
		for o in $(head -n 1 "$E2E_TMP/help.$ob" | grep -oE -- '--[a-z0-9-]+' | sort -u); do
			check "$ob --help explains $o" test "$(grep -oE -- "(^|[^-a-z0-9])$o([^-a-z0-9]|\$)" \
				"$E2E_TMP/help.$ob" | wc -l)" -ge 2
		done
		check "$ob --help points to its man page" \
			bash -c "grep -qE 'man fastpath-$ob\$|fastpath-$ob\(8\)' '$E2E_TMP/help.$ob' &&
				test -f '$E2E_REPO/docs/man/fastpath-$ob.8'"
		e2e_log "$ob: no verb table (own help), --help exits 0"
		continue
	fi
	expect 0 "$ob" help && check "$ob help == $ob --help" cmp -s "$out" "$E2E_TMP/help.$ob"
	verbs=$(tr -d '|' <<<"$grammar")
	for v in $verbs; do
		[[ $v == help ]] && continue
		check "$ob help has a synopsis line for $v" \
			grep -qE "^ +fastpath \[OPTIONS\] $ob $v( |\$)" "$E2E_TMP/help.$ob"
		check "$ob help describes $v" grep -qE "^ +$v  " "$E2E_TMP/help.$ob"
		expect 0 "$ob" "$v" --help &&
			check "$ob $v --help" grep -q "^Usage: fastpath \[OPTIONS\] $ob $v" "$out"
	done
	expect 2 "$ob" nosuchverb && check "$ob: unknown verb lists valid ones" grep -q 'valid verbs' "$err"
	expect 2 -j "$ob" nosuchverb && check "$ob: -j unknown verb is JSON" json_has error
	expect 2 "$ob" && check "$ob without a verb prints help" grep -q Usage: "$err"
	e2e_log "$ob: $(wc -w <<<"$verbs") verbs checked"
done

# ---- rules: exit codes 0 / 1 / 2, JSON, prefixes --------------------------
good=$E2E_TMP/good.rules bad=$E2E_TMP/bad.rules
printf '# two rules\ndrop udp dport 53\npass src 192.0.2.0/24 id office\n' >"$good"
printf 'drop udp\nfrobnicate 3\ndrop tcp dport nope\n' >"$bad"

expect 0 rules check "$good" && check "check says 2 rules" grep -q "2 rules, default pass" "$out"
expect 0 ru ch "$good"
expect 0 rules check "$good" -j && check "-j after the verb" json_has rules 2
"$FASTPATH" -j rules check - <"$good" >"$out" && check "stdin" json_has file "<stdin>"
expect 2 rules check "$bad" && check "errors as FILE:LINE:COL" grep -qE "^$bad:2:[0-9]+: " "$err"
check "every error reported" test "$(grep -cE "^$bad:[0-9]+:[0-9]+: " "$err")" -ge 2
check "check ends with the count of errors" test "$(tail -n 1 "$err")" = "fastpath: $bad: 2 errors"
expect 2 filter test "$bad" /dev/null
check "a verb that uses the file says it changed nothing" \
	test "$(tail -n 1 "$err")" = "fastpath: $bad: 2 errors; nothing was changed"
expect 2 -j rules check "$bad" && check "-j check with errors is JSON" json_has error
expect 1 rules check "$E2E_TMP/missing.rules" && check "says what failed" grep -q "missing.rules" "$err"
expect 1 -j rules check "$E2E_TMP/missing.rules" && check "-j runtime error is JSON" json_has error
check "-j runtime error: nothing on stderr" test ! -s "$err"
expect 2 rules check
expect 2 -j rules check && check "-j missing argument is JSON" json_has error
expect 2 rules check a b
expect 0 rules show "$good" && check "show lists the office rule" grep -q office "$out"
expect 0 -p rules show "$good" && check "-p is JSON" json_has default pass

# ---- exporter --listen: bad values are usage errors, before any bind ---------
# (bounded: an exporter that took one would serve until killed)
for l in 127.0.0.1:99999 127.0.0.1:-1 127.0.0.1:abc 127.0.0.1: '[::1]9100' localhost:9100; do
	rc=0
	timeout 5 "$FASTPATH" exporter --listen "$l" >"$out" 2>"$err" </dev/null || rc=$?
	check "exporter --listen '$l' is refused (exit 2) with the form" \
		bash -c "[[ $rc == 2 ]] && grep -q 'port 0..65535' '$err'"
done

# ---- dump: an option without its value is named, not "unknown" --------------
expect 2 dump lo -w && check "dump -w without FILE says so" grep -q -- '-w needs FILE, or - for stdout' "$err"
expect 2 -j dump lo --write && check "dump --write without FILE, -j" json_has error
check "dump --write without FILE, -j: the message" grep -q -- '-w needs FILE' "$out"
expect 2 dump lo -w --drops && check "dump -w --drops: a forgotten FILE" grep -q -- "-w '--drops': give FILE" "$err"
expect 2 dump lo --count && check "dump --count without N" grep -q -- "option '--count' needs an argument" "$err"
expect 2 dump lo --bogus && check "dump: the unknown option named" grep -q -- "unknown option '--bogus'" "$err"

(( fails == 0 )) || e2e_fail "$fails checks failed"
e2e_pass
