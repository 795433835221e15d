#include "schedule/buffers.h"

#include <algorithm>
#include <unordered_set>

namespace uopfuzz::schedule {

namespace {

/// Every buffer rule that runs to a fixed point; the flatten stage runs after them.
const ir::RuleSet& buffer_rules() {
  static const ir::RuleSet rules = [] {
    ir::RuleSet all;
    all = all + buffer_fold_rules();
    all = all + dead_axis_rules();
    return all;
  }();
  return rules;
}

}  // namespace

std::vector<std::string> buffer_rule_names() {
  std::vector<std::string> names;
  for (const std::string& name : buffer_rules().names())
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  names.emplace_back(kFlattenRule);
  return names;
}

BufferRulesResult apply_buffer_rules(IndexSimplifier& simplify, ir::UOp graph,
                                     const LowerOptions& options) {
  BufferRulesResult out;
  BufferRuleState state{&simplify, &options};
  const std::unordered_set<std::string> disabled(options.disabled.begin(), options.disabled.end());
  ir::RewriteOptions ro;
  ro.disabled = &disabled;
  ro.state = &state;
  ir::RewriteResult r = ir::graph_rewrite(simplify.ctx(), graph, buffer_rules(), ro);
  out.hits = std::move(r.hits);
  out.converged = r.converged;
  out.graph = r.root;
  if (!disabled.count(kFlattenRule)) out.graph = flatten_bufferizes(simplify, out.graph, out.hits);
  return out;
}

}  // namespace uopfuzz::schedule
