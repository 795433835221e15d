/** \file GenPolicy: every probability and limit of the kernel generator, in one struct (YARPGen
 * style), and of the tensor-program generator in its TensorGenPolicy section.
 *
 * A probability p_x is the chance that one choice point takes the named shape (the
 * choice points are described in gen/generator.h). Weights are relative: they need not
 * sum to 1, and a weight of 0 switches the option off. Choices among equivalent
 * spellings (operand order, which of !b's three spellings) are uniform and not knobs.
 * The defaults aim at small kernels (median ~35 nodes, at most a few thousand loop
 * iterations) biased to what the simplifier's rules rewrite; a share p_large of graphs
 * has real sizes (10^4..10^6 iterations per output element or per invocation).
 */
#pragma once

#include <cstdint>

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
};

/// How an ordinary value position is filled (after the rule families had their chance).
struct ExprWeights {
  double leaf = 4;    ///< a CONST, LOAD, VAR or range-derived value
  double unary = 1;   ///< see UnaryWeights
  double binary = 4;  ///< the dtype's binary ops (IntOpWeights, FloatOpWeights, BoolOpWeights)
  double where = 1;   ///< WHERE(cond, a, b)
  double reduce = 1;  ///< a generic REDUCE over fresh ranges
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
};

struct UnaryWeights {
  double neg = 2;             ///< NEG (integers and floats)
  double cast = 3;            ///< CAST from another dtype (a float reaching an integer is NaN-guarded and clamped)
  double bitcast = 0.5;       ///< BITCAST from the other type of the size (to a float: inexact_floats only)
  double trunc = 1;           ///< TRUNC (floats)
  double transcendental = 1.5;///< RECIPROCAL, SQRT, EXP2, LOG2, SIN (inexact_floats only)
};

/// Binary ops of sized integers (all defined: they wrap; divisors and shift amounts made safe).
struct IntOpWeights {
  double add = 3, sub = 2, mul = 2;
  double cdiv = 0.5, cmod = 0.5, floordiv = 0.5, floormod = 0.5;
  double max = 1, min = 1;
  double and_ = 0.5, or_ = 0.5, xor_ = 0.5;
  double shl = 0.4, shr = 0.4;
};

/// Binary ops of floats (MUL by a small constant unless inexact_floats).
struct FloatOpWeights {
  double add = 3, sub = 2, mul = 1.5, max = 1, min = 1;
};

/// Bool values from two operands.
struct BoolOpWeights {
  double logic = 2;          ///< AND, OR, XOR of two bools
  double index_compare = 1.5;///< an index expression against a CONST or another (r < c is a gate clause)
  double value_compare = 2;  ///< CMPLT/CMPNE/CMPEQ of two values of some dtype
  double lt = 3, ne = 1, eq = 1;  ///< which comparison
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
};

/// RANGE % c and RANGE // c (mark_range_mod matches FLOORMOD and CMOD).
struct RangeOpWeights {
  double floormod = 3, cmod = 1, floordiv = 1.5;
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
};

/// How an address that may leave [0, max_buffer_size) is made safe.
struct AddressFixWeights {
  double gate = 1;   ///< WHERE(-1 < i & i < n, i, INVALID)
  double wrap = 1;   ///< i % n (FLOORMOD)
  double clamp = 1;  ///< MIN(MAX(i, 0), n - 1)
};

/// The element type of index buffers (gathers, dynamic addresses).
struct IndexBufferWeights {
  double int32 = 4, int64 = 1, int16 = 0.5, uint8 = 0.5, uint32 = 0.5;
};

/// The cut of a bound sum: sum_r where(r < cut, v, 0).
struct CutWeights {
  double var = 2;          ///< an index VAR, possibly below 0 or above the end
  double outer_range = 1.5;///< an enclosing range, maybe + 1 (a cumulative sum)
  double loaded = 1;       ///< a loaded index (values around [0, N))
  double constant = 1;     ///< a CONST in [-1, N + 1]
};

/// The shape of a bound sum.
struct BoundFormWeights {
  double upper = 3;      ///< where(r < U, v, 0)
  double lower = 1.5;    ///< where(r < L, 0, v)
  double two_sided = 1.5;///< where(!(r < L) & (r < U), v, 0)
};

/// Classes of edge integers (gen/edge_values.h).
struct IntEdgeWeights {
  double small = 1;         ///< 0, 1, -1
  double power_of_two = 2;  ///< +-2^k and +-(2^k +- 1)
  double limit = 2;         ///< the dtype's min and max and their neighbours (index: also +-max_index_magnitude)
  double pair = 2;          ///< a value whose sum or product with an earlier edge value lands on a limit or one past it
};

/// Classes of edge floats (gen/edge_values.h).
struct FloatEdgeWeights {
  double signed_zero = 1;     ///< -0 or +0
  double random_mantissa = 3; ///< a random significand of the dtype's full width, exponent in [-10, 10]
  double rounding = 2;        ///< 2^p, 2^p +- ulp, 1 +- ulp (p = significand bits): sums with them round after a few terms
  double limit = 1;           ///< the largest finite value, the smallest normal and subnormal, negated or not
  double special = 1;         ///< inf, -inf, NaN (inexact_floats only)
};

// ---- edge pairs (issue 31; gen/edge_values.h): a constant at a boundary drawn together with a
// value whose declared window straddles it, so whatever value a run draws sits on the boundary.

/// Which edge pair fills a value position.
struct EdgePairWeights {
  double float_rounding = 2;  ///< CAST of an integer in a window around 2^p (p = 11, 24, 53: where integer-to-float
                              ///< rounding starts; float16 also 65520, where it overflows) to the float, compared with a
                              ///< constant at the boundary or converted back
  double limit = 2;           ///< x + c, x - c or x * c of a sized integer whose window puts the result on its dtype's
                              ///< limit or one or two past it (a wrap), then compared, MAX/MIN'd or used
  double multiple = 2;        ///< x // c or x % c (floor and C rounding), c of either sign, x in a window around k*c
                              ///< (k small, or k*c at the dtype's limit; INT_MIN / -1 included)
  double special_unary = 2;   ///< inf, -inf, NaN, -0, the largest finite or the smallest subnormal directly under each
                              ///< unary op and cast (float -> int only through the NaN guard, NaN never under a BITCAST:
                              ///< both are UB), or an integer limit under a CAST to a float
  double p_from_load = 0.4;   ///< the window's value is a LOAD of an input declaring it as vmin/vmax (else a VAR)
};

/// Nested division and modulo of index expressions by constants (gen/edge_values.h, DivmodShape).
struct NestedDivmodWeights {
  double div_div = 2, mod_mod = 2, div_mod = 1, mod_div = 1;  ///< (x//a)//b, (x%a)%b, (x//a)%b, (x%a)//b
  double mul_div = 1, mul_mod = 1, add_div = 1, add_mod = 1;  ///< (x*a)//b, (x*a)%b, (x+a)//b, (x+a)%b
  /// How |a| relates to |b|: the divmod rules' side conditions hold for some and fail for others.
  double a_divides_b = 2, b_divides_a = 2, neither = 1, equal = 1, unit = 1;  ///< unit: a or b is +-1
  double p_negative = 0.3;    ///< each of a and b is negative (index // and % by a negative constant are defined)
  double p_c_rounding = 0.2;  ///< each op is CDIV/CMOD instead of FLOORDIV/FLOORMOD
  double p_window = 0.6;      ///< x is a VAR in a window around a multiple of a*b (else any index expression)
};

/// Relative weight of each REDUCE op.
struct ReduceOpWeights {
  double add = 6, mul = 1, max = 1.5, min = 1.5;
  /// bool REDUCEs: MAX (any) and MIN (all); their sum scales the reduce weight at bool positions
  double any = 0.25, all = 0.25;
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
};

/// How a kernel's quantized value position is filled.
struct QuantExprWeights {
  double load = 2;         ///< a LOAD from a quantized input buffer
  double requantize = 2;   ///< REQUANTIZE of a quantized value of a partner type
  double fixed_point = 4;  ///< REQUANTIZE(BITCAST(integer arithmetic -> q<s,z>)): the shape requantize_fixed_point rewrites
  double quantize = 2;     ///< QUANTIZE of a float value (which may DEQUANTIZE another quantized value)
  double where = 1;        ///< WHERE(bool, q, q)
  double bitcast = 1;      ///< BITCAST of a storage-integer value
};

// ---- tensor programs (gen/tensor_gen.h): how each position (a dtype and a shape to fill) is filled

/// What fills a tensor position of a given dtype and shape.
struct TensorNodeWeights {
  double input = 3;            ///< a PARAM of the shape (or of its element count, reshaped)
  double constant = 1;         ///< a CONST tensor
  double reuse = 2.5;          ///< an earlier node of the dtype and shape: one more consumer
  double elementwise = 4;      ///< an ALU op of the dtype over operands of the shape (WHERE, compares for bool)
  double cast = 1.2;           ///< CAST or BITCAST from another dtype
  double movement = 6;         ///< a movement op (MovementWeights) of a tensor of another shape
  double reduce = 2.5;         ///< REDUCE_AXIS (ReduceAxesWeights), reshaped or expanded back to the shape
  double reduce_broadcast = 1; ///< x op expand(reduce(x, axis)): x - x.max(1) style
  double self_combine = 1;     ///< x op m(x) with m a movement that keeps the shape (flip, permute of equal dims, pad+shrink, reshape there and back)
  double contiguous = 0.5;     ///< CONTIGUOUS
  // Shapes the buffer rules and split reduce rewrite (schedule/buffers.h, split_reduce.h); each
  // node built here is read by two consumers at indices that disagree (a removable BUFFERIZE)
  double shared_reduce = 0.6;  ///< m(r) op r with r a REDUCE_AXIS kept at the shape: a reduce in the buffer's scope
  double unary_in_reduce = 0.5;///< u op expand(reduce(u)) with u a NEG or CAST: argmax(-x)
  double wide_read = 0.5;      ///< m(y) op y with y combining 1..5 distinct inputs (the buffer limit)
  double pad_shared = 0.5;     ///< pad(y) op y, shrunk back: a PAD-gated read of a node with two consumers
  double const_broadcast = 0.3;///< m(c) op c with c a CONST expanded or padded: BUFFERIZE(CONST)
  double dead_axes = 0.6;      ///< m(e) op e with e an EXPAND of a smaller value (a reduce's, or a scalar): dead axes
  double split_candidate = 0.6;///< a REDUCE_AXIS over SplitDimWeights dims with a large input/output ratio
  double dequantize = 1;       ///< (float positions) DEQUANTIZE of a quantized tensor (QuantNodeWeights)
  // ---- issue 31 (tensor level): shapes that reach the rarest tensor rules
  double gated_divide = 0.5;   ///< (sized integer positions) shift(pad(a / d)), d an input of nonzero range: a division under a PAD gate (buffer_keep_gate)
  double partial_shared = 0.6; ///< two reduces (one flipped) of one padded broadcast buffer holding a reduce, >= 10x its inputs' elements (buffer_partial_inline at pcontig > 2)
};

/// What fills a quantized tensor position (quantized tensors only convert, move, select and reduce).
struct QuantNodeWeights {
  double input = 2;        ///< a quantized PARAM
  double quantize = 1.5;   ///< QUANTIZE of a float tensor
  double requantize = 1.5; ///< REQUANTIZE of a tensor of a partner type
  double where = 0.5;      ///< WHERE(bool, q, q)
  double bitcast = 0.5;    ///< BITCAST of a storage-integer tensor
  double movement = 1;     ///< RESHAPE, PERMUTE, EXPAND, SHRINK or FLIP of a quantized tensor (never PAD)
  double unit_reduce = 4;  ///< REDUCE_AXIS over size-1 axes only (UnitAxisWeights): the unit-axis rule's shape
  double sum_reduce = 1.5; ///< REDUCE_AXIS over axes of extent > 1 (a few elements: the int32 accumulator)
};

/// Which size-1 axes a quantized unit-axis REDUCE_AXIS reduces.
struct UnitAxisWeights {
  double one = 2;          ///< one size-1 axis, the other dims wide
  double several = 2;      ///< two or three size-1 axes
  double all = 1.5;        ///< every axis (all of size 1)
  double none = 1;         ///< axes = [] (reduce nothing)
  double beside_wide = 3;  ///< size-1 axes next to size-1 dims it keeps and wide dims ([1,5,7,9] with axes [0])
};

/// Extents of a dim a split candidate reduces: split reduce needs a divisor in [8, 256].
struct SplitDimWeights {
  double factorable = 4;  ///< 16, 24, 32, 48, 64, 96, 128 or 256 (divisors in [8, 256])
  double prime = 1.5;     ///< 17, 31, 37 or 61 (no divisor: the split skips the dim)
  double small = 1;       ///< 2..7 (too small to split, reduced next to a factorable dim)
};

/// Which movement op makes a position's shape from another.
struct MovementWeights {
  double reshape = 3, permute = 2, expand = 2, pad = 1.5, shrink = 1.5, flip = 1;
};

/// Which axes a REDUCE_AXIS reduces.
struct ReduceAxesWeights {
  double one = 4;       ///< one axis of extent > 1
  double several = 2;   ///< two or three axes
  double all = 1;       ///< every axis (then reshaped and expanded to the position's shape)
  double size_one = 1;  ///< axes of extent 1 only (the identity on values)
  double none = 0.5;    ///< an empty axis list
};

/// Relative weight of each REDUCE_AXIS op (bool: MAX and MIN only).
struct TensorReduceOpWeights {
  double add = 3, mul = 0.7, max = 1.5, min = 1.5;
};

/// Elementwise ops of sized integers (divisors and shift amounts are made safe).
struct TensorIntOpWeights {
  double add = 3, sub = 2, mul = 1.5, max = 1, min = 1, neg = 0.5;
  double cdiv = 0.4, cmod = 0.4, floordiv = 0.4, floormod = 0.4;
  double and_ = 0.4, or_ = 0.4, xor_ = 0.4, shl = 0.3, shr = 0.3;
  double where = 0.7;
};

/// Elementwise ops of floats (all defined; products round elementwise, the same everywhere).
struct TensorFloatOpWeights {
  double add = 3, sub = 2, mul = 1.5, max = 1, min = 1, neg = 0.5, trunc = 0.3, where = 0.7;
};

/// Elementwise ops giving bool.
struct TensorBoolOpWeights {
  double logic = 2;    ///< AND, OR, XOR of two bools
  double compare = 3;  ///< CMPLT, CMPNE, CMPEQ of two values of another dtype
  double where = 0.5;  ///< WHERE of bools
};

/// Extents of a fresh dim (an extent 0 is p_zero_dim's).
struct ExtentWeights {
  double one = 3, two = 2, three = 2, four = 1, five = 1.5, six = 0.5, seven = 1, eleven = 0.5, thirteen = 0.5;
};

struct TensorGenPolicy {
  // ---- size
  int max_nodes = 18;               ///< soft size budget: positions filled (~1 node each); past it, positions become leaves
  int max_depth = 10;               ///< depth of the position tree
  int max_rank = 4;                 ///< rank of a fresh shape and of every source the generator derives
  int64_t max_numel = 512;          ///< largest tensor (a derived source may grow a larger given shape no further)
  int max_outputs = 3;              ///< REALIZE sources
  double p_extra_output = 0.35;     ///< each further output (geometric)
  int max_inputs = 8;               ///< input PARAMs (past it an input of the dtype and element count is reshaped, else a CONST)
  double p_zero_dim = 0.01;         ///< a fresh dim has extent 0 (an empty tensor)
  double p_flat_input = 0.3;        ///< an input PARAM is flat ([numel]) and reshaped to the position's shape
  double p_contiguous_output = 0.15;///< an output is CONTIGUOUS of its value
  int64_t max_mul_reduce = 4;       ///< largest element count a MUL REDUCE_AXIS combines (products stay meaningful); past it ADD
  double p_pad_both = 0.4;          ///< a padded dim is padded on both sides (else one)

  // ---- the large reduction (split reduce: 32,768+ elements combined into one output element)
  double p_large_reduce = 0.015;    ///< a program's first output is a reduction of 32,768+ elements per output element
  int large_max_nodes = 6;          ///< ... its source's size budget (ops defined for every operand only: no oracle check)
  int64_t large_max_rows = 3;       ///< ... output elements (kept rows)
  double p_large_realistic = 0.4;   ///< ... of 10^4..10^5 elements (tinygrad's held-out sizes), else 32,768..65,536

  // ---- the buffer rules' and split reduce's shapes (TensorNodeWeights' last rows)
  double p_shared_reduce_all = 0.3; ///< a shared reduce reduces every axis (a scalar buffer, all axes dead)
  double p_unary_cast = 0.4;        ///< the unary op in a reduce scope is a CAST (else NEG)
  int max_wide_inputs = 5;          ///< a wide read combines 1..this many distinct inputs (uniform)
  double p_wide_reduce = 0.3;       ///< ... and one of them is reduced (a reduce in scope)
  double p_dead_scalar = 0.3;       ///< a dead-axes node expands a scalar (every axis dead)
  int64_t split_max_numel = 4096;   ///< largest input of a split candidate
  int split_max_reduced = 2;        ///< dims a split candidate reduces (1..this)
  double p_split_broadcast = 0.2;   ///< a reduced dim is an EXPAND of size 1 (split must skip it)
  SplitDimWeights split_dims;       ///< extents of a split candidate's reduced dims

  // ---- nodes, shapes, ops
  TensorNodeWeights nodes;          ///< what fills a position
  MovementWeights movement;         ///< which movement op
  ReduceAxesWeights reduce_axes;    ///< which axes a REDUCE_AXIS reduces
  TensorReduceOpWeights reduce_ops; ///< which REDUCE_AXIS op
  TensorIntOpWeights int_ops;       ///< elementwise ops of sized integers
  TensorFloatOpWeights float_ops;   ///< elementwise ops of floats
  TensorBoolOpWeights bool_ops;     ///< elementwise ops giving bool
  ExtentWeights extents;            ///< extents of fresh dims
  QuantWeights quant;               ///< quantized types
  QuantNodeWeights qnodes;          ///< what fills a quantized position
  UnitAxisWeights unit_axes;        ///< which axes a quantized unit-axis reduce reduces
  double p_quantized_output = 0.3;  ///< an output is a quantized tensor
  double p_same_reduce_type = 0.15; ///< a quantized REDUCE_AXIS keeps its input's type (else a partner type)
  int64_t max_quant_sum_terms = 64; ///< largest element count a quantized REDUCE_AXIS ADD sums
  double rank0 = 0.4, rank1 = 2, rank2 = 3, rank3 = 2, rank4 = 1;  ///< rank of a fresh shape
  DTypeWeights dtypes{.bool_ = 0.7, .int8 = 0.6, .int16 = 0.5, .int32 = 3.0, .int64 = 0.7,
                      .uint8 = 0.6, .uint16 = 0.4, .uint32 = 0.6, .uint64 = 0.4,
                      .float16 = 0.7, .float32 = 2.5, .float64 = 0.6};  ///< element types
  double p_bitcast = 0.15;          ///< a CAST position is a BITCAST between dtypes of one size (from a float: NaN-guarded)
  double p_divisor_const = 0.5;     ///< an integer divisor is a nonzero CONST (else x | 1, never 0)
  double p_shift_const = 0.5;       ///< a shift amount is a CONST in [0, bits) (else x & (bits - 1))
  double p_edge_const = 0.1;        ///< an integer CONST is its dtype's minimum or maximum (sized integers wrap)
  double p_negative_zero = 0.02;    ///< a float CONST is -0
  // ---- issue 31 (tensor level): hard inputs, each a per-program choice recorded in the program
  double p_divisor_input = 0.3;     ///< an integer divisor is an input PARAM of nonzero range (vmin..vmax), read 0 where a gate is off
  double p_degenerate_shapes = 0.1; ///< a program draws size-0 and size-1 dims on purpose (p_zero_dim, extents of 1, x2 below)
  double degenerate_zero_dim = 0.08;///< ... its p_zero_dim
  double degenerate_one_dim = 0.5;  ///< ... the chance a fresh dim is 1
  double p_edge_inputs = 0.2;       ///< a program's sized-integer inputs hold their type's caps (@input lines: min, max, 0, +-1, near the caps)
  double p_hard_float_inputs = 0.15;///< a program's float inputs round (@input lines: full range, mixed magnitudes, -0; inf/NaN only where p_float_specials)
  double p_float_specials = 0.3;    ///< ... and also hold inf, -inf and NaN

  // ---- undefined behaviour: evaluate on the tensor oracle, repair locally
  bool check = true;                ///< run the program on the tensor oracle (input seed 0) and repair what it finds undefined
  int max_repairs = 8;              ///< undefined nodes replaced by a CONST before giving up
};

struct GenPolicy {
  // ---- size limits
  int max_positions = 40;           ///< soft size budget: expression positions filled (~1 node each); past it, positions become leaves
  int max_expr_depth = 4;           ///< depth of a value expression tree
  int max_loop_nest = 4;            ///< ranges open at once (store loops plus REDUCE loops; stores use at most one less)
  int max_outputs = 3;              ///< output buffers; each is written by one STORE effect
  int max_inputs = 4;               ///< input buffers (index buffers of gathers included)
  int64_t max_range_end = 12;       ///< largest CONST or VAR end of a range
  int64_t max_mul_reduce_end = 4;   ///< largest end of a REDUCE MUL range (products stay small)
  int64_t max_iterations = 1024;    ///< largest product of trip counts of one loop nest (oracle time)
  int64_t max_store_iterations = 256;  ///< ... of a store nest (the rest is for REDUCEs inside it)
  int64_t max_buffer_size = 1024;   ///< largest buffer; wider addresses are gated, wrapped or clamped
  int64_t max_index_magnitude = int64_t{1} << 40;  ///< index values stay far from int64 overflow

  // ---- real sizes: a share of graphs has one or two big loops and few nodes (the oracle
  // runs ~10^7-10^8 steps/s, so a large graph stays near 0.1 s); its caps replace those above
  double p_large = 0.0015;          ///< a graph is large (~1/6 of a campaign's oracle time)
  int large_max_positions = 10;     ///< ... its size budget (few nodes per iteration)
  int large_max_outputs = 1;        ///< ... its outputs
  int64_t large_min_end = 10'000;   ///< ... a big range's end is drawn log-uniformly from here
  int64_t large_max_iterations = 1'000'000;  ///< ... up to here; also the cap of one loop nest's product
  double p_large_store = 0.3;       ///< ... the big loop is the store nest's (one invocation per element) ...
  int64_t large_max_store_iterations = 100'000;  ///< ... of up to this many iterations
  int64_t large_small_store_iterations = 16; ///< ... else the store nest stays this small and REDUCEs take the big loops
  double p_large_end = 0.8;         ///< ... a range end with room for it is big (else as small graphs draw it)
  double large_reduce_weight = 6;   ///< ... ExprWeights::reduce (real kernels reduce)
  uint64_t large_check_max_steps = 100'000'000; ///< ... the oracle step cap of its check runs

  // ---- dtypes and values
  DTypeWeights dtypes;              ///< element types of outputs, inputs and expressions
  bool inexact_floats = true;       ///< allow float ops/constants whose results round (x*y, 1/x, sqrt, sin, 0.1, inf, nan, bitcasts to float)
  double p_inexact_const = 0.1;     ///< (inexact_floats) a float CONST is 0.1, 1/3, 1e30, 65519, 1e-8 ...
  double p_special_const = 0.3;     ///< ... and of those, inf, -inf or nan
  double p_float_negative_zero = 0.02;  ///< a float CONST is -0 (exact, but a sign edge)
  double p_int_edge_const = 0.15;   ///< a sized-integer CONST is an edge value (IntEdgeWeights; sized ints wrap)
  double p_index_edge_const = 0.15; ///< the CONST operand of an index compound is an edge index value (kept where no value overflows)
  double p_index_overflowing_pair = 0.3; ///< ... and an edge ADD is (x + c1) + c2 with c1 + c2 one past an int64 limit (x one-signed, the sum in range)
  double p_edge_var_bounds = 0.15;  ///< a VAR's bounds sit at an edge: at its dtype's limits, or strictly one side of 0
  double p_edge_input_bounds = 0.1; ///< an integer input declares vmin/vmax at its dtype's min or max
  double p_float_edge_const = 0.1;  ///< a float CONST is an edge value (FloatEdgeWeights)
  IntEdgeWeights int_edges;         ///< which edge integers
  FloatEdgeWeights float_edges;     ///< which edge floats
  // ---- edge pairs (issue 31; see EdgePairWeights)
  double p_edge_pair = 0.03;        ///< a value position is an edge pair (EdgePairWeights)
  EdgePairWeights edge_pairs;       ///< which pair
  double p_nested_divmod = 0.06;    ///< an index position is a nested constant div/mod (NestedDivmodWeights)
  NestedDivmodWeights nested_divmod;///< its shape and divisors
  double p_index_multiple = 0.03;   ///< an index position is x // c or x % c, x's window around a multiple of c (either sign)
  // ---- end of edge pairs
  double p_input_bounds = 0.3;      ///< an integer input buffer declares vmin/vmax (one of four presets, maybe multiple_of 4)
  double p_reuse_input = 0.6;       ///< a LOAD reads an existing input buffer of its dtype rather than a new one
  double p_load_alt = 0.5;          ///< a gated LOAD gives an alternative value (else 0)
  double p_cast_from_index = 0.3;   ///< a CAST's operand is an index expression (else a value of another dtype)
  double p_shift_const = 0.6;       ///< a shift amount is a CONST in [0, bits) (else x & (bits - 1))
  ExprWeights exprs;                ///< how an ordinary value position is filled
  LeafWeights leaves;               ///< which leaf
  UnaryWeights unary;               ///< which unary op
  IntOpWeights int_ops;             ///< binary ops of sized integers
  FloatOpWeights float_ops;         ///< binary ops of floats
  BoolOpWeights bool_ops;           ///< bool values from two operands
  IndexWeights index;               ///< index expressions
  DivisorWeights divisors;          ///< nonzero divisors
  AddressFixWeights address_fix;    ///< addresses that may leave the buffer
  IndexBufferWeights index_buffers; ///< element types of index buffers

  // ---- loops and stores
  double p_store_in_loop = 0.9;     ///< an output is stored inside loops (else one scalar STORE)
  double p_extra_store_range = 0.45;///< each further range of a store's loop nest (geometric)
  double p_extra_output = 0.4;      ///< each further output buffer (geometric, up to max_outputs)
  double p_reuse_range = 0.3;       ///< a store loop reuses a range of an earlier output (one RANGE closed by two ENDs)
  double p_nested_end = 0.3;        ///< a store nest is END(END(STORE, j), i) rather than END(STORE, i, j)
  double p_same_axis_type = 0.85;   ///< adjacent store ranges share an axis type (merge candidates)
  double p_global_axis = 0.25;      ///< a store nest's axis type is GLOBAL (else LOOP)
  double p_warp_axis = 0.03;        ///< a store range is a WARP axis (never split)
  double p_upcast_axis = 0.08;      ///< the innermost store range is an UPCAST axis with a CONST end of 2..8 (the CPU backend's vectors)
  double p_horner_index = 0.3;      ///< the store index is (i*Nj + j)*Nk + k rather than i*(Nj*Nk) + (j*Nk + k)
  double p_value_uses_flat = 0.5;   ///< a range leaf in a stored value is the flat index i*N + j (merge keeps it)
  double p_focus_range = 0.6;       ///< a range leaf inside a REDUCE is the range that REDUCE opened

  // ---- range ends
  double p_var_end = 0.25;          ///< a range end is an index VAR (else a CONST)
  double p_var_end_zero_min = 0.35; ///< a VAR end may be 0 (zero-trip loops)
  double p_var_end_negative_min = 0.05; ///< a VAR end may be negative (zero-trip; products of two are positive)
  double p_var_multiple_of = 0.15;  ///< a VAR end declares multiple_of (and the header value honours it)
  double p_const_end_zero = 0.02;   ///< a CONST end is 0 (a loop that never runs)
  double p_const_end_one = 0.04;    ///< a CONST end is 1 (range_one folds it)

  // ---- rule families (each is the chance that a value position takes the shape)
  double p_gather = 0.07;           ///< sum_r where(idx != r, 0, e(r)) with idx a loaded value (gather_ne)
  double p_gather_index_outside = 0.5; ///< the gather's index buffer holds values outside [0, N)
  double p_gather_load_term = 0.5;  ///< the gathered term e(r) is a load at r (else any value over r)
  double p_gather_extra_term = 0.3; ///< ... plus another value
  double p_gather_offset = 0.2;     ///< the compare is (r + k) != idx (lift_add_ne)
  double p_gather_cast_range = 0.4; ///< the compare is idx != CAST(r) in the index buffer's dtype, as tinygrad's int32 compare
  double p_gather_cast_narrow = 0.25; ///< ... with an int8 buffer and an end of 124..132 where max_range_end and the budget allow: lossy past 128
  double p_strided_sum = 0.05;      ///< sum_{r0, r1} x[r0*(b*k) + r1*k + j] (mean((0,1)) of a strided tensor), or the pair (m%c)*k + (m//c)*(c*k) itself
  double p_bound_sum = 0.08;        ///< sum_r where(r < cut, v, 0) and its lower and two-sided forms
  double p_bound_const_value = 0.4; ///< the bound sum's v is a CONST (else a value free of r)
  double p_bound_lift = 0.25;       ///< the bound compares r + y or r * y (y of either sign) instead of r (lift_add_lt, lift_mul_lt)
  CutWeights cuts;                  ///< the bound sum's cuts
  BoundFormWeights bound_forms;     ///< upper, lower, two-sided
  double p_arange = 0.06;           ///< sum_r cast(r), or the rangeify form sum_r where(!(x + r < K), 1, 0) - 1
  double p_arange_rangeify = 0.5;   ///< ... the rangeify form
  double p_window_sum = 0.06;       ///< sum_r in[i + r - pad], padded edges made safe
  double p_window_scale = 0.3;      ///< the window's term is scaled by a CONST
  double p_unparented = 0.08;       ///< REDUCE over a range its value does not use (reduce_unparented)
  double p_unparented_bare_range = 0.15; ///< ... over two ranges, the value is the second range itself (an index sum, CAST)
  double p_nested_reduce = 0.3;     ///< a generic REDUCE's value starts with another REDUCE
  double p_nested_reduce_combined = 0.5; ///< ... combined with another value (+ or -)
  double p_reduce_two_ranges = 0.3; ///< a REDUCE closes two ranges (REDUCE merge candidates)
  double p_shielded_fault = 0.03;   ///< sum_{r<n, r2} f(r) + x / (cast(r2) - c) with n = 0 in the header: a fault
                                    ///< no iteration reaches (integers; UB-free for the header's VAR values only)
  double p_range_mod = 0.2;         ///< a range leaf is RANGE % c or RANGE // c (split_range)
  double p_mod_divisible = 0.6;     ///< ... with c dividing the range's CONST end (else any c in 2..5)
  RangeOpWeights range_ops;         ///< %, CMOD or //
  double p_gate_store = 0.25;       ///< a store index is WHERE(r < g, idx, INVALID) with g below r's end (shrink_range)
  double p_gate_load = 0.15;        ///< a load index is gated the same way
  double p_two_guards = 0.25;       ///< a gate has two RANGE < CONST clauses
  double p_external_forms = 0.5;    ///< a kernel with a gated access asks an external simplifier to spell it
                                    ///< its own ways (its hello's `forms:`; gen/forms.h) ...
  double p_each_form = 0.5;         ///< ... each offered form independently (at least one)
  double p_guard_at_bound = 0.3;    ///< a guard sits at shrink_range's gate instead: the end's minimum or one
                                    ///< off it, or between a VAR end's minimum and maximum
  double p_second_use = 0.6;        ///< after a gated store, another output stores over the same ranges...
  double p_second_use_ungated = 0.5;///< ... ungated (else under a different guard)
  double p_dynamic_index = 0.1;     ///< an index position is a loaded index (index buffer with vmin/vmax)
  ReduceOpWeights reduce_ops;       ///< REDUCE ops of the generic and unparented reduces

  // ---- near misses (gen/near_miss.h; issue 31): a rule's exact shape with one side condition broken
  double p_near_miss = 0.04;        ///< a kernel is a near miss of a registered (rule, condition) row, drawn
                                    ///< uniformly (gen/near_miss.def), instead of a generated one: the rule must
                                    ///< decline it, or the differential check sees the value it got wrong

  // ---- quantized values
  double p_quantized_output = 0.3;  ///< an output buffer is quantized (its value a QuantExprWeights expression)
  double p_dequantize = 0.03;       ///< a float value position is DEQUANTIZE of a quantized value
  double p_fixed_point_product = 0.4; ///< the fixed-point shape's integer is a product (else a sum) of two values
  QuantWeights quant;               ///< quantized types
  QuantExprWeights qexprs;          ///< how a quantized value position is filled

  // ---- undefined behaviour: evaluate, repair locally
  int check_seeds = 1;              ///< input seeds 0..k-1 (with the header's VAR values) the oracle checks the graph on; 0: no check
  int max_repairs = 8;              ///< local repairs tried before an effect with UB is dropped
  uint64_t check_max_steps = 5'000'000; ///< oracle step cap per check run

  TensorGenPolicy tensor;           ///< the tensor-program generator's knobs
};

// clang-format on
}  // namespace uopfuzz::gen
