/** \file Shape normalization and the unit-axis reduce rule (seed 003), on the tensor
 * program before split reduce and rangeify.
 *
 * 1. `squeeze_unit_dims`: a REDUCE_AXIS whose input has size-1 dims reduces the input
 *    RESHAPEd without them, over its axes remapped onto the remaining dims, and its result
 *    is RESHAPEd back to the keepdim shape. Which axes were removed is recorded
 *    (SqueezeRecord): a reduce whose axes were all removed becomes `axes=[]`, "reduce
 *    nothing", never "all axes". A reduced size-1 dim is only removed where folding its
 *    one element is the identity (fold_of_one_is_identity): a float ADD folds from +0.0,
 *    so sum([-0.0]) is +0.0 while `axes=[]` keeps -0.0.
 * 2. `reduce_unit_axis`: a REDUCE_AXIS whose reduced axes all have size 1 (or none) is its
 *    input, RESHAPEd to the output shape, when input and output types are equal, and
 *    REQUANTIZE of it when they are two quantized types (the quantized reduce over one
 *    element is exactly that); anything else stays a reduce.
 * Each stage is switched off by its name in LowerOptions::disabled.
 */
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/uop.h"
#include "schedule/lower.h"

namespace uopfuzz::schedule {

inline constexpr const char* kSqueezeUnitDimsRule = "squeeze_unit_dims";
inline constexpr const char* kReduceUnitAxisRule = "reduce_unit_axis";

/// Whether REDUCE_AXIS `reduce` over one element gives that element bit for bit: ADD of
/// integers (0 + x), MUL (1 * x, exact for floats too: -0.0 and NaN stay), MAX and MIN of
/// anything (the lowest/highest value or -inf/+inf loses to every x, NaN included), and any
/// quantized reduce (nothing is folded from an identity; SEMANTICS.md). Not a float ADD:
/// 0 + -0.0 is +0.0.
bool fold_of_one_is_identity(ir::UOp reduce);

/// The program `root` (a verified REALIZE) with its reduces' size-1 dims removed; each
/// reduce whose input loses dims counts one hit and appends one record to `records`.
ir::UOp squeeze_unit_dims(ir::Context& ctx, ir::UOp root, const LowerOptions& options,
                          std::map<std::string, uint64_t>& hits,
                          std::vector<SqueezeRecord>& records);

/// The program `root` with every reduce over size-1 axes (or none) replaced by its input
/// or a REQUANTIZE of it; each replacement counts one hit.
ir::UOp reduce_unit_axes(ir::Context& ctx, ir::UOp root, const LowerOptions& options,
                         std::map<std::string, uint64_t>& hits);

}  // namespace uopfuzz::schedule
