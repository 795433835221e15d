/** \file When a float sum may be regrouped: the "dyadic" proof that no partial sum rounds, and the
 * exact count * v and x^n the reduce rules build. */
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "ir/rewrite.h"

namespace uopfuzz::simplifier {

/// Reserved name prefix of reduce_collapse's temporaries. A float temporary carries what
/// the proof knew of the input it stands for: its grid exponent in VarArg::min and its
/// bound in VarArg::max (max = -1: nothing).
inline constexpr std::string_view kTmpPrefix = "__rc";

/// Every value of a float node is j * 2^e for an integer |j| <= k.
struct Dyadic {
  __int128 k;  ///< bound on |j|
  int e;       ///< every value is a multiple of 2^e
};

/// Every j * 2^e with |j| <= k is a value of the float dtype dt.
bool representable(ir::DType dt, __int128 k, int e);

/// The dyadic form of a float node (CONSTs, casts of bounded integers, and +, -, *, max,
/// min, where, REDUCE ADD of such), or nothing: loaded floats are unknown.
std::optional<Dyadic> dyadic(ir::RewriteCtx& rc, ir::UOp u);

/// Summing up to `n` copies of a float v is exact (each partial sum k * v is a value).
bool exact_multiple(ir::RewriteCtx& rc, ir::UOp v, int64_t n);

/// Summing x + y of dtype dt `iters` times, in any grouping, is exact: sum(x+y) may
/// become sum(x) + sum(y).
bool exact_split(ir::RewriteCtx& rc, ir::DType dt, ir::UOp x, ir::UOp y, __int128 iters);

/// v summed `count` times (count: an index node, possibly <= 0 meaning no terms), as
/// REDUCE ADD would: v * count for integers (wrapping agrees with repeated addition),
/// and for floats v * count + 0.0, and 0 when the count may be zero; a null UOp when
/// that is not provably exact for a float v.
ir::UOp times_count(ir::RewriteCtx& rc, ir::UOp v, ir::UOp count);

/// x^n (n >= 1) as REDUCE MUL would compute it: integers by repeated squaring (exact
/// modulo 2^bits), floats as the left fold x*x*...*x (each step rounds as the REDUCE's
/// steps do).
ir::UOp power(ir::Context& ctx, ir::UOp x, int64_t n);

}  // namespace uopfuzz::simplifier
