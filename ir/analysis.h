/** \file Static facts about integer nodes: value bounds (vmin/vmax) and divisibility proofs.
 *
 * Both are sound over-approximations under SEMANTICS.md: a sized-integer interval that
 * could wrap widens to the dtype's whole range; `index` arithmetic cannot overflow in a
 * UB-free kernel, so its intervals are plain integer arithmetic.
 */
#pragma once

#include <cstdint>

#include "ir/node_map.h"
#include "ir/uop.h"

namespace uopfuzz::ir {

struct Interval {
  int64_t lo, hi;
  bool is_const() const { return lo == hi; }
  friend bool operator==(Interval, Interval) = default;
};

/// Memoized analyses over the nodes of one Context (nodes are immutable, so a cached
/// fact never goes stale while the Context lives).
class Analysis {
 public:
  /// Bounds of an integer or bool node's value; the dtype's range when nothing better
  /// is known. Not meaningful for floats (returns the widest interval).
  Interval bounds(UOp u);
  int64_t vmin(UOp u) { return bounds(u).lo; }
  int64_t vmax(UOp u) { return bounds(u).hi; }

  /// A static proof that u is a multiple of v (v > 0): CONST by value, ADD if both
  /// operands are, MUL if either factor is, a LOAD of a PARAM or a VAR by its
  /// multiple_of. False means "not proven", not "not a multiple".
  bool divides(UOp u, int64_t v);

 private:
  Interval compute(UOp u);
  NodeMap<Interval> cache_;
};

/// The dtype's own range as an interval (unsigned 64-bit is capped at INT64_MAX).
Interval dtype_interval(DType dt);

}  // namespace uopfuzz::ir
