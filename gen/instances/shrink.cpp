// Shrink (mark_gated): WHERE(r < g, idx, INVALID) with g below / at / above the end,
// ungated second uses, REDUCE uses, two guards.
#include <algorithm>
#include <cstdint>

#include "gen/instances/builder.h"

namespace uopfuzz::gen {

namespace {
/// Where a guard g of r < g sits against r's end.
enum class Guard : uint8_t {
  Small,    ///< in [lo, 3]
  PastEnd,  ///< in [1, end + 3]
  AtEnd,    ///< the end itself
  Inside,   ///< below the end: a real shrink
};
constexpr Guard kGuards[] = {Guard::Small, Guard::PastEnd, Guard::AtEnd, Guard::Inside,
                             Guard::Inside};
/// The store's gate.
enum class Gate : uint8_t {
  Guard,            ///< r < g
  WithLowerClause,  ///< (r < g) & (k < r)
  TwoGuards,        ///< (r < g2) & (r < g): two guards, one gate
  Or,               ///< (r < g) | (r < g2): not an AND
  VarBound,         ///< r < VAR: not a CONST
  WithLoadedBool,   ///< (r < g) & in[r]
};
constexpr Gate kGates[] = {Gate::Guard, Gate::WithLowerClause, Gate::TwoGuards,
                           Gate::Or,    Gate::VarBound,        Gate::WithLoadedBool};
/// The gated store's value.
enum class GatedValue : uint8_t {
  RangePlusOne,       ///< int(r) + 1
  UngatedLoad,        ///< in[r]: an ungated use of r in an INDEX
  GatedLoad,          ///< a load gated by the second guard, alt != 0
  ReduceOfGatedLoad,  ///< a REDUCE over a gated load: its range keeps the full length
  Scaled,             ///< int(r) * 3
};
constexpr GatedValue kGatedValues[] = {GatedValue::RangePlusOne, GatedValue::UngatedLoad,
                                       GatedValue::GatedLoad, GatedValue::ReduceOfGatedLoad,
                                       GatedValue::Scaled};
}  // namespace

void InstanceBuilder::shrink() {
  End e = make_end(1, 20, w_.p_shrink_var_end);
  if (chance(w_.p_shrink_big_end)) e = {I(204), 204};
  UOp r = range(e.node);
  auto guard = [&]() -> int64_t {
    const int64_t lo = policy_.always_false_gates ? 0 : 1;  // r < 0 is statically false
    switch (option(kGuards)) {
      case Guard::Small: return between(lo, 3);
      case Guard::PastEnd: return between(1, std::max<int64_t>(e.hi, 1) + 3);
      case Guard::AtEnd: return std::max(e.hi, lo);
      case Guard::Inside: break;
    }
    return between(1, std::max<int64_t>(e.hi - 1, 1));  // a real shrink
  };
  const int64_t g = guard(), g2 = guard();
  UOp valid = lt(r, I(g));
  switch (option(kGates)) {
    case Gate::Guard: break;
    case Gate::WithLowerClause: {  // statically false when k >= the end - 1
      // k < r < g is unsatisfiable for k >= g - 1: statically false once r shrinks to g.
      const int64_t kmax = policy_.always_false_gates ? 2 : std::min<int64_t>({2, e.hi - 2, g - 2});
      valid = band(valid, lt(I(between(-1, std::max<int64_t>(kmax, -1))), r));
      break;
    }
    case Gate::TwoGuards: valid = band(lt(r, I(g2)), valid); break;
    case Gate::Or: valid = alu(Op::Or, valid, lt(r, I(g2))); break;
    case Gate::VarBound:
      if (!vars_.empty() || chance(w_.p_shrink_var_gate)) valid = lt(r, var(0, 24));
      break;
    case Gate::WithLoadedBool: valid = band(valid, load(in_bool(), r)); break;
  }
  const int64_t size = std::max<int64_t>({e.hi, g, g2, 1});
  UOp out = buffer(ir::dtypes::Int32, size, true);
  UOp value = add(cast(ir::dtypes::Int32, r), C(ir::dtypes::Int32, 1));
  switch (option(kGatedValues)) {
    case GatedValue::RangePlusOne: break;
    case GatedValue::UngatedLoad: value = load(in_i32(), r); break;
    case GatedValue::GatedLoad:
      value = load_gated(in_i32(), lt(r, I(g2)), r, C(ir::dtypes::Int32, between(1, 5)));
      break;
    case GatedValue::ReduceOfGatedLoad: {
      End ke = make_end(1, 12, w_.p_shrink_var_end);
      UOp k = range(ke.node, ir::AxisType::Reduce);
      UOp gl = load_gated(in_i32(), lt(k, I(between(policy_.always_false_gates ? 0 : 1, 8))), k,
                          C(ir::dtypes::Int32, between(-2, 3)));
      value = add(
          reduce(one_of<Op>({Op::Add, Op::Max, Op::Mul}), add(gl, C(ir::dtypes::Int32, 1)), {k}),
          cast(ir::dtypes::Int32, r));
      break;
    }
    case GatedValue::Scaled:
      value = mul(cast(ir::dtypes::Int32, r), C(ir::dtypes::Int32, 3));
      break;
  }
  UOp idx = chance(w_.p_shrink_bare_index) ? r : add(r, I(0));
  effects_.push_back(end(store(out, where(valid, idx, ctx_.invalid()), value), {r}));
  if (chance(w_.p_shrink_second_store)) {  // a second store through the same range, gated by g2 or
                                           // ungated
    UOp out2 = buffer(ir::dtypes::Int32, size, true);
    UOp idx2 = chance(w_.p_shrink_second_gated) ? where(lt(r, I(g2)), r, ctx_.invalid()) : r;
    effects_.push_back(end(store(out2, idx2, cast(ir::dtypes::Int32, mul(r, I(2)))), {r}));
  }
  if (chance(w_.p_shrink_2d_gate)) {  // a 2-D gate (r0 < g0) & (r1 < g1) on one index
    End e0 = make_end(1, 6, kNeverVar), e1 = make_end(1, 6, kNeverVar);
    UOp r0 = range(e0.node), r1 = range(e1.node);
    int64_t s1 = std::max<int64_t>(e1.hi, 1);
    const int64_t g0 = policy_.always_false_gates ? 0 : 1;
    UOp v2 = band(lt(r0, I(between(g0, e0.hi + 1))), lt(r1, I(between(g0, e1.hi + 1))));
    UOp out3 = buffer(ir::dtypes::Int32, std::max<int64_t>(e0.hi, 1) * s1, true);
    UOp lin = add(mul(r0, I(s1)), r1);
    effects_.push_back(
        end(store(out3, where(v2, lin, ctx_.invalid()), cast(ir::dtypes::Int32, lin)), {r0, r1}));
  }
  if (chance(w_.p_shrink_reduce_use)) {  // the gated range is also a REDUCE range elsewhere
    UOp out4 = buffer(ir::dtypes::Int32, 1, true);
    UOp gl = load_gated(in_i32(), lt(r, I(g)), r, C(ir::dtypes::Int32, 1));
    effects_.push_back(store(out4, I(0), reduce(Op::Add, gl, {r})));
  }
}

}  // namespace uopfuzz::gen
