// Shielded faults: a division that faults at some iteration of a loop that runs zero
// times for the header's VAR values.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "gen/builder.h"

namespace uopfuzz::gen {

bool Builder::shielded_fault_fits(DType dt, const Scope& s) {
  return dt.is_int() && end_budget(s) >= 2 &&
         static_cast<int>(s.ranges.size()) + 2 <= p_.max_loop_nest;
}

UOp Builder::shielded_fault(DType dt, const Scope& s, int depth) {
  const int64_t nmax = e_.between(1, std::max<int64_t>(1, end_budget(s) / 2));
  UOp r = range(var(dtypes::Index, 0, nmax, std::nullopt, 0), AxisType::Reduce);
  Scope in = inner(s, r);
  if (dt.is_int() && !dt.is_index() && e_.chance(p_.p_shielded_gated)) {
    // sum_{r<n} where(r < k, x / d, 0) with n = d = 0 in the header: a bound-rule shape
    // whose closed form would evaluate x / 0 (the zero-trip gate of reduce_collapse).
    // Each draw in its own statement: argument evaluation order differs between compilers.
    UOp d = var(dt, 0, 3, std::nullopt, 0);
    UOp k = I(e_.between(1, 4));
    UOp x = value(dt, under(s, r), depth + 1);
    UOp g = where(alu(Op::CmpLt, {r, k}), alu(Op::Cdiv, {x, d}), zero(dt));
    return mk(Op::Reduce, dt, {g, r}, ReduceArg{Op::Add});
  }
  UOp r2 = range(I(e_.between(2, std::max<int64_t>(2, std::min<int64_t>(end_budget(in), 6)))),
                 AxisType::Reduce);
  UOp f = e_.chance(p_.p_shielded_square) ? alu(Op::Mul, {cast(dt, r), cast(dt, r)})
                                          : value(dt, in, depth + 1);
  UOp x = value(dt, under(under(s, r), r2), depth + 1);
  UOp g = alu(Op::Cdiv, {x, alu(Op::Sub, {cast(dt, r2), cint(dt, e_.between(0, 1))})});
  return mk(Op::Reduce, dt, {alu(Op::Add, {f, g}), r, r2}, ReduceArg{Op::Add});
}

}  // namespace uopfuzz::gen
