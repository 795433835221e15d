/** \file The pattern language of rewrite rules: match a node by op, dtype, sources, named
 * bindings, constants and predicates, in the style of Halide's IRMatch and tinygrad's UPat.
 *
 *   Pat x = Pat::var("x"), c = Pat::cvar("c");
 *   x + Pat::lit(0)                      // ADD(x, CONST 0), either operand order
 *   Pat::op(Op::Reduce).named("red")     // any REDUCE, any sources
 *   Pat::op(Op::Reduce, {x, r}).arg(ReduceArg{Op::Add})  // a sum of x over one range
 *   (x * c).when(c_positive)             // a gate: a Pat::Pred on the bindings, named
 *
 * A name bound twice must bind the same node. Commutative ops match both operand orders.
 * A gate reads like the predicate of a Halide rewrite(before, after, predicate): the
 * rule fires only where it holds, and a rewrite function keeps only what it builds.
 */
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ir/uop.h"

namespace uopfuzz::ir {

/// The nodes a match bound, by name.
class Bindings {
 public:
  /// The node bound to `name`; a null UOp if none.
  UOp get(std::string_view name) const {
    for (const auto& [n, u] : items_)
      if (n == name) return u;
    return UOp();
  }
  UOp operator[](std::string_view name) const { return get(name); }
  /// Binds `name`, or checks an existing binding is the same node.
  bool bind(std::string_view name, UOp u) {
    for (const auto& [n, v] : items_)
      if (n == name) return v == u;
    items_.emplace_back(name, u);
    return true;
  }
  size_t size() const { return items_.size(); }
  void truncate(size_t n) { items_.resize(n); }

 private:
  std::vector<std::pair<std::string_view, UOp>> items_;  // names live in the patterns
};

class Pat {
 public:
  using Pred = std::function<bool(const Bindings&)>;

  /// Any node, bound to `name` if given.
  static Pat var(std::string name = "");
  /// Any CONST, bound to `name` if given.
  static Pat cvar(std::string name = "");
  /// A CONST equal to `v` (integers and bools by value, floats by value too: 0 matches -0;
  /// rules for which the sign of a zero matters check it themselves).
  static Pat lit(int64_t v);
  /// Op `op` with exactly these sources (no list: any sources).
  static Pat op(Op op, std::vector<Pat> src);
  static Pat op(Op op);
  /// One of several ops with exactly these sources.
  static Pat ops(std::vector<Op> ops, std::vector<Pat> src);
  /// Any op of a group from ops.def (e.g. Alu), with any sources.
  static Pat group(uint32_t group);
  /// Whatever one of `alternatives` matches, tried in order (e.g. the spellings of !b).
  static Pat any_of(std::vector<Pat> alternatives);

  /// Binds the matched node to `name` as well.
  Pat named(std::string name) const;
  /// Only nodes of this dtype / of dtypes accepted by `ok`.
  Pat dtype(DType dt) const;
  Pat dtype_if(std::function<bool(DType)> ok) const;
  /// Only nodes whose arg equals `arg` (a REDUCE's combining op, ...).
  Pat arg(Arg arg) const;
  /// Sources after the listed ones are allowed (END/REDUCE: body, then any ranges).
  Pat rest() const;
  /// A gate: a predicate on the bindings, checked once this node's sub-pattern matched
  /// (on the root: after the whole pattern). A failed gate tries the next way to match.
  Pat when(Pred pred) const;

  /// One gate of a pattern: the node that carries it and its place among that node's.
  struct GateKey {
    const void* node;
    uint32_t pred;
    bool operator==(const GateKey&) const = default;
  };
  /// The gates of this pattern in the order a match asks them (a node's sources before
  /// the node, its own gates in the order written): a rule's gate i is gates()[i].
  std::vector<GateKey> gates() const;
  /// Where gate verdicts go while a GateWatch is installed on this thread.
  using GateSink = void (*)(void* ctx, GateKey gate, bool accepted);
  /// Installs `sink` for this thread's matches for its lifetime (the outer one again after).
  class GateWatch {
   public:
    GateWatch(GateSink sink, void* ctx);
    ~GateWatch();
    GateWatch(const GateWatch&) = delete;
    GateWatch& operator=(const GateWatch&) = delete;

   private:
    GateSink outer_sink_;
    void* outer_ctx_;
  };

  /// Matches `u`, adding to `b`; on failure `b` is left as it was.
  bool match(UOp u, Bindings& b) const;
  /// What match_each calls with each match: a reference to a callable, borrowed for the
  /// call (like C++26 std::function_ref). Not a std::function: the matcher passes a
  /// continuation down for every source it matches, and std::function allocated for most.
  class Accept {
   public:
    template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, Accept> &&
             std::is_invocable_r_v<bool, F&, Bindings&>)
        Accept(F&& f)  // NOLINT: implicit, like std::function's
        : fn_(std::addressof(f)), call_([](const void* fn, Bindings& b) -> bool {
            return (*static_cast<std::remove_reference_t<F>*>(const_cast<void*>(fn)))(b);
          }) {}
    bool operator()(Bindings& b) const { return call_(fn_, b); }

   private:
    const void* fn_;
    bool (*call_)(const void*, Bindings&);
  };
  /// Backtracking match: calls `accept` with each way the pattern matches `u` (operand
  /// orders of commutative ops, ...) until it returns true. A rewrite that declines one
  /// binding thus still sees the others.
  bool match_each(UOp u, Bindings& b, Accept accept) const;
  /// The ops a matched root can have (empty: any op). Drives dispatch by root op.
  const std::vector<Op>& root_ops() const { return n_->ops; }

 private:
  struct Node {
    std::vector<Op> ops;  // empty: any op
    uint32_t group = 0;   // nonzero: op must be in the group
    bool is_const = false;
    std::optional<int64_t> literal;
    std::optional<std::vector<Pat>> src;
    bool rest = false;
    std::string name;
    std::function<bool(DType)> dtype_ok;
    std::optional<Arg> arg;
    std::vector<Pat> alternatives;  // nonempty: this node is only a choice among them
    std::vector<Pred> preds;
  };
  explicit Pat(std::shared_ptr<Node> n) : n_(std::move(n)) {}
  Pat with(const std::function<void(Node&)>& edit) const;
  void collect_gates(std::vector<GateKey>& out) const;
  bool match_src(UOp u, Bindings& b, bool swapped, size_t i, Accept accept) const;
  std::shared_ptr<const Node> n_;
};

// Operators build ALU patterns, so rules read like the algebra they encode.
Pat operator+(const Pat& a, const Pat& b);
Pat operator-(const Pat& a, const Pat& b);
Pat operator*(const Pat& a, const Pat& b);
Pat operator<(const Pat& a, const Pat& b);
Pat operator!=(const Pat& a, const Pat& b);
Pat operator&(const Pat& a, const Pat& b);
Pat operator|(const Pat& a, const Pat& b);

}  // namespace uopfuzz::ir
