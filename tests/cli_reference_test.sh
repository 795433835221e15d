#!/usr/bin/env bash
# Usage: cli_reference_test.sh BIN DOC
#
# docs/cli.md against the binary's own --help: every subcommand `BIN --help` lists must
# have a section in DOC (a heading "## `NAME`"), and every long flag (--foo) that
# `BIN NAME --help` prints in its options must be named in that section (from its heading
# to the next "## " heading). A subcommand with subcommands of its own (corpus merge) is
# checked the same way, its flags in the parent's section. --help and --version are left
# out: every subcommand has them. Exit 0 when the reference is complete, 1 with one line per
# gap otherwise, 2 on bad usage.
set -u

if [ $# -ne 2 ] || [ ! -x "$1" ] || [ ! -f "$2" ]; then
  echo "usage: $0 BIN (the uopfuzz binary) DOC (docs/cli.md)" >&2
  exit 2
fi
bin=$1
doc=$2
gaps=0

# The names a --help lists under "Subcommands:" (two-space indent, then the name).
subcommands() {
  "$@" --help 2>&1 | awk '/^Subcommands:/ { on = 1; next } on && /^[^ ]/ { on = 0 } on && /^  [a-z]/ { print $1 }'
}

# The long flags a --help prints in its option lines: the text before the description
# (the first run of two spaces), e.g. "-o,--output TEXT REQUIRED" or
# "--check-bounds,--no-check-bounds{false}".
long_flags() {
  "$@" --help 2>&1 | grep -E '^ +(-[A-Za-z],)?--[a-z]' | sed -E 's/^ +//; s/  .*$//' |
    grep -oE -- '--[a-z][a-z0-9-]*' | grep -vxE -- '--help|--version' | sort -u
}

# DOC's section for a subcommand: its "## `NAME`" heading up to the next "## " heading.
section() {
  awk -v head="## \`$1\`" '$0 == head { on = 1; print; next } on && /^## / { exit } on { print }' "$doc"
}

# check NAME CMD...: flags of CMD --help must appear in NAME's section; recurse into
# nested subcommands.
check() {
  local name=$1
  shift
  local text
  text=$(section "$name")
  local flag
  for flag in $(long_flags "$@"); do
    # a whole flag: not followed by another flag character (--seed is not --seeds)
    if ! grep -qE -- "${flag}([^a-z0-9-]|\$)" <<<"$text"; then
      echo "$doc: section \`$name\` does not mention $flag (\`$* --help\` prints it)"
      gaps=$((gaps + 1))
    fi
  done
  local nested
  for nested in $(subcommands "$@"); do
    if ! grep -qF -- "$name $nested" <<<"$text"; then
      echo "$doc: section \`$name\` does not show \`$name $nested\`"
      gaps=$((gaps + 1))
    fi
    check "$name" "$@" "$nested"
  done
}

subs=$(subcommands "$bin")
if [ -z "$subs" ]; then
  echo "$bin --help lists no subcommands" >&2
  exit 1
fi
count=0
for sub in $subs; do
  count=$((count + 1))
  if ! grep -qxF -- "## \`$sub\`" "$doc"; then
    echo "$doc: no section for subcommand \`$sub\` (a heading \"## \`$sub\`\")"
    gaps=$((gaps + 1))
    continue
  fi
  check "$sub" "$bin" "$sub"
done

if [ "$gaps" -ne 0 ]; then
  echo "cli_reference: $gaps gap(s) between $doc and $bin --help"
  exit 1
fi
echo "cli_reference: $count subcommands, every one and every long flag documented in $doc"
