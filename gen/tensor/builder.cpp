// TensorBuilder's positions: the program's outputs, the weighted draw of a family for each
// position (gen/tensor_families.def, in its order), and the leaves.
#include "gen/tensor/builder.h"

#include <algorithm>
#include <array>

#include "gen/quant_types.h"
#include "ir/tensor.h"

namespace uopfuzz::gen {

using namespace ir;

namespace {
constexpr size_t kTensorFamilies = 0
#define TENSOR_FAMILY(e, name, weight, gate, builder, what) +1
#include "gen/tensor_families.def"
    ;
constexpr size_t kQuantFamilies = 0
#define QUANT_FAMILY(e, name, weight, builder, what) +1
#include "gen/tensor_families.def"
    ;
/// A declined family draws again this many times before the position becomes a leaf.
constexpr int kAttempts = 4;
}  // namespace

UOp TensorBuilder::build() {
  // Drawn first, and not at all at probability 0: the other draws stay what they were.
  degenerate_ = e_.chance(p_.p_degenerate_shapes);
  int outputs = 1;
  while (outputs < p_.max_outputs && e_.chance(p_.p_extra_output)) ++outputs;
  std::vector<UOp> realized;
  auto add_output = [&](UOp u) {
    if (std::find(realized.begin(), realized.end(), u) == realized.end()) realized.push_back(u);
  };
  if (e_.chance(p_.p_large_reduce)) add_output(large_reduce());
  while (static_cast<int>(realized.size()) < outputs && !e_.exhausted()) {
    const size_t before = realized.size();
    const DType dt =
        e_.chance(p_.p_quantized_output) ? draw_quant_type(e_, p_.quant) : draw_dtype();
    UOp u = fill(dt, draw_shape(), 0);
    if (e_.chance(p_.p_contiguous_output)) u = tensor::contiguous(ctx_, u);
    add_output(u);
    if (realized.size() == before) break;  // a repeated output: the pool is all there is
  }
  if (realized.empty()) realized.push_back(fill(draw_dtype(), draw_shape(), 0));
  return tensor::realize(ctx_, std::move(realized));
}

UOp TensorBuilder::fill(DType dt, const Shape& s, int depth) {
  --budget_;
  UOp u = fill_node(dt, s, depth);
  pool_[key(dt, s)].push_back(u);
  return u;
}

UOp TensorBuilder::fill_node(DType dt, const Shape& s, int depth) {
  if (dt.is_quantized()) return fill_quantized(dt, s, depth);
  if (budget_ <= 0 || depth >= p_.max_depth) return leaf(dt, s);
  const TensorNodeWeights& w = p_.nodes;
  const std::array<double, kTensorFamilies> weights = {
#define TENSOR_FAMILY(e, name, weight, gate, builder, what) gate(dt, s) ? w.weight : 0.0,
#include "gen/tensor_families.def"
  };
  // An infeasible choice (no source shape fits) declines; a few draws then a leaf.
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    UOp u;
    switch (static_cast<TensorFamily>(e_.pick(weights))) {
#define TENSOR_FAMILY(e, name, weight, gate, builder, what) \
  case TensorFamily::e:                                     \
    u = builder(dt, s, depth + 1);                          \
    break;
#include "gen/tensor_families.def"
    }
    if (u) return u;
  }
  return leaf(dt, s);
}

UOp TensorBuilder::fill_quantized(DType qt, const Shape& s, int depth) {
  if (budget_ <= 0 || depth >= p_.max_depth) return leaf(qt, s);
  const QuantNodeWeights& w = p_.qnodes;
  const std::array<double, kQuantFamilies> weights = {
#define QUANT_FAMILY(e, name, weight, builder, what) w.weight,
#include "gen/tensor_families.def"
  };
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    UOp u;
    switch (static_cast<QuantFamily>(e_.pick(weights))) {
#define QUANT_FAMILY(e, name, weight, builder, what) \
  case QuantFamily::e:                               \
    u = builder(qt, s, depth + 1);                   \
    break;
#include "gen/tensor_families.def"
    }
    if (u) return u;
  }
  return leaf(qt, s);
}

UOp TensorBuilder::fill_total(DType dt, const Shape& s, int budget) {
  const int saved = budget_;
  budget_ = budget;
  total_ops_only_ = true;
  UOp x = fill(dt, s, 0);
  total_ops_only_ = false;
  budget_ = saved;
  return x;
}

// ---- leaves

UOp TensorBuilder::leaf(DType dt, const Shape& s) {
  const TensorNodeWeights& w = p_.nodes;
  switch (e_.pick({w.input, w.constant, reusable(dt, s) ? w.reuse : 0.0})) {
    case 0: return input(dt, s);
    case 1: return constant(dt, s);
    default: return reuse(dt, s);
  }
}

UOp TensorBuilder::input_node(DType dt, const Shape& s, int) {
  return input(dt, s);
}
UOp TensorBuilder::constant_node(DType dt, const Shape& s, int) {
  return constant(dt, s);
}
UOp TensorBuilder::reuse_node(DType dt, const Shape& s, int) {
  return reuse(dt, s);
}

UOp TensorBuilder::input(DType dt, const Shape& s) {
  if (next_slot_ < p_.max_inputs) {
    const int slot = next_slot_++;
    UOp in;
    if (s.size() != 1 && e_.chance(p_.p_flat_input)) {
      in = tensor::input(ctx_, dt, Shape{numel(s)}, slot);
      inputs_.push_back(in);
      return tensor::reshape(ctx_, in, s);
    }
    in = tensor::input(ctx_, dt, s, slot);
    inputs_.push_back(in);
    return in;
  }
  // Out of slots: an input of the dtype and element count, seen through a RESHAPE.
  for (UOp in : inputs_)
    if (in.dtype() == dt && numel(in.shape()) == numel(s))
      return in.shape() == s ? in : tensor::reshape(ctx_, in, s);
  return constant(dt, s);
}

UOp TensorBuilder::constant(DType dt, const Shape& s) {
  if (dt.is_quantized())  // a stored integer seen as the quantized type
    return ctx_.make(Op::Bitcast, dt, {constant(dt.storage(), s)}, {}, s);
  if (dt.is_bool()) return tensor::constant(ctx_, dt, static_cast<double>(e_.below(2)), s);
  if (dt.is_float()) {
    if (e_.chance(p_.p_negative_zero)) return tensor::constant(ctx_, dt, -0.0, s);
    const int64_t k = p_.float_const_eighths;
    return tensor::constant(ctx_, dt, static_cast<double>(e_.between(-k, k)) / 8, s);
  }
  if (e_.chance(p_.p_edge_const)) {
    // Unsigned limits are 0 and all ones (-1 wrapped); signed ones are the dtype's own.
    const bool low = coin();
    const int64_t v = dt.is_signed() ? (low ? dt.int_min() : dt.int_max()) : (low ? 0 : -1);
    return tensor::constant_value(ctx_, dt, Value::of_int(v), s);
  }
  const int64_t v = dt.is_signed() ? e_.between(-p_.signed_const_max, p_.signed_const_max)
                                   : e_.between(0, p_.unsigned_const_max);
  return tensor::constant_value(ctx_, dt, Value::of_int(v), s);
}

UOp TensorBuilder::reuse(DType dt, const Shape& s) {
  const std::vector<UOp>& seen = pool_.at(key(dt, s));
  return seen[e_.below(seen.size())];
}

/// [1, nonzero_input_max] (unsigned: [1, 2 * nonzero_input_max]) or, signed, its negation,
/// stated as vmin/vmax so that every fill (make_inputs, @input lines, the reducer's) keeps it
/// nonzero.
UOp TensorBuilder::nonzero_input(DType dt, const Shape& s) {
  if (next_slot_ >= p_.max_inputs || !sized_int(dt)) return {};
  ParamArg p;
  p.slot = next_slot_++;
  p.size = numel(s);
  const bool negative = dt.is_signed() && coin();
  const int64_t m = p_.nonzero_input_max;
  p.vmin = negative ? -m : 1;
  p.vmax = negative ? -1 : dt.is_signed() ? m : 2 * m;
  UOp in = ctx_.make(Op::Param, dt, {}, p, s);
  inputs_.push_back(in);
  return in;
}

}  // namespace uopfuzz::gen
