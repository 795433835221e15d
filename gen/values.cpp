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
  if (dt.is_bool()) return ctx_.const_bool(e_.coin());
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
  if (b.hi <= -1 || (b.lo < 1 && e_.coin())) {  // x <= -1: (x + MAX-d) + (1+d)
    UOp x = b.hi <= -1 ? a : alu(Op::Min, {a, I(-1)});
    return alu(Op::Add, {alu(Op::Add, {x, I(kMax - d)}), I(1 + d)});
  }
  UOp x = b.lo >= 1 ? a : alu(Op::Max, {a, I(1)});  // x >= 1: (x + MIN+d) + (-1-d)
  return alu(Op::Add, {alu(Op::Add, {x, I(kMin + d)}), I(-1 - d)});
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
      enum class Exact : uint8_t { Itself, Scaled, Shifted };
      constexpr Exact kExacts[] = {Exact::Itself, Exact::Scaled, Exact::Shifted};
      switch (e_.option(kExacts)) {
        case Exact::Itself: return v;
        case Exact::Scaled: return alu(Op::Mul, {v, cfloat(dt, kExact[e_.below(4)])});
        case Exact::Shifted: return alu(Op::Add, {v, cfloat(dt, kExact[e_.below(4)])});
      }
      return v;
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
  // bool REDUCEs (any, all) take their weights' share of the reduce weight
  const double reduce_weight =
      dt.is_bool() ? w.reduce * (p_.reduce_ops.any + p_.reduce_ops.all) : w.reduce;
  switch (e_.pick(
      {w.leaf, w.unary, w.binary, w.where, end_budget(s) < min_end() ? 0.0 : reduce_weight})) {
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
