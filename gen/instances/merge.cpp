// Merge: adjacent END ranges addressed as i*N + j (and other combinations), REDUCE
// range pairs, inner REDUCEs that hold one range or both.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "gen/instances/builder.h"

namespace uopfuzz::gen {

namespace {
/// The value a store over the adjacent ranges writes.
enum class MergeValue : uint8_t {
  Digits,       ///< 10*r0 + r1 (+ 100*r2)
  TwoLoads,     ///< in[r0] + in[r_last]
  InnerReduce,  ///< an inner REDUCE holding one of the ranges (or both)
  Linear,       ///< the linear index
};
constexpr MergeValue kMergeValues[] = {MergeValue::Digits, MergeValue::TwoLoads,
                                       MergeValue::InnerReduce, MergeValue::Linear};
}  // namespace

void InstanceBuilder::merge() {
  const int n = chance(w_.p_merge_three_ranges) ? 3 : 2;
  std::vector<End> ends;
  std::vector<UOp> rs;
  int64_t total = 1;
  const ir::AxisType t = chance(w_.p_merge_loop_axes) ? ir::AxisType::Loop : ir::AxisType::Global;
  for (int i = 0; i < n; ++i) {
    End e = make_end(policy_.negative_range_ends ? -2 : 1, 4, w_.p_merge_var_end);
    ends.push_back(e);
    total *= std::max<int64_t>(e.hi, 1);
    ir::AxisType ti = chance(w_.p_merge_local_axis) ? ir::AxisType::Local : t;
    rs.push_back(range(e.node, ti));
  }
  auto stride = [&](int i) { return std::max<int64_t>(ends[i].hi, 1); };
  // Row-major or column-major linear index: injective either way.
  UOp lin;
  const bool row_major = chance(w_.p_merge_row_major);
  if (row_major) {
    lin = rs[0];
    for (int i = 1; i < n; ++i) lin = add(mul(lin, I(stride(i))), rs[i]);
  } else {
    lin = rs[n - 1];
    for (int i = n - 2; i >= 0; --i) lin = add(mul(lin, I(stride(i))), rs[i]);
  }
  if (chance(w_.p_merge_reduce)) {
    // A REDUCE over all the ranges (every ordered pair may merge), stored per outer i.
    End oe = make_end(1, 3, kNeverVar);
    UOp i = range(oe.node);
    UOp v = load(in_f32(), chance(w_.p_merge_reduce_linear) ? lin : rs[0]);
    if (chance(w_.p_merge_reduce_scaled)) v = mul(v, cast(ir::dtypes::Float32, i));
    std::vector<UOp> order = rs;
    std::shuffle(order.begin(), order.end(), rng_);
    UOp red = reduce(one_of<Op>({Op::Add, Op::Add, Op::Max}), v, order);
    UOp out = buffer(ir::dtypes::Float32, oe.hi, true);
    effects_.push_back(end(store(out, i, red), {i}));
    return;
  }
  UOp v;
  switch (option(kMergeValues)) {
    case MergeValue::Digits: {
      UOp acc = I(0);
      for (int i = 0; i < n; ++i) acc = add(mul(acc, I(10)), rs[i]);
      v = cast(ir::dtypes::Int32, acc);
      break;
    }
    case MergeValue::TwoLoads: v = add(load(in_i32(), rs[0]), load(in_i32(), rs[n - 1])); break;
    case MergeValue::InnerReduce: {
      End ke = make_end(1, 4, kNeverVar);
      UOp k = range(ke.node, ir::AxisType::Reduce);
      UOp term = chance(w_.p_merge_inner_first_range) ? add(mul(rs[0], I(4)), k) : add(lin, k);
      UOp inner = reduce(Op::Add, load(in_i32(), term), {k});
      v = add(inner, cast(ir::dtypes::Int32, rs[n - 1]));
      break;
    }
    case MergeValue::Linear: v = cast(ir::dtypes::Int32, lin); break;
  }
  UOp out = buffer(ir::dtypes::Int32, total, true);
  UOp st = store(out, lin, v);
  if (n == 3 && chance(w_.p_merge_nested_ends)) {
    effects_.push_back(end(end(st, {rs[2]}), {rs[0], rs[1]}));  // nested: merge within a list
  } else {
    effects_.push_back(end(st, rs));
  }
}

}  // namespace uopfuzz::gen
