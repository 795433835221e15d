#include "schedule/lower.h"

#include <fmt/format.h>

#include "ir/verify.h"
#include "schedule/bufferize.h"
#include "schedule/buffers.h"
#include "schedule/normalize_shapes.h"
#include "schedule/rangeify.h"
#include "schedule/split_reduce.h"

namespace uopfuzz::schedule {

std::vector<std::string> tensor_rule_names() {
  std::vector<std::string> names = buffer_rule_names();
  names.emplace_back(kSplitReduceRule);
  names.emplace_back(kSqueezeUnitDimsRule);
  names.emplace_back(kReduceUnitAxisRule);
  return names;
}

Result<ir::Program> lower(ir::Context& ctx, ir::UOp root, const LowerOptions& options,
                          LowerReport* report) {
  LowerReport local;
  LowerReport& out = report ? *report : local;
  out = LowerReport{};
  IndexSimplifier simplify(ctx);
  ir::UOp squeezed = squeeze_unit_dims(ctx, root, options, out.hits, out.squeezed);
  ir::UOp unit = reduce_unit_axes(ctx, squeezed, options, out.hits);
  ir::UOp split = split_reduces(ctx, unit, options, out.hits);
  Result<RangeifyPlan> plan = rangeify(simplify, split, options.bugs);
  if (!plan) return plan.error();
  Result<ir::UOp> graph = bufferize(simplify, *plan, options.bugs);
  if (!graph) return graph.error();
  BufferRulesResult rules = apply_buffer_rules(simplify, *graph, options);
  for (const auto& [rule, n] : rules.hits) out.hits[rule] += n;
  out.graph = rules.graph;
  out.converged = rules.converged;
  Result<ir::Program> program = split_kernels(simplify, split, rules.graph);
  if (!program)
    return Error{"the lowered program does not verify: kernel splitting fails: " +
                 program.error().message};
  if (std::vector<std::string> errors = ir::verify_program(*program); !errors.empty())
    return Error{"the lowered program does not verify: " + errors.front()};
  return program;
}

}  // namespace uopfuzz::schedule
