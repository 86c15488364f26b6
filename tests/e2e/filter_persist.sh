#!/usr/bin/env bash
# What an operator needs to run the filter for years, on a veth in a
# namespace: `filter save` writes back a file that applies to the same set
# (ids, order, comments, default) and that another interface can load;
# `apply --dry-run` shows rules added, removed, changed and moved and changes
# nothing; `apply --load` brings an interface to its set from any state and
# a second run changes nothing; every change (load, apply, add, del, unload)
# reaches syslog with what changed, the uid and the time it took (a private
# /dev/log in a mount namespace of the test's own), and -v prints the same
# line; the shipped systemd units verify and their commands work; the bash
# completion offers verbs, interfaces and rule ids.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3 unshare
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3

ns=$(e2e_name n); peer=$(e2e_name p); v1=$(e2e_name v1); v2=$(e2e_name v2); w2=$(e2e_name w2)
e2e_netns_add "$ns"; e2e_netns_add "$peer"
e2e_veth "$ns" "$v1" "$peer" "$v2" 10.213.0.1 10.213.0.2
T=$E2E_TMP out=$E2E_TMP/out err=$E2E_TMP/err
# rules in a file (lines that are neither blank, comment nor default)
nrules() { grep -cvE '^[[:space:]]*(#|$|default )' "$1"; }
NEX=$(nrules "$E2E_REPO/examples/ddos.rules")
check() { e2e_check "$@"; } # check DESCRIPTION CMD...
# fp ARGS...: fastpath in the namespace; stdout in $out, stderr in $err; exit code returned.
fp() { local rc=0; ip netns exec "$ns" "$FASTPATH" "$@" >"$out" 2>"$err" </dev/null || rc=$?; return $rc; }
must() { fp "$@" || { cat "$out" "$err" >&2; e2e_fail "fastpath $*: exit $?"; }; }
j() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$out" "$1"; }
listing() { # the live rules of IFACE as "id|rule" lines
	ip netns exec "$ns" "$FASTPATH" -j filter list "$1" |
		"$PY" -c 'import json,sys; [print("%s|%s" % (r["id"], r["rule"])) for r in json.load(sys.stdin)]'
}

# ---- apply --load: loads from nothing, then finds everything in place -------------
if fp filter apply "$v1" "$E2E_REPO/examples/ddos.rules"; then
	e2e_fail "apply without --load on an unloaded interface succeeded"
fi
check "apply on an unloaded interface says how (--load)" grep -q -- '--load' "$err"
fp filter apply --mode skb "$v1" "$E2E_REPO/examples/ddos.rules" && e2e_fail "--mode without --load taken"
check "--mode without --load is a usage error" grep -q 'add --load' "$err"
must -j filter apply --load "$v1" "$E2E_REPO/examples/ddos.rules"
check "apply --load loaded (generation 1, load_ms)" test "$(j "d['generation'], 'load_ms' in d")" == "(1, True)"
must -j filter apply --load "$v1" "$E2E_REPO/examples/ddos.rules"
check "a second apply --load changes nothing" test "$(j "d['generation'], d['changed']")" == "(1, False)"

# ---- save: the running set as a file that applies to the same set -----------------
must filter add "$v1" --at 2 drop udp dport 4444 id added-live '"during the attack"'
must filter save "$v1" "$T/saved.rules"
check "save reports the file and the rules" grep -q "^rules: *$((NEX + 1))$" "$out"
must rules check "$T/saved.rules"
check "the saved file checks clean" true
must -j filter apply "$v1" "$T/saved.rules"
check "applying the saved file changes nothing" test "$(j "d['changed']")" == False
ip -n "$ns" link add "$w2" type veth peer name "${w2}x" && e2e_defer ip -n "$ns" link del "$w2"
ip -n "$ns" link set "$w2" up
must filter load "$w2" "$T/saved.rules"
check "another interface loaded from the saved file has the same rules, ids and order" \
	test "$(listing "$w2")" == "$(listing "$v1")"
must filter unload "$w2"
sed -i 's/^default pass$/default drop/' "$T/saved.rules"
must -j filter apply --dry-run "$v1" "$T/saved.rules"
check "dry-run: the default's change is shown" test "$(j "d['default_changed'], d['default']")" == "(True, 'drop')"
ip netns exec "$ns" "$FASTPATH" filter save "$v1" "$T/saved.rules"
check "save replaced the file (default pass again)" grep -q '^default pass$' "$T/saved.rules"
check "save left no temporary file beside it" test "$(ls "$T" | grep -c 'saved.rules.')" -eq 0
fp filter save "$v1" "$T/no/such/dir/x.rules" && e2e_fail "save into a missing directory succeeded"
check "save into a missing directory names the file" grep -q 'no/such/dir/x.rules' "$err"

# ---- dry-run: added, removed, changed, moved; nothing changes -------------------------
gen=$(ip netns exec "$ns" "$FASTPATH" -j status "$v1" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)[0]["generation"])')
grep -v '^#' "$T/saved.rules" | grep -v 'id dns-any ' | sed 's/dport 8000 id web/dport 8080 id web/' >"$T/edit.rules"
# move syn-flood to the top (after the default line), add one rule
{ grep '^default' "$T/edit.rules"; grep 'id syn-flood ' "$T/edit.rules"
  grep -v '^default' "$T/edit.rules" | grep -v 'id syn-flood '; echo 'drop tcp dport 23 id telnet'; } >"$T/edit2.rules"
before=$(listing "$v1")
must -j filter apply --dry-run "$v1" "$T/edit2.rules"
check "dry-run counts: 1 added, 1 removed, 1 modified, 1 moved" \
	test "$(j "d['added'], d['removed'], d['modified'], d['moved'], d['changed']")" == "(1, 1, 1, 1, True)"
check "dry-run names each change" test "$(j "sorted((c['change'], c['id']) for c in d['changes'])")" == \
	"[('added', 'telnet'), ('changed', 'web'), ('moved', 'syn-flood'), ('removed', 'dns-any')]"
check "dry-run: the changed rule shows what it was" \
	test "$(j "[c['was'] for c in d['changes'] if c['id']=='web'][0]")" == 'pass tcp dport 8000 id web "HTTP"'
check "dry-run changed nothing" test "$(listing "$v1")" == "$before"
must filter apply --dry-run "$v1" "$T/edit2.rules"
check "dry-run text is a table of changes" grep -q '^moved  *syn-flood' "$out"

# ---- audit: syslog and -v --------------------------------------------------------------
# A private /dev (tmpfs) in a mount namespace of this test: a listener takes
# the datagrams syslog(3) sends to /dev/log. Nothing of the machine's changes.
cat >"$T/audit.sh" <<EOS
set -eu
mount -t tmpfs -o size=1m,mode=755 fpaudit /dev
mknod -m 666 /dev/null c 1 3
$PY -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind("/dev/log"); s.settimeout(20)
open("$T/listening", "w").close()
with open("$T/syslog", "ab", buffering=0) as f:
    while True:
        try: f.write(s.recv(8192) + b"\n")
        except socket.timeout: break
' &
lp=\$!
for i in \$(seq 50); do [ -e $T/listening ] && break; sleep 0.1; done
F="ip netns exec $ns $FASTPATH"
\$F filter apply $v1 $T/edit2.rules >/dev/null
\$F filter apply $v1 $T/edit2.rules >/dev/null
\$F filter add $v1 drop udp dport 7 id seven >/dev/null
\$F filter del $v1 seven >/dev/null
\$F filter apply $v1 $T/nosuch.rules >/dev/null 2>&1 || true
\$F filter unload $v1 >/dev/null
\$F filter load $v1 $T/edit2.rules >/dev/null
sleep 0.3
kill \$lp
EOS
unshare --mount --propagation private bash "$T/audit.sh" || e2e_fail "the audit run failed"
log=$(tr -d '\000' <"$T/syslog" 2>/dev/null || true)
e2e_log "syslog got: $(printf '%s' "$log" | head -c 1500)"
has() { grep -q -- "$1" <<<"$log"; }
check "syslog: tagged fastpath, facility authpriv (priority <85> notice)" has '^<85>.* fastpath\[[0-9]*\]: '
check "syslog: apply with generation, rule ids and time" \
	has "filter apply $v1 from $T/edit2.rules by uid 0: generation $gen -> $((gen + 1)), added 1 (telnet), removed 1 (dns-any), changed 1 (web), moved 1 (syn-flood); [0-9]* ms"
check "syslog: the second apply found no change" has "filter apply $v1 from $T/edit2.rules by uid 0: no change"
check "syslog: add and del" bash -c "grep -q 'filter add $v1 by uid 0: generation .* added 1 (seven)' <<<\"\$1\" && grep -q 'filter del $v1 by uid 0: .* removed 1 (seven)' <<<\"\$1\"" _ "$log"
check "syslog: unload and load" bash -c "grep -q 'filter unload $v1 by uid 0: detached' <<<\"\$1\" && grep -q 'filter load $v1 from .* generation 0 -> 1, added $(nrules "$T/edit2.rules") ' <<<\"\$1\"" _ "$log"
must -v filter add "$v1" drop udp dport 8 id eight
check "-v prints the audit line on the terminal" grep -q "^fastpath: audit: filter add $v1 by uid 0: generation .* added 1 (eight)" "$err"
must filter add "$v1" drop udp dport 9 id nine
check "without -v, no audit line on the terminal" test ! -s "$err"

# ---- systemd units: they verify, and their commands do what they say -----------------
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$T/units"
	for u in fastpath@.service fastpath-exporter.service; do
		sed "s#/usr/local/sbin/fastpath#$FASTPATH#g" "$E2E_REPO/systemd/$u" >"$T/units/$u"
	done
	cp "$T/units/fastpath@.service" "$T/units/fastpath@$v1.service"
	(cd "$T/units" && systemd-analyze verify --man=no "./fastpath@$v1.service" ./fastpath-exporter.service) \
		>"$T/verify" 2>&1 || true
	check "systemd-analyze verify: no complaint ($(head -c 300 "$T/verify"))" test ! -s "$T/verify"
else
	e2e_log "no systemd-analyze: unit files not verified"
fi
# the unit's ExecStart, ExecReload and ExecStop lines, with %I = the interface
unitcmd() { sed -n "s/^$1=//p" "$E2E_REPO/systemd/fastpath@.service" |
	sed "s#/usr/local/sbin/fastpath#$FASTPATH#; s#/etc/fastpath/%I.rules#$T/unit.rules#; s#%I#$v1#g; s#\\\$FASTPATH_LOAD_OPTS##"; }
cp "$E2E_REPO/examples/ddos.rules" "$T/unit.rules"
ip netns exec "$ns" "$FASTPATH" filter unload "$v1" >/dev/null
# shellcheck disable=SC2046
ip netns exec "$ns" $(unitcmd ExecStart) >/dev/null || e2e_fail "ExecStart failed: $(unitcmd ExecStart)"
check "ExecStart loaded the saved set" test "$(listing "$v1" | wc -l)" -eq $((NEX + 1))
echo 'drop tcp dport 25 id smtp' >>"$T/unit.rules"
# shellcheck disable=SC2046
ip netns exec "$ns" $(unitcmd ExecReload) >/dev/null || e2e_fail "ExecReload failed"
check "ExecReload applied the edited file" \
	bash -c "ip netns exec $ns $FASTPATH -j filter list $v1 | grep -q '\"smtp\"'"
# shellcheck disable=SC2046
ip netns exec "$ns" $(unitcmd ExecStop) >/dev/null || e2e_fail "ExecStop failed"
check "ExecStop unloaded" bash -c "! ip netns exec $ns $FASTPATH filter list $v1 >/dev/null 2>&1"

# ---- bash completion ---------------------------------------------------------------
must filter load "$v1" "$E2E_REPO/examples/ddos.rules"
comp() { ip netns exec "$ns" env PATH="$(dirname "$FASTPATH"):$PATH" bash -c '
	source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
	_fastpath; echo "${COMPREPLY[*]}"' _ "$E2E_REPO/completion/fastpath.bash" "$@"; }
check "completion: objects" test "$(comp fastpath fi)" == filter
check "completion: verbs of filter include save" bash -c "[[ ' $(comp fastpath filter '') ' == *' save '* ]]"
check "completion: interfaces with fastpath loaded" test "$(comp "$(basename "$FASTPATH")" filter del '')" == "$v1"
check "completion: rule ids" test "$(comp fastpath filter del "$v1" dns-w)" == "dns-www dns-water-torture"

e2e_done
