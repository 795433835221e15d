#!/usr/bin/env bash
# How many source-level faults the project did not plant a fixed-budget campaign finds:
# mutants of the simplifier and the bound analysis, applied one at a time to a scratch
# copy of the tree (never to this checkout), each rebuilt incrementally in one reused
# build directory and fuzzed for a fixed time. A mutant is killed when the campaign
# reports a finding (or crashes or hangs); it survives when the campaign finds nothing;
# it is stillborn when it does not build (not counted in the score).
#
# Mutation operators, on every code line of the files (comments and string literals are
# left alone), enumerated in file, line and column order:
#   rel     a relational operator swapped: < and <=, > and >=, == and !=
#   const   an integer literal off by one: n+1, and n-1 when n > 0
#   conj    a conjunct dropped: `a && b` becomes `a` (b up to the next top-level , ; ) && ||)
#   swap    the operands next to a binary -, / or % swapped (`a - b` becomes `b - a`)
#
# Usage: scripts/mutation-score.sh [options]
#   --list              print the mutants (the sample, when --sample is given) and exit:
#                       ID FILE:LINE OPERATOR "before" -> "after"; nothing is built
#   --sample N          run N mutants drawn by --sample-seed (default: every mutant)
#   --sample-seed S     the draw's seed (default 1): the same S and N give the same mutants
#   --time T            campaign seconds per mutant (default 10)
#   --seed S            the campaign's seed (default 1)
#   --files "F ..."     files to mutate, relative to the tree (default: simplifier/*.cpp
#                       ir/analysis.cpp)
#   --json FILE         also write the results as JSON
#   --scratch DIR       the scratch copy and its build (default: a new directory under
#                       ${TMPDIR:-/tmp}, removed at the end; a given DIR is kept and reused)
#   --jobs N            build jobs and campaign workers (default 2)
#   -h, --help          this text
# Exit status: 0 when it ran (whatever the score), 2 on bad usage or when the unmutated
# tree does not build or its campaign already finds something.
set -uo pipefail

list=0
sample=0
sample_seed=1
seconds=10
seed=1
files=""
json=""
scratch=""
jobs=2

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "mutation-score: $*" >&2; exit 2; }
number() { [[ $2 =~ ^[0-9]+$ ]] || die "$1 expects a non-negative integer, got '$2'"; }

while (($#)); do
  case "$1" in
    --list) list=1; shift ;;
    --sample) number "$1" "${2:-}"; sample=$2; shift 2 ;;
    --sample-seed) number "$1" "${2:-}"; sample_seed=$2; shift 2 ;;
    --time) number "$1" "${2:-}"; seconds=$2; shift 2 ;;
    --seed) number "$1" "${2:-}"; seed=$2; shift 2 ;;
    --files) files=${2:?--files needs a list}; shift 2 ;;
    --json) json=${2:?--json needs a file}; shift 2 ;;
    --scratch) scratch=${2:?--scratch needs a directory}; shift 2 ;;
    --jobs) number "$1" "${2:-}"; jobs=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || die "cannot enter $root"
if [[ -z $files ]]; then
  files=$(ls simplifier/*.cpp ir/analysis.cpp 2>/dev/null | tr '\n' ' ')
fi
for f in $files; do [[ -f $f ]] || die "no such file: $f"; done

# One mutant per output line, tab-separated: FILE LINE COL LEN OPERATOR REPLACEMENT.
# The edit replaces LEN characters of line LINE from column COL (1-based) by REPLACEMENT.
enumerate() {
  # shellcheck disable=SC2086
  awk '
    # The line with comments and string or character literals blanked out (same length),
    # so operators are only found in code.
    function mask(s,    out, i, c, n, q) {
      out = ""; n = length(s); q = ""
      for (i = 1; i <= n; i++) {
        c = substr(s, i, 1)
        if (q != "") {
          if (c == "\\") { out = out "__"; i++; continue }
          if (c == q) q = ""
          out = out "_"
          continue
        }
        # A quote after a digit separates digits (100\047000); otherwise it opens a literal.
        if (c == "\047" && i > 1 && substr(s, i - 1, 1) ~ /[0-9]/) { out = out c; continue }
        if (c == "\"" || c == "\047") { q = c; out = out "_"; continue }
        if (c == "/" && substr(s, i + 1, 1) == "/") { while (i <= n) { out = out "_"; i++ } break }
        out = out c
      }
      return out
    }
    function emit(col, len, op, repl) {
      printf "%s\t%d\t%d\t%d\t%s\t%s\n", FILENAME, FNR, col, len, op, repl
    }
    function ident(c) { return c ~ /[A-Za-z0-9_.]/ }
    # End (exclusive) of the operand that starts at i: up to the next top-level , ; ? :
    # && || or a closing bracket, or the end of the line.
    function operand_end(m, i,    depth, c, n) {
      depth = 0; n = length(m)
      for (; i <= n; i++) {
        c = substr(m, i, 1)
        if (c == "(" || c == "[" || c == "{") depth++
        else if (c == ")" || c == "]" || c == "}") { if (depth == 0) return i; depth-- }
        else if (depth == 0 && (c == "," || c == ";" || c == "?")) return i
        else if (depth == 0 && (substr(m, i, 4) == " && " || substr(m, i, 4) == " || ")) return i
        else if (depth == 0 && i + 2 == n && (substr(m, i) == " &&" || substr(m, i) == " ||")) return i
      }
      return i
    }
    # A postfix expression ending just before i (identifiers, ., ::, ->, balanced calls).
    function atom_start(m, i,    depth, c) {
      depth = 0
      for (; i >= 1; i--) {
        c = substr(m, i, 1)
        if (c == ")" || c == "]") depth++
        else if (c == "(" || c == "[") { if (depth == 0) return i + 1; depth-- }
        else if (depth > 0) continue
        else if (ident(c) || c == ":" || (c == ">" && substr(m, i - 1, 1) == "-")) { if (c == ">") i--; }
        else return i + 1
      }
      return 1
    }
    function atom_end(m, i,    depth, c, n) {
      depth = 0; n = length(m)
      for (; i <= n; i++) {
        c = substr(m, i, 1)
        if (c == "(" || c == "[") depth++
        else if (c == ")" || c == "]") { if (depth == 0) return i; depth-- }
        else if (depth > 0) continue
        else if (ident(c) || c == ":" || (c == "-" && substr(m, i + 1, 1) == ">")) { if (c == "-") i++ }
        else return i
      }
      return i
    }
    {
      line = $0
      if (line ~ /^[ \t]*#/) next
      m = mask(line)
      n = length(m)
      for (i = 1; i <= n; i++) {
        three = substr(m, i, 3); four = substr(m, i, 4)
        if (four == " <= " || four == " >= " || four == " == " || four == " != ") {
          sw = four == " <= " ? " < " : four == " >= " ? " > " : four == " == " ? " != " : " == "
          emit(i, 4, "rel", sw)
        } else if ((three == " < " || three == " > ") && substr(m, i - 1, 1) != "-") {
          emit(i, 3, "rel", three == " < " ? " <= " : " >= ")
        }
        if (four == " && ") {
          e = operand_end(m, i + 4)
          if (e > i + 4) emit(i, e - i, "conj", "")
        }
        if (three == " - " || three == " / " || three == " % ") {
          ls = atom_start(m, i - 1); re = atom_end(m, i + 3)
          if (ls < i && re > i + 3) {
            left = substr(line, ls, i - ls); right = substr(line, i + 3, re - i - 3)
            if (left != right) emit(ls, re - ls, "swap", right three left)
          }
        }
        c = substr(m, i, 1)
        if (c ~ /[0-9]/ && (i == 1 || !(substr(m, i - 1, 1) ~ /[A-Za-z0-9_.]/))) {
          j = i
          while (j <= n && substr(m, j, 1) ~ /[0-9\047]/) j++
          nxt = substr(m, j, 1)
          if (!(nxt ~ /[A-Za-z0-9_.]/) && substr(m, i, 2) != "0x") {
            digits = substr(m, i, j - i)
            gsub(/\047/, "", digits)
            v = digits + 0
            if (length(digits) < 10) {
              emit(i, j - i, "const", v + 1)
              if (v > 0) emit(i, j - i, "const", v - 1)
            }
          }
          i = j - 1
        }
      }
    }
  ' $files
}

# Adds an ID column (1-based, enumeration order) and keeps the sample.
mutants=$(enumerate | awk -F'\t' -v OFS='\t' '{ print NR, $0 }')
total=$(printf '%s\n' "$mutants" | grep -c .)
[[ $total -gt 0 ]] || die "no mutants in: $files"
if [[ $sample -gt 0 && $sample -lt $total ]]; then
  ids=$(seq 1 "$total" | shuf -n "$sample" --random-source=<(yes "uopfuzz-mutants-$sample_seed") | sort -n)
  mutants=$(printf '%s\n' "$mutants" | awk -F'\t' 'NR == FNR { keep[$1] = 1; next } keep[$1]' <(printf '%s\n' "$ids") -)
fi

# "before" -> "after" of a mutant's line, for people.
describe() {
  local file=$1 line=$2 col=$3 len=$4 repl=$5
  local text
  text=$(sed -n "${line}p" "$file")
  printf '"%s" -> "%s"' "${text:col-1:len}" "$repl"
}

if [[ $list -eq 1 ]]; then
  while IFS=$'\t' read -r id file line col len op repl; do
    printf '%s %s:%s %s %s\n' "$id" "$file" "$line" "$op" "$(describe "$file" "$line" "$col" "$len" "$repl")"
  done <<<"$mutants"
  echo "$(printf '%s\n' "$mutants" | grep -c .) of $total mutants"
  exit 0
fi

# The scratch tree: this checkout's files as they are (committed or not, ignored ones left
# out), built in one build directory that every mutant reuses. Files are extracted with
# the current time (tar -m), so a reused build sees every change.
keep_scratch=1
if [[ -z $scratch ]]; then
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/uopfuzz-mutants.XXXXXX") || die "cannot create a scratch directory"
  keep_scratch=0
fi
mkdir -p "$scratch" || die "cannot create $scratch"
cleanup() { [[ $keep_scratch -eq 1 ]] || rm -rf "$scratch"; }
trap cleanup EXIT
git ls-files --cached --others --exclude-standard -z | tar --null -T - -cf - | tar -xmf - -C "$scratch" ||
  die "cannot copy the tree to $scratch"
build="$scratch/build"
export CCACHE_BASEDIR=/ CCACHE_NOHASHDIR=1
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
log="$scratch/mutants.log"
: >"$log"
(cd "$scratch" && cmake --preset release "${launcher[@]}" >>"$log" 2>&1) || die "cmake fails on the unmutated tree (see $log)"
rebuild() { cmake --build "$build" -j "$jobs" --target uopfuzz >>"$log" 2>&1; }
campaign() {
  timeout $((seconds * 4 + 120)) "$build/uopfuzz" fuzz --time "$seconds" --seed "$seed" --jobs "$jobs" \
    --no-reduce --json "$scratch/campaign.json" --corpus "$scratch/findings" >>"$log" 2>&1
}
rebuild || die "the unmutated tree does not build (see $log)"
campaign
rc=$?
[[ $rc -eq 0 ]] || die "the unmutated tree's campaign already exits $rc (see $log): nothing to measure"

killed=0; survived=0; stillborn=0
results=()
while IFS=$'\t' read -r id file line col len op repl; do
  before=$(describe "$file" "$line" "$col" "$len" "$repl")
  # Apply the edit to the scratch copy of the file, from the pristine one.
  awk -v L="$line" -v C="$col" -v N="$len" -v R="$repl" \
    'FNR == L { $0 = substr($0, 1, C - 1) R substr($0, C + N) } { print }' "$file" >"$scratch/$file"
  if ! rebuild; then
    verdict=stillborn; detail="does not build"
    stillborn=$((stillborn + 1))
  else
    rm -f "$scratch/campaign.json"
    campaign
    rc=$?
    if [[ $rc -eq 0 ]]; then
      verdict=survived; detail="no finding in ${seconds}s"
      survived=$((survived + 1))
    else
      verdict=killed
      sig=$(grep -o '"signature": *"[^"]*"' "$scratch/campaign.json" 2>/dev/null | head -1 | sed 's/.*: *"//; s/"$//')
      case $rc in
        1) detail="finding ${sig:-?}" ;;
        124) detail="the campaign hung" ;;
        *) detail="the campaign exited $rc" ;;
      esac
      killed=$((killed + 1))
    fi
  fi
  cp "$file" "$scratch/$file"
  printf '%-9s %s:%s %s %s: %s\n' "$verdict" "$file" "$line" "$op" "$before" "$detail"
  results+=("$(printf '{"id": %s, "file": "%s", "line": %s, "operator": "%s", "mutation": "%s", "verdict": "%s", "detail": "%s"}' \
    "$id" "$file" "$line" "$op" "$(printf '%s' "$before" | sed 's/\\/\\\\/g; s/"/\\"/g')" "$verdict" \
    "$(printf '%s' "$detail" | sed 's/\\/\\\\/g; s/"/\\"/g')")")
done <<<"$mutants"
rebuild >/dev/null 2>&1 || true  # leave a reused scratch build unmutated

ran=$((killed + survived))
score=$(awk -v k="$killed" -v r="$ran" 'BEGIN { printf "%.1f", r ? 100 * k / r : 0 }')
echo "mutation score: $killed killed of $ran built mutants = $score% ($survived survived, $stillborn stillborn; $total mutants in all; campaign ${seconds}s, seed $seed)"
if [[ $survived -gt 0 ]]; then
  echo "survivors:"
  printf '%s\n' "${results[@]}" | grep '"verdict": "survived"' |
    sed 's/.*"file": "\([^"]*\)", "line": \([0-9]*\), "operator": "\([^"]*\)", "mutation": "\(.*\)", "verdict".*/  \1:\2 \3 \4/; s/\\"/"/g'
fi
if [[ -n $json ]]; then
  {
    printf '{"killed": %s, "survived": %s, "stillborn": %s, "score_percent": %s, "mutants_total": %s,\n' \
      "$killed" "$survived" "$stillborn" "$score" "$total"
    printf ' "campaign_seconds": %s, "campaign_seed": %s, "sample": %s, "sample_seed": %s,\n "mutants": [\n' \
      "$seconds" "$seed" "$sample" "$sample_seed"
    for i in "${!results[@]}"; do printf '  %s%s\n' "${results[$i]}" "$([[ $i -lt $((${#results[@]} - 1)) ]] && echo ,)"; done
    printf ' ]}\n'
  } >"$json" || die "cannot write $json"
fi
exit 0
