#include "check/idempotence.h"

#include <fmt/format.h>

#include "ir/graph.h"

namespace uopfuzz::check {

std::optional<std::string> not_idempotent(ir::Context& ctx, const simplifier::SimplifyResult& first,
                                          const simplifier::SimplifyOptions& options) {
  // The optimization stages run once each, in order, as tinygrad's do: their output may
  // hold new work for an earlier one (a split range that a second split_ranges splits
  // again), so the staged pipeline as a whole is not meant to be idempotent. The stages
  // that always run (kernel_graph, postopt_symbolic) rewrite to a fixed point: on a
  // converged result they must find nothing left to do.
  // A pipeline stopped early (a blame replay's stop_after) or at its rewrite cap never
  // claimed a fixed point.
  if (options.stop_after || !first.converged) return std::nullopt;
  simplifier::SimplifyOptions second = options;
  second.optimize = false;
  const simplifier::SimplifyResult again = simplifier::simplify(ctx, first.root, second);
  if (again.converged && again.root == first.root) return std::nullopt;
  std::string rules;
  for (const auto& [name, n] : again.hits)
    rules += fmt::format("{}{} ({})", rules.empty() ? "" : ", ", name, n);
  if (!again.converged)
    return fmt::format("simplifying the rewrite again does not converge (rules: {})", rules);
  return fmt::format(
      "simplifying the rewrite again changes it ({} nodes -> {}; rules that fired again: {})",
      ir::toposort(first.root).size(), ir::toposort(again.root).size(),
      rules.empty() ? "none" : rules);
}

}  // namespace uopfuzz::check
