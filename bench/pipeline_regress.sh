#!/usr/bin/env bash
# Issue 16's goal for the fused fast path: with only the filter enabled, the
# receiver's cost per packet at 10,000 rules rises by no more than 2 ns over
# the code before the pipeline module, in the shared-CPU lab. Both builds'
# `fastpath filter load` run on the same lab, alternately round by round
# (bench/filter_rate.sh -s -t "fp10k old10k": each round starts one target
# further on), and the paired difference is this build's minus the old's.
#
#   bench/pipeline_regress.sh [-r ROUNDS] [-w WINDOW_S] [-o OUT.md] [-g GOAL_NS]
#
# FP_OLD: the old build's fastpath (default /tmp/old/build/fastpath: commit
# 5ef6008, the last before the pipeline change, built with `make`). Prints
# filter_rate's table and log (every round's figures), the load average
# before and after, and the verdict; exit 0 when the median paired
# difference is within GOAL_NS (2), 1 when it is not, 77 when the lab or
# the old build is missing.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=10 WINDOW=3 OUT= GOAL=2
while getopts "r:w:o:g:" c; do
	case $c in
	r) ROUNDS=$OPTARG ;; w) WINDOW=$OPTARG ;; o) OUT=$OPTARG ;; g) GOAL=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-w WINDOW_S] [-o OUT.md] [-g GOAL_NS]" >&2; exit 2 ;;
	esac
done
export FP_OLD=${FP_OLD:-/tmp/old/build/fastpath}
[[ -x $FP_OLD ]] || { echo "pipeline_regress: $FP_OLD missing: build the old commit there, or set FP_OLD" >&2; exit 77; }
TMP=$(mktemp -d /tmp/fp-regress.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
bash "$REPO/bench/filter_rate.sh" -s -r "$ROUNDS" -w "$WINDOW" -t "fp10k old10k" -o "$TMP/rate.md" \
	>/dev/null 2>"$TMP/log"
rc=$?
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
grep 'round ' "$TMP/log"
(( rc == 0 )) || { cat "$TMP/log" >&2; exit "$rc"; }
diff=$(sed -n 's/.*this build minus FP_OLD: receiver ns\/packet \*\*\([-+0-9.]*\)\*\*.*/\1/p' "$TMP/rate.md")
[[ -n $diff ]] || { echo "pipeline_regress: no paired rounds" >&2; cat "$TMP/log" >&2; exit 1; }
verdict=$(awk -v d="$diff" -v g="$GOAL" 'BEGIN { print (d <= g) ? "met" : "NOT met" }')
{
	cat "$TMP/rate.md"
	echo
	echo "FP_OLD: \`$FP_OLD\` ($(git -C "$(dirname "$FP_OLD")/.." rev-parse --short HEAD 2>/dev/null || echo '?'))," \
	     "this build: $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?');" \
	     "load average $load_before before, $load_after after."
	echo "Goal (issue 16): this build minus the old <= $GOAL ns per packet: **$verdict** ($diff ns)."
} >"$TMP/out.md"
cat "$TMP/out.md"
[[ -n $OUT ]] && cp "$TMP/out.md" "$OUT"
[[ $verdict == met ]]
