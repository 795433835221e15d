/** \file The flags of `uopfuzz fuzz` (docs/cli.md) and their registration. */
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/lowering_flags.h"
#include "cli/shared_flags.h"
#include "gen/policy.h"

namespace uopfuzz::cli {

struct FuzzFlags {
  double seconds = 60;
  uint64_t seed = 1;
  uint64_t max_graphs = 0;
  int check_seeds = 2;
  std::optional<std::string> corpus;
  std::string json_path;
  bool no_reduce = false;
  int jobs = 1;
  double graph_timeout = 10;
  bool no_isolation = false;
  /// Every graph on each (--backends); empty: the default campaign, the oracle on every
  /// graph and the compiled backends on the graphs they pick in their share of the time.
  std::vector<std::string> backends;
  double backend_share = 0.5;
  std::optional<double> backend_rate;
  SimplifyFlags simplify;
  LatencyFlags latency;
  uint64_t latency_every = 50;
  double mutate_share = 0.25;
  size_t mutate_corpus = 256;
  double large_share = gen::GenPolicy{}.p_large;
  std::string level = "mixed";
  std::vector<std::string> lowering_bugs;
  LoweringOptionFlags lowering;
  std::vector<std::string> compare;
  std::string shard;            ///< "K/N", "env", or "" (the whole campaign)
  std::string cpu_opt = "mix";  ///< O0..O3, or mix (drawn per graph)
  bool check_bounds = true;     ///< the bounds-soundness check (check/bounds_check.h)
  std::string emit;             ///< write a reproducer for this system beside each finding
  std::string root_causes;      ///< the root-causes file ("" : fuzz::pick_root_causes_path)
};

/// Registers every flag of `uopfuzz fuzz` on `cmd`, bound to `f`, and --device to `device`.
void add_fuzz_flags(CLI::App& cmd, FuzzFlags& f, std::string& device);

}  // namespace uopfuzz::cli
