#!/usr/bin/env bash
# A build only builds: `scripts/deps.sh build` (what `make` runs) installs at
# most the build packages, mounts nothing and touches no service; every job's
# group is known and a wrong one is a usage error. The system's commands that
# would change the machine are replaced by recorders on PATH, so a call to any
# of them is seen, not made.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rec=$E2E_TMP/calls
mkdir -p "$E2E_TMP/bin"
for c in mount systemctl service apt-get umount; do
	printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$c" "$rec" >"$E2E_TMP/bin/$c"
	chmod +x "$E2E_TMP/bin/$c"
done
# dpkg-query says every package is missing, so the script shows what it would install.
printf '#!/bin/sh\nexit 1\n' >"$E2E_TMP/bin/dpkg-query"
printf '#!/bin/sh\ncat >/dev/null\n' >"$E2E_TMP/bin/debconf-set-selections"
chmod +x "$E2E_TMP/bin/dpkg-query" "$E2E_TMP/bin/debconf-set-selections"

deps() { PATH="$E2E_TMP/bin:$PATH" bash "$E2E_REPO/scripts/deps.sh" "$@"; }

: >"$rec"
deps build 2>"$E2E_TMP/err" || e2e_fail "deps.sh build failed: $(cat "$E2E_TMP/err")"
grep -q '^mount\|^umount\|^systemctl\|^service' "$rec" && e2e_fail "deps.sh build changed the machine: $(cat "$rec")"
installed=$(sed -n 's/^apt-get install .*--no-install-recommends //p' "$rec")
[[ -n $installed ]] || e2e_fail "deps.sh build installed nothing with every package missing: $(cat "$rec")"
for p in prometheus tshark nftables xdp-tools python3-scapy libcmocka-dev tcpdump; do
	[[ " $installed " == *" $p "* ]] && e2e_fail "deps.sh build installs $p, which only tests, bench or demo need"
done
for p in clang bpftool libbpf-dev libpcap-dev libjansson-dev libmicrohttpd-dev; do
	[[ " $installed " == *" $p "* ]] || e2e_fail "deps.sh build does not install $p (installed: $installed)"
done
e2e_log "ok: build installs only: $installed"

: >"$rec"
deps test 2>/dev/null || e2e_fail "deps.sh test failed"
grep -q '^mount\|^systemctl\|^service' "$rec" && e2e_fail "deps.sh test changed the machine: $(cat "$rec")"
grep -q ' prometheus' "$rec" || e2e_fail "deps.sh test does not install prometheus"

rc=0; deps bogus 2>"$E2E_TMP/err" || rc=$?
[[ $rc == 2 ]] || e2e_fail "deps.sh bogus: exit $rc, expected 2"
grep -q "unknown group 'bogus'" "$E2E_TMP/err" || e2e_fail "deps.sh bogus: no clear error: $(cat "$E2E_TMP/err")"

# make's build target asks for the build group only.
plan=$(make -C "$E2E_REPO" -n BUILD="$E2E_TMP/build" all 2>&1 | grep 'deps.sh' || true)
[[ $plan == *"deps.sh build"* && $plan != *"deps.sh test"* && $plan != *"deps.sh demo"* ]] ||
	e2e_fail "make all runs: $plan"
e2e_pass
