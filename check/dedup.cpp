#include "check/dedup.h"

#include <fmt/format.h>

#include <algorithm>

namespace uopfuzz::check {

std::string Signature::text() const {
  return fmt::format("{}/{}/{}", finding_kind_name(kind), culprit, backend);
}

Signature signature_of(ir::Context& ctx, const ir::Kernel& kernel, const CheckOptions& options,
                       const CheckResult& found, std::string_view backend) {
  Signature sig;
  sig.kind = found.kind;
  sig.backend = std::string(backend);
  sig.culprit = "unknown";
  // The seeds' range/reduce rules are tried before the symbolic layer: a symbolic fold
  // often merely enables a faulty range rule (or cleans up after it), and disabling it
  // would hide the finding without naming the rule at fault.
  static const std::vector<std::string> order = [] {
    std::vector<std::string> names = simplifier::rule_names_in_pipeline_order();
    auto symbolic = simplifier::symbolic().names();
    std::stable_partition(names.begin(), names.end(), [&](const std::string& n) {
      return std::find(symbolic.begin(), symbolic.end(), n) == symbolic.end();
    });
    return names;
  }();
  for (const std::string& rule : order) {
    if (!found.simplified.hits.count(rule) || options.simplify.disabled.count(rule)) continue;
    CheckOptions without = options;
    without.simplify.disabled.insert(rule);
    ++sig.checks_run;
    // The finding disappears when the check comes back clean; another kind of finding
    // instead (e.g. a verifier failure once flatten_range is off) is not an absence.
    if (check_kernel(ctx, kernel, without).kind == FindingKind::None) {
      sig.culprit = rule;
      break;
    }
  }
  return sig;
}

}  // namespace uopfuzz::check
