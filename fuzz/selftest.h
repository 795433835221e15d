/** \file The harness's self-test: for each planted bug, a campaign with it switched on must find it
 * (a result-changing bug through the differential check, a latency bug through the latency
 * detector); for each planted lowering bug, a tensor-level campaign must find it, signed by
 * its name (check/program_check.h). */
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/campaign.h"
#include "schedule/lowering_bugs.h"
#include "simplifier/bugs.h"

namespace uopfuzz::fuzz {

struct SelftestOptions {
  double seconds_per_bug = 10;
  uint64_t seed = 1;                            ///< campaign seed
  std::vector<std::string> backends{"oracle"};  ///< where each graph is checked
  /// Seconds one check may take before it is a hang; 0: 2 on the oracle alone, 10 with a
  /// compiled backend (or a latency bug).
  double graph_timeout = 0;
  std::string latency_backend = "cpu";  ///< a compiled backend: where latency bugs are timed
};

/// One planted bug's campaign.
struct SelftestRow {
  simplifier::BugInfo bug;
  /// The campaign's finding that counts: the planted bug's (found), else the first real
  /// finding (a bug the faithful simplifier has too), else none.
  std::optional<NewFinding> finding;
  bool found = false;
  uint64_t graphs = 0;      ///< graphs tried: up to the finding, else the campaign's total
  size_t new_findings = 0;  ///< the campaign's findings, all signatures
};

struct SelftestResult {
  std::vector<SelftestRow> rows;  ///< in simplifier::all_bugs() order
  int missed = 0;
  double median_seconds = 0;  ///< median time to find, over the bugs found (0: none)
};

/// One planted lowering bug's tensor-level campaign.
struct LoweringSelftestRow {
  schedule::LoweringBug bug;
  /// The planted bug's finding (found), else the campaign's first finding, else none.
  std::optional<NewFinding> finding;
  bool found = false;
  uint64_t graphs = 0;      ///< programs tried: up to the finding, else the campaign's total
  size_t new_findings = 0;  ///< the campaign's findings, all signatures
};

struct LoweringSelftestResult {
  std::vector<LoweringSelftestRow> rows;  ///< in schedule::all_lowering_bugs() order
  int missed = 0;
  double median_seconds = 0;
};

/// Runs one tensor-level campaign per planted lowering bug. A finding counts when it is
/// signed by the bug's name and the faithful lowering passes its minimized case.
LoweringSelftestResult run_lowering_selftest(
    const SelftestOptions& options,
    const std::function<void(const LoweringSelftestRow&)>& on_row = {});

/// Runs one campaign per planted bug. A finding counts only if the faithful simplifier
/// passes the same minimized case (otherwise it is a real bug, not the planted one, and
/// the campaign goes on). `on_row` is called as each campaign ends.
SelftestResult run_selftest(const SelftestOptions& options,
                            const std::function<void(const SelftestRow&)>& on_row = {});

}  // namespace uopfuzz::fuzz
