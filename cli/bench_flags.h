/** \file The flags of `uopfuzz bench` and what its two modes share: the corpus mode
 * (cmd_bench.cpp: original vs rewritten per case) and the real-size suite
 * (bench_suite.cpp: roofline fractions across sizes). */
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace uopfuzz::cli {

struct BenchFlags {
  std::vector<std::string> backends{"cpu"};
  std::string cases;
  int generate = 0;
  uint64_t seed = 1;
  int reps = 15;
  std::string out;
  bool fail_on_regression = false;
  std::string suite;  ///< "real": the real-size suite (bench/suite/cases.def) instead of cases
  std::string size = "small";
  std::vector<std::string> suite_cases;
  std::vector<std::string> bugs;
  bool tinygrad_lowering = false;
};

/// Before the work, not after it: false (and says why) when the results file cannot be
/// written or a backend's device cannot be opened.
bool ready_to_bench(const BenchFlags& f);

/// Writes `j` to `out` atomically (through `out`.tmp); false (and says why) when it cannot.
bool write_results(const nlohmann::ordered_json& j, const std::string& out);

/// `bench --suite real`: the real-size suite over a preset's sizes, under each backend's
/// roofline; the exit code.
int run_suite_bench(const BenchFlags& f);

}  // namespace uopfuzz::cli
