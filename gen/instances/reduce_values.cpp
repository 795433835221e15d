// The reduce families' shared pieces: values that hold no reduce range, bounds, the
// store around a reduction, and the window conditions and values of bound sums.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>

#include "gen/instances/builder.h"

namespace uopfuzz::gen {

namespace {
/// A value free of the reduce range.
enum class RangeFree : uint8_t {
  Constant,          ///< exact_const()
  LoadAtOuter,       ///< in[i]
  OuterPlusConst,    ///< i + c
  VarOrScaledOuter,  ///< a VAR (integers), else (i + 1) * c
  LoadAtZero,        ///< in[0]
};
constexpr RangeFree kRangeFreeValues[] = {RangeFree::Constant, RangeFree::LoadAtOuter,
                                          RangeFree::OuterPlusConst, RangeFree::VarOrScaledOuter,
                                          RangeFree::LoadAtZero};
/// An index bound free of ranges (maybe below 0 or past the end).
enum class Bound : uint8_t { Constant, Var, Loaded };
constexpr Bound kBounds[] = {Bound::Constant, Bound::Constant, Bound::Var, Bound::Loaded};
/// A window's condition on r.
enum class WindowCond : uint8_t {
  Upper,          ///< r < U
  Lower,          ///< !(r < L)
  LowerAndUpper,  ///< !(r < L) & (r < U)
  UpperAndLower,  ///< (r < U) & !(r < L)
  Swapped,        ///< L < r: not one of the bound forms
};
constexpr WindowCond kWindowConds[] = {WindowCond::Upper,         WindowCond::Upper,
                                       WindowCond::Lower,         WindowCond::LowerAndUpper,
                                       WindowCond::UpperAndLower, WindowCond::Swapped};
/// A window's value under its condition.
enum class WindowValue : uint8_t {
  WhereValue,  ///< where(cond, v, 0)
  WhereZero,   ///< where(cond, 0, v)
  TimesCast,   ///< v * cast(cond)
  CastTimes,   ///< cast(cond) * v
};
constexpr WindowValue kWindowValues[] = {WindowValue::WhereValue, WindowValue::WhereValue,
                                         WindowValue::WhereZero, WindowValue::TimesCast,
                                         WindowValue::CastTimes};
}  // namespace

ir::DType InstanceBuilder::reduce_dtype() {
  return one_of<DType>(
      {ir::dtypes::Int32, ir::dtypes::Int32, ir::dtypes::Float32, ir::dtypes::Int64});
}
ir::UOp InstanceBuilder::exact_const(DType dt) {
  if (dt.is_float()) {
    if (policy_.float_inexact_sums && chance(w_.p_inexact_sum_const))
      return F(dt, one_of<double>({0.1, 1e30, 0.3}));
    if (policy_.float_edge_values && chance(w_.p_float_edge_const))
      return F(dt, one_of<double>({-0.0, INFINITY, -INFINITY, NAN, 3e38, -1.5e38}));
    return F(dt, static_cast<double>(between(-24, 24)) / 8.0);
  }
  return C(dt, between(-6, 9));
}
/// A value of `dt` that holds no reduce range: outer range i, VARs, loads, constants.
ir::UOp InstanceBuilder::range_free(DType dt, UOp i) {
  switch (option(kRangeFreeValues)) {
    case RangeFree::Constant: return exact_const(dt);
    case RangeFree::LoadAtOuter:
      return dt.is_float() ? load(in_f32(), i) : cast(dt, load(in_i32(), i));
    case RangeFree::OuterPlusConst: return add(cast(dt, i), exact_const(dt));
    case RangeFree::VarOrScaledOuter:
      if (!vars_.empty() && !dt.is_float()) return cast(dt, one_of(vars_));
      return mul(cast(dt, add(i, I(1))), exact_const(dt));
    case RangeFree::LoadAtZero: break;
  }
  return dt.is_float() ? load(in_f32(), I(0)) : cast(dt, load(in_i32(), I(0)));
}
/// An index bound that holds no range: CONST, VAR or a loaded value, any of them
/// possibly below 0 or above the end.
ir::UOp InstanceBuilder::bound(int64_t n, UOp i) {
  switch (option(kBounds)) {
    case Bound::Constant: return I(between(-2, n + 3));
    case Bound::Var: return var(between(-3, 0), n + between(0, 4));
    case Bound::Loaded: break;
  }
  UOp b = buffer(ir::dtypes::Int32, kInSize, false, -3, n + 3);
  return to_index(load(b, i));
}
/// The store around a reduction: out[i] over an outer loop of 1..3, or out[0].
void InstanceBuilder::store_per_outer(DType dt, const std::function<UOp(UOp i)>& make_value) {
  if (chance(w_.p_scalar_output)) {
    UOp out = buffer(dt, 1, true);
    effects_.push_back(store(out, I(0), make_value(I(0))));
    return;
  }
  End oe = make_end(1, 3, kNeverVar);
  UOp i = range(oe.node);
  UOp out = buffer(dt, oe.hi, true);
  effects_.push_back(end(store(out, i, make_value(i)), {i}));
}
InstanceBuilder::End InstanceBuilder::reduce_end(int64_t hi) {
  End e = make_end(0, hi, w_.p_var_end);
  return e;
}

ir::UOp InstanceBuilder::window_cond(UOp r, int64_t n, UOp i) {
  UOp U = bound(n, i), L = bound(n, i);
  switch (option(kWindowConds)) {
    case WindowCond::Upper: return lt(r, U);
    case WindowCond::Lower: return bnot(lt(r, L));
    case WindowCond::LowerAndUpper: return band(bnot(lt(r, L)), lt(r, U));
    case WindowCond::UpperAndLower: return band(lt(r, U), bnot(lt(r, L)));
    case WindowCond::Swapped: break;
  }
  return lt(L, r);  // not one of the bound forms
}
ir::UOp InstanceBuilder::window_value(UOp cond, UOp v) {
  const DType dt = v.dtype();
  switch (option(kWindowValues)) {
    case WindowValue::WhereValue: return where(cond, v, zero(dt));
    case WindowValue::WhereZero: return where(cond, zero(dt), v);
    case WindowValue::TimesCast: return mul(v, cast(dt, cond));  // x * gate.cast()
    case WindowValue::CastTimes: break;
  }
  return mul(cast(dt, cond), v);
}

}  // namespace uopfuzz::gen
