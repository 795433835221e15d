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

}  // namespace uopfuzz::gen
