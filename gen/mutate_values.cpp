// The mutators that change a value in place (gen/mutators.def): edge-const, range-end,
// insert-cast, index-op.
#include <fmt/format.h>

#include <algorithm>

#include "gen/builder.h"
#include "gen/edge_values.h"
#include "gen/mutators.h"
#include "ir/analysis.h"
#include "ir/graph.h"

namespace uopfuzz::gen::mutation {

using namespace ir;

/// An edge value of dt (gen/edge_values.h, by the policy's weights). Index values stay
/// within the generator's magnitude: index arithmetic is undefined on overflow.
UOp edge_const(Context& ctx, DType dt, Entropy& e, const GenPolicy& p) {
  if (dt.is_bool()) return ctx.const_bool(e.coin());
  if (dt.is_float()) return ctx.const_float(dt, edge_float(e, p.float_edges, dt, p.inexact_floats));
  IntRange r = int_range(dt);
  if (dt.is_index()) r.lo = -(r.hi = p.max_index_magnitude);
  return ctx.const_int(dt, as_const_bits(edge_int(e, p.int_edges, r, std::nullopt)));
}

std::optional<Change> edge_const_change(Context& ctx, const std::vector<UOp>& topo, Entropy& e,
                                        const GenPolicy& p) {
  std::vector<Use> uses;
  for (const Use& u : value_uses(topo))
    if (u.child().is_const()) uses.push_back(u);
  if (uses.empty()) return std::nullopt;
  const Use u = draw(e, uses);
  UOp c = edge_const(ctx, u.child().dtype(), e, p);
  return Change{u.user, with_src(ctx, u.user, u.slot, c), "a constant to an edge value"};
}

std::optional<Change> range_end_change(Context& ctx, const std::vector<UOp>& topo, Entropy& e,
                                       const GenPolicy& p) {
  std::vector<UOp> ranges;
  for (UOp u : topo)
    if (u.op() == Op::Range && u.src(0).is_const()) ranges.push_back(u);
  if (ranges.empty()) return std::nullopt;
  UOp r = draw(e, ranges);
  const int64_t end = r.src(0).const_value().i;
  const int64_t choices[] = {0,
                             1,
                             end - 1,
                             end + 1,
                             2 * end,
                             int64_t{1} << e.between(1, 4),
                             e.between(2, p.max_range_end)};
  const int64_t to = std::max<int64_t>(0, choices[e.below(std::size(choices))]);
  if (to == end) return std::nullopt;
  // A policy without ends 0 or 1 (a simplifier declines them, gen/declines.h) gets none here.
  if ((to == 0 && p.p_const_end_zero <= 0) || (to == 1 && p.p_const_end_one <= 0))
    return std::nullopt;
  UOp nr = ctx.make(Op::Range, r.dtype(), {ctx.const_int(r.src(0).dtype(), to)}, r.arg());
  return Change{r, nr, fmt::format("a range end {} -> {}", end, to)};
}

std::optional<Change> insert_cast(Context& ctx, const std::vector<UOp>& topo, Entropy& e) {
  std::vector<Use> uses = value_uses(topo);
  if (uses.empty()) return std::nullopt;
  const Use u = draw(e, uses);
  UOp c = u.child();
  const DType dt = c.dtype();
  Nodes mk(ctx);
  const uint64_t shape = e.below(3);
  if (shape == 0)
    return Change{u.user, with_src(ctx, u.user, u.slot, mk.cast(dt, c)),
                  fmt::format("a CAST of a {} to its own dtype", op_name(c.op()))};
  if (shape == 1 || !value_dtype(dt)) {
    std::vector<DType> to;
    for (DType d : kBufferTypes)
      if (d != dt && !d.is_bool()) to.push_back(d);
    if (!dt.is_index()) to.push_back(dtypes::Index);
    const DType via = draw(e, to);
    return Change{u.user, with_src(ctx, u.user, u.slot, mk.convert(dt, mk.convert(via, c))),
                  fmt::format("a {} round trip through {}", dt.name(), via.name())};
  }
  // x * cast(g): a bool that is defined wherever x is (its open ranges are among x's).
  const NodeMap<RangeSet> open = open_ranges(topo);
  const RangeSet& mine = open.at(c);
  std::vector<UOp> gates;
  for (UOp g : topo)
    if (g.dtype().is_bool() && op_in(g.op(), Alu) &&
        std::includes(mine.begin(), mine.end(), open.at(g).begin(), open.at(g).end(),
                      [](UOp a, UOp b) { return a.id() < b.id(); }))
      gates.push_back(g);
  if (gates.empty()) return std::nullopt;
  UOp g = draw(e, gates);
  return Change{u.user, with_src(ctx, u.user, u.slot, ctx.alu(Op::Mul, {c, mk.cast(dt, g)})),
                "a value times a casted bool"};
}

std::optional<Change> index_op(Context& ctx, const std::vector<UOp>& topo, Entropy& e) {
  std::vector<Use> uses;
  for (const Use& u : value_uses(topo))
    if (u.child().dtype().is_index()) uses.push_back(u);
  if (uses.empty()) return std::nullopt;
  const Use u = draw(e, uses);
  UOp x = u.child();
  static const int64_t divisors[] = {1, 2, 2, 3, 4, 4, 8, 16};
  UOp k = ctx.const_int(dtypes::Index, divisors[e.below(std::size(divisors))]);
  UOp to;
  switch (e.below(6)) {
    case 0: to = ctx.alu(Op::Mul, {x, k}); break;
    case 1: to = ctx.alu(Op::FloorDiv, {x, k}); break;
    case 2: to = ctx.alu(Op::Cdiv, {x, k}); break;
    case 3: to = ctx.alu(Op::FloorMod, {x, k}); break;
    case 4: to = ctx.alu(Op::Cmod, {x, k}); break;
    default:
      to = ctx.alu(Op::Add, {ctx.alu(Op::Mul, {ctx.alu(Op::FloorDiv, {x, k}), k}),
                             ctx.alu(Op::FloorMod, {x, k})});
      break;
  }
  return Change{u.user, with_src(ctx, u.user, u.slot, to),
                fmt::format("an index {} became {}", op_name(x.op()), op_name(to.op()))};
}

}  // namespace uopfuzz::gen::mutation
