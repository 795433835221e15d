/** \file Two simplifiers on the same kernels (`--compare A,B`): each kernel is checked with
 * each simplifier as a campaign checks it, and where both rewrites check clean, the two are
 * compared by what they leave (check/strength.h). A strength difference is counted per rule
 * family, never a finding; a finding of either side is counted by kind, with the first graph
 * that showed it, so that a campaign of that simplifier alone (same seed, `--level kernel
 * --mutate-share 0`: the same graphs) can minimize and keep it.
 *
 * The comparison runs in this process, graph after graph (no isolation: an external
 * simplifier's crashes and hangs are its child's and come back as failures; a crash of the
 * built-in one ends the run).
 */
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "check/differential.h"
#include "check/program_check.h"
#include "check/strength.h"
#include "fuzz/campaign.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::fuzz {

/// One kernel checked with two simplifiers and, where both rewrites are clean, compared.
struct KernelComparison {
  std::array<check::CheckResult, 2> results;
  std::array<double, 2> seconds{};                    ///< each check's wall time
  std::optional<check::StrengthComparison> strength;  ///< absent unless both checked clean
};

/// Checks `kernel` with each simplifier (`options` with its simplifier replaced; the
/// kernel's own @var values added) and compares the rewrites.
KernelComparison compare_kernel(ir::Context& ctx, const ir::Kernel& kernel,
                                const check::CheckOptions& options,
                                const std::array<std::shared_ptr<sut::Simplifier>, 2>& simplifiers);

/// What one lowering of a tensor program made: its kernels and intermediate buffers.
struct LoweringShape {
  uint64_t kernels = 0, intermediates = 0;
};

/// One tensor program checked with two simplifiers (the built-in one lowers it itself, one
/// that runs whole programs schedules it; check::check_program either way) and, where both
/// are clean and both lowerings are known, their shapes side by side.
struct ProgramComparison {
  std::array<check::ProgramCheckResult, 2> results;
  std::array<double, 2> seconds{};
  std::optional<std::array<LoweringShape, 2>> shapes;
};
ProgramComparison compare_program(
    ir::Context& ctx, const ir::Kernel& program, const check::CheckOptions& options,
    const std::array<std::shared_ptr<sut::Simplifier>, 2>& simplifiers);

/// How two lowerings compare over many programs, per figure (kernels, intermediate
/// buffers): where each side made fewer, the totals, and the first programs of each. A
/// difference is a choice of the lowering (a buffer kept or inlined, a reduce split in two
/// kernels or in one), never a finding.
struct LoweringTally {
  struct Figure {
    uint64_t a_fewer = 0, b_fewer = 0, a_total = 0, b_total = 0;
    std::vector<std::string> a_examples, b_examples;  ///< at most 3 each
  };
  uint64_t compared = 0, differences = 0, not_compared = 0;
  Figure kernels, intermediates;
  void add(const std::array<LoweringShape, 2>& shapes, const std::string& label);
};

/// What one side of a comparison campaign did.
struct CompareSide {
  std::string name, version;
  uint64_t rewrites = 0;  ///< kernels it rewrote (whatever the check then said)
  std::map<std::string, uint64_t> unsupported;  ///< kernels it declined, by reason
  /// Findings by "kind/backend", and the first graph (index) of each.
  std::map<std::string, uint64_t> findings;
  std::map<std::string, uint64_t> first_graph;
  std::map<std::string, std::string> first_details;  ///< the check's line for that first graph
  std::map<std::string, uint64_t> rule_hits;
  double check_seconds = 0;  ///< its checks' wall time (simplify + oracle + backends)
  double child_seconds = 0, protocol_seconds = 0;  ///< of those: in its process, on the protocol
};

struct CompareOptions {
  std::array<std::shared_ptr<sut::Simplifier>, 2> simplifiers;
  check::CheckOptions check;  ///< input seeds, backends; the simplifier is set per side
  double seconds = 60;
  uint64_t max_graphs = 0;  ///< 0: until the time is up
  uint64_t seed = 1;        ///< graph i is source(ctx, graph_seed(seed, i)), as in a campaign
  /// Set: every graph is a tensor program from this source (compare_program), not a kernel.
  GraphSource tensor_source;
  std::function<void(const struct CompareProgress&)> on_progress;  ///< about every second
};

struct CompareProgress {
  double seconds = 0;
  uint64_t graphs = 0;
  std::array<CompareSide, 2> sides;
  check::StrengthTally strength;  ///< examples labelled "graph <i> seed <hex>"
  LoweringTally lowering;         ///< tensor programs: kernels and buffers each lowering made
};

CompareProgress run_comparison(const CompareOptions& options, const GraphSource& source);

}  // namespace uopfuzz::fuzz
