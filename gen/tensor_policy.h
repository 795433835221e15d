/** \file TensorGenPolicy: every probability and limit of the tensor-program generator
 * (gen/tensor_gen.h), one knob a row; GenPolicy (gen/policy.h) holds one as `tensor`.
 */
#pragma once

#include <cstdint>

#include "gen/fields.h"
#include "gen/kernel_weights.h"

namespace uopfuzz::gen {
// clang-format off


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

  UOPFUZZ_FIELDS(input, constant, reuse, elementwise, cast, movement, reduce, reduce_broadcast, self_combine,
                 contiguous, shared_reduce, unary_in_reduce, wide_read, pad_shared, const_broadcast, dead_axes,
                 split_candidate, dequantize, gated_divide, partial_shared)
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

  UOPFUZZ_FIELDS(input, quantize, requantize, where, bitcast, movement, unit_reduce, sum_reduce)
};

/// Which size-1 axes a quantized unit-axis REDUCE_AXIS reduces.
struct UnitAxisWeights {
  double one = 2;          ///< one size-1 axis, the other dims wide
  double several = 2;      ///< two or three size-1 axes
  double all = 1.5;        ///< every axis (all of size 1)
  double none = 1;         ///< axes = [] (reduce nothing)
  double beside_wide = 3;  ///< size-1 axes next to size-1 dims it keeps and wide dims ([1,5,7,9] with axes [0])

  UOPFUZZ_FIELDS(one, several, all, none, beside_wide)
};

/// Extents of a dim a split candidate reduces: split reduce needs a divisor in [8, 256].
struct SplitDimWeights {
  double factorable = 4;  ///< 16, 24, 32, 48, 64, 96, 128 or 256 (divisors in [8, 256])
  double prime = 1.5;     ///< 17, 31, 37 or 61 (no divisor: the split skips the dim)
  double small = 1;       ///< 2..7 (too small to split, reduced next to a factorable dim)

  UOPFUZZ_FIELDS(factorable, prime, small)
};

/// Which movement op makes a position's shape from another.
struct MovementWeights {
  double reshape = 3, permute = 2, expand = 2, pad = 1.5, shrink = 1.5, flip = 1;

  UOPFUZZ_FIELDS(reshape, permute, expand, pad, shrink, flip)
};

/// Which axes a REDUCE_AXIS reduces.
struct ReduceAxesWeights {
  double one = 4;       ///< one axis of extent > 1
  double several = 2;   ///< two or three axes
  double all = 1;       ///< every axis (then reshaped and expanded to the position's shape)
  double size_one = 1;  ///< axes of extent 1 only (the identity on values)
  double none = 0.5;    ///< an empty axis list

  UOPFUZZ_FIELDS(one, several, all, size_one, none)
};

/// Relative weight of each REDUCE_AXIS op (bool: MAX and MIN only).
struct TensorReduceOpWeights {
  double add = 3, mul = 0.7, max = 1.5, min = 1.5;

  UOPFUZZ_FIELDS(add, mul, max, min)
};

/// Elementwise ops of sized integers (divisors and shift amounts are made safe).
struct TensorIntOpWeights {
  double add = 3, sub = 2, mul = 1.5, max = 1, min = 1, neg = 0.5;
  double cdiv = 0.4, cmod = 0.4, floordiv = 0.4, floormod = 0.4;
  double and_ = 0.4, or_ = 0.4, xor_ = 0.4, shl = 0.3, shr = 0.3;
  double where = 0.7;

  UOPFUZZ_FIELDS(add, sub, mul, max, min, neg, cdiv, cmod, floordiv, floormod, and_, or_, xor_, shl, shr, where)
};

/// Elementwise ops of floats (all defined; products round elementwise, the same everywhere).
struct TensorFloatOpWeights {
  double add = 3, sub = 2, mul = 1.5, max = 1, min = 1, neg = 0.5, trunc = 0.3, where = 0.7;

  UOPFUZZ_FIELDS(add, sub, mul, max, min, neg, trunc, where)
};

/// Elementwise ops giving bool.
struct TensorBoolOpWeights {
  double logic = 2;    ///< AND, OR, XOR of two bools
  double compare = 3;  ///< CMPLT, CMPNE, CMPEQ of two values of another dtype
  double where = 0.5;  ///< WHERE of bools

  UOPFUZZ_FIELDS(logic, compare, where)
};

/// Extents of a fresh dim (an extent 0 is p_zero_dim's).
struct ExtentWeights {
  double one = 3, two = 2, three = 2, four = 1, five = 1.5, six = 0.5, seven = 1, eleven = 0.5, thirteen = 0.5;

  UOPFUZZ_FIELDS(one, two, three, four, five, six, seven, eleven, thirteen)
};

/// The second read of a node read twice (x op m(x)): a movement of x to its own shape.
struct OtherViewWeights {
  double flip = 1;               ///< FLIP of some axes (a rank-0 x: never)
  double swap_equal = 1.5;       ///< PERMUTE swapping two equal dims (where x has two)
  double shift = 1;              ///< PAD one side of an axis by one, SHRINK the other off: x shifted
  double reshape_round_trip = 1; ///< RESHAPE to another factorisation and back (indices agree: where allowed)

  UOPFUZZ_FIELDS(flip, swap_equal, shift, reshape_round_trip)
};

/// The float type QUANTIZE reads.
struct QuantizeSourceWeights {
  double float32 = 4, float16 = 1, float64 = 1;

  UOPFUZZ_FIELDS(float32, float16, float64)
};

/// What an element of a program's hard float input is (p_hard_float_inputs).
struct HardFloatWeights {
  double random_bits = 3;       ///< any finite value of the type (random bits)
  double mixed_magnitude = 3;   ///< m * 10^k, 1 <= m < 2, k across the type's range
  double signed_zero = 1;       ///< 0 or -0
  double near_one = 1;          ///< +-1 or its neighbour 1 + 2^-10
  double eighths = 1;           ///< k/8 with |k| <= 64 (exact in every float type)
  double special = 1.5;         ///< inf, -inf or NaN (only where p_float_specials)

  UOPFUZZ_FIELDS(random_bits, mixed_magnitude, signed_zero, near_one, eighths, special)
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
  double p_pad_more_dims = 0.4;     ///< a PAD pads each paddable dim besides the one it must
  int64_t max_pad = 3;              ///< ... by 1..this elements a dim (at most the dim's extent less what it keeps)
  int64_t max_shift_pad = 2;        ///< a PAD-gated read (pad_shared, gated_divide) pads its axis by 1..this
  double p_shrink_more_dims = 0.4;  ///< a SHRINK cuts each dim besides the one it must
  int64_t max_shrink = 3;           ///< ... 1..this elements off a dim
  double p_expand_more_dims = 0.3;  ///< an EXPAND broadcasts each wide dim besides the one it must
  double p_flip_more_axes = 0.3;    ///< a FLIP reverses each axis besides the one it must
  double p_reduce_existing_one = 0.5;///< a reduced axis is a size-1 dim of the position (else one inserted, where the rank allows)
  int64_t max_several_axes = 3;     ///< a REDUCE_AXIS over several axes (ReduceAxesWeights, UnitAxisWeights) reduces 2..this
  int64_t max_size_one_axes = 2;    ///< a REDUCE_AXIS over size-1 axes only (ReduceAxesWeights::size_one) reduces 1..this
  double p_share_may_agree = 0.25;  ///< a node read twice may be read the second time through a reshape there and back (indices that agree)
  OtherViewWeights other_views;     ///< the second read of a node read twice

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
  double p_dead_keep_dim = 0.4;     ///< ... else each dim of the expanded value keeps the position's extent (else 1)
  double p_dead_reduced = 0.5;      ///< ... the expanded value is a REDUCE_AXIS (a reduce in scope)
  double p_const_broadcast_dim = 0.5;///< each dim of a broadcast CONST is 1, expanded to the position's (none: the CONST is flipped)
  double p_gated_divide_alone = 0.5;///< a gated division is read through the PAD only (else beside its ungated read)
  double p_partial_fresh_input = 0.5;///< a partial-shared buffer's broadcast value is a fresh input (else any filled value)
  double p_partial_flip_one_axis = 0.5;///< ... its second reduce reads it flipped on axis 1 (else on both axes)
  int64_t partial_max_broadcast = 3;///< ... its broadcast value has 1..this elements
  int64_t partial_max_width = 7;    ///< ... and its reduced axis 2..this (or the 10x ratio's least)
  int64_t split_max_numel = 4096;   ///< largest input of a split candidate
  int split_max_reduced = 2;        ///< dims a split candidate reduces (1..this)
  int64_t split_small_max = 7;      ///< a small reduced dim (SplitDimWeights::small) is 2..this
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
  QuantizeSourceWeights quantize_from; ///< the float type a QUANTIZE reads
  double p_unit_keep_inserted = 0.5;///< a beside-wide unit reduce inserts a size-1 dim it keeps
  double p_unit_existing_one = 0.5; ///< a unit reduce reduces a size-1 dim of the position (else one inserted, where the rank allows)
  double p_sum_existing_one = 0.5;  ///< a quantized sum reduces a size-1 dim of the position widened (else one inserted, where the rank allows)
  int64_t max_quant_sum_terms = 64; ///< largest element count a quantized REDUCE_AXIS ADD sums
  int64_t max_sum_axes = 2;         ///< a quantized sum (QuantNodeWeights::sum_reduce) reduces 1..this axes
  double rank0 = 0.4, rank1 = 2, rank2 = 3, rank3 = 2, rank4 = 1;  ///< rank of a fresh shape
  DTypeWeights dtypes{.bool_ = 0.7, .int8 = 0.6, .int16 = 0.5, .int32 = 3.0, .int64 = 0.7,
                      .uint8 = 0.6, .uint16 = 0.4, .uint32 = 0.6, .uint64 = 0.4,
                      .float16 = 0.7, .float32 = 2.5, .float64 = 0.6};  ///< element types
  double p_bitcast = 0.15;          ///< a CAST position is a BITCAST between dtypes of one size (from a float: NaN-guarded)
  double p_divisor_const = 0.5;     ///< an integer divisor is a nonzero CONST (else x | 1, never 0)
  double p_shift_const = 0.5;       ///< a shift amount is a CONST in [0, bits) (else x & (bits - 1))
  double p_edge_const = 0.1;        ///< an integer CONST is its dtype's minimum or maximum (sized integers wrap)
  int64_t signed_const_max = 8;     ///< ... else a signed one is in [-this, this]
  int64_t unsigned_const_max = 16;  ///< ... and an unsigned one in [0, this]
  int64_t float_const_eighths = 64; ///< a float CONST is k/8 with |k| <= this (exact in every float type)
  int64_t divisor_const_max = 7;    ///< a CONST divisor is in [1, this] (signed: either sign)
  int64_t nonzero_input_max = 8;    ///< an input divisor's range: [1, this], signed maybe [-this, -1], unsigned [1, 2 * this]
  int64_t float_to_int_clamp = 100; ///< a float reaching an integer CAST is clamped into [-this, this] ([0, this] unsigned)
  int64_t max_small_reduce_extent = 5;///< a reduced dim drawn as 1 becomes 2..this (outside a degenerate program)
  double p_negative_zero = 0.02;    ///< a float CONST is -0
  // ---- issue 31 (tensor level): hard inputs, each a per-program choice recorded in the program
  double p_divisor_input = 0.3;     ///< an integer divisor is an input PARAM of nonzero range (vmin..vmax), read 0 where a gate is off
  double p_degenerate_shapes = 0.1; ///< a program draws size-0 and size-1 dims on purpose (p_zero_dim, extents of 1, x2 below)
  double degenerate_zero_dim = 0.08;///< ... its p_zero_dim
  double degenerate_one_dim = 0.5;  ///< ... the chance a fresh dim is 1
  double p_edge_inputs = 0.2;       ///< a program's sized-integer inputs hold their type's caps (@input lines: min, max, 0, +-1, near the caps)
  double p_hard_float_inputs = 0.15;///< a program's float inputs round (@input lines: full range, mixed magnitudes, -0; inf/NaN only where p_float_specials)
  double p_float_specials = 0.3;    ///< ... and also hold inf, -inf and NaN
  HardFloatWeights hard_floats;     ///< ... what each element is
  double p_edge_int_small = 0.3;    ///< an element of a sized-integer input at the caps is small instead
  int64_t edge_int_small_max = 8;   ///< ... |v| <= this

  // ---- undefined behaviour: evaluate on the tensor oracle, repair locally
  bool check = true;                ///< run the program on the tensor oracle (input seed 0) and repair what it finds undefined
  int max_repairs = 8;              ///< undefined nodes replaced by a CONST before giving up

  UOPFUZZ_FIELDS(max_nodes, max_depth, max_rank, max_numel, max_outputs, p_extra_output, max_inputs, p_zero_dim,
                 p_flat_input, p_contiguous_output, max_mul_reduce, p_pad_both, p_pad_more_dims, max_pad,
                 max_shift_pad, p_shrink_more_dims, max_shrink, p_expand_more_dims, p_flip_more_axes,
                 p_reduce_existing_one, max_several_axes, max_size_one_axes, p_share_may_agree, other_views,
                 p_large_reduce, large_max_nodes, large_max_rows, p_large_realistic, p_shared_reduce_all,
                 p_unary_cast, max_wide_inputs, p_wide_reduce, p_dead_scalar, p_dead_keep_dim, p_dead_reduced,
                 p_const_broadcast_dim, p_gated_divide_alone, p_partial_fresh_input, p_partial_flip_one_axis,
                 partial_max_broadcast, partial_max_width, split_max_numel, split_max_reduced, split_small_max,
                 p_split_broadcast, split_dims, nodes, movement, reduce_axes, reduce_ops, int_ops, float_ops,
                 bool_ops, extents, quant, qnodes, unit_axes, p_quantized_output, p_same_reduce_type,
                 quantize_from, p_unit_keep_inserted, p_unit_existing_one, p_sum_existing_one,
                 max_quant_sum_terms, max_sum_axes, rank0, rank1, rank2, rank3, rank4, dtypes, p_bitcast,
                 p_divisor_const, p_shift_const, p_edge_const, signed_const_max, unsigned_const_max,
                 float_const_eighths, divisor_const_max, nonzero_input_max, float_to_int_clamp,
                 max_small_reduce_extent, p_negative_zero, p_divisor_input, p_degenerate_shapes,
                 degenerate_zero_dim, degenerate_one_dim, p_edge_inputs, p_hard_float_inputs, p_float_specials,
                 hard_floats, p_edge_int_small, edge_int_small_max, check, max_repairs)
};

// clang-format on
}  // namespace uopfuzz::gen
