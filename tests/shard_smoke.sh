#!/usr/bin/env bash
# Usage: shard_smoke.sh BIN
#
# One campaign split three ways as separate processes, each shard given as a job-array
# engine gives it (UOPFUZZ_SHARD, a Slurm array task, a Kubernetes Indexed Job): the
# shards check 300 graphs each, the 900 of the unsharded run between them, and find the
# same signatures; `corpus merge` of their corpora keeps one case per signature, and a
# second merge changes nothing.
set -eu

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 BIN (the uopfuzz binary)" >&2
  exit 2
fi
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Two planted bugs so that there are findings to merge; no mutants (each shard would draw
# them from the graphs it has seen) and no shrinking (fast; the cases stay as found).
campaign=(fuzz --max-graphs 900 --time 300 --seed 3 --level kernel --mutate-share 0 --no-reduce
  --inject-bug bound-off-by-one --inject-bug gather-no-bounds-check --jobs 2)

# run NAME [VAR=VALUE...]: one campaign into $tmp/NAME; with variables, sharded by them.
run() {
  local name=$1
  shift
  local shard=()
  [ $# -gt 0 ] && shard=(--shard env)
  set +e
  env "$@" "$bin" "${campaign[@]}" "${shard[@]}" --corpus "$tmp/$name" --json "$tmp/$name.json" \
    > "$tmp/$name.log" 2>&1
  local rc=$?
  set -e
  if [ $rc -gt 1 ]; then  # 1: findings, as planted
    echo "FAIL: $name exited $rc" >&2
    cat "$tmp/$name.log" >&2
    exit 1
  fi
}

run whole
run s0 UOPFUZZ_SHARD=0/3
run s1 SLURM_ARRAY_TASK_ID=11 SLURM_ARRAY_TASK_MIN=10 SLURM_ARRAY_TASK_COUNT=3
run s2 JOB_COMPLETION_INDEX=2 UOPFUZZ_SHARD_COUNT=3

fail=0
check() {  # check WHAT GOT WANT
  if [ "$2" = "$3" ]; then
    echo "ok: $1 ($2)"
  else
    echo "FAIL: $1: got $2, want $3"
    fail=1
  fi
}
field() {  # field FILE EXPR: a value of the JSON summary
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
signatures() {  # signatures DIR...: the sorted distinct @signature lines
  cat "$@" 2>/dev/null | grep -h '^@signature ' | sort -u | tr '\n' ' '
}

for k in 0 1 2; do
  check "shard $k's place" "$(field "$tmp/s$k.json" "'%d/%d' % (d['shard']['index'], d['shard']['count'])")" "$k/3"
  check "shard $k's graphs" "$(field "$tmp/s$k.json" "d['graphs']")" 300
done
check "the unsharded run's graphs" "$(field "$tmp/whole.json" "d['graphs']")" 900
whole=$(signatures "$tmp"/whole/*.uop)
check "signatures found by the shards" "$(signatures "$tmp"/s0/*.uop "$tmp"/s1/*.uop "$tmp"/s2/*.uop)" "$whole"
[ -n "$whole" ] || { echo "FAIL: the planted bugs gave no findings"; fail=1; }

"$bin" corpus merge "$tmp/s0" "$tmp/s1" "$tmp/s2" -o "$tmp/merged" > "$tmp/merge1.log"
check "merged signatures" "$(signatures "$tmp"/merged/*.uop)" "$whole"
cases=$(ls "$tmp"/merged/*.uop | wc -l)
distinct=$(cat "$tmp"/merged/*.uop | grep -c '^@signature ')
check "one case per signature" "$cases" "$(cat "$tmp"/merged/*.uop | grep '^@signature ' | sort -u | wc -l)"
check "every merged case signed" "$distinct" "$cases"
"$bin" corpus merge "$tmp/s0" "$tmp/s1" "$tmp/s2" -o "$tmp/merged" > "$tmp/merge2.log"
check "a second merge writes nothing" "$(grep -o '[0-9]* written' "$tmp/merge2.log")" "0 written"
cat "$tmp/merge1.log" "$tmp/merge2.log"
exit $fail
