// The buffer rules' families (schedule/buffers.h): each builds a node read by two consumers
// at indices that disagree, so that rangeify makes a removable BUFFERIZE of it: a reduce in
// its scope, a unary op read inside and outside a reduce, many inputs, a PAD-gated read, a
// CONST, dead axes, a division under a gate, a partially inlinable buffer.
#include <algorithm>
#include <array>

#include "gen/tensor/builder.h"
#include "ir/tensor.h"

namespace uopfuzz::gen {

using namespace ir;

/// A reduce at the position's shape, read twice: a BUFFERIZE with a reduce in its scope
/// (and, reduced over every axis, a scalar whose axes are all dead).
UOp TensorBuilder::shared_reduce(DType dt, const Shape& s, int depth) {
  if (e_.chance(p_.p_shared_reduce_all)) return reduce_everything(dt, s, depth);
  return share(reduce(dt, s, depth));
}

/// u op expand(reduce(u)) with u a unary op: argmax(-x) reads -x inside the reduce's scope
/// and outside it.
UOp TensorBuilder::unary_in_reduce(DType dt, const Shape& s, int depth) {
  if (s.empty() || numel(s) == 0) return {};
  UOp u;
  if (dt.is_bool() || e_.chance(p_.p_unary_cast))
    u = cast_into(dt, s, depth);
  else
    u = tensor::alu(ctx_, Op::Neg, {fill(dt, s, depth)});
  const auto axis = static_cast<int64_t>(e_.below(s.size()));
  UOp r = tensor::reduce_axis(ctx_, u, reduce_op(dt, s[static_cast<size_t>(axis)]), {axis});
  if (r.shape() != s) r = tensor::expand(ctx_, r, s);
  return tensor::alu(ctx_, combine_op(dt), {u, r});
}

/// 1..max_wide_inputs distinct inputs combined (one maybe reduced): inlining a read of it
/// reads that many buffers.
UOp TensorBuilder::wide_read(DType dt, const Shape& s, int depth) {
  const int64_t k = e_.between(1, std::max(p_.max_wide_inputs, 1));
  const int64_t reduced = e_.chance(p_.p_wide_reduce) ? e_.below(static_cast<uint64_t>(k)) : -1;
  UOp y;
  for (int64_t i = 0; i < k; ++i) {
    UOp term = i == reduced ? reduce(dt, s, depth) : UOp();
    if (!term) term = input(dt, s);
    y = y ? tensor::alu(ctx_, combine_op(dt), {y, term}) : term;
  }
  return y;
}

UOp TensorBuilder::wide_read_shared(DType dt, const Shape& s, int depth) {
  return share(wide_read(dt, s, depth));
}

/// y op shift(pad(y)): a PAD-gated read of y next to an ungated one.
UOp TensorBuilder::pad_shared(DType dt, const Shape& s, int depth) {
  if (std::none_of(s.begin(), s.end(), [](int64_t d) { return d > 0; })) return {};
  return pad_read(dt, s, fill(dt, s, depth), false);
}

/// shift(pad(y)) of one nonempty axis, beside y unless `alone`; null when no axis is nonempty.
UOp TensorBuilder::pad_read(DType dt, const Shape& s, UOp y, bool alone) {
  std::vector<size_t> dims;
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] > 0) dims.push_back(i);
  if (dims.empty()) return {};
  const size_t i = dims[e_.below(dims.size())];
  const int64_t total = e_.between(1, p_.max_shift_pad);
  const int64_t before = e_.between(0, total);
  int64_t begin = e_.between(0, total);
  if (begin == before) begin = (begin + 1) % (total + 1);
  Pads pads(s.size(), {0, 0}), cuts;
  pads[i] = {before, total - before};
  for (size_t d = 0; d < s.size(); ++d)
    cuts.emplace_back(d == i ? begin : 0, (d == i ? begin : 0) + s[d]);
  UOp shifted = tensor::shrink(ctx_, tensor::pad(ctx_, y, std::move(pads)), std::move(cuts));
  if (alone) return shifted;
  return tensor::alu(ctx_, combine_op(dt), {y, shifted});
}

/// shift(pad(a / d)) (alone, or beside a / d) with d an input of nonzero range: where the
/// PAD's gate is off the lowered loads of d read 0, so the division must stay in a buffer
/// computed where it is valid (rangeify's realize, buffer_keep_gate); inlining it under
/// the gate divides by that 0.
UOp TensorBuilder::gated_divide(DType dt, const Shape& s, int depth) {
  if (!sized_int(dt) || numel(s) == 0) return {};
  UOp d = nonzero_input(dt, s);
  if (!d) return {};
  static constexpr Op kDivisions[] = {Op::Cdiv, Op::Cmod, Op::FloorDiv, Op::FloorMod};
  const Op op = option(kDivisions);
  UOp y = tensor::alu(ctx_, op, {fill(dt, s, depth), d});
  return pad_read(dt, s, y, e_.chance(p_.p_gated_divide_alone));
}

/// n = reduce(pad(expand(x))) of shape [m, b] (x of k <= partial_max_broadcast elements),
/// read by two reduces over its axis 1 (one through a FLIP): n is a removable buffer with a
/// reduce in scope that holds >= 10x the elements it reads, and each read indexes axis 1 with
/// a reduce range and axis 0 without: buffer_partial_inline's shape at pcontig > 2
/// (buffer_keep_reduce below). The two results combine to [m, 1], reshaped to the position
/// (m = its elements; a one-element position reduces axis 0 too).
UOp TensorBuilder::partial_shared(DType dt, const Shape& s, int depth) {
  const int64_t want = numel(s);
  if (want == 0 || dt.is_quantized()) return {};
  const int64_t m = std::max<int64_t>(want, 2);
  const int64_t k = e_.between(1, p_.partial_max_broadcast);
  // (m * b + 1) / (k + 1) >= kPartialInlineRatio (10), the inputs being x's k elements.
  const int64_t b =
      std::max<int64_t>(e_.between(2, p_.partial_max_width), (10 * k + 9 + m - 1) / m);
  if (m * b * k > std::max<int64_t>(p_.split_max_numel, 1)) return {};
  UOp x = e_.chance(p_.p_partial_fresh_input) ? input(dt, Shape{1, 1, k})
                                              : fill(dt, Shape{1, 1, k}, depth);
  // Padded on axes 0 and 1, so that n's value uses both of its ranges (an expand alone
  // would leave them dead, and dead-axis removal would make n a scalar).
  const int64_t pm = e_.between(1, std::min<int64_t>(2, m - 1));
  const int64_t pb = e_.between(1, std::min<int64_t>(2, b - 1));
  const int64_t before_m = e_.between(0, pm), before_b = e_.between(0, pb);
  UOp t = tensor::pad(ctx_, tensor::expand(ctx_, x, Shape{m - pm, b - pb, k}),
                      {{before_m, pm - before_m}, {before_b, pb - before_b}, {0, 0}});
  UOp n = tensor::reshape(ctx_, tensor::reduce_axis(ctx_, t, reduce_op(dt, k), {2}), Shape{m, b});
  UOp flipped = tensor::flip(
      ctx_, n,
      e_.chance(p_.p_partial_flip_one_axis) ? std::vector<int64_t>{1} : std::vector<int64_t>{0, 1});
  UOp a = tensor::reduce_axis(ctx_, n, reduce_op(dt, b), {1});
  UOp c = tensor::reduce_axis(ctx_, flipped, reduce_op(dt, b), {1});
  UOp out = tensor::alu(ctx_, combine_op(dt), {a, c});
  if (want == 1) out = tensor::reduce_axis(ctx_, out, reduce_op(dt, m), {0});
  return tensor::reshape(ctx_, out, s);
}

/// A CONST seen through a movement, read twice: BUFFERIZE(CONST), then INDEX(CONST).
UOp TensorBuilder::const_broadcast(DType dt, const Shape& s, int) {
  if (s.empty()) return {};
  Shape from = s;
  for (int64_t& d : from)
    if (e_.chance(p_.p_const_broadcast_dim)) d = 1;
  UOp c = constant(dt, from);
  c = from == s ? tensor::flip(ctx_, c, some_axes(s.size())) : tensor::expand(ctx_, c, s);
  return share(c);
}

/// An EXPAND of a smaller value (a scalar, a reduce's result or any value with 1s), read
/// twice: its BUFFERIZE has axes of size 1 and axes the value does not use.
UOp TensorBuilder::dead_axes(DType dt, const Shape& s, int depth) {
  if (is_all_ones(s)) return {};
  Shape from(s.size(), 1);
  if (!e_.chance(p_.p_dead_scalar))
    for (size_t i = 0; i < s.size(); ++i)
      if (e_.chance(p_.p_dead_keep_dim)) from[i] = s[i];
  if (from == s) from[first_wide(s)] = 1;
  UOp v = e_.chance(p_.p_dead_reduced) ? reduce(dt, from, depth) : UOp();
  if (!v) v = fill(dt, from, depth);
  return share(tensor::expand(ctx_, v, s));
}

}  // namespace uopfuzz::gen
