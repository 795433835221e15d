/** \file The simplifier under test: tinygrad's range/reduce rewrite rules as named rule
 * sets, the pipeline that runs them, and the switches the harness drives it with.
 *
 * Pipeline (simplify), mirroring tinygrad's split:
 *   kernel-graph stage      symbolic + pm_reduce_simplify (unparented + collapse)
 *   (symbolic includes pm_requantize, the fixed-point form of a reinterpreted integer's REQUANTIZE)
 *   optimize only:          pm_load_collapse; pm_split_ranges + pm_flatten_range;
 *                           symbolic + pm_flatten_range; pm_flatten_range + pm_simplify_ranges
 *   always (post-opt):      symbolic + pm_flatten_range + pm_reduce_unparented
 */
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/rewrite.h"
#include "simplifier/bugs.h"

namespace uopfuzz::simplifier {

struct SimplifyOptions {
  bool optimize = true;
  /// Run the final stage (post-opt symbolic) alone: the fixed-point check of a result.
  bool final_stage_only = false;
  BugSet bugs;                               ///< planted bugs switched on
  std::unordered_set<std::string> disabled;  ///< rule names switched off
  uint64_t max_rewrites = 100'000;           ///< per stage
  /// Record each rule application (SimplifyResult::trace); off, it costs nothing.
  bool trace = false;
  /// Replay: apply no rule after this many applications over the whole pipeline, and
  /// return the graph as it then stands, its END/REDUCE range lists flattened (the form
  /// every stage ends in: a stage cut short may leave a split's outer*c+inner listed).
  /// The graph after step k of a trace is the result with stop_after = k.
  std::optional<uint64_t> stop_after;
  /// Also report the bounds the simplifier believes of each integer node of the original
  /// (sut::Outcome::bounds), for the bounds-soundness check. The built-in simplifier
  /// itself ignores it; sut/ answers for it from ir/analysis.
  bool bounds = false;
  /// Spellings an external simplifier is asked to build of the graph in its own IR, forms
  /// `.uop` cannot write (its hello's `forms:`; docs/external-simplifier.md, "Forms"). They
  /// travel as the request body's `@forms` line; the built-in simplifier ignores them.
  std::vector<std::string> forms;
};

struct StageReport {
  std::string name;
  bool converged = true;
  uint64_t rewrites = 0;
};

/// One rule application of the pipeline (rewrites nested in a rule are part of its step).
struct TraceStep {
  std::string stage, rule;
  ir::UOp before, after;  ///< the node matched and its replacement
};

struct SimplifyResult {
  ir::UOp root;
  bool converged = true;                 ///< every stage reached a fixed point
  std::map<std::string, uint64_t> hits;  ///< rule name -> times fired, all stages
  ir::GateCounts gates;  ///< rule name -> its gates' verdicts, nested rewrites included
  std::vector<StageReport> stages;
  uint64_t steps = 0;            ///< rule applications over the pipeline (nested excluded)
  std::vector<TraceStep> trace;  ///< with SimplifyOptions::trace
};

SimplifyResult simplify(ir::Context& ctx, ir::UOp root, const SimplifyOptions& options = {});

// The rule sets, by the names the seeds give them.
ir::RuleSet symbolic();
ir::RuleSet pm_flatten_range();
ir::RuleSet pm_split_ranges();
ir::RuleSet pm_simplify_ranges();
ir::RuleSet pm_reduce_unparented();
ir::RuleSet pm_reduce_collapse();       ///< the inner rules of reduce_collapse
ir::RuleSet pm_reduce_load_collapse();  ///< pm_reduce_collapse plus the load rules
ir::RuleSet pm_reduce_simplify();       ///< kernel-graph stage: unparented + reduce_collapse
ir::RuleSet pm_load_collapse();         ///< REDUCE ADD over one range, with the load rules
/// REQUANTIZE(BITCAST(int v)) -> the definition's int64 arithmetic on v (part of symbolic).
ir::RuleSet pm_requantize();

/// Every rule with gates (Pat::when), by name: how many it has (a gate's name is
/// "rule#i", i its index in the rule's Pat::gates order).
std::map<std::string, size_t> rule_gate_counts();
/// The gates of `counts` never seen declining and never seen accepting, as "rule#i"; a
/// gate of rule_gate_counts() absent from `counts` (never asked) is in both.
struct GateGaps {
  std::vector<std::string> never_declined, never_accepted;
  size_t gates = 0;  ///< all gates of the pipeline's rules
};
GateGaps gate_gaps(const ir::GateCounts& counts);

/// Every rule name any stage can fire, sorted, each once.
std::vector<std::string> all_rule_names();
/// The same names in pipeline order: the order of the stages, and of the rules within
/// each stage's rule sets (the inner rules of the collapses after the stage that runs
/// them). Rule bisection walks this order.
std::vector<std::string> rule_names_in_pipeline_order();

}  // namespace uopfuzz::simplifier
