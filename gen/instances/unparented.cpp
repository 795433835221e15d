// Unparented: a REDUCE over ranges its value does not use (reduce_unparented), maybe
// beside one it does, with float products that round.
#include <cstdint>
#include <vector>

#include "gen/instances/builder.h"

namespace uopfuzz::gen {

void InstanceBuilder::unparented() {
  if (chance(w_.p_unparented_var)) var(-3, 6);
  const DType dt = reduce_dtype();
  const Op rop = one_of<Op>({Op::Add, Op::Mul, Op::Max, Op::Min});
  store_per_outer(dt, [&](UOp i) {
    std::vector<UOp> rs;
    const bool partial_ok = !(dt.is_float() && rop == Op::Mul) || policy_.float_partial_products;
    const int k = partial_ok ? 1 + static_cast<int>(below(2)) : 1;
    for (int j = 0; j < k; ++j)
      rs.push_back(range(reduce_end(rop == Op::Mul ? 4 : 7).node, ir::AxisType::Reduce));
    UOp v = range_free(dt, i);
    if (dt.is_float() && rop == Op::Mul && k == 2 && chance(w_.p_rounding_products)) {
      // Products that round: several factors of 7-bit numerators (k/8, k up to 64).
      rs = {range(I(between(2, 3)), ir::AxisType::Reduce),
            range(I(between(2, 4)), ir::AxisType::Reduce)};
      v = chance(w_.p_rounding_product_load) ? load(in_f32(), i)
                                             : F(dt, one_of<double>({5.875, 7.625, 2.9, 1.3}));
    }
    if (partial_ok &&
        chance(w_.p_parented_range)) {  // one parented range next to the unparented ones
      UOp p = range(I(between(1, 4)), ir::AxisType::Reduce);
      v = add(v, dt.is_float() ? load(in_f32(), p) : cast(dt, p));
      rs.insert(rs.begin() + static_cast<long>(below(rs.size() + 1)), p);
    }
    return reduce(rop, v, rs);
  });
}

}  // namespace uopfuzz::gen
