#!/usr/bin/env bash
# Self-test of tests/e2e/lib.sh: two namespaces, a veth with v4 and v6
# addresses, ping both ways, counters move, the private bpffs is visible
# inside `ip netns exec`, and the cleanup leaves nothing behind, whether the
# test passes, fails or is killed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require ping ethtool

a=$(e2e_name a); b=$(e2e_name b)
va=$(e2e_name va); vb=$(e2e_name vb)
e2e_netns_add "$a"
e2e_netns_add "$b"
e2e_veth "$a" "$va" "$b" "$vb" 10.99.1.1 10.99.1.2

[[ $(e2e_ns "$a" ethtool -k "$va" | awk '/^generic-receive-offload:/ {print $2}') == on ]] ||
	e2e_fail "gro is not on at $va"
before=$(e2e_counter "$b" "$vb" rx_packets)
e2e_ns "$a" ping -c 3 -i 0.2 -W 2 10.99.1.2 >/dev/null || e2e_fail "no IPv4 ping $a -> $b"
e2e_ns "$b" ping -c 1 -W 2 fd00:99:1::1 >/dev/null || e2e_fail "no IPv6 ping $b -> $a"
after=$(e2e_counter "$b" "$vb" rx_packets)
(( after >= before + 3 )) || e2e_fail "rx_packets of $vb went $before -> $after, expected +3"

# The private bpffs is what FASTPATH_BPFFS names, also inside a namespace.
[[ $(e2e_ns "$a" stat -f -c %T "$FASTPATH_BPFFS") == bpf_fs ]] ||
	e2e_fail "$FASTPATH_BPFFS is not a bpffs inside $a"

# Background processes and e2e_wait_for.
e2e_bg ip netns exec "$b" sleep 300
pid=$E2E_BG_PID
e2e_wait_for "kill -0 $pid" 2 || e2e_fail "background process $pid did not start"
e2e_wait_for "false" 0.3 && e2e_fail "e2e_wait_for false succeeded"
e2e_kill "$pid"
kill -0 "$pid" 2>/dev/null && e2e_fail "e2e_kill left $pid running"

# Cleanup: a child test makes namespaces, a veth, a background process and
# its bpffs, then ends (1) by e2e_fail, (2) killed by SIGTERM, (3) by
# e2e_pass; afterwards none of it may be left.
child=$E2E_TMP/child.sh
cat >"$child" <<EOF
set -euo pipefail
. "$E2E_REPO/tests/e2e/lib.sh"
x=\$(e2e_name x); y=\$(e2e_name y)
e2e_netns_add "\$x"; e2e_netns_add "\$y"
e2e_veth "\$x" "\$(e2e_name vx)" - "\$(e2e_name vy)" 10.98.1.1 10.98.1.2
e2e_bg ip netns exec "\$x" sleep 300
mkdir -p "\$FASTPATH_BPFFS/eth0"
e2e_defer touch "$E2E_TMP/deferred.\$1"
echo "\$x \$y \$(e2e_name vy) \$E2E_BG_PID \$E2E_TMP" >"$E2E_TMP/state.\$1"
case \$1 in
fail) e2e_fail "on purpose" ;;
term) sleep 300 & wait ;;
pass) e2e_pass ;;
esac
EOF

for how in fail term pass; do
	rm -f "$E2E_TMP/state.$how"
	bash "$child" "$how" 2>"$E2E_TMP/child.$how.log" &
	cpid=$!
	if [[ $how == term ]]; then
		e2e_wait_for "test -s $E2E_TMP/state.$how" 20 || e2e_fail "child ($how) did not start"
		kill -TERM "$cpid"
	fi
	rc=0
	wait "$cpid" || rc=$?
	case $how in
	fail) want=1 ;; term) want=130 ;; pass) want=0 ;;
	esac
	(( rc == want )) || e2e_fail "child ($how) exited $rc, expected $want: $(cat "$E2E_TMP/child.$how.log")"
	read -r x y vy bgpid tmp <"$E2E_TMP/state.$how" || e2e_fail "child ($how) left no state"
	ip netns list | grep -qw -e "$x" -e "$y" && e2e_fail "child ($how) left a namespace"
	ip link show "$vy" >/dev/null 2>&1 && e2e_fail "child ($how) left link $vy"
	kill -0 "$bgpid" 2>/dev/null && e2e_fail "child ($how) left process $bgpid"
	[[ -e $tmp ]] && e2e_fail "child ($how) left $tmp"
	grep -q " $tmp/bpffs " /proc/mounts && e2e_fail "child ($how) left the bpffs mounted"
	[[ -e $E2E_TMP/deferred.$how ]] || e2e_fail "child ($how) did not run its deferred command"
	e2e_log "cleanup after $how: nothing left"
done

e2e_pass
