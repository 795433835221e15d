/** \file The walk over a kernel's effects that every executor emits by: the SINK's STOREs and
 * ENDs in order, the loops each END and REDUCE opens, and each operand evaluated once where
 * the loop plan (ir/loop_plan.h) places it. An executor supplies what it emits at each step
 * (a visitor); the order of the steps, the chain of open scopes and the memo are here.
 *
 * The visitor `V` declares four types: `ScopeRef`, a copyable handle on one open scope;
 * `Operand`, what an evaluated node is to its users (a register, an llvm::Value*, a GLSL
 * variable), default-constructible; `Address`, an INDEX made ready for a LOAD or STORE;
 * `Accumulator`, a REDUCE's running value. Its hooks (private, with EffectWalk<V> a friend)
 * receive the scope their code goes to:
 *
 *   TopLevel top_level(UOp effect)         how a SINK source is shared among threads
 *   ScopeRef open_guard(ScopeRef outer)    a scope only the first thread enters
 *   void close_guard(ScopeRef guard, ScopeRef outer)
 *   ScopeRef open_loop(ScopeRef outer, UOp range, Operand end, bool shared)
 *                                          shared: the outermost loop of a Split END
 *   void close_loops(std::span<const ScopeRef> loops, ScopeRef outer)
 *                                          an END's loops, outermost first
 *   Operand constant(ScopeRef, UOp), var(ScopeRef, UOp)
 *   Operand range(ScopeRef, UOp)           in the loop binding it, or in the kernel's scope
 *                                          (position 0) when no open loop does
 *   Operand not_a_value(ScopeRef, UOp)     a node the verifier keeps out of value positions
 *   Operand alu(ScopeRef, UOp, const Operand* operands)      operands[i]: source i
 *   Address address(ScopeRef, UOp index, const Operand* gate, Operand idx)  gate null: ungated
 *   Operand load(ScopeRef, UOp, const Address&, const Operand* alt)         alt null: none
 *   void store(ScopeRef, UOp, const Address&, Operand value)
 *   Accumulator reduce_begin(ScopeRef home, UOp reduce)
 *   void reduce_step(ScopeRef innermost, UOp reduce, Accumulator&, Operand value)
 *   Operand reduce_end(ScopeRef home, UOp reduce, Accumulator&, std::span<const ScopeRef> loops)
 *                                          closes the REDUCE's loops, outermost first
 *
 * Operands are evaluated before the hook that uses them, in source order; a LOAD's ALT before
 * its address, an address (gate, then index) before a STORE's value.
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/loop_plan.h"
#include "ir/ops.h"
#include "ir/result.h"
#include "ir/uop.h"

namespace uopfuzz::ir {

/// How a top-level effect (a source of the SINK) is shared among an executor's threads.
enum class TopLevel : uint8_t {
  /// Emitted as it stands (an executor with one thread).
  Inline,
  /// Only the first thread runs it, inside a guard scope (values computed in the guard are
  /// not reused outside it).
  FirstThread,
  /// An END whose outermost loop the threads divide among themselves.
  Split,
};

template <class V>
class EffectWalk {
 public:
  using ScopeRef = typename V::ScopeRef;
  using Operand = typename V::Operand;
  using Address = typename V::Address;

  /// `root` is the visitor's handle on the kernel's own scope (the plan's position 0).
  EffectWalk(V& visitor, LoopPlan plan, ScopeRef root) : v_(visitor), plan_(std::move(plan)) {
    chain_.push_back(root);
  }

  /// Walks the SINK's effects in order. Fails on a source that is not a STORE or END; the
  /// visitor's own refusals are its to report.
  std::optional<Error> run(UOp sink) {
    for (UOp s : sink.src())
      if (auto e = top_effect(s)) return e;
    return std::nullopt;
  }

 private:
  std::optional<Error> top_effect(UOp u) {
    switch (v_.top_level(u)) {
      case TopLevel::Inline: return effect(u, false);
      case TopLevel::Split: return effect(u, true);
      case TopLevel::FirstThread: {
        const ScopeRef outer = chain_.back();
        chain_.push_back(v_.open_guard(outer));
        plan_.enter_guard();
        if (auto e = effect(u, false)) return e;
        plan_.leave();
        v_.close_guard(chain_.back(), outer);
        chain_.pop_back();
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

  // STOREs and ENDs: emitted where they stand, never hoisted. `split`: the threads divide
  // this END's outermost loop.
  std::optional<Error> effect(UOp u, bool split) {
    if (u.op() == Op::Store) {
      const size_t depth = chain_.size();
      const Address a = address(u.src(0), depth);
      const Operand x = value(u.src(1), depth);
      v_.store(chain_.back(), u, a, x);
      return std::nullopt;
    }
    if (u.op() != Op::End) return Error{unexpected_effect(u)};
    const size_t outer = chain_.size();
    for (size_t i = 1; i < u.num_src(); ++i) open_loop(u.src(i), split && i == 1);
    if (auto e = effect(u.src(0), false)) return e;
    leave_loops(outer);
    if (chain_.size() > outer)
      v_.close_loops(std::span<const ScopeRef>(chain_).subspan(outer), chain_[outer - 1]);
    chain_.resize(outer);
    return std::nullopt;
  }

  void open_loop(UOp range, bool shared) {
    const Operand end = value(range.src(0), chain_.size());
    chain_.push_back(v_.open_loop(chain_.back(), range, end, shared));
    plan_.enter(range);
  }
  // Leaves the plan's loops from position `from` up (the visitor closes its own).
  void leave_loops(size_t from) {
    for (size_t i = from; i < chain_.size(); ++i) plan_.leave();
  }

  // The value of `u` demanded at position depth - 1, evaluated at its home and memoised there.
  Operand value(UOp u, size_t depth) {
    const size_t k = plan_.home(u, depth);
    const uint64_t key = plan_.key(u, k);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    Operand v = evaluate(u, k);
    memo_.emplace(key, v);
    return v;
  }

  Operand evaluate(UOp u, size_t k) {
    switch (op_kind(u.op())) {
      case OpKind::Leaf:
        switch (leaf_op(u.op())) {
          case LeafOp::Const: return v_.constant(chain_[k], u);
          case LeafOp::Var: return v_.var(chain_[k], u);
          // Not values: the verifier keeps them out of value positions.
          case LeafOp::Invalid:
          case LeafOp::Param: return v_.not_a_value(chain_[k], u);
        }
        break;
      case OpKind::Structural:
        switch (structural_op(u.op())) {
          case StructuralOp::Range: return v_.range(chain_[k], u);
          case StructuralOp::Load: {
            std::optional<Operand> alt;
            if (u.num_src() == 2) alt = value(u.src(1), k + 1);
            const Address a = address(u.src(0), k + 1);
            return v_.load(chain_[k], u, a, alt ? &*alt : nullptr);
          }
          case StructuralOp::Reduce: return reduce(u, k);
          // Not values: the verifier keeps them out of value positions.
          case StructuralOp::Index:
          case StructuralOp::Store:
          case StructuralOp::End:
          case StructuralOp::Sink: return v_.not_a_value(chain_[k], u);
        }
        break;
      case OpKind::Alu: {
        std::array<Operand, 3> a{};
        for (size_t s = 0; s < u.num_src(); ++s) a[s] = value(u.src(s), k + 1);
        return v_.alu(chain_[k], u, a.data());
      }
      // Not values: the verifier keeps them out of value positions.
      case OpKind::Tensor:
      case OpKind::Schedule: return v_.not_a_value(chain_[k], u);
    }
    return v_.not_a_value(chain_[k], u);
  }

  // An INDEX's element, accessed at position depth - 1: a plain index, or
  // WHERE(gate, index, INVALID).
  Address address(UOp index, size_t depth) {
    UOp idx = index.src(1);
    std::optional<Operand> gate;
    if (idx.op() == Op::Where && idx.src(2).op() == Op::Invalid) {
      gate = value(idx.src(0), depth);
      idx = idx.src(1);
    }
    const Operand i = value(idx, depth);
    return v_.address(chain_[depth - 1], index, gate ? &*gate : nullptr, i);
  }

  // A REDUCE's loops open right inside its home, k: the scopes above are set aside while
  // they are emitted, then restored.
  Operand reduce(UOp u, size_t k) {
    const std::vector<ScopeRef> above(chain_.begin() + static_cast<std::ptrdiff_t>(k) + 1,
                                      chain_.end());
    chain_.resize(k + 1);
    LoopPlan::Suspended suspended = plan_.suspend_above(k);
    typename V::Accumulator acc = v_.reduce_begin(chain_[k], u);
    for (size_t i = 1; i < u.num_src(); ++i) open_loop(u.src(i), false);
    const Operand x = value(u.src(0), chain_.size());
    v_.reduce_step(chain_.back(), u, acc, x);
    leave_loops(k + 1);
    Operand r = v_.reduce_end(chain_[k], u, acc, std::span<const ScopeRef>(chain_).subspan(k + 1));
    chain_.resize(k + 1);
    chain_.insert(chain_.end(), above.begin(), above.end());
    plan_.resume(std::move(suspended));
    return r;
  }

  V& v_;
  LoopPlan plan_;
  std::vector<ScopeRef> chain_;  // the visitor's scopes at the plan's positions
  std::unordered_map<uint64_t, Operand> memo_;
};

}  // namespace uopfuzz::ir
