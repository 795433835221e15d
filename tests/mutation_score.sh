#!/usr/bin/env bash
# scripts/mutation-score.sh without building anything: how it enumerates, names, counts,
# selects and marks mutants, and how it refuses bad input. Each check fails on its own.
set -uo pipefail
script=$1
data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
gate=tests/data/mutation/gate.cpp
other=tests/data/mutation/other.cpp
eq="$data/equivalents.md"
none="$tmp/none.md"  # an empty equivalents list
: >"$none"
ms() { "$script" --equivalents "$eq" "$@"; }

# --count: mutants per file, then in all (mutants, selected, equivalent).
out=$(ms --count --files "$gate $other" 2>/dev/null)
[[ $(sed -n 1p <<<"$out") =~ ^\ +14\ +14\ +0\ +$gate$ ]] || fail "--count line of gate.cpp: $(sed -n 1p <<<"$out")"
[[ $(sed -n 2p <<<"$out") =~ ^\ +7\ +7\ +1\ +$other$ ]] || fail "--count line of other.cpp: $(sed -n 2p <<<"$out")"
[[ $(sed -n 3p <<<"$out") =~ ^\ +21\ +21\ +1\ +in\ all ]] || fail "--count total: $(sed -n 3p <<<"$out")"

# The equivalents list marks its mutant, and names the entry whose line no longer exists.
out=$(ms --list --files "$gate $other" 2>"$tmp/err")
grep -qx "15 $other:4 rel \" < \" -> \" <= \" \[equivalent: same\]" <<<"$out" ||
  fail "mutant 15 not marked equivalent of kind same"
[[ $(grep -c '\[equivalent' <<<"$out") -eq 1 ]] || fail "other mutants marked equivalent: $(grep equivalent <<<"$out")"
grep -q 'lo / 3;' "$tmp/err" || fail "the stale entry was not reported: $(cat "$tmp/err")"
"$script" --list --files "$gate" --equivalents "$tmp/missing.md" >/dev/null 2>&1 &&
  fail "a missing --equivalents file was accepted"

# Keys survive unrelated edits: a line inserted above moves line numbers, not keys, and
# a comment after the code is not part of the key.
mkdir -p "$tmp/a" "$tmp/b"
cp "$gate" "$tmp/a/x.cpp"
{ echo "// an unrelated line"; sed 's|return hi - lo / 2;|& // a comment added|' "$gate"; } >"$tmp/b/x.cpp"
grep -q 'a comment added' "$tmp/b/x.cpp" || fail "the test did not add its comment"
keys() { "$script" --list --keys --files "$1/x.cpp" --equivalents "$none" | grep '^  ' | sed 's|^  [^ ]* |  |'; }
[[ $(keys "$tmp/a" | wc -l) -eq 14 ]] || fail "--keys did not print 14 keys"
[[ $(keys "$tmp/a") == "$(keys "$tmp/b")" ]] || fail "keys changed with an unrelated edit"
[[ $(keys "$tmp/a" | sort | uniq -d) == "" ]] || fail "two mutants share a key"
first=$("$script" --list --files "$tmp/b/x.cpp" --equivalents "$none" | sed -n 1p)
[[ $first == "1 $tmp/b/x.cpp:9 rel \" > \" -> \" >= \"" ]] || fail "the moved mutant is not at line 9: $first"

# Selections: --only, --shard, and a sample that reaches every file before any file twice.
[[ $(ms --list --files "$gate $other" --only 3,19 2>/dev/null | cut -d' ' -f1 | tr '\n' ' ') == "3 19 2 " ]] ||
  fail "--only 3,19 selected: $(ms --list --files "$gate $other" --only 3,19 2>/dev/null | tr '\n' '|')"
[[ $(ms --list --files "$gate $other" --shard 1/5 2>/dev/null | head -n -1 | cut -d' ' -f1 | tr '\n' ' ') == "1 6 11 16 21 " ]] ||
  fail "--shard 1/5 did not select IDs 1 mod 5"
for s in 1 2 3; do
  picked=$(ms --list --files "$gate $other" --sample 2 --sample-seed $s 2>/dev/null | head -n -1)
  [[ $(grep -c gate.cpp <<<"$picked") -eq 1 && $(grep -c other.cpp <<<"$picked") -eq 1 ]] ||
    fail "--sample 2 --sample-seed $s is not one mutant of each file: $picked"
done
[[ $(ms --list --files "$gate $other" --sample 5 --sample-seed 4 2>/dev/null) == "$(ms --list --files "$gate $other" --sample 5 --sample-seed 4 2>/dev/null)" ]] || fail "a sample is not reproducible"

# Bad input: a message and exit status 2, before anything is built.
bad() {
  local why=$1; shift
  "$script" "$@" >"$tmp/out" 2>&1
  local rc=$?
  [[ $rc -eq 2 ]] || fail "$why: exit $rc, expected 2"
  grep -q '^mutation-score: ' "$tmp/out" || fail "$why: no message"
}
bad "--only 0" --only 0 --list --files "$gate"
bad "--only past the end" --only 15 --list --files "$gate" --equivalents "$none"
bad "--only with --sample" --only 1 --sample 2 --list --files "$gate"
bad "--shard 2/2" --shard 2/2 --list --files "$gate"
bad "--sample x" --sample x --list
bad "--time 0" --time 0 --files "$gate"
bad "--jobs 0" --jobs 0 --list
bad "a missing file" --list --files tests/data/mutation/none.cpp
bad "an unknown option" --frobnicate
bad "--rev of no commit" --rev no-such-commit --list --files "$gate"
bad "--files without a value" --files

# --help is true: it names every option the script parses, and exits 0.
help=$("$script" --help) || fail "--help exits non-zero"
for opt in $(grep -o '^    --[a-z-]*)' "$script" | tr -d ' )'); do
  grep -q -- "$opt" <<<"$help" || fail "--help does not describe $opt"
done

((failures == 0)) && echo "mutation-score: all checks passed"
((failures == 0))
