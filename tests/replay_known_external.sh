#!/usr/bin/env bash
# A finding of an external simplifier replays as KNOWN (status 0) while that simplifier
# still has the bug, and as FAIL once the recorded simplifier finds something else.
# Usage: replay_known_external.sh UOPFUZZ FAKE_SIMPLIFIER
set -euo pipefail
uopfuzz=$1 fake=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$uopfuzz" fuzz --simplifier "external:$fake --mode segv --marker 3" --time 5 --max-graphs 50 \
  --seed 1 --jobs 1 --corpus "$dir" >"$dir/fuzz.txt" || true  # status 1: it found something
case=$(find "$dir" -name '*.uop' | head -n 1)
[[ -n "$case" ]] || { echo "the campaign kept no case"; cat "$dir/fuzz.txt"; exit 1; }
grep -q '^@simplifier external:' "$case" || { echo "no @simplifier line in $case"; exit 1; }
out=$("$uopfuzz" replay "$case" 2>&1) || { echo "replay failed: $out"; exit 1; }
grep -q "^KNOWN $case" <<<"$out" || { echo "not KNOWN: $out"; exit 1; }
# The same case recorded as a mismatch: the crash it now shows is another bug, a failure.
sed -i 's|^@signature crash/|@signature mismatch/|' "$case"
if out=$("$uopfuzz" replay "$case" 2>&1); then echo "a different finding passed: $out"; exit 1; fi
grep -q "^FAIL $case" <<<"$out" || { echo "not FAIL: $out"; exit 1; }
echo ok
