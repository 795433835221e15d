// The rule families of the generator (generator.h, GenPolicy): REDUCEs generic and
// unparented, arange, bounded and window sums, shielded faults and gathers, each placed
// at an expression position with its probability. The determinism rules of builder.cpp
// hold here too: no call has two arguments that draw entropy.
#include <algorithm>
#include <cstdint>

#include "gen/builder.h"

namespace uopfuzz::gen {

UOp Builder::family(DType dt, const Scope& s, int depth) {
  if (e_.chance(p_.p_gather)) return gather(dt, s, depth);
  if (e_.chance(p_.p_bound_sum)) return bound_sum(dt, s, depth);
  if (e_.chance(p_.p_arange)) return arange(dt, s, depth);
  if (e_.chance(p_.p_window_sum)) return window_sum(dt, s, depth);
  if (e_.chance(p_.p_unparented)) return unparented(dt, s, depth);
  if (e_.chance(p_.p_strided_sum))
    if (UOp u = strided_sum(dt, s, depth)) return u;
  if (dt.is_int() && end_budget(s) >= 2 &&
      static_cast<int>(s.ranges.size()) + 2 <= p_.max_loop_nest && e_.chance(p_.p_shielded_fault))
    return shielded_fault(dt, s, depth);
  return UOp();
}

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
    in.focus = e_.chance(0.5) ? r : r2;  // either range, uniformly
  }
  UOp v;
  if (end_budget(in) >= min_end() && e_.chance(p_.p_nested_reduce)) {
    v = reduce(dt, in, depth + 1);
    if (!dt.is_bool() && e_.chance(p_.p_nested_reduce_combined)) {
      const Op combine = e_.chance(0.5) ? Op::Add : Op::Sub;
      v = alu(combine, {v, value(dt, in, depth + 1)});
    }
  } else {
    v = value(dt, in, depth + 1);
  }
  std::vector<UOp> src{v};
  src.insert(src.end(), rs.begin(), rs.end());
  return mk(Op::Reduce, dt, std::move(src), ReduceArg{op});
}

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
        return e_.chance(0.5) ? alu(Op::Add, {i, I(1)}) : i;  // cumulative sums use i + 1
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
    if (e_.chance(0.5)) {
      const int64_t lo = -e_.between(0, 2);
      y = var(dtypes::Index, lo, e_.between(1, 3));
    } else {
      y = I(e_.between(-2, 3));
    }
    x = e_.chance(0.5) ? alu(Op::Add, {r, y}) : alu(Op::Mul, {r, y});
  }
  const auto& forms = p_.bound_forms;
  switch (e_.pick({forms.upper, forms.lower, forms.two_sided})) {
    case 0: w = where(lt(x, cut()), v, zero(dt)); break;
    case 1: w = where(lt(x, cut()), zero(dt), v); break;
    default: {
      UOp lo = bnot(lt(x, cut())), hi = lt(r, cut());
      w = where(e_.chance(0.5) ? alu(Op::And, {lo, hi}) : alu(Op::And, {hi, lo}), v, zero(dt));
      break;
    }
  }
  return mk(Op::Reduce, dt, {w, r}, ReduceArg{Op::Add});
}

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

UOp Builder::shielded_fault(DType dt, const Scope& s, int depth) {
  const int64_t nmax = e_.between(1, std::max<int64_t>(1, end_budget(s) / 2));
  UOp r = range(var(dtypes::Index, 0, nmax, std::nullopt, 0), AxisType::Reduce);
  Scope in = inner(s, r);
  if (dt.is_int() && !dt.is_index() && e_.chance(0.5)) {
    // sum_{r<n} where(r < k, x / d, 0) with n = d = 0 in the header: a bound-rule shape
    // whose closed form would evaluate x / 0 (the zero-trip gate of reduce_collapse).
    // Each draw in its own statement: argument evaluation order differs between compilers.
    UOp d = var(dt, 0, 3, std::nullopt, 0);
    UOp k = I(e_.between(1, 4));
    UOp x = value(dt, under(s, r), depth + 1);
    UOp g = where(alu(Op::CmpLt, {r, k}), alu(Op::Cdiv, {x, d}), zero(dt));
    return mk(Op::Reduce, dt, {g, r}, ReduceArg{Op::Add});
  }
  UOp r2 = range(I(e_.between(2, std::max<int64_t>(2, std::min<int64_t>(end_budget(in), 6)))),
                 AxisType::Reduce);
  UOp f = e_.chance(0.5) ? alu(Op::Mul, {cast(dt, r), cast(dt, r)}) : value(dt, in, depth + 1);
  UOp x = value(dt, under(under(s, r), r2), depth + 1);
  UOp g = alu(Op::Cdiv, {x, alu(Op::Sub, {cast(dt, r2), cint(dt, e_.between(0, 1))})});
  return mk(Op::Reduce, dt, {alu(Op::Add, {f, g}), r, r2}, ReduceArg{Op::Add});
}

UOp Builder::gather(DType dt, const Scope& s, int depth) {
  // tinygrad compares in int32: idx != CAST(r). An int8 compare over an end just past 127
  // is the lossy side of that gate (int8(128) == -128 matches a second r): drawn where the
  // policy allows such an end (max_range_end and the iteration budget).
  const bool cast_range = e_.chance(p_.p_gather_cast_range);
  constexpr int64_t kNarrowEnd = 132;
  const bool narrow =
      cast_range && end_budget(s) >= kNarrowEnd && e_.chance(p_.p_gather_cast_narrow);
  UOp n = narrow ? I(e_.between(124, kNarrowEnd)) : range_end(end_budget(s));
  const int64_t nmax = std::max<int64_t>(1, bnd(n).hi);
  UOp r = range(n, AxisType::Reduce);
  const bool outside = e_.chance(p_.p_gather_index_outside);
  UOp idx;
  if (narrow) {
    const int64_t hi = outside ? 127 : -120;  // -128..-125 are the wrapped r of 128..131
    const int k = new_input(dtypes::Int8, true, -128, hi);
    if (k >= 0) idx = load_at(k, index_expr(s, depth + 1), s);
  }
  if (!idx) idx = loaded_index(s, depth, outside ? -2 : 0, outside ? nmax + 1 : nmax - 1);
  if (!idx) idx = var(dtypes::Index, outside ? -2 : 0, outside ? nmax + 1 : nmax - 1);
  Scope in = inner(s, r);
  UOp e;
  if (e_.chance(p_.p_gather_load_term)) {
    const int k = data_input(dt);
    e = k >= 0 ? load_at(k, r, in) : cast(dt, r);
    if (e_.chance(p_.p_gather_extra_term)) e = alu(Op::Add, {e, value(dt, in, depth + 1)});
  } else {
    e = value(dt, in, depth + 1);
  }
  UOp rr = e_.chance(p_.p_gather_offset) ? alu(Op::Add, {r, I(e_.between(1, 2))})
                                         : r;  // (r + k) != idx: lift_add_ne
  // Compare in the loaded buffer's own dtype: CAST(index(load)) is the load itself.
  if (cast_range && idx.op() == Op::Cast) idx = idx.src(0);
  if (!idx.dtype().is_index()) rr = cast(idx.dtype(), rr);
  UOp ne = e_.chance(0.5) ? alu(Op::CmpNe, {idx, rr}) : alu(Op::CmpNe, {rr, idx});
  return mk(Op::Reduce, dt, {where(ne, zero(dt), e), r}, ReduceArg{Op::Add});
}

UOp Builder::strided_sum(DType dt, const Scope& s, int depth) {
  if (end_budget(s) < 2) return UOp();
  const int k_in = data_input(dt);
  if (k_in < 0) return UOp();
  const int64_t k = e_.between(2, 4);
  if (e_.chance(0.5)) {  // the pair itself: sum_r x[(m%c)*k + (m//c)*(c*k)], m = r + o
    UOp r = range(I(e_.between(2, end_budget(s))), AxisType::Reduce);
    const int64_t c = e_.between(2, 5);
    UOp m = alu(Op::Add, {r, I(e_.between(0, 3))});
    UOp lo = alu(Op::Mul, {alu(Op::FloorMod, {m, I(c)}), I(k)});
    UOp hi = alu(Op::Mul, {alu(Op::FloorDiv, {m, I(c)}), I(c * k)});
    UOp at = e_.chance(0.5) ? alu(Op::Add, {lo, hi}) : alu(Op::Add, {hi, lo});
    return mk(Op::Reduce, dt, {load_at(k_in, at, inner(s, r)), r}, ReduceArg{Op::Add});
  }
  UOp r0 = range(I(e_.between(2, std::min<int64_t>(end_budget(s), 4))), AxisType::Reduce);
  Scope in = inner(s, r0);
  if (end_budget(in) < 2) return UOp();
  const int64_t b = e_.between(2, std::min<int64_t>(end_budget(in), 8));
  UOp r1 = range(I(b), AxisType::Reduce);
  in = inner(in, r1);
  UOp j = !s.ranges.empty() && e_.chance(0.5) ? range_leaf(s) : I(e_.between(0, k - 1));
  UOp at =
      alu(Op::Add, {alu(Op::Add, {alu(Op::Mul, {r0, I(b * k)}), alu(Op::Mul, {r1, I(k)})}), j});
  return mk(Op::Reduce, dt, {load_at(k_in, at, in), r0, r1}, ReduceArg{Op::Add});
}

}  // namespace uopfuzz::gen
