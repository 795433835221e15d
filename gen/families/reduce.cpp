// The generic REDUCE of value() (ExprWeights::reduce): one or two fresh ranges, its value
// maybe another REDUCE. Not a row of kernel_families.def: value() draws it by weight.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "gen/builder.h"

namespace uopfuzz::gen {

UOp Builder::reduce(DType dt, const Scope& s, int depth) {
  const auto& w = p_.reduce_ops;
  Op op = !dt.is_bool() ? pick_reduce_op() : e_.pick({w.any, w.all}) == 0 ? Op::Max : Op::Min;
  int64_t budget = end_budget(s);
  if (op == Op::Mul) budget = std::min<int64_t>(budget, p_.max_mul_reduce_end);
  UOp r = range(range_end(budget), AxisType::Reduce);
  std::vector<UOp> rs{r};
  Scope in = inner(s, r);
  if (end_budget(in) >= 2 && e_.chance(p_.p_reduce_two_ranges)) {
    UOp r2 = range(range_end(op == Op::Mul ? std::min<int64_t>(end_budget(in), 2) : end_budget(in)),
                   AxisType::Reduce);
    rs.push_back(r2);
    in = inner(in, r2);
    in.focus = e_.coin() ? r : r2;  // either range
  }
  UOp v;
  if (end_budget(in) >= min_end() && e_.chance(p_.p_nested_reduce)) {
    v = reduce(dt, in, depth + 1);
    if (!dt.is_bool() && e_.chance(p_.p_nested_reduce_combined)) {
      const Op combine = e_.chance(p_.p_nested_reduce_added) ? Op::Add : Op::Sub;
      v = alu(combine, {v, value(dt, in, depth + 1)});
    }
  } else {
    v = value(dt, in, depth + 1);
  }
  std::vector<UOp> src{v};
  src.insert(src.end(), rs.begin(), rs.end());
  return mk(Op::Reduce, dt, std::move(src), ReduceArg{op});
}

}  // namespace uopfuzz::gen
