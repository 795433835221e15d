#!/usr/bin/env bash
# Usage: check.sh BIN DIR
#
# Feeds every DIR/*.uop to `BIN parse FILE`. Each file's first line says what must happen:
#     # expect: LINE:COL SUBSTRING
# The run passes when it exits with status 2, prints nothing on stdout, and prints exactly
# one line on stderr that starts with `FILE:LINE:COL: error:` and contains SUBSTRING,
# with no sanitizer report in it. Prints one line per file and `N passed, M failed`;
# exits non-zero when any file fails (or DIR holds no .uop file).
set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 BIN DIR" >&2
  exit 2
fi
bin=$1
dir=${2%/}
if [ ! -x "$bin" ]; then
  echo "error: '$bin' is not an executable" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

shopt -s nullglob
files=("$dir"/*.uop)
if [ ${#files[@]} -eq 0 ]; then
  echo "error: no .uop files in $dir" >&2
  exit 1
fi

expect_re='^# expect: ([0-9]+):([0-9]+) (.+)$'
passed=0
failed=0
for f in "${files[@]}"; do
  name=$(basename "$f")
  first=$(head -n 1 "$f" | tr -d '\r')
  if [[ ! $first =~ $expect_re ]]; then
    echo "FAIL $name: first line is not '# expect: LINE:COL SUBSTRING'"
    failed=$((failed + 1))
    continue
  fi
  want_line=${BASH_REMATCH[1]}
  want_col=${BASH_REMATCH[2]}
  want_msg=${BASH_REMATCH[3]}

  timeout 120 "$bin" parse "$f" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  err=$(cat "$tmp/err")
  nlines=$(wc -l <"$tmp/err")
  prefix="$f:$want_line:$want_col: error:"

  why=""
  if grep -aqE 'ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|UndefinedBehaviorSanitizer' "$tmp/err"; then
    why="sanitizer report"
  elif [ "$rc" -ne 2 ]; then
    why="exit status $rc, expected 2"
  elif [ "$nlines" -ne 1 ] || [ -n "$(tail -c 1 "$tmp/err" | tr -d '\n')" ]; then
    why="stderr has $nlines line(s), expected exactly 1"
  elif [[ $err != "$prefix"* ]]; then
    why="stderr does not start with '$prefix'"
  elif [[ $err != *"$want_msg"* ]]; then
    why="message lacks '$want_msg'"
  elif [ -s "$tmp/out" ]; then
    why="printed something on stdout"
  fi

  if [ -z "$why" ]; then
    echo "PASS $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name: $why"
    # Show what it did print (first lines, printable bytes only).
    head -n 5 "$tmp/err" | cut -c 1-300 | tr -c '[:print:]\n' '?' | sed 's/^/    stderr: /'
    failed=$((failed + 1))
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
