// The quantized families (QuantNodeWeights): quantized tensors only convert, move, select
// and reduce. The reduces aim at the unit-axis rule (size-1 axes only) and at the int32
// accumulator (a few elements of extent > 1).
#include <algorithm>
#include <array>
#include <numeric>

#include "gen/quant_types.h"
#include "gen/tensor/builder.h"
#include "ir/quant.h"
#include "ir/tensor.h"

namespace uopfuzz::gen {

using namespace ir;

UOp TensorBuilder::quant_input(DType qt, const Shape& s, int) {
  return input(qt, s);
}

UOp TensorBuilder::quantize(DType qt, const Shape& s, int depth) {
  const QuantizeSourceWeights& w = p_.quantize_from;
  const DType f = std::array{dtypes::Float32, dtypes::Float16,
                             dtypes::Float64}[e_.pick({w.float32, w.float16, w.float64})];
  return ctx_.make(Op::Quantize, qt, {fill(f, s, depth)}, {}, s);
}

UOp TensorBuilder::requantize(DType qt, const Shape& s, int depth) {
  const DType from = draw_requantize_source(e_, p_.quant, qt);
  return ctx_.make(Op::Requantize, qt, {fill(from, s, depth)}, {}, s);
}

UOp TensorBuilder::quant_where(DType qt, const Shape& s, int depth) {
  UOp c = fill(dtypes::Bool, s, depth);
  UOp a = fill(qt, s, depth);
  return ctx_.make(Op::Where, qt, {c, a, fill(qt, s, depth)}, {}, s);
}

UOp TensorBuilder::quant_bitcast(DType qt, const Shape& s, int depth) {
  return ctx_.make(Op::Bitcast, qt, {fill(qt.storage(), s, depth)}, {}, s);
}

UOp TensorBuilder::quant_movement(DType qt, const Shape& s, int depth) {
  return movement(qt, s, depth);
}

/// The op of a quantized REDUCE_AXIS: ADD, MAX or MIN (MUL is unsupported).
Op TensorBuilder::quantized_reduce_op() {
  const TensorReduceOpWeights& w = p_.reduce_ops;
  return std::array{Op::Add, Op::Max, Op::Min}[e_.pick({w.add, w.max, w.min})];
}

/// REDUCE_AXIS of a `from`-shaped tensor over `axes` to type `qt`, its input type a
/// partner of qt (p_same_reduce_type: qt itself) that the int32 accumulator supports, then
/// reshaped to `s`.
UOp TensorBuilder::quantized_reduce(DType qt, const Shape& s, Shape from, std::vector<int64_t> axes,
                                    int depth) {
  const Op op = quantized_reduce_op();
  int64_t terms = 1;
  for (int64_t a : axes) terms *= std::max<int64_t>(1, from[static_cast<size_t>(a)]);
  if (op != Op::Add) terms = 1;
  DType in = qt;
  if (!e_.chance(p_.p_same_reduce_type) || requantize_unsupported(qt, qt, terms))
    in = draw_requantize_source(e_, p_.quant, qt, terms);
  if (requantize_unsupported(in, qt, terms)) return {};
  Shape out = from;
  for (int64_t a : axes) out[static_cast<size_t>(a)] = 1;
  UOp r = ctx_.make(Op::ReduceAxis, qt, {fill(in, from, depth)}, ReduceAxisArg{op, axes}, out);
  if (out == s) return r;
  if (numel(out) == numel(s)) return tensor::reshape(ctx_, r, s);
  // Every axis reduced: one element, shaped and broadcast back to the position.
  return tensor::expand(ctx_, tensor::reshape(ctx_, r, Shape(s.size(), 1)), s);
}

/// A quantized REDUCE_AXIS over size-1 axes only (UnitAxisWeights): the identity on reals,
/// which the unit-axis rule turns into its input or a REQUANTIZE, after the normalization
/// stage removed the size-1 dims (axes = [] must stay "reduce nothing").
UOp TensorBuilder::unit_reduce(DType qt, const Shape& s, int depth) {
  const UnitAxisWeights& w = p_.unit_axes;
  enum How : uint8_t { One, Several, All, None, BesideWide };
  const auto how = static_cast<How>(e_.pick({w.one, w.several, w.all, w.none, w.beside_wide}));
  if (how == None) return quantized_reduce(qt, s, s, {}, depth);
  if (how == All) {
    const Shape from(static_cast<size_t>(e_.between(1, std::max(p_.max_rank, 1))), 1);
    std::vector<int64_t> all(from.size());
    std::iota(all.begin(), all.end(), 0);
    return quantized_reduce(qt, s, from, std::move(all), depth);
  }
  // Size-1 dims of s, or inserted ones (reshaped away after), reduced; beside_wide may
  // also insert a size-1 dim it keeps, next to s's wide dims ([1,5,7,9] with axes [0]).
  const int64_t want = how == Several ? e_.between(2, p_.max_several_axes) : 1;
  Shape from = s;
  std::vector<bool> reduced(s.size(), false);
  auto insert_one = [&](bool reduce) {
    if (static_cast<int>(from.size()) >= p_.max_rank) return false;
    const auto at = static_cast<std::ptrdiff_t>(e_.below(from.size() + 1));
    from.insert(from.begin() + at, 1);
    reduced.insert(reduced.begin() + at, reduce);
    return true;
  };
  if (how == BesideWide && e_.chance(p_.p_unit_keep_inserted)) insert_one(false);
  for (int64_t k = 0; k < want; ++k) {
    std::vector<size_t> ones;
    for (size_t i = 0; i < from.size(); ++i)
      if (!reduced[i] && from[i] == 1) ones.push_back(i);
    if (!ones.empty() &&
        (e_.chance(p_.p_unit_existing_one) || static_cast<int>(from.size()) >= p_.max_rank))
      reduced[ones[e_.below(ones.size())]] = true;
    else if (!insert_one(true))
      break;
  }
  std::vector<int64_t> axes;
  for (size_t i = 0; i < from.size(); ++i)
    if (reduced[i]) axes.push_back(static_cast<int64_t>(i));
  if (axes.empty()) return {};
  return quantized_reduce(qt, s, from, std::move(axes), depth);
}

/// A quantized REDUCE_AXIS over axes of extent > 1 (few elements: the int32 accumulator).
UOp TensorBuilder::sum_reduce(DType qt, const Shape& s, int depth) {
  Shape from = s;
  std::vector<bool> reduced(s.size(), false);
  const int64_t want = e_.between(1, p_.max_sum_axes);
  int64_t terms = 1;
  for (int64_t k = 0; k < want; ++k) {
    // Never a degenerate extent: a quantized sum over axes of extent > 1.
    const int64_t extent = std::max<int64_t>(reduce_extent(), 2);
    if (terms * extent > p_.max_quant_sum_terms) break;
    std::vector<size_t> ones;
    for (size_t i = 0; i < from.size(); ++i)
      if (!reduced[i] && from[i] == 1) ones.push_back(i);
    const bool room = static_cast<int>(from.size()) < p_.max_rank;
    if (!ones.empty() && (!room || e_.chance(p_.p_sum_existing_one))) {
      const size_t i = ones[e_.below(ones.size())];
      from[i] = extent;
      reduced[i] = true;
    } else if (room) {
      const auto at = static_cast<std::ptrdiff_t>(e_.below(from.size() + 1));
      from.insert(from.begin() + at, extent);
      reduced.insert(reduced.begin() + at, true);
    } else {
      break;
    }
    terms *= extent;
  }
  std::vector<int64_t> axes;
  for (size_t i = 0; i < from.size(); ++i)
    if (reduced[i]) axes.push_back(static_cast<int64_t>(i));
  if (axes.empty() || !fits(from, s)) return {};
  return quantized_reduce(qt, s, from, std::move(axes), depth);
}

}  // namespace uopfuzz::gen
