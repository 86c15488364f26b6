# Sourced by bench/filter_rate.sh and bench/dump_rate.sh: the veth lab both
# measure on. veth_lab_require checks what the lab needs and names it
# (NSG NSR IFG IFR); veth_lab_up needs log() from the caller and sets napi
# (the receiver's NAPI kthread pids) and MAC (the receiver's address). The
# caller's cleanup removes the namespaces.
#
# The generator end lives in NSG, the receiver in NSR (198.18.0.2/24), IPv6
# off (no chatter in the counters). The receiver's threaded NAPI kthread is
# pinned on CPU1 at SCHED_FIFO 50: it preempts tasks at once, as softirq
# work does on a NIC. Under SCHED_OTHER the veth's 256-slot ring overflows
# whenever the kthread waits for its CPU (with nothing else running: 1%
# refused at 100 kpps, 10% at 400 kpps; at SCHED_FIFO 0.4% and 0.05%), and
# the refused frames' page-pool returns then contend with the receiver.
# VETH_LAB_NAPI_CPU=0 puts that kthread on the generator's CPU instead.
# veth_lab_require NAME PREFIX CMD...: root, two CPUs and every CMD, or exit
# 77 (skipped) saying what is missing; then the lab's names from PREFIX.
veth_lab_require() {
	local name=$1 prefix=$2 c
	shift 2
	[[ $(id -u) == 0 ]] || { echo "$name: needs root" >&2; exit 77; }
	for c in ip ethtool taskset chrt "$@"; do
		command -v "$c" >/dev/null || { echo "$name: needs $c (make; scripts/deps.sh)" >&2; exit 77; }
	done
	(( $(nproc) >= 2 )) || { echo "$name: needs 2 CPUs" >&2; exit 77; }
	prefix=$prefix$(( $$ % 10000 ))
	NSG=${prefix}g NSR=${prefix}r IFG=${prefix}a IFR=${prefix}b
}

veth_lab_up() {
	local x
	ip netns add "$NSG" && ip netns add "$NSR" || return 1
	ip link add "$IFG" netns "$NSG" type veth peer name "$IFR" netns "$NSR" || return 1
	for x in "$NSG $IFG" "$NSR $IFR"; do
		set -- $x
		ip -n "$1" link set lo up
		ip -n "$1" link set "$2" up
		ip netns exec "$1" ethtool -K "$2" gro on >/dev/null
		ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	done
	ip -n "$NSR" addr add 198.18.0.2/24 dev "$IFR"
	ip netns exec "$NSR" sh -c "echo 1 > /sys/class/net/$IFR/threaded" || return 1
	napi=$(ps -eo pid=,comm= | awk -v p="napi/$IFR-" 'index($2, p) == 1 { print $1 }')
	[[ -n $napi ]] || { log "no threaded NAPI kthread for $IFR"; return 1; }
	for x in $napi; do
		taskset -pc "${VETH_LAB_NAPI_CPU:-1}" "$x" >/dev/null && chrt -f -p 50 "$x" >/dev/null || return 1
	done
	MAC=$(ip netns exec "$NSR" cat "/sys/class/net/$IFR/address")
}

# veth_lab_napi NS IFACE CPU (optional; veth_lab_up does not call it): a
# further veth's NAPI threaded, its kthreads pinned on CPU at SCHED_FIFO 50
# as the receiver's are; sets napi_pids. For labs that choose where the
# frames' last NAPI runs (bench/bridge_rate.sh: the sinks on the
# generator's CPU). veth_lab_napi_off NS IFACE: back to softirq NAPI (the
# kernel ends the kthreads).
veth_lab_napi() {
	local ns=$1 dev=$2 cpu=$3 p
	ip netns exec "$ns" sh -c "echo 1 > /sys/class/net/$dev/threaded" || return 1
	p="napi/$dev-"
	p=${p:0:15} # a task's comm holds 15 characters
	napi_pids=$(ps -eo pid=,comm= | awk -v p="$p" 'index($2, p) == 1 { print $1 }')
	[[ -n $napi_pids ]] || { log "no threaded NAPI kthread for $dev"; return 1; }
	for p in $napi_pids; do
		taskset -pc "$cpu" "$p" >/dev/null && chrt -f -p 50 "$p" >/dev/null || return 1
	done
}
veth_lab_napi_off() {
	ip netns exec "$1" sh -c "echo 0 > /sys/class/net/$2/threaded"
}
