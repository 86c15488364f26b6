#!/usr/bin/env bash
# What each part of the filter program costs a packet in NAPI: builds
# variants of the tree with a part of fp_entry_filter taken out and measures
# each beside the unmodified build, nftables and bare XDP_DROP in the
# shared-CPU lab of filter_rate.sh -s (the receiver's CPU time per packet;
# see that script). Not part of `make bench`: it builds the tree three times.
#
#   bench/ablate.sh [-r ROUNDS]
#
# Variants (perl edits of src/filter/filter.bpf.c in a copy of the working
# tree; the script stops if an edit no longer applies):
#   full          the filter as it is
#   no-classify   no classification: every packet gets the same drop hit,
#                 hidden from the compiler (so the verdict, counter and
#                 sampling code after it are what they are in `full`);
#                 parse, state, generation, per-rule counter, stats remain
#   no-parse      no-classify without the parse either: what is left is the
#                 program's frame (scratch, state, generation lookups) and
#                 its counting
# The variants drop every packet with one rule's counter: only the flood's
# cost means anything, not their verdicts. Figures: docs/benchmarks.md.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=3
while getopts "r:" c; do
	case $c in
	r) ROUNDS=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS]" >&2; exit 2 ;;
	esac
done
(( ROUNDS >= 1 && ROUNDS <= 10 )) || { echo "ablate: ROUNDS 1..10" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "ablate: needs root" >&2; exit 77; }
TMP=$(mktemp -d /tmp/fp-ablate.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
log() { printf '[%s ablate] %s\n' "$(date +%T)" "$*" >&2; }

CLASSIFY='s/hit = fp_flt_classify\(ctx, pkt, g, gen, c\);\n\thit = fp_flt_first_match\(pkt, g, gen, c, hit\);/(void)c;\n\thit = FP_FLT_HIT(0, FP_FLT_DROP);\n\tasm volatile("" : "+r"(hit));/'
PARSE='s/\tfp_parse\(ctx, pkt\);\n/\tpkt->pkt_len = ctx->data_end - ctx->data;\n/'

# variant NAME EDIT...: build/fastpath of the working tree with the edits
variant() {
	local name=$1 d=$TMP/$1 e f=src/filter/filter.bpf.c
	shift
	mkdir -p "$d"
	(cd "$REPO" && git ls-files -z | xargs -0 cp --parents -t "$d") || return 1
	for e in "$@"; do
		cp "$d/$f" "$d/$f.orig"
		perl -0pi -e "$e" "$d/$f"
		cmp -s "$d/$f" "$d/$f.orig" && { log "$name: an edit no longer applies to $f"; return 1; }
	done
	log "building $name"
	make -C "$d" -j"$(nproc)" build/fastpath build/bench/filter_cost build/bench/xdp_drop_attach \
		>"$TMP/$name.log" 2>&1 || { tail -n 20 "$TMP/$name.log" >&2; return 1; }
}

variant full && variant no-classify "$CLASSIFY" && variant no-parse "$CLASSIFY" "$PARSE" || exit 1

declare -A what=(
	[full]="the filter as it is"
	[no-classify]="without classification (a fixed drop hit)"
	[no-parse]="without classification and parse"
)
{
	echo "| fastpath at 10,000 rules | receiver ns/packet (median of rounds) | nftables ns, same run | bare XDP_DROP ns, same run | nftables / fastpath, paired by round |"
	echo "|---|---:|---:|---:|---:|"
} >"$TMP/table.md"
for v in full no-classify no-parse; do
	log "$v: filter_rate.sh -s -r $ROUNDS -w 3 -t 'bare fp10k nft'"
	FP_BIN=$TMP/$v/build/fastpath bash "$TMP/$v/bench/filter_rate.sh" -s -r "$ROUNDS" -w 3 \
		-t "bare fp10k nft" -o "$TMP/$v.md" >/dev/null 2>"$TMP/$v.err" || { cat "$TMP/$v.err" >&2; exit 1; }
	awk -F'|' -v label="${what[$v]}" '
		function num(x) { gsub(/[ *]/, "", x); return x + 0 }
		/^\| fastpath, 10,000 rules/ { f = num($6) }
		/^\| nftables/ { n = num($6) }
		/^\| bare/ { b = num($6) }
		/^Paired by round, fastpath at 10,000 rules vs nftables/ {
			match($0, /receiver ns [0-9.]+x \(rounds [0-9.]+-[0-9.]+\)/)
			p = substr($0, RSTART + 12, RLENGTH - 12)
		}
		END { printf "| %s | %d | %d | %d | %s |\n", label, f, n, b, p }' "$TMP/$v.md" >>"$TMP/table.md"
done
echo
echo "Command: \`bench/ablate.sh -r $ROUNDS\` at $(cd "$REPO" && git rev-parse --short HEAD)," \
     "$(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r)."
echo
cat "$TMP/table.md"
