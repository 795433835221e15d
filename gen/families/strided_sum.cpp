// Strided sums: mean((0,1)) of a strided tensor, whose merged ranges leave the scaled pair
// (r//b)*(b*k) + (r%b)*k; or that pair itself.
#include <algorithm>
#include <cstdint>

#include "gen/builder.h"

namespace uopfuzz::gen {

UOp Builder::strided_sum(DType dt, const Scope& s, int depth) {
  if (end_budget(s) < 2) return UOp();
  const int k_in = data_input(dt);
  if (k_in < 0) return UOp();
  const int64_t k = e_.between(2, 4);
  if (e_.chance(
          p_.p_strided_pair)) {  // the pair itself: sum_r x[(m%c)*k + (m//c)*(c*k)], m = r + o
    UOp r = range(I(e_.between(2, end_budget(s))), AxisType::Reduce);
    const int64_t c = e_.between(2, 5);
    UOp m = alu(Op::Add, {r, I(e_.between(0, 3))});
    UOp lo = alu(Op::Mul, {alu(Op::FloorMod, {m, I(c)}), I(k)});
    UOp hi = alu(Op::Mul, {alu(Op::FloorDiv, {m, I(c)}), I(c * k)});
    UOp at = e_.coin() ? alu(Op::Add, {lo, hi}) : alu(Op::Add, {hi, lo});
    return mk(Op::Reduce, dt, {load_at(k_in, at, inner(s, r)), r}, ReduceArg{Op::Add});
  }
  UOp r0 = range(I(e_.between(2, std::min<int64_t>(end_budget(s), 4))), AxisType::Reduce);
  Scope in = inner(s, r0);
  if (end_budget(in) < 2) return UOp();
  const int64_t b = e_.between(2, std::min<int64_t>(end_budget(in), 8));
  UOp r1 = range(I(b), AxisType::Reduce);
  in = inner(in, r1);
  UOp j = !s.ranges.empty() && e_.chance(p_.p_strided_offset_range) ? range_leaf(s)
                                                                    : I(e_.between(0, k - 1));
  UOp at =
      alu(Op::Add, {alu(Op::Add, {alu(Op::Mul, {r0, I(b * k)}), alu(Op::Mul, {r1, I(k)})}), j});
  return mk(Op::Reduce, dt, {load_at(k_in, at, in), r0, r1}, ReduceArg{Op::Add});
}

}  // namespace uopfuzz::gen
