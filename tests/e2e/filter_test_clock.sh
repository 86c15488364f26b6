#!/usr/bin/env bash
# `filter test` runs limits on the capture's clock: pcaps of ICMP echo
# requests with chosen timestamps (written here by scapy) against
# `limit 1/s burst 1 icmp`. GCRA at 1/s with burst 1: a packet conforms when
# it comes at least 1 s after the last one that conformed. 20 packets 1 s
# apart: no drop (live, none either); 10 ms apart: the first passes, 19
# drop; 0.5 s apart: every other one, 10 drops; timestamps that go back do
# not turn the clock back. Before the test clock every run took the host's
# time, and a capture replayed in microseconds gave 19 drops 1 s apart.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3   # Debian's, with python3-scapy
T=$E2E_TMP

"$PY" - "$T" <<'PYEOF' 2>"$T/scapy.err" || e2e_fail "scapy could not write the captures: $(cat "$T/scapy.err")"
import sys
from scapy.all import Ether, IP, ICMP
from scapy.utils import PcapWriter
t = sys.argv[1]
def write(name, times):
    w = PcapWriter(t + "/" + name, linktype=1, sync=True)
    for i, ts in enumerate(times):
        p = Ether() / IP(src="192.0.2.1", dst="10.0.0.1") / ICMP(seq=i)
        p.time = ts
        w.write(p)
    w.close()
base = 1700000000
write("1s.pcap", [base + i for i in range(20)])
write("10ms.pcap", [base + i / 100 for i in range(20)])
write("500ms.pcap", [base + i / 2 for i in range(20)])
write("back.pcap", [base + 10, base + 5, base + 10.5, base + 11])
PYEOF
printf 'limit 1/s burst 1 icmp id ping\ndefault pass\n' >"$T/limit.rules"

# drops FILE: the drop count of `filter test` (its summary line on stderr).
drops() {
	"$FASTPATH" filter test "$T/limit.rules" "$T/$1" >"$T/out" 2>"$T/err" ||
		{ cat "$T/err" >&2; echo "exit $?"; return; }
	sed -n 's/^\([0-9]*\) packets: \([0-9]*\) drop.*/\1 \2/p' "$T/err"
}
check() { # check DESCRIPTION GOT WANT
	if [[ $2 == "$3" ]]; then e2e_log "ok: $1"; else e2e_log "NOT OK: $1: got '$2', want '$3'"; E2E_FAILS=$((E2E_FAILS + 1)); fi
}
check "20 pings 1 s apart: no drop" "$(drops 1s.pcap)" "20 0"
check "20 pings 10 ms apart: 19 drops" "$(drops 10ms.pcap)" "20 19"
check "20 pings 0.5 s apart: 10 drops" "$(drops 500ms.pcap)" "20 10"
check "... the odd ones, by the verdict lines" \
	"$(awk '$1 ~ /^[0-9]+$/ && $2 == "drop" { printf "%s,", $1 }' "$T/out")" "2,4,6,8,10,12,14,16,18,20,"
# 10 s, 5 s (back: still 0), 10.5 s (0.5 s on: drop), 11 s (1 s on: pass)
drops back.pcap >/dev/null
check "a timestamp that goes back does not turn the clock back" \
	"$(awk '$1 ~ /^[0-9]+$/ { printf "%s,", $2 }' "$T/out")" "pass,drop,drop,pass,"
"$FASTPATH" -j filter test "$T/limit.rules" "$T/1s.pcap" >"$T/out" 2>"$T/err" || E2E_FAILS=$((E2E_FAILS + 1))
check "-j: 20 pass lines decided by the limit rule" \
	"$(grep -c '"verdict":"pass","rule":"ping"' "$T/out")" 20

e2e_done
