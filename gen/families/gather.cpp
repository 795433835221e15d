// Gathers written as sums: sum_r where(idx != r, 0, e(r)), idx a loaded index.
#include <algorithm>
#include <cstdint>

#include "gen/builder.h"

namespace uopfuzz::gen {

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
  UOp ne = e_.coin() ? alu(Op::CmpNe, {idx, rr}) : alu(Op::CmpNe, {rr, idx});
  return mk(Op::Reduce, dt, {where(ne, zero(dt), e), r}, ReduceArg{Op::Add});
}

}  // namespace uopfuzz::gen
