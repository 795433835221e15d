/** \file `uopfuzz bench`: how long kernels take to compile and to run, the original
 * graph and the faithful simplifier's rewrite side by side, on each backend and device.
 *
 * For every case and backend: cold compiles of both graphs (the backend's kernel cache
 * cleared before each), then one round of the latency detector (check/latency.h):
 * interleaved samples of both kernels, the median speedup and a Mann-Whitney U p-value;
 * a round that regresses is rerun, and a regression confirmed by the rerun is reported
 * as such. Cases run only where the oracle finds both graphs free of undefined behaviour
 * (SEMANTICS.md); a case a backend cannot run is skipped with the reason.
 *
 * The results become Google-Benchmark-compatible JSON (docs/results-format.md) that
 * `uopfuzz dashboard` reads.
 */
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "bench/run_context.h"
#include "check/latency.h"
#include "ir/result.h"
#include "ir/uop.h"
#include "oracle/interpreter.h"

namespace uopfuzz::bench {

/// One kernel to measure, as .uop text.
struct BenchCase {
  std::string name;  ///< the file's stem, or "gen-<graph seed>"
  std::string path;  ///< the .uop file ("" for generated graphs)
  std::string text;
};

/// Every *.uop under `path` (a directory, searched recursively, in name order) or the
/// file itself. Unreadable paths are errors; parsing happens when a case is measured.
Result<std::vector<BenchCase>> cases_from(const std::string& path);

/// `count` kernels from the generator, graph seeds derived from `seed` as a campaign's.
std::vector<BenchCase> generated_cases(int count, uint64_t seed);

/// A case ready to time: the original graph and the faithful simplifier's rewrite, both
/// run by the oracle without undefined behaviour on `inputs` (the file's @seed and @var).
struct PreparedCase {
  ir::Context ctx;
  ir::UOp original, rewritten;
  oracle::Inputs inputs;
};

/// Parses, verifies, simplifies and runs both graphs on the oracle; why not, otherwise.
Result<std::unique_ptr<PreparedCase>> prepare_case(const BenchCase& c);

struct BenchOptions {
  std::vector<std::string> backends{"cpu"};
  int reps = 15;                  ///< timed samples of each kernel (at least 9)
  int compile_reps = 3;           ///< cold compiles of each kernel
  check::LatencyOptions latency;  ///< thresholds and batching (samples is set from reps)
  /// One line per case and backend, for a progress display.
  std::function<void(std::string_view)> on_progress;
};

/// One "benchmarks" entry: samples of one measure of one kernel on one backend.
struct Measurement {
  std::string measure;                              ///< "run" or "compile"
  std::string backend, device, case_name, variant;  ///< variant: "original" or "rewritten"
  std::string clock;                                ///< "host" or "device"
  std::vector<double> samples_ns;
};

/// One "comparisons" entry: rewritten vs original run time of a case on a backend.
struct Comparison {
  std::string backend, device, case_name, corpus_case;
  double original_ns = 0, rewritten_ns = 0, speedup = 1, p_value = 1;
  bool regressed = false, confirmed = false, rewrite_changed = false;
};

struct BenchResults {
  std::vector<MeasuredDevice> devices;
  std::vector<Measurement> measurements;
  std::vector<Comparison> comparisons;
  std::vector<std::string> notes;  ///< cases skipped, and why
};

BenchResults run_bench(const std::vector<BenchCase>& cases, const BenchOptions& options);

/// The results file: context (see run_context.h), benchmarks, comparisons, notes.
nlohmann::ordered_json results_json(const BenchResults& results, const std::string& cases_label,
                                    int reps);

}  // namespace uopfuzz::bench
