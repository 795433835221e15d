// The mutators that change an ALU node's operands or op (gen/mutators.def): swap-operands,
// duplicate-operand, change-op, change-dtype, near-miss.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "gen/builder.h"
#include "gen/mutators.h"
#include "ir/graph.h"

namespace uopfuzz::gen::mutation {

using namespace ir;

std::vector<UOp> binary_alus(const std::vector<UOp>& topo) {
  std::vector<UOp> out;
  for (UOp u : topo)
    if ((op_in(u.op(), Binary) && u.src(0).dtype() == u.src(1).dtype()) || u.op() == Op::Where)
      out.push_back(u);
  return out;
}

std::optional<Change> swap_change(Context& ctx, const std::vector<UOp>& topo, Entropy& e) {
  std::vector<UOp> nodes;
  for (UOp u : binary_alus(topo))
    if (u.src(u.num_src() - 2) != u.src(u.num_src() - 1) && !is_gated_index(u)) nodes.push_back(u);
  if (nodes.empty()) return std::nullopt;
  UOp n = draw(e, nodes);
  const size_t a = n.num_src() - 2, b = n.num_src() - 1;
  UOp swapped = with_src(ctx, with_src(ctx, n, a, n.src(b)), b, n.src(a));
  return Change{n, swapped, fmt::format("{}'s operands swapped", op_name(n.op()))};
}

std::optional<Change> duplicate_change(Context& ctx, const std::vector<UOp>& topo, Entropy& e) {
  std::vector<UOp> nodes;
  for (UOp u : binary_alus(topo))
    if (u.src(u.num_src() - 2) != u.src(u.num_src() - 1) && !is_gated_index(u)) nodes.push_back(u);
  if (nodes.empty()) return std::nullopt;
  UOp n = draw(e, nodes);
  const size_t a = n.num_src() - 2, b = n.num_src() - 1;
  const bool first = e.coin();
  UOp dup = first ? with_src(ctx, n, b, n.src(a)) : with_src(ctx, n, a, n.src(b));
  return Change{
      n, dup,
      fmt::format("{}'s {} operand duplicated", op_name(n.op()), first ? "first" : "second")};
}

/// The ops a binary op may become without changing what its operands must satisfy (a divisor
/// stays a divisor, a shift amount a shift amount).
std::vector<Op> siblings(Op op, DType in) {
  const std::vector<std::vector<Op>> families = {{Op::Add, Op::Sub, Op::Mul, Op::Max, Op::Min},
                                                 {Op::Cdiv, Op::FloorDiv},
                                                 {Op::Cmod, Op::FloorMod},
                                                 {Op::CmpLt, Op::CmpNe, Op::CmpEq},
                                                 {Op::And, Op::Or, Op::Xor},
                                                 {Op::Shl, Op::Shr}};
  for (const auto& f : families) {
    if (std::find(f.begin(), f.end(), op) == f.end()) continue;
    std::vector<Op> out;
    for (Op o : f) {
      if (o == op) continue;
      if (in.is_float() && op_in(o, IntOnly)) continue;
      if (in.is_float() && o == Op::Mul) continue;  // a product of two values may round
      if (in.is_bool() && !(op_in(o, Comparison) || o == Op::And || o == Op::Or || o == Op::Xor))
        continue;
      out.push_back(o);
    }
    return out;
  }
  return {};
}

std::optional<Change> change_op(Context& ctx, const std::vector<UOp>& topo, Entropy& e) {
  std::vector<UOp> nodes;
  for (UOp u : topo)
    if (op_in(u.op(), Binary) && u.src(0).dtype() == u.src(1).dtype() &&
        !siblings(u.op(), u.src(0).dtype()).empty())
      nodes.push_back(u);
  if (nodes.empty()) return std::nullopt;
  UOp n = draw(e, nodes);
  const Op to = draw(e, siblings(n.op(), n.src(0).dtype()));
  return Change{n, ctx.alu(to, {n.src(0), n.src(1)}),
                fmt::format("{} became {}", op_name(n.op()), op_name(to))};
}

std::optional<Change> change_dtype(Context& ctx, const std::vector<UOp>& topo, Entropy& e) {
  std::vector<UOp> nodes;
  for (UOp u : topo)
    if (op_in(u.op(), Alu) && u.op() != Op::Cast && u.op() != Op::Bitcast &&
        value_dtype(operand_dtype(u)))
      nodes.push_back(u);
  if (nodes.empty()) return std::nullopt;
  UOp n = draw(e, nodes);
  std::vector<DType> to;
  for (DType d : kBufferTypes)
    if (value_dtype(d) && d != operand_dtype(n) && !(op_in(n.op(), IntOnly) && !d.is_int()) &&
        !(op_in(n.op(), FloatOnly) && !d.is_float()))
      to.push_back(d);
  if (to.empty()) return std::nullopt;
  const DType dt = draw(e, to);
  Nodes mk(ctx);
  std::vector<UOp> src;
  for (size_t s = 0; s < n.num_src(); ++s)
    src.push_back(n.op() == Op::Where && s == 0 ? n.src(0) : mk.convert(dt, n.src(s)));
  UOp inner = ctx.alu(n.op(), std::move(src));
  return Change{n, mk.convert(n.dtype(), inner),
                fmt::format("{} computed in {}", op_name(n.op()), dt.name())};
}

/// A near miss of an exact match (gen/near_miss.h does the same by construction): a multi-operand
/// rule matches a node that appears twice ((x//c)*c + x%c, x - x, both compares of a range), and
/// forgetting to check that the two are the same is the fault a near miss shows. So one use of a
/// node used at least twice changes: a constant to its value +-1 (never 0, which could divide), a
/// range to another range (verify rejects one out of scope), anything else to a sibling of its
/// dtype built before the user (so no cycle is made).
std::optional<Change> near_miss_change(Context& ctx, const std::vector<UOp>& topo, Entropy& e) {
  std::unordered_map<UOp, std::vector<Use>, UOpHash> uses_of;
  for (const Use& u : value_uses(topo)) uses_of[u.child()].push_back(u);
  std::unordered_map<UOp, size_t, UOpHash> pos;
  std::vector<UOp> repeated;
  for (UOp u : topo) {
    pos.emplace(u, pos.size());
    if (auto it = uses_of.find(u);
        it != uses_of.end() && it->second.size() >= 2 && !u.dtype().is_bool())
      repeated.push_back(u);
  }
  if (repeated.empty()) return std::nullopt;
  const UOp x = draw(e, repeated);
  const Use use = draw(e, uses_of.at(x));
  const DType dt = x.dtype();
  UOp to;
  std::string what;
  if (x.is_const() && dt.is_int()) {
    const int64_t v = x.const_value().i;
    int64_t d = e.coin() ? 1 : -1;
    if (v + d == 0 || (d > 0 && v == std::numeric_limits<int64_t>::max()) ||
        (d < 0 && v == std::numeric_limits<int64_t>::min()))
      d = -d;
    to = ctx.const_int(dt, v + d);
    what = fmt::format("one use of the shared constant {} became {}", v, v + d);
  } else {
    std::vector<UOp> siblings;
    for (UOp s : topo) {
      if (pos.at(s) >= pos.at(use.user)) break;
      if (s == x || s.dtype() != dt || is_gated_index(s)) continue;
      const bool range = x.op() == Op::Range;
      if (range ? s.op() == Op::Range
                : (op_in(s.op(), Alu) || s.op() == Op::Load || s.op() == Op::Const ||
                   s.op() == Op::Var || s.op() == Op::Reduce))
        siblings.push_back(s);
    }
    if (siblings.empty()) return std::nullopt;
    to = draw(e, siblings);
    what = fmt::format("one use of a repeated {} became a {}", op_name(x.op()), op_name(to.op()));
  }
  return Change{use.user, with_src(ctx, use.user, use.slot, to), what};
}

}  // namespace uopfuzz::gen::mutation
