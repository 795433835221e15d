/** \file The per-simplify state the rules share through RewriteCtx::state. */
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ir/analysis.h"
#include "ir/rewrite.h"
#include "simplifier/bugs.h"

namespace uopfuzz::simplifier {

struct SimplifyState {
  ir::Analysis analysis;
  BugSet bugs;
  const std::unordered_set<std::string>* disabled = nullptr;

  /// pm_split_ranges: ranges to split and their modulus, first modulus seen wins.
  std::vector<std::pair<ir::UOp, int64_t>> split_marks;
  /// Hits of rules fired inside nested rewrites (reduce_collapse runs its inner rules in
  /// a graph_rewrite of its own), by rule name; the caller adds them to its report.
  std::map<std::string, uint64_t> nested_hits;
};

inline SimplifyState& state(ir::RewriteCtx& rc) {
  return rc.get<SimplifyState>();
}

}  // namespace uopfuzz::simplifier
