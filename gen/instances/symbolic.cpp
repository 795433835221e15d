// Symbolic and divmod: random typed expressions over a loop nest, biased to the
// left-hand sides of the symbolic rules (the shapes are in symbolic_shapes.cpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "gen/instances/builder.h"

namespace uopfuzz::gen {

ir::UOp InstanceBuilder::small_const(DType dt, bool huge_ok) {
  if (dt.is_bool()) return ctx_.const_bool(coin());
  if (dt.is_float()) return float_const(dt);
  if (chance(w_.p_small_const)) return C(dt, one_of<int64_t>({0, 1, -1, 2}));
  if (chance(w_.p_huge_index_const) && dt.is_index() && huge_ok)
    return C(dt, one_of<int64_t>({std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min(), int64_t{1} << 40}));
  if (chance(w_.p_int_limit_const) && !dt.is_index())
    return C(dt, one_of<int64_t>({dt.int_min(), dt.int_max()}));
  return C(dt, between(-9, 12));
}
ir::UOp InstanceBuilder::float_const(DType dt) {
  if (chance(w_.p_special_float_const))
    return F(dt, one_of<double>({-0.0, 0.0, INFINITY, -INFINITY, NAN, 0.1, 1e30, -1.5}));
  return F(dt, static_cast<double>(between(-64, 64)) / 8.0);
}
ir::UOp InstanceBuilder::divisor(DType dt) {
  if (chance(w_.p_small_divisor)) return C(dt, between(1, 9));
  if (chance(w_.p_negative_divisor)) return C(dt, -between(1, 5));
  return C(dt, one_of<int64_t>({16, 32, 64}));
}

namespace {
// The options of each leaf and expression draw, one name per case, in the order of the
// draw (a name repeated is drawn that much more often; the tables are drawn uniformly).
enum class IndexLeaf : uint8_t { Range, Var, LoadedIndex, Constant, ShiftedRange };
constexpr IndexLeaf kIndexLeaves[] = {IndexLeaf::Range,    IndexLeaf::Range,
                                      IndexLeaf::Var,      IndexLeaf::LoadedIndex,
                                      IndexLeaf::Constant, IndexLeaf::ShiftedRange};
constexpr size_t kSymbolicIndexLeaves = 5;  ///< the symbolic family: no shifted ranges
enum class FloatLeaf : uint8_t { Load, CastIndex, SignedZero, Constant };
constexpr FloatLeaf kFloatLeaves[] = {FloatLeaf::Load, FloatLeaf::CastIndex, FloatLeaf::SignedZero,
                                      FloatLeaf::Constant};
enum class BoolLeaf : uint8_t { Load, Compare, Constant };
constexpr BoolLeaf kBoolLeaves[] = {BoolLeaf::Load, BoolLeaf::Compare, BoolLeaf::Constant};
enum class IntLeaf : uint8_t { Load, CastIndex, Constant };
constexpr IntLeaf kIntLeaves[] = {IntLeaf::Load, IntLeaf::CastIndex, IntLeaf::Constant};

enum class BoolExpr : uint8_t { Compare, Logic, Where, Cast, Leaf };
constexpr BoolExpr kBoolExprs[] = {BoolExpr::Compare, BoolExpr::Logic, BoolExpr::Where,
                                   BoolExpr::Cast, BoolExpr::Leaf};
enum class FloatExpr : uint8_t { Arith, MaxMin, Neg, Where, Cast, Leaf };
constexpr FloatExpr kFloatExprs[] = {FloatExpr::Arith, FloatExpr::MaxMin, FloatExpr::Neg,
                                     FloatExpr::Where, FloatExpr::Cast,   FloatExpr::Leaf};
enum class IntExpr : uint8_t { Arith, MaxMin, Neg, Divmod, Where, Convert, Cast };
constexpr IntExpr kIntExprs[] = {IntExpr::Arith,   IntExpr::Arith,  IntExpr::MaxMin,
                                 IntExpr::Neg,     IntExpr::Divmod, IntExpr::Where,
                                 IntExpr::Convert, IntExpr::Cast,   IntExpr::Divmod};
constexpr size_t kSymbolicIntExprs = 8;  ///< the symbolic family: divisions half as often
}  // namespace

ir::UOp InstanceBuilder::leaf(DType dt, const Scope& s, bool divmod) {
  if (dt.is_index()) {
    switch (option(kIndexLeaves, divmod ? std::size(kIndexLeaves) : kSymbolicIndexLeaves)) {
      case IndexLeaf::Range:
        if (!s.ranges.empty()) return one_of(s.ranges);
        break;
      case IndexLeaf::Var:
        if (!vars_.empty()) return one_of(vars_);
        break;
      case IndexLeaf::LoadedIndex: return to_index(load(in_i32(), s.lin));
      case IndexLeaf::ShiftedRange:  // a range shifted so that it can be negative
        if (!s.ranges.empty()) return add(one_of(s.ranges), I(-between(0, 9)));
        break;
      case IndexLeaf::Constant: break;
    }
    return small_const(dt, wild_ok(s));
  }
  if (dt.is_float()) {
    switch (option(kFloatLeaves)) {
      case FloatLeaf::Load: return load(in_f32(), s.lin);
      case FloatLeaf::CastIndex:
        return cast(dt, leaf(coin() ? ir::dtypes::Index : ir::dtypes::Int32, s, divmod));
      case FloatLeaf::SignedZero:
        return mul(load(in_f32(), s.lin), F(dt, -0.0));  // a zero whose sign depends on the input
      case FloatLeaf::Constant: return float_const(dt);
    }
  }
  if (dt.is_bool()) {
    switch (option(kBoolLeaves)) {
      case BoolLeaf::Load: return load(in_bool(), s.lin);
      case BoolLeaf::Compare:
        return lt(leaf(ir::dtypes::Index, s, divmod), leaf(ir::dtypes::Index, s, divmod));
      case BoolLeaf::Constant: return ctx_.const_bool(coin());
    }
  }
  switch (option(kIntLeaves)) {  // int32
    case IntLeaf::Load: return load(in_i32(), s.lin);
    case IntLeaf::CastIndex: return cast(dt, leaf(ir::dtypes::Index, s, divmod));
    case IntLeaf::Constant: break;
  }
  return small_const(dt, wild_ok(s));
}

ir::UOp InstanceBuilder::expr(DType dt, int depth, const Scope& s, bool divmod) {
  if (depth <= 0 || chance(w_.p_expr_leaf)) return leaf(dt, s, divmod);
  const int d = depth - 1;
  if (chance(divmod ? w_.p_divmod_rule_shape : w_.p_rule_shape)) {
    if (UOp t = shape(dt, d, s, divmod)) return t;
  }
  auto sub_e = [&](DType t) { return expr(t, d, s, divmod); };
  if (dt.is_bool()) {
    switch (option(kBoolExprs)) {
      case BoolExpr::Compare: {
        DType in = one_of<DType>({ir::dtypes::Index, ir::dtypes::Int32, ir::dtypes::Float32});
        return alu(one_of<Op>({Op::CmpLt, Op::CmpNe, Op::CmpEq}), sub_e(in), sub_e(in));
      }
      case BoolExpr::Logic:
        return alu(one_of<Op>({Op::And, Op::Or, Op::Xor}), sub_e(dt), sub_e(dt));
      case BoolExpr::Where: return where(sub_e(dt), sub_e(dt), sub_e(dt));
      case BoolExpr::Cast: return cast(dt, sub_e(ir::dtypes::Int32));
      case BoolExpr::Leaf: return leaf(dt, s, divmod);
    }
  }
  if (dt.is_float()) {
    switch (option(kFloatExprs)) {
      case FloatExpr::Arith: {
        const Op op = one_of<Op>({Op::Add, Op::Sub, Op::Mul});
        return op == Op::Sub ? sub(sub_e(dt), sub_e(dt)) : alu(op, sub_e(dt), sub_e(dt));
      }
      case FloatExpr::MaxMin: return alu(one_of<Op>({Op::Max, Op::Min}), sub_e(dt), sub_e(dt));
      case FloatExpr::Neg: return neg(sub_e(dt));
      case FloatExpr::Where: return where(sub_e(ir::dtypes::Bool), sub_e(dt), sub_e(dt));
      case FloatExpr::Cast:
        return cast(dt, sub_e(one_of<DType>({ir::dtypes::Index, ir::dtypes::Int32})));
      case FloatExpr::Leaf: return leaf(dt, s, divmod);
    }
  }
  // index and int32
  switch (option(kIntExprs, divmod ? std::size(kIntExprs) : kSymbolicIntExprs)) {
    case IntExpr::Arith: return alu(one_of<Op>({Op::Add, Op::Sub, Op::Mul}), sub_e(dt), sub_e(dt));
    case IntExpr::MaxMin: return alu(one_of<Op>({Op::Max, Op::Min}), sub_e(dt), sub_e(dt));
    case IntExpr::Neg: return neg(sub_e(dt));
    case IntExpr::Divmod:
      return alu(one_of<Op>({Op::FloorDiv, Op::FloorMod, Op::Cdiv, Op::Cmod}), sub_e(dt),
                 chance(w_.p_const_divisor) || !wild_ok(s) ? divisor(dt) : sub_e(dt));
    case IntExpr::Where: return where(sub_e(ir::dtypes::Bool), sub_e(dt), sub_e(dt));
    case IntExpr::Convert:
      if (dt.is_index()) return to_index(sub_e(ir::dtypes::Int32));
      if (chance(w_.p_int_shift))
        return alu(one_of<Op>({Op::Shl, Op::Shr}), sub_e(dt), C(dt, between(0, 31)));
      return alu(one_of<Op>({Op::And, Op::Or, Op::Xor}), sub_e(dt), sub_e(dt));
    case IntExpr::Cast:
      return cast(dt, sub_e(dt.is_index() ? ir::dtypes::Int32 : ir::dtypes::Index));
  }
  return UOp();
}

InstanceBuilder::Nest InstanceBuilder::make_nest(int max_ranges, int64_t max_end, ir::AxisType t) {
  Nest n;
  n.lin = I(0);
  n.size = 1;
  const int k = static_cast<int>(below(max_ranges + 1));
  for (int i = 0; i < k; ++i) {
    End e =
        make_end(0, std::min<int64_t>(max_end, 64 / std::max<int64_t>(n.size, 1)), w_.p_var_end);
    UOp r = range(e.node, t);
    n.lin = i == 0 ? r : add(mul(n.lin, I(std::max<int64_t>(e.hi, 1))), r);
    n.size *= std::max<int64_t>(e.hi, 1);
    n.ranges.push_back(r);
  }
  return n;
}

void InstanceBuilder::symbolic_kernel(bool divmod) {
  if (chance(w_.p_symbolic_var))
    var(between(-4, 2), between(3, 9),
        chance(w_.p_var_multiple_of) ? std::optional<int64_t>(one_of<int64_t>({2, 4}))
                                     : std::nullopt);
  const int stores = 1 + static_cast<int>(below(2));
  for (int i = 0; i < stores; ++i) {
    Nest n = make_nest(2, divmod ? 12 : 8);
    bool may_be_empty = false;
    for (UOp r : n.ranges) may_be_empty |= !r.src(0).is_const() || r.src(0).const_value().i <= 0;
    Scope s{n.ranges, n.lin, may_be_empty};
    const int depth = 2 + static_cast<int>(below(3));
    DType dt = divmod ? one_of<DType>({ir::dtypes::Index, ir::dtypes::Index, ir::dtypes::Int32})
                      : one_of<DType>({ir::dtypes::Index, ir::dtypes::Int32, ir::dtypes::Float32,
                                       ir::dtypes::Bool});
    UOp v = expr(dt, depth, s, divmod);
    if (dt.is_int() && s.may_be_empty && policy_.zero_trip_hoisting && chance(w_.p_top_division)) {
      // A division by an expression that can be 0, at the top (nothing reads its bounds),
      // with a range-dependent term that folds away (r // 64, r - r, r * 0, min(r, 0)).
      Scope tame = s;
      tame.may_be_empty = false;
      UOp r = one_of(s.ranges);
      UOp vanish = one_of<UOp>(
          {alu(Op::FloorDiv, r, I(64)), sub(r, r), mul(r, I(0)), alu(Op::Min, r, I(0))});
      if (!dt.is_index()) vanish = cast(dt, vanish);
      UOp d0 =
          add(vanish, chance(w_.p_top_divisor_var) && !vars_.empty() ? cast(dt, one_of(vars_))
                                                                     : expr(dt, 1, tame, divmod));
      v = alu(one_of<Op>({Op::Cdiv, Op::Cmod, Op::FloorDiv}), v, d0);
    }
    DType out_dt = dt.is_index() ? ir::dtypes::Int64 : dt;
    if (dt.is_index()) v = cast(out_dt, v);
    UOp out = buffer(out_dt, n.size, true);
    effects_.push_back(end(store(out, n.lin, v), n.ranges));
  }
}

void InstanceBuilder::symbolic() {
  symbolic_kernel(false);
}
void InstanceBuilder::divmod() {
  symbolic_kernel(true);
}

}  // namespace uopfuzz::gen
