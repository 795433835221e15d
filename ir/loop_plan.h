/** \file The loop plan: where each node of a verified kernel is evaluated, the one placement rule
 * every executor emits by. */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/node_map.h"
#include "ir/uop.h"

namespace uopfuzz::ir {

/// What an executor evaluates where it is demanded instead of hoisting it.
enum class Pinning : uint8_t {
  /// Nothing: every pure node, LOADs included, is computed once per iteration of the
  /// innermost open loop binding one of its ranges (the oracle, whose hoisted UB only
  /// poisons a value until an effect uses it).
  None,
  /// LOADs, REDUCEs and every node computed from one stay where demanded: compiled code
  /// must not read memory, or pay for a reduction, on paths no effect takes.
  Memory,
};

/// The chain of loops open while an executor emits a kernel (position 0 is the kernel's
/// own scope), and the placement rule over it. The effect walk (ir/effect_walk.h) visits
/// the effects (STORE, END) in order, enter()s a loop for each RANGE an END or REDUCE
/// binds and leave()s it after, and evaluates each operand at home(): the innermost open
/// loop binding one of the node's open ranges. An evaluation is reused wherever key() is
/// equal, so loop invariants are computed once per iteration of the loop they depend on.
class LoopPlan {
  struct Scope {
    UOp range;    // null for the kernel's scope and guards
    uint32_t id;  // fresh per scope opened: keys never cross a closed loop
  };

 public:
  /// `topo` is toposort(root); open ranges are computed here.
  LoopPlan(const std::vector<UOp>& topo, Pinning pinning);
  /// When the caller has open_ranges(topo) already (the oracle verifies with it).
  LoopPlan(const std::vector<UOp>& topo, NodeMap<RangeSet> open, Pinning pinning);

  /// Open scopes, the kernel's own included.
  size_t depth() const { return chain_.size(); }
  /// The RANGE the scope at position k binds; a null UOp for the kernel's scope and guards.
  UOp range_at(size_t k) const { return chain_[k].range; }

  /// Opens a loop over `range` at the innermost position.
  void enter(UOp range) { chain_.push_back({range, next_id_++}); }
  /// Opens a scope that binds no range (e.g. code only one thread runs): values
  /// computed inside are not reused outside it.
  void enter_guard() { chain_.push_back({UOp(), next_id_++}); }
  void leave() { chain_.pop_back(); }

  /// A REDUCE's loops open right inside the scope its value is placed in: the scopes
  /// above position k are set aside while they are emitted, then restored.
  struct Suspended {
    std::vector<Scope> scopes;
  };
  Suspended suspend_above(size_t k);
  void resume(Suspended s);

  /// The position in [0, depth) where `u`, demanded at position depth - 1, is evaluated.
  size_t home(UOp u, size_t depth) const;
  /// Identifies the evaluation of `u` at position k: equal keys, same value.
  uint64_t key(UOp u, size_t k) const { return (uint64_t{u.id()} << 32) | chain_[k].id; }

  const RangeSet& open(UOp u) const { return open_.at(u); }
  bool pinned(UOp u) const { return pinned_.contains(u); }

 private:
  NodeMap<RangeSet> open_;
  NodeMap<bool> pinned_;
  std::vector<Scope> chain_;
  uint32_t next_id_ = 0;
};

/// The kernel's effects are STOREs and ENDs only; anything else is this error.
std::string unexpected_effect(UOp u);

}  // namespace uopfuzz::ir
