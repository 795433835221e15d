#!/bin/bash -eu
# Builds uopfuzz's libFuzzer targets for ClusterFuzzLite and OSS-Fuzz, whose build
# environment runs this script from $SRC/uopfuzz with:
#   CC CXX CFLAGS CXXFLAGS  the compiler and its flags (sanitizer and coverage instrumentation)
#   LIB_FUZZING_ENGINE      what links a fuzz target with the engine (-fsanitize=fuzzer)
#   SRC WORK OUT            sources, scratch space (the build tree), the results
# The sanitizer (ASan, UBSan, MSan) is the environment's choice, so the project's own
# sanitizer options (UOPFUZZ_SANITIZE, UOPFUZZ_LIBFUZZER) stay off: only those flags are used.
#
# Into $OUT, for each target T of fuzz_parse and fuzz_simplify: the binary T, T_seed_corpus.zip
# (corpus/fuzz/T/), T.options (fuzz/targets/T.options: libFuzzer flags) and the dictionary an
# options file names (fuzz/targets/T.dict).
#
# UOPFUZZ_CCACHE=1 compiles through ccache when it is on PATH (tests/cflite_smoke.sh);
# CMAKE_BUILD_PARALLEL_LEVEL limits the jobs (default: one per core).

for var in CC CXX CFLAGS CXXFLAGS LIB_FUZZING_ENGINE SRC WORK OUT; do
  if [ -z "${!var+set}" ]; then
    echo "build.sh: \$$var is not set: run it in the OSS-Fuzz build environment" >&2
    echo "  (or as tests/cflite_smoke.sh does, with those variables set)" >&2
    exit 2
  fi
done

src=$SRC/uopfuzz
build=$WORK/uopfuzz-build
targets=(fuzz_parse fuzz_simplify)
if [ ! -f "$src/fuzz/targets/fuzz_parse.cpp" ]; then
  echo "build.sh: no uopfuzz checkout at $src" >&2
  exit 2
fi

extra=()
# The Dockerfile clones {fmt} into $SRC/fmt; elsewhere the installed package's headers serve.
if [ -f "$SRC/fmt/CMakeLists.txt" ]; then
  extra+=(-DUOPFUZZ_FMT_SOURCE_DIR="$SRC/fmt")
fi
if [ -n "${UOPFUZZ_CCACHE:-}" ] && command -v ccache >/dev/null 2>&1; then
  extra+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

# The flags are passed on every configure (not only read from the environment by the first
# one), so that a build tree reused in $WORK follows the environment's current flags. An empty
# build type adds no optimization or NDEBUG of its own: assertions stay on, as in every build.
cmake -S "$src" -B "$build" -G Ninja \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DCMAKE_BUILD_TYPE= \
  -DUOPFUZZ_FUZZ_TARGETS_ONLY=ON \
  -DUOPFUZZ_LIB_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  "${extra[@]}"
cmake --build "$build" --target "${targets[@]}"

for t in "${targets[@]}"; do
  install -m 755 "$build/fuzz/targets/$t" "$OUT/$t"

  # Flat archives (file names only): ClusterFuzz unpacks T_seed_corpus.zip as T's corpus.
  # python3's zipfile rather than zip(1), which a Debian machine may not have.
  rm -f "$OUT/${t}_seed_corpus.zip"
  seeds=("$src/corpus/fuzz/$t"/*)
  if [ ! -f "${seeds[0]}" ]; then
    echo "build.sh: no seed inputs in $src/corpus/fuzz/$t" >&2
    exit 1
  fi
  python3 -m zipfile -c "$OUT/${t}_seed_corpus.zip" "${seeds[@]}"

  install -m 644 "$src/fuzz/targets/$t.options" "$OUT/$t.options"
  # The dictionary, when the options name one (fuzz_simplify's input is the generator's
  # choices, bytes with no tokens to suggest, so it has none).
  dict=$(sed -n 's/^dict *= *//p' "$src/fuzz/targets/$t.options")
  if [ -n "$dict" ]; then
    install -m 644 "$src/fuzz/targets/$dict" "$OUT/$dict"
  fi
done
