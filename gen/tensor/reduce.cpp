// The reduce families: REDUCE_AXIS over inserted or size-1 axes (ReduceAxesWeights: one,
// several, all, none), reshaped or expanded back to the position's shape; and x op
// expand(reduce(x, axis)), softmax's x - x.max(1).
#include <algorithm>
#include <array>
#include <numeric>

#include "gen/tensor/builder.h"
#include "ir/tensor.h"

namespace uopfuzz::gen {

using namespace ir;

Op TensorBuilder::reduce_op(DType dt, int64_t combined) {
  const TensorReduceOpWeights& w = p_.reduce_ops;
  const bool mul_ok = !dt.is_bool() && combined <= p_.max_mul_reduce;
  const bool sum_ok = !dt.is_bool();
  return std::array{Op::Add, Op::Mul, Op::Max,
                    Op::Min}[e_.pick({sum_ok ? w.add : 0.0, mul_ok ? w.mul : 0.0, w.max, w.min})];
}

UOp TensorBuilder::reduce_everything(DType dt, const Shape& s, int depth) {
  const Shape from = draw_shape();
  std::vector<int64_t> all(from.size());
  std::iota(all.begin(), all.end(), 0);
  UOp r =
      tensor::reduce_axis(ctx_, fill(dt, from, depth), reduce_op(dt, numel(from)), std::move(all));
  r = tensor::reshape(ctx_, r, Shape(s.size(), 1));
  return is_all_ones(s) ? r : tensor::expand(ctx_, r, s);
}

UOp TensorBuilder::reduce(DType dt, const Shape& s, int depth) {
  const ReduceAxesWeights& w = p_.reduce_axes;
  enum Mode : uint8_t { One, Several, All, SizeOne, None };
  const auto mode = static_cast<Mode>(e_.pick({w.one, w.several, w.all, w.size_one, w.none}));
  if (mode == None) return tensor::reduce_axis(ctx_, fill(dt, s, depth), reduce_op(dt, 1), {});
  // Everything into one element, then shaped and broadcast back to the position.
  if (mode == All) return reduce_everything(dt, s, depth);
  // Reduced axes are dims of extent 1 in `s` or dims inserted into it (reshaped away after).
  const bool size_one = mode == SizeOne;
  const int64_t want = mode == Several ? e_.between(2, p_.max_several_axes)
                       : size_one      ? e_.between(1, p_.max_size_one_axes)
                                       : 1;
  Shape from = s;
  std::vector<bool> inserted(s.size(), false), reduced(s.size(), false);
  for (int64_t k = 0; k < want; ++k) {
    std::vector<size_t> ones;
    for (size_t i = 0; i < from.size(); ++i)
      if (!inserted[i] && !reduced[i] && from[i] == 1) ones.push_back(i);
    const bool room = static_cast<int>(from.size()) < p_.max_rank;
    const int64_t extent = size_one ? 1 : reduce_extent();
    if (!ones.empty() && (!room || e_.chance(p_.p_reduce_existing_one))) {
      const size_t i = ones[e_.below(ones.size())];
      from[i] = extent;
      reduced[i] = true;
    } else if (room) {
      const auto at = static_cast<std::ptrdiff_t>(e_.below(from.size() + 1));
      from.insert(from.begin() + at, extent);
      inserted.insert(inserted.begin() + at, true);
      reduced.insert(reduced.begin() + at, true);
    }
  }
  std::vector<int64_t> axes;
  int64_t combined = 1;
  for (size_t i = 0; i < from.size(); ++i)
    if (reduced[i]) {
      axes.push_back(static_cast<int64_t>(i));
      combined *= std::max<int64_t>(from[i], 1);
    }
  if (axes.empty() || !fits(from, s)) return {};
  UOp r =
      tensor::reduce_axis(ctx_, fill(dt, from, depth), reduce_op(dt, combined), std::move(axes));
  return from.size() == s.size() ? r : tensor::reshape(ctx_, r, s);
}

/// x op expand(reduce(x, axis)): one consumer reduced, one not.
UOp TensorBuilder::reduce_broadcast(DType dt, const Shape& s, int depth) {
  if (s.empty()) return {};
  const auto axis = static_cast<int64_t>(e_.below(s.size()));
  UOp x = fill(dt, s, depth);
  UOp r = tensor::reduce_axis(ctx_, x, reduce_op(dt, s[static_cast<size_t>(axis)]), {axis});
  if (r.shape() != s) r = tensor::expand(ctx_, r, s);
  return tensor::alu(ctx_, combine_op(dt), {x, r});
}

}  // namespace uopfuzz::gen
