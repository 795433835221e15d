/** \file The rule self-check's oracle comparison: a kernel and its rewrite are run on the oracle
 * and the first difference is classified (Halide's rule fuzzing, applied to whole kernels: a rule
 * is right when original and rewrite agree). */
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ir/uop.h"

namespace uopfuzz::selfcheck {

enum class Verdict : uint8_t {
  Agree,
  Mismatch,
  UbIntroduced,
  VerifierFailure,
  NonConvergence,
  RewriteError
};

std::string_view verdict_name(Verdict v);

struct Comparison {
  Verdict verdict = Verdict::Agree;
  std::string details;
  int runs_compared = 0;  ///< (seed, VAR values) pairs where both sides ran
  int runs_skipped = 0;   ///< pairs where the original itself is undefined
};

/// VAR values for run `k`: all at their minimum, all at their maximum, or seed-derived.
/// The extremes are where zero-trip loops and gates at the boundary live.
std::map<std::string, int64_t> var_values(ir::UOp root, int k);

/// Runs `original` and `rewritten` on the oracle for `runs` (input seed, VAR values)
/// pairs and classifies the first difference.
Comparison compare_on_oracle(ir::UOp original, ir::UOp rewritten, int runs, uint64_t base_seed);

/// How an instance is rewritten: the whole pipeline, with or without the optimize stages,
/// and once with fold_bounds switched off so the identities it shadows get to fire.
struct Mode {
  const char* name;
  bool optimize;
  bool without_fold_bounds;
};
const std::vector<Mode>& modes();

/// The marker rule mark_range_mod records context and always declines, so graph_rewrite
/// never counts it. Observe it instead: run its rule set with the SINK rule off and look
/// at what it left behind. (The shrink's marks are collected inside shrink_range.)
void probe_markers(ir::Context& ctx, ir::UOp root, std::map<std::string, uint64_t>& hits);

}  // namespace uopfuzz::selfcheck
