#!/usr/bin/env bash
# The fastpath command line: exit codes 0/1/2, help of every object lists
# every verb of its table (and each verb answers --help), -j errors are JSON
# on stdout, prefixes and global options after the verb.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

out=$E2E_TMP/out err=$E2E_TMP/err

# expect CODE ARGS...: runs fastpath ARGS, stdout in $out, stderr in $err.
expect() {
	local want=$1 rc=0; shift
	"$FASTPATH" "$@" >"$out" 2>"$err" </dev/null || rc=$?
	if (( rc != want )); then
		e2e_log "fastpath $*: exit $rc, expected $want"
		sed 's/^/    out| /' "$out" >&2; sed 's/^/    err| /' "$err" >&2
		E2E_FAILS=$((E2E_FAILS + 1))
		return 1
	fi
}

check() { # check DESCRIPTION CMD...: counts a failure unless CMD succeeds
	local what=$1; shift
	if ! "$@"; then
		e2e_log "not true: $what"
		E2E_FAILS=$((E2E_FAILS + 1))
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
expect 0 -j --version && check "-j --version is JSON" json_has version
expect 0 --version -j && check "--version -j is JSON too" json_has libbpf
expect 2 -j --version=3 && check "-j --version=3: a JSON error naming --version" \
	python3 -c "import json,sys; sys.exit(\"'--version' takes no value\" not in json.load(open('$out'))['error'])"
expect 2 --version=3 && check "--version=3 names the option, not '-V'" grep -q "option '--version' takes no value" "$err"
for a in "nosuchtype" "dns -- ''" "-o abc dns -- a.com" "rules $E2E_TMP/nosuch.rules" ""; do
	rc=0; eval "\"\$FASTPATH\" -j bpfgen $a" >"$out" 2>"$err" </dev/null || rc=$?
	check "-j bpfgen $a: exit $rc, a JSON error on stdout, nothing on stderr" \
		bash -c "[[ $rc != 0 ]] && python3 -c \"import json; json.load(open('$out'))['error']\" && test ! -s '$err'"
done
for w in "stats nosuchif0 --watch 0" "stats --watch 0 nosuchif0" "filter stats nosuchif0 --watch 0"; do
	expect 2 $w && check "$w: says the interval must be > 0" grep -q -- "--watch takes seconds (0 < S <= 3600), not '0'" "$err"
done
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
expect 0 rules check "$good" && check "without -v: nothing on stderr" test ! -s "$err"
expect 0 -v rules check "$good"
check "-v: the steps with their times" bash -c "grep -q 'good.rules: [0-9]* bytes read, 2 rules parsed in [0-9.]* ms' '$err' &&
	grep -q 'compiled as filter apply would in [0-9.]* ms: accepted' '$err' &&
	grep -q 'searched 2 rules for shadowed ones in [0-9.]* ms: 0 found' '$err'"
expect 0 rules check -v "$good" && check "-v after the verb too" grep -q 'rules parsed' "$err"
# ids that outputs use for the default verdict's row and for "no value" are refused
printf 'drop udp dport 9\ndrop tcp id default\npass id - "x"\n' >"$E2E_TMP/reserved.rules"
expect 2 rules check "$E2E_TMP/reserved.rules"
check "id default: refused at FILE:2:13" grep -q "reserved.rules:2:13: rule id 'default' is reserved" "$err"
check "id -: refused at FILE:3:9" grep -q "reserved.rules:3:9: rule id '-' is reserved" "$err"
expect 0 -p rules show "$good" && check "-p is JSON" json_has default pass

# ---- --bpffs: no verb creates a directory unless it loads something -----------
for verb in status "filter list nosuchif0" "filter unload nosuchif0" "stats nosuchif0" \
	    "filter add nosuchif0 drop udp" "filter apply nosuchif0 $good"; do
	"$FASTPATH" --bpffs "$E2E_TMP/nobpffs/root" $verb >"$out" 2>"$err" </dev/null || true
	check "--bpffs DIR: $verb creates nothing" test ! -e "$E2E_TMP/nobpffs"
done

# ---- rules check enforces what apply enforces; one size limit for every reader ----
python3 -c "
for i in range(20000): print('drop udp dport %d' % (i % 65535 + 1))" >"$E2E_TMP/20k.rules"
expect 2 rules check "$E2E_TMP/20k.rules" &&
	check "20,000 rules: refused at the 16,385th" grep -q "20k.rules:16385:1: rule 16385: a rule set holds at most 16384 rules" "$err"
python3 -c "
import itertools
fs = ['sport 1', 'dport 2', 'src 10.0.0.0/8', 'dst 10.0.0.0/8', 'ttl 3', 'len 40', 'vlan 4', 'qname a.com', 'qtype A']
for k in range(10):
    for c in itertools.combinations(fs, k):
        print('drop udp ' + ' '.join(c))" >"$E2E_TMP/shapes.rules"
expect 2 rules check "$E2E_TMP/shapes.rules" &&
	check "257 term shapes: the compiler's refusal" grep -q "shapes.rules: rule '257' (line 257) makes a 257th distinct combination of terms; the filter takes at most 256" "$err"
expect 2 -j rules check "$E2E_TMP/shapes.rules" && check "... as JSON" json_has error
expect 0 -j rules check "$good" && check "-j check says the table bits it needs" json_has table_bits 18
# rules an earlier rule covers: warnings, exit 0; near misses: nothing
printf 'drop udp dport 9\ndrop ip6 udp dport 9\nlimit 5/s src 10.0.0.0/8\ndrop tcp src 10.1.2.0/24 id lab\ndrop udp dport 9-10\ndrop udp qname *.example.com\ndrop udp qname example.com\n' >"$E2E_TMP/shadow.rules"
expect 0 rules check "$E2E_TMP/shadow.rules" && check "check still prints the count" grep -q "7 rules, default pass" "$out"
check "shadowed: ip6 udp dport 9 behind udp dport 9" grep -qx "$E2E_TMP/shadow.rules:2:1: warning: rule '2' can never match: rule '1' (line 1) before it matches every packet it does" "$err"
check "shadowed: a /24 behind a limit on its /8" grep -q "shadow.rules:4:1: warning: rule 'lab' can never match: rule '3' (line 3)" "$err"
check "exactly the two shadowed rules warn (not dport 9-10, not example.com)" test "$(grep -c warning "$err")" -eq 2
expect 0 -j rules check "$E2E_TMP/shadow.rules" && check "-j: the warnings as a list" \
	python3 -c "import json,sys; d=json.load(open('$out')); sys.exit(not [w['line'] for w in d['warnings']] == [2, 4])"
truncate -s 40M "$E2E_TMP/big.rules"   # over the limit: refused by its size, unread
for verb in "rules check" "rules show" "filter test" "filter apply nosuchif0" "bpfgen rules"; do
	args=($verb "$E2E_TMP/big.rules")
	[[ $verb == "filter test" ]] && args+=(/dev/null)
	rc=0; /usr/bin/time -f %M -o "$E2E_TMP/rss" "$FASTPATH" "${args[@]}" >"$out" 2>"$err" </dev/null || rc=$?
	check "$verb of a 40 MiB file: exit 1, says the limit (exit $rc: $(tail -n 1 "$err"))" \
		bash -c "[[ $rc == 1 ]] && grep -q 'larger than 32 MiB, the limit of a rule file' '$err'"
	rss=$(tail -n 1 "$E2E_TMP/rss")
	check "$verb of a 40 MiB file: refused before reading it ($rss KB)" \
		test "$rss" -lt 30000
done
mkdir -p "$E2E_TMP/dir.rules"
expect 1 rules check "$E2E_TMP/dir.rules" && check "a directory: says so" grep -q 'Is a directory' "$err"
expect 1 filter apply nosuchif0 "$E2E_TMP/dir.rules" && check "filter apply IFACE DIR: says it is a directory" \
	grep -q 'dir.rules: Is a directory' "$err"

# ---- man pages: references resolve, the rule model's page, the drop-rate query --
man=$E2E_REPO/docs/man
for ref in $(grep -ho 'fastpath-[a-z]* *([78])' "$man"/*.[78] | tr -d ' ' | sort -u); do
	page=${ref%(*}; sec=${ref#*(}; sec=${sec%)}
	check "man reference $ref has a page" test -f "$man/$page.$sec"
done
check "fastpath(8) sends the rule model to fastpath-rules(7)" \
	bash -c "grep -A1 'One rule model' '$man/fastpath.8' | grep -q 'fastpath-rules (7)'"
check "the exporter's drop-rate example uses the drops counter" \
	bash -c "grep -A1 'drop rate' '$man/fastpath-exporter.8' | grep -q 'rate(fastpath_rule_drops_total'"

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

# ---- numbers are digits: strtoull alone would take -1 as 2^64-1 -------------
for n in -1 ' 5' +5 0x10 ''; do
	expect 2 dump lo -w - --count "$n" && check "dump --count '$n' refused" \
		grep -q -- "--count takes a number from 1, not '$n'" "$err"
	expect 2 capture lo --match udp -w - --count "$n" && check "capture --count '$n' refused" \
		grep -q -- "--count takes a number from 1, not '$n'" "$err"
done
expect 2 forward lo lo --match udp --duration -1 && check "forward --duration -1 refused" \
	grep -q -- "--duration takes seconds from 1, not '-1'" "$err"
expect 2 inject lo -r /dev/null --pps -5 && check "inject --pps -5 refused" grep -q -- "--pps" "$err"
expect 2 capture lo --match udp -w --count && check "capture -w --count: a forgotten FILE" \
	grep -q -- "-w '--count': give FILE" "$err"

e2e_done
