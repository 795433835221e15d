#include "schedule/buffers.h"

#include <unordered_set>

#include "ir/rewrite.h"

namespace uopfuzz::schedule {

namespace {

const ir::RuleSet& buffer_rules() {
  static const ir::RuleSet rules = buffer_removal_rules();
  return rules;
}

}  // namespace

std::vector<std::string> buffer_rule_names() {
  std::vector<std::string> names = buffer_rules().names();
  for (const std::string& row : buffer_removal_keep_rows()) names.push_back(row);
  return names;
}

BufferRulesResult apply_buffer_rules(IndexSimplifier& simplify, ir::UOp graph,
                                     const LowerOptions& options) {
  BufferRulesResult out;
  BufferRuleState state{&simplify, &options, {}};
  const std::unordered_set<std::string> disabled(options.disabled.begin(), options.disabled.end());
  ir::RewriteOptions ro;
  ro.disabled = &disabled;
  ro.state = &state;
  ir::RewriteResult r = ir::graph_rewrite(simplify.ctx(), graph, buffer_rules(), ro);
  out.hits = std::move(r.hits);
  for (const auto& [row, n] : state.kept) out.hits[row] += n;
  out.converged = r.converged;
  out.graph = r.root;
  return out;
}

}  // namespace uopfuzz::schedule
