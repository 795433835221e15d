/** \file Split ReduceOp (seed 001; tinygrad's split_reduceop) on the tensor program, before
 * rangeify: a large REDUCE_AXIS becomes two stages so the first can run in parallel.
 *
 * Only when prod(input) // prod(output) >= LowerOptions::split_reduce_threshold, and a
 * reduced, non-broadcast dim has a divisor d in [8, min(256, 2^22 // prod(output))] (the
 * first reduced dim that has one; the largest d): RESHAPE that dim into (d, size/d),
 * PERMUTE the d dim last, REDUCE_AXIS the original axes (d partial results), CONTIGUOUS (a
 * kernel boundary), REDUCE_AXIS the last axis, RESHAPE to the original output shape. A
 * dim that does not factor is skipped; nothing factorable -> no split. The rule is named
 * "split_reduce" (LowerOptions::disabled switches it off).
 */
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "ir/uop.h"
#include "schedule/lower.h"

namespace uopfuzz::schedule {

inline constexpr const char* kSplitReduceRule = "split_reduce";

/// The tensor program `root` (a verified REALIZE) with its large reduces split; each split
/// counts one hit of kSplitReduceRule in `hits`.
ir::UOp split_reduces(ir::Context& ctx, ir::UOp root, const LowerOptions& options,
                      std::map<std::string, uint64_t>& hits);

}  // namespace uopfuzz::schedule
