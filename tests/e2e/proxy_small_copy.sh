#!/usr/bin/env bash
# fastpath proxy's splice data path takes the cheaper way for each response
# size, and says which in its counters (nginx behind the proxy, curl as the
# client, every request on one keep-alive connection):
#  - 100-byte responses are copied (one recv and one send each): nothing
#    spliced, the response bytes counted as copied;
#  - a 1 MiB response then goes through the kernel: all but its first read
#    (at most 16 KiB, and what came before it) spliced;
#  - small responses after it are copied again (after a few bursts);
#  - every byte as nginx serves it.
. "$(dirname "$0")/lib.sh"
e2e_require nginx curl python3

ns=$(e2e_name psc)
e2e_netns_add "$ns"
ip -n "$ns" link set lo up
T=$E2E_TMP
mkdir -p "$T/www/dock" "$T/nginx"
head -c 100 /dev/urandom >"$T/www/dock/small"
head -c $((1 << 20)) /dev/urandom >"$T/www/dock/big"
e2e_nginx "$ns" "$T/nginx" http://127.0.0.1:8080/dock/small <<CONF
	server { listen 127.0.0.1:8080; root $T/www; }
CONF
printf 'allow path /dock*\ndefault deny\n' >"$T/policy"
e2e_bg ip netns exec "$ns" "$FASTPATH" proxy run --listen 127.0.0.1:8000 --backend 127.0.0.1:8080 \
	--policy "$T/policy" --control "$T/ctl.sock" --data-path splice
e2e_wait_for "[[ -S $T/ctl.sock ]]" 10 || e2e_fail "the proxy did not start"
P=http://127.0.0.1:8000
counters() { # "SPLICED COPIED"
	ip netns exec "$ns" "$FASTPATH" -j proxy stats --control "$T/ctl.sock" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["bytes_spliced"], d["bytes_copied"])'
}
# N GETs of /dock/small on one connection (after ARGS), each compared
gets() {
	local n=$1 args=() i
	shift
	for i in $(seq "$n"); do args+=(-o "$T/s$i" "$P/dock/small"); done
	ip netns exec "$ns" curl -s --max-time 30 "$@" "${args[@]}" -w '%{num_connects}\n' >"$T/nc" ||
		e2e_fail "GETs failed"
	for i in $(seq "$n"); do
		cmp -s "$T/s$i" "$T/www/dock/small" || e2e_fail "response $i differs from nginx's file"
	done
}
read -r sp0 cp0 <<<"$(counters)"
gets 20
[[ $(sort -u "$T/nc" | tr -d '\n') == 01 || $(sort -u "$T/nc" | tr -d '\n') == 10 ]] ||
	e2e_fail "not one connection: $(tr '\n' ' ' <"$T/nc")"
read -r sp1 cp1 <<<"$(counters)"
e2e_log "20 x 100 B: $((sp1 - sp0)) bytes spliced, $((cp1 - cp0)) copied"
(( sp1 == sp0 )) || e2e_fail "100-byte responses spliced ($((sp1 - sp0)) bytes), not copied"
(( cp1 - cp0 >= 20 * 100 )) || e2e_fail "100-byte responses: only $((cp1 - cp0)) bytes counted as copied"

ip netns exec "$ns" curl -s --max-time 30 -o "$T/big" "$P/dock/big" && cmp -s "$T/big" "$T/www/dock/big" ||
	e2e_fail "1 MiB: bytes differ from nginx's file"
read -r sp2 cp2 <<<"$(counters)"
e2e_log "1 MiB: $((sp2 - sp1)) bytes spliced, $((cp2 - cp1)) copied"
(( sp2 - sp1 >= (1 << 20) - 65536 && cp2 - cp1 <= 65536 + 1024 )) ||
	e2e_fail "1 MiB: $((sp2 - sp1)) spliced, $((cp2 - cp1)) copied; want all but its first reads spliced"

# big, then small ones on the same connection: copied again after a few
gets 20 -o "$T/big2" "$P/dock/big"
cmp -s "$T/big2" "$T/www/dock/big" || e2e_fail "1 MiB before small ones: bytes differ"
read -r sp3 cp3 <<<"$(counters)"
e2e_log "1 MiB then 20 x 100 B: $((sp3 - sp2)) bytes spliced, $((cp3 - cp2)) copied"
(( sp3 - sp2 >= (1 << 20) - 65536 && sp3 - sp2 < (1 << 20) + 8 * 1024 && cp3 - cp2 >= 12 * 100 )) ||
	e2e_fail "1 MiB then 100 B: $((sp3 - sp2)) spliced, $((cp3 - cp2)) copied; want the small ones copied"
e2e_pass "100 B responses copied ($((cp1 - cp0)) bytes, none spliced), 1 MiB spliced ($((sp2 - sp1)) of it), small ones copied again after"
