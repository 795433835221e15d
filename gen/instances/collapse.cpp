// Collapse: sums with closed forms (sum(x+y), bool-cast multiplies, PARAM & y, nested
// REDUCEs, aranges) and the zero-trip and overflow shapes a closed form must not take.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "gen/instances/builder.h"

namespace uopfuzz::gen {

namespace {
/// A term of sum(x+y).
enum class Term : uint8_t {
  Window,     ///< window_value(window_cond(r), v)
  CastRange,  ///< cast(r)
  RangeFree,  ///< a value free of r
  OfRange,    ///< in[r] (floats), cast(r) * c (integers)
};
constexpr Term kTerms[] = {Term::Window, Term::CastRange, Term::RangeFree, Term::OfRange};
/// The sum to collapse (or to leave alone).
enum class Collapse : uint8_t {
  SumOfTerms,         ///< sum(x+y)
  BoolParamAnd,       ///< sum of (PARAM x & y).where(c, 0)
  TimesGateCast,      ///< sum of x * gate.cast()
  NestedReduce,       ///< a nested REDUCE inside the value
  TwoRanges,          ///< sum over two ranges of f(r1) + g(r2) (the upstream multi-range case)
  Arange,             ///< sum_r0 (sum_r1 where(!((r0+r1) < n-1), 1, 0) - 1)
  CancellingHalves,   ///< sum_r (r*B + r*-B): every term is 0, each half alone overflows
  ZeroTripTwoRanges,  ///< sum over r (maybe zero trips), r2 of f(r) + 12 / (r2 - k)
  ZeroTripGate,       ///< sum_{r<n} where(r < k, 12 / d, 0), n and d maybe 0
};
constexpr Collapse kCollapses[] = {Collapse::SumOfTerms,        Collapse::BoolParamAnd,
                                   Collapse::TimesGateCast,     Collapse::NestedReduce,
                                   Collapse::TwoRanges,         Collapse::Arange,
                                   Collapse::CancellingHalves,  Collapse::CancellingHalves,
                                   Collapse::ZeroTripTwoRanges, Collapse::ZeroTripGate};
}  // namespace

void InstanceBuilder::collapse() {
  const DType dt = chance(w_.p_collapse_float) ? ir::dtypes::Float32 : reduce_dtype();
  store_per_outer(dt, [&](UOp i) {
    End e = reduce_end(10);
    const int64_t n = std::max<int64_t>(e.hi, 1);
    UOp r = range(e.node, ir::AxisType::Reduce);
    auto term = [&]() -> UOp {
      switch (option(kTerms)) {
        case Term::Window: return window_value(window_cond(r, n, i), range_free(dt, i));
        case Term::CastRange: return cast(dt, r);
        case Term::RangeFree: return range_free(dt, i);
        case Term::OfRange: break;
      }
      return dt.is_float() ? load(in_f32(), r) : mul(cast(dt, r), exact_const(dt));
    };
    switch (option(kCollapses)) {
      case Collapse::ZeroTripGate: {  // sum_{r<n} where(r < k, 12 / d, 0), n and d may be 0: a
                                      // zero-trip loop
        // over a faulting body must not get a closed form (collapse-zero-trip)
        UOp rz = range(var(0, 3), ir::AxisType::Reduce);
        UOp k = I(between(1, 3));
        UOp d = cast(ir::dtypes::Int32, var(0, 2));
        UOp q = alu(Op::Cdiv, C(ir::dtypes::Int32, 12), d);
        UOp red = reduce(Op::Add, where(lt(rz, k), q, C(ir::dtypes::Int32, 0)), {rz});
        return dt == ir::dtypes::Int32 ? red : cast(dt, red);
      }
      case Collapse::ZeroTripTwoRanges: {  // sum over r (may run zero times), r2 of f(r) + 12 / (r2
                                           // - k): f has no
        // closed form, so the collapse must give up rather than run the division
        UOp rz = range(var(0, 3), ir::AxisType::Reduce);
        const int64_t m = between(2, 5);
        UOp r2 = range(I(m), ir::AxisType::Reduce);
        UOp f = mul(cast(ir::dtypes::Int32, rz), cast(ir::dtypes::Int32, rz));
        UOp g = alu(Op::Cdiv, C(ir::dtypes::Int32, 12),
                    sub(cast(ir::dtypes::Int32, r2), C(ir::dtypes::Int32, between(0, m - 1))));
        UOp v = coin() ? add(f, g) : add(g, f);
        UOp red = reduce(Op::Add, v, coin() ? std::vector<UOp>{rz, r2} : std::vector<UOp>{r2, rz});
        return dt == ir::dtypes::Int32 ? red : cast(dt, red);
      }
      case Collapse::CancellingHalves: {  // sum_r (r*B + r*-B): every term is 0, each half alone
                                          // overflows
        const int64_t m = between(3, 7);
        UOp rm = range(I(m), ir::AxisType::Reduce);
        UOp x = cast(dt, rm);
        UOp big = dt.is_float() ? F(dt, 3e38 / static_cast<double>(m - 1))
                                : C(dt, one_of<int64_t>({dt.int_max(), 1 << 30, 7}));
        return reduce(Op::Add, add(mul(x, big), mul(x, neg(big))), {rm});
      }
      case Collapse::SumOfTerms: return reduce(Op::Add, add(term(), term()), {r});
      case Collapse::BoolParamAnd: {  // sum of (PARAM x & y).where(c, 0)
        UOp x = load(in_bool(), i);
        UOp y = window_cond(r, n, i);
        UOp g = coin() ? band(x, y) : band(y, x);
        return reduce(Op::Add, where(g, range_free(dt, i), zero(dt)), {r});
      }
      case Collapse::TimesGateCast:
        return reduce(Op::Add, mul(range_free(dt, i), cast(dt, window_cond(r, n, i))), {r});
      case Collapse::NestedReduce: {  // over r (give up) or not
        UOp k = range(I(between(1, 4)), ir::AxisType::Reduce);
        UOp inner_v =
            chance(w_.p_collapse_inner_uses_outer) ? add(cast(dt, k), cast(dt, r)) : cast(dt, k);
        UOp inner = reduce(Op::Add, inner_v, {k});
        return reduce(Op::Add, where(window_cond(r, n, i), inner, zero(dt)), {r});
      }
      case Collapse::TwoRanges: {
        UOp r2 = range(reduce_end(5).node, ir::AxisType::Reduce);
        return reduce(Op::Add, add(cast(dt, r), cast(dt, r2)), {r, r2});
      }
      case Collapse::Arange: break;
    }
    UOp r1 = range(e.node, ir::AxisType::Reduce);
    UOp c = bnot(lt(add(r, r1), I(n - 1)));
    UOp inner = reduce(Op::Add, where(c, C(ir::dtypes::Int32, 1), C(ir::dtypes::Int32, 0)), {r1});
    UOp v = sub(inner, C(ir::dtypes::Int32, 1));
    return cast(dt, reduce(Op::Add, v, {r}));
  });
}

}  // namespace uopfuzz::gen
