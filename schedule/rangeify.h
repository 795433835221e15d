/** \file Rangeify's analysis of a tensor program: which nodes are realized into buffers, and
 * the index expressions every other node is computed at (docs/design.md, "Rangeify").
 *
 * Every tensor node is computed at one list of index-typed expressions, one per dim, in
 * terms of RANGEs: a realized node at fresh LOOP ranges of its own (its kernel's loops),
 * any other node where its consumers read it. Movement ops only change those expressions
 * (source_access); REDUCE_AXIS adds fresh REDUCE ranges for the dims it reduces.
 */
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "ir/result.h"
#include "ir/uop.h"
#include "schedule/lowering_bugs.h"

namespace uopfuzz::simplifier {
struct SimplifyState;
}

namespace uopfuzz::schedule {

/// Where one tensor node is read: an index per dim, and where it is needed.
struct Access {
  std::vector<ir::UOp> idx;
  ir::UOp valid;           ///< bool; null: everywhere
  bool broadcast = false;  ///< an EXPAND between the reader and its kernel's store
};

struct NodeRanges {
  bool realized = false;  ///< computed once into a buffer by a kernel of its own
  Access at;              ///< realized: its fresh ranges (CONST 0 for a dim of size 1)
  /// REDUCE_AXIS: per reduced axis, the REDUCE range over it (CONST 0 for size 1).
  std::vector<ir::UOp> reduce_ranges;
};

/// Runs index and validity expressions through the simplifier's symbolic rules, sharing
/// one analysis cache (value bounds) over a whole lowering.
class IndexSimplifier {
 public:
  explicit IndexSimplifier(ir::Context& ctx);
  ~IndexSimplifier();
  IndexSimplifier(const IndexSimplifier&) = delete;
  IndexSimplifier& operator=(const IndexSimplifier&) = delete;
  ir::UOp operator()(ir::UOp expr);
  ir::Context& ctx() { return ctx_; }

 private:
  ir::Context& ctx_;
  std::unique_ptr<simplifier::SimplifyState> state_;
};

struct RangeifyPlan {
  std::unordered_map<ir::UOp, NodeRanges, ir::UOpHash> nodes;  ///< only the nodes computed
  std::vector<ir::UOp> outputs;                                ///< the REALIZE sources
  int32_t next_axis = 0;  ///< axis ids are unique over the program: equal RANGEs are one node
};

/// A fresh RANGE over 0..size-1 (CONST 0 when size is 1), taking the plan's next axis id.
ir::UOp fresh_range(ir::Context& ctx, RangeifyPlan& plan, int64_t size, ir::AxisType type);

/// Decides realization and ranges for the tensor program `root` (a verified REALIZE).
/// PARAM and CONST nodes that are not outputs, and nodes of no elements, are not in the
/// plan: they are read directly (an input buffer, a scalar, nothing).
Result<RangeifyPlan> rangeify(IndexSimplifier& simplify, ir::UOp root, const LoweringBugSet& bugs);

/// Where `node`, computed at `at` (with `reduce_ranges` for a REDUCE_AXIS), reads its
/// sources (every source of an ALU op alike). `own_gate` receives PAD's condition alone.
Access source_access(IndexSimplifier& simplify, ir::UOp node, const NodeRanges& at,
                     const LoweringBugSet& bugs, ir::UOp* own_gate = nullptr);

}  // namespace uopfuzz::schedule
