// Bound: sum_r where(r < U, v, 0) and its lower and two-sided forms, U maybe outside
// the range (bound_upper, bound_lower, bound_two_sided).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "gen/instances/builder.h"

namespace uopfuzz::gen {

void InstanceBuilder::bound_sum() {
  const DType dt = reduce_dtype();
  store_per_outer(dt, [&](UOp i) {
    End e = reduce_end(12);
    UOp r = range(e.node, ir::AxisType::Reduce);
    UOp v =
        chance(w_.p_bound_range_free_value) ? range_free(dt, i) : add(cast(dt, r), exact_const(dt));
    UOp body = window_value(window_cond(r, std::max<int64_t>(e.hi, 1), i), v);
    std::vector<UOp> rs{r};
    const Op rop = chance(w_.p_bound_add) ? Op::Add : one_of<Op>({Op::Max, Op::Mul});
    const bool partial_ok = !(dt.is_float() && rop == Op::Mul) || policy_.float_partial_products;
    if (partial_ok && chance(w_.p_bound_second_range))
      rs.push_back(range(I(between(1, 3)), ir::AxisType::Reduce));
    return reduce(rop, body, rs);
  });
}

}  // namespace uopfuzz::gen
