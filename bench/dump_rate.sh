#!/usr/bin/env bash
# Sustained write rate of a packet dump: the highest offered rate (60 B UDP,
# packets/s) at which the tool writes EVERY packet it was asked to capture to
# a pcapng file on tmpfs, with zero loss; `fastpath dump` side by side with
# xdpdump (xdp-tools 1.3) under the same load.
#
#   bench/dump_rate.sh [-w WINDOW_S] [-l "PPS ..."] [-b STEPS] [-B BUDGET_S]
#                      [-t "target ..."] [-o OUT.md]
#
# Environment: FASTPATH (build/fastpath), the binary to measure (a copy is run).
#
# targets:
#   fp_drop  fastpath filter `drop udp dport 11211`, `fastpath dump --drops`,
#            no sampling: every dropped packet is to be written.
#   fp_pass  fastpath filter `pass udp dport 11211`, `fastpath dump` (all
#            packets): the packets go on to the stack, as with xdpdump.
#   xdpdump  `xdpdump -i IFACE --load-xdp-program -w FILE`: xdpdump's own
#            capture program (it returns XDP_PASS; xdpdump has no filter).
#            Its other mode, fentry/fexit on an attached program
#            (`--rx-capture entry,exit` on fastpath's pipeline), fails on this
#            kernel: BPF_PROG_LOAD of the fentry program returns EPERM.
#
# The ladder, the rungs and their pass rule are bench/capture_rate.sh's
# (its header says them: zero loss by the tool's own count, every packet
# the XDP program handed it written, the file holding that many by
# capinfos, < 10% refused at the veth ring, the generator's rate sent),
# in its `-k tool` lab: the receiver veth's threaded NAPI kthread on CPU1
# (SCHED_FIFO, as softirq would be) with the dump process, the generator
# alone on CPU0. That is the lab dump's figures were first measured in;
# capture's bench runs dump in the `-k gen` lab too (target fp_pass).
set -uo pipefail

targets=
while getopts "w:l:b:B:t:o:" c; do
	case $c in
	t) targets=$OPTARG ;;
	w|l|b|B|o) ;;
	*) echo "usage: $0 [-w WINDOW_S] [-l \"PPS ...\"] [-b STEPS] [-B BUDGET_S] [-t TARGETS] [-o OUT.md]" >&2
	   exit 2 ;;
	esac
done
for t in $targets; do
	case $t in fp_drop|fp_pass|xdpdump) ;; *) echo "dump_rate: unknown target '$t'" >&2; exit 2 ;; esac
done
CAPTURE_RATE_SCRIPT=dump_rate.sh exec bash "$(dirname "${BASH_SOURCE[0]}")/capture_rate.sh" \
	-t "fp_drop fp_pass xdpdump" -k tool "$@"
