#!/usr/bin/env bash
# The lb's control plane on a real veth in a namespace: usage errors refused
# before anything is touched (exit 2, nothing pinned); load (--conns sizes
# lb_conns, --src4 is kept, the pipeline shows the lb in slot 2, status lists
# it); VIPs of both families and a --port-any VIP (read back by list -j);
# backends added, drained, taken down and up, deleted and added again (gen
# bumped), each change a new Maglev table (the map id in lb_tables changes)
# and a repeated state none; slots follow the weights and states; bad input
# (address, port, protocol, table size, hash, weight, families) exits 2 and
# unknown VIPs/backends exit 1, every time with a message and the state
# unchanged; limits (a table's 4 slots a backend, FP_LB_MAX_VIPS, FP_LB_MAX_BACKENDS,
# FP_LB_MAX_VIP_BACKENDS;
# the maps filled with bpftool batch where the CLI would take minutes) refused
# with the limit named and nothing changed; 20 concurrent backend adds all
# land (the edit lock); stats -j and --watch; vip del; a second lb in another
# namespace configured the same builds the identical Maglev table (both inner
# maps dumped and compared); unload leaves no pin and no program.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_require python3 bpftool
[[ -x $FASTPATH ]] || e2e_fail "no binary at $FASTPATH; run make"

a=$(e2e_name a); b=$(e2e_name b); c=$(e2e_name c); d=$(e2e_name d)
va=$(e2e_name va); vb=$(e2e_name vb); vc=$(e2e_name vc); vd=$(e2e_name vd)
for n in "$a" "$b" "$c" "$d"; do e2e_netns_add "$n"; done
e2e_veth "$a" "$va" "$b" "$vb" 10.77.0.1 10.77.0.2
e2e_veth "$c" "$vc" "$d" "$vd" 10.77.0.1 10.77.0.2
T=$E2E_TMP out=$E2E_TMP/out err=$E2E_TMP/err pins=$FASTPATH_BPFFS/$va
V=198.51.100.10:80/tcp V6='[2001:db8::10]:443/tcp' VA=198.51.100.11/udp

# expect CODE ARGS...: fastpath ARGS in namespace a; stdout in $out, stderr in $err.
expect() {
	local want=$1 rc=0; shift
	ip netns exec "$a" "$FASTPATH" "$@" >"$out" 2>"$err" </dev/null || rc=$?
	if (( rc != want )); then
		e2e_log "NOT OK: fastpath $*: exit $rc, expected $want"
		sed 's/^/    out| /' "$out" >&2; sed 's/^/    err| /' "$err" >&2
		E2E_FAILS=$((E2E_FAILS + 1))
		return 1
	fi
}
check() { e2e_check "$@"; } # check DESCRIPTION CMD...
# refused CODE MESSAGE ARGS...: exits CODE, says MESSAGE, and lb list -j is as before
refused() {
	local want=$1 msg=$2; shift 2
	ip netns exec "$a" "$FASTPATH" -j lb list "$va" >"$T/before" 2>/dev/null || true
	if expect "$want" "$@"; then
		check "$* -> exit $want, says '$msg'" grep -q -- "$msg" "$err"
		ip netns exec "$a" "$FASTPATH" -j lb list "$va" >"$T/after" 2>/dev/null || true
		check "... and nothing changed" cmp -s "$T/before" "$T/after"
	fi
}
pyok() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
v=eval("(" + sys.argv[2] + "\n)")
if not v: print("    false:", sys.argv[2], file=sys.stderr)
sys.exit(0 if v else 1)' "${2:-$out}" "$1"
}
pyeval() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "${2:-$out}" "$1"; }
attached_id() { ip -n "$a" -d link show "$va" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' | head -1; }
list() { ip netns exec "$a" "$FASTPATH" -j lb list "$va" >"$T/list" || return 1; }
# tid VIP: the table id of VIP in a fresh list
tid() { list && pyeval "[v['table_id'] for v in d['vips'] if v['vip']=='$1'][0]" "$T/list"; }
# be VIP ADDR FIELD: a field of the backend's row in a fresh list
be() { list && pyeval "[b['$3'] for b in d['backends'] if b['vip']=='$1' and b['backend']=='$2'][0]" "$T/list"; }

# ---- usage errors before a load ------------------------------------------------
expect 2 lb load
expect 2 lb load "$va" --conns 100 && check "--conns 100: says the range" grep -q '1024' "$err"
expect 2 lb load "$va" --conns 12x
expect 2 lb load "$va" --src4 172.16.0.1/16 && check "--src4 with host bits: says so" grep -q 'host bits' "$err"
expect 2 lb load "$va" --src6 2001:db8::/64 && check "--src6 /64: says 96..128" grep -q '96..128' "$err"
expect 2 -j lb load "$va" --mode turbo && check "-j usage error is a JSON error" pyok "'native or skb' in d['error']"
expect 2 lb vip add "$va" 198.51.100.10:80/sctp
expect 1 lb list "$va" && check "list without a load says how to load" grep -q 'lb load' "$err"
expect 1 -j lb stats "$va" && check "stats -j without a load: a JSON error" pyok "'error' in d"
check "the refused commands attached nothing" test -z "$(attached_id)"
check "... and pinned nothing" test ! -e "$pins"

# ---- load ------------------------------------------------------------------------
expect 0 -j lb load "$va" --conns 4096 --src4 10.255.0.0/16
check "load -j: conns, src4, default src6" pyok "d['conns']==4096 and d['src4']=='10.255.0.0/16' and d['src6']=='100::/96' and d['load_ms']>0"
check "lb_conns has --conns / 4 buckets" bash -c "bpftool -j map show pinned $pins/lb/lb_conns | python3 -c 'import json,sys; sys.exit(json.load(sys.stdin)[\"max_entries\"]!=1024)'"
check "an XDP program is attached" test -n "$(attached_id)"
expect 0 -j pipeline show "$va"
check "pipeline show: lb loaded and enabled in slot 2" pyok "[(s['slot'],s['loaded'],s['enabled']) for s in d['slots'] if s['stage']=='lb']==[(2,True,True)]"
expect 0 -j status "$va"
check "status lists the lb stage" grep -q '"lb"' "$out"
expect 1 lb load "$va" && check "a second load is refused: says unload first" grep -q 'lb unload' "$err"

# ---- VIPs ------------------------------------------------------------------------
expect 0 -j lb vip add "$va" "$V" --table-size 251
check "vip add: index 0, 5tuple, 251 slots" pyok "d['index']==0 and d['hash']=='5tuple' and d['table_size']==251 and not d['port_any']"
expect 0 -j lb vip add "$va" "$V6" --hash src
check "v6 vip add: index 1, hash src, default 65537 slots" pyok "d['index']==1 and d['hash']=='src' and d['table_size']==65537 and d['vip']=='$V6'"
expect 0 -j lb vip add "$va" "$VA" --port-any --table-size 13
check "port-any vip: index 2" pyok "d['index']==2 and d['port_any'] and d['vip']=='$VA'"
list; cp "$T/list" "$out"
check "list -j: three VIPs read back" pyok "[(v['vip'],v['index'],v['backends']) for v in d['vips']]==[('$V',0,0),('$V6',1,0),('$VA',2,0)]"
check "each VIP has a table" pyok "all(v['table_id']>0 for v in d['vips'])"

refused 1 'exists on' lb vip add "$va" "$V"
refused 2 "'sctp' is not tcp or udp" lb vip add "$va" 198.51.100.12:80/sctp
refused 2 "port '70000'" lb vip add "$va" 198.51.100.12:70000/tcp
refused 2 "'198.51.100.300' is not" lb vip add "$va" 198.51.100.300:80/tcp
refused 2 'give a prime' lb vip add "$va" 198.51.100.12:80/tcp --table-size 250
refused 2 'give a prime' lb vip add "$va" 198.51.100.12:80/tcp --table-size 3
refused 2 'give a prime' lb vip add "$va" 198.51.100.12:80/tcp --table-size 16777259
refused 2 '5tuple or src' lb vip add "$va" 198.51.100.12:80/tcp --hash dst
refused 2 'without a port' lb vip add "$va" 198.51.100.12:80/tcp --port-any
refused 2 'no port' lb vip add "$va" 198.51.100.12/tcp
refused 2 "an IPv6 VIP's port goes after the brackets" lb vip add "$va" 2001:db8::12:80/tcp
refused 1 'no VIP' lb vip del "$va" 198.51.100.99:80/tcp

# ---- backends --------------------------------------------------------------------
t0=$(tid "$V")
expect 0 -j lb backend add "$va" "$V" 10.77.0.11
check "backend add: index 0, gen 1, changed, one active, egress is the veth, warmed" \
	pyok "d['index']==0 and d['gen']==1 and d['changed'] and d['active_backends']==1 and d['egress_ifindex']>0 and not d['egress_redirect'] and d['neigh_warmed']"
t1=$(tid "$V")
check "the add switched in a new table ($t0 -> $t1)" test "$t0" != "$t1"
check "... and the reply named it" test "$(pyeval "d['table_id']")" = "$t1"
expect 0 lb backend add "$va" "$V" 10.77.0.12 --weight 2
expect 0 lb backend add "$va" "$V" 10.77.0.13
list; cp "$T/list" "$out"
check "list: three backends up, slots sum to the table" pyok "len(d['backends'])==3 and all(b['state']=='up' for b in d['backends']) and sum(b['slots'] for b in d['backends'])==251"
check "weight 2 gets about twice the slots of weight 1" \
	pyok "abs([b['slots'] for b in d['backends'] if b['backend']=='10.77.0.12'][0] - 2*[b['slots'] for b in d['backends'] if b['backend']=='10.77.0.11'][0]) <= 6"
t1=$(tid "$V")
expect 0 -j lb backend drain "$va" "$V" 10.77.0.13
check "drain: changed, 2 active" pyok "d['changed'] and d['active_backends']==2"
t2=$(tid "$V")
check "drain switched the table" test "$t1" != "$t2"
check "drained: state drain, no slot" test "$(be "$V" 10.77.0.13 state)/$(be "$V" 10.77.0.13 slots)" = "drain/0"
expect 0 -j lb backend drain "$va" "$V" 10.77.0.13
check "a second drain changes nothing (same table)" bash -c "test '$(tid "$V")' = '$t2' && grep -q '\"changed\":false' $out"
expect 0 lb backend down "$va" "$V" 10.77.0.12
check "down: state down, no slot, new table" bash -c "test '$(be "$V" 10.77.0.12 state)/$(be "$V" 10.77.0.12 slots)' = 'down/0' && test '$(tid "$V")' != '$t2'"
check "the one left up has every slot" test "$(be "$V" 10.77.0.11 slots)" = 251
expect 0 lb backend up "$va" "$V" 10.77.0.12
expect 0 lb backend up "$va" "$V" 10.77.0.13
check "up again: both have slots" bash -c "test '$(be "$V" 10.77.0.12 state)' = up && test '$(be "$V" 10.77.0.13 slots)' -gt 0"
expect 0 lb backend down "$va" "$V" 10.77.0.11
expect 0 lb backend down "$va" "$V" 10.77.0.12
expect 0 -j lb backend down "$va" "$V" 10.77.0.13
check "all down: no active backend" pyok "d['active_backends']==0"
list
check "all down: no backend has a slot" pyok "not any(b['slots'] for b in d['backends'])" "$T/list"
for x in 11 12 13; do expect 0 lb backend up "$va" "$V" 10.77.0.$x; done
expect 0 -j lb backend del "$va" "$V" 10.77.0.11
check "del: two left" test "$(list && pyeval "len(d['backends'])" "$T/list")" = 2
expect 0 -j lb backend add "$va" "$V" 10.77.0.11
check "re-added into the freed entry 0 with gen 2" pyok "d['index']==0 and d['gen']==2"

refused 1 'no VIP' lb backend add "$va" 198.51.100.99:80/tcp 10.77.0.11
refused 1 'no backend 10.77.0.99' lb backend del "$va" "$V" 10.77.0.99
refused 1 'no backend 10.77.0.99' lb backend down "$va" "$V" 10.77.0.99
refused 1 'exists already' lb backend add "$va" "$V" 10.77.0.11
refused 2 'needs IPv6 backends' lb backend add "$va" "$V6" 10.77.0.11
refused 2 'give 1..65535' lb backend add "$va" "$V" 10.77.0.14 --weight 0
refused 2 'give 1..65535' lb backend add "$va" "$V" 10.77.0.14 --weight 70000
refused 2 "'10.77.0' is not" lb backend add "$va" "$V" 10.77.0
refused 2 'not a unicast' lb backend add "$va" "$V" 224.0.0.1
refused 1 'an address of this host' lb backend add "$va" "$V" 10.77.0.1
refused 1 'an address of this host' lb backend add "$va" "$V" 127.0.0.1
refused 1 'an address of this host' lb backend add "$va" "$V6" ::1
refused 2 'expected IFACE VIP BACKEND_ADDR' lb backend add "$va" "$V"
refused 2 "unexpected argument 'extra'" lb backend add "$va" "$V" 10.77.0.14 extra
refused 2 'unknown verb' lb backend bogus "$va" "$V" 10.77.0.11
refused 2 '--weight goes with `backend add`' lb backend down "$va" "$V" 10.77.0.11 --weight 3
expect 0 -j lb backend add "$va" "$V6" 2001:db8::11
check "a v6 backend of the v6 VIP" pyok "d['changed'] and d['active_backends']==1"
expect 0 -j lb backend add "$va" "$V" fd00::11
check "a v6 backend of a v4 VIP (4 in 6)" pyok "d['changed']"
expect 0 lb backend del "$va" "$V" fd00::11

# ---- limits ------------------------------------------------------------------------
for x in 1 2 3; do expect 0 lb backend add "$va" "$VA" 10.77.0.$((20 + x)); done
refused 1 'holds at most 3 backends' lb backend add "$va" "$VA" 10.77.0.24

# ---- concurrent edits: the lock --------------------------------------------------
pids=()
for x in $(seq 30 49); do
	ip netns exec "$a" "$FASTPATH" lb backend add "$va" "$V" 10.77.0.$x >/dev/null 2>"$T/c$x" &
	pids+=($!)
done
cfail=0
for p in "${pids[@]}"; do wait "$p" || cfail=$((cfail + 1)); done
check "20 concurrent adds all succeed" test "$cfail" = 0
list
check "... all 23 backends are there, on distinct entries" \
	pyok "len([b for b in d['backends'] if b['vip']=='$V'])==23 and len({b['index'] for b in d['backends']})==len(d['backends'])" "$T/list"
check "... and all are in the table" pyok "all(b['slots']>0 for b in d['backends'] if b['vip']=='$V')" "$T/list"
for x in $(seq 30 49); do expect 0 lb backend del "$va" "$V" 10.77.0.$x; done

# ---- FP_LB_MAX_VIP_BACKENDS: one VIP's 4,096 backends, filled the same way -----
# (the v6 VIP, index 1: its 65537-slot table would take 16,384 by its size)
list
python3 - "$T/list" "$pins/lb/lb_backends" >"$T/fill1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
used = {b['index'] for b in d['backends']}
mine = sum(1 for b in d['backends'] if b['vip'] == '[2001:db8::10]:443/tcp')
free = [i for i in range(16384) if i not in used][:4096 - mine]
for i in free:
    v = [10, 98, i >> 8 & 255, i & 255] + [0] * 12 + [4, 1, 1, 0] + list((1).to_bytes(4, 'little')) + [1, 0, 0, 0] + [0] * 4
    print('map update pinned %s key %s value %s' % (sys.argv[2], ' '.join(str(b) for b in i.to_bytes(4, 'little')), ' '.join(str(b) for b in v)))
PY
bpftool batch file "$T/fill1" >/dev/null || e2e_fail "cannot fill lb_backends for one VIP"
check "the v6 VIP has 4096 backends" test "$(list && pyeval "sum(1 for b in d['backends'] if b['vip']=='$V6')" "$T/list")" = 4096
refused 1 'has 4096 backends, the most a VIP holds' lb backend add "$va" "$V6" 2001:db8::99
sed -i 's/ value .*/ value 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0/' "$T/fill1"
bpftool batch file "$T/fill1" >/dev/null || e2e_fail "cannot empty lb_backends"

# ---- FP_LB_MAX_BACKENDS: every other entry filled behind the CLI's back --------
# (16,384 pairs through the CLI would take minutes: one bpftool batch writes
# the free entries as backends of an unused VIP index, 400)
list
python3 - "$T/list" "$pins/lb/lb_backends" >"$T/fill" <<'PY'
import json, sys
used = {b['index'] for b in json.load(open(sys.argv[1]))['backends']}
for i in range(16384):
    if i in used:
        continue
    v = [10, 99, i >> 8 & 255, i & 255] + [0] * 12 + [4, 1, 1, 0] + list((400).to_bytes(4, 'little')) + [1, 0, 0, 0] + [0] * 4
    print('map update pinned %s key %s value %s' % (sys.argv[2], ' '.join(str(b) for b in i.to_bytes(4, 'little')), ' '.join(str(b) for b in v)))
PY
bpftool batch file "$T/fill" >/dev/null || e2e_fail "cannot fill lb_backends"
refused 1 'pairs, the most an lb holds' lb backend add "$va" "$V" 10.77.0.60
sed -i 's/ value .*/ value 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0/' "$T/fill"
bpftool batch file "$T/fill" >/dev/null || e2e_fail "cannot empty lb_backends"
expect 0 lb backend add "$va" "$V" 10.77.0.60
expect 0 lb backend del "$va" "$V" 10.77.0.60

# ---- stats ---------------------------------------------------------------------------
expect 0 -j lb stats "$va"
check "stats -j: VIPs, backends, 13 causes" \
	pyok "len(d['vips'])==3 and len(d['backends'])==7 and [c['cause'] for c in d['counters']][:3]==['forward_tx','forward_redirect','not_vip'] and len(d['counters'])==13 and all(k in d['vips'][0] for k in ('packets','bytes','new_flows','conn_hits','conn_misses'))"
expect 0 -j lb stats "$va" --watch 0.2 --count 2
check "--watch --count 2: two JSON lines, the second with rates" \
	bash -c "test \$(wc -l <$out) = 2 && tail -1 $out | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(\"pps\" not in d[\"vips\"][0])'"
expect 2 lb stats "$va" --count 2 && check "--count without --watch: usage error" grep -q 'goes with --watch' "$err"
expect 2 lb stats "$va" --watch y && check "a word after the arguments is named" grep -q "unexpected argument 'y'" "$err"
expect 0 lb list "$va" && check "text list has the VIP" grep -q "$V" "$out"
expect 0 lb --help && check "lb --help lists every verb" bash -c "grep -q 'vip' $out && grep -q 'backend' $out && grep -q stats $out"
expect 0 lb backend add --help && check "backend add --help teaches with an example" grep -q 'fastpath lb backend add eth0' "$out"
for v in "vip add" "backend down"; do
	# shellcheck disable=SC2086
	expect 0 lb $v --help && check "lb $v --help points at its man page, fastpath-lb" grep -qx '       More: man fastpath-lb' "$out"
done

# ---- scale-out: a second lb configured the same builds the same table -----------
ip netns exec "$c" "$FASTPATH" lb load "$vc" >/dev/null 2>"$err" || e2e_fail "second load: $(cat "$err")"
for ns_if in "$a:$va" "$c:$vc"; do
	ns=${ns_if%%:*} ifc=${ns_if#*:}
	ip netns exec "$ns" "$FASTPATH" lb vip add "$ifc" 203.0.113.5:443/tcp >/dev/null
	# a different order of adds in the two: the table must not depend on it
	if [[ $ns == "$a" ]]; then order="11 12 13 14 15"; else order="15 13 11 14 12"; fi
	for x in $order; do
		w=$(( x == 12 ? 3 : 1 ))
		ip netns exec "$ns" "$FASTPATH" lb backend add "$ifc" 203.0.113.5:443/tcp 10.77.0.$x --weight $w >/dev/null
	done
	ip netns exec "$ns" "$FASTPATH" lb backend drain "$ifc" 203.0.113.5:443/tcp 10.77.0.14 >/dev/null
	ip netns exec "$ns" "$FASTPATH" -j lb list "$ifc" >"$T/list_$ns"
	id=$(pyeval "[v['table_id'] for v in d['vips'] if v['vip']=='203.0.113.5:443/tcp'][0]" "$T/list_$ns")
	bpftool -j map dump id "$id" >"$T/dump_$ns"
done
check "two lb hosts configured alike: identical 65537-slot Maglev tables (by backend address)" python3 - "$T/list_$a" "$T/dump_$a" "$T/list_$c" "$T/dump_$c" <<'PY'
import json, sys
def table(lf, df):
    l = json.load(open(lf)); d = json.load(open(df))
    addr = {b['index']: b['backend'] for b in l['backends']}
    v = {}
    for e in d:
        k = e['key']; x = e['value']
        k = int.from_bytes(bytes(int(b, 16) for b in k), 'little') if isinstance(k, list) else int(k)
        x = int.from_bytes(bytes(int(b, 16) for b in x), 'little') if isinstance(x, list) else int(x)
        v[k] = addr.get(x, x)
    return [v[i] for i in range(len(v))]
t1 = table(sys.argv[1], sys.argv[2]); t2 = table(sys.argv[3], sys.argv[4])
print("    slots:", len(t1), "shares:", {a: t1.count(a) for a in sorted(set(t1))}, file=sys.stderr)
sys.exit(0 if len(t1) == 65537 and t1 == t2 and '10.77.0.14' not in t1 else 1)
PY
ip netns exec "$c" "$FASTPATH" lb unload "$vc" >/dev/null

# ---- bash completion ---------------------------------------------------------------
comp() { ip netns exec "$a" env PATH="$(dirname "$FASTPATH"):$PATH" FASTPATH_BPFFS="$FASTPATH_BPFFS" bash -c '
	source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
	_fastpath; echo "${COMPREPLY[*]}"' _ "$E2E_REPO/completion/fastpath.bash" "$@"; }
check "completion: lb verbs" bash -c "[[ ' $(comp fastpath lb '') ' == *' backend '* ]]"
check "completion: backend sub-verbs" test "$(comp fastpath lb backend d)" == "del drain down"
check "completion: the VIPs of an interface" bash -c "[[ ' $(comp fastpath lb backend add "$va" '[') ' == *' $V6 '* ]]"
check "completion: a VIP's backends" bash -c "[[ ' $(comp fastpath lb backend down "$va" "$V" 10.77.0.1) ' == *' 10.77.0.11 '* ]]"

# ---- the VIP limit ---------------------------------------------------------------
# 508 more VIPs (4 are there) in one bpftool batch, as `vip add` writes them
# (index i, 5 slots; their tables are not made: only the limit is tested)
python3 - "$pins/lb/lb_vips" >"$T/vips" <<'PY'
import sys
for i in range(4, 512):
    k = [198, 51, 101, i % 250] + [0] * 12 + list((1000 + i).to_bytes(2, 'little')) + [6, 4]
    v = list(i.to_bytes(4, 'little')) + [0] * 4 + list((5).to_bytes(4, 'little')) + [0] * 4
    print('map update pinned %s key %s value %s' % (sys.argv[1], ' '.join(map(str, k)), ' '.join(map(str, v))))
PY
bpftool batch file "$T/vips" >/dev/null || e2e_fail "cannot fill lb_vips"
check "VIPs up to FP_LB_MAX_VIPS (512) are there" test "$(list && pyeval "len(d['vips'])" "$T/list")" = 512
refused 1 'the most an lb holds' lb vip add "$va" 198.51.100.200:80/tcp --table-size 5
expect 0 lb vip del "$va" 198.51.101.10:1010/tcp
expect 0 -j lb vip add "$va" 198.51.100.200:80/tcp --table-size 5
check "a deleted VIP's index (10) is reused" pyok "d['index']==10"
check "the refusals changed nothing: 512 VIPs" test "$(list && pyeval "len(d['vips'])" "$T/list")" = 512

# ---- vip del, unload ---------------------------------------------------------------
expect 0 -j lb vip del "$va" "$V"
list
check "vip del: it and its backends are gone" pyok "not any(b['vip']=='$V' for b in d['backends']) and not any(v['vip']=='$V' for v in d['vips'])" "$T/list"
expect 0 -j lb unload "$va"
check "unload -j: lb's pins named" pyok "d['unloaded'] and any(p['pin']=='lb/lb_tables' for p in d['pins'])"
check "unload: no XDP program left" test -z "$(attached_id)"
check "unload: no pin left" test ! -e "$pins"
expect 1 lb unload "$va" && check "a second unload: nothing to unload, not 'load it first'" \
	bash -c "grep -q 'nothing to unload' $err && ! grep -q first $err"

e2e_done
