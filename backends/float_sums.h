/** \file Float sums a backend may add in any order, and how far apart two orders can be
 * (SEMANTICS.md, "Reassociated float sums").
 *
 * A float32 or float64 REDUCE op=ADD is *reassociable* when its only users are STOREs of
 * it, as is, into output buffers that hold nothing but such sums. A backend with
 * `Capabilities::reassociates_float_sums` may add the terms of such a sum in any order
 * (a vectorized loop keeps one partial sum per lane): the terms themselves are computed
 * exactly as this document says, only the order of the additions changes.
 *
 * Any order of adding n terms x_i is within gamma_{n-1} * sum |x_i| of the exact sum
 * (gamma_k = k*u / (1 - k*u), u the unit roundoff: 2^-24 for float32, 2^-53 for
 * float64), so two orders are within twice that of each other. sum_bounds() gives that
 * bound per output element: the magnitudes sum |x_i| come from running, on the oracle,
 * the same graph with every reassociable sum replaced by a float64 sum of its terms'
 * magnitudes.
 */
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "ir/node_map.h"
#include "ir/result.h"
#include "ir/uop.h"
#include "oracle/interpreter.h"

namespace uopfuzz::backends {

struct ReassociableSums {
  ir::NodeMap<bool> reduces;  ///< the reassociable REDUCE nodes (all mapped to true)
  std::set<int> slots;        ///< output PARAM slots that hold only such sums
  bool empty() const { return slots.empty(); }
};

/// The reassociable sums of the kernel `root` (see the file comment).
ReassociableSums reassociable_sums(ir::UOp root);

/// The terms behind the sums stored into one buffer: per element the float64 sum of their
/// magnitudes, and the most terms of one element.
struct SumTerms {
  std::vector<double> magnitudes;
  int64_t terms = 1;
  ir::DType dtype;  ///< the sums' dtype
};

/// For each output slot of `root` holding reassociable sums, their terms (see sum_bounds).
/// `carried` gives the terms of sums stored by an earlier kernel into an input slot: a
/// reassociable sum whose terms are plain loads of such a slot is one sum of all the terms
/// behind them, in another order (a split reduce's second stage), so those count instead.
Result<std::map<int, SumTerms>> sum_terms(ir::Context& ctx, ir::UOp root,
                                          const oracle::Inputs& inputs,
                                          const std::map<int, SumTerms>& carried = {});

/// The largest difference allowed between two orders of the sums `t` (see sum_bounds).
std::vector<double> bounds_of(const SumTerms& t);

/// For each output slot holding reassociable sums, the largest difference allowed
/// between an element computed in some order and the oracle's in-order element; +inf
/// where no bound holds (the magnitudes overflow the sum's dtype, so partial sums may
/// overflow in one order and not another). Empty when `root` has no reassociable sum.
/// Errors: the magnitude graph does not run on these inputs (it runs wherever `root` does
/// without undefined behaviour).
Result<std::map<int, std::vector<double>>> sum_bounds(ir::Context& ctx, ir::UOp root,
                                                      const oracle::Inputs& inputs);

}  // namespace uopfuzz::backends
