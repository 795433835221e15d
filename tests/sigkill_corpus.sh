#!/usr/bin/env bash
# Usage: sigkill_corpus.sh UOPFUZZ [ROUNDS]
#
# Kills `uopfuzz fuzz` with SIGKILL at random moments while it writes findings (several
# planted bugs at once, so each run writes several cases in its first second), then
# checks that every .uop file it left is complete: `uopfuzz replay` passes on all of
# them (each parses, runs to its recorded outputs, and the faithful simplifier agrees).
# Half-written temporaries may remain (hidden, not .uop); the next campaign in that
# directory removes them, which the last round checks.
set -u
bin=$1
rounds=${2:-15}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

bugs=(--inject-bug unparented-max-multiplies --inject-bug bound-off-by-one --inject-bug split-no-divisibility
      --inject-bug gather-no-bounds-check --inject-bug fold-reduce-unchecked-end)
RANDOM=7
for ((i = 0; i < rounds; i++)); do
  "$bin" fuzz --time 30 --seed "$i" --corpus "$dir" "${bugs[@]}" >/dev/null 2>&1 &
  pid=$!
  sleep "0.$((RANDOM % 9 + 1))$((RANDOM % 10))"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
done
shopt -s nullglob
cases=("$dir"/*.uop)
echo "sigkill: ${#cases[@]} case(s) written across $rounds killed campaigns"
if [ ${#cases[@]} -eq 0 ]; then
  echo "error: no case was written before the kills: the test shows nothing" >&2
  exit 1
fi
if ! "$bin" replay "$dir"; then
  echo "error: a case left by a killed campaign does not replay" >&2
  exit 1
fi
# A finished campaign in the same directory removes stale temporaries.
"$bin" fuzz --time 1 --seed 99 --corpus "$dir" --max-graphs 10 >/dev/null 2>&1
stale=("$dir"/.*.tmp)
if [ ${#stale[@]} -ne 0 ]; then
  echo "error: stale temporaries left after a new campaign: ${stale[*]}" >&2
  exit 1
fi
echo "sigkill: every case replays; no temporaries left"
