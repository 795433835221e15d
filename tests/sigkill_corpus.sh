#!/usr/bin/env bash
# Usage: sigkill_corpus.sh UOPFUZZ [ROUNDS]
#
# Kills `uopfuzz fuzz` with SIGKILL at random moments while it writes findings (several
# planted bugs at once, so each run writes several cases in quick succession), then
# checks that every .uop file it left is complete: `uopfuzz replay` passes on all of
# them (each parses, runs to its recorded outputs, and the faithful simplifier agrees).
# Each round has its own corpus directory and is killed only after its first case has
# appeared there, at a random delay after that: on a loaded machine a fixed delay could
# land before the campaign wrote anything and the round would test nothing.
# Half-written temporaries may remain (hidden, not .uop); the next campaign in that
# directory removes them, which the last step checks.
set -u
bin=$1
rounds=${2:-15}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

bugs=(--inject-bug unparented-max-multiplies --inject-bug bound-off-by-one --inject-bug split-no-divisibility
      --inject-bug gather-no-bounds-check --inject-bug fold-reduce-unchecked-end)
shopt -s nullglob
RANDOM=7
for ((i = 0; i < rounds; i++)); do
  round="$dir/round$i"
  mkdir "$round"
  "$bin" fuzz --time 60 --seed "$i" --corpus "$round" "${bugs[@]}" >/dev/null 2>&1 &
  pid=$!
  # Wait (at most 60 s) for the first case, then kill 0 to 0.3 s later.
  for ((t = 0; t < 1200; t++)); do
    written=("$round"/*.uop)
    [ ${#written[@]} -gt 0 ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  sleep "0.$((RANDOM % 4))$((RANDOM % 10))"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
done
cases=("$dir"/round*/*.uop)
echo "sigkill: ${#cases[@]} case(s) written across $rounds killed campaigns"
if [ ${#cases[@]} -lt "$rounds" ]; then
  echo "error: a round was killed before it wrote its first case: the test shows less than it claims" >&2
  exit 1
fi
for round in "$dir"/round*; do
  if ! "$bin" replay "$round" >/dev/null; then
    "$bin" replay "$round"
    echo "error: a case left by a killed campaign in $round does not replay" >&2
    exit 1
  fi
done
# A finished campaign in a killed campaign's directory removes stale temporaries.
for round in "$dir"/round*; do
  "$bin" fuzz --time 1 --seed 99 --corpus "$round" --max-graphs 10 >/dev/null 2>&1
  stale=("$round"/.*.tmp)
  if [ ${#stale[@]} -ne 0 ]; then
    echo "error: stale temporaries left after a new campaign: ${stale[*]}" >&2
    exit 1
  fi
done
echo "sigkill: every case replays; no temporaries left"
