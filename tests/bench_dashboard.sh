#!/usr/bin/env bash
# The acceptance path of a new user: bench on cpu and vulkan over the examples, then a
# dashboard from the results that shows both backends.
set -euo pipefail
uopfuzz=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$uopfuzz" bench --backends cpu,vulkan --cases "$src/corpus/examples" --reps 9 --out "$tmp/r.json" > "$tmp/bench.txt" 2> "$tmp/bench.err" ||
  { cat "$tmp/bench.txt" "$tmp/bench.err"; fail "bench exited $?"; }
grep -q '"backend": "cpu"' "$tmp/r.json" || fail "no cpu results"
grep -q '"backend": "vulkan"' "$tmp/r.json" || fail "no vulkan results"
grep -q '"commit": "' "$tmp/r.json" || fail "no commit in the context"
measured=$(grep -c '"measure": "run"' "$tmp/r.json")
((measured >= 2 * 2 * 20)) || fail "only $measured run measurements (expected both variants of 20+ examples on 2 backends)"
"$uopfuzz" dashboard "$tmp/r.json" -o "$tmp/d.html" > "$tmp/dash.txt" || fail "dashboard exited $?"
plots=$(grep -o 'latency-plot' "$tmp/d.html" | wc -l)
((plots >= 2)) || fail "expected a latency plot per backend, found $plots"
grep -q 'llvmpipe' "$tmp/d.html" || fail "the Vulkan device is not named on the page"
grep -q 'data-device=' "$tmp/d.html" || fail "no per-device plots"
echo "bench + dashboard: $measured run measurements, $plots latency plots; $(tail -n 1 "$tmp/bench.txt")"
