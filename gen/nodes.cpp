#include "gen/nodes.h"

#include <fmt/format.h>

#include <algorithm>

namespace uopfuzz::gen {

ValueBounds value_bounds(uint64_t shape, bool is_unsigned) {
  switch (shape) {
    case 0: return {1, 8, std::nullopt};
    case 1: return {0, 15, std::nullopt};
    case 2: return {is_unsigned ? 0 : -12, 12, 4};
    default: return {is_unsigned ? 0 : -3, 20, std::nullopt};
  }
}

UOp Nodes::bnot(UOp b, uint64_t spelling) const {
  switch (spelling) {
    case 0: return alu(Op::CmpNe, {b, ctx_.const_bool(true)});
    case 1: return alu(Op::Xor, {b, ctx_.const_bool(true)});
    default: return alu(Op::CmpEq, {b, ctx_.const_bool(false)});
  }
}

UOp Nodes::range(UOp end, AxisType t) {
  RangeArg a;
  a.axis.push_back(next_axis_++);
  a.type = t;
  return mk(Op::Range, dtypes::Index, {end}, std::move(a));
}

UOp Nodes::var(DType dt, int64_t lo, int64_t hi, std::optional<int64_t> mult) {
  return mk(Op::Var, dt, {}, VarArg{fmt::format("v{}", next_var_++), lo, hi, mult});
}

UOp Nodes::param(DType dt, int64_t size, bool output, std::optional<int64_t> vmin,
                 std::optional<int64_t> vmax, std::optional<int64_t> mult) {
  ParamArg a;
  a.slot = next_slot_++;
  a.size = std::max<int64_t>(1, size);
  a.output = output;
  a.vmin = vmin, a.vmax = vmax, a.multiple_of = mult;
  return mk(Op::Param, dt, {}, a);
}

UOp Nodes::load_gated(UOp buf, UOp valid, UOp idx, UOp alt) const {
  UOp at = index(buf, where(valid, idx, ctx_.invalid()));
  if (!alt) return mk(Op::Load, buf.dtype(), {at});
  return mk(Op::Load, buf.dtype(), {at, alt});
}

UOp Nodes::end(UOp body, const std::vector<UOp>& ranges) const {
  if (ranges.empty()) return body;
  std::vector<UOp> src{body};
  src.insert(src.end(), ranges.begin(), ranges.end());
  return mk(Op::End, dtypes::Void, std::move(src));
}

UOp Nodes::reduce(Op op, UOp value, const std::vector<UOp>& ranges) const {
  std::vector<UOp> src{value};
  src.insert(src.end(), ranges.begin(), ranges.end());
  return mk(Op::Reduce, value.dtype(), std::move(src), ReduceArg{op});
}

UOp Nodes::flat_index(const std::vector<UOp>& rs, bool horner) const {
  if (rs.empty()) return I(0);
  auto times = [&](UOp a, UOp b) {
    if (a.is_const() && b.is_const()) return I(a.const_value().i * b.const_value().i);
    return alu(Op::Mul, {a, b});
  };
  if (horner) {
    UOp acc = rs[0];
    for (size_t k = 1; k < rs.size(); ++k) acc = alu(Op::Add, {times(acc, rs[k].src(0)), rs[k]});
    return acc;
  }
  UOp acc = rs.back(), stride;
  for (size_t k = rs.size() - 1; k-- > 0;) {
    stride = stride ? times(rs[k + 1].src(0), stride) : rs[k + 1].src(0);
    acc = alu(Op::Add, {times(rs[k], stride), acc});
  }
  return acc;
}

}  // namespace uopfuzz::gen
