/** \file InstanceWeights: every probability of the rule-instance builders (gen/instances.h),
 * one row each, grouped by the family that draws it. InstancePolicy says which edges of the
 * instance space are on; these say how often each shape is drawn. The defaults are the
 * rates the self-check's instance streams were tuned with: changing one changes the
 * streams (tests/gen_families_test.cpp pins them). */
#pragma once

#include "gen/fields.h"

namespace uopfuzz::gen {
// The weights are a table, one knob a row with its meaning aligned beside it.
// clang-format off

struct InstanceWeights {
  // ---- range ends (every family)
  double p_negative_end_min = 0.15;    ///< (negative_range_ends) a range end's minimum drops below 0
  double p_var_end = 0.25;             ///< a range end is an index VAR (else a CONST), where the family does not say
  double p_var_plus_const_end = 0.2;   ///< a VAR end is VAR + CONST (its minimum above the VAR's)

  // ---- symbolic and divmod: constants, leaves, expressions
  double p_small_const = 0.3;          ///< an integer CONST is 0, 1, -1 or 2
  double p_huge_index_const = 0.04;    ///< an index CONST is an int64 limit or 2^40 (where faulting is allowed)
  double p_int_limit_const = 0.05;     ///< an int32 CONST is its dtype's min or max
  double p_special_float_const = 0.35; ///< a float CONST is -0, 0, inf, -inf, nan, 0.1, 1e30 or -1.5 (else k/8)
  double p_small_divisor = 0.75;       ///< a CONST divisor is in [1, 9] ...
  double p_negative_divisor = 0.5;     ///< ... else it is in [-5, -1] (else 16, 32 or 64)
  double p_expr_leaf = 0.2;            ///< an expression with depth left is a leaf anyway
  double p_rule_shape = 0.45;          ///< (symbolic) an expression is a rule's left-hand side (see shape())
  double p_divmod_rule_shape = 0.6;    ///< (divmod) ... the same, in the divmod family
  double p_const_divisor = 0.9;        ///< a division's divisor is a CONST (else an expression, where faulting is allowed)
  double p_int_shift = 0.5;            ///< an int32 bit op is a shift by a CONST (else AND, OR, XOR)
  double p_int_divmod_shape = 0.25;    ///< (symbolic) an integer rule shape is a divmod one (divmod: always)
  double p_factor_multiple_of_divisor = 0.5; ///< (x*k) // d: k is a multiple of d
  double p_addend_multiple_of_divisor = 0.6; ///< (x + y*k) // d: k is a multiple of d
  double p_modulus_multiple_of_divisor = 0.5; ///< (x%a)%d: a is a multiple of d
  double p_divisor_is_stride = 0.5;    ///< (r*c1 + r2) // c: c is c1
  double p_positive_zero_operand = 0.5;///< the zero of a float identity (x+0, x*0) is +0 (else -0)
  double p_symbolic_var = 0.6;         ///< a symbolic kernel declares a VAR
  double p_var_multiple_of = 0.2;      ///< ... which declares multiple_of 2 or 4
  double p_top_division = 0.4;         ///< (zero_trip_hoisting) the stored value is divided by an expression that can be 0
  double p_top_divisor_var = 0.5;      ///< ... whose non-vanishing term is a VAR (else an expression)

  // ---- split
  double p_split_var_end = 0.8;        ///< the split range's end (drawn in [0, 24]) is a VAR
  double p_split_var_multiple = 0.3;   ///< a VAR end of the split range declares multiple_of c
  double p_split_in_reduce = 0.3;      ///< the split range is a REDUCE's (else a store's)
  double p_split_floor_mod = 0.7;      ///< the modulo is FLOORMOD (else CMOD)
  double p_split_reduce_load = 0.4;    ///< (in a REDUCE) the value adds a load at r % c
  double p_split_store_load = 0.3;     ///< (in a store) the value is a load ...
  double p_split_load_at_mod = 0.5;    ///< ... at r % c (else at r)

  // ---- merge
  double p_merge_three_ranges = 0.3;   ///< three adjacent ranges (else two)
  double p_merge_var_end = 0.2;        ///< an adjacent range's end is a VAR
  double p_merge_loop_axes = 0.5;      ///< the ranges are LOOP axes (else GLOBAL)
  double p_merge_local_axis = 0.1;     ///< one range is a LOCAL axis
  double p_merge_row_major = 0.7;      ///< the linear index is row-major (else column-major)
  double p_merge_reduce = 0.5;         ///< the ranges are a REDUCE's (else a store's)
  double p_merge_reduce_linear = 0.8;  ///< ... which loads at the linear index (else at the first range)
  double p_merge_reduce_scaled = 0.3;  ///< ... scaled by the outer range
  double p_merge_inner_first_range = 0.5; ///< an inner REDUCE's term holds the first range (else the linear index)
  double p_merge_nested_ends = 0.3;    ///< three ranges are closed by two nested ENDs

  // ---- shrink
  double p_shrink_big_end = 0.1;       ///< the gated range's end is 204
  double p_shrink_var_end = 0.2;       ///< the gated range's end (and a gated REDUCE's) is a VAR
  double p_shrink_var_gate = 0.5;      ///< (no VAR yet) the gate compares with a VAR
  double p_shrink_bare_index = 0.8;    ///< the gated index is r (else r + 0)
  double p_shrink_second_store = 0.35; ///< a second store through the same range ...
  double p_shrink_second_gated = 0.6;  ///< ... gated by the second guard (else ungated)
  double p_shrink_2d_gate = 0.25;      ///< a store under a 2-D gate (r0 < g0) & (r1 < g1)
  double p_shrink_reduce_use = 0.15;   ///< the gated range is also a REDUCE's elsewhere

  // ---- reduce families: values free of the reduce range, outer stores
  double p_inexact_sum_const = 0.15;   ///< (float_inexact_sums) a float CONST is 0.1, 1e30 or 0.3
  double p_float_edge_const = 0.3;     ///< (float_edge_values) a float CONST is -0, inf, -inf, nan or near the float max
  double p_scalar_output = 0.35;       ///< the reduction is stored to out[0] (else per outer range)

  // ---- unparented
  double p_unparented_var = 0.4;       ///< the kernel declares a VAR
  double p_rounding_products = 0.5;    ///< (float MUL over two ranges) factors whose products round
  double p_rounding_product_load = 0.5;///< ... the factor is a load (else a CONST with a 7-bit numerator)
  double p_parented_range = 0.3;       ///< one parented range next to the unparented ones

  // ---- bound, lift
  double p_bound_range_free_value = 0.85; ///< the summed value holds no reduce range (else it is cast(r) + c)
  double p_bound_add = 0.9;            ///< the REDUCE adds (else MAX or MUL)
  double p_bound_second_range = 0.15;  ///< the REDUCE closes a second range
  double p_lift_second_clause = 0.15;  ///< the lifted compare is ANDed with r < bound
  double p_lift_range_free_value = 0.85; ///< the summed value holds no reduce range (else cast(r))
  double p_lift_plain_where = 0.5;     ///< the value is where(cond, v, 0) (else a window_value() spelling)

  // ---- collapse
  double p_collapse_float = 0.3;       ///< the sum is float32 (else reduce_dtype())
  double p_collapse_inner_uses_outer = 0.5; ///< a nested REDUCE's value holds the outer range

  // ---- gather
  double p_gather_ne_where = 0.8;      ///< the value is where(cond, 0, e) (else where(!cond, e, 0))
  double p_gather_second_range = 0.1;  ///< the REDUCE closes a second range
  UOPFUZZ_FIELDS(p_negative_end_min, p_var_end, p_var_plus_const_end, p_small_const, p_huge_index_const,
                 p_int_limit_const, p_special_float_const, p_small_divisor, p_negative_divisor, p_expr_leaf,
                 p_rule_shape, p_divmod_rule_shape, p_const_divisor, p_int_shift, p_int_divmod_shape,
                 p_factor_multiple_of_divisor, p_addend_multiple_of_divisor, p_modulus_multiple_of_divisor,
                 p_divisor_is_stride, p_positive_zero_operand, p_symbolic_var, p_var_multiple_of, p_top_division,
                 p_top_divisor_var, p_split_var_end, p_split_var_multiple, p_split_in_reduce, p_split_floor_mod,
                 p_split_reduce_load, p_split_store_load, p_split_load_at_mod, p_merge_three_ranges,
                 p_merge_var_end, p_merge_loop_axes, p_merge_local_axis, p_merge_row_major, p_merge_reduce,
                 p_merge_reduce_linear, p_merge_reduce_scaled, p_merge_inner_first_range, p_merge_nested_ends,
                 p_shrink_big_end, p_shrink_var_end, p_shrink_var_gate, p_shrink_bare_index,
                 p_shrink_second_store, p_shrink_second_gated, p_shrink_2d_gate, p_shrink_reduce_use,
                 p_inexact_sum_const, p_float_edge_const, p_scalar_output, p_unparented_var, p_rounding_products,
                 p_rounding_product_load, p_parented_range, p_bound_range_free_value, p_bound_add,
                 p_bound_second_range, p_lift_second_clause, p_lift_range_free_value, p_lift_plain_where,
                 p_collapse_float, p_collapse_inner_uses_outer, p_gather_ne_where, p_gather_second_range)
};

// clang-format on
}  // namespace uopfuzz::gen
