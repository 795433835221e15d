/** \file The bounds-soundness check: every value the oracle computes for a node must lie in
 * the bounds the simplifier under test believes of that node (its vmin/vmax: the facts its
 * rules trust). A value outside them is a wrong fact, a finding even before any rule
 * exploits it, and the innermost such node is what a wrong rewrite's diagnosis names. */
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/run_io.h"
#include "ir/uop.h"
#include "sut/simplifier_under_test.h"

namespace uopfuzz::check {

struct BoundsViolation {
  ir::UOp node;             ///< the innermost node whose value left its claimed bounds
  __int128 lo = 0, hi = 0;  ///< what the simplifier claimed
  __int128 value = 0;       ///< a value the oracle computed outside them
  /// "unsound-bounds: ADD of [0, 5], [2, 3] claimed [2, 7], value 9": the op, the claimed
  /// bounds of its operands ("?" where none was claimed), the claim and the value.
  std::string text;
};

/// The innermost node (first in topological order) of `root` whose observed values leave
/// the bounds `claims` gives it, or nullopt. A claim of a sized signed integer that leaves
/// its dtype's range (a simplifier that assumes no signed overflow, as C does, says so
/// this way) is not held against the oracle, nor is any claim of a node computed from such
/// a node: there the two semantics differ by declaration (signed wrap), not by a bug.
std::optional<BoundsViolation> find_unsound_bounds(ir::UOp root,
                                                   const std::vector<sut::ClaimedBounds>& claims,
                                                   const std::vector<ir::ObservedRange>& observed);

/// `v` in decimal.
std::string int128_text(__int128 v);

}  // namespace uopfuzz::check
