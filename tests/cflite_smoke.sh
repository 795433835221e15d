#!/usr/bin/env bash
# Usage: cflite_smoke.sh SOURCE_DIR STATE_DIR
#
# .clusterfuzzlite/build.sh as OSS-Fuzz and ClusterFuzzLite run it, for libFuzzer with ASan:
# SOURCE_DIR is copied to $SRC/uopfuzz, the script to $SRC/build.sh, and it is run from
# $SRC/uopfuzz with the variables that build environment sets (clang-14 standing in for its
# clang). Then every file each target needs in $OUT must be there and well-formed (the seed
# corpus archive holds exactly corpus/fuzz/<target>/, the options name a dictionary that is
# there and that libFuzzer reads), the binaries must need no shared library beyond the C and
# C++ runtimes (the runners have only $OUT), and each target runs a few thousand inputs from
# its unpacked seed corpus with its options; a crash fails the test. Last, the same run with a
# planted simplifier bug must fail, so that a crash is seen to fail it.
#
# $SRC and $WORK live in STATE_DIR and are kept: a second run rebuilds only what changed (the
# copy keeps the files' times). $OUT is new every run, so a file build.sh stops writing is
# missed at once.
# UOPFUZZ_CCACHE=1 (passed to build.sh) compiles through ccache.
set -euo pipefail

if [ $# -ne 2 ] || [ ! -f "$1/.clusterfuzzlite/build.sh" ]; then
  echo "usage: $0 SOURCE_DIR STATE_DIR (SOURCE_DIR: a uopfuzz checkout)" >&2
  exit 2
fi
source_dir=$(cd "$1" && pwd)
state=$2
for tool in clang-14 clang++-14 python3 readelf; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "FAIL: $tool not found (scripts/install-deps.sh installs it)" >&2
    exit 1
  fi
done

mkdir -p "$state/src" "$state/work"
state=$(cd "$state" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/out"
# A copy, as the Dockerfile's COPY makes, not a link: STATE_DIR is usually inside the
# checkout's build tree, and a link back to the checkout from there makes a loop of paths
# CMake does not survive. Build trees and git data stay out; times are kept (tar's default).
rm -rf "$state/src/uopfuzz"
mkdir "$state/src/uopfuzz"
tar -C "$source_dir" --exclude=./build --exclude='./build-*' --exclude=./results --exclude=./.git \
  -cf - . | tar -xf - -C "$state/src/uopfuzz"
cp "$source_dir/.clusterfuzzlite/build.sh" "$state/src/build.sh"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# OSS-Fuzz's flags for libFuzzer + ASan, less -stdlib=libc++ (Debian's clang-14 comes without
# libc++ headers: the C++ library here is libstdc++) and less
# -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION (no source of the project tests it).
flags="-O1 -fno-omit-frame-pointer -gline-tables-only"
flags+=" -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
start=$(date +%s)
if ! (cd "$state/src/uopfuzz" &&
  env CC=clang-14 CXX=clang++-14 CFLAGS="$flags" CXXFLAGS="$flags" \
    LIB_FUZZING_ENGINE=-fsanitize=fuzzer SANITIZER=address FUZZING_ENGINE=libfuzzer \
    ARCHITECTURE=x86_64 SRC="$state/src" WORK="$state/work" OUT="$tmp/out" \
    bash -eu "$state/src/build.sh") >"$tmp/build.log" 2>&1; then
  tail -n 40 "$tmp/build.log" >&2
  fail "build.sh failed (log above)"
fi
echo "build.sh: $(($(date +%s) - start)) s"
out=$tmp/out

# check_target T RUNS: the files of T in $OUT, then RUNS inputs with its options.
check_target() {
  local t=$1 runs=$2
  [ -x "$out/$t" ] || fail "$out/$t: no executable"
  [ -f "$out/${t}_seed_corpus.zip" ] || fail "$out/${t}_seed_corpus.zip: missing"
  [ -f "$out/$t.options" ] || fail "$out/$t.options: missing"

  # The archive lists exactly the seed files, flat (ClusterFuzz unpacks it as the corpus).
  python3 - "$out/${t}_seed_corpus.zip" "$source_dir/corpus/fuzz/$t" <<'EOF' || fail "$t: seed corpus archive (above)"
import os, sys, zipfile
archive, folder = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(archive) as z:
    bad = z.testzip()
    if bad:
        sys.exit(f"{archive}: {bad} is corrupt")
    names = sorted(z.namelist())
want = sorted(f for f in os.listdir(folder) if os.path.isfile(os.path.join(folder, f)))
if names != want:
    sys.exit(f"{archive} holds {names}, corpus folder {folder} has {want}")
EOF

  # The options as ClusterFuzz reads them (an INI file): a [libfuzzer] section, each key a
  # libFuzzer flag; a dictionary is named relative to $OUT and must be there.
  local engine_flags
  engine_flags=$(
    python3 - "$out/$t.options" "$out" <<'EOF'
import configparser, os, sys
path, out = sys.argv[1], sys.argv[2]
c = configparser.ConfigParser()
c.read(path)
if "libfuzzer" not in c:
    sys.exit(f"{path}: no [libfuzzer] section")
flags = []
for key, value in c["libfuzzer"].items():
    if key == "dict":
        value = os.path.join(out, value)
        if not os.path.isfile(value):
            sys.exit(f"{path}: dict = {c['libfuzzer']['dict']}, not in {out}")
    flags.append(f"-{key}={value}")
print(" ".join(flags))
EOF
  ) || fail "$t.options (above)"

  # Runners have only $OUT: nothing beyond the C and C++ runtimes may be linked dynamically
  # (a packaged libfmt, LLVM or Vulkan would be).
  local lib
  for lib in $(readelf -d "$out/$t" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    case $lib in
      libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*.so.* | \
        libstdc++.so.* | libgcc_s.so.* | libc++.so.* | libc++abi.so.*) ;;
      *) fail "$t needs $lib, which an OSS-Fuzz runner does not have" ;;
    esac
  done

  mkdir "$tmp/corpus_$t"
  python3 -m zipfile -e "$out/${t}_seed_corpus.zip" "$tmp/corpus_$t"
  local start
  start=$(date +%s)
  # shellcheck disable=SC2086  # engine_flags: one word per flag
  if ! "$out/$t" $engine_flags -runs="$runs" -seed=1 -artifact_prefix="$tmp/" \
    "$tmp/corpus_$t" >"$tmp/$t.log" 2>&1; then
    tail -n 40 "$tmp/$t.log" >&2
    fail "$t crashed or failed within $runs runs (log above)"
  fi
  grep -q "Done $runs runs" "$tmp/$t.log" || {
    tail -n 20 "$tmp/$t.log" >&2
    fail "$t did not finish its $runs runs (log above)"
  }
  grep -q "Dictionary: [1-9]" "$tmp/$t.log" || [[ $engine_flags != *-dict=* ]] ||
    fail "$t: libFuzzer read no entries from its dictionary"
  echo "$t: $runs runs, $(($(date +%s) - start)) s, flags $engine_flags"
}

check_target fuzz_parse 20000
check_target fuzz_simplify 1000

# The run above fails on a crash: with a planted bug fuzz_simplify aborts on its seeds.
if UOPFUZZ_INJECT_BUG=split-no-divisibility "$out/fuzz_simplify" -runs=100 -seed=1 \
  -artifact_prefix="$tmp/" "$tmp/corpus_fuzz_simplify" >"$tmp/planted.log" 2>&1; then
  fail "fuzz_simplify passed with the planted bug split-no-divisibility"
fi
grep -q "FINDING" "$tmp/planted.log" || {
  tail -n 20 "$tmp/planted.log" >&2
  fail "fuzz_simplify with the planted bug failed without a FINDING (log above)"
}
echo "PASS: build.sh output complete; fuzz_parse and fuzz_simplify ran clean; the planted bug crashes"
