// Lift: (r+y) < c and r*y < c with y of either sign (lift_add_lt, lift_mul_lt), directly
// and through a cast.
#include <algorithm>
#include <cstdint>

#include "gen/instances/builder.h"

namespace uopfuzz::gen {

namespace {
/// The y of (r + y) < c and (r * y) < c.
enum class LiftOperand : uint8_t { Constant, Var, Loaded, SmallNonzero };
constexpr LiftOperand kLiftOperands[] = {LiftOperand::Constant, LiftOperand::Var,
                                         LiftOperand::Loaded, LiftOperand::SmallNonzero};
/// The compare to lift.
enum class LiftCond : uint8_t {
  AddRight,        ///< (r + y) < c
  AddLeft,         ///< (y + r) < c
  MulRight,        ///< (r * y) < c
  MulLeft,         ///< (y * r) < c
  AddThroughCast,  ///< (int(r) + int(y)) < int(c)
};
constexpr LiftCond kLiftConds[] = {LiftCond::AddRight,       LiftCond::AddLeft,
                                   LiftCond::MulRight,       LiftCond::MulLeft,
                                   LiftCond::AddThroughCast, LiftCond::MulRight};
}  // namespace

void InstanceBuilder::lift() {
  const DType dt = one_of<DType>({ir::dtypes::Int32, ir::dtypes::Float32});
  store_per_outer(dt, [&](UOp i) {
    End e = reduce_end(12);
    const int64_t n = std::max<int64_t>(e.hi, 1);
    UOp r = range(e.node, ir::AxisType::Reduce);
    UOp y, c = bound(2 * n, i);
    switch (option(kLiftOperands)) {  // y of either sign: x*y < c may only be lifted for y > 0
      case LiftOperand::Constant: y = I(between(-4, 4)); break;
      case LiftOperand::Var: y = var(one_of<int64_t>({-3, -1, 0, 1}), between(1, 4)); break;
      case LiftOperand::Loaded:
        y = to_index(
            load(buffer(ir::dtypes::Int32, kInSize, false, one_of<int64_t>({-2, 1}), 4), i));
        break;
      case LiftOperand::SmallNonzero: y = I(one_of<int64_t>({1, 2, 3, -1, -2})); break;
    }
    UOp cond;
    switch (option(kLiftConds)) {
      case LiftCond::AddRight: cond = lt(add(r, y), c); break;
      case LiftCond::AddLeft: cond = lt(add(y, r), c); break;
      case LiftCond::MulRight: cond = lt(mul(r, y), c); break;
      case LiftCond::MulLeft: cond = lt(mul(y, r), c); break;
      case LiftCond::AddThroughCast: {
        UOp x = cast(ir::dtypes::Int32, r);
        cond = lt(add(x, cast(ir::dtypes::Int32, y)), cast(ir::dtypes::Int32, c));
        break;
      }
    }
    if (chance(w_.p_lift_second_clause)) cond = band(cond, lt(r, bound(n, i)));
    UOp v = chance(w_.p_lift_range_free_value) ? range_free(dt, i) : cast(dt, r);
    return reduce(Op::Add,
                  chance(w_.p_lift_plain_where) ? where(cond, v, zero(dt)) : window_value(cond, v),
                  {r});
  });
}

}  // namespace uopfuzz::gen
