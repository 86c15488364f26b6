#!/usr/bin/env bash
# Where the lb's forwarding cost per packet goes: builds variants of the
# tree with parts of the lb stage taken out, one after another, and
# measures each two ways: in the shared-CPU lab of bench/lb_rate.sh beside
# nft DNAT in the same run (paired by round), and by BPF_PROG_TEST_RUN
# (build/bench/lb_cost -a: the established flow's whole way, repeated;
# the variants' builds alternate round by round, each round the median
# of 3 runs, the median of COST_ROUNDS rounds). Not part of `make bench`: it
# builds the tree five times.
#
#   bench/lb_ablate.sh [-r ROUNDS] [-w WINDOW_S] [-c COST_ROUNDS] [-n] [-o OUT.md]
#
# -n: the test-run figures only (no lab).
#
# Variants (perl edits of src/lb/lb.bpf.c and src/lb/lb_flow.h in a copy
# of the working tree; the script stops if an edit no longer applies):
#   full        the lb as it is
#   no-insert   a connection-table miss records no flow (every packet of
#               the `new` flood pays the Maglev read but not the insert)
#   no-fib      no bpf_fib_lookup: the next hop's MAC is the frame's
#               source (what the lookup finds in this lab)
#   no-encap    no-fib without the encapsulation either: the MACs swapped
#               and XDP_TX, the client's packet as it came
#   no-pick     no-encap without the connection table and Maglev: a fixed
#               backend entry (its stats looked up as the pick does);
#               what is left is fp_entry's parse, the tail call, the VIP
#               lookup, the stats and XDP_TX: the floor of this design
# The bench lock (FP_BENCH_LOCK, /tmp/fp-bench.lock) is taken for the
# test-run rounds, then for each lb_rate.sh call. Figures: docs/benchmarks.md,
# "lb: the established flow, fifth session" (and the earlier "lb:" sections).
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=3 WINDOW=3 CROUNDS=5 LAB=1 OUT= LOCK=${FP_BENCH_LOCK:-/tmp/fp-bench.lock}
while getopts "r:w:c:no:" c; do
	case $c in
	r) ROUNDS=$OPTARG ;; w) WINDOW=$OPTARG ;; c) CROUNDS=$OPTARG ;; n) LAB=0 ;; o) OUT=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-w WINDOW_S] [-c COST_ROUNDS] [-n] [-o OUT.md]" >&2; exit 2 ;;
	esac
done
(( ROUNDS >= 1 && ROUNDS <= 10 && WINDOW >= 1 && WINDOW <= 30 && CROUNDS >= 1 && CROUNDS <= 20 )) ||
	{ echo "lb_ablate: ROUNDS 1..10, WINDOW 1..30, COST_ROUNDS 1..20" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "lb_ablate: needs root" >&2; exit 77; }
TMP=$(mktemp -d /tmp/fp-lbablate.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
log() { printf '[%s lb_ablate] %s\n' "$(date +%T)" "$*" >&2; }

BPF=src/lb/lb.bpf.c FLOW=src/lb/lb_flow.h
NOINSERT='s/\tif \(b\)\n\t\tlb_record\(b, way < FP_LB_WAYS \? way : lb_victim\(b\), tag, s, slot, be->gen\);\n/\t(void)tag;\n/'
NOFIB='s/\tswitch \(lb_next_hop\(ctx, &fib, s, osrc, pkt->len \+ outer, pkt->l3, macbuf, &macs\)\) \{/\t__builtin_memcpy(macbuf, l2.mac + 6, 6);\n\t__builtin_memcpy(macbuf + 6, l2.mac, 6);\n\tfib.ifindex = ctx->ingress_ifindex;\n\tswitch (BPF_FIB_LKUP_RET_SUCCESS) {/'
NOENCAP='s/\t\trc = lb_encap\(ctx, pkt, s, &l2, macs, osrc\);\n/\t\trc = lb_put_l2(ctx, &l2, macs, LB_ETH_P_IP) < 0 ? FP_LB_C_ERROR : LB_GO;\n/'
NOPICK='s/\t\treason = lb_pick_backend\(&s\);\n/\t\t{ s.be.family = 4; s.be_index = 0; s.hash = 0; asm volatile("" : "+r"(s.be_index)); s.vs = lb_stats(&lb_vip_stats, s.vip_index); s.bs = lb_stats(&lb_be_stats, s.be_index); }\n/'

# variant NAME FILE:EDIT...: build/fastpath of the working tree with the edits
variant() {
	local name=$1 d=$TMP/$1 e f
	shift
	mkdir -p "$d"
	(cd "$REPO" && git ls-files -z | xargs -0 cp --parents -t "$d") || return 1
	for e in "$@"; do
		f=${e%%:*} e=${e#*:}
		cp "$d/$f" "$d/$f.orig"
		perl -0pi -e "$e" "$d/$f"
		cmp -s "$d/$f" "$d/$f.orig" && { log "$name: an edit no longer applies to $f"; return 1; }
	done
	log "building $name"
	make -C "$d" -j2 build/fastpath build/bench/xdp_drop_attach build/bench/lb_cost >"$TMP/$name.log" 2>&1 ||
		{ tail -n 20 "$TMP/$name.log" >&2; return 1; }
}

variant full && variant no-insert "$FLOW:$NOINSERT" &&
	variant no-fib "$BPF:$NOFIB" && variant no-encap "$BPF:$NOFIB" "$BPF:$NOENCAP" &&
	variant no-pick "$BPF:$NOFIB" "$BPF:$NOENCAP" "$BPF:$NOPICK" || exit 1

declare -A what=(
	[full]="the lb as it is"
	[no-insert]="a miss records no flow"
	[no-fib]="no fib lookup"
	[no-encap]="no fib lookup, no encapsulation (MACs swapped, XDP_TX)"
	[no-pick]="neither, nor connection table and Maglev (fixed backend)"
)
VARIANTS="full no-insert no-fib no-encap no-pick"
# The test-run figures: every variant's lb_cost once a round, alternating,
# the bench lock held for all of it (a few seconds a run; children do not
# keep it).
exec 9>"$LOCK"
flock 9
for ((i = 1; i <= CROUNDS; i++)); do
	for v in $VARIANTS; do
		# the median of 3 runs (each figure less the prelude's own, timed
		# apart: the least would pick the runs whose prelude timing was high)
		for k in 1 2 3; do
			"$TMP/$v/build/bench/lb_cost" -a -r 300000 -f 5000 >"$TMP/$v.cost" 2>"$TMP/$v.costerr" 9>&- ||
				{ cat "$TMP/$v.costerr" >&2; exit 1; }
			awk -F'|' '/^\| established flow, the whole way/ { e = $3 + 0 }
				/^\| new flow, the whole way/ { n = $3 + 0 }
				END { print e, n }' "$TMP/$v.cost"
		done | awk '{ e[NR] = $1; n[NR] = $2 } END {
			for (i = 1; i <= 3; i++) { a = 0; b = 0
				for (j = 1; j <= 3; j++) { a += e[j] < e[i] || (e[j] == e[i] && j < i); b += n[j] < n[i] || (n[j] == n[i] && j < i) }
				if (a == 1) me = e[i]; if (b == 1) mn = n[i] }
			print me, mn }' >>"$TMP/$v.costs"
	done
	log "test-run round $i of $CROUNDS (load $(cut -d' ' -f1-3 /proc/loadavg))"
done
exec 9>&-
# med COLUMN FILE: "median (min-max)" of a column
med() { sort -n -k"$1" "$2" | awk -v c="$1" '{ a[NR] = $c } END {
	printf "%d (%d-%d)", a[int((NR + 1) / 2)], a[1], a[NR] }'; }
{
	echo "| variant | established flow, whole way, test run ns (median; min-max) | new flow, whole way, test run ns |"
	echo "|---|---:|---:|"
	for v in $VARIANTS; do
		echo "| ${what[$v]} | $(med 1 "$TMP/$v.costs") | $(med 2 "$TMP/$v.costs") |"
	done
} >"$TMP/cost.md"

: >"$TMP/table.md"
if ((LAB)); then
	{
		echo "| variant | flood | lb ns/packet (median of rounds) | nft ns, same run | nft / lb, paired by round |"
		echo "|---|---|---:|---:|---:|"
	} >"$TMP/table.md"
	for v in $VARIANTS; do
		log "$v: lb_rate.sh -r $ROUNDS -w $WINDOW (load $(cut -d' ' -f1-3 /proc/loadavg))"
		FP_BIN=$TMP/$v/build/fastpath flock -o "$LOCK" bash "$TMP/$v/bench/lb_rate.sh" -r "$ROUNDS" -w "$WINDOW" \
			-f "one new" -o "$TMP/$v.md" >/dev/null 2>"$TMP/$v.err" || { cat "$TMP/$v.err" >&2; exit 1; }
		awk -F'|' -v label="${what[$v]}" '
			function num(x) { gsub(/[ *]/, "", x); sub(/\(.*/, "", x); return x + 0 }
			$3 ~ /lb/ { l[$2] = num($4); p[$2] = $6; gsub(/^ +| +$/, "", p[$2]) }
			$3 ~ /nft/ { n[$2] = num($4) }
			END { for (f in l) printf "| %s | %s | %d | %d | %s |\n", label, f, l[f], n[f], p[f] }' \
			"$TMP/$v.md" | sort -t'|' -k3 >>"$TMP/table.md"
		log "$v: $(tr '\n' ' ' <"$TMP/$v.md" | tail -c 400)"
	done
fi
{
	echo "Command: \`bench/lb_ablate.sh -r $ROUNDS -w $WINDOW -c $CROUNDS$( ((LAB)) || echo " -n")\` at $(cd "$REPO" && git rev-parse --short HEAD)," \
	     "$(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg) at the end."
	echo
	echo "By BPF_PROG_TEST_RUN (build/bench/lb_cost -a -r 300000 -f 5000, the median of 3 runs a round, $CROUNDS rounds, builds alternating):"
	echo
	cat "$TMP/cost.md"
	if ((LAB)); then
		echo
		echo "In the shared-CPU lab (bench/lb_rate.sh -r $ROUNDS -w $WINDOW -f 'one new'), beside nft:"
		echo
		cat "$TMP/table.md"
	fi
} | tee "$TMP/out.md"
[[ -n $OUT ]] && cp "$TMP/out.md" "$OUT"
exit 0
