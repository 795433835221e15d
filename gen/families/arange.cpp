// Arange: sum_r cast(r), or the rangeify form sum_r where(!(x + r < K), 1, 0) - 1.
#include <algorithm>
#include <cstdint>

#include "gen/builder.h"

namespace uopfuzz::gen {

UOp Builder::arange(DType dt, const Scope& s, int depth) {
  UOp n = range_end(end_budget(s));
  UOp r = range(n, AxisType::Reduce);
  if (!e_.chance(p_.p_arange_rangeify))
    return mk(Op::Reduce, dt, {cast(dt, r), r}, ReduceArg{Op::Add});
  UOp x = s.ranges.empty() ? I(0) : s.ranges[e_.below(s.ranges.size())];
  const int64_t k = std::max<int64_t>(0, bnd(n).hi - 1);
  UOp c = bnot(lt(alu(Op::Add, {x, r}), I(k)));
  UOp sum = mk(Op::Reduce, dt, {where(c, cint(dt, 1), zero(dt)), r}, ReduceArg{Op::Add});
  return alu(Op::Add, {sum, cint(dt, -1)});
}

}  // namespace uopfuzz::gen
