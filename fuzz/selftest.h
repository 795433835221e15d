/** \file The harness's self-test: for each planted bug, a campaign with it switched on must find it
 * (a result-changing bug through the differential check, a latency bug through the latency
 * detector); for each planted lowering bug, a tensor-level campaign must find it, signed by
 * its name (check/program_check.h). */
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fuzz/campaign.h"
#include "schedule/lowering_bugs.h"
#include "simplifier/bugs.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::fuzz {

struct SelftestOptions {
  double seconds_per_bug = 10;
  uint64_t seed = 1;                            ///< campaign seed
  std::vector<std::string> backends{"oracle"};  ///< where each graph is checked
  /// Seconds one check may take before it is a hang; 0: 2 on the oracle alone, 10 with a
  /// compiled backend (or a latency bug).
  double graph_timeout = 0;
  std::string latency_backend = "cpu";  ///< a compiled backend: where latency bugs are timed
  /// The lowering bugs' campaigns: every program's pcontig level and split-reduce threshold;
  /// unset: drawn per program (fuzz::lowering_for).
  std::optional<int> pcontig;
  std::optional<int64_t> split_reduce_threshold;
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

/// One planted bug of an external simplifier (ExternalOptions::adapter_bugs), e.g. the
/// tinygrad adapter's: its campaign, at the default policy with only that bug switched on.
struct AdapterSelftestRow {
  std::string bug;
  /// The bug's finding (its minimized case passes with the bug off), else the campaign's
  /// first finding, else none.
  std::optional<NewFinding> finding;
  bool found = false;
  uint64_t graphs = 0;  ///< graphs tried: up to the finding, else the campaign's total
  double seconds = 0;   ///< the campaign's time: up to the finding, else all of it
  size_t new_findings = 0;
  std::string error;  ///< the simplifier could not be made with this bug on
};

struct AdapterSelftestResult {
  std::vector<AdapterSelftestRow> rows;  ///< in the order of `bugs`
  int missed = 0;
};

/// Runs one campaign per bug in `bugs` with simplifier `spec` (made with `external` plus that
/// bug); a bug in `tensor_bugs` is looked for in tensor programs (the simplifier runs them
/// through its whole pipeline), the others in kernels. A finding counts only if the same simplifier
/// without the bug passes its minimized case (checked in a child).
AdapterSelftestResult run_adapter_selftest(
    const SelftestOptions& options, const std::string& spec, const sut::ExternalOptions& external,
    const std::vector<std::string>& bugs, const std::set<std::string>& tensor_bugs = {},
    const std::function<void(const AdapterSelftestRow&)>& on_row = {});

}  // namespace uopfuzz::fuzz
