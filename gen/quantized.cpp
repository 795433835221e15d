// The Builder's quantized values (builder.h, QuantExprWeights): loads, conversions,
// selects and the fixed-point shape REQUANTIZE(BITCAST(integer arithmetic)) that the
// simplifier's requantize_fixed_point rewrites. Quantized values are defined for every
// input (QUANTIZE, DEQUANTIZE and REQUANTIZE saturate), so nothing here needs a guard; pairs
// the definition does not support are never drawn (draw_requantize_source). The
// determinism rules of values.cpp hold: no call has two arguments that draw entropy.
#include "gen/builder.h"
#include "gen/quant_types.h"

namespace uopfuzz::gen {

UOp Builder::quantized(DType qt, const Scope& s, int depth) {
  ++positions_;
  const bool leafy = depth >= p_.max_expr_depth || !budget_left();
  const auto& w = p_.qexprs;
  switch (e_.pick({w.load, leafy ? 0.0 : w.requantize, w.fixed_point, leafy ? 0.0 : w.quantize,
                   leafy ? 0.0 : w.where, w.bitcast})) {
    case 0: {
      const int k = data_input(qt);
      if (k < 0) return mk(Op::Bitcast, qt, {constant(qt.storage())});
      return load_at(k, index_expr(s, depth + 1), s);
    }
    case 1: {
      const DType from = draw_requantize_source(e_, p_.quant, qt);
      return mk(Op::Requantize, qt, {quantized(from, s, depth + 1)});
    }
    case 2: return fixed_point(qt, s, depth);
    case 3: {
      constexpr DType floats[] = {dtypes::Float32, dtypes::Float16, dtypes::Float64};
      const DType f = floats[e_.pick({w.quantize_float32, w.quantize_float16, w.quantize_float64})];
      return mk(Op::Quantize, qt, {value(f, s, depth + 1)});
    }
    case 4: {
      UOp c = value(dtypes::Bool, s, depth + 1);
      UOp a = quantized(qt, s, depth + 1);
      return where(c, a, quantized(qt, s, depth + 1));
    }
    default: return mk(Op::Bitcast, qt, {value(qt.storage(), s, depth + 1)});
  }
}

UOp Builder::fixed_point(DType qt, const Scope& s, int depth) {
  const DType from = draw_requantize_source(e_, p_.quant, qt);
  UOp a = storage_operand(from, s, depth + 1);
  UOp b = storage_operand(from, s, depth + 1);
  const Op op = e_.chance(p_.p_fixed_point_product)   ? Op::Mul
                : e_.chance(p_.p_fixed_point_sum_add) ? Op::Add
                                                      : Op::Sub;
  UOp v = alu(op, {a, b});
  return mk(Op::Requantize, qt, {mk(Op::Bitcast, from, {v})});
}

UOp Builder::storage_operand(DType q, const Scope& s, int depth) {
  const DType st = q.storage();
  const auto& w = p_.qexprs;
  switch (e_.pick({w.operand_load, w.operand_bitcast, w.operand_value})) {
    case 0: return load(st, s, depth);
    case 1: {
      const DType other = draw_quant_type_of(e_, p_.quant, st);
      return mk(Op::Bitcast, st, {quantized(other, s, depth + 1)});
    }
    default: return value(st, s, depth);
  }
}

UOp Builder::dequantize(DType dt, const Scope& s, int depth) {
  const DType qt = draw_quant_type(e_, p_.quant);
  return mk(Op::Dequantize, dt, {quantized(qt, s, depth + 1)});
}

}  // namespace uopfuzz::gen
