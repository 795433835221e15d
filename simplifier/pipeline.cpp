// simplify(): the stages of tinygrad's kernel-graph and codegen entry, in order.
#include <algorithm>
#include <set>

#include "simplifier/simplifier.h"
#include "simplifier/state.h"

namespace uopfuzz::simplifier {

using namespace ir;

namespace {

struct Stage {
  const char* name;
  bool only_when_optimizing;
  const RuleSet& rules;
};

const std::vector<Stage>& stages() {
  // flatten too: symbolic folds a RANGE of one to 0, which a REDUCE must stop listing.
  static const RuleSet kernel_graph = symbolic() + pm_reduce_simplify() + pm_flatten_range();
  static const RuleSet load_collapse = pm_load_collapse();
  static const RuleSet split = pm_split_ranges() + pm_flatten_range();
  static const RuleSet initial_symbolic = symbolic() + pm_flatten_range();
  static const RuleSet simplify_ranges = pm_flatten_range() + pm_simplify_ranges();
  // Not guarded by `optimize` (the seeds stress this): post-opt symbolic always runs.
  static const RuleSet postopt = symbolic() + pm_flatten_range() + pm_reduce_unparented();
  static const std::vector<Stage> all = {
      {"kernel_graph", false, kernel_graph},
      {"load_collapse", true, load_collapse},
      {"split_ranges", true, split},
      {"initial_symbolic", true, initial_symbolic},
      {"simplify_ranges", true, simplify_ranges},
      {"postopt_symbolic", false, postopt},
  };
  return all;
}

}  // namespace

SimplifyResult simplify(Context& ctx, UOp root, const SimplifyOptions& options) {
  SimplifyState st;
  st.bugs = options.bugs;
  st.disabled = &options.disabled;
  RewriteOptions ro;
  ro.max_rewrites = options.max_rewrites;
  ro.disabled = &options.disabled;
  ro.state = &st;
  RewriteTrace trace;
  trace.record = options.trace;
  trace.stop_after = options.stop_after.value_or(UINT64_MAX);
  ro.trace = &trace;
  SimplifyResult out;
  out.root = root;
  GateCountScope gates(out.gates);
  for (const Stage& s : stages()) {
    if (s.only_when_optimizing && !options.optimize) continue;
    if (options.final_stage_only && &s != &stages().back()) continue;
    RewriteResult r = graph_rewrite(ctx, out.root, s.rules, ro);
    for (RewriteStep& step : trace.steps)
      out.trace.push_back({s.name, std::move(step.rule), step.before, step.after});
    trace.steps.clear();
    out.root = r.root;
    out.converged &= r.converged;
    for (const auto& [name, n] : r.hits) out.hits[name] += n;
    out.stages.push_back({s.name, r.converged, r.rewrites});
    for (const auto& [name, n] : st.nested_hits)
      out.hits[name] += n;  // rules run inside reduce_collapse
    st.nested_hits.clear();
    st.split_marks.clear();  // per-rewrite context (the SINK rules clear it when they fire)
  }
  out.steps = trace.taken;
  if (options.stop_after && trace.taken >= *options.stop_after) {
    // The faithful flatten, whatever is switched on or off: a normal form, not a step.
    static const RuleSet flatten = pm_flatten_range();
    SimplifyState faithful;
    RewriteOptions fo;
    fo.state = &faithful;
    GateCounts uncounted;
    GateCountScope not_counted(uncounted);
    out.root = graph_rewrite(ctx, out.root, flatten, fo).root;
  }
  return out;
}

std::vector<std::string> rule_names_in_pipeline_order() {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const RuleSet& rules) {
    for (const auto& n : rules.names())
      if (seen.insert(n).second) out.push_back(n);
  };
  for (const Stage& s : stages()) {
    add(s.rules);
    if (std::string_view(s.name) == "kernel_graph") add(pm_reduce_load_collapse());
  }
  return out;
}

std::map<std::string, size_t> rule_gate_counts() {
  std::map<std::string, size_t> out;
  auto add = [&](const RuleSet& rules) {
    for (const Rule& r : rules.rules())
      if (!r.gates.empty()) out[r.name] = r.gates.size();
  };
  for (const Stage& s : stages()) add(s.rules);
  add(pm_reduce_load_collapse());
  return out;
}

GateGaps gate_gaps(const GateCounts& counts) {
  GateGaps gaps;
  for (const auto& [rule, n] : rule_gate_counts()) {
    gaps.gates += n;
    auto it = counts.find(rule);
    for (size_t g = 0; g < n; ++g) {
      GateCount c = it != counts.end() && g < it->second.size() ? it->second[g] : GateCount{};
      std::string name = rule + "#" + std::to_string(g);
      if (!c.declined) gaps.never_declined.push_back(name);
      if (!c.accepted) gaps.never_accepted.push_back(name);
    }
  }
  return gaps;
}

std::vector<std::string> all_rule_names() {
  std::set<std::string> names;
  for (const Stage& s : stages())
    for (const auto& n : s.rules.names()) names.insert(n);
  for (const auto& n : pm_reduce_load_collapse().names())
    names.insert(n);  // the inner rules of the collapses
  return {names.begin(), names.end()};
}

}  // namespace uopfuzz::simplifier
