/** \file The weight tables of the kernel generator's choices (GenPolicy's rows, gen/policy.h),
 * and the two the tensor-program generator shares (element types, quantized types). Weights
 * are relative: they need not sum to 1, and a weight of 0 switches the option off. The edge
 * values' and edge pairs' tables are in gen/edge_weights.h.
 */
#pragma once

#include "gen/edge_weights.h"
#include "gen/fields.h"
#include "ir/dtype.h"

namespace uopfuzz::gen {
// The policy is a table, one knob a row with its meaning aligned beside it.
// clang-format off


/// Relative weight of each buffer element type (outputs, inputs and value expressions).
struct DTypeWeights {
  double bool_ = 0.5;
  double int8 = 0.5, int16 = 0.5, int32 = 3.0, int64 = 0.7;
  double uint8 = 0.5, uint16 = 0.3, uint32 = 0.6, uint64 = 0.4;
  double float16 = 0.5, float32 = 2.0, float64 = 0.6;
  double of(ir::DType dt) const {
    switch (dt.scalar()) {
      case ir::ScalarType::Bool: return bool_;
      case ir::ScalarType::Int8: return int8;
      case ir::ScalarType::Int16: return int16;
      case ir::ScalarType::Int32: return int32;
      case ir::ScalarType::Int64: return int64;
      case ir::ScalarType::UInt8: return uint8;
      case ir::ScalarType::UInt16: return uint16;
      case ir::ScalarType::UInt32: return uint32;
      case ir::ScalarType::UInt64: return uint64;
      case ir::ScalarType::Float16: return float16;
      case ir::ScalarType::Float32: return float32;
      case ir::ScalarType::Float64: return float64;
      case ir::ScalarType::Void:
      case ir::ScalarType::Index: return 0;  // never buffer elements
    }
    return 0;
  }
  UOPFUZZ_FIELDS(bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64)
};

/// How an ordinary value position is filled (after the rule families had their chance).
struct ExprWeights {
  double leaf = 4;    ///< a CONST, LOAD, VAR or range-derived value
  double unary = 1;   ///< see UnaryWeights
  double binary = 4;  ///< the dtype's binary ops (IntOpWeights, FloatOpWeights, BoolOpWeights)
  double where = 1;   ///< WHERE(cond, a, b)
  double reduce = 1;  ///< a generic REDUCE over fresh ranges
  UOPFUZZ_FIELDS(leaf, unary, binary, where, reduce)
};

/// Which leaf.
struct LeafWeights {
  double constant = 3;  ///< a small CONST
  double load = 3;      ///< a LOAD from an input buffer
  double range = 3;     ///< an open range (or the store nest's flat index), cast to the dtype (bool: r < c)
  double var = 0.5;     ///< a VAR (integer dtypes)
  /// A float leaf CAST(VAR), maybe times or plus an exact float constant: 0 unless the
  /// simplifier under test spells it as a float variable (gen/forms.h, prepare_for_forms).
  double float_var = 0;
  UOPFUZZ_FIELDS(constant, load, range, var, float_var)
};

struct UnaryWeights {
  double neg = 2;             ///< NEG (integers and floats)
  double cast = 3;            ///< CAST from another dtype (a float reaching an integer is NaN-guarded and clamped)
  double bitcast = 0.5;       ///< BITCAST from the other type of the size (to a float: inexact_floats only)
  double trunc = 1;           ///< TRUNC (floats)
  double transcendental = 1.5;///< RECIPROCAL, SQRT, EXP2, LOG2, SIN (inexact_floats only)
  UOPFUZZ_FIELDS(neg, cast, bitcast, trunc, transcendental)
};

/// Binary ops of sized integers (all defined: they wrap; divisors and shift amounts made safe).
struct IntOpWeights {
  double add = 3, sub = 2, mul = 2;
  double cdiv = 0.5, cmod = 0.5, floordiv = 0.5, floormod = 0.5;
  double max = 1, min = 1;
  double and_ = 0.5, or_ = 0.5, xor_ = 0.5;
  double shl = 0.4, shr = 0.4;
  UOPFUZZ_FIELDS(add, sub, mul, cdiv, cmod, floordiv, floormod, max, min, and_, or_, xor_, shl, shr)
};

/// Binary ops of floats (MUL by a small constant unless inexact_floats).
struct FloatOpWeights {
  double add = 3, sub = 2, mul = 1.5, max = 1, min = 1;
  UOPFUZZ_FIELDS(add, sub, mul, max, min)
};

/// Bool values from two operands.
struct BoolOpWeights {
  double logic = 2;          ///< AND, OR, XOR of two bools
  double index_compare = 1.5;///< an index expression against a CONST or another (r < c is a gate clause)
  double value_compare = 2;  ///< CMPLT/CMPNE/CMPEQ of two values of some dtype
  double lt = 3, ne = 1, eq = 1;  ///< which comparison
  UOPFUZZ_FIELDS(logic, index_compare, value_compare, lt, ne, eq)
};

/// Index expressions (addresses, cuts): how a position is filled, and with which op.
struct IndexWeights {
  double range = 5;       ///< an open range (RangeOpWeights may wrap it in % c or // c)
  double constant = 1;    ///< a CONST in [0, 7]
  double compound = 2.5;  ///< op(index, index or CONST), kept only if far from overflow
  double var = 0.3;       ///< an index VAR in [0, k]
  double cast_value = 0.3;///< an integer value clamped to [-64, 64] and cast
  double add = 3, sub = 1, mul = 1, max = 0.5, min = 0.5, floordiv = 0.4, floormod = 0.4, cmod = 0.2;
  double p_const_operand = 0.5;  ///< the second operand of a compound is a CONST
  UOPFUZZ_FIELDS(range, constant, compound, var, cast_value, add, sub, mul, max, min, floordiv, floormod, cmod,
                 p_const_operand)
};

/// RANGE % c and RANGE // c (mark_range_mod matches FLOORMOD and CMOD).
struct RangeOpWeights {
  double floormod = 3, cmod = 1, floordiv = 1.5;
  UOPFUZZ_FIELDS(floormod, cmod, floordiv)
};

/// Divisors of integer divisions, all nonzero.
struct DivisorWeights {
  double constant = 3;       ///< a CONST in +-[1, 7]
  double max_const = 1.5;    ///< MAX(x, c) with c in [1, 4]
  double or_one = 1;         ///< x | 1
  double square_plus_one = 1;///< x*x + 1 (x*x is never -1 modulo 2^bits)
  double zero_at_an_iteration = 0.2; ///< cast(r) - c: zero at r = c, so defined only where that iteration
                                     ///< never runs (a zero-trip loop around it); the oracle check repairs the rest
  double p_negative = 0.3;   ///< a signed CONST divisor is negative
  UOPFUZZ_FIELDS(constant, max_const, or_one, square_plus_one, zero_at_an_iteration, p_negative)
};

/// How an address that may leave [0, max_buffer_size) is made safe.
struct AddressFixWeights {
  double gate = 1;   ///< WHERE(-1 < i & i < n, i, INVALID)
  double wrap = 1;   ///< i % n (FLOORMOD)
  double clamp = 1;  ///< MIN(MAX(i, 0), n - 1)
  UOPFUZZ_FIELDS(gate, wrap, clamp)
};

/// The element type of index buffers (gathers, dynamic addresses).
struct IndexBufferWeights {
  double int32 = 4, int64 = 1, int16 = 0.5, uint8 = 0.5, uint32 = 0.5;
  UOPFUZZ_FIELDS(int32, int64, int16, uint8, uint32)
};

/// The cut of a bound sum: sum_r where(r < cut, v, 0).
struct CutWeights {
  double var = 2;          ///< an index VAR, possibly below 0 or above the end
  double outer_range = 1.5;///< an enclosing range, maybe + 1 (a cumulative sum)
  double loaded = 1;       ///< a loaded index (values around [0, N))
  double constant = 1;     ///< a CONST in [-1, N + 1]
  double p_outer_plus_one = 0.5; ///< an outer-range cut is i + 1 (else i)
  UOPFUZZ_FIELDS(var, outer_range, loaded, constant, p_outer_plus_one)
};

/// The shape of a bound sum.
struct BoundFormWeights {
  double upper = 3;      ///< where(r < U, v, 0)
  double lower = 1.5;    ///< where(r < L, 0, v)
  double two_sided = 1.5;///< where(!(r < L) & (r < U), v, 0)
  UOPFUZZ_FIELDS(upper, lower, two_sided)
};

/// Relative weight of each REDUCE op.
struct ReduceOpWeights {
  double add = 6, mul = 1, max = 1.5, min = 1.5;
  /// bool REDUCEs: MAX (any) and MIN (all); their sum scales the reduce weight at bool positions
  double any = 0.25, all = 0.25;
  UOPFUZZ_FIELDS(add, mul, max, min, any, all)
};

/// Quantized types (gen/quant_types.h): storage, zero points, and how a second type is drawn
/// against a first (the two sides of a REQUANTIZE or of a quantized REDUCE_AXIS).
struct QuantWeights {
  double int8 = 3, uint8 = 2, int16 = 1, int32 = 0.5;  ///< storage integer
  double p_zero_point = 0.75;  ///< the zero point is nonzero (a menu value, edges of the storage range included; int32: always 0)
  double tie = 3;         ///< scale ratio a power of two (1/4, 1/2, 2, 4): the rounding meets exact ties
  double below = 2;       ///< a smaller menu scale
  double above = 2;       ///< a larger menu scale
  double same_scale = 0.5;///< the same scale, another zero point
  double identical = 0.15;///< the very same type (rare: a campaign must not be "too normal")
  UOPFUZZ_FIELDS(int8, uint8, int16, int32, p_zero_point, tie, below, above, same_scale, identical)
};

/// How a kernel's quantized value position is filled.
struct QuantExprWeights {
  double load = 2;         ///< a LOAD from a quantized input buffer
  double requantize = 2;   ///< REQUANTIZE of a quantized value of a partner type
  double fixed_point = 4;  ///< REQUANTIZE(BITCAST(integer arithmetic -> q<s,z>)): the shape requantize_fixed_point rewrites
  double quantize = 2;     ///< QUANTIZE of a float value (which may DEQUANTIZE another quantized value)
  double where = 1;        ///< WHERE(bool, q, q)
  double bitcast = 1;      ///< BITCAST of a storage-integer value
  double quantize_float32 = 4, quantize_float16 = 1, quantize_float64 = 1;  ///< the float type QUANTIZE reads
  /// The integer operands of the fixed-point shape: a LOAD of the storage type, BITCAST of a
  /// value of another quantized type of that storage, or any storage-integer value.
  double operand_load = 2, operand_bitcast = 2, operand_value = 1;
  UOPFUZZ_FIELDS(load, requantize, fixed_point, quantize, where, bitcast, quantize_float32, quantize_float16,
                 quantize_float64, operand_load, operand_bitcast, operand_value)
};

// clang-format on
}  // namespace uopfuzz::gen
