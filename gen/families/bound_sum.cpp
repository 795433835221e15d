// Bound sums: sum_r where(r < U, v, 0), its lower and two-sided forms, and the lifted
// compares (r + y) < c and (r * y) < c.
#include <cstdint>

#include "gen/builder.h"

namespace uopfuzz::gen {

UOp Builder::bound_sum(DType dt, const Scope& s, int depth) {
  UOp n = range_end(end_budget(s));
  const int64_t nmax = bnd(n).hi;
  UOp r = range(n, AxisType::Reduce);
  UOp v = e_.chance(p_.p_bound_const_value) ? constant(dt) : value(dt, under(s, r), depth + 1);
  auto cut = [&]() -> UOp {
    const auto& w = p_.cuts;
    switch (e_.pick({w.var, s.ranges.empty() ? 0.0 : w.outer_range, w.loaded, w.constant})) {
      case 0: {
        const int64_t lo = -e_.between(0, 2);
        return var(dtypes::Index, lo, nmax + e_.between(0, 3));
      }
      case 1: {
        UOp i = s.ranges[e_.below(s.ranges.size())];
        return e_.chance(w.p_outer_plus_one) ? alu(Op::Add, {i, I(1)})
                                             : i;  // cumulative sums use i + 1
      }
      case 2: {
        if (UOp l = loaded_index(s, depth, -2, nmax + 2)) return l;
        return I(e_.between(-1, nmax + 1));
      }
      default: return I(e_.between(-1, nmax + 1));
    }
  };
  UOp w;
  UOp x = r;  // (r + y) < c and (r * y) < c: the lifts move y across, if its sign allows
  if (e_.chance(p_.p_bound_lift)) {
    UOp y;
    if (e_.chance(p_.p_bound_lift_var)) {
      const int64_t lo = -e_.between(0, 2);
      y = var(dtypes::Index, lo, e_.between(1, 3));
    } else {
      y = I(e_.between(-2, 3));
    }
    x = e_.chance(p_.p_bound_lift_add) ? alu(Op::Add, {r, y}) : alu(Op::Mul, {r, y});
  }
  const auto& forms = p_.bound_forms;
  switch (e_.pick({forms.upper, forms.lower, forms.two_sided})) {
    case 0: w = where(lt(x, cut()), v, zero(dt)); break;
    case 1: w = where(lt(x, cut()), zero(dt), v); break;
    default: {
      UOp lo = bnot(lt(x, cut())), hi = lt(r, cut());
      w = where(e_.coin() ? alu(Op::And, {lo, hi}) : alu(Op::And, {hi, lo}), v, zero(dt));
      break;
    }
  }
  return mk(Op::Reduce, dt, {w, r}, ReduceArg{Op::Add});
}

}  // namespace uopfuzz::gen
