// Edge values (edge_values.h). Integers are computed as __int128 so that one past a 64-bit
// limit is still a number; the caller's CONST keeps the low 64 bits.
#include "gen/edge_values.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace uopfuzz::gen {

namespace {

__int128 clamp_to(IntRange r, __int128 v) {
  return std::clamp(v, r.lo, r.hi);
}

__int128 limit_neighbour(Entropy& e, IntRange r, int64_t magnitude) {
  const __int128 bases[] = {r.lo, r.hi, magnitude, -__int128{magnitude}};
  const __int128 base = bases[e.below(magnitude > 0 && r.lo < 0 ? 4 : 2)];
  return clamp_to(r, base + static_cast<__int128>(e.below(3)) - 1);
}

// A value whose sum with p is a limit of r or one past it, or whose product with p is the
// first value past r (2^(bits-1) signed, 2^bits unsigned) or one step short of it.
std::optional<__int128> pair_of(Entropy& e, const IntEdgeWeights& w, IntRange r, __int128 p) {
  if (e.chance(w.p_pair_sum)) {
    const __int128 targets[] = {r.hi + 1, r.hi, r.lo, r.lo - 1};
    const uint64_t first = e.below(4);
    for (uint64_t i = 0; i < 4; ++i) {
      const __int128 v = targets[(first + i) % 4] - p;
      if (v >= r.lo && v <= r.hi) return v;
    }
    return std::nullopt;
  }
  const __int128 mag = p < 0 ? -p : p;
  if (mag <= 1) return std::nullopt;
  const __int128 past = r.lo < 0 ? __int128{1} << (r.bits - 1) : __int128{1} << r.bits;
  __int128 v = past / mag + static_cast<__int128>(e.below(2));
  if (r.lo < 0 && e.coin()) v = -v;
  return clamp_to(r, v);
}

}  // namespace

IntRange int_range(ir::DType dt) {
  if (dt.kind() == ir::DTypeKind::Unsigned && dt.bits() == 64)
    return {0, (__int128{1} << 64) - 1, 64};
  return {dt.int_min(), dt.int_max(), dt.bits()};
}

__int128 edge_int(Entropy& e, const IntEdgeWeights& w, IntRange r, std::optional<__int128> partner,
                  int64_t magnitude) {
  switch (e.pick({w.small, w.power_of_two, w.limit, partner ? w.pair : 0.0})) {
    case 0: {
      const __int128 v = static_cast<__int128>(e.below(3)) - 1;
      return v < r.lo ? r.hi : v;  // unsigned -1 is the max
    }
    case 1: {
      __int128 v = (__int128{1} << e.below(static_cast<uint64_t>(r.bits))) +
                   static_cast<__int128>(e.below(3)) - 1;
      if (r.lo < 0 && e.coin()) v = -v;
      return clamp_to(r, v);
    }
    case 2: return limit_neighbour(e, r, magnitude);
    default:
      if (auto v = pair_of(e, w, r, *partner)) return *v;
      return limit_neighbour(e, r, magnitude);
  }
}

std::optional<int64_t> safe_index_operand(ir::Op op, ir::Interval x, int64_t c) {
  constexpr __int128 kMin = std::numeric_limits<int64_t>::min();
  constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
  __int128 lo = 0, hi = 0;  // the constants that cannot overflow with any x
  if (op == ir::Op::Add) {
    lo = kMin - x.lo, hi = kMax - x.hi;
  } else if (op == ir::Op::Sub) {
    lo = x.hi - kMax, hi = x.lo - kMin;
  } else if (op == ir::Op::Mul) {
    hi = kMax / std::max<__int128>({-__int128{x.lo}, __int128{x.hi}, 1}), lo = -hi;
  } else {
    return std::nullopt;
  }
  lo = std::max(lo, kMin), hi = std::min(hi, kMax);
  if (lo > hi) return std::nullopt;
  return static_cast<int64_t>(std::clamp(__int128{c}, lo, hi));
}

double edge_float(Entropy& e, const FloatEdgeWeights& w, ir::DType dt, bool specials) {
  // significand bits, smallest normal and subnormal exponents, largest finite value
  const int bits = dt.bits() == 16 ? 11 : dt.bits() == 32 ? 24 : 53;
  const int min_normal = dt.bits() == 16 ? -14 : dt.bits() == 32 ? -126 : -1022;
  const double largest = dt.bits() == 16   ? 65504.0
                         : dt.bits() == 32 ? static_cast<double>(std::numeric_limits<float>::max())
                                           : std::numeric_limits<double>::max();
  const double sign = e.coin() ? -1.0 : 1.0;
  switch (
      e.pick({w.signed_zero, w.random_mantissa, w.rounding, w.limit, specials ? w.special : 0.0})) {
    case 0: return e.chance(w.p_negative_zero) ? -0.0 : 0.0;
    case 1: {
      const uint64_t top = uint64_t{1} << (bits - 1);
      const double m = static_cast<double>(top + e.below(top));  // a normal significand
      return sign * std::ldexp(m, static_cast<int>(e.between(-10, 10)) - (bits - 1));
    }
    case 2: {
      const double p = std::ldexp(1.0, bits);
      const double choices[] = {p, p - 1, p + 2, 1 + std::ldexp(1.0, 1 - bits),
                                1 - std::ldexp(1.0, -bits)};
      return sign * choices[e.below(std::size(choices))];
    }
    case 3: {
      const double choices[] = {largest, std::ldexp(1.0, min_normal),
                                std::ldexp(1.0, min_normal - bits + 1)};
      return sign * choices[e.below(std::size(choices))];
    }
    default: {
      const double choices[] = {std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN()};
      return choices[e.below(std::size(choices))];
    }
  }
}

IntRange declarable_range(ir::DType dt) {
  return {dt.int_min(), dt.int_max(), dt.bits()};
}

std::optional<IntWindow> limit_window(IntRange r, ir::Op op, __int128 c, bool at_max, int inside,
                                      int past) {
  // x0: the x whose result is the last one in range on the way to the limit; dir: the way x
  // moves towards crossing it (one step beyond x0 leaves the range).
  __int128 x0 = 0;
  int dir = 1;
  const __int128 limit = at_max ? r.hi : r.lo;
  auto floor_div = [](__int128 n, __int128 d) {  // d != 0
    __int128 q = n / d;
    return (n % d != 0 && ((n < 0) != (d < 0))) ? q - 1 : q;
  };
  auto ceil_div = [&](__int128 n, __int128 d) { return -floor_div(-n, d); };
  switch (op) {
    case ir::Op::Add: x0 = limit - c, dir = at_max ? 1 : -1; break;
    case ir::Op::Sub: x0 = limit + c, dir = at_max ? 1 : -1; break;
    case ir::Op::Mul:
      if (c >= -1 && c <= 1) return std::nullopt;
      // x*c <= max: x <= max/c for c > 0, x >= max/c for c < 0; x*c >= min the other way round
      if (at_max == (c > 0)) {
        x0 = floor_div(limit, c), dir = 1;
      } else {
        x0 = ceil_div(limit, c), dir = -1;
      }
      break;
    default: return std::nullopt;
  }
  const __int128 a = x0 - dir * __int128{inside}, b = x0 + dir * __int128{past};
  IntWindow w{std::min(a, b), std::max(a, b)};
  if (w.lo < r.lo || w.hi > r.hi) return std::nullopt;
  // A product's steps are |c| apart: the inside steps must not leave r at its other limit.
  for (__int128 x : {w.lo, w.hi}) {
    const __int128 v = op == ir::Op::Add ? x + c : op == ir::Op::Sub ? x - c : x * c;
    if (at_max ? v < r.lo : v > r.hi) return std::nullopt;
  }
  return w;
}

DivmodShape draw_divmod_shape(Entropy& e, const NestedDivmodWeights& w) {
  return static_cast<DivmodShape>(e.pick(
      {w.div_div, w.mod_mod, w.div_mod, w.mod_div, w.mul_div, w.mul_mod, w.add_div, w.add_mod}));
}

DivisorPair draw_divisor_pair(Entropy& e, const NestedDivmodWeights& w) {
  constexpr int64_t bases[] = {2, 3, 4, 5, 7, 8};
  const int64_t d = bases[e.below(std::size(bases))];
  const int64_t m = e.between(2, 4);
  DivisorPair p{d, d, DivisorRelation::Equal};
  switch (e.pick({w.a_divides_b, w.b_divides_a, w.neither, w.equal, w.unit})) {
    case 0: p = {d, d * m, DivisorRelation::ADividesB}; break;
    case 1: p = {d * m, d, DivisorRelation::BDividesA}; break;
    case 2: {
      // neither magnitude divides the other: coprime, or sharing a factor (4 and 6)
      constexpr int64_t pairs[][2] = {{2, 3}, {3, 4}, {4, 6},  {6, 4},
                                      {5, 7}, {3, 2}, {4, 10}, {9, 6}};
      const auto& q = pairs[e.below(std::size(pairs))];
      p = {q[0], q[1], DivisorRelation::Neither};
      break;
    }
    case 3: break;
    default:
      p = e.coin() ? DivisorPair{1, d, DivisorRelation::Unit}
                   : DivisorPair{d, 1, DivisorRelation::Unit};
      break;
  }
  if (e.chance(w.p_negative)) p.a = -p.a;
  if (e.chance(w.p_negative)) p.b = -p.b;
  return p;
}

double special_float(SpecialFloat s, ir::DType dt) {
  const int bits = dt.bits() == 16 ? 11 : dt.bits() == 32 ? 24 : 53;
  const int min_normal = dt.bits() == 16 ? -14 : dt.bits() == 32 ? -126 : -1022;
  const double largest = dt.bits() == 16   ? 65504.0
                         : dt.bits() == 32 ? static_cast<double>(std::numeric_limits<float>::max())
                                           : std::numeric_limits<double>::max();
  const double subnormal = std::ldexp(1.0, min_normal - bits + 1);
  switch (s) {
    case SpecialFloat::Inf: return std::numeric_limits<double>::infinity();
    case SpecialFloat::NegInf: return -std::numeric_limits<double>::infinity();
    case SpecialFloat::NaN: return std::numeric_limits<double>::quiet_NaN();
    case SpecialFloat::NegZero: return -0.0;
    case SpecialFloat::Largest: return largest;
    case SpecialFloat::NegLargest: return -largest;
    case SpecialFloat::Subnormal: return subnormal;
    case SpecialFloat::NegSubnormal: return -subnormal;
  }
  return 0.0;
}

}  // namespace uopfuzz::gen
