#!/usr/bin/env bash
# fastpath proxy run --transparent on an nft tproxy rule, end to end in three
# namespaces: a client (10.20.0.2) whose default route is a router
# (10.20.0.1) that runs the proxy, and a web server at an outside address
# (198.51.100.10, nginx) behind the router. The router diverts the client's
# TCP port 80 to the proxy with the rule of fastpath-proxy(8):
#   nft: tcp dport 80 tproxy ip to :3129 meta mark set 1
#   ip rule add fwmark 1 lookup 100; ip route add local 0.0.0.0/0 dev lo table 100
#  - the client's requests to the outside address are decided by the
#    policy: /dock served (by the server, from the proxy's address),
#    /exhaust-port and its encoded forms 403 from the proxy, never seen by
#    the server; counted on the "original-destination" backend;
#  - a connection made to the proxy's own port is refused 502 (no loop);
#  - with the proxy stopped, the rule finds no socket and the packets are
#    routed as they are (the server then sees the client's own address).
. "$(dirname "$0")/lib.sh"
e2e_require nginx curl nft

cl=$(e2e_name tc); rt=$(e2e_name tr); sv=$(e2e_name ts)
e2e_netns_add "$cl"; e2e_netns_add "$rt"; e2e_netns_add "$sv"
e2e_veth "$cl" "$(e2e_name c0)" "$rt" "$(e2e_name r0)" 10.20.0.2 10.20.0.1
e2e_veth "$rt" "$(e2e_name r1)" "$sv" "$(e2e_name s0)"
ip -n "$rt" addr add 198.51.100.1/24 dev "$(e2e_name r1)"
ip -n "$sv" addr add 198.51.100.10/24 dev "$(e2e_name s0)"
ip -n "$cl" route add default via 10.20.0.1
ip -n "$sv" route add default via 198.51.100.1
ip netns exec "$rt" sysctl -qw net.ipv4.ip_forward=1

T=$E2E_TMP
mkdir -p "$T/www/dock" "$T/www/exhaust-port" "$T/nginx"
echo "dock" >"$T/www/dock/index.html"
echo "the exhaust port" >"$T/www/exhaust-port/index.html"
cat >"$T/nginx.conf" <<CONF
user root root;
pid $T/nginx.pid;
error_log $T/nginx/error.log;
worker_processes 1;
events { worker_connections 64; }
http {
	log_format src '\$remote_addr \$request_uri';
	access_log $T/nginx/access.log src;
	client_body_temp_path $T/nginx/body;
	proxy_temp_path $T/nginx/proxy;
	fastcgi_temp_path $T/nginx/fastcgi;
	uwsgi_temp_path $T/nginx/uwsgi;
	scgi_temp_path $T/nginx/scgi;
	server { listen 198.51.100.10:80; root $T/www; }
}
CONF
e2e_bg ip netns exec "$sv" nginx -p "$T/nginx" -c "$T/nginx.conf" -g 'daemon off;'
e2e_wait_for "ip netns exec $rt curl -sf -o /dev/null http://198.51.100.10/dock/" 10 ||
	e2e_fail "nginx did not start: $(cat "$T/nginx/error.log" 2>/dev/null)"
c() { ip netns exec "$cl" curl -s --max-time 5 "$@"; }
# routed, before any diversion
[[ $(c http://198.51.100.10/exhaust-port/) == "the exhaust port" ]] ||
	e2e_fail "no route from the client to the server"

# ---- the diversion (as in fastpath-proxy(8), TRANSPARENT MODE) ---------------
ip netns exec "$rt" nft -f - <<NFT || e2e_skip "nft tproxy not available in this kernel"
table inet fptproxy {
	chain prerouting {
		type filter hook prerouting priority mangle; policy accept;
		iifname "$(e2e_name r0)" meta l4proto tcp tcp dport 80 tproxy ip to :3129 meta mark set 1 accept
	}
}
NFT
ip -n "$rt" rule add fwmark 1 lookup 100
ip -n "$rt" route add local 0.0.0.0/0 dev lo table 100
cat >"$T/policy" <<POL
allow path /dock*
deny path /exhaust-port* status 403
default deny
POL
e2e_bg ip netns exec "$rt" "$FASTPATH" proxy run --transparent --listen 0.0.0.0:3129 \
	--policy "$T/policy" --control "$T/ctl.sock" --access-log "$T/access.log"
proxy=$E2E_BG_PID
e2e_wait_for "[[ -S $T/ctl.sock ]]" 10 || e2e_fail "the proxy did not start"

[[ $(c http://198.51.100.10/dock/) == dock ]] || e2e_fail "/dock/ not served through the proxy"
for p in /exhaust-port /exhaust-port/ /%65xhaust-port //exhaust-port /dock/../exhaust-port; do
	code=$(c --path-as-is -o /dev/null -w '%{http_code}' "http://198.51.100.10$p")
	[[ $code == 403 ]] || e2e_fail "$p: $code, want 403 from the proxy"
done
# the server saw /dock/ from the proxy's address, and no exhaust port since the proxy started
grep -q '^198.51.100.1 /dock/$' "$T/nginx/access.log" ||
	e2e_fail "the server did not see /dock/ from the proxy: $(cat "$T/nginx/access.log")"
[[ $(grep -c 'exhaust' "$T/nginx/access.log") == 1 ]] ||
	e2e_fail "an exhaust-port request reached the server: $(cat "$T/nginx/access.log")"
# the proxy's own port, directly: no original destination to go to
code=$(c -o /dev/null -w '%{http_code}' http://10.20.0.1:3129/dock/)
[[ $code == 502 ]] || e2e_fail "direct to the proxy: $code, want 502"
st=$(ip netns exec "$rt" "$FASTPATH" -j proxy stats --control "$T/ctl.sock")
got=$(python3 -c 'import json,sys; o=json.load(sys.stdin); b=o["backends"][0]; r=o["rules"]
print(b["address"], b["requests"], r[0]["allowed"], r[1]["statuses"].get("403"), o["refused"]["502"])' <<<"$st")
[[ $got == "original-destination 1 1 5 1" ]] || e2e_fail "counters: $got: $st"
grep -q ' /dock/ forward rule=line:1' "$T/access.log" || e2e_fail "access log: $(cat "$T/access.log")"

# ---- the proxy gone: nft's tproxy finds no socket and the packets are
# routed as they are (fail open, as fastpath-proxy(8) says): the server
# sees the client itself
e2e_kill "$proxy"
[[ $(c http://198.51.100.10/exhaust-port/) == "the exhaust port" ]] ||
	e2e_fail "with the proxy stopped, not routed"
grep -q '^10.20.0.2 /exhaust-port/$' "$T/nginx/access.log" ||
	e2e_fail "with the proxy stopped, the server did not see the client: $(cat "$T/nginx/access.log")"
e2e_pass "tproxy: the client's requests to an outside address decided by the policy, served from the original destination, 403s never reach it"
