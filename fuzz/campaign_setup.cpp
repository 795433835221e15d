#include "fuzz/campaign_setup.h"

#include <algorithm>

#include "gen/forms.h"

namespace uopfuzz::fuzz {

std::string findings_destination(const std::optional<std::string>& given, bool planted) {
  // Findings of the faithful simplifier are real bugs: they go to the repository's
  // corpus. With a planted bug they are expected, and kept only where asked.
  // An external simplifier's go below it, in their own folder (fuzz::findings_dir); with
  // its planted bugs on they are expected too.
  return given.value_or(planted ? "" : "corpus/findings");
}

double campaign_graph_timeout(double requested, bool external, double simplifier_timeout_s) {
  // A hang of an external simplifier is its own finding (timeout/external/NAME): the worker's
  // watchdog waits for the simplifier's timeout first.
  return external ? std::max(requested, simplifier_timeout_s + 5) : requested;
}

uint64_t campaign_check_max_steps() {
  return gen::GenPolicy{}.large_check_max_steps;
}

ExecutorSchedule default_executor_schedule(
    const std::vector<std::string>& names, double share, std::optional<double> fixed_rate,
    const std::function<std::string(const std::string&)>& device_problem,
    std::vector<std::pair<std::string, std::string>>& skipped) {
  // The cpu always, Vulkan when a device opens.
  ExecutorSchedule schedule;
  for (const std::string& b : names) {
    if (b == "oracle") continue;
    if (std::string why = device_problem(b); !why.empty()) {
      skipped.emplace_back(b, why);
      continue;
    }
    schedule.backends.push_back(b);
  }
  schedule.time_share = share;
  schedule.fixed_rate = fixed_rate;
  return schedule;
}

GenerationPlan plan_generation(double large_share,
                               const std::shared_ptr<sut::Simplifier>& under_test, bool comparing) {
  GenerationPlan plan;
  plan.policy.p_large = large_share;
  // What the simplifier always declines at its stage is not generated (its hello's
  // `declines:`); a comparison keeps every shape, for the other side's sake.
  if (under_test && !comparing)
    plan.avoided = gen::avoid_declined_shapes(plan.policy, under_test->capabilities().declines);
  plan.mutation_policy = plan.policy;
  // The spellings of gated accesses the simplifier builds in its own IR (its hello's
  // `forms:`): a share of kernels with one asks for some of them.
  if (under_test && !comparing) plan.forms = under_test->capabilities().forms;
  gen::prepare_for_forms(plan.policy, plan.forms);
  return plan;
}

}  // namespace uopfuzz::fuzz
