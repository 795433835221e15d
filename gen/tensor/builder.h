/** \file TensorBuilder: the state and the shared helpers of the tensor-program generator's
 * families (gen/tensor_gen.h). Each family's builder is a member defined in the
 * gen/tensor/ file that holds its idea and registered in gen/tensor_families.def; fill()
 * draws a family by its weight (TensorNodeWeights, QuantNodeWeights) in the .def's order.
 *
 * Every fill() gives a node of exactly the dtype and shape asked for, so no builder has to
 * repair a shape afterwards. Every probability and weight drawn here is a TensorGenPolicy
 * field; a fair choice between equivalent spellings is coin().
 */
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gen/entropy.h"
#include "gen/tensor_policy.h"
#include "ir/kernel.h"
#include "ir/tensor.h"
#include "ir/uop.h"

namespace uopfuzz::gen {

/// What fills a non-quantized position (gen/tensor_families.def).
enum class TensorFamily : uint8_t {
#define TENSOR_FAMILY(e, name, weight, gate, builder, what) e,
#include "gen/tensor_families.def"
};
/// What fills a quantized position (gen/tensor_families.def).
enum class QuantFamily : uint8_t {
#define QUANT_FAMILY(e, name, weight, builder, what) e,
#include "gen/tensor_families.def"
};

class TensorBuilder {
 public:
  using UOp = ir::UOp;
  using DType = ir::DType;
  using Shape = ir::Shape;
  using Op = ir::Op;
  using Pads = std::vector<std::pair<int64_t, int64_t>>;

  TensorBuilder(ir::Context& ctx, const TensorGenPolicy& p, Entropy& e)
      : ctx_(ctx), p_(p), e_(e), budget_(p.max_nodes) {}

  /// The program: its outputs (REALIZE's sources) filled from fresh positions.
  UOp build();

 private:
  // ---- the families (gen/tensor_families.def), each (dtype, shape, depth of its sources)
#define TENSOR_FAMILY(e, name, weight, gate, builder, what) \
  UOp builder(DType dt, const Shape& s, int depth);
#include "gen/tensor_families.def"
#define QUANT_FAMILY(e, name, weight, builder, what) \
  UOp builder(DType qt, const Shape& s, int depth);
#include "gen/tensor_families.def"

  // ---- the families' gates: where a TENSOR_FAMILY row may be drawn
  bool any_position(DType, const Shape&) const {
    return true;
  }
  bool reusable(DType dt, const Shape& s) const {
    return pool_.count(key(dt, s)) > 0;
  }
  bool float_position(DType dt, const Shape&) const {
    return dt.is_float();
  }
  bool sized_int_position(DType dt, const Shape&) const {
    return sized_int(dt);
  }

  // ---- positions (builder.cpp): a node of exactly `dt` and `s`, sources `depth` deep
  UOp fill(DType dt, const Shape& s, int depth);
  UOp fill_node(DType dt, const Shape& s, int depth);
  UOp fill_quantized(DType qt, const Shape& s, int depth);
  /// An input, a CONST or a node already built: past the size budget or the depth.
  UOp leaf(DType dt, const Shape& s);
  UOp input(DType dt, const Shape& s);
  UOp constant(DType dt, const Shape& s);
  UOp reuse(DType dt, const Shape& s);
  /// An input whose values are all nonzero (stated as vmin/vmax); null past max_inputs.
  UOp nonzero_input(DType dt, const Shape& s);
  /// fill() with only ops defined for every operand, under a size budget of its own.
  UOp fill_total(DType dt, const Shape& s, int budget);

  // ---- helpers shared by the families
  UOp divisor(DType dt, const Shape& s, int depth);       // elementwise.cpp
  UOp shift_amount(DType dt, const Shape& s, int depth);  // elementwise.cpp
  UOp bool_op(const Shape& s, int depth);                 // elementwise.cpp
  UOp nan_guard(UOp x);                                   // cast.cpp
  Op reduce_op(DType dt, int64_t combined);               // reduce.cpp
  /// REDUCE_AXIS of a fresh shape over every axis, reshaped and expanded to `s`.
  UOp reduce_everything(DType dt, const Shape& s, int depth);  // reduce.cpp
  Op combine_op(DType dt);                                     // self_combine.cpp
  UOp share(UOp x);                                            // self_combine.cpp
  UOp other_view(UOp x, bool may_agree);                       // self_combine.cpp
  UOp wide_read(DType dt, const Shape& s, int depth);          // buffer_shapes.cpp
  UOp pad_read(DType dt, const Shape& s, UOp y, bool alone);   // buffer_shapes.cpp
  int64_t split_extent();                                      // split_reduce.cpp
  UOp large_reduce();                                          // split_reduce.cpp
  Op quantized_reduce_op();                                    // quantized.cpp
  UOp quantized_reduce(DType qt, const Shape& s, Shape from, std::vector<int64_t> axes,
                       int depth);  // quantized.cpp

  // ---- dtypes and shapes (shapes.cpp)
  DType draw_dtype() {
    return draw_dtype_except(ir::dtypes::Void);
  }
  DType draw_dtype_except(DType not_this, bool floats = true);
  /// Whether a `from` value may be cast or bitcast to `to`: a float reaching an integer
  /// is guarded, but the guard is still an op the oracle must check.
  bool floats_may_reach(DType to, DType from) const {
    return !(total_ops_only_ && from.is_float() && to.is_int());
  }
  /// The chance of a size-0 dim: higher in a program drawn degenerate (p_degenerate_shapes).
  double zero_dim() const {
    return degenerate_ ? p_.degenerate_zero_dim : p_.p_zero_dim;
  }
  int64_t draw_extent();
  int64_t reduce_extent();
  int64_t draw_rank();
  Shape draw_shape();
  /// A random shape of `n` elements: n's prime factors spread over a random rank.
  Shape refactor(int64_t n);
  std::vector<int64_t> permutation(size_t n);
  /// A nonempty ascending subset of the axes of a rank-`rank` tensor (rank >= 1).
  std::vector<int64_t> some_axes(size_t rank);
  /// A derived source may be as large as the cap, or as the (larger) shape it serves.
  bool fits(const Shape& source, const Shape& given) const;
  static bool sized_int(DType dt) {
    return dt.is_int() && !dt.is_bool() && !dt.is_quantized();
  }
  static bool is_all_ones(const Shape& s);
  static size_t first_wide(const Shape& s);

  // ---- randomness
  /// A fair choice between equivalent spellings (which side, which sign): not a knob.
  bool coin() {
    return e_.coin();
  }
  /// One of a table of named options, uniformly.
  template <class T, size_t N>
  T option(const T (&table)[N]) {
    return table[e_.below(N)];
  }

  static std::pair<std::string, Shape> key(DType dt, const Shape& s) {
    return {std::string(dt.name()), s};
  }

  ir::Context& ctx_;
  const TensorGenPolicy& p_;
  Entropy& e_;
  int budget_;
  int next_slot_ = 0;
  bool total_ops_only_ = false;  ///< only ops defined for every operand (no check needed)
  bool degenerate_ = false;      ///< this program draws size-0 and size-1 dims on purpose
  std::vector<UOp> inputs_;
  /// Every node filled, by dtype (its name: quantized types share a scalar) and shape.
  std::map<std::pair<std::string, Shape>, std::vector<UOp>> pool_;
};

/// Per program, after it is built: the hard inputs it draws (p_edge_inputs,
/// p_hard_float_inputs) as @input lines (hard_inputs.cpp).
void draw_hard_inputs(ir::Kernel& k, const TensorGenPolicy& p, Entropy& e);

}  // namespace uopfuzz::gen
