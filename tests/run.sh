#!/usr/bin/env bash
# Runs every test layer and ends with one line "N passed, N failed".
#
#   tests/run.sh [LAYER...]      LAYER: unit bpf e2e fuzz (default: all, in that order)
#   TEST_FILTER=regex            only tests whose id (e.g. unit/test_cli_out,
#                                e2e/cli_usage, fuzz/fuzz_rules) matches
#   FUZZ_SMOKE_SECONDS=N         seconds per fuzz target (default 20)
#   E2E_TIMEOUT=N                seconds per e2e script (default 300)
#
# Unit and bpf binaries are cmocka programs: each test case counts (read from
# CMOCKA_MESSAGE_OUTPUT=TAP); a binary without TAP output counts as one test
# by its exit code (0 pass, 77 skip). An e2e script is one test: exit 0 pass,
# 77 skip, anything else fails. A fuzz target fails on any crash or leak.
# Exits non-zero if anything failed. `make test` builds everything first.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
BUILD=${BUILD:-build}
FILTER=${TEST_FILTER:-}
FUZZ_SMOKE_SECONDS=${FUZZ_SMOKE_SECONDS:-20}
E2E_TIMEOUT=${E2E_TIMEOUT:-300}
ALL_LAYERS=(unit bpf e2e fuzz)

PASSED=0 FAILED=0 SKIPPED=0
FAILED_NAMES=()
TMP=$(mktemp -d /tmp/fp-tests.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
trap 'echo; echo "interrupted"; echo "$PASSED passed, $((FAILED + 1)) failed"; exit 130' INT TERM

selected() { [[ -z $FILTER || $1 =~ $FILTER ]]; }

# fail NAME [LOG...]: counts nothing; prints the name and the tail of the logs.
show_failure() {
	local name=$1; shift
	echo "  FAIL $name"
	FAILED_NAMES+=("$name")
	local f
	for f in "$@"; do
		[[ -s $f ]] && tail -n 30 "$f" | sed 's/^/    | /'
	done
}

# A test binary: count its cmocka cases from TAP, else its exit code.
run_cases() {
	local id=$1 bin=$2 out="$TMP/out" err="$TMP/err" rc
	CMOCKA_MESSAGE_OUTPUT=TAP timeout -k 10 600 "$bin" >"$out" 2>"$err"
	rc=$?
	local plan ok nok skip missing
	# a binary may run several groups: one plan line each
	plan=$(awk -F. '/^1\.\.[0-9]+/ { s += $3; n++ } END { if (n) print s }' "$out")
	ok=$(grep -cE '^ok [0-9]+' "$out")
	skip=$(grep -cE '^(not )?ok [0-9]+ # SKIP' "$out")
	nok=$(grep -E '^not ok [0-9]+' "$out" | grep -cv '# SKIP')
	if [[ -z $plan && $ok -eq 0 && $nok -eq 0 ]]; then
		case $rc in
		0) PASSED=$((PASSED + 1)); echo "  ok   $id" ;;
		77) SKIPPED=$((SKIPPED + 1)); echo "  SKIP $id: $(tail -n 1 "$out" "$err" 2>/dev/null | grep -v '^==>' | grep . | tail -n 1)" ;;
		*) FAILED=$((FAILED + 1)); show_failure "$id (exit $rc)" "$out" "$err" ;;
		esac
		return
	fi
	missing=$(( ${plan:-0} - ok - nok - skip ))
	(( missing < 0 )) && missing=0
	PASSED=$((PASSED + ok)); SKIPPED=$((SKIPPED + skip))
	FAILED=$((FAILED + nok + missing))
	if (( nok + missing > 0 )); then
		local names
		names=$(grep -E '^not ok [0-9]+' "$out" | grep -v '# SKIP' | sed -E 's/^not ok [0-9]+ - //' | tr '\n' ' ')
		(( missing > 0 )) && names+="($missing not run: exit $rc) "
		show_failure "$id: $names" "$out" "$err"
	elif (( rc != 0 )); then
		FAILED=$((FAILED + 1))
		show_failure "$id (all cases passed but exit $rc)" "$out" "$err"
	else
		echo "  ok   $id ($ok case$([[ $ok == 1 ]] || echo s)$( (( skip )) && echo ", $skip skipped"))"
	fi
}

# Binaries of a layer; a source without its binary is a failure (not built).
layer_bins() {
	local layer=$1 srcdir=$2 bindir=$3 pattern=$4 src name
	for src in $srcdir/$pattern.c; do
		[[ -e $src ]] || continue
		name=$(basename "$src" .c)
		selected "$layer/$name" || continue
		if [[ -x $bindir/$name ]]; then
			run_cases "$layer/$name" "$bindir/$name"
		else
			FAILED=$((FAILED + 1))
			show_failure "$layer/$name (not built: run make tests-build)"
		fi
	done
}

layer_unit() {
	layer_bins unit tests/unit "$BUILD/tests/unit" 'test_*'
}

layer_bpf() {
	if [[ $(id -u) -ne 0 ]]; then
		local n=0 src
		for src in tests/bpf/*.c; do [[ -e $src ]] && n=$((n + 1)); done
		SKIPPED=$((SKIPPED + n))
		echo "  SKIP all $n: BPF_PROG_TEST_RUN needs root"
		return
	fi
	layer_bins bpf tests/bpf "$BUILD/tests/bpf" '*'
}

layer_e2e() {
	local s id rc log="$TMP/e2e.log"
	for s in tests/e2e/*.sh; do
		[[ -e $s ]] || continue
		[[ $(basename "$s") == lib.sh ]] && continue
		id=e2e/$(basename "$s" .sh)
		selected "$id" || continue
		local t0=$SECONDS
		FASTPATH=${FASTPATH:-$(realpath -m "$BUILD/fastpath")} timeout -k 10 "$E2E_TIMEOUT" bash "$s" >"$log" 2>&1 </dev/null
		rc=$?
		case $rc in
		0) PASSED=$((PASSED + 1)); echo "  ok   $id ($((SECONDS - t0)) s)" ;;
		77) SKIPPED=$((SKIPPED + 1)); echo "  SKIP $id: $(grep . "$log" | tail -n 1)" ;;
		124|137) FAILED=$((FAILED + 1)); show_failure "$id (timed out after $E2E_TIMEOUT s)" "$log" ;;
		*) FAILED=$((FAILED + 1)); show_failure "$id (exit $rc)" "$log" ;;
		esac
	done
}

layer_fuzz() {
	local src name id bin rc corpus log="$TMP/fuzz.log"
	mkdir -p "$BUILD/fuzz/artifacts"
	for src in tests/fuzz/fuzz_*.c; do
		[[ -e $src ]] || continue
		name=$(basename "$src" .c)
		id=fuzz/$name
		selected "$id" || continue
		bin=$BUILD/fuzz/$name
		if [[ ! -x $bin ]]; then
			FAILED=$((FAILED + 1))
			show_failure "$id (not built: run make tests-build)"
			continue
		fi
		# New inputs go to a scratch dir; the committed corpus is only read.
		corpus=("$TMP/corpus-$name")
		mkdir -p "${corpus[0]}"
		[[ -d tests/fuzz/corpus/$name ]] && corpus+=("tests/fuzz/corpus/$name")
		local dict=()
		[[ -f tests/fuzz/$name.dict ]] && dict=("-dict=tests/fuzz/$name.dict")
		timeout -k 10 $((FUZZ_SMOKE_SECONDS + 120)) "$bin" -max_total_time="$FUZZ_SMOKE_SECONDS" \
			-timeout=10 -print_final_stats=1 "${dict[@]}" \
			-artifact_prefix="$BUILD/fuzz/artifacts/$name-" "${corpus[@]}" >"$log" 2>&1
		rc=$?
		if (( rc == 0 )); then
			PASSED=$((PASSED + 1))
			echo "  ok   $id ($(grep -m1 -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$') runs in ${FUZZ_SMOKE_SECONDS} s)"
		else
			FAILED=$((FAILED + 1))
			show_failure "$id (exit $rc; reproducer in $BUILD/fuzz/artifacts/)" "$log"
		fi
	done
}

layers=("$@")
[[ ${#layers[@]} -eq 0 ]] && layers=("${ALL_LAYERS[@]}")
for layer in "${layers[@]}"; do
	case " ${ALL_LAYERS[*]} " in
	*" $layer "*) ;;
	*) echo "tests/run.sh: unknown layer '$layer'; valid: ${ALL_LAYERS[*]}" >&2; exit 2 ;;
	esac
done

for layer in "${layers[@]}"; do
	t0=$SECONDS
	p0=$PASSED f0=$FAILED s0=$SKIPPED
	echo "== $layer =="
	"layer_$layer"
	echo "   $layer: $((PASSED - p0)) passed, $((FAILED - f0)) failed, $((SKIPPED - s0)) skipped in $((SECONDS - t0)) s"
done

if (( ${#FAILED_NAMES[@]} )); then
	echo "failed:"
	printf '  %s\n' "${FAILED_NAMES[@]}"
fi
(( SKIPPED )) && echo "$SKIPPED skipped"
echo "$PASSED passed, $FAILED failed"
(( FAILED == 0 ))
