// Window sums: sum_r in[i + r - pad], a sliding window over an outer range.
#include <algorithm>
#include <cstdint>

#include "gen/builder.h"

namespace uopfuzz::gen {

UOp Builder::window_sum(DType dt, const Scope& s, int depth) {
  const int k = data_input(dt);
  if (k < 0) return UOp();
  UOp r = range(range_end(std::min<int64_t>(end_budget(s), 5)), AxisType::Reduce);
  UOp i = s.ranges.empty() ? I(0) : s.ranges[e_.below(s.ranges.size())];
  UOp idx = alu(Op::Add, {i, r});
  if (const int64_t pad = e_.between(0, 2); pad > 0) idx = alu(Op::Sub, {idx, I(pad)});
  UOp v = load_at(k, idx, inner(s, r));
  if (e_.chance(p_.p_window_scale))
    v = alu(Op::Mul, {v, dt.is_float() ? cfloat(dt, 2) : cint(dt, e_.between(-2, 3))});
  return mk(Op::Reduce, dt, {v, r}, ReduceArg{Op::Add});
}

}  // namespace uopfuzz::gen
