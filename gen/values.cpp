// The Builder's values (builder.h): constants, index expressions, loads, and the unary,
// cast and binary nodes of an expression, with the rule families at some positions.
//
// Determinism across compilers: the order in which a function's arguments are evaluated
// is unspecified, so no call here has two arguments that draw entropy or count toward
// the size budget (braced lists are evaluated left to right and may); such calls go to
// named locals first. Node helpers (mk, alu, I, ...) draw nothing and count nothing.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "gen/builder.h"
#include "gen/edge_values.h"
#include "ir/analysis.h"
#include "ir/graph.h"
#include "ir/rewrite.h"

namespace uopfuzz::gen {

UOp Builder::constant(DType dt) {
  if (dt.is_bool()) return ctx_.const_bool(e_.chance(0.5));
  if (dt.is_float()) {
    if (e_.chance(p_.p_float_edge_const))
      return cfloat(dt, edge_float(e_, p_.float_edges, dt, p_.inexact_floats));
    if (p_.inexact_floats && e_.chance(p_.p_inexact_const)) {
      constexpr double odd[] = {0.1, 1.0 / 3, 1e30, -1e30, 65519.0, 1e-8};
      const double special[] = {std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN()};
      if (e_.chance(p_.p_special_const)) return cfloat(dt, special[e_.below(3)]);
      return cfloat(dt, odd[e_.below(std::size(odd))]);
    }
    if (e_.chance(p_.p_float_negative_zero)) return cfloat(dt, -0.0);
    return cfloat(dt, static_cast<double>(e_.between(-64, 64)) / 8.0);
  }
  if (e_.chance(p_.p_int_edge_const)) return cint(dt, edge_int_of(dt));
  if (dt.kind() == DTypeKind::Unsigned) return cint(dt, e_.between(0, 16));
  return cint(dt, e_.between(-8, 8));
}

int64_t Builder::edge_int_of(DType dt) {
  std::optional<__int128> partner;
  if (auto it = last_edge_.find(dt.scalar()); it != last_edge_.end()) partner = it->second;
  const __int128 v = edge_int(e_, p_.int_edges, int_range(dt), partner,
                              dt.is_index() ? p_.max_index_magnitude : 0);
  last_edge_[dt.scalar()] = v;
  return as_const_bits(v);
}

UOp Builder::index_operand(bool& edge) {
  edge = e_.chance(p_.p_index_edge_const);
  return edge ? I(edge_int_of(dtypes::Index)) : I(e_.between(-3, 4));
}

UOp Builder::overflowing_pair(UOp a) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const int64_t d = e_.between(0, 3);
  const Interval b = bnd(a);
  if (b.hi <= -1 || (b.lo < 1 && e_.chance(0.5))) {  // x <= -1: (x + MAX-d) + (1+d)
    UOp x = b.hi <= -1 ? a : alu(Op::Min, {a, I(-1)});
    return alu(Op::Add, {alu(Op::Add, {x, I(kMax - d)}), I(1 + d)});
  }
  UOp x = b.lo >= 1 ? a : alu(Op::Max, {a, I(1)});  // x >= 1: (x + MIN+d) + (-1-d)
  return alu(Op::Add, {alu(Op::Add, {x, I(kMin + d)}), I(-1 - d)});
}

std::pair<int64_t, int64_t> Builder::edge_bounds(DType dt) {
  const int64_t k = e_.between(0, 7);
  switch (e_.below(4)) {
    case 0: return {dt.int_max() - k, dt.int_max()};
    case 1:
      if (dt.int_min() < 0) return {dt.int_min(), dt.int_min() + k};
      [[fallthrough]];
    case 2: return {1, 1 + k};
    default:
      if (dt.int_min() < 0) return {-1 - k, -1};
      return {dt.int_max() - k, dt.int_max()};
  }
}

UOp Builder::range_leaf(const Scope& s) {
  if (s.ranges.empty()) return I(e_.between(0, 3));
  UOp r;
  if (s.focus && e_.chance(p_.p_focus_range))
    r = s.focus;
  else if (s.flat && s.ranges.size() >= 2 && e_.chance(p_.p_value_uses_flat))
    return s.flat;
  else
    r = s.ranges[e_.below(s.ranges.size())];
  if (!e_.chance(p_.p_range_mod)) return r;
  UOp end = r.src(0);
  int64_t c = e_.between(2, 5);
  if (end.is_const() && end.const_value().i >= 2 && e_.chance(p_.p_mod_divisible)) {
    const int64_t n = end.const_value().i;
    std::vector<int64_t> divisors;
    for (int64_t d = 2; d <= n; ++d)
      if (n % d == 0) divisors.push_back(d);
    c = divisors[e_.below(divisors.size())];
  }
  constexpr Op ops[] = {Op::FloorMod, Op::Cmod, Op::FloorDiv};
  const auto& w = p_.range_ops;
  return alu(ops[e_.pick({w.floormod, w.cmod, w.floordiv})], {r, I(c)});
}

UOp Builder::index_expr(const Scope& s, int depth) {
  ++positions_;
  const bool leafy = depth >= p_.max_expr_depth || !budget_left();
  // edge pairs at any index position: most are leaves (ranges), compounds are rare
  if (e_.chance(p_.p_nested_divmod)) return nested_divmod(s, depth, leafy);
  if (e_.chance(p_.p_index_multiple)) return index_multiple(s, depth);
  if (!leafy && e_.chance(p_.p_dynamic_index)) {
    if (UOp d = loaded_index(s, depth, 0, e_.between(1, 15))) return d;
  }
  const auto& w = p_.index;
  switch (e_.pick({s.ranges.empty() ? 0.0 : w.range, w.constant, leafy ? 0.0 : w.compound, w.var,
                   leafy ? 0.0 : w.cast_value})) {
    case 0: return range_leaf(s);
    case 1: return I(e_.between(0, 7));
    case 2: {
      UOp a = index_expr(s, depth + 1);
      bool edge = false;
      UOp b = e_.chance(w.p_const_operand) ? index_operand(edge) : index_expr(s, depth + 1);
      constexpr Op ops[] = {Op::Add, Op::Sub,      Op::Mul,      Op::Max,
                            Op::Min, Op::FloorDiv, Op::FloorMod, Op::Cmod};
      Op op = ops[e_.pick({w.add, w.sub, w.mul, w.max, w.min, w.floordiv, w.floormod, w.cmod})];
      if (op == Op::Mul && !edge && e_.chance(w.p_const_operand)) b = I(e_.between(2, 4));
      if (op == Op::FloorDiv || op == Op::FloorMod || op == Op::Cmod) {
        // an edge divisor stays positive (a negative one could make INT64_MIN // -1)
        const int64_t c = edge ? b.const_value().i : 0;
        b = c >= 2                                                ? b
            : c <= -2 && c != std::numeric_limits<int64_t>::min() ? I(-c)
                                                                  : I(e_.between(2, 6));
      }
      if (edge && op == Op::Add && e_.chance(p_.p_index_overflowing_pair))
        return overflowing_pair(a);
      if (edge)  // moved to the nearest constant that keeps every value of a op b in range
        if (auto safe = safe_index_operand(op, bnd(a), b.const_value().i)) b = I(*safe);
      UOp u = alu(op, {a, b});
      // Edge constants (and values already past max_index_magnitude) are kept wherever the
      // interval analysis proves that no value overflows: that is where folding them meets
      // the index range's limits.
      const bool wide = edge || !tame(a) || !tame(b);
      return tame(u) || (wide && bnd(u) != dtype_interval(dtypes::Index)) ? u : a;
    }
    case 3: {
      if (e_.chance(p_.p_edge_var_bounds)) {
        const auto [lo, hi] = edge_bounds(dtypes::Index);
        return var(dtypes::Index, lo, hi);
      }
      return var(dtypes::Index, 0, e_.between(1, 7));
    }
    default: {  // an integer value, clamped, as an index
      const DType dt = pick_int_dtype();
      return clamp_to_index(value(dt, s, depth + 1));
    }
  }
}

DType Builder::pick_int_dtype() {
  double w[std::size(kBufferTypes)];
  for (size_t i = 0; i < std::size(kBufferTypes); ++i)
    w[i] = kBufferTypes[i].is_int() ? p_.dtypes.of(kBufferTypes[i]) : 0;
  DType dt = kBufferTypes[e_.pick(w)];
  return dt.is_int() ? dt : dtypes::Int32;
}

UOp Builder::clamp_to_index(UOp x) {
  Interval b = bnd(x);
  if (b.lo < -kIndexLeafBound || b.hi > kIndexLeafBound) {
    const DType dt = x.dtype();
    x = alu(Op::Min, {x, cint(dt, kIndexLeafBound)});
    if (dt.kind() != DTypeKind::Unsigned) x = alu(Op::Max, {x, cint(dt, -kIndexLeafBound)});
  }
  return cast(dtypes::Index, x);
}

UOp Builder::loaded_index(const Scope& s, int depth, int64_t lo, int64_t hi) {
  constexpr DType types[] = {dtypes::Int32, dtypes::Int64, dtypes::Int16, dtypes::UInt8,
                             dtypes::UInt32};
  const auto& w = p_.index_buffers;
  DType dt = types[e_.pick({w.int32, w.int64, w.int16, w.uint8, w.uint32})];
  if (lo < dt.int_min() || hi > dt.int_max()) dt = dtypes::Int32;  // large graphs' indexes
  const int k = new_input(dt, true, lo, hi);
  if (k < 0) return UOp();
  UOp at = index_expr(s, depth + 1);
  return cast(dtypes::Index, load_at(k, at, s));
}

UOp Builder::load(DType dt, const Scope& s, int depth) {
  const int k = data_input(dt);
  if (k < 0) return constant(dt);
  return load_at(k, index_expr(s, depth + 1), s);
}

UOp Builder::leaf(DType dt, const Scope& s, int depth) {
  const auto& w = p_.leaves;
  switch (e_.pick({w.constant, w.load, s.ranges.empty() ? 0.0 : w.range, dt.is_int() ? w.var : 0.0,
                   dt.is_float() ? w.float_var : 0.0})) {
    case 0: return constant(dt);
    case 1: return load(dt, s, depth);
    case 2: {
      UOp r = range_leaf(s);
      if (dt.is_bool()) return lt(r, I(e_.between(0, 6)));
      return cast(dt, r);
    }
    case 4: {
      // CAST(v) for v in [lo, hi], scaled or shifted by a constant every float type holds
      // exactly: a float variable with fractional bounds in the simplifier's IR.
      constexpr double kExact[] = {0.5, 0.25, -0.5, 1.5};
      UOp v = cast(dt, var(dtypes::Int32, -e_.between(0, 8), e_.between(0, 8)));
      switch (e_.below(3)) {
        case 0: return v;
        case 1: return alu(Op::Mul, {v, cfloat(dt, kExact[e_.below(4)])});
        default: return alu(Op::Add, {v, cfloat(dt, kExact[e_.below(4)])});
      }
    }
    default: {
      if (e_.chance(p_.p_edge_var_bounds)) {
        const auto [lo, hi] = edge_bounds(dt);
        return var(dt, lo, hi);
      }
      if (dt.kind() == DTypeKind::Unsigned) return var(dt, 0, e_.between(0, 16));
      const int64_t lo = -e_.between(0, 8);
      return var(dt, lo, e_.between(0, 8));
    }
  }
}

UOp Builder::value(DType dt, const Scope& s, int depth) {
  ++positions_;
  if (depth >= p_.max_expr_depth || !budget_left()) return leaf(dt, s, depth);
  if (dt.is_float() && e_.chance(p_.p_dequantize)) return dequantize(dt, s, depth);
  if (!dt.is_bool() && end_budget(s) >= min_end())
    if (UOp u = family(dt, s, depth)) return u;
  if (e_.chance(p_.p_edge_pair))  // after the rule families: a knob of theirs keeps its share
    if (UOp u = edge_pair(dt, s, depth)) return u;
  const auto& w = p_.exprs;
  switch (
      e_.pick({w.leaf, w.unary, w.binary, w.where,
               end_budget(s) < min_end()
                   ? 0.0
                   : w.reduce * (dt.is_bool() ? p_.reduce_ops.any + p_.reduce_ops.all : 1.0)})) {
    case 0: return leaf(dt, s, depth);
    case 1: return unary(dt, s, depth);
    case 2: return binary(dt, s, depth);
    case 3: {
      UOp c = value(dtypes::Bool, s, depth + 1);
      UOp a = value(dt, s, depth + 1);
      return where(c, a, value(dt, s, depth + 1));
    }
    default: return reduce(dt, s, depth);
  }
}

UOp Builder::unary(DType dt, const Scope& s, int depth) {
  const bool fl = dt.is_float(), in = dt.is_int();
  const bool bitcast_ok = !dt.is_bool() && (fl ? p_.inexact_floats : true);
  const auto& w = p_.unary;
  switch (e_.pick({fl || in ? w.neg : 0.0, w.cast, bitcast_ok ? w.bitcast : 0.0, fl ? w.trunc : 0.0,
                   fl && p_.inexact_floats ? w.transcendental : 0.0})) {
    case 0: return mk(Op::Neg, dt, {value(dt, s, depth + 1)});
    case 1: return cast_from_other(dt, s, depth);
    case 2: {  // BITCAST from the other type of this size
      DType from = bitcast_partner(dt);
      UOp x = value(from, s, depth + 1);
      if (from.is_float()) x = where(alu(Op::CmpNe, {x, x}), zero(from), x);  // a NaN would be UB
      return mk(Op::Bitcast, dt, {x});
    }
    case 3: return mk(Op::Trunc, dt, {value(dt, s, depth + 1)});
    default: {
      constexpr Op ops[] = {Op::Reciprocal, Op::Sqrt, Op::Exp2, Op::Log2, Op::Sin};
      const Op op = ops[e_.below(5)];
      return mk(op, dt, {value(dt, s, depth + 1)});
    }
  }
}

DType Builder::bitcast_partner(DType dt) {
  switch (dt.bytes()) {
    case 1: return dt == dtypes::Int8 ? dtypes::UInt8 : dtypes::Int8;
    case 2: {
      constexpr DType c[] = {dtypes::Int16, dtypes::UInt16, dtypes::Float16};
      DType o = c[e_.below(3)];
      return o == dt ? (dt == dtypes::Int16 ? dtypes::UInt16 : dtypes::Int16) : o;
    }
    case 4: {
      constexpr DType c[] = {dtypes::Int32, dtypes::UInt32, dtypes::Float32};
      DType o = c[e_.below(3)];
      return o == dt ? (dt == dtypes::Int32 ? dtypes::UInt32 : dtypes::Int32) : o;
    }
    default: {
      constexpr DType c[] = {dtypes::Int64, dtypes::UInt64, dtypes::Float64};
      DType o = c[e_.below(3)];
      return o == dt ? (dt == dtypes::Int64 ? dtypes::UInt64 : dtypes::Int64) : o;
    }
  }
}

UOp Builder::cast_from_other(DType dt, const Scope& s, int depth) {
  if (e_.chance(p_.p_cast_from_index)) {
    UOp i = index_expr(s, depth + 1);
    return dt.is_bool() ? lt(i, I(e_.between(0, 6))) : cast(dt, i);
  }
  const DType from = pick_other_dtype(dt);
  UOp x = value(from, s, depth + 1);
  if (from.is_float() && dt.is_int()) return guarded_int_cast(dt, x);
  return cast(dt, x);
}

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

// ---------------------------------------------------------------- edge pairs

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
  constexpr DType floats[] = {dtypes::Float16, dtypes::Float32, dtypes::Float64};
  const DType f = floats[e_.pick({0.5, 2.0, 1.5})];
  const int p = f.bits() == 16 ? 11 : f.bits() == 32 ? 24 : 53;
  // 2^p + 1 is the first integer f cannot hold; float16 also overflows to inf from 65520 on
  const bool overflow = f.bits() == 16 && e_.chance(0.3);
  const int64_t b = overflow ? 65520 : int64_t{1} << p;
  constexpr DType ints[] = {dtypes::Int16,  dtypes::Int32,  dtypes::Int64, dtypes::UInt16,
                            dtypes::UInt32, dtypes::UInt64, dtypes::Index};
  std::vector<DType> fit;  // the integer types holding the whole window
  for (DType t : ints)
    if (t.int_max() >= b + 3) fit.push_back(t);
  const DType it = fit[e_.below(fit.size())];
  const bool negative = it.int_min() < 0 && e_.chance(0.3);
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
    if (e_.chance(0.3)) {  // f(x) against f(x + 1): equal where both round to one value
      other = cast(f, alu(Op::Add, {x, cint(it, 1)}));
    } else {
      const double j = static_cast<double>(e_.between(-1, 2));
      other = cfloat(f, edge + j);
    }
    return e_.chance(0.5) ? alu(op, {fx, other}) : alu(op, {other, fx});
  }
  if (!overflow && e_.chance(0.5)) {
    // the round trip minus x: 0 where f holds x, else the rounding. No NaN guard: the float
    // is an integer within a few units of x, which the integer type holds.
    const DType j = it.is_index() ? dtypes::Int64 : it;
    return as_dtype(dt, alu(Op::Sub, {cast(j, fx), as_dtype(j, x)}));
  }
  return as_dtype(dt, alu(Op::Sub, {fx, cfloat(f, edge)}));
}

UOp Builder::limit_pair(DType dt, const Scope& s, int depth) {
  const DType it = dt.is_int() && e_.chance(0.7) ? dt : pick_int_dtype();
  const IntRange r = declarable_range(it);
  constexpr Op ops[] = {Op::Add, Op::Sub, Op::Mul};
  const Op op = ops[e_.below(3)];
  const bool is_signed = r.lo < 0;
  const bool at_max = is_signed ? e_.chance(0.5) : op != Op::Sub;
  __int128 c = 0;
  if (op == Op::Mul) {
    c = e_.chance(0.5) ? __int128{e_.between(2, 7)} : __int128{1} << e_.between(1, r.bits - 2);
    if (is_signed && e_.chance(0.3)) c = -c;
  } else {
    switch (e_.below(3)) {  // a small step, a power of two, or most of the range
      case 0: c = e_.between(1, 8); break;
      case 1: c = __int128{1} << e_.between(1, r.bits - 2); break;
      default: c = r.hi - e_.between(0, 3); break;
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
  if (dt.is_bool()) return e_.chance(0.5) ? lt(v, k) : lt(k, v);
  if (dt == it) {
    switch (e_.below(3)) {
      case 0: return v;
      case 1: return alu(Op::Max, {v, k});
      default: return alu(Op::Min, {v, k});
    }
  }
  return as_dtype(dt, v);
}

UOp Builder::multiple_pair(DType dt, const Scope& s, int depth) {
  const DType it = dt.is_int() && e_.chance(0.7) ? dt : pick_int_dtype();
  const IntRange r = declarable_range(it);
  const bool is_signed = r.lo < 0;
  __int128 c = -1, center = r.lo;  // INT_MIN / -1: wraps to INT_MIN, the remainder is 0
  if (!is_signed || !e_.chance(0.15)) {
    constexpr int64_t small[] = {1, 2, 3, 4, 5, 7, 8, 16};
    c = e_.chance(0.8) ? __int128{small[e_.below(std::size(small))]}
                       : __int128{1} << e_.between(5, r.bits - 2);
    if (is_signed && e_.chance(0.4)) c = -c;
    const __int128 mag = c < 0 ? -c : c;
    if (e_.chance(0.3)) {  // the multiple nearest a limit
      center = (!is_signed || e_.chance(0.5) ? r.hi : r.lo) / mag * mag;
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
  if (e_.chance(0.2)) {  // (x//c)*c + x%c, in the rounding of op: x again
    const bool floor = op == Op::FloorDiv || op == Op::FloorMod;
    UOp q = alu(floor ? Op::FloorDiv : Op::Cdiv, {x, cn});
    UOp m = alu(floor ? Op::FloorMod : Op::Cmod, {x, cn});
    return as_dtype(dt, alu(Op::Add, {alu(Op::Mul, {q, cn}), m}));
  }
  return as_dtype(dt, alu(op, {x, cn}));
}

UOp Builder::special_unary(DType dt) {
  constexpr DType floats[] = {dtypes::Float16, dtypes::Float32, dtypes::Float64};
  const DType f = dt.is_float() && e_.chance(0.6) ? dt : floats[e_.pick({0.5, 2.0, 1.0})];
  // With exact floats: no inf or NaN, no transcendental, no cast that rounds.
  const bool inexact = p_.inexact_floats;
  const double t = inexact ? 1.0 : 0.0;
  // NEG, TRUNC, RECIPROCAL, SQRT, EXP2, LOG2, SIN, CAST to a float, CAST to bool, BITCAST to
  // an integer, CAST to an integer (guarded), an integer limit under a CAST to the float
  const size_t kind = e_.pick({1, 1, t, t, t, t, t, t, 1, 1, 1, t});
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
    case 9: {  // a NaN bitcast to an integer is UB
      const bool is_signed = e_.chance(0.5);
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
      const __int128 v = (r.lo == 0 || e_.chance(0.5) ? r.hi : r.lo) + (e_.chance(0.5) ? 0 : -1);
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
  if (e_.chance(0.4)) c = -c;
  // k*c small (x of both signs near 0), or the multiple nearest +-max_index_magnitude
  const int64_t m = p_.max_index_magnitude;
  int64_t center = e_.between(-3, 3) * c;
  if (e_.chance(0.3)) center = (e_.chance(0.5) ? m : -m) / c * c;
  const int64_t below = e_.between(0, 2);
  const int64_t above = e_.between(below == 0 ? 1 : 0, 2);
  UOp x = window_value(dtypes::Index, center - below, center + above, s, depth);
  constexpr Op ops[] = {Op::FloorDiv, Op::FloorMod, Op::Cmod, Op::Cdiv};
  const Op op = ops[e_.below(std::size(ops))];
  // x is within two of +-max_index_magnitude: no bounds check of the result (the analysis
  // gives up on negative divisors)
  return alu(op, {x, I(c)});
}

UOp Builder::divisor(DType dt, const Scope& s, int depth) {
  const auto& w = p_.divisors;
  switch (e_.pick({w.constant, w.max_const, w.or_one, w.square_plus_one,
                   s.ranges.empty() ? 0.0 : w.zero_at_an_iteration})) {
    case 0: {
      if (e_.chance(p_.p_int_edge_const)) {  // INT_MIN / -1 wraps in sized integers
        const int64_t c = edge_int_of(dt);
        return cint(dt, c == 0 ? 1 : c);
      }
      int64_t c = e_.between(1, 7);
      if (dt.kind() != DTypeKind::Unsigned && e_.chance(w.p_negative)) c = -c;
      return cint(dt, c);
    }
    case 1: return alu(Op::Max, {value(dt, s, depth + 1), cint(dt, e_.between(1, 4))});
    case 2: return alu(Op::Or, {value(dt, s, depth + 1), cint(dt, 1)});
    case 3: {  // x*x + 1: x*x is never -1 modulo 2^bits
      UOp x = value(dt, s, depth + 1);
      return alu(Op::Add, {alu(Op::Mul, {x, x}), cint(dt, 1)});
    }
    default: {  // cast(r) - c: zero when r == c; defined only while that iteration never runs
      UOp r =
          s.focus && e_.chance(p_.p_focus_range) ? s.focus : s.ranges[e_.below(s.ranges.size())];
      return alu(Op::Sub, {cast(dt, r), cint(dt, e_.between(0, 3))});
    }
  }
}

UOp Builder::binary(DType dt, const Scope& s, int depth) {
  auto sub = [&](DType t) { return value(t, s, depth + 1); };
  if (dt.is_bool()) {
    const auto& w = p_.bool_ops;
    constexpr Op cmps[] = {Op::CmpLt, Op::CmpNe, Op::CmpEq};
    switch (e_.pick({w.logic, w.index_compare, w.value_compare})) {
      case 0: {
        constexpr Op ops[] = {Op::And, Op::Or, Op::Xor};
        const Op op = ops[e_.below(3)];
        return alu(op, {sub(dt), sub(dt)});
      }
      case 1: {  // an index comparison (a RANGE < x guard when the left side is a range)
        UOp a = index_expr(s, depth + 1);
        UOp b =
            e_.chance(p_.index.p_const_operand) ? I(e_.between(0, 8)) : index_expr(s, depth + 1);
        return alu(cmps[e_.pick({w.lt, w.ne, w.eq})], {a, b});
      }
      default: {
        const DType t = pick_dtype();
        const Op op = cmps[e_.pick({w.lt, w.ne, w.eq})];
        return alu(op, {sub(t), sub(t)});
      }
    }
  }
  if (dt.is_float()) {
    constexpr Op ops[] = {Op::Add, Op::Sub, Op::Mul, Op::Max, Op::Min};
    const auto& w = p_.float_ops;
    const Op op = ops[e_.pick({w.add, w.sub, w.mul, w.max, w.min})];
    if (op == Op::Mul && !p_.inexact_floats) {  // exact: scale by a small power of two or 3
      constexpr double k[] = {2, 0.5, -1, 3, 0.25, -2};
      return alu(Op::Mul, {sub(dt), cfloat(dt, k[e_.below(std::size(k))])});
    }
    return alu(op, {sub(dt), sub(dt)});
  }
  // sized integers: everything wraps; divisors and shift amounts are made safe
  constexpr Op ops[] = {Op::Add, Op::Sub, Op::Mul, Op::Cdiv, Op::Cmod, Op::FloorDiv, Op::FloorMod,
                        Op::Max, Op::Min, Op::And, Op::Or,   Op::Xor,  Op::Shl,      Op::Shr};
  const auto& w = p_.int_ops;
  const Op op = ops[e_.pick({w.add, w.sub, w.mul, w.cdiv, w.cmod, w.floordiv, w.floormod, w.max,
                             w.min, w.and_, w.or_, w.xor_, w.shl, w.shr})];
  UOp a = sub(dt);
  // Not a switch over Op: only the drawn ops above can reach here.
  if (op == Op::Cdiv || op == Op::Cmod || op == Op::FloorDiv || op == Op::FloorMod)
    return alu(op, {a, divisor(dt, s, depth)});
  if (op == Op::Shl || op == Op::Shr) {
    UOp amount = e_.chance(p_.p_shift_const) ? cint(dt, e_.between(0, dt.bits() - 1))
                                             : alu(Op::And, {sub(dt), cint(dt, dt.bits() - 1)});
    return alu(op, {a, amount});
  }
  return alu(op, {a, sub(dt)});
}

}  // namespace uopfuzz::gen
