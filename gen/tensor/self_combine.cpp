// Nodes read twice: x op m(x) with m a movement that keeps the shape (the self-combine
// family, and share() for the buffer rules' shapes), and CONTIGUOUS.
#include <array>
#include <numeric>

#include "gen/tensor/builder.h"
#include "ir/tensor.h"

namespace uopfuzz::gen {

using namespace ir;

Op TensorBuilder::combine_op(DType dt) {
  static constexpr Op kLogic[] = {Op::And, Op::Or, Op::Xor};
  if (dt.is_bool()) return option(kLogic);
  if (dt.is_float()) {
    const TensorFloatOpWeights& w = p_.float_ops;
    return std::array{Op::Add, Op::Sub, Op::Max, Op::Min}[e_.pick({w.add, w.sub, w.max, w.min})];
  }
  const TensorIntOpWeights& w = p_.int_ops;
  return std::array{Op::Add, Op::Sub, Op::Max, Op::Min,
                    Op::Xor}[e_.pick({w.add, w.sub, w.max, w.min, w.xor_})];
}

/// x op m(x), m a movement that keeps the shape: two consumers indexing x differently.
UOp TensorBuilder::self_combine(DType dt, const Shape& s, int depth) {
  UOp x = fill(dt, s, depth);
  return tensor::alu(ctx_, combine_op(dt), {x, other_view(x, true)});
}

UOp TensorBuilder::contiguous(DType dt, const Shape& s, int depth) {
  return tensor::contiguous(ctx_, fill(dt, s, depth));
}

/// x op m(x) with m re-indexing x (x itself when its shape has no dim to move): the shapes
/// of the buffer families are built so that rangeify makes a removable BUFFERIZE of x.
UOp TensorBuilder::share(UOp x) {
  if (!x) return x;
  return tensor::alu(ctx_, combine_op(x.dtype()),
                     {x, other_view(x, e_.chance(p_.p_share_may_agree))});
}

/// A movement of x to its own shape (OtherViewWeights): a flip, a swap of two equal dims, a
/// shift by one (PAD a side, SHRINK the other) or, when `may_agree`, a reshape there and back.
UOp TensorBuilder::other_view(UOp x, bool may_agree) {
  const Shape& s = x.shape();
  std::vector<std::pair<size_t, size_t>> equal_dims;
  for (size_t i = 0; i < s.size(); ++i)
    for (size_t j = i + 1; j < s.size(); ++j)
      if (s[i] == s[j] && s[i] > 1) equal_dims.emplace_back(i, j);
  const bool any_dim = !s.empty();
  if (!any_dim && !may_agree) return x;
  const OtherViewWeights& w = p_.other_views;
  switch (e_.pick({any_dim ? w.flip : 0.0, equal_dims.empty() ? 0.0 : w.swap_equal,
                   any_dim ? w.shift : 0.0, may_agree ? w.reshape_round_trip : 0.0})) {
    case 0: return tensor::flip(ctx_, x, some_axes(s.size()));
    case 1: {
      const auto [i, j] = equal_dims[e_.below(equal_dims.size())];
      std::vector<int64_t> order(s.size());
      std::iota(order.begin(), order.end(), 0);
      std::swap(order[i], order[j]);
      return tensor::permute(ctx_, x, std::move(order));
    }
    case 2: {
      // Shift one axis by one: PAD a side, SHRINK the other off.
      const size_t i = e_.below(s.size());
      Pads pads(s.size(), {0, 0}), cuts;
      const bool front = coin();
      pads[i] = front ? std::pair<int64_t, int64_t>{1, 0} : std::pair<int64_t, int64_t>{0, 1};
      for (size_t d = 0; d < s.size(); ++d)
        cuts.emplace_back(d == i && !front ? 1 : 0, (d == i && !front ? 1 : 0) + s[d]);
      return tensor::shrink(ctx_, tensor::pad(ctx_, x, std::move(pads)), std::move(cuts));
    }
    default: return tensor::reshape(ctx_, tensor::reshape(ctx_, x, refactor(numel(s))), s);
  }
}

}  // namespace uopfuzz::gen
