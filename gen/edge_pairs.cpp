// Edge pairs (GenPolicy::p_edge_pair, p_nested_divmod, p_index_multiple; EdgePairWeights): a
// constant at a boundary drawn together with a value whose declared window straddles it, so
// that whatever value a run draws sits on the boundary: integer-to-float rounding, integer
// limits, multiples of a divisor, special floats under each unary op, nested divmods; and
// the bounds of a VAR at an edge (GenPolicy::p_edge_var_bounds).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "gen/builder.h"
#include "gen/edge_values.h"

namespace uopfuzz::gen {

UOp Builder::guarded_int_cast(DType dt, UOp x) {
  const DType from = x.dtype();
  const int64_t lo =
      dt.kind() == DTypeKind::Unsigned ? 0 : std::max<int64_t>(dt.int_min(), -kFloatClamp);
  const int64_t hi = std::min<int64_t>(dt.int_max(), kFloatClamp);
  UOp clamped = alu(Op::Min, {alu(Op::Max, {x, cfloat(from, static_cast<double>(lo))}),
                              cfloat(from, static_cast<double>(hi))});
  return cast(dt, where(alu(Op::CmpNe, {x, x}), zero(from), clamped));
}

UOp Builder::as_dtype(DType dt, UOp x) {
  const DType from = x.dtype();
  if (from == dt) return x;
  if (from.is_float() && dt.is_int()) return guarded_int_cast(dt, x);
  if (from.is_index() && dt.is_bool()) return alu(Op::CmpNe, {x, I(0)});
  return cast(dt, x);
}

UOp Builder::window_value(DType dt, int64_t lo, int64_t hi, const Scope& s, int depth) {
  if (e_.chance(p_.edge_pairs.p_from_load)) {
    if (dt.is_index()) {
      // loaded indexes come from buffers of at most int32 (loaded_index falls back to it)
      if (lo >= std::numeric_limits<int32_t>::min() && hi <= std::numeric_limits<int32_t>::max())
        if (UOp l = loaded_index(s, depth, lo, hi)) return l;
    } else if (const int k = new_input(dt, false, lo, hi); k >= 0) {
      UOp at = index_expr(s, depth + 1);
      return load_at(k, at, s);
    }
  }
  return var(dt, lo, hi);
}

std::pair<int64_t, int64_t> Builder::edge_bounds(DType dt) {
  const int64_t k = e_.between(0, 7);
  enum class Edge : uint8_t { AtMax, AtMin, AboveZero, BelowZero };
  constexpr Edge kEdges[] = {Edge::AtMax, Edge::AtMin, Edge::AboveZero, Edge::BelowZero};
  switch (e_.option(kEdges)) {
    case Edge::AtMax: return {dt.int_max() - k, dt.int_max()};
    case Edge::AtMin:
      if (dt.int_min() < 0) return {dt.int_min(), dt.int_min() + k};
      [[fallthrough]];
    case Edge::AboveZero: return {1, 1 + k};
    case Edge::BelowZero:
      if (dt.int_min() < 0) return {-1 - k, -1};
      break;
  }
  return {dt.int_max() - k, dt.int_max()};
}

UOp Builder::edge_pair(DType dt, const Scope& s, int depth) {
  const auto& w = p_.edge_pairs;
  // int -> float rounding is inexact: with exact floats only the other pairs
  switch (
      e_.pick({p_.inexact_floats ? w.float_rounding : 0.0, w.limit, w.multiple, w.special_unary})) {
    case 0: return rounding_pair(dt, s, depth);
    case 1: return limit_pair(dt, s, depth);
    case 2: return multiple_pair(dt, s, depth);
    default: return special_unary(dt);
  }
}

UOp Builder::rounding_pair(DType dt, const Scope& s, int depth) {
  const auto& w = p_.edge_pairs;
  constexpr DType floats[] = {dtypes::Float16, dtypes::Float32, dtypes::Float64};
  const DType f = floats[e_.pick({w.rounding_float16, w.rounding_float32, w.rounding_float64})];
  const int p = f.bits() == 16 ? 11 : f.bits() == 32 ? 24 : 53;
  // 2^p + 1 is the first integer f cannot hold; float16 also overflows to inf from 65520 on
  const bool overflow = f.bits() == 16 && e_.chance(w.p_float16_overflow);
  const int64_t b = overflow ? 65520 : int64_t{1} << p;
  constexpr DType ints[] = {dtypes::Int16,  dtypes::Int32,  dtypes::Int64, dtypes::UInt16,
                            dtypes::UInt32, dtypes::UInt64, dtypes::Index};
  std::vector<DType> fit;  // the integer types holding the whole window
  for (DType t : ints)
    if (t.int_max() >= b + 3) fit.push_back(t);
  const DType it = fit[e_.below(fit.size())];
  const bool negative = it.int_min() < 0 && e_.chance(w.p_negative_window);
  const int64_t below = e_.between(0, 2);
  const int64_t above = e_.between(1, 3);  // b + 1 is always in: the first value that rounds
  UOp x = window_value(it, negative ? -(b + above) : b - below, negative ? -(b - below) : b + above,
                       s, depth);
  UOp fx = cast(f, x);
  // the boundary as f holds it (65520 is inf in float16: compare with its largest finite)
  const double edge = overflow ? 65504.0 : static_cast<double>(negative ? -b : b);
  if (dt.is_bool()) {
    constexpr Op cmps[] = {Op::CmpLt, Op::CmpNe, Op::CmpEq};
    const Op op = cmps[e_.below(3)];
    UOp other;
    if (e_.chance(w.p_rounding_neighbour)) {  // f(x) against f(x + 1): equal where both round to
                                              // one value
      other = cast(f, alu(Op::Add, {x, cint(it, 1)}));
    } else {
      const double j = static_cast<double>(e_.between(-1, 2));
      other = cfloat(f, edge + j);
    }
    return e_.coin() ? alu(op, {fx, other}) : alu(op, {other, fx});
  }
  if (!overflow && e_.chance(w.p_round_trip)) {
    // the round trip minus x: 0 where f holds x, else the rounding. No NaN guard: the float
    // is an integer within a few units of x, which the integer type holds.
    const DType j = it.is_index() ? dtypes::Int64 : it;
    return as_dtype(dt, alu(Op::Sub, {cast(j, fx), as_dtype(j, x)}));
  }
  return as_dtype(dt, alu(Op::Sub, {fx, cfloat(f, edge)}));
}

UOp Builder::limit_pair(DType dt, const Scope& s, int depth) {
  const auto& wp = p_.edge_pairs;
  const DType it = dt.is_int() && e_.chance(wp.p_limit_own_dtype) ? dt : pick_int_dtype();
  const IntRange r = declarable_range(it);
  constexpr Op ops[] = {Op::Add, Op::Sub, Op::Mul};
  const Op op = ops[e_.below(3)];
  const bool is_signed = r.lo < 0;
  const bool at_max = is_signed ? e_.coin() : op != Op::Sub;  // either limit
  __int128 c = 0;
  if (op == Op::Mul) {
    c = e_.chance(wp.p_small_factor) ? __int128{e_.between(2, 7)}
                                     : __int128{1} << e_.between(1, r.bits - 2);
    if (is_signed && e_.chance(wp.p_negative_factor)) c = -c;
  } else {
    enum class Step : uint8_t { Small, PowerOfTwo, MostOfTheRange };
    constexpr Step kSteps[] = {Step::Small, Step::PowerOfTwo, Step::MostOfTheRange};
    switch (e_.option(kSteps)) {
      case Step::Small: c = e_.between(1, 8); break;
      case Step::PowerOfTwo: c = __int128{1} << e_.between(1, r.bits - 2); break;
      case Step::MostOfTheRange: c = r.hi - e_.between(0, 3); break;
    }
    if ((op == Op::Add) != at_max) c = -c;  // the sign that moves the result to the limit
  }
  const int inside = static_cast<int>(e_.between(0, 2));
  const int past = static_cast<int>(e_.between(0, 2));  // 0: touches the limit, no wrap
  const auto w = limit_window(r, op, c, at_max, inside, past);
  if (!w) return UOp();
  UOp x = window_value(it, static_cast<int64_t>(w->lo), static_cast<int64_t>(w->hi), s, depth);
  UOp v = alu(op, {x, cint(it, as_const_bits(c))});
  const auto limit = static_cast<int64_t>(at_max ? r.hi : r.lo);
  const int64_t bounds[] = {limit, at_max ? limit - 1 : limit + 1,
                            static_cast<int64_t>(at_max ? r.lo : r.hi), 0};
  UOp k = cint(it, bounds[e_.below(std::size(bounds))]);
  if (dt.is_bool()) return e_.coin() ? lt(v, k) : lt(k, v);
  if (dt == it) {
    enum class Use : uint8_t { Itself, MaxWithBound, MinWithBound };
    constexpr Use kUses[] = {Use::Itself, Use::MaxWithBound, Use::MinWithBound};
    switch (e_.option(kUses)) {
      case Use::Itself: return v;
      case Use::MaxWithBound: return alu(Op::Max, {v, k});
      case Use::MinWithBound: return alu(Op::Min, {v, k});
    }
  }
  return as_dtype(dt, v);
}

UOp Builder::multiple_pair(DType dt, const Scope& s, int depth) {
  const auto& w = p_.edge_pairs;
  const DType it = dt.is_int() && e_.chance(w.p_multiple_own_dtype) ? dt : pick_int_dtype();
  const IntRange r = declarable_range(it);
  const bool is_signed = r.lo < 0;
  __int128 c = -1, center = r.lo;  // INT_MIN / -1: wraps to INT_MIN, the remainder is 0
  if (!is_signed || !e_.chance(w.p_min_by_minus_one)) {
    constexpr int64_t small[] = {1, 2, 3, 4, 5, 7, 8, 16};
    c = e_.chance(w.p_small_divisor) ? __int128{small[e_.below(std::size(small))]}
                                     : __int128{1} << e_.between(5, r.bits - 2);
    if (is_signed && e_.chance(w.p_negative_divisor)) c = -c;
    const __int128 mag = c < 0 ? -c : c;
    if (e_.chance(w.p_multiple_near_limit)) {  // the multiple nearest a limit
      center = (!is_signed || e_.coin() ? r.hi : r.lo) / mag * mag;
    } else {
      center = e_.between(is_signed ? -3 : 0, 3) * mag;
    }
    // 3 * 2^30 is past int32: the multiple stays one the dtype holds (else the window is empty)
    center = std::clamp(center, r.lo / mag * mag, r.hi / mag * mag);
  }
  const int64_t below = e_.between(0, 2);
  const int64_t above = e_.between(below == 0 ? 1 : 0, 2);
  const __int128 lo = std::max(r.lo, center - below), hi = std::min(r.hi, center + above);
  UOp x = window_value(it, static_cast<int64_t>(lo), static_cast<int64_t>(hi), s, depth);
  UOp cn = cint(it, static_cast<int64_t>(c));
  constexpr Op ops[] = {Op::Cdiv, Op::Cmod, Op::FloorDiv, Op::FloorMod};
  const Op op = ops[e_.below(std::size(ops))];
  if (e_.chance(w.p_recombined)) {  // (x//c)*c + x%c, in the rounding of op: x again
    const bool floor = op == Op::FloorDiv || op == Op::FloorMod;
    UOp q = alu(floor ? Op::FloorDiv : Op::Cdiv, {x, cn});
    UOp m = alu(floor ? Op::FloorMod : Op::Cmod, {x, cn});
    return as_dtype(dt, alu(Op::Add, {alu(Op::Mul, {q, cn}), m}));
  }
  return as_dtype(dt, alu(op, {x, cn}));
}

UOp Builder::special_unary(DType dt) {
  constexpr DType floats[] = {dtypes::Float16, dtypes::Float32, dtypes::Float64};
  const auto& w = p_.edge_pairs;
  const DType f = dt.is_float() && e_.chance(w.p_special_own_dtype)
                      ? dt
                      : floats[e_.pick({w.special_float16, w.special_float32, w.special_float64})];
  // With exact floats: no inf or NaN, no transcendental, no cast that rounds.
  const bool inexact = p_.inexact_floats;
  const double t = inexact ? 1.0 : 0.0;
  const SpecialUnaryWeights& o = w.special_ops;
  // NEG, TRUNC, RECIPROCAL, SQRT, EXP2, LOG2, SIN, CAST to a float, CAST to bool, BITCAST to
  // an integer, CAST to an integer (guarded), an integer limit under a CAST to the float
  const size_t kind =
      e_.pick({o.neg, o.trunc, t * o.reciprocal, t * o.sqrt, t * o.exp2, t * o.log2, t * o.sin,
               t * o.cast_float, o.cast_bool, o.bitcast_int, o.cast_int, t * o.int_limit});
  auto special = [&](bool nan_ok) {
    std::vector<SpecialFloat> allowed;
    for (int i = 0; i < kSpecialFloats; ++i) {
      const auto sf = static_cast<SpecialFloat>(i);
      const bool nonfinite =
          sf == SpecialFloat::Inf || sf == SpecialFloat::NegInf || sf == SpecialFloat::NaN;
      if ((nonfinite && !inexact) || (sf == SpecialFloat::NaN && !nan_ok)) continue;
      allowed.push_back(sf);
    }
    return cfloat(f, special_float(allowed[e_.below(allowed.size())], f));
  };
  switch (kind) {
    case 0: return as_dtype(dt, mk(Op::Neg, f, {special(true)}));
    case 1: return as_dtype(dt, mk(Op::Trunc, f, {special(true)}));
    case 2:
    case 3:
    case 4:
    case 5:
    case 6: {
      constexpr Op ops[] = {Op::Reciprocal, Op::Sqrt, Op::Exp2, Op::Log2, Op::Sin};
      return as_dtype(dt, mk(ops[kind - 2], f, {special(true)}));
    }
    case 7: {  // to any float, f itself included (a CAST to its own dtype)
      const DType to = floats[e_.below(std::size(floats))];
      UOp c = special(true);
      return as_dtype(dt, n_.cast(to, c));
    }
    case 8: return as_dtype(dt, n_.cast(dtypes::Bool, special(true)));
    case 9: {                            // a NaN bitcast to an integer is UB
      const bool is_signed = e_.coin();  // either integer of the size
      const DType to = f.bits() == 16   ? (is_signed ? dtypes::Int16 : dtypes::UInt16)
                       : f.bits() == 32 ? (is_signed ? dtypes::Int32 : dtypes::UInt32)
                                        : (is_signed ? dtypes::Int64 : dtypes::UInt64);
      return as_dtype(dt, mk(Op::Bitcast, to, {special(false)}));
    }
    case 10: {  // a float -> int CAST of NaN or out of range is UB: through the guard
      const DType to = pick_int_dtype();
      return as_dtype(dt, guarded_int_cast(to, special(true)));
    }
    default: {  // an integer limit (or its neighbour) to a float: 2^64 - 1 rounds, 65535 overflows
                // float16
      const DType from = pick_int_dtype();
      const IntRange r = int_range(from);
      const __int128 v =
          (r.lo == 0 || e_.coin() ? r.hi : r.lo) + (e_.chance(w.p_limit_itself) ? 0 : -1);
      return as_dtype(dt, cast(f, cint(from, as_const_bits(std::max(r.lo, v)))));
    }
  }
}

UOp Builder::nested_divmod(const Scope& s, int depth, bool leafy) {
  const auto& w = p_.nested_divmod;
  const DivmodShape shape = draw_divmod_shape(e_, w);
  const DivisorPair d = draw_divisor_pair(e_, w);
  UOp x;
  if (leafy || e_.chance(w.p_window)) {
    // a window around a multiple of both (maybe 0: x of both signs) wide enough that x % a
    // keeps more than one period, so the inner op does not fold by x's bounds alone
    const int64_t l = std::abs(d.a * d.b);
    const int64_t center = e_.between(-2, 3) * l;
    const int64_t width = std::max(std::abs(d.a), std::abs(d.b));
    const int64_t below = e_.between(1, width);
    const int64_t above = e_.between(1, width);
    x = var(dtypes::Index, center - below, center + above);
  } else {
    x = index_expr(s, depth + 1);
    if (!tame(x)) return x;  // an edge operand: x * a or x + a could overflow
  }
  auto op = [&](bool div) {
    const bool c = e_.chance(w.p_c_rounding);
    return div ? (c ? Op::Cdiv : Op::FloorDiv) : (c ? Op::Cmod : Op::FloorMod);
  };
  UOp a = I(d.a), b = I(d.b);
  UOp inner;
  bool outer_div = true;
  switch (shape) {
    case DivmodShape::DivDiv: inner = alu(op(true), {x, a}); break;
    case DivmodShape::ModMod: inner = alu(op(false), {x, a}), outer_div = false; break;
    case DivmodShape::DivMod: inner = alu(op(true), {x, a}), outer_div = false; break;
    case DivmodShape::ModDiv: inner = alu(op(false), {x, a}); break;
    case DivmodShape::MulDiv: inner = alu(Op::Mul, {x, a}); break;
    case DivmodShape::MulMod: inner = alu(Op::Mul, {x, a}), outer_div = false; break;
    case DivmodShape::AddDiv: inner = alu(Op::Add, {x, a}); break;
    case DivmodShape::AddMod: inner = alu(Op::Add, {x, a}), outer_div = false; break;
  }
  // No bounds check of the result: the analysis gives up on negative divisors (full range),
  // while the values stay within |x| * 32 + 32 (|x| <= max_index_magnitude, checked above).
  return alu(op(outer_div), {inner, b});
}

UOp Builder::index_multiple(const Scope& s, int depth) {
  constexpr int64_t small[] = {1, 2, 3, 4, 5, 7, 8, 16};
  int64_t c = small[e_.below(std::size(small))];
  if (e_.chance(p_.edge_pairs.p_index_multiple_negative)) c = -c;
  // k*c small (x of both signs near 0), or the multiple nearest +-max_index_magnitude
  const int64_t m = p_.max_index_magnitude;
  int64_t center = e_.between(-3, 3) * c;
  if (e_.chance(p_.edge_pairs.p_index_multiple_near_limit)) center = (e_.coin() ? m : -m) / c * c;
  const int64_t below = e_.between(0, 2);
  const int64_t above = e_.between(below == 0 ? 1 : 0, 2);
  UOp x = window_value(dtypes::Index, center - below, center + above, s, depth);
  constexpr Op ops[] = {Op::FloorDiv, Op::FloorMod, Op::Cmod, Op::Cdiv};
  const Op op = ops[e_.below(std::size(ops))];
  // x is within two of +-max_index_magnitude: no bounds check of the result (the analysis
  // gives up on negative divisors)
  return alu(op, {x, I(c)});
}

}  // namespace uopfuzz::gen
