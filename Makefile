# uopfuzz top-level Makefile: every target first makes sure the Debian packages are
# there (scripts/install-deps.sh is quiet when nothing is missing), then configures
# and builds through the CMake presets.
# The tinygrad the adapter's tests and `--simplifier tinygrad` use: the caller's
# TINYGRAD_PATH, else the snapshot beside this checkout when there is one.
TINYGRAD_PATH ?= $(if $(wildcard ../shared/vendor/tinygrad/tinygrad/__init__.py),$(abspath ../shared/vendor/tinygrad))
export TINYGRAD_PATH

.PHONY: all deps release debug asan libfuzzer test test-slow test-all fuzz bench clean format format-check tidy


all: release

deps:
	@bash scripts/install-deps.sh

release: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release

debug: deps
	@cmake --preset debug >/dev/null
	@cmake --build --preset debug

# The sanitized CLI: ctest feeds it malformed .uop files.
asan: deps
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan --target uopfuzz

# The libFuzzer targets (clang, ASan + UBSan): build-libfuzzer/fuzz/targets/fuzz_{parse,simplify}.
libfuzzer: deps
	@cmake --preset libfuzzer >/dev/null
	@cmake --build --preset libfuzzer

# The fast suite: every test but those labelled slow (tests/CMakeLists.txt), on the release
# tree alone.
test: release
	@ctest --preset release -LE slow

# The slow suites: the cold ClusterFuzzLite build, the ASan CLI tree, the campaigns that
# hunt planted bugs on the compiled backends and through tinygrad, the nightly and bench
# scripts end to end.
test-slow: release asan
	@ctest --preset release -L slow

# Everything CI runs.
test-all: test test-slow

# A short campaign on the default backends (new findings go to corpus/findings), then a
# replay of the whole corpus, one worker per core. FUZZ_SECONDS, FUZZ_SEED and FUZZ_JOBS
# override the defaults.
FUZZ_SECONDS ?= 60
FUZZ_SEED ?= 1
FUZZ_JOBS ?= $(shell nproc)

fuzz: release
	@./build/uopfuzz fuzz --time $(FUZZ_SECONDS) --seed $(FUZZ_SEED) --jobs $(FUZZ_JOBS)
	@./build/uopfuzz replay corpus

bench: release
	@./build/bench/uopfuzz_bench

format: deps
	@git ls-files '*.h' '*.cpp' | xargs clang-format -i

# Fails (and names the files) when a file differs from what clang-format would write.
format-check: deps
	@git ls-files '*.h' '*.cpp' | xargs clang-format --dry-run --Werror

# The checks in .clang-tidy over every source file, with the release tree's compile commands;
# any finding fails it (CI runs it). One clang-tidy per core; the log is build/tidy.log.
tidy: release
	@git ls-files '*.cpp' | grep -v '^fuzz/targets/' | \
	  xargs -P $(shell nproc) -n 8 clang-tidy -p build --quiet --warnings-as-errors='*' > build/tidy.log 2>&1; \
	  status=$$?; \
	  grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$$|^Suppressed [0-9]+ warnings|^Use -header-filter' build/tidy.log; \
	  exit $$status

clean:
	rm -rf build build-debug build-asan build-libfuzzer
