#!/usr/bin/env bash
# Sourced by bench/run.sh (not run alone): the capture section (issue
# 18): `bench/capture_rate.sh` (zero-loss capture rate: fastpath capture,
# tcpdump, tcpdump -B, fastpath dump, xdpdump),
# `bench/inject_rate.sh` (fastpath inject vs tcpreplay --topspeed) and
# `bench/forward_rate.sh`, into the capture-bench markers of $DOC.
# It uses run.sh's settings (ROUNDS, WINDOW, REPEAT, SHARED_ROUNDS, FLOOD_ROUNDS,
# DOC, TMP) and helpers (log, made_by, splice).

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "capture_rate (window $WINDOW s)"
bash bench/capture_rate.sh -w "$WINDOW" -o "$TMP/crate.md" >/dev/null || exit 1
cat "$TMP/crate.md"
log "inject_rate"
bash bench/inject_rate.sh -r "$(( ROUNDS < 3 ? ROUNDS : 3 ))" -o "$TMP/irate.md" >/dev/null || exit 1
cat "$TMP/irate.md"
log "forward_rate"
bash bench/forward_rate.sh -r "$(( ROUNDS < 3 ? ROUNDS : 3 ))" -t "fp_forward bridge router fp_rx_only" -o "$TMP/frate.md" >/dev/null || exit 1
cat "$TMP/frate.md"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "<!-- capture-bench:begin (written by bench/run.sh; edit the script, not this part) -->"
	echo "## Capture and inject (issue 18)"
	echo
	made_by
	echo
	echo "### Zero-loss capture rate (packets/s written to a pcap on tmpfs)"
	echo
	echo "The dump section's ladder (bench/dump_rate.sh) in the lab of \`capture_rate.sh -k gen\`: the"
	echo "generator and the receiver's NAPI kthread (the kernel's receive work) on CPU0, the tool alone"
	echo "on CPU1, so that the generator's frames go back to its page pool on its own CPU (on CPU1 that"
	echo "lock took 30-60% of the CPU and capped every XDP tool; \`-k tool\` is that lab). A rung fails"
	echo "when the tool lost a packet or the generator could not send 97% of the rate beside the"
	echo "receive path. \`fastpath capture\` takes the flood through the steer stage into an AF_XDP"
	echo "socket (copy mode: veth has no zero-copy); tcpdump reads it through AF_PACKET with its"
	echo "default ring and with \`-B 262144\`; lab_drop (no tool, XDP drops) is the lab's ceiling."
	echo "Goals: capture at least 3x tcpdump's zero-loss rate and above \`fastpath dump\`'s."
	echo
	cat "$TMP/crate.md"
	echo
	echo "### Injection rate"
	echo
	cat "$TMP/irate.md"
	echo
	echo "### Forwarding rate (\`fastpath forward\` against the kernel's forwarding)"
	echo
	echo "Generator -> IF1 [forwarder] IF2 -> sink (XDP drop, counted). \`fastpath forward\` sends from"
	echo "IF1's umem on IF2's socket (shared umem, copy mode on veth); the kernel forwards the same flood"
	echo "with a Linux bridge of IF1 and IF2 (L2, the same function) and with ip_forward (L3). Goal: at"
	echo "least the kernel's rate."
	echo
	cat "$TMP/frate.md"
	echo "<!-- capture-bench:end -->"
} >"$TMP/csection.md"
splice capture-bench "$TMP/csection.md"
log "wrote $DOC (capture section)"
