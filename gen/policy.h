/** \file GenPolicy: every probability and limit of the kernel generator, in one struct (YARPGen style).
 *
 * A probability p is the chance that a choice point takes the named shape; the choice
 * points are described in gen/generator.h. Weights are relative (need not sum to 1; a
 * weight of 0 switches the option off). The defaults aim at small kernels (tens of
 * nodes, hundreds of loop iterations) biased to what the simplifier's rules target.
 */
#pragma once

#include <cstdint>

#include "ir/dtype.h"

namespace uopfuzz::gen {

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
      default: return 0;  // index and void are never buffer elements
    }
  }
};

/// Relative weight of each REDUCE op.
struct ReduceOpWeights {
  double add = 6, mul = 1, max = 1.5, min = 1.5;
};

/// Relative weight of each way to fill an expression position (after the pattern
/// families of GenPolicy had their chance).
struct ExprWeights {
  double leaf = 4;    ///< a CONST, LOAD, VAR or range-derived value
  double unary = 1;   ///< NEG, TRUNC, CAST/BITCAST from another dtype, transcendental (inexact floats)
  double binary = 4;  ///< the dtype's binary ALU ops (divisors and shift amounts made safe)
  double where = 1;   ///< WHERE(cond, a, b)
  double reduce = 1;  ///< a generic REDUCE over fresh ranges (see also the families below)
};

/// Relative weight of each kind of leaf.
struct LeafWeights {
  double constant = 3;  ///< a small CONST
  double load = 3;      ///< a LOAD from an input buffer
  double range = 3;     ///< an open range (or the store nest's flat index), cast to the dtype
  double var = 0.5;     ///< a VAR (integer dtypes)
};

struct GenPolicy {
  // ---- size limits
  int max_nodes = 72;               ///< soft budget of nodes built: past it, positions become leaves
  int max_expr_depth = 4;           ///< depth of a value expression tree
  int max_loop_nest = 4;            ///< ranges open at once (store loops plus REDUCE loops; stores use at most one less)
  int max_outputs = 3;              ///< output buffers; each is written by one STORE effect
  int max_inputs = 4;               ///< input buffers (index buffers of gathers included)
  int64_t max_range_end = 12;       ///< largest CONST or VAR end of a range
  int64_t max_mul_reduce_end = 4;   ///< largest end of a REDUCE MUL range (products stay small)
  int64_t max_iterations = 1024;    ///< largest product of trip counts of one loop nest (oracle time)
  int64_t max_store_iterations = 256;  ///< ... of a store nest (the rest is for REDUCEs inside it)
  int64_t max_buffer_size = 1024;   ///< largest buffer; wider addresses are wrapped or gated
  int64_t max_index_magnitude = int64_t{1} << 40;  ///< index values stay far from int64 overflow

  // ---- dtypes and values
  DTypeWeights dtypes;              ///< element types of outputs, inputs and expressions
  double p_other_dtype = 0.15;      ///< an operand is computed in another dtype and cast
  bool inexact_floats = false;      ///< allow float ops/constants whose results round (x*y, 1/x, sqrt, sin, 0.1, inf, nan)
  double p_float_negative_zero = 0.02;  ///< a float CONST is -0 (exact, but a sign edge)
  double p_int_edge_const = 0.05;   ///< an integer CONST is its dtype's min or max (sized ints wrap)
  double p_input_bounds = 0.3;      ///< an integer input buffer declares vmin/vmax (and maybe multiple_of)
  double p_reuse_input = 0.6;       ///< a LOAD reads an existing input buffer of its dtype rather than a new one

  // ---- loops and stores
  double p_store_in_loop = 0.9;     ///< an output is stored inside loops (else one scalar STORE)
  double p_extra_store_range = 0.45;///< each further range of a store's loop nest (geometric)
  double p_extra_output = 0.4;      ///< each further output buffer (geometric, up to max_outputs)
  double p_reuse_range = 0.3;       ///< a store loop reuses a range of an earlier output (one RANGE closed by two ENDs)
  double p_nested_end = 0.3;        ///< a store nest is END(END(STORE, j), i) rather than END(STORE, i, j)
  double p_same_axis_type = 0.85;   ///< adjacent store ranges share an axis type (merge candidates)
  double p_global_axis = 0.25;      ///< a store nest's axis type is GLOBAL (else LOOP)
  double p_warp_axis = 0.03;        ///< a store range is a WARP axis (never split)
  double p_horner_index = 0.3;      ///< the store index is (i*Nj + j)*Nk + k rather than i*(Nj*Nk) + (j*Nk + k)
  double p_value_uses_flat = 0.5;   ///< a range leaf in a stored value is the flat index i*N + j (merge keeps it)

  // ---- range ends
  double p_var_end = 0.25;          ///< a range end is an index VAR (else a CONST)
  double p_var_end_zero_min = 0.35; ///< a VAR end may be 0 (zero-trip loops)
  double p_var_end_negative_min = 0.05; ///< a VAR end may be negative (zero-trip; products of two are positive)
  double p_var_multiple_of = 0.15;  ///< a VAR end declares multiple_of (and the header value honours it)
  double p_const_end_zero = 0.02;   ///< a CONST end is 0 (a loop that never runs)
  double p_const_end_one = 0.04;    ///< a CONST end is 1 (range_one folds it)

  // ---- rule families (each is the chance that an expression position takes the shape)
  double p_range_mod = 0.2;         ///< an index leaf is RANGE % c or RANGE // c (split_range)
  double p_mod_divisible = 0.6;     ///< ... with c dividing the range's CONST end (else any c in 2..5)
  double p_gate_store = 0.25;       ///< a store index is WHERE(r < g, idx, INVALID) with g below r's end (shrink_range)
  double p_gate_load = 0.15;        ///< a load index is gated the same way (alt value maybe given)
  double p_second_use = 0.6;        ///< after a gated store, another output stores over the same ranges...
  double p_second_use_ungated = 0.5;///< ... ungated (else under a different guard)
  double p_arange = 0.06;           ///< sum_r cast(r), or the rangeify form sum_r where(!(x + r < K), 1, 0) - 1
  double p_bound_sum = 0.08;        ///< sum_r where(r < cut, v, 0) (upper, lower and two-sided bounds)
  double p_window_sum = 0.06;       ///< sum_r in[i + r - pad], padded edges gated
  double p_gather = 0.07;           ///< sum_r where(idx != r, 0, e(r)) with idx a loaded value (gather_ne)
  double p_gather_index_outside = 0.5; ///< the gather's index buffer holds values outside [0, N)
  double p_unparented = 0.08;       ///< REDUCE over a range its value does not use (reduce_unparented)
  double p_nested_reduce = 0.3;     ///< a REDUCE's value starts with another REDUCE
  double p_reduce_two_ranges = 0.3; ///< a REDUCE closes two ranges (REDUCE merge candidates)
  double p_dynamic_index = 0.1;     ///< a load address is itself loaded (index buffer with vmin/vmax)
  ReduceOpWeights reduce_ops;       ///< REDUCE ops of the generic and unparented reduces
  ExprWeights exprs;                ///< how an ordinary expression position is filled
  LeafWeights leaves;               ///< which leaf

  // ---- undefined behaviour: evaluate, repair locally
  int check_seeds = 1;              ///< input seeds 0..k-1 (with the header's VAR values) the oracle checks the graph on; 0: no check
  int max_repairs = 8;              ///< local repairs tried before an effect with UB is dropped
  uint64_t check_max_steps = 5'000'000; ///< oracle step cap per check run
};

}  // namespace uopfuzz::gen
