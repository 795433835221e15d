// Unparented: a REDUCE over ranges its value does not use (reduce_unparented).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "gen/builder.h"

namespace uopfuzz::gen {

UOp Builder::unparented(DType dt, const Scope& s, int depth) {
  Op op = pick_reduce_op();
  int64_t budget = end_budget(s);
  if (op == Op::Mul) budget = std::min<int64_t>(budget, p_.max_mul_reduce_end);
  std::vector<UOp> src{UOp(), range(range_end(budget), AxisType::Reduce)};
  Scope in = inner(s, src[1]);
  Scope around = under(s, src[1]);
  if (end_budget(in) >= 2 && e_.chance(p_.p_reduce_two_ranges)) {
    src.push_back(range(range_end(op == Op::Mul ? 2 : end_budget(in)), AxisType::Reduce));
    around = under(around, src[2]);
  }
  // The reduced value may be one of the REDUCE's own ranges, bare: the rule must tell the
  // value from the ranges it drops and keeps (an index sum, cast to the position's dtype).
  if (src.size() == 3 && e_.chance(p_.p_unparented_bare_range)) {
    src[0] = src[2];
    return cast(dt, mk(Op::Reduce, dtypes::Index, std::move(src), ReduceArg{op}));
  }
  src[0] = value(dt, around, depth + 1);
  return mk(Op::Reduce, dt, std::move(src), ReduceArg{op});
}

}  // namespace uopfuzz::gen
