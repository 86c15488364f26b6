#!/usr/bin/env bash
# Kernel memory of the filter on N interfaces, each with its own rule set
# and all in one share (`filter load IFACE --share NAME`): the memlock
# (bytes_memlock of bpftool) of every distinct map pinned under a private
# bpffs, after loading examples/ddos.rules on N veths in a private
# namespace. Not part of `make bench`.
#
#   bench/share_memory.sh [N...]        (default: 1 2 4)
#
# Prints one line per N and mode: maps, MiB.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FP=$REPO/build/fastpath
RULES=$REPO/examples/ddos.rules
[[ $(id -u) == 0 ]] || { echo "run as root" >&2; exit 77; }
command -v bpftool >/dev/null || { echo "needs bpftool" >&2; exit 77; }
[[ -x $FP ]] || { echo "no $FP; run make" >&2; exit 1; }
TMP=$(mktemp -d)
NS=fpmem$$
cleanup() {
	ip netns del "$NS" 2>/dev/null
	umount "$TMP/bpffs" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

# memlock ROOT: "MAPS MIB" of the distinct maps pinned under ROOT.
memlock() {
	python3 - "$1" <<'PY'
import json, os, subprocess, sys
ids = {}
for d, _, files in os.walk(sys.argv[1]):
    for f in files:
        r = subprocess.run(['bpftool', '-j', 'map', 'show', 'pinned', os.path.join(d, f)],
                           capture_output=True, text=True)
        if r.returncode == 0:
            m = json.loads(r.stdout)
            ids[m['id']] = m.get('bytes_memlock', 0)
print(len(ids), '%.1f' % (sum(ids.values()) / 2**20))
PY
}

sizes=("$@")
[[ ${#sizes[@]} == 0 ]] && sizes=(1 2 4)
for n1 in "${sizes[@]}"; do
	for mode in own share; do
		mkdir -p "$TMP/bpffs" && mount -t bpf bpf "$TMP/bpffs" || exit 1
		ip netns add "$NS" || exit 1
		for i in $(seq "$n1"); do
			ip -n "$NS" link add "m$i" type veth peer name "p$i"
			ip -n "$NS" link set "m$i" up
			ip -n "$NS" link set "p$i" up
			opt=(); [[ $mode == share ]] && opt=(--share bench)
			ip netns exec "$NS" "$FP" --bpffs "$TMP/bpffs" filter load "m$i" "${opt[@]}" \
				"$RULES" >/dev/null || { echo "load m$i failed" >&2; exit 1; }
		done
		read -r maps mib < <(memlock "$TMP/bpffs")
		printf '%d interface(s), %-5s: %3d maps, %7.1f MiB\n' "$n1" "$mode" "$maps" "$mib"
		for i in $(seq "$n1"); do
			ip netns exec "$NS" "$FP" --bpffs "$TMP/bpffs" filter unload "m$i" >/dev/null
		done
		ip netns del "$NS"
		umount "$TMP/bpffs"
	done
done
