#!/usr/bin/env bash
# make demo: a DDoS lab in network namespaces, about 30 seconds.
#
#   attacker ──┐
#              ├── bridge ── victim (HTTP :8000, DNS :53; XDP filter on its veth)
#   client ────┘
#
# The attacker floods the victim (UDP to random ports, DNS water torture at
# random *.example.com names, bare SYNs) while a client fetches a page and
# resolves www.example.com. First 4 s unprotected, then examples/ddos.rules
# is loaded at XDP: live per-rule stats, then a summary. Everything it makes
# (namespaces, a private bpffs, processes) is removed on exit, also on Ctrl-C
# (Ctrl-C during the live stats ends them early and shows the summary).
#
#   sudo make demo        (or: sudo scripts/demo.sh; RULES=FILE to try another)
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FASTPATH=${FASTPATH:-$REPO/build/fastpath}
RULES=${RULES:-$REPO/examples/ddos.rules}
UNPROTECTED_S=${UNPROTECTED_S:-4}
PROTECTED_S=${PROTECTED_S:-12}
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3
TRAFFIC=("$PY" "$REPO/tests/e2e/traffic.py")

if [[ -t 1 ]]; then
	B=$'\033[1m' DIM=$'\033[2m' R=$'\033[31m' G=$'\033[32m' Y=$'\033[33m' C=$'\033[36m' N=$'\033[0m'
else
	B='' DIM='' R='' G='' Y='' C='' N=''
fi
say() { printf '%s\n' "$*"; }
step() { printf '\n%s==> %s%s\n' "$B$C" "$*" "$N"; }
die() { printf '%sdemo: %s%s\n' "$R" "$*" "$N" >&2; exit 1; }

[[ $(id -u) -eq 0 ]] || die "needs root (network namespaces, XDP): sudo make demo"
[[ -x $FASTPATH ]] || die "no $FASTPATH; run make first"
for c in ip curl ethtool "$PY"; do
	command -v "$c" >/dev/null 2>&1 || die "needs $c (run scripts/deps.sh)"
done

# ---- everything made here is listed, and removed by cleanup -----------------
ID=fpd$(( $$ % 100000 ))
SW=${ID}sw ATK=${ID}atk CLI=${ID}cli VIC=${ID}vic
VV=${ID}vv SV=${ID}sv CV=${ID}cv SC=${ID}sc AV=${ID}av SA=${ID}sa
VIP=10.212.0.1 CIP=10.212.0.2 AIP=10.212.0.3 SPOOF=198.18.0.0/15
TMP=
PIDS=()
CLEANED=0

cleanup() {
	(( CLEANED )) && return
	CLEANED=1
	trap - INT TERM
	[[ -t 1 ]] && printf '\033[?25h'   # the cursor, if the watch hid it
	local p ns
	for p in "${PIDS[@]}"; do kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null; done
	sleep 0.3
	for p in "${PIDS[@]}"; do kill -KILL -- "-$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	if [[ -n $TMP ]] && ip netns list 2>/dev/null | grep -qw "$VIC"; then
		ip netns exec "$VIC" "$FASTPATH" --bpffs "$TMP/bpffs" filter unload "$VV" >/dev/null 2>&1
	fi
	for ns in "$ATK" "$CLI" "$VIC" "$SW"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	if [[ -n $TMP && -d $TMP ]]; then
		mountpoint -q "$TMP/bpffs" && { umount "$TMP/bpffs" 2>/dev/null || umount -l "$TMP/bpffs"; }
		rm -rf "$TMP"
	fi
	say "${DIM}lab removed: namespaces, bpffs, processes${N}"
}
trap cleanup EXIT
trap 'printf "\n%sinterrupted%s\n" "$Y" "$N"; exit 130' INT TERM

bg() { setsid "$@" & PIDS+=("$!"); LAST=$!; }
stop() { kill -TERM -- "-$1" 2>/dev/null; wait "$1" 2>/dev/null; }
fp() { ip netns exec "$VIC" "$FASTPATH" --bpffs "$TMP/bpffs" "$@"; }
jget() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
stage() { jget "$1" "[s['packets'] for s in d['stage'] if s['decision']=='$2'][0]"; }
fmt() { sed -E ':a; s/([0-9])([0-9]{3})($|,)/\1,\2\3/; ta' <<<"$1"; }   # 1234567 -> 1,234,567

TMP=$(mktemp -d /tmp/fastpath-demo.XXXXXX) || die "cannot make a temp dir"
mkdir -p "$TMP/bpffs" "$TMP/www"
mount -t bpf bpf "$TMP/bpffs" || die "cannot mount a bpffs"
chmod 0700 "$TMP/bpffs"

say "${B}fastpath demo${N}: an XDP DDoS filter in a lab of network namespaces"
say "${DIM}
      attacker ${AIP} ──┐   spoofing ${SPOOF}
                             ├── bridge ── victim ${VIP}  (HTTP :8000, DNS :53)
      client   ${CIP} ──┘                  XDP filter on its veth${N}"

# ---- the lab ------------------------------------------------------------------
step "building the lab"
for ns in "$SW" "$ATK" "$CLI" "$VIC"; do
	ip netns add "$ns" || die "cannot create namespace $ns"
	ip -n "$ns" link set lo up
done
ip -n "$SW" link add br0 type bridge && ip -n "$SW" link set br0 up
link() { # link NS IF PEER ADDR: NS:IF <-> SW:PEER on the bridge
	ip link add "$2" netns "$1" type veth peer name "$3" netns "$SW" || die "cannot create veth $2"
	ip -n "$1" addr add "$4/24" dev "$2"
	ip -n "$1" link set "$2" up
	ip -n "$SW" link set "$3" master br0 up
	ip netns exec "$1" ethtool -K "$2" gro on >/dev/null 2>&1
}
link "$VIC" "$VV" "$SV" "$VIP"
link "$CLI" "$CV" "$SC" "$CIP"
link "$ATK" "$AV" "$SA" "$AIP"
VMAC=$(ip netns exec "$VIC" cat "/sys/class/net/$VV/address")
# The victim's way to "the internet" is upstream, past the attacker's port,
# and it takes packets from any source (no reverse-path filter): without the
# filter, the spoofed attack reaches its sockets as on a real server.
ip -n "$VIC" route add default via "$AIP"
ip netns exec "$VIC" sysctl -qw net.ipv4.conf.all.rp_filter=0 "net.ipv4.conf.$VV.rp_filter=0"
head -c 3000 /dev/urandom | base64 >"$TMP/www/index.html"
PAGE=$(stat -c %s "$TMP/www/index.html")
bg ip netns exec "$VIC" "$PY" -m http.server 8000 --bind "$VIP" --directory "$TMP/www" >/dev/null 2>&1
bg ip netns exec "$VIC" "${TRAFFIC[@]}" listen --port 53 --out "$TMP/dns.json" --answer >/dev/null 2>&1
for _ in $(seq 50); do
	ip netns exec "$CLI" curl -sf -o /dev/null --max-time 1 "http://$VIP:8000/" && break
	sleep 0.1
done
for ns in "$ATK" "$CLI"; do ip netns exec "$ns" ping -c 1 -W 2 "$VIP" >/dev/null 2>&1; done
say "namespaces $ATK, $CLI, $VIC joined by a bridge in $SW; HTTP and DNS servers up in $VIC"

# ---- the legitimate client: a page every 0.1 s, a DNS lookup every 0.5 s -------
cat >"$TMP/client.sh" <<EOF
end=\$((SECONDS + 120)); n=0
while [[ ! -e $TMP/stop ]] && (( SECONDS < end )); do
	r=\$(curl -s -o /dev/null -w '%{http_code} %{size_download}' --max-time 3 http://$VIP:8000/index.html)
	[[ \$r == "200 $PAGE" ]] && echo http-ok || echo http-fail
	if (( n++ % 5 == 0 )); then
		$PY $REPO/tests/e2e/traffic.py dnsq $VIP www.example.com --timeout 0.5 --tries 1 && echo dns-ok || echo dns-fail
	fi
	sleep 0.1
done >>$TMP/client.log
EOF
phase() { echo "== $1" >>"$TMP/client.log"; }
touch "$TMP/client.log"
bg ip netns exec "$CLI" bash "$TMP/client.sh"

# count LABEL WHAT: client results in one phase (after the line "== LABEL")
count() { awk -v p="== $1" -v w="$2" '$0 ~ /^== / { on = ($0 == p) } on && $0 == w { n++ } END { print n + 0 }' "$TMP/client.log"; }

ATTACKERS=()
attack() { # attack PHASE SECONDS: UDP flood, water torture and SYN flood at once
	local p=$1 s=$2 a name
	ATTACKERS=()
	for a in "udp --udp 1024-65535 --pps 20000" "dns --dns example.com --rand-label --pps 5000" \
		"syn --syn 8000 --pps 5000"; do
		# shellcheck disable=SC2086
		set -- $a; name=$1; shift
		bg ip netns exec "$ATK" "${TRAFFIC[@]}" send "$AV" --dst-mac "$VMAC" --dst "$VIP" \
			--rand-src "$SPOOF" --duration "$s" --report "$TMP/$p-$name.json" "$@"
		ATTACKERS+=("$LAST")
	done
}
# frames the veths dropped on the way (full ring or backlog): they never reached XDP
lost() { echo $(( $(ip netns exec "$ATK" cat "/sys/class/net/$AV/statistics/tx_dropped") +
	$(ip netns exec "$SW" cat "/sys/class/net/$SV/statistics/tx_dropped") )); }
sent() { local t=0 n; for n in udp dns syn; do t=$((t + $(jget "$TMP/$1-$n.json" "d['sent']"))); done; echo "$t"; }
junk() { jget "$TMP/dns.json" "d['zones'].get('example.com',0) - d['names'].get('www.example.com',0)"; }

# ---- 1. unprotected -------------------------------------------------------------
step "attack without protection (${UNPROTECTED_S} s): UDP flood 20k/s, DNS water torture 5k/s, SYN flood 5k/s"
phase open
attack open "$UNPROTECTED_S"
for (( i = UNPROTECTED_S; i > 0; i-- )); do
	# a count updated in place on a terminal; a pipe or a log gets the final line only
	[[ -t 1 ]] && printf '\r  the victim'"'"'s DNS server has received %s junk queries ' "$(fmt "$(junk)")"
	sleep 1
done
for p in "${ATTACKERS[@]}"; do wait "$p" 2>/dev/null; done
sleep 0.3
JUNK_OPEN=$(junk)
[[ -t 1 ]] && printf '\r'
printf '  the victim'"'"'s DNS server has received %s%s%s junk queries   \n' "$R" "$(fmt "$JUNK_OPEN")" "$N"

# ---- 2. protected -----------------------------------------------------------------
step "loading $(basename "$RULES") at XDP on the victim's veth (native mode)"
fp filter load "$VV" --mode native "$RULES" | sed 's/^/  /' || die "filter load failed"
fp filter list "$VV" | sed 's/^/  /'
fp -j filter stats "$VV" --interval 0 >"$TMP/st0.json"
LOST0=$(lost)
phase shut
attack shut "$PROTECTED_S"
sleep 1
step "live per-rule stats (fastpath filter stats $VV --watch 1)"
if [[ -t 1 ]]; then
	sleep 1
	# --foreground: Ctrl-C reaches the watch, which ends it; the summary follows
	timeout --foreground -s INT $(( PROTECTED_S - 3 )) ip netns exec "$VIC" "$FASTPATH" --bpffs "$TMP/bpffs" \
		filter stats "$VV" --watch 1
	printf '\033[?25h'
else
	for _ in 1 2 3; do sleep 2.5; fp filter stats "$VV" --interval 500 | sed 's/^/  /'; echo; done
fi
for p in "${ATTACKERS[@]}"; do wait "$p" 2>/dev/null; done
sleep 0.5
touch "$TMP/stop"
fp -j filter stats "$VV" --interval 0 >"$TMP/st1.json"

# ---- summary -----------------------------------------------------------------------
SENT_OPEN=$(sent open) SENT_SHUT=$(sent shut)
DROPPED=$(( $(stage "$TMP/st1.json" rule_drop) - $(stage "$TMP/st0.json" rule_drop) ))
LOST=$(( $(lost) - LOST0 ))
JUNK_SHUT=$(( $(junk) - JUNK_OPEN ))
per_rule=$(jget "$TMP/st1.json" "'  '.join('%s %s' % (r['id'], format(r['packets'], ',')) for r in d['rules'] if r['packets'] and r['id'] != '(default)')")
step "summary"
printf '  %-34s %s\n' "without the filter (${UNPROTECTED_S} s):" \
	"$(fmt "$SENT_OPEN") attack packets, $R$(fmt "$JUNK_OPEN") junk DNS queries reached the server$N"
printf '  %-34s %s\n' "" "HTTP $(count open http-ok) ok / $(count open http-fail) failed, DNS $(count open dns-ok) answered / $(count open dns-fail) not"
printf '  %-34s %s\n' "with examples/ddos.rules (${PROTECTED_S} s):" \
	"$(fmt "$SENT_SHUT") attack packets, $G$(fmt "$DROPPED") dropped at XDP$N$( (( LOST )) && echo " ($(fmt "$LOST") lost on the wire before it)"), $(fmt "$JUNK_SHUT") junk queries reached the server"
printf '  %-34s %s\n' "" "HTTP $G$(count shut http-ok) ok$N / $(count shut http-fail) failed, DNS $(count shut dns-ok) answered / $(count shut dns-fail) not"
printf '  %-34s %s\n' "packets per rule:" "$per_rule"
if (( DROPPED <= SENT_SHUT && DROPPED + LOST >= SENT_SHUT && JUNK_SHUT == 0 && $(count shut http-fail) == 0 )); then
	say "  ${G}${B}every attack packet was dropped at XDP; every legitimate request was answered${N}"
else
	say "  ${Y}not every attack packet was dropped, or a legitimate request failed: see above${N}"
fi
