/** \file Edge values: the integers and floats where arithmetic changes behaviour (zero, one,
 * powers of two and their neighbours, a dtype's limits and their neighbours, pairs whose sum or
 * product lands exactly on a limit, signed zeros, values that round, infinities and NaN), drawn
 * from an Entropy by the weights of GenPolicy. The Builder decides where they go and keeps the
 * kernel defined around them.
 */
#pragma once

#include <cstdint>
#include <optional>

#include "gen/entropy.h"
#include "gen/policy.h"
#include "ir/analysis.h"
#include "ir/dtype.h"
#include "ir/ops.h"

namespace uopfuzz::gen {

/// The values an integer dtype holds, as mathematical integers (uint64: up to 2^64 - 1).
struct IntRange {
  __int128 lo, hi;
  int bits;  ///< width of the two's complement or unsigned representation
};
IntRange int_range(ir::DType dt);

/// An edge integer of `r`, its class drawn by `w`. `partner`: an earlier edge value of the same
/// kernel; the pair class then answers a value whose sum or product with it is a limit of `r`
/// (or one past it). `magnitude`: a further limit whose neighbours count as edges (0: none).
__int128 edge_int(Entropy& e, const IntEdgeWeights& w, IntRange r, std::optional<__int128> partner,
                  int64_t magnitude = 0);

/// An edge integer as a CONST of a dtype of range `r` takes it (Context::const_int wraps it):
/// the low 64 bits.
inline int64_t as_const_bits(__int128 v) {
  return static_cast<int64_t>(static_cast<uint64_t>(static_cast<unsigned __int128>(v)));
}

/// The constant nearest `c` for which `x op c` (ADD, SUB or MUL of index) cannot overflow for
/// any x in `x`: c itself when it is safe, else one that puts the result's bound exactly on an
/// int64 limit, so an edge constant stays an edge; nullopt for another op or when none is.
std::optional<int64_t> safe_index_operand(ir::Op op, ir::Interval x, int64_t c);

/// An edge float of dt, its class drawn by `w` (infinities and NaN only with `specials`).
double edge_float(Entropy& e, const FloatEdgeWeights& w, ir::DType dt, bool specials);

// ---- edge pairs (GenPolicy::p_edge_pair): a boundary and the window of values around it

/// A window [lo, hi] of integers a value is declared to lie in.
struct IntWindow {
  __int128 lo, hi;
};

/// The values a VAR or an input's vmin/vmax can declare for dt: dt's range as int64 holds it
/// (uint64: up to 2^63 - 1, where its int64 reading turns negative).
IntRange declarable_range(ir::DType dt);

/// The window of x for which `x op c` (ADD, SUB or MUL, computed exactly) runs from `inside`
/// steps short of r's limit (its max when `at_max`, else its min) to `past` steps beyond it:
/// past = 0 touches the limit, past >= 1 crosses it (a sized integer wraps there). A step is
/// one value of x. nullopt when no such window lies in r (or op is another op, or a MUL's c is
/// -1, 0 or 1).
std::optional<IntWindow> limit_window(IntRange r, ir::Op op, __int128 c, bool at_max, int inside,
                                      int past);

/// The shapes of nested constant division and modulo (NestedDivmodWeights).
enum class DivmodShape : uint8_t { DivDiv, ModMod, DivMod, ModDiv, MulDiv, MulMod, AddDiv, AddMod };
inline constexpr int kDivmodShapes = 8;

/// How |a| relates to |b| in a divisor pair.
enum class DivisorRelation : uint8_t { ADividesB, BDividesA, Neither, Equal, Unit };

/// Two constant divisors: the inner a and the outer b of a nested shape.
struct DivisorPair {
  int64_t a, b;
  DivisorRelation relation;
};

/// A divisor pair drawn by `w`: the relation, then magnitudes in [1, 32] that have it
/// (Neither: neither magnitude divides the other; Unit: one of them is 1), then the signs.
DivisorPair draw_divisor_pair(Entropy& e, const NestedDivmodWeights& w);

DivmodShape draw_divmod_shape(Entropy& e, const NestedDivmodWeights& w);

/// The special float values a pair puts directly under a unary op or a cast.
enum class SpecialFloat : uint8_t {
  Inf,
  NegInf,
  NaN,
  NegZero,
  Largest,
  NegLargest,
  Subnormal,
  NegSubnormal
};
inline constexpr int kSpecialFloats = 8;

/// The value of `s` in float dtype dt (Largest: dt's largest finite value; Subnormal: its
/// smallest positive subnormal), as a double that dt holds exactly.
double special_float(SpecialFloat s, ir::DType dt);

}  // namespace uopfuzz::gen
