# shellcheck shell=bash
# Shared helpers for the namespace tests in tests/e2e/*.sh. Source it first:
#
#   . "$(dirname "$0")/lib.sh"
#   ns1=$(e2e_name a); ns2=$(e2e_name b)
#   e2e_netns_add "$ns1"; e2e_netns_add "$ns2"
#   e2e_veth "$ns1" "$(e2e_name v1)" "$ns2" "$(e2e_name v2)" 10.0.1.1 10.0.1.2
#   e2e_bg ip netns exec "$ns2" some-server       # killed by the cleanup
#   e2e_wait_for "ip netns exec $ns1 ping -c1 -W1 10.0.1.2" 5 || e2e_fail "no ping"
#   e2e_pass
#
# Sourcing it: skips (exit 77) unless root; makes a private temp dir
# ($E2E_TMP) with a private bpffs mounted at $E2E_TMP/bpffs and exported as
# FASTPATH_BPFFS (visible inside `ip netns exec`, which remounts /sys only);
# installs one EXIT/INT/TERM trap that kills every process started with
# e2e_bg, runs e2e_defer commands (last first), deletes every link and
# namespace made here, unmounts the bpffs and removes $E2E_TMP, on success,
# failure or Ctrl-C alike.
#
# Every test gets unique names (fp<pid><random><tag>), so tests can run side
# by side. $FASTPATH is the binary under test (default build/fastpath).
#
# Exit codes: e2e_pass 0, e2e_fail 1, e2e_skip 77 (tests/run.sh reads them).

E2E_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FASTPATH=${FASTPATH:-$E2E_REPO/build/fastpath}
E2E_TEST=$(basename "${BASH_SOURCE[1]:-$0}" .sh)
# Short enough that "${E2E_ID}tag" fits an interface name (15 bytes) with a
# tag of up to 6 characters.
E2E_ID=fp$(( $$ % 100000 ))$(printf '%02x' $(( RANDOM % 256 )))

E2E_NETNS=()    # namespaces to delete
E2E_LINKS=()    # "NS IFACE" links to delete ("-" = this namespace)
E2E_PIDS=()     # background processes (each leads its own process group)
E2E_DEFER=()    # commands to run at cleanup, last first
E2E_TMP=
E2E_CLEANED=0

e2e_log() { printf '[%s %s] %s\n' "$(date +%T)" "$E2E_TEST" "$*" >&2; }

e2e_pass() {
	[[ $# -gt 0 ]] && e2e_log "$*"
	e2e_log "PASS"
	exit 0
}

e2e_fail() {
	e2e_log "FAIL: $*"
	exit 1
}

e2e_skip() {
	e2e_log "SKIP: $*"
	exit 77
}

# e2e_require CMD...: skip unless every command exists.
e2e_require() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || e2e_skip "needs '$c' (run scripts/deps.sh)"
	done
}

# e2e_name TAG: a unique name for this test (namespace, interface, file).
e2e_name() {
	local n="${E2E_ID}$1"
	if (( ${#n} > 15 )); then
		e2e_log "e2e_name: '$n' is longer than 15 bytes (an interface name); use a shorter tag"
		return 1
	fi
	echo "$n"
}

# e2e_ns NS CMD...: runs CMD in NS ("-" or "" = this namespace).
e2e_ns() {
	local ns=$1; shift
	if [[ -z $ns || $ns == - ]]; then
		"$@"
	else
		ip netns exec "$ns" "$@"
	fi
}

# e2e_netns_add NAME: a new namespace with lo up; deleted at cleanup.
e2e_netns_add() {
	ip netns add "$1" || e2e_fail "cannot create namespace $1"
	E2E_NETNS+=("$1")
	ip -n "$1" link set lo up
}

# e2e_v6_of 10.A.B.C: the IPv6 address paired with an IPv4 one (fd00:A:B::C).
e2e_v6_of() {
	local IFS=.
	# shellcheck disable=SC2206
	local o=($1)
	echo "fd00:${o[1]}:${o[2]}::${o[3]}"
}

# e2e_veth NS1 IF1 NS2 IF2 [ADDR1 ADDR2]: a veth pair between two namespaces
# ("-" = this one), links up, GRO on at both ends (a veth only accepts
# XDP_TX/XDP_REDIRECT frames when its peer has NAPI on). With IPv4 addresses,
# each end gets ADDR/24 and the paired IPv6 address fd00:A:B::C/64 (nodad).
e2e_veth() {
	local ns1=$1 if1=$2 ns2=$3 if2=$4 a1=${5:-} a2=${6:-}
	local n1=() n2=()
	[[ -n $ns1 && $ns1 != - ]] && n1=(netns "$ns1")
	[[ -n $ns2 && $ns2 != - ]] && n2=(netns "$ns2")
	ip link add "$if1" "${n1[@]}" type veth peer name "$if2" "${n2[@]}" ||
		e2e_fail "cannot create veth $if1/$if2"
	E2E_LINKS+=("${ns1:--} $if1")
	e2e_ns "$ns1" ip link set "$if1" up
	e2e_ns "$ns2" ip link set "$if2" up
	if command -v ethtool >/dev/null 2>&1; then
		e2e_ns "$ns1" ethtool -K "$if1" gro on >/dev/null 2>&1 || e2e_log "warning: gro on $if1 failed"
		e2e_ns "$ns2" ethtool -K "$if2" gro on >/dev/null 2>&1 || e2e_log "warning: gro on $if2 failed"
	else
		e2e_log "warning: no ethtool; XDP_TX/REDIRECT frames into $if1/$if2 may vanish"
	fi
	if [[ -n $a1 ]]; then
		e2e_ns "$ns1" ip addr add "$a1/24" dev "$if1"
		e2e_ns "$ns1" ip -6 addr add "$(e2e_v6_of "$a1")/64" dev "$if1" nodad
	fi
	if [[ -n $a2 ]]; then
		e2e_ns "$ns2" ip addr add "$a2/24" dev "$if2"
		e2e_ns "$ns2" ip -6 addr add "$(e2e_v6_of "$a2")/64" dev "$if2" nodad
	fi
}

# e2e_mac NS IFACE: the interface's MAC address.
e2e_mac() { e2e_ns "$1" cat "/sys/class/net/$2/address"; }

# e2e_counter NS IFACE FIELD: /sys/class/net/IFACE/statistics/FIELD in NS
# (rx_packets, tx_packets, rx_dropped, ...).
e2e_counter() { e2e_ns "$1" cat "/sys/class/net/$2/statistics/$3"; }

# e2e_scapy: sets PY to a python3 with scapy (Debian's /usr/bin/python3,
# where python3-scapy installs it), or skips the test.
e2e_scapy() {
	PY=python3
	[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3
	"$PY" -c 'import scapy.all' 2>/dev/null || e2e_skip "needs python3-scapy (scripts/deps.sh test)"
}

# e2e_frame_hex FILE: each frame of a pcap or pcapng as one line of hex, as
# tshark reads the file (a real reader of what fastpath wrote).
e2e_frame_hex() {
	tshark -r "$1" -x 2>/dev/null | python3 -c '
import sys, re
frames, cur = [], []
for line in sys.stdin:
    m = re.match(r"^[0-9a-f]{4}  ((?:[0-9a-f]{2} ?)+)", line)
    if m:
        cur.append(m.group(1).replace(" ", ""))
    elif not line.strip() and cur:
        frames.append("".join(cur)); cur = []
if cur:
    frames.append("".join(cur))
print("\n".join(frames))'
}

# e2e_nginx NS DIR URL: starts Debian's nginx in namespace NS as a test's
# backend, its pid, logs and temporary files under DIR, with the server
# blocks of its http {} read from stdin; waits until curl in NS gets an
# answer from URL (any status), else fails the test with nginx's error log.
#	e2e_nginx "$ns" "$T/nginx" http://127.0.0.1:8080/ <<CONF
#	server { listen 127.0.0.1:8080; root $T/www; }
#	CONF
e2e_nginx() {
	local ns=$1 d=$2 url=$3
	mkdir -p "$d"
	{
		cat <<CONF
user root root;
pid $d/nginx.pid;
error_log $d/error.log;
worker_processes 1;
events { worker_connections 512; }
http {
	access_log off;
	keepalive_requests 100000;
	client_body_temp_path $d/body;
	proxy_temp_path $d/proxy;
	fastcgi_temp_path $d/fastcgi;
	uwsgi_temp_path $d/uwsgi;
	scgi_temp_path $d/scgi;
CONF
		cat
		echo "}"
	} >"$d/nginx.conf"
	e2e_bg ip netns exec "$ns" nginx -p "$d" -c "$d/nginx.conf" -g 'daemon off;'
	e2e_wait_for "ip netns exec $ns curl -sk -o /dev/null $url" 10 ||
		e2e_fail "nginx did not start: $(cat "$d/error.log" 2>/dev/null)"
}

# e2e_bg CMD...: starts CMD in the background in its own process group
# (killed with its children at cleanup). Its pid is in $E2E_BG_PID.
# Redirect as usual: e2e_bg ip netns exec "$ns" server >"$E2E_TMP/log" 2>&1
e2e_bg() {
	setsid "$@" &
	E2E_BG_PID=$!
	E2E_PIDS+=("$E2E_BG_PID")
}

# e2e_kill PID: stops one e2e_bg process and its group now (TERM, then KILL
# after 2 s), and returns when every process of the group is gone.
e2e_kill() {
	local pid=$1 i
	kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || return 0
	# the whole group, not only its leader: a `bash -c "a | b"` leader dies
	# at once while a, still cleaning up at its exit, lives on
	for i in $(seq 20); do
		kill -0 -- "-$pid" 2>/dev/null || kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# Checks that count instead of stopping the test, so one run reports every
# failure: e2e_check DESCRIPTION CMD... (ok or NOT OK, counted in
# E2E_FAILS); e2e_expect NS CODE ARGS... runs `fastpath ARGS` in namespace
# NS, its stdout in $E2E_OUT and stderr in $E2E_ERR, and counts an exit
# other than CODE (printing both); e2e_pyok EXPR [FILE] is true when the
# Python expression over d, FILE's JSON ($E2E_OUT), is; e2e_done passes the
# test, or fails it with the count.
E2E_FAILS=0
e2e_check() {
	local what=$1; shift
	if "$@"; then e2e_log "ok: $what"; else e2e_log "NOT OK: $what"; E2E_FAILS=$((E2E_FAILS + 1)); fi
}
e2e_expect() {
	local ns=$1 want=$2 rc=0; shift 2
	ip netns exec "$ns" "$FASTPATH" "$@" >"$E2E_OUT" 2>"$E2E_ERR" </dev/null || rc=$?
	if (( rc != want )); then
		e2e_log "NOT OK: fastpath $*: exit $rc, expected $want"
		sed 's/^/    out| /' "$E2E_OUT" >&2; sed 's/^/    err| /' "$E2E_ERR" >&2
		E2E_FAILS=$((E2E_FAILS + 1))
		return 1
	fi
}
e2e_pyok() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
v=eval("(" + sys.argv[2] + "\n)")
if not v: print("    false:", sys.argv[2], file=sys.stderr)
sys.exit(0 if v else 1)' "${2:-$E2E_OUT}" "$1"
}
e2e_done() {
	(( E2E_FAILS == 0 )) || e2e_fail "$E2E_FAILS checks failed"
	e2e_pass
}

# e2e_unit_verify TEMPLATE INSTANCE: systemd-analyze verifies the shipped
# unit systemd/TEMPLATE (e.g. fastpath-lb@.service) as INSTANCE, with this
# build's binary in its commands (an e2e_check; logged, not checked, on a
# host without systemd-analyze).
e2e_unit_verify() {
	local tpl=$1 inst=$2 d=$E2E_TMP/units unit
	if ! command -v systemd-analyze >/dev/null; then
		e2e_log "no systemd-analyze: $tpl not verified"
		return 0
	fi
	unit=${tpl/@./@$inst.}
	mkdir -p "$d"
	sed "s#/usr/local/sbin/fastpath#$FASTPATH#g" "$E2E_REPO/systemd/$tpl" >"$d/$unit"
	(cd "$d" && systemd-analyze verify --man=no "./$unit") >"$d/verify" 2>&1 || true
	e2e_check "systemd-analyze verify $tpl: no complaint ($(head -c 300 "$d/verify"))" test ! -s "$d/verify"
}

# e2e_defer CMD...: runs CMD at cleanup (last registered runs first).
e2e_defer() {
	local q
	printf -v q '%q ' "$@"
	E2E_DEFER+=("$q")
}

# e2e_wait_for CMD TIMEOUT: polls CMD (a shell string, eval'd) every 0.1 s
# until it succeeds (0) or TIMEOUT seconds pass (1).
e2e_wait_for() {
	local cmd=$1 timeout=${2:-10} end
	end=$(( $(date +%s%N) + ${timeout%.*} * 1000000000 ))
	while :; do
		eval "$cmd" >/dev/null 2>&1 && return 0
		(( $(date +%s%N) >= end )) && return 1
		sleep 0.1
	done
}

e2e_cleanup() {
	local rc=$? i pid ns entry
	(( E2E_CLEANED )) && return "$rc"
	E2E_CLEANED=1
	trap - INT TERM
	set +e
	for pid in "${E2E_PIDS[@]}"; do
		e2e_kill "$pid"
	done
	for (( i = ${#E2E_DEFER[@]} - 1; i >= 0; i-- )); do
		eval "${E2E_DEFER[i]}" >/dev/null 2>&1
	done
	for entry in "${E2E_LINKS[@]}"; do
		e2e_ns "${entry%% *}" ip link del "${entry#* }" >/dev/null 2>&1
	done
	for ns in "${E2E_NETNS[@]}"; do
		# a process still holding the namespace would keep it alive: kill it
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
		ip netns del "$ns" >/dev/null 2>&1
	done
	if [[ -n $E2E_TMP && -d $E2E_TMP ]]; then
		if mountpoint -q "$E2E_TMP/bpffs"; then
			umount "$E2E_TMP/bpffs" 2>/dev/null || umount -l "$E2E_TMP/bpffs"
		fi
		rm -rf "$E2E_TMP"
	fi
	return "$rc"
}

[[ $(id -u) -eq 0 ]] || e2e_skip "needs root (network namespaces, bpffs)"
e2e_require ip

trap e2e_cleanup EXIT
trap 'e2e_log "interrupted"; exit 130' INT TERM

E2E_TMP=$(mktemp -d "/tmp/fp-e2e-$E2E_TEST.XXXXXX") || e2e_fail "cannot make a temp dir"
E2E_OUT=$E2E_TMP/out E2E_ERR=$E2E_TMP/err
mkdir -p "$E2E_TMP/bpffs"
mount -t bpf bpf "$E2E_TMP/bpffs" || e2e_fail "cannot mount a bpffs at $E2E_TMP/bpffs"
chmod 0700 "$E2E_TMP/bpffs"
export FASTPATH_BPFFS=$E2E_TMP/bpffs
export FASTPATH
