// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fastpath proxy's sockmap data path (src/proxy/pump_sockmap.c): the
 * backend's bytes (responses) redirected to the client socket inside the
 * kernel, never read by the proxy process.
 *
 * Two maps keyed by the backend socket's cookie: px_backends holds backend
 * sockets and has this verdict program attached; px_clients holds the
 * client sockets and has no program, so the proxy still reads requests
 * from them itself. Every skb the backend socket receives goes out of its
 * client socket (egress redirect); px_bytes counts what went, per backend
 * socket, so the proxy can tell how much the kernel moved and when all of
 * it has reached the client socket.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_SOCKHASH);
	__uint(max_entries, 1024); /* set to --max-conns at load */
	__type(key, __u64);
	__type(value, __u64);
} px_backends SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SOCKHASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u64);
} px_clients SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u64);
} px_bytes SEC(".maps");

/* plain "sk_skb": libbpf 1.1 knows no "sk_skb/verdict"; attached as
 * BPF_SK_SKB_VERDICT (no stream parser: each skb as it comes) */
SEC("sk_skb")
int px_verdict(struct __sk_buff *skb)
{
	__u64 cookie = bpf_get_socket_cookie(skb);
	__u64 *n = bpf_map_lookup_elem(&px_bytes, &cookie);
	__u32 len = skb->len;
	long v;

	/* The backend's FIN comes as an empty skb: redirected, the target's
	 * sender would take its 0 bytes sent for a broken pipe and set EPIPE on
	 * the client socket. Dropped here; the proxy sees the EOF on the
	 * backend socket itself. */
	if (!len)
		return SK_DROP;
	v = bpf_sk_redirect_hash(skb, &px_clients, &cookie, 0);

	if (v == SK_PASS && n)
		__sync_fetch_and_add(n, len);
	return v;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
