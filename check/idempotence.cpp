#include "check/idempotence.h"

#include <fmt/format.h>

#include "ir/graph.h"

namespace uopfuzz::check {

std::optional<std::string> not_idempotent(ir::Context& ctx, const simplifier::SimplifyResult& first,
                                          const simplifier::SimplifyOptions& options,
                                          sut::Simplifier* sut) {
  // The stages run once each, in order, as tinygrad's do: their output may hold new work
  // for an earlier one (a split range that a second split_ranges splits again, a REDUCE
  // that the kernel-graph stage's reduce_collapse could now collapse), so the staged
  // pipeline as a whole is not meant to be idempotent. The final stage (post-opt
  // symbolic) rewrites to a fixed point: on a converged result it must find nothing left.
  // A pipeline stopped early (a blame replay's stop_after) or at its rewrite cap never
  // claimed a fixed point.
  if (options.stop_after || !first.converged) return std::nullopt;
  if (sut && !sut->capabilities().stages) return std::nullopt;
  simplifier::SimplifyOptions second = options;
  second.final_stage_only = true;
  const sut::Outcome asked = sut::simplify_with(sut, ctx, first.root, second);
  // A second answer that fails is the next request's finding, not a fixed-point question.
  if (asked.failure) return std::nullopt;
  const simplifier::SimplifyResult& again = asked.result;
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
