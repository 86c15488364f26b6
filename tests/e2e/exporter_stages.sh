#!/usr/bin/env bash
# The exporter's lb and bridge families on live stages: an lb with a VIP of
# three backends (one drained, one down) that forwarded 20 datagrams, and a
# bridge of two ports that switched a few frames, scraped with curl;
# promtool accepts the scrape; each family has one HELP and TYPE; every
# value equals what `lb stats -j` and `bridge stats -j` say after the
# traffic (nothing moves in between: IPv6 is off on the hosts); the
# backends' states and weights are those of `lb list`. lb load warns when
# the host does not forward IP (the kernel then refuses the lb's next hops).
# An lb whose pins cannot be read counts in fastpath_scrape_errors_total of
# the scrape that met it, and its error is logged once, not at every scrape.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require curl python3 promtool
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

a=$(e2e_name a); b=$(e2e_name b); va=$(e2e_name va); vb=$(e2e_name vb)
# IPv6 off on every link once made: no ND or MLD frame moves a counter
noipv6() { e2e_ns "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1; }
for n in "$a" "$b"; do e2e_netns_add "$n"; done
e2e_veth "$a" "$va" "$b" "$vb" 10.77.0.1 10.77.0.2
noipv6 "$a"; noipv6 "$b"
for x in 11 12 13; do ip -n "$b" addr add 10.77.0.$x/24 dev "$vb"; done
ip -n "$b" route add 198.51.100.0/24 via 10.77.0.1
T=$E2E_TMP V=198.51.100.10:8080/udp
expect() { e2e_expect "$a" "$@"; }
check() { e2e_check "$@"; }

# ---- an lb that forwarded 20 datagrams -------------------------------------------
expect 0 lb load "$va"
check "lb load warns that IP forwarding is off (every VIP packet would be fib_fail)" grep -q 'forwarding is off.*fib_fail' "$E2E_ERR"
ip netns exec "$a" sysctl -qw net.ipv4.ip_forward=1
expect 0 lb vip add "$va" "$V" --table-size 251
expect 0 lb backend add "$va" "$V" 10.77.0.11 --weight 2
expect 0 lb backend add "$va" "$V" 10.77.0.12
expect 0 lb backend add "$va" "$V" 10.77.0.13
expect 0 lb backend drain "$va" "$V" 10.77.0.12
expect 0 lb backend down "$va" "$V" 10.77.0.13
ip netns exec "$b" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(20):
    s.sendto(b"x" * 64, ("198.51.100.10", 8080))'
# ---- a bridge of two ports that switched a few frames ----------------------------
sw=$a h1=$(e2e_name h1) h2=$(e2e_name h2) p1=$(e2e_name p1) p2=$(e2e_name p2)
e1=$(e2e_name e1) e2=$(e2e_name e2) BR=$(e2e_name br)
for n in "$h1" "$h2"; do e2e_netns_add "$n"; done
e2e_veth "$h1" "$e1" "$sw" "$p1" 10.78.0.1
e2e_veth "$h2" "$e2" "$sw" "$p2" 10.78.0.2
for n in "$sw" "$h1" "$h2"; do noipv6 "$n"; done
e2e_expect "$sw" 0 bridge create "$BR"
e2e_expect "$sw" 0 bridge add "$BR" "$p1"
e2e_expect "$sw" 0 bridge add "$BR" "$p2"
e2e_ns "$h1" ping -c 3 -i 0.2 -W 2 10.78.0.2 >/dev/null || e2e_log "ping over the bridge failed (counters are compared anyway)"
sleep 0.5

# ---- scrape (the lb and the bridge are in one namespace, as the exporter) -------
ip netns exec "$a" "$FASTPATH" -j lb stats "$va" >"$T/lb.json"
ip netns exec "$a" "$FASTPATH" -j lb list "$va" >"$T/list.json"
ip netns exec "$sw" "$FASTPATH" -j bridge stats "$BR" >"$T/br.json"
e2e_bg ip netns exec "$a" "$FASTPATH" exporter --listen 127.0.0.1:0 2>"$T/exporter.log"
e2e_wait_for "grep -q 'listening on' $T/exporter.log" 10 || e2e_fail "the exporter did not start: $(cat "$T/exporter.log")"
port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$T/exporter.log")
ip netns exec "$a" curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" >"$T/m.txt" || e2e_fail "curl failed"
# read again: a background frame (an ARP refresh) may move a counter in
# between, so each value must lie between the two readings
ip netns exec "$a" "$FASTPATH" -j lb stats "$va" >"$T/lb2.json"
ip netns exec "$sw" "$FASTPATH" -j bridge stats "$BR" >"$T/br2.json"
check "promtool check metrics accepts the scrape" promtool check metrics <"$T/m.txt"
check "no scrape error" grep -qx 'fastpath_scrape_errors_total 0' "$T/m.txt"
cat >"$T/cmp.py" <<'PY'
import json, re, sys
m, lb, lst, br, iface, vip, bridge = sys.argv[1:8]
lb2, br2 = json.load(open(lb.replace("lb.json", "lb2.json"))), json.load(open(br.replace("br.json", "br2.json")))
samples, families = {}, {}
for line in open(m):
    if line.startswith("# TYPE"):
        families[line.split()[2]] = families.get(line.split()[2], 0) + 1
        continue
    if line.startswith("#") or not line.strip():
        continue
    name_labels, value = line.rsplit(" ", 1)
    name = name_labels.split("{")[0]
    labels = dict(re.findall(r'(\w+)="([^"]*)"', name_labels))
    samples.setdefault(name, []).append((labels, float(value)))
bad = []
def want(name, labels, value, after=None):
    got = [v for l, v in samples.get(name, []) if all(l.get(k) == x for k, x in labels.items())]
    hi = value if after is None else after
    if len(got) != 1 or not value <= got[0] <= hi:
        bad.append(f"{name}{labels}: {got} not in [{value}, {hi}]")
dup = [f for f, n in families.items() if n != 1]
if dup: bad.append(f"families typed twice: {dup}")
lb, lst, br = json.load(open(lb)), json.load(open(lst)), json.load(open(br))
v = [x for x in lb["vips"] if x["vip"] == vip][0]
if v["packets"] != 20: bad.append(f"lb stats says {v['packets']} packets, 20 were sent")
v2 = [x for x in lb2["vips"] if x["vip"] == vip][0]
for k in ("packets", "bytes", "new_flows", "conn_hits", "conn_misses"):
    want(f"fastpath_lb_vip_{k}_total", {"iface": iface, "vip": vip}, v[k], v2[k])
for be, be2 in zip(lb["backends"], lb2["backends"]):
    for k in ("packets", "bytes", "new_flows"):
        want(f"fastpath_lb_backend_{k}_total", {"iface": iface, "vip": vip, "backend": be["backend"]}, be[k], be2[k])
for be in lst["backends"]:
    want("fastpath_lb_backend_state", {"iface": iface, "backend": be["backend"], "state": be["state"]}, 1)
    want("fastpath_lb_backend_weight", {"iface": iface, "backend": be["backend"]}, be["weight"])
for c, c2 in zip(lb["counters"], lb2["counters"]):
    want("fastpath_lb_packets_total", {"iface": iface, "cause": c["cause"]}, c["packets"], c2["packets"])
for p, p2 in zip(br, br2):
    for k, x in p.items():
        if isinstance(x, int):
            want("fastpath_bridge_port_frames_total", {"bridge": bridge, "port": p["port"], "event": k}, x, p2[k])
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
check "every lb and bridge value is what lb stats / lb list / bridge stats say" \
	python3 "$T/cmp.py" "$T/m.txt" "$T/lb.json" "$T/list.json" "$T/br.json" "$va" "$V" "$BR"

# ---- an lb that cannot be read: counted in the same scrape, logged once ----------
# its meta map swapped for a map of another layout ("loaded by another version")
meta=$(find "$FASTPATH_BPFFS" -name lb_meta | head -1)
[[ -n $meta ]] || e2e_fail "no lb_meta pin under $FASTPATH_BPFFS"
rm -f "$meta"
bpftool map create "$meta" type array key 4 value 4 entries 1 name not_lb_meta ||
	e2e_fail "bpftool map create $meta failed"
for i in 1 2; do
	ip netns exec "$a" curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" >"$T/bad$i.txt" ||
		e2e_fail "curl (broken lb, $i) failed"
done
check "a broken lb counts in the scrape that met it (1, then 2)" \
	test "$(awk '/^fastpath_scrape_errors_total/ {print $2}' "$T/bad1.txt" "$T/bad2.txt" | tr '\n' ,)" = 1,2,
check "the broken lb is logged once over two scrapes ($(cat "$T/exporter.log"))" \
	test "$(grep -c 'scrape error: .*lb' "$T/exporter.log")" = 1
check "the bridge's families are still there" grep -q '^fastpath_bridge_port_frames_total' "$T/bad2.txt"
e2e_done
