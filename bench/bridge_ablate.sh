#!/usr/bin/env bash
# Where the bridge's known-unicast frame goes, and where the floor of an
# XDP_REDIRECT switch on veth is in this lab: builds variants of the tree
# with parts of the bridge stage taken out and measures each two ways:
# by BPF_PROG_TEST_RUN (build/bench/bridge_cost: the entry + bridge row,
# the variants' builds alternating call by call, each call the median of
# 3 rounds), and in the two-CPU lab of bench/bridge_rate.sh (test rate,
# frames a second and frames per CPU1-second), every variant beside the
# Linux bridge and the bare redirects (redir, redirmac) in one run, targets
# interleaved round by round, ratios paired by round. Not part of
# `make bench`: it builds the tree once a variant.
#
#   bench/bridge_ablate.sh [-r ROUNDS] [-p ROUNDS_A_PIECE] [-W RATE_WINDOW_S]
#                          [-c COST_CALLS] [-n] [-v "VARIANT ..."] [-b REV] [-o OUT.md]
#
# -n: the test-run figures only (no lab). -b REV: one more variant, base:
# the bridge and the pipeline (src/bridge, bpf/, include/) as at git REV,
# to A/B a change of the working tree. The lab runs in pieces of -p rounds
# (default 3), each one bench/bridge_rate.sh call under the bench lock
# (FP_BENCH_LOCK, /tmp/fp-bench.lock), so that no piece holds it long.
#
# Variants (perl edits of src/bridge/bridge.bpf.c in a copy of the
# working tree; the script stops if an edit no longer applies):
#   full       the bridge as it is
#   no-stats   no counters (the per-CPU stats lookup and every count)
#   no-learn   no learning (the source's check, cached or not)
#   no-lcache  learning without the per-CPU cache of the last source: an
#              FDB lookup of the source on every frame (as before it)
#   no-dcache  no per-CPU cache of the last destination: the FDB lookup
#              of the destination on every frame (if the tree has it)
#   no-host    no test for a host address
#   no-vlan    no VLAN branch (a VLAN-unaware bridge pays a flag test)
#   no-end     no fp_stage_end: the action returned as it is (no dump
#              offer, no tail call on for XDP_PASS)
#   bare       all of these: the scratch and config lookups, the source
#              check, the FDB lookup of the destination and the redirect
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=6 PIECE=3 RUNG=3 CALLS=7 LAB=1 OUT= BASE= LOCK=${FP_BENCH_LOCK:-/tmp/fp-bench.lock}
VARIANTS="full no-stats no-learn no-lcache no-host no-vlan no-end bare"
usage="usage: $0 [-r ROUNDS] [-p ROUNDS_A_PIECE] [-W RATE_WINDOW_S] [-c COST_CALLS] [-n] [-v 'VARIANT ...'] [-b REV] [-o OUT.md]"
while getopts "r:p:W:c:nv:b:o:" c; do
	case $c in
	r) ROUNDS=$OPTARG ;; p) PIECE=$OPTARG ;; W) RUNG=$OPTARG ;; c) CALLS=$OPTARG ;; n) LAB=0 ;;
	v) VARIANTS=$OPTARG ;; b) BASE=$OPTARG ;; o) OUT=$OPTARG ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
[[ "$ROUNDS $PIECE $RUNG $CALLS" =~ ^[0-9]+\ [0-9]+\ [0-9]+\ [0-9]+$ ]] &&
	(( ROUNDS >= 1 && ROUNDS <= 20 && PIECE >= 1 && PIECE <= 10 && RUNG >= 1 && RUNG <= 30 && CALLS >= 1 && CALLS <= 30 )) ||
	{ echo "bridge_ablate: ROUNDS 1..20, ROUNDS_A_PIECE 1..10, RATE_WINDOW_S 1..30, COST_CALLS 1..30" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "bridge_ablate: needs root" >&2; exit 77; }
if [[ -n $BASE ]]; then
	git -C "$REPO" rev-parse -q --verify "$BASE^{commit}" >/dev/null || { echo "bridge_ablate: -b $BASE: no such commit" >&2; exit 2; }
	VARIANTS="base $VARIANTS"
fi
TMP=$(mktemp -d /tmp/fp-brablate.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
log() { printf '[%s bridge_ablate] %s\n' "$(date +%T)" "$*" >&2; }

BPF=src/bridge/bridge.bpf.c
E_STATS='s/\tst = bpf_map_lookup_elem\(&fp_br_stats, &zero\);/\tst = NULL;/'
E_LEARN='s/\tlearn\(c, eth->h_source, vid, in, now, cfg, st\);\n//'
E_LCACHE='s/\tif \(c && now < c->until && c->in == in/\tif (0 \&\& c \&\& now < c->until \&\& c->in == in/'
E_DCACHE='s/\tif \(c && now < c->dst_until/\tif (0 \&\& c \&\& now < c->dst_until/'
E_HOST='s/\tif \(\(cfg->host_bits & fp_br_host_bit\(eth->h_dest\)\) &&\n\t    bpf_map_lookup_elem\(&fp_br_host, &k\)\) \{/\tif (0) {/'
E_VLAN='s/\tif \(cfg->flags & FP_BR_VLAN_AWARE\) \{/\tif (0) {/'
E_END='s/\treturn fp_stage_end\(ctx, pkt, fp_ctl_get\(\), slot, action, 1\);/\t(void)slot;\n\treturn action;/'
declare -A edits=(
	[full]="" [base]="" [no-stats]="$E_STATS" [no-learn]="$E_LEARN" [no-lcache]="$E_LCACHE"
	[no-dcache]="$E_DCACHE" [no-host]="$E_HOST" [no-vlan]="$E_VLAN" [no-end]="$E_END"
)
declare -A what=(
	[full]="the bridge as it is" [base]="the bridge at $BASE" [no-stats]="no counters"
	[no-learn]="no learning" [no-lcache]="learning, no cache of the last source"
	[no-dcache]="no cache of the last destination" [no-host]="no host-address test"
	[no-vlan]="no VLAN branch" [no-end]="no fp_stage_end"
	[bare]="none of these: scratch, config, source check, FDB lookup, redirect"
)
for v in $VARIANTS; do
	[[ -n ${what[$v]:-} ]] || { echo "bridge_ablate: variant '$v': give one of ${!what[*]}" >&2; exit 2; }
done

# variant NAME: the tree (and its build, copied: make rebuilds what the
# edits touch) with NAME's edits, built into $TMP/NAME
variant() {
	local name=$1 d=$TMP/$1 e list
	mkdir -p "$d"
	(cd "$REPO" && git ls-files -z | xargs -0 cp -a --parents -t "$d" && cp -a build "$d/") || return 1
	local stale= f h
	if [[ $name == base ]]; then
		(cd "$REPO" && git diff "$BASE" -- src/bridge bpf include) | (cd "$d" && patch -R -s -p1) || return 1
		# the objects of the C files it changed, and of those that include a header it changed
		for f in $(cd "$REPO" && git diff --name-only "$BASE" -- src/bridge bpf include); do
			case $f in
			src/*.c) [[ $f == *.bpf.c ]] || stale+=" build/obj/${f#src/}" ;;
			*.h) h=${f##*/}
			     for c in $(cd "$d" && grep -rl --include='*.c' "[/\"<]$h[\">]" src | grep -v '\.bpf\.c$'); do stale+=" build/obj/${c#src/}"; done ;;
			esac
		done
		stale=${stale//.c/.o}" build/obj/bridge/*.o build/obj/cli/bridge*.o"
	elif [[ $name == bare ]]; then
		list=("$E_STATS" "$E_LEARN" "$E_HOST" "$E_VLAN" "$E_END")
	else
		list=("${edits[$name]}")
	fi
	for e in "${list[@]}"; do
		[[ -n $e ]] || continue
		cp "$d/$BPF" "$d/$BPF.orig"
		perl -0pi -e "$e" "$d/$BPF"
		cmp -s "$d/$BPF" "$d/$BPF.orig" && { log "$name: an edit no longer applies to $BPF"; return 1; }
		rm "$d/$BPF.orig"
	done
	log "building $name"
	# Only the bridge's object, its skeleton and what includes it: every
	# object depends on every skeleton, so the new skeleton is made by
	# hand, the tree's times are then made equal (nothing newer than what
	# it makes) and what includes bridge.skel.h is removed to be made again.
	(cd "$d" && make -j2 build/bpf/bridge/bridge.bpf.o &&
		bpftool gen skeleton build/bpf/bridge/bridge.bpf.o name bridge_bpf >build/skel/bridge.skel.h &&
		find . -exec touch -h -d @"$(date +%s -d '1 hour ago')" {} + &&
		rm -f build/obj/bridge/bridge_port.o build/libfastpath.a build/fastpath build/bench/bridge_cost $stale &&
		make -j2 build/fastpath build/bench/bridge_cost build/bench/xdp_drop_attach build/bench/bridge_redirect_attach) \
		>"$TMP/$name.log" 2>&1 || { tail -n 20 "$TMP/$name.log" >&2; return 1; }
}
for v in $VARIANTS; do variant "$v" || exit 1; done

# The test-run figures: each variant's bridge_cost once a call, alternating,
# under the bench lock (a few seconds a call; children do not keep it).
exec 9>"$LOCK"
flock 9
for ((i = 1; i <= CALLS; i++)); do
	for v in $VARIANTS; do
		"$TMP/$v/build/bench/bridge_cost" --repeat 1000000 --rounds 3 >"$TMP/$v.cost" 2>"$TMP/$v.costerr" 9>&- ||
			{ log "$v: bridge_cost failed"; cat "$TMP/$v.costerr" >&2; exit 1; }
		awk -F'|' -v i="$i" '/^\| entry alone/ { e = $3 + 0 } /^\| entry \+ bridge: known unicast/ { b = $3 + 0 }
			END { print i, b, e }' "$TMP/$v.cost" >>"$TMP/$v.costs"
	done
	log "test-run call $i of $CALLS (load $(cut -d' ' -f1-3 /proc/loadavg))"
done
exec 9>&-
# stats FILE COL [REF COL]: "median (min-max)" of a column, or of its
# difference from REF's, paired by the first column
stats() {
	awk -v c="$2" -v rc="${4:-0}" -v ref="${3:-}" '
	function med(v, n,    i, j, x) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	FILENAME == ref { r[$1] = $rc; next }
	{ x = ref == "" ? $c : $c - r[$1]; n++; v[n] = x; if (n == 1 || x < lo) lo = x; if (x > hi) hi = x }
	END { if (n) printf (lo < 0 ? "%+.1f (%+.0f to %+.0f)" : "%.1f (%.0f-%.0f)"), med(v, n), lo, hi }' ${3:+"$3"} "$1"
}
REF=full
[[ " $VARIANTS " == *" full "* ]] || REF=${VARIANTS%% *}
{
	echo "| variant | entry + bridge, known unicast, ns (median; min-max) | minus $REF's, paired | entry alone, ns |"
	echo "|---|---:|---:|---:|"
	for v in $VARIANTS; do
		echo "| $v: ${what[$v]} | $(stats "$TMP/$v.costs" 2) | $(stats "$TMP/$v.costs" 2 "$TMP/$REF.costs" 2) | $(stats "$TMP/$v.costs" 3) |"
	done
} >"$TMP/cost.md"

: >"$TMP/lab.md"
if ((LAB)); then
	targets="linux redir redirmac" fpv=
	for v in $VARIANTS; do targets+=" fp.$v" fpv+=" $v=$TMP/$v/build/fastpath"; done
	done_rounds=0 piece=0
	while (( done_rounds < ROUNDS )); do
		n=$(( ROUNDS - done_rounds < PIECE ? ROUNDS - done_rounds : PIECE ))
		piece=$(( piece + 1 ))
		log "lab piece $piece: $n round(s) of $targets (load $(cut -d' ' -f1-3 /proc/loadavg))"
		FP_VARIANTS=$fpv FP_BIN=$TMP/full/build/fastpath flock -o "$LOCK" bash "$REPO/bench/bridge_rate.sh" \
			-r "$n" -W "$RUNG" -T rate -t "$targets" -k "$TMP/piece$piece" >/dev/null 2>"$TMP/piece$piece.err" ||
			{ tail -n 20 "$TMP/piece$piece.err" >&2; exit 1; }
		for f in best cap; do
			awk -v o="$done_rounds" '{ $3 += o; print }' "$TMP/piece$piece/$f" >>"$TMP/$f"
		done
		done_rounds=$(( done_rounds + n ))
		sleep 5 # (others may take the lock between pieces)
	done
	# labstat FILE T [REF]: "median (min-max)" of T's value, or of T / REF paired by round
	labstat() {
		awk -v t="$2" -v ref="${3:-}" '
		function med(v, n,    i, j, x) {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
			return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		}
		{ val[$1, $3] = $4; if ($3 > R) R = $3 }
		END {
			for (r = 1; r <= R; r++) if (((t, r) in val) && val[t, r] > 0 && (ref == "" || val[ref, r] > 0)) {
				x = ref == "" ? val[t, r] / 1e6 : val[t, r] / val[ref, r]; n++; v[n] = x
				if (n == 1 || x < lo) lo = x; if (x > hi) hi = x }
			if (n) printf ref == "" ? "%.2fM (%.2f-%.2f)" : "**%.2fx** (%.2f-%.2f)", med(v, n), lo, hi
		}' "$1"
	}
	{
		echo "| target | frames/s (median; min-max) | / linux, paired | / fp.$REF, paired | frames per CPU1-second | / linux, paired | / fp.$REF, paired |"
		echo "|---|---:|---:|---:|---:|---:|---:|"
		for t in linux redir redirmac $(for v in $VARIANTS; do echo "fp.$v"; done); do
			echo "| $t | $(labstat "$TMP/best" "$t") | $(labstat "$TMP/best" "$t" linux) | $(labstat "$TMP/best" "$t" "fp.$REF") |" \
			     "$(labstat "$TMP/cap" "$t") | $(labstat "$TMP/cap" "$t" linux) | $(labstat "$TMP/cap" "$t" "fp.$REF") |"
		done
	} >"$TMP/lab.md"
fi
{
	echo "Command: \`bench/bridge_ablate.sh -r $ROUNDS -p $PIECE -W $RUNG -c $CALLS$( ((LAB)) || echo " -n") -v \"$VARIANTS\"$([[ -n $BASE ]] && echo " -b $BASE")\`" \
	     "at $(cd "$REPO" && git rev-parse --short HEAD)$(cd "$REPO" && git diff --quiet HEAD -- src bpf include || echo "+changes"), $(date -u '+%Y-%m-%d %H:%M UTC')," \
	     "kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg) at the end."
	echo
	echo "By BPF_PROG_TEST_RUN (build/bench/bridge_cost --repeat 1000000 --rounds 3, $CALLS calls a variant, builds alternating):"
	echo
	cat "$TMP/cost.md"
	if ((LAB)); then
		echo
		echo "Two-CPU lab (bench/bridge_rate.sh -T rate -W $RUNG, $ROUNDS rounds in pieces of $PIECE, targets interleaved), known unicast:"
		echo
		cat "$TMP/lab.md"
	fi
} | tee "$TMP/out.md"
[[ -n $OUT ]] && cp "$TMP/out.md" "$OUT"
exit 0
