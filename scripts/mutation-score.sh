#!/usr/bin/env bash
# How many source-level faults the project did not plant a fixed-budget campaign finds:
# mutants of the simplifier, the tensor-level scheduler, the bound analysis, the quantized
# types and the two backends' emitters, applied one at a time to a scratch copy of the tree
# (never to this checkout), each rebuilt incrementally in one reused build directory and
# fuzzed for a fixed time by the default campaign (every executor: the oracle, cpu and
# vulkan, whichever devices open). A mutant is killed when the campaign reports a finding
# (or crashes or hangs); it survives when the campaign finds nothing; it is stillborn when
# it does not build; it is equivalent when docs/mutants.md says no input can tell it from
# the original (it is then not run). The score is killed / (killed + survived); the strict
# score leaves out only the equivalents of kind "same" (see docs/mutants.md).
#
# Mutation operators, on every code line of the files (comments and string literals are
# left alone), enumerated in file, line and column order:
#   rel     a relational operator swapped: < and <=, > and >=, == and !=
#   const   an integer literal off by one: n+1, and n-1 when n > 0
#   conj    a conjunct dropped: `a && b` becomes `a` (b up to the next top-level , ; ) && ||)
#   swap    the operands next to a binary -, / or % swapped (`a - b` becomes `b - a`)
#
# A mutant's ID is its place in that order (stable while the mutated files do not change);
# its key names it across unrelated edits: the file, the operator, the text replaced and
# its replacement, the occurrence among identical mutants of identical lines, and the line
# (its code: a trailing // comment left out, whitespace collapsed), e.g.
#   simplifier/ranges.cpp rel " < " -> " <= " #1: if (lo < 0) return std::nullopt;
# docs/mutants.md lists the equivalent mutants, one a line: - `KEY` — [kind] why; the
# score's line counts the equivalents by kind (the bracketed word; "other" without one).
#
# Usage: scripts/mutation-score.sh [options]
#   --list              print the mutants (those --sample, --only and --shard select) and
#                       exit: ID FILE:LINE OPERATOR "before" -> "after", with
#                       [equivalent: KIND] after those docs/mutants.md lists; nothing is built
#   --count             with or without --list: mutants per file (selected, equivalent)
#                       and in all, then exit; nothing is built
#   --keys              with --list: each mutant's key on the line after it
#   --sample N          run N mutants drawn by --sample-seed, spread over the files (each
#                       file's first pick before any file's second, in a random order)
#                       (default: every mutant)
#   --sample-seed S     the draw's seed (default 1): the same S and N on the same files give
#                       the same mutants
#   --only ID,ID,...    run exactly these mutants (IDs as --list prints them), equivalent
#                       ones included (a listed equivalent that is killed is a wrong entry)
#   --shard K/N         run only the selected mutants whose ID mod N is K (N machines, one
#                       run each, split the whole score)
#   --time T            campaign seconds per mutant (default 30)
#   --seed S            the campaign's seed (default 1)
#   --jobs N            build jobs and campaign workers (default 2)
#   --files "F ..."     files to mutate, relative to the tree (default: simplifier/*.cpp
#                       schedule/*.cpp ir/analysis.cpp ir/quant.cpp backends/cpu/lower.cpp
#                       backends/vulkan/render.cpp)
#   --equivalents FILE  the list of equivalent mutants (default: this checkout's
#                       docs/mutants.md, also with --rev; a missing default lists none)
#   --rev REV           mutate and build commit REV (default: this checkout's files as they
#                       are, committed or not, ignored ones left out)
#   --json FILE         also write the results as JSON
#   --scratch DIR       the scratch copy (DIR/tree) and its build (DIR/tree/build): a given
#                       DIR is kept and reused, and only files whose content changed are
#                       copied again, so a rerun rebuilds only what changed (default: a new
#                       directory under ${TMPDIR:-/tmp}, removed at the end)
#   -h, --help          this text
# Output: one line per mutant (verdict, ID, place, mutation, detail, seconds), the score
# over non-equivalent built mutants, then each survivor's ID and key.
# Exit status: 0 when it ran (whatever the score), 2 on bad usage or input, or when the
# unmutated tree does not build or its campaign already finds something.
set -uo pipefail

list=0
count=0
keys=0
sample=0
sample_seed=1
only=""
shard=""
seconds=30
seed=1
jobs=2
files=""
equivalents=""
rev=""
json=""
scratch=""

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "mutation-score: $*" >&2; exit 2; }
number() { [[ $2 =~ ^[0-9]+$ ]] || die "$1 expects a non-negative integer, got '$2'"; }
value() { [[ -n ${2:-} ]] || die "$1 needs a value (see --help)"; }

while (($#)); do
  case "$1" in
    --list) list=1; shift ;;
    --count) count=1; shift ;;
    --keys) keys=1; shift ;;
    --sample) number "$1" "${2:-}"; sample=$2; shift 2 ;;
    --sample-seed) number "$1" "${2:-}"; sample_seed=$2; shift 2 ;;
    --only)
      [[ ${2:-} =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--only expects IDs like 3,17,40, got '${2:-}'"
      only=$2; shift 2 ;;
    --shard)
      [[ ${2:-} =~ ^([0-9]+)/([1-9][0-9]*)$ ]] && ((BASH_REMATCH[1] < BASH_REMATCH[2])) ||
        die "--shard expects K/N with 0 <= K < N, got '${2:-}'"
      shard=$2; shift 2 ;;
    --time) number "$1" "${2:-}"; seconds=$2; shift 2 ;;
    --seed) number "$1" "${2:-}"; seed=$2; shift 2 ;;
    --jobs) number "$1" "${2:-}"; [[ $2 -gt 0 ]] || die "--jobs must be at least 1"; jobs=$2; shift 2 ;;
    --files) value "$1" "${2:-}"; files=$2; shift 2 ;;
    --equivalents) value "$1" "${2:-}"; equivalents=$2; shift 2 ;;
    --rev) value "$1" "${2:-}"; rev=$2; shift 2 ;;
    --json) value "$1" "${2:-}"; json=$2; shift 2 ;;
    --scratch) value "$1" "${2:-}"; scratch=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ -n $only && $sample -gt 0 ]] && die "--only and --sample do not go together"
[[ $keys -eq 1 && $list -eq 0 ]] && die "--keys goes with --list"
[[ $seconds -gt 0 || $list -eq 1 || $count -eq 1 ]] || die "--time must be at least 1"

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || die "cannot enter $root"
# Paths given on the command line are relative to where it was run.
for v in json scratch equivalents; do
  [[ -n ${!v} && ${!v} != /* ]] && printf -v "$v" '%s' "$OLDPWD/${!v}"
done

# The scratch directory (only when something is built).
keep_scratch=1
tmp_list=""
cleanup() {
  [[ $keep_scratch -eq 1 || -z $scratch ]] || rm -rf "$scratch"
  [[ -z $tmp_list ]] || rm -rf "$tmp_list"
}
trap cleanup EXIT

# The tree the mutants come from: this checkout, or commit REV extracted.
if [[ -n $rev ]]; then
  commit=$(git rev-parse --verify --quiet "$rev^{commit}") || die "--rev: no commit '$rev' in $root"
  tree_name="commit $commit"
else
  commit=$(git rev-parse --verify --quiet HEAD 2>/dev/null || echo unknown)
  tree_name="the checkout at $commit"
  [[ -n $(git status --porcelain 2>/dev/null) ]] && tree_name="$tree_name with uncommitted changes"
fi
build_run=0
[[ $list -eq 0 && $count -eq 0 ]] && build_run=1
if [[ $build_run -eq 1 ]]; then
  if [[ -z $scratch ]]; then
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/uopfuzz-mutants.XXXXXX") || die "cannot create a scratch directory"
    keep_scratch=0
  fi
  mkdir -p "$scratch/tree" || die "cannot create $scratch/tree"
fi
if [[ -n $rev ]]; then
  if [[ $build_run -eq 1 ]]; then
    src="$scratch/rev"
  else
    tmp_list=$(mktemp -d "${TMPDIR:-/tmp}/uopfuzz-mutants-list.XXXXXX") || die "cannot create a temporary directory"
    src="$tmp_list"
  fi
  rm -rf "$src" && mkdir -p "$src" || die "cannot create $src"
  git archive "$commit" | tar -xf - -C "$src" || die "cannot extract $commit"
else
  src="$root"
fi

cd "$src" || die "cannot enter $src"
if [[ -z $files ]]; then
  files=$(ls simplifier/*.cpp schedule/*.cpp ir/analysis.cpp ir/quant.cpp backends/cpu/lower.cpp \
    backends/vulkan/render.cpp 2>/dev/null | tr '\n' ' ')
fi
for f in $files; do [[ -f $f ]] || die "no such file: $f"; done
[[ -n $equivalents ]] || equivalents="$root/docs/mutants.md"
[[ -f $equivalents || $equivalents == "$root/docs/mutants.md" ]] ||
  die "--equivalents: no such file: $equivalents"

# One mutant per output line, tab-separated:
#   FILE LINE COL LEN OPERATOR REPLACEMENT BEFORE KEY
# The edit replaces LEN characters of line LINE from column COL (1-based) by REPLACEMENT;
# BEFORE is the text it replaces, KEY the mutant's name across unrelated edits.
enumerate() {
  # shellcheck disable=SC2086
  awk '
    # The line with comments and string or character literals blanked out (same length),
    # so operators are only found in code.
    # Sets cstart to the column where a // comment starts (0: none).
    function mask(s,    out, i, c, n, q) {
      out = ""; n = length(s); q = ""; cstart = 0
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
        if (c == "/" && substr(s, i + 1, 1) == "/") { cstart = i; while (i <= n) { out = out "_"; i++ } break }
        out = out c
      }
      return out
    }
    function emit(col, len, op, repl,    before, t, id) {
      before = substr(line, col, len)
      gsub(/\t/, " ", before); gsub(/\t/, " ", repl)
      t = cstart ? substr(line, 1, cstart - 1) : line
      gsub(/[ \t]+/, " ", t); sub(/^ /, "", t); sub(/ $/, "", t)
      id = FILENAME " " op " \"" before "\" -> \"" repl "\""
      seen[id SUBSEP t]++
      printf "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s #%d: %s\n", FILENAME, FNR, col, len, op, repl, before, id, seen[id SUBSEP t], t
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

# The keys docs/mutants.md lists: lines "- `KEY` — why".
equivalent_keys() {
  [[ -f $equivalents ]] || return 0
  awk '/^- `/ { s = substr($0, 4); i = index(s, "` — "); if (i > 1) print substr(s, 1, i - 1) }' "$equivalents"
}
# KEY<tab>KIND for each entry: KIND the bracketed word that opens the reason, else "other".
equivalent_kinds() {
  [[ -f $equivalents ]] || return 0
  awk '/^- `/ { s = substr($0, 4); i = index(s, "` — "); if (i <= 1) next
      why = substr(s, i + length("` — ")); kind = "other"
      if (match(why, /^\[[a-z-]+\]/)) kind = substr(why, 2, RLENGTH - 2)
      print substr(s, 1, i - 1) "\t" kind }' "$equivalents"
}

# Adds an ID column (1-based, enumeration order) and an equivalence column (1 or 0):
#   ID FILE LINE COL LEN OPERATOR REPLACEMENT BEFORE KEY EQUIVALENT
all=$(awk -F'\t' -v OFS='\t' 'FILENAME == ARGV[1] { eq[$0] = 1; next } { print FNR, $0, ($8 in eq) ? 1 : 0 }' \
  <(equivalent_keys) <(enumerate))
total=$(printf '%s\n' "$all" | grep -c .)
[[ $total -gt 0 ]] || die "no mutants in: $files"
# Entries of the equivalents list for the mutated files that name no mutant: the code changed.
stale=$(awk -F'\t' 'FILENAME == ARGV[1] { have[$9] = 1; file[$2] = 1; next }
  { split($0, w, " "); if ((w[1] in file) && !($0 in have)) print "  " $0 }' \
  <(printf '%s\n' "$all") <(equivalent_keys))
[[ -z $stale ]] || printf 'mutation-score: %s names mutants that no longer exist (update it):\n%s\n' \
  "$equivalents" "$stale" >&2

mutants=$all
if [[ -n $only ]]; then
  for id in ${only//,/ }; do
    [[ $id -le $total ]] || die "--only: no mutant $id (there are $total; see --list)"
  done
  mutants=$(printf '%s\n' "$all" | awk -F'\t' -v ids="$only" 'BEGIN { n = split(ids, a, ","); for (i = 1; i <= n; i++) keep[a[i]] = 1 } keep[$1]')
elif [[ $sample -gt 0 && $sample -lt $total ]]; then
  # Shuffle, rank each mutant within its file in that order, and take the lowest ranks first.
  ids=$(printf '%s\n' "$all" | cut -f1,2 | shuf --random-source=<(yes "uopfuzz-mutants-$sample_seed") |
    awk -F'\t' -v OFS='\t' '{ print rank[$2]++, NR, $1 }' | sort -n -k1,1 -k2,2 | head -n "$sample" | cut -f3)
  mutants=$(printf '%s\n' "$all" | awk -F'\t' 'FILENAME == ARGV[1] { keep[$1] = 1; next } keep[$1]' <(printf '%s\n' "$ids") -)
fi
if [[ -n $shard ]]; then
  mutants=$(printf '%s\n' "$mutants" | awk -F'\t' -v k="${shard%/*}" -v n="${shard#*/}" '$1 % n == k')
fi
selected=$(printf '%s\n' "$mutants" | grep -c .)

if [[ $count -eq 1 ]]; then
  printf '%s\n' "$all" | awk -F'\t' 'FILENAME == ARGV[1] { sel[$1] = 1; next }
    !($2 in n) { order[++files] = $2 }
    { n[$2]++; e[$2] += $10; s[$2] += ($1 in sel) }
    END {
      for (i = 1; i <= files; i++) { f = order[i]; printf "%6d %6d %6d  %s\n", n[f], s[f], e[f], f; t += n[f]; ts += s[f]; te += e[f] }
      printf "%6d %6d %6d  in all (mutants, selected, equivalent)\n", t, ts, te
    }' <(printf '%s\n' "$mutants" | cut -f1) -
  exit 0
fi
if [[ $list -eq 1 ]]; then
  printf '%s\n' "$mutants" | awk -F'\t' -v keys="$keys" 'FILENAME == ARGV[1] { kind[$1] = $2; next } {
      printf "%s %s:%s %s \"%s\" -> \"%s\"%s\n", $1, $2, $3, $6, $8, $7, $10 ? " [equivalent: " kind[$9] "]" : ""
      if (keys) printf "  %s\n", $9
    }' <(equivalent_kinds) -
  echo "$selected of $total mutants"
  exit 0
fi
[[ $selected -gt 0 ]] || die "no mutant selected"

# The scratch tree: the source tree's files copied where their content differs, so that a
# reused build recompiles only what changed; an interrupted run's mutant is undone too.
tree="$scratch/tree"
build="$tree/build"
if [[ -n $rev ]]; then
  file_list() { (cd "$src" && find . -type f -printf '%P\0'); }
else
  file_list() { git ls-files --cached --others --exclude-standard -z; }
fi
while IFS= read -r -d '' f; do
  [[ -f $src/$f ]] || continue
  if ! cmp -s "$src/$f" "$tree/$f"; then
    mkdir -p "$tree/$(dirname "$f")" && cp "$src/$f" "$tree/$f" || die "cannot copy $f to $tree"
  fi
done < <(file_list)
log="$scratch/mutants.log"
: >"$log"
export CCACHE_BASEDIR=/ CCACHE_NOHASHDIR=1
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
if [[ ! -f $build/build.ninja ]]; then
  (cd "$tree" && cmake --preset release "${launcher[@]}" >>"$log" 2>&1) || die "cmake fails on the unmutated tree (see $log)"
fi
rebuild() { cmake --build "$build" -j "$jobs" --target uopfuzz >>"$log" 2>&1; }
out="$scratch/campaign.out"
campaign() {
  rm -rf "$scratch/findings" "$scratch/campaign.json"
  timeout $((seconds * 4 + 120)) "$build/uopfuzz" fuzz --time "$seconds" --seed "$seed" --jobs "$jobs" \
    --no-reduce --json "$scratch/campaign.json" --corpus "$scratch/findings" >"$out" 2>&1
  local rc=$?
  cat "$out" >>"$log"
  return $rc
}
echo "mutation-score: $selected of $total mutants, ${seconds}s campaigns on $jobs job(s), seed $seed; tree: $tree_name"
echo "mutation-score: building the unmutated tree in $build"
rebuild || die "the unmutated tree does not build (see $log)"
campaign
rc=$?
[[ $rc -eq 0 ]] || die "the unmutated tree's campaign already exits $rc (see $log): nothing to measure"
executors=$(sed -n 's/^ *executors: //p' "$out" | tail -1)
echo "mutation-score: the unmutated tree's campaign finds nothing; executors: ${executors:-?}"
# An emitter's mutants can only die when its executor runs.
for pair in backends/cpu/:cpu backends/vulkan/:vulkan; do
  if [[ " $files" == *" ${pair%%:*}"* ]] && ! [[ $executors =~ (^|, )${pair#*:}\ [1-9] ]]; then
    echo "mutation-score: warning: the campaign checked no graph on ${pair#*:}: mutants of ${pair%%:*} cannot be killed" >&2
  fi
done

esc() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g; s/\t/ /g'; }
declare -A kind_of=() kinds=()
while IFS=$'\t' read -r k v; do [[ -n $k ]] && kind_of[$k]=$v; done < <(equivalent_kinds)
killed=0; survived=0; stillborn=0; equivalent=0; wrong_equivalent=0
results=()
survivors=()
# (Fields split on a non-blank separator: a dropped conjunct's replacement is empty.)
while IFS=$'\037' read -r id file line col len op repl before key eq; do
  what="\"$before\" -> \"$repl\""
  start=$SECONDS
  if [[ $eq -eq 1 && -z $only ]]; then
    kind=${kind_of[$key]:-other}
    verdict=equivalent; detail="listed in docs/mutants.md ($kind), not run"
    equivalent=$((equivalent + 1)); kinds[$kind]=$((${kinds[$kind]:-0} + 1))
  else
    # Apply the edit to the scratch copy of the file, from the pristine one.
    awk -v L="$line" -v C="$col" -v N="$len" -v R="$repl" \
      'FNR == L { $0 = substr($0, 1, C - 1) R substr($0, C + N) } { print }' "$src/$file" >"$tree/$file"
    if ! rebuild; then
      verdict=stillborn; detail="does not build"
    else
      campaign
      rc=$?
      if [[ $rc -eq 0 ]]; then
        verdict=survived; detail="no finding in ${seconds}s"
      else
        verdict=killed
        sig=$(grep -o '"signature": *"[^"]*"' "$scratch/campaign.json" 2>/dev/null | head -1 | sed 's/.*: *"//; s/"$//')
        case $rc in
          1) detail="finding ${sig:-?}" ;;
          124) detail="the campaign hung" ;;
          *) detail="the campaign exited $rc" ;;
        esac
      fi
    fi
    cp "$src/$file" "$tree/$file"
    if [[ $eq -eq 1 ]]; then
      # Named with --only: an equivalent entry checked again.
      kind=${kind_of[$key]:-other}
      equivalent=$((equivalent + 1)); kinds[$kind]=$((${kinds[$kind]:-0} + 1))
      if [[ $verdict == killed ]]; then
        wrong_equivalent=$((wrong_equivalent + 1))
        detail="$detail: listed as equivalent in docs/mutants.md, wrongly"
      fi
      verdict="$verdict(equivalent)"
    else
      case $verdict in
        killed) killed=$((killed + 1)) ;;
        survived) survived=$((survived + 1)); survivors+=("$id"$'\t'"$key") ;;
        stillborn) stillborn=$((stillborn + 1)) ;;
      esac
    fi
  fi
  took=$((SECONDS - start))
  printf '%-10s %5s %s:%s %s %s: %s (%ss)\n' "$verdict" "$id" "$file" "$line" "$op" "$what" "$detail" "$took"
  results+=("$(printf '{"id": %s, "file": "%s", "line": %s, "operator": "%s", "mutation": "%s", "key": "%s", "verdict": "%s", "detail": "%s", "seconds": %s}' \
    "$id" "$file" "$line" "$op" "$(esc "$what")" "$(esc "$key")" "$verdict" "$(esc "$detail")" "$took")")
done < <(printf '%s\n' "$mutants" | tr '\t' '\037')
rebuild >/dev/null 2>&1 || true  # leave a reused scratch build unmutated

ran=$((killed + survived))
score=$(awk -v k="$killed" -v r="$ran" 'BEGIN { printf "%.1f", r ? 100 * k / r : 0 }')
by_kind=""
for k in $(printf '%s\n' "${!kinds[@]}" | sort); do by_kind+="${by_kind:+, }$k ${kinds[$k]}"; done
echo "mutation score: $killed killed of $ran non-equivalent built mutants = $score% ($survived survived, $stillborn stillborn, $equivalent equivalent${by_kind:+ ($by_kind)}; $selected run of $total mutants; campaign ${seconds}s on $jobs job(s), seed $seed; tree: $tree_name)"
# Strictly: only the equivalents of kind "same" (same values for every input) left out.
same=${kinds[same]:-0}
strict=$(awk -v k="$killed" -v r="$((ran + equivalent - same))" 'BEGIN { printf "%.1f", r ? 100 * k / r : 0 }')
[[ $equivalent -eq $same ]] ||
  echo "strict score (only equivalents of kind same left out): $killed of $((ran + equivalent - same)) = $strict%"
[[ $wrong_equivalent -eq 0 ]] || echo "mutation-score: $wrong_equivalent mutant(s) listed as equivalent were killed: fix docs/mutants.md"
if [[ ${#survivors[@]} -gt 0 ]]; then
  echo "survivors (ID, then the key docs/mutants.md names an equivalent one by):"
  for s in "${survivors[@]}"; do printf '  %s %s\n' "${s%%$'\t'*}" "${s#*$'\t'}"; done
fi
if [[ -n $json ]]; then
  {
    printf '{"date": "%s", "tree": "%s", "commit": "%s",\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(esc "$tree_name")" "$commit"
    printf ' "killed": %s, "survived": %s, "stillborn": %s, "equivalent": %s, "equivalent_by_kind": {%s},\n "score_percent": %s, "strict_score_percent": %s,\n' \
      "$killed" "$survived" "$stillborn" "$equivalent" \
      "$(for k in $(printf '%s\n' "${!kinds[@]}" | sort); do printf '"%s": %s, ' "$k" "${kinds[$k]}"; done | sed 's/, $//')" "$score" "$strict"
    printf ' "mutants_selected": %s, "mutants_total": %s, "campaign_seconds": %s, "campaign_seed": %s, "jobs": %s,\n' \
      "$selected" "$total" "$seconds" "$seed" "$jobs"
    printf ' "sample": %s, "sample_seed": %s, "only": "%s", "shard": "%s", "executors": "%s",\n "mutants": [\n' \
      "$sample" "$sample_seed" "$only" "$shard" "$(esc "$executors")"
    for i in "${!results[@]}"; do printf '  %s%s\n' "${results[$i]}" "$([[ $i -lt $((${#results[@]} - 1)) ]] && echo ,)"; done
    printf ' ]}\n'
  } >"$json" || die "cannot write $json"
fi
exit 0
