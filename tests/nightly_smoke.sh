#!/usr/bin/env bash
# scripts/nightly.sh end to end, shortened: a 3-second campaign on a copy of the corpus,
# its replay, bench on cpu and every Vulkan device (one example), and the dashboard from
# two nights' results. The night may find something (exit 1); every file must be there.
# The mutation score (hours) is left out with --no-mutation; tests/mutation_score.sh
# checks the script itself.
set -uo pipefail
uopfuzz=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/corpus" "$tmp/corpus"
for night in 1 2; do
  bash "$src/scripts/nightly.sh" --seconds 3 --jobs 1 --backends oracle --seed-schedule counter \
    --results "$tmp/results" --corpus "$tmp/corpus" --bench-cases "$src/corpus/examples/window_sum.uop" \
    --bench-reps 9 --suite-size tiny --suite-cases stream_axpy --uopfuzz "$uopfuzz" --no-mutation \
    > "$tmp/night$night.log" 2>&1
  rc=$?
  if ((rc > 1)); then cat "$tmp/night$night.log"; echo "FAIL: night $night exited $rc"; exit 1; fi
  sleep 1  # a new timestamp for the second night's files
done
fail() { echo "FAIL: $*"; cat "$tmp/night1.log"; ls -l "$tmp/results"; exit 1; }
[[ $(cat "$tmp/results/.seed") == 2 ]] || fail "the counter schedule did not count two nights"
(($(ls "$tmp/results"/fuzz-*.json | wc -l) == 2)) || fail "expected two campaign summaries"
(($(ls "$tmp/results"/bench-*-cpu.json | wc -l) == 2)) || fail "expected two cpu bench results"
(($(ls "$tmp/results"/suite-*-cpu.json | wc -l) == 2)) || fail "expected two cpu suite results"
grep -q '"suite_points"' "$(ls "$tmp/results"/suite-*-cpu.json | head -n 1)" || fail "the suite result has no suite_points"
ls "$tmp/results"/bench-*-vulkan*.json > /dev/null 2>&1 || fail "no Vulkan bench result (lavapipe is always there)"
ls "$tmp/results"/replay-*.txt > /dev/null || fail "no replay log"
grep -q "replay: .* passed" "$tmp/results"/replay-*.txt || fail "the replay log has no summary"
[[ -s "$tmp/results/dashboard.html" ]] || fail "no dashboard"
! ls "$tmp/results"/mutation-* > /dev/null 2>&1 || fail "--no-mutation still ran the mutation score"
grep -q 'id="history"' "$tmp/results/dashboard.html" || fail "the dashboard has no history section"
echo "nightly: two nights, $(ls "$tmp/results" | wc -l) result files, dashboard $(wc -c < "$tmp/results/dashboard.html") bytes"
