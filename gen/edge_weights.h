/** \file The weight tables of the kernel generator's edge values and edge pairs (GenPolicy's
 * rows, gen/policy.h; drawn by gen/edge_values.cpp and gen/edge_pairs.cpp): which edge
 * integers and floats, which pair of a boundary constant and a value straddling it, which
 * nested divmod. Weights are relative; a p_ field is a probability.
 */
#pragma once

#include "gen/fields.h"

namespace uopfuzz::gen {
// The policy is a table, one knob a row with its meaning aligned beside it.
// clang-format off

/// Classes of edge integers (gen/edge_values.h).
struct IntEdgeWeights {
  double small = 1;         ///< 0, 1, -1
  double power_of_two = 2;  ///< +-2^k and +-(2^k +- 1)
  double limit = 2;         ///< the dtype's min and max and their neighbours (index: also +-max_index_magnitude)
  double pair = 2;          ///< a value whose sum or product with an earlier edge value lands on a limit or one past it
  double p_pair_sum = 0.6;  ///< ... its sum (else its product: the first value past the range, or one short of it)
  UOPFUZZ_FIELDS(small, power_of_two, limit, pair, p_pair_sum)
};

/// Classes of edge floats (gen/edge_values.h).
struct FloatEdgeWeights {
  double signed_zero = 1;     ///< -0 or +0 ...
  double p_negative_zero = 0.75; ///< ... -0
  double random_mantissa = 3; ///< a random significand of the dtype's full width, exponent in [-10, 10]
  double rounding = 2;        ///< 2^p, 2^p +- ulp, 1 +- ulp (p = significand bits): sums with them round after a few terms
  double limit = 1;           ///< the largest finite value, the smallest normal and subnormal, negated or not
  double special = 1;         ///< inf, -inf, NaN (inexact_floats only)
  UOPFUZZ_FIELDS(signed_zero, p_negative_zero, random_mantissa, rounding, limit, special)
};

// ---- edge pairs (issue 31; gen/edge_values.h): a constant at a boundary drawn together with a
// value whose declared window straddles it, so whatever value a run draws sits on the boundary.

/// Which op or cast a special float sits under (EdgePairWeights::special_unary). The ops that
/// round or make inf and NaN (RECIPROCAL .. SIN, CAST to a float, an integer limit to a float)
/// are drawn with inexact_floats only.
struct SpecialUnaryWeights {
  double neg = 1, trunc = 1;                                        ///< NEG, TRUNC
  double reciprocal = 1, sqrt = 1, exp2 = 1, log2 = 1, sin = 1;     ///< the transcendentals
  double cast_float = 1;      ///< CAST to any float (its own dtype included)
  double cast_bool = 1;       ///< CAST to bool
  double bitcast_int = 1;     ///< BITCAST to the integer of its size (never NaN: UB)
  double cast_int = 1;        ///< CAST to an integer through the NaN guard
  double int_limit = 1;       ///< an integer limit (or one below it) under a CAST to the float
  UOPFUZZ_FIELDS(neg, trunc, reciprocal, sqrt, exp2, log2, sin, cast_float, cast_bool, bitcast_int, cast_int,
                 int_limit)
};

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
  // the pairs' own shapes
  double rounding_float16 = 0.5, rounding_float32 = 2, rounding_float64 = 1.5;  ///< the float type of a rounding pair
  double p_float16_overflow = 0.3;   ///< (float16) the window is around 65520, where it overflows (else around 2^11)
  double p_negative_window = 0.3;    ///< (signed integer) a rounding pair's window is around -2^p
  double p_rounding_neighbour = 0.3; ///< a compared rounding pair compares f(x) with f(x + 1) (else a constant at the boundary)
  double p_round_trip = 0.5;         ///< a rounding pair's value is int(f(x)) - x (else f(x) minus the boundary)
  double p_limit_own_dtype = 0.7;    ///< a limit pair computes in its position's integer dtype (else any integer)
  double p_small_factor = 0.5;       ///< a limit pair's factor is in [2, 7] (else a power of two)
  double p_negative_factor = 0.3;    ///< (signed) ... negated
  double p_multiple_own_dtype = 0.7; ///< a multiple pair computes in its position's integer dtype (else any integer)
  double p_min_by_minus_one = 0.15;  ///< (signed) a multiple pair is INT_MIN / -1 (else a window around k*c)
  double p_small_divisor = 0.8;      ///< its divisor c is one of 1..8, 16 (else a power of two from 32 on)
  double p_negative_divisor = 0.4;   ///< (signed) ... negated
  double p_multiple_near_limit = 0.3;///< its window is around the multiple of c nearest a limit (else k*c, k small)
  double p_recombined = 0.2;         ///< it is (x//c)*c + x%c (else x op c)
  double p_special_own_dtype = 0.6;  ///< a special unary computes in its position's float dtype ...
  double special_float16 = 0.5, special_float32 = 2, special_float64 = 1;  ///< ... else in this float type
  SpecialUnaryWeights special_ops;   ///< the op or cast over the special value
  double p_limit_itself = 0.5;       ///< an integer limit under a CAST is the limit (else one below it)
  double p_index_multiple_negative = 0.4;   ///< an index multiple's divisor is negative (GenPolicy::p_index_multiple)
  double p_index_multiple_near_limit = 0.3; ///< its window is around the multiple nearest +-max_index_magnitude
  UOPFUZZ_FIELDS(float_rounding, limit, multiple, special_unary, p_from_load, rounding_float16, rounding_float32,
                 rounding_float64, p_float16_overflow, p_negative_window, p_rounding_neighbour, p_round_trip,
                 p_limit_own_dtype, p_small_factor, p_negative_factor, p_multiple_own_dtype, p_min_by_minus_one,
                 p_small_divisor, p_negative_divisor, p_multiple_near_limit, p_recombined, p_special_own_dtype,
                 special_float16, special_float32, special_float64, special_ops, p_limit_itself,
                 p_index_multiple_negative, p_index_multiple_near_limit)
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
  UOPFUZZ_FIELDS(div_div, mod_mod, div_mod, mod_div, mul_div, mul_mod, add_div, add_mod, a_divides_b,
                 b_divides_a, neither, equal, unit, p_negative, p_c_rounding, p_window)
};

// clang-format on
}  // namespace uopfuzz::gen
