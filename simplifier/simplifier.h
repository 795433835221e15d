/** \file The simplifier under test: tinygrad's range/reduce rewrite rules as named rule
 * sets, the pipeline that runs them, and the switches the harness drives it with.
 *
 * Pipeline (simplify), mirroring tinygrad's split:
 *   kernel-graph stage      symbolic + pm_reduce_simplify (unparented + collapse)
 *   optimize only:          pm_load_collapse; pm_split_ranges + pm_flatten_range;
 *                           symbolic + pm_flatten_range; pm_flatten_range + pm_simplify_ranges
 *   always (post-opt):      symbolic + pm_flatten_range + pm_reduce_unparented
 */
#pragma once

#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/rewrite.h"
#include "simplifier/bugs.h"

namespace uopfuzz::simplifier {

struct SimplifyOptions {
  bool optimize = true;
  BugSet bugs;                               ///< planted bugs switched on
  std::unordered_set<std::string> disabled;  ///< rule names switched off
  uint64_t max_rewrites = 100'000;           ///< per stage
};

struct StageReport {
  std::string name;
  bool converged = true;
  uint64_t rewrites = 0;
};

struct SimplifyResult {
  ir::UOp root;
  bool converged = true;                 ///< every stage reached a fixed point
  std::map<std::string, uint64_t> hits;  ///< rule name -> times fired, all stages
  std::vector<StageReport> stages;
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

/// Every rule name any stage can fire, sorted, each once.
std::vector<std::string> all_rule_names();
/// The same names in pipeline order: the order of the stages, and of the rules within
/// each stage's rule sets (the inner rules of the collapses after the stage that runs
/// them). Rule bisection walks this order.
std::vector<std::string> rule_names_in_pipeline_order();

}  // namespace uopfuzz::simplifier
