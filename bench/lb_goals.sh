#!/usr/bin/env bash
# Issue 17's three bench goals, each with its ratio and whether it is met,
# from the tables of one bench run (bench/run.sh's lb block):
#
#   bench/lb_goals.sh COST.md RATE.md CPS.md [ROUNDS [ONE.md ONE_ROUNDS]]
#
# COST.md: build/bench/lb_cost's table; RATE.md: bench/lb_rate.sh -o;
# CPS.md: bench/lb_cps.sh -o. A table missing or without its row gives
# "not measured". ROUNDS: the paired rounds of the lab and wrk runs (for
# the text). ONE.md: bench/lb_rate.sh -f one -o, the established-flow
# goal's own run (ONE_ROUNDS rounds): the goal is judged there, and
# RATE.md's one-flow row is shown beside it. Prints a markdown table.
set -uo pipefail
(( $# == 3 || $# == 4 || $# == 6 )) || { echo "usage: $0 COST.md RATE.md CPS.md [ROUNDS [ONE.md ONE_ROUNDS]]" >&2; exit 2; }
COST=$1 RATE=$2 CPS=$3 ROUNDS=${4:-} ONE=${5:-} ONE_ROUNDS=${6:-}
R=${ROUNDS:+, $ROUNDS rounds}

# cell FILE ROW_REGEX FIELD: the field (1-based, between the |) of the first row matching
cell() {
	[[ -r $1 ]] || return 0
	awk -F'|' -v re="$2" -v n="$3" '$0 ~ re { v = $(n + 1); gsub(/^ +| +$/, "", v); print v; exit }' "$1"
}
# num "**3.44x** (3.33-3.54)" -> 3.44; "143 (141-152)" -> 143
num() { sed -E 's/[*x]//g; s/ *\(.*//' <<<"$1"; }
# met VALUE OP LIMIT: yes / no (awk compares)
met() { awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN { ok = op == ">=" ? v >= l : v <= l; print ok ? "**yes**" : "**no**" }'; }

echo "| goal | measured by | figure | met |"
echo "|---|---|---|---|"

# established GOAL_TEXT TABLE ROUNDS_TEXT judge|-: the 4x goal's line from
# one lab table (judge: whether it is met; -: shown, not judged)
established() {
	local ratio lb nft verdict=-
	ratio=$(cell "$2" '^\| one \| lb ' 5) lb=$(cell "$2" '^\| one \| lb ' 3) nft=$(cell "$2" '^\| one \| nft ' 3)
	if [[ -n $ratio && $ratio != - ]]; then
		[[ $4 == judge ]] && verdict=$(met "$(num "$ratio")" ">=" 4)
		echo "| $1 | shared-CPU lab, one flow; nft / lb receiver ns, paired by round (median; min-max$3) | $ratio: lb $(num "$lb") ns, nft $(num "$nft") ns | $verdict |"
	else
		echo "| $1 | shared-CPU lab | not measured | - |"
	fi
}
if [[ -n $ONE ]]; then
	established "established flow at least 4x cheaper than nft DNAT" "$ONE" ", $ONE_ROUNDS rounds, lb's and nft's windows adjacent" judge
	established "(the same, the three-flood table's one-flow row: lb's and nft's windows ~20 s apart)" "$RATE" "$R" -
else
	established "established flow at least 4x cheaper than nft DNAT" "$RATE" "$R" judge
fi
lb=$(cell "$RATE" '^\| one \| lb ' 3)

rep=$(cell "$COST" 'new / established over the same' 2) new=$(cell "$COST" '^\| new flow, the whole way' 2)
est=$(cell "$COST" '^\| established flows: the same' 2) one=$(cell "$COST" '^\| established flow, the whole way' 2)
best=$(cell "$COST" 'new / one established flow repeated' 2)
cold=$(cell "$COST" '^\| new / established \(' 2) coldrow=$(cell "$COST" '^\| new / established \(' 1)
if [[ -n $rep ]]; then
	echo "| a new flow at most 2x an established one | BPF_PROG_TEST_RUN (the goal's definition), the whole way repeated, caches warm; new flows, then the same flows established (each bucket a cold line of the 64 MiB table either way) | $rep: new $new ns, established $est ns | $(met "$(num "$rep")" "<=" 2) |"
	echo "| (the same goal) | BPF_PROG_TEST_RUN, one run per frame, caches cold, $(sed -E 's/.*\((.*)\).*/\1/' <<<"$coldrow") | $cold | $(met "$(num "$cold")" "<=" 2) |"
	echo "| (not the goal's pair: a best case for the established side) new flows against one established flow repeated, all its lines in L1 | BPF_PROG_TEST_RUN, repeated | $best: new $new ns, one flow $one ns | - |"
else
	echo "| a new flow at most 2x an established one | BPF_PROG_TEST_RUN | not measured | - |"
fi
newflood=$(cell "$RATE" '^\| new \| lb ' 3)
if [[ -n $newflood && -n $lb ]]; then
	echo "| (not the goal's measure) the lab's new-flow flood against its one-flow flood | shared-CPU lab, lb receiver ns: a new flow in nearly every packet, the 1,048,576-entry tables full and evicting | $(awk -v a="$(num "$newflood")" -v b="$(num "$lb")" 'BEGIN { printf "%.2fx", a / b }'): $(num "$newflood") / $(num "$lb") ns | - |"
fi

cps=$(cell "$CPS" '^\| fastpath lb ' 4) lbc=$(cell "$CPS" '^\| fastpath lb ' 2) nftc=$(cell "$CPS" '^\| nft ' 2)
if [[ -n $cps && $cps != - ]]; then
	echo "| TCP connections per second at least nft DNAT's | wrk end to end; lb / nft paired by round (median; min-max$R) | $cps: lb $(num "$lbc")/s, nft $(num "$nftc")/s | $(met "$(num "$cps")" ">=" 1) |"
else
	echo "| TCP connections per second at least nft DNAT's | wrk end to end | not measured | - |"
fi
