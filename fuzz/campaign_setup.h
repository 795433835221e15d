/** \file The campaign policy `uopfuzz fuzz` derives from its flags: where findings go, how
 * long one graph may take, the oracle's step limit, the default executor schedule and the
 * generator's policy for the simplifier under test. The CLI parses and prints; the choices
 * live here so that they can be tested and reused without it. */
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/executor_schedule.h"
#include "gen/declines.h"
#include "gen/policy.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::fuzz {

/// The coverage a campaign aims at: every rule that can fire fires this often.
inline constexpr uint64_t kRuleHitTarget = 100;

/// Where a campaign's new findings go: `given` when set; else the repository's corpus for
/// the faithful simplifier, and nowhere ("") with a planted bug (its findings are expected).
std::string findings_destination(const std::optional<std::string>& given, bool planted);

/// The seconds one graph may take before it counts as a hang: `requested`, at least the
/// external simplifier's own timeout plus 5 when one is under test.
double campaign_graph_timeout(double requested, bool external, double simplifier_timeout_s);

/// The oracle's step limit for a campaign's checks: large graphs run 10^6 iterations.
uint64_t campaign_check_max_steps();

/// The default campaign's sampled compiled backends: every compiled one in `names` whose
/// device opens (`device_problem` gives "" or why not), sharing `share` of the time; the
/// ones left out come back with the reason in `skipped`.
ExecutorSchedule default_executor_schedule(
    const std::vector<std::string>& names, double share, std::optional<double> fixed_rate,
    const std::function<std::string(const std::string&)>& device_problem,
    std::vector<std::pair<std::string, std::string>>& skipped);

/// The generator's policy for a campaign and what it changed for the simplifier under test.
struct GenerationPlan {
  gen::GenPolicy policy;
  /// The policy mutants keep to (the range-end mutator): the declined shapes avoided, taken
  /// before the forms are prepared.
  gen::GenPolicy mutation_policy;
  std::vector<gen::AvoidedShape> avoided;  ///< shapes not generated: it always declines them
  std::vector<std::string> forms;          ///< its own spellings of gated accesses, offered
};

/// The policy with `large_share` large graphs; for an external simplifier outside a
/// comparison (which keeps every shape, for the other side's sake), without the shapes it
/// always declines and with the forms it offers.
GenerationPlan plan_generation(double large_share,
                               const std::shared_ptr<sut::Simplifier>& under_test, bool comparing);

}  // namespace uopfuzz::fuzz
