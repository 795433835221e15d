#!/usr/bin/env bash
# One night of uopfuzz on this machine: a fuzz campaign (with the latency detector), a
# replay of the corpus, the benchmarks on every available device (the corpus's examples and
# the real-size suite's `full` preset, bench --suite real), the dashboard
# regenerated from every results file accumulated so far, and then the whole mutation
# score (scripts/mutation-score.sh: every mutant, each fuzzed by the default campaign;
# about a minute a mutant, so thousands of mutants take a day or more on one machine:
# split it with --shard, or bound it with --mutation-sample). Several machines (one per
# GPU) share one results directory (NFS, or rsync/git in both directions): each adds
# its own files, named by host and date, and any of them can regenerate the dashboard.
#
# Usage: scripts/nightly.sh [options]
#   --seconds N         campaign length (default 3600)
#   --seed-schedule S   date      : seed = the date as YYYYMMDD (a new seed each night,
#                                   reproducible from the date; the default)
#                       counter   : seed = a counter kept in RESULTS/.seed, +1 per night
#                       fixed:N   : seed N every night (to re-run one night exactly)
#   --results DIR       where results accumulate (default: results)
#   --corpus DIR        the corpus: new findings go to DIR/findings, and DIR is replayed
#                       (default: corpus)
#   --jobs N            campaign workers (default: nproc)
#   --backends LIST     campaign backends (default: the campaign's default executors, see
#                       `uopfuzz fuzz --help`)
#   --bench-cases PATH  cases to benchmark (default: corpus/examples)
#   --suite-size P      the real-size suite's preset (default: full; small, tiny)
#   --suite-cases LIST  only these suite cases (default: all of bench/suite/cases.def)
#   --no-suite          do not bench the real-size suite
#   --bench-reps N      timed samples per kernel (default: 15)
#   --no-vulkan         do not benchmark Vulkan devices
#   --uopfuzz PATH      the binary (default: build/uopfuzz)
#   --shard K/N|env     this machine's part of a campaign split over N machines (fuzz
#                       --shard; env: from UOPFUZZ_SHARD, a Slurm array task or a Kubernetes
#                       Indexed Job). Every shard must get the same seed: use the date or
#                       fixed:N schedule, not counter. Gather the shards' findings with
#                       `uopfuzz corpus merge` (see deploy/README.md). The mutation score
#                       runs this shard's part of the mutants (mutation-score.sh --shard).
#   --mutation-time T   campaign seconds per mutant (default 30, on 2 jobs: the score's
#                       definition)
#   --mutation-sample N run N mutants drawn by the night's seed instead of all of them
#   --mutation-scratch DIR  the mutants' scratch tree and build, kept between nights so that
#                       only what changed rebuilds (default: ${TMPDIR:-/tmp}/uopfuzz-nightly-mutants)
#   --no-mutation       skip the mutation score
# Results: RESULTS/mutation-TAG.txt (every mutant's verdict, the score, the survivors) and
# RESULTS/mutation-TAG.json.
# Exit status: 0 when the night found nothing new and the replay passed, 1 otherwise
# (every step runs either way, so the dashboard is always fresh; surviving mutants do not
# change it, a mutation score that cannot run does), 2 on bad usage.
set -uo pipefail

seconds=3600
schedule=date
results=results
corpus=corpus
jobs=$(nproc)
backends=
bench_cases=corpus/examples
suite=1
suite_size=full
suite_cases=
bench_reps=15
vulkan=1
uopfuzz=build/uopfuzz
shard=
mutation=1
mutation_time=30
mutation_sample=0
mutation_scratch="${TMPDIR:-/tmp}/uopfuzz-nightly-mutants"

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "nightly: $*" >&2; exit 2; }

while (($#)); do
  case "$1" in
    --seconds) seconds=${2:?}; shift 2 ;;
    --seed-schedule) schedule=${2:?}; shift 2 ;;
    --results) results=${2:?}; shift 2 ;;
    --corpus) corpus=${2:?}; shift 2 ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    --backends) backends=${2:?}; shift 2 ;;
    --bench-cases) bench_cases=${2:?}; shift 2 ;;
    --suite-size) suite_size=${2:?}; shift 2 ;;
    --suite-cases) suite_cases=${2:?}; shift 2 ;;
    --no-suite) suite=0; shift ;;
    --bench-reps) bench_reps=${2:?}; shift 2 ;;
    --no-vulkan) vulkan=0; shift ;;
    --uopfuzz) uopfuzz=${2:?}; shift 2 ;;
    --shard) shard=${2:?}; shift 2 ;;
    --mutation-time) mutation_time=${2:?}; shift 2 ;;
    --mutation-sample) mutation_sample=${2:?}; shift 2 ;;
    --mutation-scratch) mutation_scratch=${2:?}; shift 2 ;;
    --no-mutation) mutation=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

[[ "$mutation_time" =~ ^[1-9][0-9]*$ ]] || die "--mutation-time expects a positive integer, got '$mutation_time'"
[[ "$mutation_sample" =~ ^[0-9]+$ ]] || die "--mutation-sample expects a non-negative integer, got '$mutation_sample'"
[[ -x "$uopfuzz" ]] || die "$uopfuzz is not there: build it first (make release)"
mkdir -p "$results" || die "cannot create $results"

case "$schedule" in
  date) seed=$(date +%Y%m%d) ;;
  counter)
    seed=$(( $(cat "$results/.seed" 2>/dev/null || echo 0) + 1 ))
    echo "$seed" > "$results/.seed.tmp" && mv "$results/.seed.tmp" "$results/.seed" ;;
  fixed:*) seed=${schedule#fixed:} ;;
  *) die "--seed-schedule must be date, counter or fixed:N" ;;
esac
[[ "$seed" =~ ^[0-9]+$ ]] || die "the seed must be a number, got '$seed'"

stamp=$(date +%Y%m%dT%H%M%S)
host=$(hostname -s 2>/dev/null || hostname)
tag="$host-$stamp"
shard_flags=()
if [[ -n "$shard" ]]; then
  [[ "$schedule" == counter ]] && die "--shard needs one seed on every shard: use --seed-schedule date or fixed:N"
  shard_flags=(--shard "$shard")
  tag="$tag-shard${shard//\//of}"
fi
status=0
log() { echo "nightly [$(date +%H:%M:%S)] $*"; }

backend_flags=()
[[ -n "$backends" ]] && backend_flags=(--backends "$backends")
log "campaign: $seconds s, seed $seed, $jobs job(s), backends ${backends:-the default executors}, latency on${shard:+, shard $shard}"
"$uopfuzz" fuzz --time "$seconds" --seed "$seed" --jobs "$jobs" "${backend_flags[@]}" --latency \
  "${shard_flags[@]}" --corpus "$corpus/findings" --json "$results/fuzz-$tag.json"
rc=$?
case $rc in
  0) ;;
  1) log "the campaign found something new (see $corpus/findings)"; status=1 ;;
  *) log "the campaign failed (exit $rc)"; status=1 ;;
esac

log "replay of the corpus"
if ! "$uopfuzz" replay "$corpus" > "$results/replay-$tag.txt" 2>&1; then
  log "replay FAILED: $(tail -n 1 "$results/replay-$tag.txt")"
  status=1
else
  log "$(tail -n 1 "$results/replay-$tag.txt")"
fi

suite_flags=(--suite real --size "$suite_size")
[[ -n "$suite_cases" ]] && suite_flags+=(--suite-cases "$suite_cases")
# The real-size suite on one backend/device: roofline fractions and the rewrite across sizes.
bench_suite() {
  local name=$1
  shift
  ((suite)) || return 0
  log "suite ($suite_size) on $name"
  "$uopfuzz" bench "${suite_flags[@]}" "$@" --reps "$bench_reps" --out "$results/suite-$tag-$name.json" \
    > "$results/suite-$tag-$name.txt" || { log "suite on $name failed"; status=1; }
}

log "benchmarks on cpu"
"$uopfuzz" bench --backends cpu --cases "$bench_cases" --reps "$bench_reps" --out "$results/bench-$tag-cpu.json" \
  > "$results/bench-$tag-cpu.txt" || { log "bench on cpu failed"; status=1; }
bench_suite cpu --backends cpu

if ((vulkan)); then
  # Every Vulkan device this machine has (a GPU and lavapipe alike), one results file each.
  indices=$("$uopfuzz" devices --json 2>/dev/null | grep -o '"index": *[0-9]*' | grep -o '[0-9]*$')
  for i in $indices; do
    log "benchmarks on vulkan device $i"
    "$uopfuzz" bench --backends vulkan --device "$i" --cases "$bench_cases" --reps "$bench_reps" \
      --out "$results/bench-$tag-vulkan$i.json" > "$results/bench-$tag-vulkan$i.txt" ||
      { log "bench on vulkan device $i failed"; status=1; }
    bench_suite "vulkan$i" --backends vulkan --device "$i"
  done
fi

log "dashboard"
if "$uopfuzz" dashboard "$results" -o "$results/dashboard.html"; then
  log "open $results/dashboard.html"
else
  log "the dashboard could not be made"
  status=1
fi

if ((mutation)); then
  # The whole score (or this shard's part of it); the shard's K/N as fuzz --shard resolved it.
  # The campaign seed stays the default (1), so that nights compare; a sample changes nightly.
  mutation_flags=(--time "$mutation_time" --jobs 2 --scratch "$mutation_scratch"
    --json "$results/mutation-$tag.json")
  ((mutation_sample > 0)) && mutation_flags+=(--sample "$mutation_sample" --sample-seed "$seed")
  if [[ -n "$shard" ]]; then
    part=$(tr -d ' \n' < "$results/fuzz-$tag.json" 2>/dev/null | grep -o '"shard":{[^}]*}' |
      sed -n 's/.*"index":\([0-9]*\).*"count":\([0-9]*\).*/\1\/\2/p')
    [[ -n "$part" ]] || part=$shard
    if [[ "$part" =~ ^[0-9]+/[0-9]+$ ]]; then
      mutation_flags+=(--shard "$part")
    else
      log "mutation score: cannot tell this shard's K/N from '$shard': running every mutant"
    fi
  fi
  log "mutation score: scripts/mutation-score.sh ${mutation_flags[*]}"
  if "$(dirname "$0")/mutation-score.sh" "${mutation_flags[@]}" > "$results/mutation-$tag.txt" 2>&1; then
    log "$(grep '^mutation score:' "$results/mutation-$tag.txt" | tail -n 1)"
  else
    log "the mutation score could not run: $(tail -n 1 "$results/mutation-$tag.txt")"
    status=1
  fi
fi
exit $status
