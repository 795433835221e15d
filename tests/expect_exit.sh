#!/usr/bin/env bash
# Usage: expect_exit.sh STATUS COMMAND...  Runs COMMAND; passes iff it exits with STATUS.
want=$1
shift
"$@"
got=$?
if [ "$got" -ne "$want" ]; then
  echo "expected exit status $want, got $got: $*" >&2
  exit 1
fi
