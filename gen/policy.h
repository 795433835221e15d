/** \file GenPolicy: every probability and limit of the kernel generator, in one struct (YARPGen
 * style), its weight tables in gen/kernel_weights.h and gen/edge_weights.h; the tensor-program
 * generator's knobs are TensorGenPolicy's (gen/tensor_policy.h), held here as `tensor`.
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

#include "gen/fields.h"
#include "gen/tensor_policy.h"

namespace uopfuzz::gen {
// The policy is a table, one knob a row with its meaning aligned beside it.
// clang-format off

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
  double p_strided_pair = 0.5;      ///< ... the pair itself (sum_r x[(m%c)*k + (m//c)*(c*k)], m = r + o)
  double p_strided_offset_range = 0.5; ///< ... (the strided sum, inside loops) its offset j is an enclosing range (else a CONST)
  double p_bound_sum = 0.08;        ///< sum_r where(r < cut, v, 0) and its lower and two-sided forms
  double p_bound_const_value = 0.4; ///< the bound sum's v is a CONST (else a value free of r)
  double p_bound_lift = 0.25;       ///< the bound compares r + y or r * y (y of either sign) instead of r (lift_add_lt, lift_mul_lt)
  double p_bound_lift_var = 0.5;    ///< ... y is an index VAR (else a CONST in [-2, 3])
  double p_bound_lift_add = 0.5;    ///< ... the lift is r + y (else r * y)
  CutWeights cuts;                  ///< the bound sum's cuts
  BoundFormWeights bound_forms;     ///< upper, lower, two-sided
  double p_arange = 0.06;           ///< sum_r cast(r), or the rangeify form sum_r where(!(x + r < K), 1, 0) - 1
  double p_arange_rangeify = 0.5;   ///< ... the rangeify form
  double p_window_sum = 0.06;       ///< sum_r in[i + r - pad], padded edges made safe
  double p_window_scale = 0.3;      ///< the window's term is scaled by a CONST
  double p_unparented = 0.08;       ///< REDUCE over a range its value does not use (reduce_unparented)
  double p_unparented_bare_range = 0.15; ///< ... over two ranges, the value is the second range itself (an index sum, CAST)
  double p_nested_reduce = 0.3;     ///< a generic REDUCE's value starts with another REDUCE
  double p_nested_reduce_combined = 0.5; ///< ... combined with another value ...
  double p_nested_reduce_added = 0.5;    ///< ... by + (else by -)
  double p_reduce_two_ranges = 0.3; ///< a REDUCE closes two ranges (REDUCE merge candidates)
  double p_shielded_fault = 0.03;   ///< sum_{r<n, r2} f(r) + x / (cast(r2) - c) with n = 0 in the header: a fault
                                    ///< no iteration reaches (integers; UB-free for the header's VAR values only)
  double p_shielded_gated = 0.5;    ///< ... (sized integers) the fault is sum_{r<n} where(r < k, x / d, 0), n = d = 0
                                    ///< (a bound-rule shape whose closed form divides by 0)
  double p_shielded_square = 0.5;   ///< ... else f(r) is r * r (else any value over r)
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
  double p_fixed_point_product = 0.4; ///< the fixed-point shape's integer is a product (else a sum or difference) of two values
  double p_fixed_point_sum_add = 0.7; ///< ... a sum (else a difference)
  QuantWeights quant;               ///< quantized types
  QuantExprWeights qexprs;          ///< how a quantized value position is filled

  // ---- undefined behaviour: evaluate, repair locally
  int check_seeds = 1;              ///< input seeds 0..k-1 (with the header's VAR values) the oracle checks the graph on; 0: no check
  int max_repairs = 8;              ///< local repairs tried before an effect with UB is dropped
  uint64_t check_max_steps = 5'000'000; ///< oracle step cap per check run

  TensorGenPolicy tensor;           ///< the tensor-program generator's knobs
  UOPFUZZ_FIELDS(max_positions, max_expr_depth, max_loop_nest, max_outputs, max_inputs, max_range_end,
                 max_mul_reduce_end, max_iterations, max_store_iterations, max_buffer_size, max_index_magnitude,
                 p_large, large_max_positions, large_max_outputs, large_min_end, large_max_iterations,
                 p_large_store, large_max_store_iterations, large_small_store_iterations, p_large_end,
                 large_reduce_weight, large_check_max_steps, dtypes, inexact_floats, p_inexact_const,
                 p_special_const, p_float_negative_zero, p_int_edge_const, p_index_edge_const,
                 p_index_overflowing_pair, p_edge_var_bounds, p_edge_input_bounds, p_float_edge_const, int_edges,
                 float_edges, p_edge_pair, edge_pairs, p_nested_divmod, nested_divmod, p_index_multiple,
                 p_input_bounds, p_reuse_input, p_load_alt, p_cast_from_index, p_shift_const, exprs, leaves,
                 unary, int_ops, float_ops, bool_ops, index, divisors, address_fix, index_buffers,
                 p_store_in_loop, p_extra_store_range, p_extra_output, p_reuse_range, p_nested_end,
                 p_same_axis_type, p_global_axis, p_warp_axis, p_upcast_axis, p_horner_index, p_value_uses_flat,
                 p_focus_range, p_var_end, p_var_end_zero_min, p_var_end_negative_min, p_var_multiple_of,
                 p_const_end_zero, p_const_end_one, p_gather, p_gather_index_outside, p_gather_load_term,
                 p_gather_extra_term, p_gather_offset, p_gather_cast_range, p_gather_cast_narrow, p_strided_sum,
                 p_strided_pair, p_strided_offset_range, p_bound_sum, p_bound_const_value, p_bound_lift,
                 p_bound_lift_var, p_bound_lift_add, cuts, bound_forms, p_arange, p_arange_rangeify,
                 p_window_sum, p_window_scale, p_unparented, p_unparented_bare_range, p_nested_reduce,
                 p_nested_reduce_combined, p_nested_reduce_added, p_reduce_two_ranges, p_shielded_fault,
                 p_shielded_gated, p_shielded_square, p_range_mod, p_mod_divisible, range_ops, p_gate_store,
                 p_gate_load, p_two_guards, p_external_forms, p_each_form, p_guard_at_bound, p_second_use,
                 p_second_use_ungated, p_dynamic_index, reduce_ops, p_near_miss, p_quantized_output,
                 p_dequantize, p_fixed_point_product, p_fixed_point_sum_add, quant, qexprs, check_seeds,
                 max_repairs, check_max_steps, tensor)
};

// clang-format on
}  // namespace uopfuzz::gen
