#!/usr/bin/env bash
# A kept reproducer of an external simplifier's bug (corpus/findings/tinygrad/*.py) still
# shows the bug against the tinygrad under test: the script, run with only tinygrad on
# PYTHONPATH, exits 1. Exits 77 (ctest: skipped) with the reason when there is no tinygrad.
# Usage: run_reproducer.sh SCRIPT
set -uo pipefail
script=$1
tinygrad=${TINYGRAD_PATH:-}
if [[ -z "$tinygrad" || ! -f "$tinygrad/tinygrad/__init__.py" ]]; then
  echo "SKIP: no tinygrad (TINYGRAD_PATH='$tinygrad'); make test uses ../shared/vendor/tinygrad"
  exit 77
fi
# From an empty folder, so that nothing of uopfuzz's can be imported by accident.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
PYTHONPATH="$tinygrad" python3 "$script"
rc=$?
if [[ $rc -eq 1 ]]; then
  echo "ok: the bug still shows (exit 1)"
  exit 0
fi
echo "expected exit 1 (the bug is there), got $rc: fixed in this tinygrad, or the script is wrong"
exit 1
