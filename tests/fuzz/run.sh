#!/usr/bin/env bash
# Longer libFuzzer runs (`make fuzz`): every build/fuzz/fuzz_* target for
# FUZZ_SECONDS (default 120) each, one after another.
#
#   tests/fuzz/run.sh [TARGET...]     e.g. tests/fuzz/run.sh fuzz_rules
#   FUZZ_SECONDS=N  FUZZ_JOBS=N (parallel jobs per target, default 1)
#
# Seeds come from tests/fuzz/corpus/<target>/ (read only); what the fuzzer
# finds accumulates in build/fuzz/corpus/<target>/ across runs. To fold it
# into the committed corpus: build/fuzz/<target> -merge=1 \
#   tests/fuzz/corpus/<target> build/fuzz/corpus/<target>
# Crashes are written to build/fuzz/artifacts/. Exits non-zero on any crash.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
BUILD=${BUILD:-build}
FUZZ_SECONDS=${FUZZ_SECONDS:-120}
FUZZ_JOBS=${FUZZ_JOBS:-1}

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
	for b in "$BUILD"/fuzz/fuzz_*; do
		[[ -x $b && -f $b ]] && targets+=("$(basename "$b")")
	done
fi
if [[ ${#targets[@]} -eq 0 ]]; then
	echo "fuzz: no targets in $BUILD/fuzz; run make first" >&2
	exit 1
fi

mkdir -p "$BUILD/fuzz/artifacts"
passed=0 failed=0
for t in "${targets[@]}"; do
	bin=$BUILD/fuzz/$t
	if [[ ! -x $bin ]]; then
		echo "fuzz: $t: not built ($bin)" >&2
		failed=$((failed + 1))
		continue
	fi
	corpus=("$BUILD/fuzz/corpus/$t")
	mkdir -p "${corpus[0]}"
	[[ -d tests/fuzz/corpus/$t ]] && corpus+=("tests/fuzz/corpus/$t")
	dict=()
	[[ -f tests/fuzz/$t.dict ]] && dict=("-dict=tests/fuzz/$t.dict")
	jobs=()
	(( FUZZ_JOBS > 1 )) && jobs=("-jobs=$FUZZ_JOBS" "-workers=$FUZZ_JOBS")
	echo "== $t: ${FUZZ_SECONDS} s =="
	log=$BUILD/fuzz/$t.log
	"$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 -print_final_stats=1 \
		"${dict[@]}" "${jobs[@]}" -artifact_prefix="$BUILD/fuzz/artifacts/$t-" \
		"${corpus[@]}" >"$log" 2>&1
	rc=$?
	if (( rc == 0 )); then
		passed=$((passed + 1))
		echo "  ok: $(grep -m1 -oE 'number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$') runs," \
		     "corpus $(find "${corpus[0]}" -type f | wc -l) inputs"
	else
		failed=$((failed + 1))
		echo "  FAIL (exit $rc), log $log:"
		tail -n 30 "$log" | sed 's/^/    | /'
	fi
done
echo "$passed passed, $failed failed"
(( failed == 0 ))
