#!/usr/bin/env bash
# Usage: deploy_slurm_smoke.sh BIN SRC
#
# deploy/slurm's scripts run as Slurm would run them (sbatch's variables set by hand): a
# two-task array (ids 4 and 5) of 2-second campaigns with a planted bug, then the merge.
# Each task writes its own shard's folder and summary; the merge holds one case per
# signature, every signature the tasks found.
set -eu
bin=$(realpath "$1")
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; ls -R "$tmp"; exit 1; }

for id in 4 5; do
  # The planted bug goes in through the extra flags a site might add; here via UOPFUZZ.
  printf '#!/bin/sh\nexec "%s" "$@" --inject-bug bound-off-by-one --no-reduce --mutate-share 0\n' "$bin" > "$tmp/uopfuzz"
  chmod +x "$tmp/uopfuzz"
  UOPFUZZ="$tmp/uopfuzz" SEED=7 FUZZ_SECONDS=2 JOBS=1 RESULTS="$tmp/results" \
    SLURM_ARRAY_TASK_ID=$id SLURM_ARRAY_TASK_MIN=4 SLURM_ARRAY_TASK_COUNT=2 \
    bash "$src/deploy/slurm/uopfuzz-array.sbatch" > "$tmp/task$id.log" 2>&1 ||
    { cat "$tmp/task$id.log"; fail "array task $id failed"; }
done
for k in 0 1; do
  [ -s "$tmp/results/fuzz-7-shard$k.json" ] || fail "no summary of shard $k"
  got=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["shard"]; print("%d/%d" % (s["index"], s["count"]))' \
    "$tmp/results/fuzz-7-shard$k.json")
  [ "$got" = "$k/2" ] || fail "array task $k ran as shard $got, not $k/2"
done
found=$(cat "$tmp"/results/findings-*/*.uop | grep '^@signature ' | sort -u)
[ -n "$found" ] || fail "the planted bug gave no findings"
UOPFUZZ="$bin" RESULTS="$tmp/results" bash "$src/deploy/slurm/uopfuzz-merge.sbatch" > "$tmp/merge.log" 2>&1 ||
  { cat "$tmp/merge.log"; fail "the merge job failed"; }
merged=$(cat "$tmp"/results/findings/*.uop | grep '^@signature ' | sort)
[ "$merged" = "$found" ] || fail "the merge holds $(echo "$merged" | wc -l) cases for $(echo "$found" | wc -l) signatures"
echo "deploy.slurm: 2 array tasks, $(echo "$found" | wc -l) signature(s) merged: $(cat "$tmp/merge.log")"
