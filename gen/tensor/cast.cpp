// The conversion families: CAST or BITCAST from another dtype (a float reaching an integer
// NaN-guarded and clamped into range), and DEQUANTIZE of a quantized tensor.
#include "gen/quant_types.h"
#include "gen/tensor/builder.h"
#include "ir/tensor.h"

namespace uopfuzz::gen {

using namespace ir;

UOp TensorBuilder::cast_into(DType dt, const Shape& s, int depth) {
  if (!dt.is_bool() && e_.chance(p_.p_bitcast)) {
    std::vector<double> w;
    for (DType d : all_dtypes())
      w.push_back(d != dt && !d.is_bool() && d.bytes() == dt.bytes() && floats_may_reach(dt, d)
                      ? p_.dtypes.of(d)
                      : 0.0);
    const DType from = all_dtypes()[e_.pick(w)];
    if (from.bytes() == dt.bytes() && from != dt && !from.is_bool() && !from.is_index() &&
        floats_may_reach(dt, from)) {
      UOp x = fill(from, s, depth);
      if (from.is_float() && !dt.is_float()) x = nan_guard(x);
      return ctx_.make(Op::Bitcast, dt, {x}, {}, s);
    }
  }
  const DType from = draw_dtype_except(dt, floats_may_reach(dt, dtypes::Float32));
  UOp x = fill(from, s, depth);
  if (from.is_float() && dt.is_int()) {
    // A float reaching an integer: NaN becomes 0 and the rest is clamped into range.
    const auto hi = static_cast<double>(p_.float_to_int_clamp);
    const double lo = dt.is_signed() ? -hi : 0;
    x = tensor::alu(ctx_, Op::Min, {nan_guard(x), tensor::constant(ctx_, from, hi, s)});
    x = tensor::alu(ctx_, Op::Max, {x, tensor::constant(ctx_, from, lo, s)});
  }
  return tensor::cast(ctx_, x, dt);
}

/// WHERE(x != x, 0, x): the float x with NaN replaced by 0.
UOp TensorBuilder::nan_guard(UOp x) {
  UOp is_nan = tensor::alu(ctx_, Op::CmpNe, {x, x});
  return tensor::alu(ctx_, Op::Where, {is_nan, tensor::constant(ctx_, x.dtype(), 0, x.shape()), x});
}

UOp TensorBuilder::dequantize(DType dt, const Shape& s, int depth) {
  return ctx_.make(Op::Dequantize, dt, {fill(draw_quant_type(e_, p_.quant), s, depth)}, {}, s);
}

}  // namespace uopfuzz::gen
