#!/usr/bin/env bash
# `fastpath bpfgen` command line, as Cloudflare's bpfgen's: options before
# or after TYPE, generator options after `--`, output on stdout, exit codes
# 0 (ok, help), 2 (usage errors, also where the reference crashed), the
# xt_bpf 64-instruction warning on stderr. No root needed.
set -uo pipefail
FASTPATH=${FASTPATH:-$(cd "$(dirname "$0")/../.." && pwd)/build/fastpath}
[[ -x $FASTPATH ]] || { echo "FAIL: no binary at $FASTPATH; run make"; exit 1; }
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
fails=0

expect() { # expect CODE ARGS...
	local want=$1 rc=0; shift
	"$FASTPATH" bpfgen "$@" >"$out" 2>"$err" </dev/null || rc=$?
	if (( rc != want )); then
		echo "bpfgen $*: exit $rc, expected $want" >&2
		sed 's/^/    out| /' "$out" >&2; sed 's/^/    err| /' "$err" >&2
		fails=$((fails + 1))
	fi
}
check() { local what=$1; shift; "$@" || { echo "not true: $what" >&2; fails=$((fails + 1)); }; }

expect 0 dns -- '*.example.com'
check "bytecode line" grep -qx '20,177 0 0 0,.*,6 0 0 65535,6 0 0 0,' "$out"
check "no warning under 64" test ! -s "$err"
expect 0 dns '*.example.com'            # no `--` needed without generator options
expect 0 dns -- .                       # the root name (a root-zone query)
check "the root: one compare of the name's 0 byte" grep -qx '8,177 0 0 0,0 0 0 20,12 0 0 0,7 0 0 0,80 0 0 0,21 0 1 0,6 0 0 65535,6 0 0 0,' "$out"
expect 2 dns -- '' && check "an empty pattern is still refused" grep -q 'empty pattern' "$err"
expect 0 dns -s -- example.com          # top-level options after TYPE, as argparse
check "assembly" grep -q '^lb_1:$' "$out"
expect 0 -s -n -o 14 -6 suffix -- 010203
check "negated ret" grep -q 'ret #0$' "$out"
expect 0 --ass --neg --offset=14 suffix -- 01
expect 0 -o14 tcpdump -- udp port 53
expect 0 dns_validate -- --strict
expect 0 p0f -- '4:64:0:*:mss*10,6:mss,sok,ts,nop,ws:df,id+:0'
expect 0 --help
check "help lists the types" grep -q dns_validate "$out"
expect 0 dns -- --help
check "generator help" grep -q 'ignorecase' "$out"
# over 64 instructions: printed, and a warning naming the limit
expect 0 dns -- -i a.com b.com c.com d.com e.com f.com
check "warning" grep -q 'at most 64' "$err"
check "still printed" grep -q '^[0-9]*,' "$out"

expect 2                                  # no TYPE
expect 2 nosuch
expect 2 -x dns -- a.com
expect 2 -o -5 dns -- a.com
expect 2 -o abc dns -- a.com
expect 2 --offset
expect 2 dns                              # no pattern (reference: argparse, 2)
expect 2 dns -- ''                        # reference: IndexError
expect 2 dns -- "$(printf 'a%.0s' {1..300})"   # reference: chr() ValueError
expect 2 dns -- "$(printf 'a%.0s' {1..64}).com"
expect 2 dns -- '*{70-80}.com'
expect 2 dns -i a.com                     # -i before `--` is not a bpfgen option
expect 2 suffix                           # reference: exit 255
expect 2 suffix -- 012                    # reference: AssertionError
expect 2 suffix -- 01zz
expect 2 tcpdump -- 'udp and and'
expect 2 -o 15 tcpdump -- udp             # reference: AssertionError
expect 2 p0f -- '4:64'
expect 2 dns_validate -- --bogus

if (( fails )); then echo "FAIL: $fails checks"; exit 1; fi
echo PASS
